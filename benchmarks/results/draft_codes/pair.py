"""``python pair.py ROWS A B``: ``cli_draft_workflow.py`` rows labelled ``CONFIG sSEED`` (as in
``rows/few_numbers.md``) paired by table and seed: config B against A, the mean 2-way TV at
10 quantile / 10 equal bins of the real table, the mean change, its standard error and the
seeds lower."""
import sys

import numpy as np

path, a, b = sys.argv[1:4]
rows = {}
for line in open(path):
    if line.startswith("#"):  # a file's header
        continue
    cfg, seed, table, *f = line.split()
    rows[(cfg, table.split("/")[1], int(seed[1:]))] = (float(f[2]), float(f[4]))
tables = sorted({t for _, t, _ in rows}, key=lambda t: [k[1] for k in rows].index(t))
print(f"| table | seeds | q10 {a} | q10 {b} | change | e10 {a} | e10 {b} | change |")
print("|---|---|---|---|---|---|---|---|")
for t in tables:
    seeds = sorted(s for c, tt, s in rows if c == a and tt == t and (b, t, s) in rows)
    if len(seeds) < 2:
        continue
    cells = []
    for i in (0, 1):
        x = np.array([rows[(a, t, s)][i] for s in seeds])
        y = np.array([rows[(b, t, s)][i] for s in seeds])
        d = y - x
        se = d.std(ddof=1) / np.sqrt(len(d))
        cells += [f"{x.mean():.4f}", f"{y.mean():.4f}",
                  f"{d.mean():+.4f} ({se:.4f}) {int((d < 0).sum())}/{len(d)}"]
    print(f"| {t} | {len(seeds)} | " + " | ".join(cells) + " |")
