"""``python pair_api.py A.md B.md [ROW]``: two ``synth_resolution.py`` outputs, row ``ROW``
(default ``after (default)``), paired by seed: mean 2-way ratios (eq8 / q10), the difference B -
A (its standard error), seeds on which B is lower; numeric 1-way means (eq8 / q10) of each."""
import re
import sys

import numpy as np

ROW = re.compile(r"^\| \S+ s(\d+) \| [^|]+ \| ([^|]+) \| [\d.]+ \(([\d.]+)x\) "
                 r"\| [\d.]+ \(([\d.]+)x\) \| ([\d.]+) / [\d.]+ \([\d.]+;[^|]*\| ([\d.]+) /")


def read(path, name):
    out = {}
    for line in open(path):
        m = ROW.match(line)
        if m and m[2].strip() == name:
            out[int(m[1])] = [float(m[k]) for k in (3, 4, 5, 6)]
    return out


name = sys.argv[3] if len(sys.argv) > 3 else "after (default)"
a, b = read(sys.argv[1], name), read(sys.argv[2], name)
s = sorted(set(a) & set(b))
f, g = np.array([a[k] for k in s]), np.array([b[k] for k in s])
d = g[:, :2] - f[:, :2]
se = d.std(axis=0, ddof=1) / np.sqrt(len(s)) if len(s) > 1 else np.zeros(2)
print(f"| {name} | {len(s)} | {f[:, 0].mean():.3f} / {f[:, 1].mean():.3f} | "
      f"{g[:, 0].mean():.3f} / {g[:, 1].mean():.3f} | "
      + " | ".join(f"{d[:, k].mean():+.3f} ({se[k]:.3f}), {(d[:, k] < 0).sum()}/{len(s)}"
                   for k in (0, 1))
      + f" | 1-way {f[:, 2].mean():.3f} / {f[:, 3].mean():.3f} -> {g[:, 2].mean():.3f} / "
        f"{g[:, 3].mean():.3f} |")
