"""``python per_column.py FILE...``: from ``cli_api_gap.py --per-column`` output, each numeric
column's 1-way TV against the holdout averaged over the seeds, fit / DP baseline (e10, q10;
the values as printed, 3 decimals), and the columns whose mean is at most the baseline's."""
import re
import sys
from collections import defaultdict

import numpy as np

PART = re.compile(r"[\d.]+/[\d.]+ \([\d.]+x\), ([\d.]+)/([\d.]+)")

for path in sys.argv[1:]:
    table, config, vals = None, None, defaultdict(list)
    for line in open(path):
        if line.startswith("## "):
            table = line.split()[1].rstrip(":")
        elif line.startswith("| ") and not line.startswith("| config") and "---" not in line:
            config = line.split("|")[1].strip()
        elif line.startswith("    ") and " num " in line:
            parts = PART.findall(line)[:2]  # holdout e10, holdout q10
            vals[(config, line.split()[0])].append([float(x) for p in parts for x in p])
    for (cfg, col), v in vals.items():
        f_e, b_e, f_q, b_q = np.mean(v, axis=0)
        ok_e, ok_q = (" ok" if f <= b else "" for f, b in ((f_e, b_e), (f_q, b_q)))
        print(f"| {table} | {cfg} | {col} | {len(v)} | {f_e:.3f} / {b_e:.3f}{ok_e} | "
              f"{f_q:.3f} / {b_q:.3f}{ok_q} |")
