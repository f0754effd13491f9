"""``python baseline.py DIR EPS SYN.csv...``: issue 30's target ratios for synthetic tables of
``movies.py``'s split (``DIR``): the protocol of ``issue30_targets/cli_targets.py`` (10 equal /
10 quantile bins of the holdout; a column is binned when the domain file gives it bounds;
the independent-columns DP baseline at the same bins and ``EPS``, rng ``seed + 7``, the seed
read from the file name's ``_sSEED``): per table the mean 2-way TV against the holdout as a
multiple of the baseline's, and the numeric columns whose 1-way TV is at most the
baseline's."""
import os
import re
import sys

import numpy as np

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from synth_resolution import independent, scores  # noqa: E402
from split import read  # noqa: E402

folder, eps = sys.argv[1], float(sys.argv[2])
header, numeric, tr, ho = read(folder)
num = [j for j, n in enumerate(numeric) if n]
print("| eps | seed | 2-way e10 (x DP indep) | 1-way e10 at most the baseline's | "
      "2-way q10 (x DP indep) | 1-way q10 at most |")
print("|---|---|---|---|---|---|")
for path in sys.argv[3:]:
    seed = int(re.search(r"_s(\d+)\.csv$", path).group(1))
    sy = _read_csv_rows(path)
    cells = []
    for kind in ("equal", "quantile"):
        (h, t, s), cards = _user_codes([ho, tr, sy], numeric, kind, 10)
        base = independent(t, cards, np.random.default_rng(seed + 7), epsilon=eps)
        (f2, f1), (b2, b1) = scores(h, s, cards, num), scores(h, base, cards, num)
        ok = sum(f1[j] <= b1[j] for j in num)
        cells.append(f"{f2:.4f} / {b2:.4f} ({f2 / b2:.3f}x) | {ok} of {len(num)}")
    print(f"| {eps:g} | {seed} | " + " | ".join(cells) + " |", flush=True)
