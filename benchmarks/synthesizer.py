"""Benchmark of SaddlePointSynthesizer: 2-way marginal error and time.

Run: ``python benchmarks/synthesizer.py [--quick] [--out FILE.md]``.

Tables (scikit-learn bundled, offline), discretised on public round bounds:

* ``breast_cancer``: six mean measurements cut into 6 equal bins on fixed
  bounds, plus the diagnosis (569 rows, 93,312 cells, 21 marginals);
* ``digits``: six central pixels (intensity 0-16 cut into 4 bins) plus the
  digit label (1,797 rows, 40,960 cells, 21 marginals);
* ``chain15`` (generated, not in the default list): 15 columns of 8 values,
  50,000 rows, each column a noisy copy of the previous one (8**15 = 3.5e13
  cells, 105 marginals): the dense solvers refuse it, ``mst`` and ``aim``
  (graphical models) run.

Methods: every solver of the estimator (a solver that refuses the table, the
dense ones above 1e7 cells, is reported as refused); an independent-columns DP baseline
(Gaussian noisy 1-way counts calibrated on the same exact Gaussian-DP
budget as smd, sensitivity ``sqrt(2 d)`` replace-one, clipped at 0, product
distribution); the uniform
histogram and a bootstrap of the real rows (not private) for reference.
smartnoise-synth and private-pgm (MWEM/MST/AIM) are not installed here and are
skipped (the shared anchors in ``guides/anchors.md`` give their figures on
another table).

``--scaling``: the digits rows resampled (with replacement) to n = 10,000
and 50,000, epsilon = 1, one seed: where the paper's private games catch up.

Metric: mean and max over the 2-way marginals of the total-variation
distance between the synthetic table (``sample()``, n rows) and the real
table; fit+sample time in seconds. 5 seeds per cell, epsilon in {0.5, 1, 5},
delta = 1e-6.
"""

import argparse
import math
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits

from skdp.privacy.ledger import approx_dp_to_gdp
from skdp.synthesizer import SaddlePointSynthesizer

from _common import tv  # numpy only: the anchors' venvs use the same metric

SOLVERS = ["smd", "smd_linf", "mwem", "smd_private_game", "smd_vertex", "mst", "aim"]
BOUNDS = {"mean radius": (5.0, 30.0), "mean texture": (5.0, 40.0),
          "mean perimeter": (40.0, 200.0), "mean area": (100.0, 2600.0),
          "mean smoothness": (0.05, 0.17), "mean concavity": (0.0, 0.45)}


def _cut(v, low, high, k):
    return np.clip(np.floor((v - low) / (high - low) * k), 0, k - 1).astype(np.int64)


def breast_cancer():
    data = load_breast_cancer()
    names = list(data.feature_names)
    cols = [_cut(data.data[:, names.index(c)], lo, hi, 6) for c, (lo, hi) in BOUNDS.items()]
    return np.column_stack(cols + [data.target]), [6] * 6 + [2]


def digits():
    data = load_digits()
    pixels = [19, 20, 27, 28, 35, 36]
    cols = [_cut(data.data[:, p], 0.0, 17.0, 4) for p in pixels]
    return np.column_stack(cols + [data.target]), [4] * 6 + [10]


