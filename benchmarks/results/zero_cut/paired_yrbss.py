"""``python paired_yrbss.py MAIN.md BRANCH.md``: ``synth_resolution.py`` output, the ``after
(default)`` rows of two runs paired by seed: 2-way TV eq8 / q10 over the seed's independent
baseline (3-decimal TVs), difference (its standard error), seeds on which the branch is better."""
import re
import sys

import numpy as np


def read(path):
    rows, base = {}, {}
    for line in open(path):
        m = re.match(r"\| \w+ s(\d+) \| [^|]+ \| (independent|after \(default\)) \| ([\d.]+) "
                     r"\([\d.]+x\) \| ([\d.]+)", line)
        if m:
            (base if m.group(2) == "independent" else rows)[int(m.group(1))] = \
                np.array([float(m.group(3)), float(m.group(4))])
    return {s: rows[s] / base[s] for s in rows}


a, b = read(sys.argv[1]), read(sys.argv[2])
ss = sorted(set(a) & set(b))
f, g = np.array([a[s] for s in ss]), np.array([b[s] for s in ss])
d = g - f
se = d.std(axis=0, ddof=1) / np.sqrt(len(ss))
print(f"| yrbss | {len(ss)} | {f[:, 0].mean():.3f} / {f[:, 1].mean():.3f} | "
      f"{g[:, 0].mean():.3f} / {g[:, 1].mean():.3f} | " +
      " | ".join(f"{d[:, k].mean():+.3f} ({se[k]:.3f}), {(d[:, k] < 0).sum()}/{len(ss)}"
                 for k in (0, 1)) + " |")
