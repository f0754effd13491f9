# ruff: noqa: E501
"""``python cut_probe.py EPS ROWS TABLE SEED...``: per numeric column of the aim fit (the CLI
benchmark's curated domain, the zero cut on at k=1 with the size gate at 12), the model cells'
true training counts, combined noisy 1-way counts, noise sd, which cells the cut takes, and the
share of the training rows in them (private: a diagnosis only)."""

import sys

import numpy as np

sys.path.insert(0, "benchmarks")
import cli_api_gap as g  # noqa: E402
from skdp.solvers.synth import mst_aim  # noqa: E402

orig = mst_aim._zero_cut
names = {}


def probe(problem, budget, ones, zeros, options):
    out = orig(problem, budget, ones, zeros, options)
    for m in ones:
        j = m.cols[0]
        if len(m.cols) != 1 or j not in problem.released:
            continue
        sd = np.broadcast_to(m.sigma, m.values.shape)
        true = problem.counts((j,))
        mask = (out or {}).get((j,), np.zeros(len(true), bool))
        if zeros and (j,) in zeros:
            mask = mask & ~np.asarray(zeros[(j,)], bool)
        print(
            f"  {names.get(j, j):10s} m={len(true):2d} mean/sd={m.values.mean() / np.median(sd):5.1f}"
            f" sd={np.median(sd):5.1f} cut {mask.sum()} cells, true mass cut"
            f" {true[mask].sum() / true.sum():.4f}, noisy {m.values[mask].sum():.0f}"
        )
        print("     true ", " ".join(f"{int(v):5d}" for v in true))
        print("     noisy", " ".join(f"{v:5.0f}" for v in m.values))
        print("     cut  ", " ".join(f"{'X' if c else '.':>5s}" for c in mask))
    return out


mst_aim._zero_cut = probe
import pandas as pd  # noqa: E402

g.EPSILON = float(sys.argv[1])
rows, item = int(sys.argv[2]), sys.argv[3]
_, train, hold = g.split(item, rows)
cur, api, header = g.domains(item, train, "/tmp/zg_probe")
names.update(enumerate(header))
train[header].to_csv("/tmp/zg_probe/t.csv", index=False)
for seed in map(int, sys.argv[4:]):
    print(item, "eps", g.EPSILON, "rows", rows, "seed", seed)
    g.fit_sample(
        pd.read_csv("/tmp/zg_probe/t.csv"), cur, seed, {"solver_options": {"zero_below": 1}}, 10
    )
