"""Domain files of the command line: file checks, reading CSV cells by domain, drafting from data.

A domain file is a JSON object, column name -> entry (the forms of
``SaddlePointSynthesizer(domain=...)``, see ``DOMAIN_FORMAT``). Each entry is
checked by the one parser of the domain model (:func:`skdp._domain.parse_entry`,
the estimator's); this module keeps what is the command line's own: the file
against the CSV header, and how a column's CSV cells are read and its synthetic
values written (:class:`CsvCells`), decided by its entry alone.
"""

import math

import numpy as np

from .._domain import entry_form, parse_entry
from .._domain.forbid import FORBID, check_forbid, split_forbid
from .._domain.parse import code_count
from .._validation import name_list
from .clock import TIME_KEYS, Clock, kind_spelling, time_key, time_span
from .texts import DOMAIN_FORMAT

__all__ = ["DOMAIN_FORMAT", "CsvCells", "check_domain", "draft_entry", "estimator_domain",
           "is_computed", "kind_entry", "mostly_numbers"]

_UNKNOWN = object()  # a cell that spells none of a column's categories

_HINT = "See `python -m skdp synthesize --help` for the domain file format."


def is_computed(entry):
    """Whether a domain entry is a computed column's (a dict with a ``"formula"`` or a
    ``"lookup"`` key: :mod:`.computed`, which checks and computes it)."""
    return isinstance(entry, dict) and ("formula" in entry or "lookup" in entry)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _numeric(name, entry):
    """A date or timestamp entry (``{"low": "2015-11-01", "high": "2016-11-08", "date":
    true}``, ``"datetime": true``) as the estimator's integer entry, in days or seconds from
    1970-01-01 (:class:`~skdp._cli.clock.Clock`; with ``"kind": "numeric"`` and no bounds,
    an integer kind entry: bounds found privately); any other entry as it is."""
    key = time_key(entry)
    if key is None:
        return entry
    out = {k: v for k, v in entry.items() if k not in TIME_KEYS and k != "format"}
    low, high = Clock(name, entry).bounds()
    if low is not None:
        out.update(low=low, high=high)
    out["integer"] = True
    return out


def estimator_domain(domain):
    """The domain file's entries as the estimator takes them: each date (timestamp) entry in
    days (seconds) from 1970-01-01 (public), computed columns (:mod:`.computed`: not modelled)
    left out, the rest (and ``"forbid"``) as they are.

    Examples
    --------
    >>> estimator_domain({"d": {"low": "1970-01-02", "high": "1970-02-01", "date": True},
    ...                   "d2": {"formula": "d * 2"}})
    {'d': {'low': 1, 'high': 31, 'integer': True}}
    """
    if not isinstance(domain, dict):
        return domain
    entries, forbid = split_forbid(domain)
    out = {name: _numeric(name, entry) for name, entry in entries.items()
           if not is_computed(entry)}
    if forbid:
        out[FORBID] = forbid_in_units(entries, forbid)
    return out


def forbid_in_units(entries, forbid):
    """The ``"forbid"`` list with each value or interval end of a date or timestamp column,
    written as its cells are (ISO, or its ``"format"``), in the estimator's days or seconds;
    numbers and the other columns' values as they are.

    Examples
    --------
    >>> forbid_in_units({"d": {"low": "1970-01-01", "high": "1970-12-31", "date": True}},
    ...                 [{"d": {">=": "1970-02-01"}, "k": 1}])
    [{'d': {'>=': 31}, 'k': 1}]
    """
    clocks = {name: Clock(name, e) for name, e in entries.items() if time_key(e)}

    def unit(name, value):
        if name not in clocks or not isinstance(value, str):
            return value
        clock = clocks[name]
        out = clock.read(value)
        if out is None:
            raise ValueError(f"forbid: the value {value!r} of column {name!r} is not "
                             f"{clock.spelling()}.")
        return out

    return [{name: {op: unit(name, end) for op, end in value.items()}
             if isinstance(value, dict) else unit(name, value)
             for name, value in conjunction.items()}
            if isinstance(conjunction, dict) else conjunction for conjunction in forbid]


def check_domain(domain, header):
    """Check a loaded domain file against the CSV header; raise a ValueError naming the column.

    Each entry is checked by :func:`skdp._domain.parse_entry` (the estimator's parser), and
    the structural zeros (a ``"forbid"`` list of ``{column: value}`` objects) by
    :func:`skdp._domain.forbid.check_forbid`; computed entries (:func:`is_computed`) are left
    to :func:`skdp._cli.computed.computed_columns`, which checks them against the others.

    Examples
    --------
    >>> check_domain({"age": {"low": 0, "high": 90}, "sex": ["F", "M"]}, ["age", "sex"])
    """
    if not isinstance(domain, dict):
        raise ValueError(f"a domain file holds a JSON object (column name -> entry), got a "
                         f"{type(domain).__name__}. {_HINT}")
    entries, forbid = split_forbid(domain)
    if forbid and FORBID in header:
        raise ValueError(f"the domain's {FORBID!r} holds structural zeros, but the CSV also has "
                         f"a column named {FORBID!r}: rename that column (in a copy of the "
                         "file) to give both.")
    unknown = [k for k in entries if k not in header]
    if unknown:
        raise ValueError(f"the domain names column(s) {name_list(unknown)} that the CSV does "
                         f"not have; its header is {header}.")
    for name, entry in entries.items():
        try:
            if not is_computed(entry):
                parse_entry(name, _numeric(name, entry))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{exc} {_HINT}") from None
    if forbid:
        try:
            check_forbid(estimator_domain(entries), forbid_in_units(entries, forbid),
                         n_bins=None)  # bins: the estimator's
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{exc} {_HINT}") from None


