"""``python paired_yrbss.py MAIN.md BRANCH.md``: ``synth_resolution.py`` output, the ``after
(default)`` rows of two runs paired by seed: 2-way TV eq8 / q10 over the seed's independent
baseline (3-decimal TVs), difference (its standard error), seeds on which the branch is better."""
import re
import sys

import numpy as np

from paired_zero import paired_row


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
print(paired_row("yrbss", f, g))
