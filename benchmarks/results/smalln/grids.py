"""``python grids.py TABLE ROWS HEAVY [PARAMS]``: the fine grids and model bins of one fit
(epsilon 1, seed 0) on ``smalln_check``'s split (HEAVY 1: nassCDS ``weight`` 0-60,000):
per numeric column its bins, cells, noise, spikes, first released counts and the training
rows' quantiles (the last not private: for the diagnosis only)."""
import os
import sys
import warnings

import numpy as np
import pandas as pd

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
import cli_api_gap as gap  # noqa: E402
import smalln_check as sc  # noqa: E402
from synth_real_tables import TABLES  # noqa: E402
from synth_resolution import domain_of  # noqa: E402

from skdp.synthesizer import SaddlePointSynthesizer  # noqa: E402

item, n, heavy = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
params = gap._params(sys.argv[4] if len(sys.argv) > 4 else "")
train, _ = sc.split(item, n)
bounds = dict(TABLES[(gap.PACKAGES[item], item)][0])
if heavy:
    bounds.update(sc.HEAVY_BOUNDS)
header = [c for c in train.columns if c not in TABLES[(gap.PACKAGES[item], item)][1]]
dom = domain_of(train[header], bounds)
path = f"/tmp/grids_{item}.csv"
train[header].to_csv(path, index=False)
table = pd.read_csv(path)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    est = SaddlePointSynthesizer(epsilon=1, delta=1e-6, domain=dom, random_state=0,
                                 **params).fit(table)
for c in est._columns:
    if c.fine is None:
        continue
    f = c.fine
    edges = None if c.edges is None else np.round(c.edges, 2).tolist()
    print(c.name, "bins", c.n_bins, "edges", edges)
    print("   cells", f.n_cells, "sigma", np.round(np.mean(f.sigma), 1), "spikes",
          None if f.spikes is None else len(f.spikes), "counts",
          np.round(f.counts[:20]).tolist())
    v = table[c.name].dropna().to_numpy(float)
    print("   real quantiles",
          np.round(np.quantile(v, [0, .1, .25, .5, .75, .9, .99, 1]), 2).tolist())
