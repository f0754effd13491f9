"""``python paired_rows.py BEFORE.md AFTER.md``: the 2-way mean TV at 10 equal / 10 quantile
bins, paired by (epsilon, seed): per epsilon the means, the mean difference (its standard
error) and the seeds lower after. Rows of ``rows.py`` (mean TVs) or of ``baseline.py`` (their
ratios to the DP baseline, the ``(0.501x)`` of each cell)."""
import re
import sys

import numpy as np


def read(path):
    rows = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[1][:1].isdigit():
            rows[(cells[1], int(cells[2]))] = [float(cells[k].split("/")[0]) for k in (4, 6)]
        elif len(cells) == 6 and cells[1].isdigit():
            rows[(cells[0], int(cells[1]))] = [
                float(re.search(r"\(([\d.]+)x\)", cells[k]).group(1)) for k in (2, 4)]
    return rows


before, after = read(sys.argv[1]), read(sys.argv[2])
print("| eps | seeds | before e10 / q10 | after e10 / q10 | diff e10 (se), lower | "
      "diff q10 (se), lower |")
print("|---|---|---|---|---|---|")
for eps in sorted({e for e, _ in before}, key=float):
    keys = sorted(k for k in before if k[0] == eps and k in after)
    b = np.array([before[k] for k in keys])
    a = np.array([after[k] for k in keys])
    d = a - b
    se = d.std(axis=0, ddof=1) / np.sqrt(len(keys))
    low = (d < 0).sum(axis=0)
    print(f"| {eps} | {len(keys)} | {b[:, 0].mean():.4f} / {b[:, 1].mean():.4f} | "
          f"{a[:, 0].mean():.4f} / {a[:, 1].mean():.4f} | {d[:, 0].mean():+.4f} ({se[0]:.4f}), "
          f"{low[0]}/{len(keys)} | {d[:, 1].mean():+.4f} ({se[1]:.4f}), {low[1]}/{len(keys)} |")
