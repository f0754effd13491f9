"""CSV input and output of the command line: headers, missing cells, streamed writing."""

import contextlib
import csv
import os
import tempfile

import numpy as np

from .interrupt import held
from .texts import NA_VALUES

__all__ = ["NA_VALUES", "read_header", "read_cells", "typed_table", "held_table", "write_rows",
           "replaced"]


def _unreadable(path, reader, exc):
    """A one-line ValueError for a CSV the reader cannot read (no cell's text in it)."""
    if isinstance(exc, UnicodeDecodeError):  # its text would show a private byte
        return ValueError(f"{path} is not UTF-8 text: save the CSV as UTF-8.")
    where = f"{path}, line {reader.line_num}" if reader is not None else path
    if "field larger than field limit" in str(exc):
        return ValueError(f"{where}: a cell is longer than {csv.field_size_limit()} characters, "
                          "the CSV reader's limit for one cell (is the file a CSV table with "
                          "balanced quotes?).")
    return ValueError(f"{where}: not a readable CSV row ({exc}).")


def read_header(path):
    """The header row of a CSV file (reads nothing else); raise a ValueError if unusable.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> _ = open(path, "w").write("a,b\\n1,2\\n")
    >>> read_header(path)
    ['a', 'b']
    """
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise ValueError(f"{path} is empty: the first line must be a header row.") from None
        except (csv.Error, UnicodeDecodeError) as exc:
            raise _unreadable(path, reader, exc) from None
    header = [h.strip() for h in header]
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise ValueError(f"{path}: the header repeats column name(s) {repeated}.")
    if "" in header:
        raise ValueError(f"{path}: column {header.index('') + 1} of the header has no name.")
    return header


def read_cells(path, header, na_values=NA_VALUES):
    """Data rows of a CSV as stripped strings, ``None`` for missing cells, and their line numbers.

    Empty cells and the ``na_values`` spellings are missing. Blank lines are skipped.
    A row the CSV reader refuses (a cell over its field size limit, a NUL byte,
    text that is not UTF-8) raises a one-line ValueError naming the file and line.
    """
    missing = set(na_values) | {""}
    rows, lines = [], []
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh)
        try:
            next(reader, None)
            for row in reader:
                if not row:
                    continue
                if len(row) != len(header):
                    raise ValueError(f"{path}, line {reader.line_num}: {len(row)} fields, "
                                     f"expected {len(header)} (the header's).")
                cells = [c.strip() for c in row]
                rows.append([None if c in missing else c for c in cells])
                lines.append(reader.line_num)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise _unreadable(path, reader, exc) from None
    if not rows:
        raise ValueError(f"{path} has no data rows.")
    return rows, lines


def typed_table(path, rows, lines, columns, missing="keep"):
    """Object array of the cells read by each column's domain (``None`` stays missing).

    With ``missing='keep'`` (``--missing``), a missing cell in a column whose entry says
    ``"missing": false`` stops the run here, naming the file, line and column."""
    table = np.empty((len(rows), len(columns)), dtype=object)
    for i, (row, line) in enumerate(zip(rows, lines)):
        where = f"{path}, line {line}"
        table[i, :] = [_missing(col, where, missing) if c is None else col.parse(c, where)
                       for c, col in zip(row, columns)]
    return table


def held_table(path, rows, lines, columns):
    """:func:`typed_table` for a holdout file: ``(table, outside)``, ``outside`` True where a
    cell is a category or code the domain lacks (each column's ``parse_held``) or is missing
    in a column whose entry says ``"missing": false``: a value no synthetic row takes, scored
    rather than refused (the holdout is the curator's file; ``--missing drop`` drops no
    holdout row)."""
    table = np.empty((len(rows), len(columns)), dtype=object)
    outside = np.zeros(table.shape, dtype=bool)
    complete = [_no_missing(col) for col in columns]
    for i, (row, line) in enumerate(zip(rows, lines)):
        where = f"{path}, line {line}"
        for j, (c, col) in enumerate(zip(row, columns)):
            if c is None:
                outside[i, j] = complete[j]
            else:
                table[i, j], inside = col.parse_held(c, where)
                outside[i, j] = not inside
    return table, outside


def _no_missing(col):
    return isinstance(col.entry, dict) and col.entry.get("missing") is False


def _missing(col, where, missing):
    if missing == "keep" and _no_missing(col):
        raise ValueError(f"{where}: the cell of column {col.name!r} is missing but its domain "
                         "entry says \"missing\": false; write \"missing\": true there, or "
                         "pass --missing drop to drop such rows.")
    return None


@contextlib.contextmanager
def replaced(path, suffix=".part", done=None):
    """A temporary path beside ``path``, renamed to ``path`` when the block succeeds and
    removed when it fails or is interrupted (Ctrl-C, SIGTERM), so no partial file is left.

    ``done()``, if given, runs right after the rename, with Ctrl-C and SIGTERM
    deferred until both are over.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.txt")
    >>> with replaced(path) as tmp:
    ...     _ = open(tmp, "w").write("done")
    >>> open(path).read(), os.listdir(os.path.dirname(path))
    ('done', ['t.txt'])
    """
    folder = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        with held():
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".skdp-", suffix=suffix)
            os.close(fd)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would create it (mkstemp makes it 0600)
        yield tmp
        with held():
            os.replace(tmp, path)
            tmp = None
            if done is not None:
                done()
    finally:
        if tmp is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def write_rows(path, header, columns, chunks, done=None):
    """Write the header and the chunks' rows, formatted by each column; return the row count.

    Writes to a temporary file beside ``path`` and renames it at the end
    (:func:`replaced`, which calls ``done``), so a failure or an interrupt
    leaves no partial output.
    """
    n = 0
    with replaced(path, ".csv.part", done) as tmp:
        with open(tmp, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            for chunk in chunks:
                writer.writerows([col.format(v) for col, v in zip(columns, row)]
                                 for row in _rows(chunk))
                n += len(chunk)
    return n


def _rows(chunk):
    if hasattr(chunk, "itertuples"):  # a DataFrame
        return chunk.itertuples(index=False, name=None)
    return (list(row) for row in np.asarray(chunk, dtype=object))
