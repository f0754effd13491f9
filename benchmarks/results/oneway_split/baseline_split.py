"""Independent-columns baseline at user bins: equal split (the issue's) vs cells split."""
import math, sys, os
import numpy as np
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", ".."), os.path.join(HERE, "..", "..")]
import cli_api_gap as g
import synth_resolution as sr
from cli_draft_workflow import _read_csv_rows, _user_codes

def indep(R, cards, rng, split):
    mu = sr.approx_dp_to_gdp(g.EPSILON, g.DELTA)
    k = np.asarray(cards, float)
    s = np.full(len(k), 1 / len(k)) if split == "equal" else k ** (2 / 3) / np.sum(k ** (2 / 3))
    cols = []
    for j, kj in enumerate(cards):
        sigma = math.sqrt(2) / (mu * math.sqrt(s[j]))
        noisy = np.bincount(R[:, j], minlength=kj) + rng.normal(0, sigma, kj)
        p = np.clip(noisy, 0, None); p = p / p.sum()
        cols.append(rng.choice(kj, size=len(R), p=p))
    return np.column_stack(cols)

os.makedirs("/tmp/baseline_split", exist_ok=True)
for item in sys.argv[1:]:
    _, train, hold = g.split(item, 15000)
    cur, api, header = g.domains(item, train, "/tmp/baseline_split")
    train, hold = train[header], hold[header]
    src, hsrc = (f"/tmp/baseline_split/{item}.{x}.csv" for x in ("train", "holdout"))
    train.to_csv(src, index=False); hold.to_csv(hsrc, index=False)
    tr, ho = _read_csv_rows(src), _read_csv_rows(hsrc)
    numeric = ["low" in cur[c] for c in header]
    for kind in ("equal", "quantile"):
        (h, t), cards = _user_codes([ho, tr], numeric, kind, 10)
        out = {}
        for split in ("equal", "cells"):
            v = [np.mean(list(g.two_way(h, indep(t, cards, np.random.default_rng(s + 7), split), cards).values())) for s in range(10)]
            out[split] = (np.mean(v), np.std(v))
        print(item, kind, cards, {k: f"{m:.4f}+-{sd:.4f}" for k, (m, sd) in out.items()}, flush=True)
