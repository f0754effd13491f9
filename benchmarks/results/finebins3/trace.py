"""``python trace.py TABLE N_BINS SEED [COLUMN ...]``: the CLI split's curated fit (as
``cli_api_gap.py`` fits it) and, per numeric column, its grid, its model bin edges, the
noisy fine mass per bin (share) and the spike starts ``fine_bins.spike_edges`` added."""
import os
import sys

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", ".."), os.path.join(HERE, "..", "..")]
import cli_api_gap as G  # noqa: E402
from skdp._domain import fine_bins  # noqa: E402
from skdp._domain.fine import project_nonnegative  # noqa: E402

for flag in filter(None, os.environ.get("FB", "").split(",")):  # WIP switches (switch.py)
    setattr(fine_bins, flag, True)

item, n_bins, seed, only = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
G.EPSILON = float(os.environ.get("EPS", G.EPSILON))
_, train, hold = G.split(item, 15000)
os.makedirs("/tmp/fb_trace", exist_ok=True)
cur, _, header = G.domains(item, train, "/tmp/fb_trace")
train[header].to_csv("/tmp/fb_trace/train.csv", index=False)  # read back, as cli_api_gap fits
est, _ = G.fit_sample(pd.read_csv("/tmp/fb_trace/train.csv"), cur, seed, {"n_bins": n_bins})
np.set_printoptions(precision=3, suppress=True, linewidth=150)
for col in est._columns:
    if col.fine is None or col.fine.counts is None or (only and col.name not in only):
        continue
    g = col.fine
    mass = g.bin_matrix(col) @ project_nonnegative(np.asarray(g.counts, float))
    edges = col.edges if col.edges is not None else np.linspace(col.low, col.high, col.n_bins + 1)
    kind = "per-integer" if g.edges is None else f"{len(g.edges) - 1} cells"
    spikes = None if g.spikes is None else len(g.spikes)
    print(f"{col.name} [{col.low:g}, {col.high:g}] {kind}, spikes {spikes}, "
          f"{'moved' if col.edges is not None else 'equal'} {col.n_bins} bins")
    print("  edges", np.asarray(edges))
    print("  share", mass / mass.sum())
    print("  starts", col.spike_starts)
    print("  spikes", None if g.spikes is None else np.sort(g.spikes))
