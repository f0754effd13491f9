"""Texts and defaults shared by the parser and the jobs (no imports: ``--help`` stays fast)."""

__all__ = ["NA_VALUES", "DOMAIN_FORMAT", "CLIPPING_NOTE"]

NA_VALUES = ("NA", "N/A", "NaN", "nan", "null", "NULL")
"""Cells read as missing besides empty ones (``--na-values`` replaces this list)."""

DOMAIN_FORMAT = """\
domain file (JSON): an object, column name -> entry, one of
  ["a", "b", 3, true]     a list is always categories (strings, numbers, booleans;
                          a cell "true"/"True" matches true, "1" or "1.0" matches 1)
  {"categories": [...]}   the same as a list
  85                      an integer k: the codes 0..k-1 (private-pgm domain files)
  {"codes": 85, "missing": false}
                          the same, as an object (so that it can say "missing")
  {"low": 0, "high": 90, "n_bins": 9, "integer": true}
                          a numeric column cut into n_bins equal bins on public
                          bounds (n_bins defaults to --n-bins, integer to false:
                          integer columns are written as integers); cells below
                          low or above high are clipped to the bounds (counted in
                          the first or last bin); synthetic values lie within them
  {"low": "2015-11-01", "high": "2016-11-08", "date": true}
                          a date column: ISO dates YYYY-MM-DD, read as days from
                          1970-01-01 (an integer column on those public bounds, cut
                          into bins as above) and written back as ISO dates (the
                          in-memory CSV job only; a cell with a time of day is
                          refused, naming the column); with "format": "%m/%d/%Y"
                          (a strptime format, no time zone) the cells and bounds
                          are dates written that way, and so are the synthetic
                          values (zero-padded); "datetime" takes one too
  {"low": "2012-01-01T00:00:00Z", "high": "2012-12-31T23:59:59Z", "datetime": true}
                          a timestamp column: ISO date and time of day (T or a
                          space, Z or an offset optional: all cells zoned as the
                          bounds are, or none), read as whole seconds from
                          1970-01-01T00:00:00 (UTC where zoned; a fraction of a
                          second rounded) and written back in the low bound's form
                          (in UTC where zoned; the in-memory CSV job only)
  {"formula": "exper ** 2", "integer": true}
                          a column computed from others after the release (a public
                          function: numbers, column names, `odd.names` in backticks,
                          + - * / **, one comparison > >= < <= == != giving 1 or
                          0, log log1p exp expm1 sqrt abs): not modelled,
                          its cells never read, each synthetic row's value computed
                          from that row's values of the numeric columns it names
                          (missing where one is, or where the result is not finite;
                          integer: written rounded; the in-memory CSV job only)
  {"lookup": "species_id", "values": {"DM": "Dipodomys", "AB": "Amphispiza"}}
                          a column computed from another's category after the
                          release (a public table: a key for each category or code
                          of a modelled column, as the CSV writes it; strings,
                          numbers, booleans or null): not modelled, its cells never
                          read; missing where that column is (in-memory job only)
  {"kind": "numeric", "integer": true} or {"kind": "categorical"}
                          only the kind is public: the bounds (cut into n_bins bins)
                          or categories are found privately, as --domain private
                          does for every column (cells outside the bounds found are
                          clipped to them, as above); {"kind": "numeric", "date":
                          true} (or "datetime": true, each with an optional
                          "format"; no time zone): dates or timestamps, bounds found
                          privately (times of day: seconds from midnight)
Any object entry may add "missing": true|false: whether the column keeps a
missing-value cell (default true), and "note": "..." (free text for the reader;
a note of `python -m skdp domain`'s draft, which begins "DRAFT read from the
data", makes `synthesize` warn until it is deleted). Columns the file does not name are described
from the data, with a PrivacyLeakWarning.

structural zeros: the key "forbid" holds a list of combinations that cannot
occur, each an object {column: value} read as "all of these at once", e.g.
  "forbid": [{"pregnant": "yes", "sex": "male"}, {"relationship": "Wife",
              "sex": "Male"}]
Each value is one of the column's categories or codes, or for a numeric
column with bounds an interval, e.g. {"age": {"<": 16}, "marital": "married"}
(keys ">", ">=", "<", "<="), which must hold whole bins of the column's equal
bins (with "integer": true, the integers a bin holds: {"<=": 19} fits a bin
edge at 20); an interval that cuts a bin is refused, naming the column and
the nearest edges. No synthetic row matches any of them. They are public facts,
cost no budget, and the data is not checked against them (rows that break
one are counted as any other, but never sampled).

numbers: a cell of a numeric column must be a finite number. 'inf', '-inf',
'Infinity' (any spelling of an infinite float) are not: in a column with a
numeric entry they stop the job with an error naming the column and the line;
list their spellings in --na-values to read them as missing cells instead (the
list replaces the default one: --na-values NA,N/A,NaN,nan,null,NULL,inf,-inf).
A column the file does not name is read as numeric only if every non-missing
cell is a finite number, else as categorical (one category per distinct cell,
copied into the synthetic cells); the warning then names the columns read as
categorical although most of their cells are numbers: give them a
{"low": .., "high": ..} entry, or list their stray spellings in --na-values."""

CLIPPING_NOTE = ("note: cells outside a numeric column's bounds are clipped to them "
                 "(counted in its first or last bin); the synthetic values lie within the "
                 "bounds.")
"""Said once on stderr when a numeric column has public or private bounds: a rule, no count."""
