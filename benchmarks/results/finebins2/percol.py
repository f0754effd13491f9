import re
import sys
import collections
import numpy as np


def read(path):
    d = collections.defaultdict(lambda: collections.defaultdict(list))
    t = None
    for line in open(path):
        m = re.match(r"## (\S+):", line)
        if m:
            t = m.group(1)
            continue
        m = re.match(r"\s+(\S+)\s+(num|cat) (.*)", line)
        if m and t:
            x = re.findall(r"([\d.]+)/([\d.]+) \(([\d.]+)x\)", m.group(3))[:2]
            d[t][m.group(1)].append([float(a) / float(b) for a, b, _ in x])
    return d


a, b = read(sys.argv[1]), read(sys.argv[2])
for t in sys.argv[3:]:
    print(t)
    for c in a[t]:
        x, y = np.mean(a[t][c], 0), np.mean(b[t][c], 0)
        print(f"  {c:12s} 2-way e10 {x[0]:.2f}->{y[0]:.2f}  q10 {x[1]:.2f}->{y[1]:.2f}")
