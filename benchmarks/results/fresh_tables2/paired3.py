"""``python paired3.py FILE...``: ``at_eps.py`` output with several configs per table, each
against the first, paired by seed: the first's mean ratio to the DP baseline, then per config
the difference (its standard error) and the seeds on which it is lower, e10 / q10 against the
holdout (each seed's baseline read back from the first config's TV and printed ratio)."""
import re
import sys

import numpy as np


def read(paths):
    """``{table: {config: {seed: [(tv, ratio) e10, (tv, ratio) q10]}}}``."""
    rows, table = {}, None
    for path in paths:
        for line in open(path):
            head = re.match(r"## (\S+):", line)
            if head:
                table = head.group(1)
                continue
            cells = [x.strip() for x in line.strip().strip("|").split("|")]
            if table is None or len(cells) < 6 or not cells[1].isdigit():
                continue
            vals = [(float(x.split()[0]), float(x.split("(")[1].rstrip("x)"))) for x in cells[2:4]]
            rows.setdefault(table, {}).setdefault(cells[0], {})[int(cells[1])] = vals
    return rows


for table, configs in read(sys.argv[1:]).items():
    names = list(configs)
    first = configs[names[0]]
    seeds = sorted(first)
    base = {s: np.array([v / r for v, r in first[s]]) for s in seeds}
    a = np.array([[v for v, _ in first[s]] / base[s] for s in seeds])
    print(f"{table}: {names[0]} e10 / q10 {a.mean(0).round(3).tolist()}")
    for name in names[1:]:
        ss = [s for s in seeds if s in configs[name]]
        d = np.array([[v for v, _ in configs[name][s]] / base[s] for s in ss]) \
            - a[[seeds.index(s) for s in ss]]
        se = d.std(0, ddof=1) / np.sqrt(len(ss)) if len(ss) > 1 else np.zeros(2)
        print(f"   {name}: " + " / ".join(
            f"{d[:, k].mean():+.4f} ({se[k]:.4f}), {int((d[:, k] < 0).sum())}/{len(ss)}"
            for k in (0, 1)))
