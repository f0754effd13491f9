# ruff: noqa: E501
"""``python diag.py TABLE EPS SEED``: the curated fit's columns after ``set_fine_edges`` (the
code checked out): the spikes on an edge (STARTS), n_bins, and per bin its noisy mass over
the average and its released spikes (value:count(share of the bin's mass)). Stops the fit
there (no model is fitted). Reads only released values."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", ".."), os.path.join(HERE, "..", "..", "..")]
import numpy as np
import pandas as pd
import cli_api_gap as g
import skdp.synthesizer as S
from skdp._domain import fine_bins as fb
from skdp._domain.fine import project_nonnegative

tab, eps, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
g.EPSILON = eps


class Stop(Exception):
    pass


orig = fb.set_fine_edges


def patched(columns):
    orig(columns)
    for col in columns:
        f = col.fine
        if f is None or f.counts is None or f.spikes is None or not len(f.spikes):
            continue
        mass = f.bin_matrix(col) @ project_nonnegative(np.asarray(f.counts, float))
        tot = mass.sum()
        sp = np.asarray(f.spikes)
        c = np.asarray(f.spike_counts, float)
        k = (sp > col.low) & (sp < col.high)
        sp, c = sp[k], c[k]
        b = col._encode_bins(sp)
        print("STARTS", col.name, sp[np.isin(sp, col.edges)] if col.edges is not None else None)
        print(
            f"{col.name}: n_bins {col.n_bins} spikes {len(sp)} sigma {float(np.mean(f.sigma)):.1f} thr {f.spike_threshold}"
        )
        for j in np.unique(b):
            m = b == j
            print(
                f"   bin {j} mass/avg {mass[j] * col.n_bins / tot:.2f}: "
                + " ".join(f"{v:g}:{cc:.0f}({cc / mass[j]:.2f})" for v, cc in zip(sp[m], c[m]))
            )
    raise Stop


S.set_fine_edges = patched
out = f"/tmp/spike2diag_{tab}"
os.makedirs(out, exist_ok=True)
_, train, hold = g.split(tab, 15000)
cur, api, header = g.domains(tab, train, out)
src = os.path.join(out, "train.csv")
train[header].to_csv(src, index=False)
try:
    g.fit_sample(pd.read_csv(src), cur, seed)
except Stop:
    pass
