"""``python pair_cfg.py FILE A B [FILE2]``: two configs of ``cli_api_gap.py`` output (``B`` read
from ``FILE2`` when given), per table, paired by seed: mean ratios (e10 / q10 against the holdout)
of A and B, the difference B - A (its standard error) and the seeds on which B is lower; the
ratios from the 4-decimal TVs over each seed's baseline (``paired_zero.paired_row``)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zero_cut"))
from paired_zero import paired_row, read  # noqa: E402

path, a_name, b_name = sys.argv[1:4]
ra, rb = read(path)[0], read(sys.argv[4] if len(sys.argv) > 4 else path)[0]
for table in ra:
    a, b = ra[table][a_name], rb[table][b_name]
    ss = sorted(set(a) & set(b))
    base = {s: np.mean([[v / r for v, r in x[s]] for x in (a, b)], axis=0) for s in ss}
    f = np.array([[v for v, _ in a[s]] / base[s] for s in ss])
    g = np.array([[v for v, _ in b[s]] / base[s] for s in ss])
    print(paired_row(table, f, g))
