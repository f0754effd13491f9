"""``python paired_precise.py MAIN.md BRANCH.md``: ``yrbss_precise.py`` output paired by seed:
2-way TV eq8 / q10 over the seed's independent baseline, difference (se), seeds better; the
numeric columns' mean 1-way TV."""
import re
import sys

import numpy as np

from paired_zero import paired_row


def read(path):
    out = {}
    for line in open(path):
        m = re.match(r"\| yrbss \| (\d+) \| (.*) \|$", line.strip())
        if m:
            out[int(m.group(1))] = np.array([[float(x) for x in c.split()]
                                             for c in m.group(2).split(" | ")])
    return out


a, b = read(sys.argv[1]), read(sys.argv[2])
ss = sorted(set(a) & set(b))
f = np.array([a[s][2:, 0] / a[s][:2, 0] for s in ss])
g = np.array([b[s][2:, 0] / b[s][:2, 0] for s in ss])
print(paired_row("yrbss", f, g))
one = [np.mean([x[s][2:, 1] for s in ss], axis=0) for x in (a, b)]
base = np.mean([a[s][:2, 1] for s in ss], axis=0)
print(f"numeric 1-way mean eq8 / q10: main {one[0].round(4)}, branch {one[1].round(4)}, "
      f"independent {base.round(4)}")
