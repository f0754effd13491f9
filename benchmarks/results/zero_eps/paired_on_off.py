"""``python paired_on_off.py FILE...``: ``at_eps.py`` output with the configs ``curated`` (the
cut on, the default) and ``curated:{"solver_options":{"zero_below":0}}`` (off): per table, the
mean ratios (e10 / q10 against the holdout) off then on, the difference on - off (its standard
error) and the seeds on which on is better; ``zero_cut/paired_cfg.py`` with the order turned."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zero_cut"))
from paired_zero import paired_row, read  # noqa: E402

for path in sys.argv[1:]:
    for tab, r in read(path)[0].items():
        on, off = r["curated"], r['curated:{"solver_options":{"zero_below":0}}']
        ss = sorted(set(on) & set(off))
        base = {s: np.mean([[v / q for v, q in x[s]] for x in (on, off)], axis=0) for s in ss}
        f = np.array([[v for v, _ in off[s]] / base[s] for s in ss])
        g = np.array([[v for v, _ in on[s]] / base[s] for s in ss])
        print(paired_row(tab, f, g)[:-2], "|", os.path.basename(path))