def chain15(n=50_000, d=15, k=8, seed=0):
    """Column j is column j-1 moved by 0 or 1 (w.p. 0.7) or uniform: real 2-way structure."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, d), dtype=np.int64)
    X[:, 0] = rng.integers(0, k, n)
    for j in range(1, d):
        near = (X[:, j - 1] + rng.integers(0, 2, n)) % k
        X[:, j] = np.where(rng.random(n) < 0.7, near, rng.integers(0, k, n))
    return X, [k] * d


TABLES = {"breast_cancer": breast_cancer, "digits": digits}
EXTRA_TABLES = {"chain15": chain15}


def independent(X, cards, epsilon, delta, rng):
    """Independent columns: Gaussian 1-way counts, clipped, product sample.

    One Gaussian release calibrated on exact Gaussian DP, as smd's measurement.
    """
    sigma = math.sqrt(2 * len(cards)) / approx_dp_to_gdp(epsilon, delta)
    cols = []
    for j, k in enumerate(cards):
        noisy = np.bincount(X[:, j], minlength=k) + rng.normal(0, sigma, k)
        p = np.clip(noisy, 0, None)
        p = p / p.sum() if p.sum() > 0 else np.full(k, 1.0 / k)
        cols.append(rng.choice(k, size=len(X), p=p))
    return np.column_stack(cols)


def synthesize(method, X, cards, epsilon, seed):
    """``n`` synthetic rows of ``X`` by ``method`` (a solver or a baseline) and the seconds.

    Raises ``ValueError`` where a dense solver refuses the domain (over 1e7 cells).
    """
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    if method == "independent":
        Y = independent(X, cards, epsilon, 1e-6, rng)
    elif method == "uniform":
        Y = np.column_stack([rng.integers(0, k, len(X)) for k in cards])
    elif method == "bootstrap (not private)":
        Y = X[rng.integers(0, len(X), len(X))]
    else:
        domain = {j: list(range(k)) for j, k in enumerate(cards)}
        est = SaddlePointSynthesizer(epsilon=epsilon, delta=1e-6, solver=method, domain=domain,
                                     random_state=seed)
        Y = np.asarray(est.fit(X).sample(), dtype=np.int64)
    return Y, time.perf_counter() - t0


def run_method(method, X, cards, epsilon, seed):
    """Mean and max 2-way TV of ``method``'s rows, and its seconds (nan where refused)."""
    try:
        Y, seconds = synthesize(method, X, cards, epsilon, seed)
    except ValueError:  # a dense solver above its 1e7 cells
        return math.nan, math.nan, math.nan
    return (*tv(X, Y, cards), seconds)


def scaling(methods, sizes=(1797, 10000, 50000)):
    """At which n do the paper-faithful games catch up? (digits rows resampled)."""
    X0, cards = digits()
    print("| n | method | mean TV | max TV | seconds |")
    print("|---|---|---|---|---|")
    for n in sizes:
        X = X0[np.random.default_rng(0).integers(0, len(X0), n)] if n != len(X0) else X0
        for method in methods:
            m = run_method(method, X, cards, 1.0, 0)
            print(f"| {n} | {method} | {m[0]:.4f} | {m[1]:.4f} | {m[2]:.2f} |", flush=True)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="1 seed, epsilon=1 only")
    parser.add_argument("--tables", nargs="*", default=list(TABLES),
                        choices=list(TABLES) + list(EXTRA_TABLES))
    parser.add_argument("--methods", nargs="*",
                        default=SOLVERS + ["independent", "uniform", "bootstrap (not private)"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--scaling", action="store_true",
                        help="digits resampled to larger n, epsilon=1, one seed")
    args = parser.parse_args(argv)
    if args.scaling:
        return scaling(methods=[m for m in args.methods if m != "bootstrap (not private)"])
    epsilons = [1.0] if args.quick else [0.5, 1.0, 5.0]
    seeds = range(1 if args.quick else args.seeds)
    warnings.simplefilter("ignore")
    print("| table | method | epsilon | mean TV | max TV | seconds (fit+sample) |")
    print("|---|---|---|---|---|---|")
    for name in args.tables:
        X, cards = {**TABLES, **EXTRA_TABLES}[name]()
        for method in args.methods:
            for eps in epsilons:
                res = np.array([run_method(method, X, cards, eps, s) for s in seeds])
                m, sd = res.mean(0), res.std(0)
                print(f"| {name} | {method} | {eps:g} | {m[0]:.4f} ± {sd[0]:.4f} | "
                      f"{m[1]:.4f} | {m[2]:.2f} |", flush=True)
                if method in ("uniform", "bootstrap (not private)"):
                    break
    return 0


if __name__ == "__main__":
    sys.exit(main())
