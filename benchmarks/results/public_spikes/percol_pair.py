"""Per numeric column 1-way TV and per-column 2-way mean (against the holdout, 10 equal /
10 quantile bins of the holdout) of two at_eps.py output folders, mean over seeds."""
import sys

import numpy as np
import pandas as pd

sys.path[:0] = ['/work/main/benchmarks', '/work/main']
import cli_api_gap as g  # noqa: E402
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402

T, A, B = sys.argv[1:4]
seeds = [int(s) for s in sys.argv[4:]]
_, _, hold = g.split(T, 15000)
s0 = pd.read_csv(f'{A}/{T}.curated.s0.csv')
header = list(s0.columns)
ho = np.array(hold[header].astype(object).where(hold[header].notna(), None).values, dtype=object)
numeric = [hold[c].dtype.kind in 'if' and hold[c].nunique() > 12 for c in header]
for kind in ("equal", "quantile"):
    acc = {}
    for s in seeds:
        for name, d in (("A", A), ("B", B)):
            sy = _read_csv_rows(f'{d}/{T}.curated.s{s}.csv')
            (h, x), cards = _user_codes([ho, sy], numeric, kind, 10)
            for j, c in enumerate(header):
                ph = np.bincount(h[:, j], minlength=cards[j]) / len(h)
                p = np.bincount(x[:, j], minlength=cards[j]) / len(x)
                acc.setdefault((c, name), []).append(0.5 * np.abs(p - ph).sum())
    print(kind, "1-way TV A / B")
    for c in header:
        a, b = np.mean(acc[(c, "A")]), np.mean(acc[(c, "B")])
        print(f"   {c}: {a:.4f} / {b:.4f}  {b - a:+.4f}")
