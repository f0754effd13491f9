"""``python paired_targets.py BEFORE.md AFTER.md``: two runs of ``issue30_targets/cli_targets.py``
(one table and domain) paired by seed: the mean ratios to the DP baseline before, the mean
difference (its standard error), the seeds lower and the seeds changed, at 10 equal / 10
quantile bins."""
import re
import sys

import numpy as np


def read(path):
    out = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 7:
            out[int(cells[2])] = [float(re.search(r"\(([0-9.]+)x\)", cells[k]).group(1))
                                  for k in (3, 5)]
    return out


before, after = read(sys.argv[1]), read(sys.argv[2])
seeds = sorted(set(before) & set(after))
b = np.array([before[s] for s in seeds])
d = np.array([after[s] for s in seeds]) - b
se = d.std(axis=0, ddof=1) / np.sqrt(len(seeds))
print(f"{sys.argv[2]}: {len(seeds)} seeds, before {b[:, 0].mean():.3f} / {b[:, 1].mean():.3f}; "
      f"e10 {d[:, 0].mean():+.4f} ({se[0]:.4f}), {(d[:, 0] < 0).sum()} lower, "
      f"{(d[:, 0] != 0).sum()} changed; q10 {d[:, 1].mean():+.4f} ({se[1]:.4f}), "
      f"{(d[:, 1] < 0).sum()} lower")
