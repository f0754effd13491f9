"""``python paired.py OFF ON``: two ``cli_api_gap.py`` outputs (same tables, seeds, config
``curated``; OFF without, ON with the change): per table, the mean ratios (e10 / q10 against
the holdout), the paired difference ON - OFF (its standard error) and the seeds on which ON is
lower. The ratio of each seed is recomputed from the 4-decimal TVs over the baseline implied by
the two files (the baseline is the same draw in both)."""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zero_cut"))
from paired_zero import paired_row  # noqa: E402

ROW = re.compile(r"^\| (\S+) \| (\d+) \| ([\d.]+) \(([\d.]+)x\) \| ([\d.]+) \(([\d.]+)x\) \|")


def read(path):
    out, table = {}, None
    for line in open(path):
        if line.startswith("## "):
            table = line.split()[1].rstrip(":")
        m = ROW.match(line)
        if m and table:
            out.setdefault(table, {})[int(m[2])] = [(float(m[3]), float(m[4])),
                                                   (float(m[5]), float(m[6]))]
    return out


off, on = read(sys.argv[1]), read(sys.argv[2])
for tab in off:
    seeds = sorted(set(off[tab]) & set(on.get(tab, {})))
    f, g = [], []
    for s in seeds:
        base = [np.mean([a[k][0] / a[k][1] for a in (off[tab][s], on[tab][s])]) for k in (0, 1)]
        f.append([off[tab][s][k][0] / base[k] for k in (0, 1)])
        g.append([on[tab][s][k][0] / base[k] for k in (0, 1)])
    print(paired_row(tab, np.array(f), np.array(g)))
