"""``python percol.py OFF ON``: per column, the mean over seeds of the 2-way ratio over the
column's pairs and its 1-way TV (holdout, e10 / q10), OFF -> ON (``--per-column`` output)."""
import re
import sys

import numpy as np


def percol(path):
    out = {}
    for line in open(path):
        m = re.match(r"^    (\S+)\s+(num|cat) (.*)$", line)
        if m:
            parts = re.findall(r"\(([\d.]+)x\), ([\d.]+)/([\d.]+)", m[3])[:2]
            out.setdefault(m[1], []).append([float(p[0]) for p in parts] +
                                            [float(p[1]) for p in parts])
    return {k: np.mean(v, axis=0) for k, v in out.items()}


a, b = percol(sys.argv[1]), percol(sys.argv[2])
print("| column | 2-way e10 | 2-way q10 | 1-way e10 | 1-way q10 |")
print("|---|---|---|---|---|")
for k in a:
    print(f"| {k} | " + " | ".join(f"{x:.{2 if i < 2 else 3}f} -> {y:.{2 if i < 2 else 3}f}"
                                 for i, (x, y) in enumerate(zip(a[k], b[k]))) + " |")
