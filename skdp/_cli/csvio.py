"""CSV input and output of the command line: headers, missing cells, streamed writing."""

import csv
import os
import tempfile

import numpy as np

__all__ = ["NA_VALUES", "read_header", "read_cells", "typed_table", "write_rows"]

NA_VALUES = ("NA", "N/A", "NaN", "nan", "null", "NULL")
"""Cells read as missing besides empty ones (``--na-values`` replaces this list)."""


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
        try:
            header = next(csv.reader(fh))
        except StopIteration:
            raise ValueError(f"{path} is empty: the first line must be a header row.") from None
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
    """
    missing = set(na_values) | {""}
    rows, lines = [], []
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.reader(fh)
        next(reader, None)
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                raise ValueError(f"{path}, line {reader.line_num}: {len(row)} fields, expected "
                                 f"{len(header)} (the header's).")
            cells = [c.strip() for c in row]
            rows.append([None if c in missing else c for c in cells])
            lines.append(reader.line_num)
    if not rows:
        raise ValueError(f"{path} has no data rows.")
    return rows, lines


def typed_table(path, rows, lines, columns):
    """Object array of the cells read by each column's domain (``None`` stays missing)."""
    table = np.empty((len(rows), len(columns)), dtype=object)
    for i, (row, line) in enumerate(zip(rows, lines)):
        where = f"{path}, line {line}"
        table[i, :] = [None if c is None else col.parse(c, where)
                       for c, col in zip(row, columns)]
    return table


def write_rows(path, header, columns, chunks):
    """Write the header and the chunks' rows, formatted by each column; return the row count.

    Writes to a temporary file beside ``path`` and renames it at the end, so a
    failure leaves no partial output.
    """
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".skdp-", suffix=".csv.part")
    n = 0
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would create it (mkstemp makes it 0600)
        with os.fdopen(fd, "w", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(header)
            for chunk in chunks:
                writer.writerows([col.format(v) for col, v in zip(columns, row)]
                                 for row in _rows(chunk))
                n += len(chunk)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return n


def _rows(chunk):
    if hasattr(chunk, "itertuples"):  # a DataFrame
        return chunk.itertuples(index=False, name=None)
    return (list(row) for row in np.asarray(chunk, dtype=object))
