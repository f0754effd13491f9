"""``python paired_api.py OFF ON``: two ``synth_resolution.py`` outputs: per table, the
``after (default)`` fit's mean 2-way ratios (eq8 / q10; TV over the ``independent`` row of
the same seed, 3-decimal TVs), the paired difference ON - OFF (standard error) and the seeds
on which ON is lower."""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zero_cut"))
from paired_zero import paired_row  # noqa: E402

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
    print(paired_row(f"{tab} (API)", np.array(f), np.array(g)))
