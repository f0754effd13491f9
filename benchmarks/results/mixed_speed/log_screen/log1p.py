"""A curator's log transform of heavy-tailed columns around the CLI (a screen, not a feature).

``python log1p.py prep DIR OUT COLS``: ``movies.py``'s training rows (``DIR``) with each column
of ``COLS`` (comma-separated) replaced by ``log1p(x - low)`` and its domain entry by the bounds
``[0, log1p(high - low)]`` (public: the bounds are), to ``OUT/train.csv`` and
``OUT/domain.json``; ``python log1p.py back DIR COLS SRC DST``: the CLI's rows mapped back
(``expm1(.) + low``, integers rounded, within the bounds). Post-processing of a release made
on a public, invertible transform: no privacy cost. Run as in RESULTS ("the log screen")."""
import json
import os
import sys

import numpy as np
import pandas as pd

mode, folder = sys.argv[1], sys.argv[2]
with open(os.path.join(folder, "domain.json")) as fh:
    domain = json.load(fh)
if mode == "prep":
    out, cols = sys.argv[3], sys.argv[4].split(",")
    os.makedirs(out, exist_ok=True)
    rows = pd.read_csv(os.path.join(folder, "train.csv"))
    for c in cols:
        rows[c] = np.log1p(rows[c] - domain[c]["low"])
        domain[c] = {"low": 0.0, "high": float(np.log1p(domain[c]["high"] - domain[c]["low"])),
                     "missing": domain[c]["missing"]}
    rows.to_csv(os.path.join(out, "train.csv"), index=False)
    with open(os.path.join(out, "domain.json"), "w") as fh:
        json.dump(domain, fh, indent=1)
else:
    cols, src, dst = sys.argv[3].split(","), sys.argv[4], sys.argv[5]
    rows = pd.read_csv(src)
    for c in cols:
        v = np.expm1(rows[c]) + domain[c]["low"]
        if domain[c].get("integer"):
            v = np.round(v)
        rows[c] = np.clip(v, domain[c]["low"], domain[c]["high"])
    rows.to_csv(dst, index=False)
