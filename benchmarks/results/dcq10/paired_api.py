"""``python paired_api.py OFF ON``: two ``synth_resolution.py`` outputs: per table, the
``after (default)`` fit's mean 2-way ratios (eq8 / q10; TV over the ``independent`` row of
the same seed, 3-decimal TVs), the paired difference ON - OFF (standard error) and the seeds
on which ON is lower."""
import re
import sys

import numpy as np

ROW = re.compile(r"^\| (\S+) s(\d+) \| [^|]+\| ([^|]+) \| ([\d.]+) \([\d.]+x\) \| "
                 r"([\d.]+) \([\d.]+x\) \|")


def read(path):
    out = {}
    for line in open(path):
        m = ROW.match(line)
        if m:
            out.setdefault(m[1], {}).setdefault(int(m[2]), {})[m[3].strip()] = (
                float(m[4]), float(m[5]))
    return out


off, on = read(sys.argv[1]), read(sys.argv[2])
for tab in off:
    f, g = [], []
    for s in sorted(set(off[tab]) & set(on.get(tab, {}))):
        a, b = off[tab][s], on[tab][s]
        base = a["independent"]
        f.append([a["after (default)"][k] / base[k] for k in (0, 1)])
        g.append([b["after (default)"][k] / base[k] for k in (0, 1)])
    f, g = np.array(f), np.array(g)
    d = g - f
    se = d.std(axis=0, ddof=1) / np.sqrt(len(d))
    cells = [f"{d[:, k].mean():+.3f} ({se[k]:.3f}), {(d[:, k] < 0).sum()}/{len(d)}" for k in (0, 1)]
    print(f"| {tab} (API) | {len(d)} | {f[:, 0].mean():.3f} / {f[:, 1].mean():.3f} | "
          f"{g[:, 0].mean():.3f} / {g[:, 1].mean():.3f} | {cells[0]} | {cells[1]} |")
