"""``python paired_cfg.py FILE``: ``cli_api_gap.py`` output with two configs per table, the
second against the first paired by seed: mean ratio (e10 / q10 against the holdout), difference
(its standard error), seeds on which the second is better; ratios from the 4-decimal TVs over
each seed's baseline (TV / printed ratio, mean over both configs)."""
import collections
import re
import sys

import numpy as np

rows = collections.defaultdict(lambda: collections.defaultdict(dict))
tab = None
for line in open(sys.argv[1]):
    t = re.match(r"## (\w+):", line)
    if t:
        tab = t.group(1)
    m = re.match(r"\| (curated[^|]*?) \| (\d+) \| (.*)", line)
    if m:
        found = re.findall(r"([\d.]+) \(([\d.]+)x\)", m.group(3))[:2]
        rows[tab][m.group(1)][int(m.group(2))] = [(float(v), float(r)) for v, r in found]
for tab, r in rows.items():
    a, b = list(r.values())
    ss = sorted(a)
    base = {s: np.mean([[v / q for v, q in x[s]] for x in (a, b)], axis=0) for s in ss}
    f = np.array([[v for v, _ in a[s]] / base[s] for s in ss])
    g = np.array([[v for v, _ in b[s]] / base[s] for s in ss])
    d = g - f
    se = d.std(axis=0, ddof=1) / np.sqrt(len(ss))
    print(f"| {tab} | {f[:, 0].mean():.3f} / {f[:, 1].mean():.3f} | {g[:, 0].mean():.3f} / "
          f"{g[:, 1].mean():.3f} | " +
          " | ".join(f"{d[:, k].mean():+.3f} ({se[k]:.3f}), {(d[:, k] < 0).sum()}/{len(ss)}"
                     for k in (0, 1)))
