"""Independent-columns baseline at user bins: equal split (the issue's) vs cells split.

    PYTHONPATH=. python benchmarks/results/oneway_split/baseline_split.py weather nassCDS
"""
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", ".."), os.path.join(HERE, "..", "..")]
import cli_api_gap as g  # noqa: E402
import synth_resolution as sr  # noqa: E402
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402

TMP = "/tmp/baseline_split"


def indep(R, cards, rng, split):
    """The baseline's rows, each column's 1-way counts released with share ``s_j`` of mu**2."""
    mu = sr.approx_dp_to_gdp(g.EPSILON, g.DELTA)
    k = np.asarray(cards, float)
    s = np.full(len(k), 1 / len(k)) if split == "equal" else k ** (2 / 3) / np.sum(k ** (2 / 3))
    cols = []
    for j, kj in enumerate(cards):
        sigma = math.sqrt(2) / (mu * math.sqrt(s[j]))
        noisy = np.bincount(R[:, j], minlength=kj) + rng.normal(0, sigma, kj)
        p = np.clip(noisy, 0, None)
        cols.append(rng.choice(kj, size=len(R), p=p / p.sum()))
    return np.column_stack(cols)


def mean_two_way(h, t, cards, split, seeds=10):
    v = [np.mean(list(g.two_way(h, indep(t, cards, np.random.default_rng(s + 7), split),
                                cards).values())) for s in range(seeds)]
    return np.mean(v), np.std(v)


def main(items):
    os.makedirs(TMP, exist_ok=True)
    for item in items:
        _, train, hold = g.split(item, 15000)
        cur, _, header = g.domains(item, train, TMP)
        src, hsrc = (f"{TMP}/{item}.{x}.csv" for x in ("train", "holdout"))
        train[header].to_csv(src, index=False)
        hold[header].to_csv(hsrc, index=False)
        tr, ho = _read_csv_rows(src), _read_csv_rows(hsrc)
        numeric = ["low" in cur[c] for c in header]
        for kind in ("equal", "quantile"):
            (h, t), cards = _user_codes([ho, tr], numeric, kind, 10)
            out = {split: mean_two_way(h, t, cards, split) for split in ("equal", "cells")}
            print(item, kind, cards, {k: f"{m:.4f}+-{sd:.4f}" for k, (m, sd) in out.items()},
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