def _number(cell):
    """The finite number a cell spells (an exact int for an integer literal), else None."""
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        v = float(cell)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


class CsvCells:
    """How one CSV column's cells are read and written, decided by its domain entry alone.

    The column's domain itself is :class:`skdp._domain.Column` (the estimator's);
    this is the command line's reading and writing of its cells.

    Parameters
    ----------
    name : str
        Column name (the CSV header).
    entry : list, int or dict
        Its domain entry (checked by :func:`skdp._domain.parse_entry`).

    Examples
    --------
    >>> col = CsvCells("smoker", [False, True])
    >>> col.parse("true"), col.format(False)
    (True, 'False')
    >>> CsvCells("age", {"low": 0, "high": 90, "integer": True}).format(41.7)
    '42'
    """

    def __init__(self, name, entry):
        self.name = name
        self.clock = Clock(name, entry) if time_key(entry) else None
        entry = _numeric(name, entry)
        self.entry = entry
        parsed = parse_entry(name, entry)
        self.form = entry_form(name, entry, parsed)
        self.integer = parsed.get("integer", False)
        if self.form == "categories":
            cats = entry if isinstance(entry, list) else entry["categories"]
            self._strings = {c: c for c in cats if isinstance(c, str)}
            self._bools = {str(c).lower(): c for c in cats if isinstance(c, bool)}
            self._numbers = {c: c for c in cats if _is_number(c)}  # 1 and 1.0: one key
            self.width = max(len(self.format(c)) for c in cats)
        elif self.form == "codes":
            self.codes = code_count(entry)
            self.width = len(str(self.codes - 1))
        elif self.clock:
            self.width = len(self.clock.format(self.clock.bounds()[1] or 0))
        elif self.form == "bounds" and self.integer:
            self.width = max(len(str(round(entry["low"]))), len(str(round(entry["high"]))))
        else:  # a float, or categories found privately: a typical width
            self.width = 18 if self.form != "categorical" else 1

    def parse(self, cell, where="CSV"):
        """The value of a non-missing CSV cell (``where`` locates it in errors)."""
        if self.form == "categorical":
            return cell
        if self.form == "categories":
            return self._category(cell, where)
        if self.clock:
            return float(self.clock.value(cell, where))
        v = self._finite(cell, where)
        if self.form == "codes":
            if not self._is_code(v):
                raise ValueError(f"{where}: column {self.name!r} holds the codes "
                                 f"0..{self.codes - 1} but the cell is not one of them.")
            return int(v)
        return float(v)

    def parse_held(self, cell, where="CSV"):
        """``(value, inside)``: a non-missing cell of a holdout file and whether its value is
        in the domain. A category or code the domain lacks is not refused, as :meth:`parse`
        refuses it in the training file: it is a value no synthetic row takes, kept as
        written (a number for a code) so that the holdout's error counts it."""
        if self.form == "categories":
            v = self._known(cell)
            return (cell, False) if v is _UNKNOWN else (v, True)
        if self.form == "codes":
            v = self._finite(cell, where)
            return (int(v), True) if self._is_code(v) else (float(v), False)
        return self.parse(cell, where), True

    def _finite(self, cell, where):
        v = _number(cell)
        if v is None:
            raise ValueError(f"{where}: column {self.name!r} is numeric in the domain but the "
                             "cell is not a finite number ('inf' is not; list such spellings "
                             "in --na-values to read them as missing).")
        return v

    def _is_code(self, v):
        return float(v).is_integer() and 0 <= v < self.codes

    def _category(self, cell, where):
        v = self._known(cell)
        if v is not _UNKNOWN:
            return v
        cats = list(self._strings.values()) + list(self._bools.values()) + \
            list(self._numbers.values())
        raise ValueError(f"{where}: the cell of column {self.name!r} is not among its "
                         f"{len(cats)} domain categories {name_list(cats)}; add it to the "
                         "domain file.")

    def _known(self, cell):
        """The domain category a cell spells, else :data:`_UNKNOWN`."""
        if cell in self._strings:
            return self._strings[cell]
        if cell.lower() in self._bools:
            return self._bools[cell.lower()]
        v = _number(cell)
        if v is not None and v in self._numbers:
            return self._numbers[v]
        return _UNKNOWN

    def format(self, value):
        """The CSV text of a synthetic value (an empty cell for a missing one)."""
        if value is None or (isinstance(value, float) and math.isnan(value)) or \
                _is_na(value):
            return ""
        if isinstance(value, str):
            return value
        if isinstance(value, (bool, np.bool_)):
            return str(bool(value))
        if self.clock:
            return self.clock.format(value)
        if self.form == "codes" or self.integer or isinstance(value, (int, np.integer)):
            return str(int(round(float(value))))
        return repr(float(value))


