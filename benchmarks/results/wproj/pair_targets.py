"""``python pair_targets.py MAIN.md OTHER.md``: ``cli_targets.py`` rows paired by table and
seed: the mean ratios e10 / q10 of each, OTHER - MAIN (se) and the seeds where OTHER is lower."""
import re
import sys

import numpy as np


def load(path):
    rows = {}
    for line in open(path):
        c = [x.strip() for x in line.split("|")]
        if len(c) < 8 or not c[3].isdigit():
            continue
        ratio = [float(re.search(r"\(([\d.]+)x\)", c[i]).group(1)) for i in (4, 6)]
        rows[(c[1], int(c[3]))] = ratio
    return rows


main, other = load(sys.argv[1]), load(sys.argv[2])
for table in sorted({k[0] for k in other}):
    keys = sorted(k for k in other if k[0] == table and k in main)
    a = np.array([main[k] for k in keys])
    b = np.array([other[k] for k in keys])
    d, n = b - a, len(keys)
    se = d.std(0, ddof=1) / np.sqrt(n)
    cells = [f"{d[:, i].mean():+.4f} ({se[i]:.4f}) {(d[:, i] < 0).sum()}/{n}" for i in (0, 1)]
    print(f"| {table} | {n} | {a[:, 0].mean():.3f} / {a[:, 1].mean():.3f} | "
          f"{b[:, 0].mean():.3f} / {b[:, 1].mean():.3f} | " + " | ".join(cells) + " |")
