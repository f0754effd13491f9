"""``python paired_cfg.py FILE``: ``cli_api_gap.py`` output with two configs per table, the
second against the first paired by seed: mean ratio (e10 / q10 against the holdout), difference
(its standard error), seeds on which the second is better; ratios from the 4-decimal TVs over
each seed's baseline (TV / printed ratio, mean over both configs)."""
import sys

import numpy as np

from paired_zero import paired_row, read

rows = read(sys.argv[1])[0]
for tab, r in rows.items():
    a, b = list(r.values())
    ss = sorted(a)
    base = {s: np.mean([[v / q for v, q in x[s]] for x in (a, b)], axis=0) for s in ss}
    f = np.array([[v for v, _ in a[s]] / base[s] for s in ss])
    g = np.array([[v for v, _ in b[s]] / base[s] for s in ss])
    print(paired_row(tab, f, g)[:-2])