def _is_na(value):
    try:
        return value != value or type(value).__name__ in ("NAType", "NaTType")
    except (TypeError, ValueError):
        return True


def _numeric_kind(cells):
    """(numeric, integer) of a column's non-missing cells: read from the data (a leak)."""
    numbers = [_number(c) for c in cells]
    if not cells or any(v is None for v in numbers):
        return False, False
    return True, all(float(v).is_integer() for v in numbers)


def _spells_float(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True


def mostly_numbers(cells):
    """Whether a column read as categorical has more than half of its non-missing cells
    spelling numbers: some cells are not finite numbers (``'inf'``, a stray word), so it
    is not read as numeric, although it was probably meant to be.

    The caller names such columns in its leak warning (their names only).

    Examples
    --------
    >>> mostly_numbers(["1.5", "2", "inf", None])
    True
    >>> mostly_numbers(["1.5", "2"]), mostly_numbers(["a", "b", "1"])
    (False, False)
    """
    present = [c for c in cells if c is not None]
    if not present or _numeric_kind(present)[0]:
        return False
    return 2 * sum(map(_spells_float, present)) > len(present)


def kind_entry(cells):
    """``{"kind": ...}`` entry read from a column's cells (only the kind and, for dates and
    timestamps, their spelling: a leak the caller warns). Dates and timestamps are numeric
    (days or seconds, bounds found privately) when :func:`.clock.kind_spelling` reads them;
    ISO timestamps with an offset stay categorical (a zone is read from the bounds).

    Examples
    --------
    >>> kind_entry(["1", "2", "3"])
    {'kind': 'numeric', 'integer': True}
    >>> kind_entry(["a", "1"])
    {'kind': 'categorical'}
    >>> kind_entry(["2016-11-08", None]), kind_entry(["1/31/2016"])
    ({'kind': 'numeric', 'date': True}, {'kind': 'numeric', 'date': True, 'format': '%m/%d/%Y'})
    >>> kind_entry(["2016-11-08 10:00:00"]), kind_entry(["2016-11-08T10:00:00+01:00"])
    ({'kind': 'numeric', 'datetime': True, 'format': '%Y-%m-%d %H:%M:%S'}, {'kind': 'categorical'})
    """
    present = [c for c in cells if c is not None]
    numeric, integer = _numeric_kind(present)
    if numeric:
        return {"kind": "numeric", "integer": integer}
    spelling = kind_spelling(present)
    if spelling is None:
        return {"kind": "categorical"}
    key, fmt = spelling
    return {"kind": "numeric", key: True, **({} if fmt is None else {"format": fmt})}


def draft_entry(cells, n_bins):
    """A draft domain entry (the dict forms) derived from a column's cells (a leak).

    ``cells`` are the column's CSV cells, ``None`` for missing ones. Integer
    columns with at most ``n_bins`` distinct values become categories; other
    numeric columns become bounds (min, max) cut into ``n_bins`` bins; ISO dates
    and timestamps, date and datetime columns on their first and last day or
    instant; ``true``/``false`` columns become JSON booleans; the rest, string
    categories.

    Examples
    --------
    >>> draft_entry(["1", "3", None], 10)
    {'categories': [1, 3], 'missing': True}
    >>> draft_entry(["0.5", "2"], 4)
    {'low': 0.5, 'high': 2.0, 'n_bins': 4, 'integer': False, 'missing': False}
    >>> draft_entry(["TRUE", "FALSE"], 4)
    {'categories': [False, True], 'missing': False}
    >>> draft_entry(["2016-11-08", "2015-11-06"], 4)
    {'low': '2015-11-06', 'high': '2016-11-08', 'date': True, 'missing': False}
    """
    missing = any(c is None for c in cells)
    present = [c for c in cells if c is not None]
    if not present:
        return {"categories": ["<none>"], "missing": True}
    numeric, integer = _numeric_kind(present)
    if numeric:
        values = sorted({_number(c) for c in present})
        if integer and len(values) <= n_bins:
            return {"categories": [int(v) for v in values], "missing": missing}
        low, high = (int(values[0]), int(values[-1])) if integer else \
            (float(values[0]), float(values[-1]))
        return {"low": low, "high": high, "n_bins": n_bins if high > low else 1,
                "integer": integer, "missing": missing}
    span = time_span(present)
    if span is not None:
        key, low, high, fmt, _ = span
        return {"low": low, "high": high, key: True, "missing": missing,
                **({} if fmt is None else {"format": fmt})}
    if {c.lower() for c in present} <= {"true", "false"}:
        return {"categories": sorted({c.lower() == "true" for c in present}), "missing": missing}
    return {"categories": sorted(set(present)), "missing": missing}
