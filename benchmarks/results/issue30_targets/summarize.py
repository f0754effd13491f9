"""``python summarize.py FILE...``: from ``cli_api_gap.py --per-column --scoring curated``
output, per config: mean 2-way ratio (x DP indep) against the holdout at e10 / q10 with its se
over seeds and its range, and per seed the numeric columns whose 1-way TV against the holdout
is at most the baseline's (e10 / q10); then the mean count and the seeds meeting all columns.
``cli_targets.py`` output (one row a seed, counts at full precision) is read too."""
import re
import sys

import numpy as np

ROW = re.compile(r"^\| (\S+) \| (\d+) \| [\d.]+ \(([\d.]+)x\) \| [\d.]+ \(([\d.]+)x\) \|")
CLI = re.compile(r"^\| (\S+) \| (\S+) \| (\d+) \| [\d.]+ / [\d.]+ \(([\d.]+)x\) \| (\d+) of "
                 r"(\d+) \| [\d.]+ / [\d.]+ \(([\d.]+)x\) \| (\d+) of")
PART = re.compile(r"[\d.]+/[\d.]+ \([\d.]+x\), ([\d.]+)/([\d.]+)")

for path in sys.argv[1:]:
    table, runs, cur = None, {}, None
    for line in open(path):
        if line.startswith("## "):
            table = line.split()[1].rstrip(":")
        c = CLI.match(line)
        if c:
            table = c.group(1)
            runs.setdefault(c.group(2), []).append(
                [float(c.group(4)), float(c.group(7)), int(c.group(5)), int(c.group(8)),
                 int(c.group(6))])
            continue
        m = ROW.match(line)
        if m:
            cur = runs.setdefault(m.group(1), [])
            cur.append([float(m.group(3)), float(m.group(4)), 0, 0, 0])
        elif cur and line.startswith("    ") and " num " in line:
            parts = PART.findall(line)
            run = cur[-1]
            run[4] += 1
            for k in (0, 1):  # holdout e10, holdout q10
                fit, base = map(float, parts[k])
                run[2 + k] += fit <= base
    for name, rs in runs.items():
        a = np.array(rs)
        n, ncol = len(a), int(a[0, 4])
        se = a[:, :2].std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else [0, 0]
        print(f"| {table} | {name} | {n} | {a[:, 0].mean():.3f} ({se[0]:.3f}), "
              f"{a[:, 0].min():.2f}-{a[:, 0].max():.2f} | {a[:, 1].mean():.3f} ({se[1]:.3f}), "
              f"{a[:, 1].min():.2f}-{a[:, 1].max():.2f} | "
              f"{a[:, 2].mean():.1f} / {a[:, 3].mean():.1f} of {ncol} "
              f"(all: {int((a[:, 2] == ncol).sum())} / {int((a[:, 3] == ncol).sum())} seeds) | "
              f"{' '.join(f'{int(x)}/{int(y)}' for x, y in a[:, 2:4])} |")
