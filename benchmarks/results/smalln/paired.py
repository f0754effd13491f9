"""``python paired.py BASE.md OTHER.md``: two ``smalln_check.py`` outputs paired by table,
epsilon and seed (the ``default`` decoding rows): the ratio to the baseline at e10 / q10,
the mean difference OTHER - BASE, its standard error and the seeds where OTHER is lower."""
import re
import sys

import numpy as np

ROW = re.compile(r"^\| ([\d.]+) \| (\d+) \| default \| .*?\(([\d.]+)x\) \| .*?\(([\d.]+)x\) \|")


def read(path):
    out, table = {}, None
    for line in open(path):
        if line.startswith("## "):
            table = line.split()[1].rstrip(":")
        m = ROW.match(line)
        if m:
            out[(table, float(m[1]), int(m[2]))] = (float(m[3]), float(m[4]))
    return out


base, other = read(sys.argv[1]), read(sys.argv[2])
keys = sorted(set(base) & set(other))
print("| table | eps | seeds | base e10 / q10 | other e10 / q10 | diff e10 (se), lower | "
      "diff q10 (se), lower |")
print("|---|---|---|---|---|---|---|")
for table, eps in sorted({k[:2] for k in keys}):
    ks = [k for k in keys if k[:2] == (table, eps)]
    b = np.array([base[k] for k in ks])
    o = np.array([other[k] for k in ks])
    d = o - b
    se = d.std(axis=0, ddof=1) / np.sqrt(len(ks)) if len(ks) > 1 else np.zeros(2)
    low = (d < 0).sum(axis=0)
    print(f"| {table} | {eps:g} | {len(ks)} | {b[:, 0].mean():.3f} / {b[:, 1].mean():.3f} | "
          f"{o[:, 0].mean():.3f} / {o[:, 1].mean():.3f} | "
          + " | ".join(f"{d[:, i].mean():+.3f} ({se[i]:.3f}), {low[i]}/{len(ks)}"
                       for i in range(2)) + " |")
