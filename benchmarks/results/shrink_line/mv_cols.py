"""``ON=TAG python mv_cols.py EPS KIND SEED...``: per numeric column of the movies split, the sum
of its pairs' 2-way TV and its 1-way TV, OUT/o0 (off) against OUT/TAG (on) rows (a diagnosis)."""
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
tree = os.environ.get("SKDP_TREE", os.path.abspath(os.path.join(here, "..", "..", "..")))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks"),
                os.path.join(tree, "benchmarks/results/mixed_speed")]
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from split import read  # noqa: E402
from synth_resolution import marginal  # noqa: E402

eps, kind = sys.argv[1], sys.argv[2]
seeds = [int(s) for s in sys.argv[3:]]
out, on = os.environ.get("OUT", "/tmp/s50/mvp"), os.environ.get("ON", "o1")
header, numeric, tr, ho = read("/tmp/mv")
d = len(header)
pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
acc = {m: np.zeros(d) for m in ("o0", on)}
one = {m: np.zeros(d) for m in ("o0", on)}
for seed in seeds:
    ys = [_read_csv_rows(f"{out}/{m}/syn_{eps}_s{seed}.csv") for m in ("o0", on)]
    (h, *Y), cards = _user_codes([ho] + ys, numeric, kind, 10)
    for m, y in zip(("o0", on), Y):
        for i, j in pairs:
            e = 0.5 * np.abs(marginal(h, (i, j), cards) - marginal(y, (i, j), cards)).sum()
            acc[m][i] += e
            acc[m][j] += e
        for j in range(d):
            one[m][j] += 0.5 * np.abs(marginal(h, (j,), cards) - marginal(y, (j,), cards)).sum()
n = len(seeds)
for j in range(d):
    if numeric[j]:
        print(f"{header[j]:>10} pairs-sum off {acc['o0'][j] / n:.3f} on {acc[on][j] / n:.3f} "
              f"diff {(acc[on][j] - acc['o0'][j]) / n:+.4f} | 1-way {one['o0'][j] / n:.4f} -> "
              f"{one[on][j] / n:.4f}")
