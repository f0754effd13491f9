"""Benchmark of the paper-001 Goldstein solvers on robust regression (issue 7).

Run (from the repository root)::

    OMP_NUM_THREADS=1 python benchmarks/robust.py tables --seeds 5
    OMP_NUM_THREADS=1 python benchmarks/robust.py tune

``tables`` prints, for each data set, each outlier fraction in {0, 10%, 20%}
and each epsilon in {0.5, 1, 4, inf}, the mean (sd) over seeds of the test
MAE on *clean* targets of:

* ``KLAdaptiveRegressor(loss='truncated_absolute', solver=S)`` for the three
  paper-001 solvers S (``fo_single_pass``, the default for this loss,
  ``zo_single_pass``, ``zo_multi_pass``);
* the DP squared-loss regressor (``KLAdaptiveRegressor()``, solver ``auto`` =
  ``adaptive_gd``, paper 004);
* non-private sklearn ``HuberRegressor`` (epsilon-independent; fitted on the
  same preprocessed features and the corrupted, unclipped targets).

Each seed draws its own split (diabetes: 70/30) or data (generated), its own
outliers and its own noise. Outliers are gross and one-sided: a chosen
training target gets ``+ 5`` (the target range is [-1, 1]), which the DP
models then clip to the public ``target_bound = 1``. Test targets are never
corrupted.

Public preprocessing (no statistic of the private data is used):

* diabetes (n = 442, d = 10; sklearn's copy has unit-norm columns): features
  times 4 (rows of l2 norm about 0.6, ``feature_bound = 1``), targets (the
  documented range 25..346) mapped affinely to [-1, 1]; multiply an MAE by
  160.5 for the original units. California housing is not available offline.
* generated (n = 10000 train, 5000 test, d = 10): Gaussian features scaled by
  the constant ``1/(1.5 sqrt d)`` then clipped to norm 1,
  ``y = clip(x.w + 0.2 + 0.1 noise, -1, 1)`` with ``w`` on a fixed grid.

``tune`` is how the default ``truncation`` was checked: it fits
``fo_single_pass`` on a *validation* task (generated data, seeds 1000+, never
the seeds of ``tables``) at epsilon = 1 with 20% outliers for several
truncation levels. (The solver constants in
``skdp.solvers.goldstein.PRACTICAL`` were chosen the same way, on generated
validation data of n = 4000..20000, d = 5.)
"""

import argparse
import math
import time
import warnings

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import HuberRegressor
from sklearn.model_selection import train_test_split

from skdp.regression import KLAdaptiveRegressor

EPSILONS = (0.5, 1.0, 4.0, math.inf)
FRACTIONS = (0.0, 0.1, 0.2)
ROBUST = ("fo_single_pass", "zo_single_pass", "zo_multi_pass")
OUTLIER_SHIFT = 5.0


def diabetes(seed):
    X, y = load_diabetes(return_X_y=True)
    X = 4.0 * X
    y = 2.0 * (y - 25.0) / (346.0 - 25.0) - 1.0
    return train_test_split(X, y, test_size=0.3, random_state=seed)


def generated(seed, n=10000, n_test=5000, d=10):
    rng = np.random.default_rng(seed)
    w = np.linspace(1.0, -1.0, d)

    def draw(m):
        X = rng.normal(size=(m, d)) / (1.5 * math.sqrt(d))
        X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
        return X, np.clip(X @ w + 0.2 + 0.1 * rng.normal(size=m), -1, 1)

    X, y = draw(n)
    Xt, yt = draw(n_test)
    return X, Xt, y, yt


DATA = {"diabetes": diabetes, "generated": generated}


def corrupt(y, fraction, seed):
    rng = np.random.default_rng(seed + 7919)
    y = y.copy()
    idx = rng.choice(len(y), size=int(round(fraction * len(y))), replace=False)
    y[idx] += OUTLIER_SHIFT
    return y


def mae(model, X, y):
    return float(np.mean(np.abs(model.predict(X) - y)))


def fit_models(X, y, Xt, yt, eps, seed, truncation=1.0):
    out = {}
    for solver in ROBUST:
        reg = KLAdaptiveRegressor(loss="truncated_absolute", solver=solver, epsilon=eps,
                                  truncation=truncation, random_state=seed)
        out[solver] = mae(reg.fit(X, y), Xt, yt)
    out["dp_squared"] = mae(KLAdaptiveRegressor(epsilon=eps, random_state=seed).fit(X, y), Xt, yt)
    return out


def tables(args):
    for name in args.data:
        print(f"\n### {name}: test MAE on clean targets, mean (sd) over {args.seeds} seeds\n")
        header = ["outliers", "epsilon", *ROBUST, "dp_squared (adaptive_gd)",
                  "HuberRegressor (non-private)"]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for frac in FRACTIONS:
            runs = {eps: [] for eps in EPSILONS}
            huber = []
            for seed in range(args.seeds):
                X, Xt, y, yt = DATA[name](seed)
                yc = corrupt(y, frac, seed)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    huber.append(mae(HuberRegressor(max_iter=1000).fit(X, yc), Xt, yt))
                for eps in EPSILONS:
                    runs[eps].append(fit_models(X, yc, Xt, yt, eps, seed))
            for eps in EPSILONS:
                cells = [f"{frac:.0%}", f"{eps:g}"]
                for key in (*ROBUST, "dp_squared"):
                    v = np.array([r[key] for r in runs[eps]])
                    cells.append(f"{v.mean():.3f} ({v.std():.3f})")
                cells.append(f"{np.mean(huber):.3f} ({np.std(huber):.3f})")
                print("| " + " | ".join(cells) + " |", flush=True)


def tune(args):
    print("| truncation | fo_single_pass MAE, eps=1, 20% outliers (validation) |")
    print("|---|---|")
    for tau in (0.25, 0.5, 1.0, 2.0):
        vals = []
        for seed in range(1000, 1000 + args.seeds):
            X, Xt, y, yt = generated(seed)
            yc = corrupt(y, 0.2, seed)
            reg = KLAdaptiveRegressor(loss="truncated_absolute", truncation=tau, epsilon=1.0,
                                      random_state=seed).fit(X, yc)
            vals.append(mae(reg, Xt, yt))
        print(f"| {tau:g} | {np.mean(vals):.3f} ({np.std(vals):.3f}) |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["tables", "tune"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--data", nargs="+", default=list(DATA), choices=list(DATA))
    args = parser.parse_args()
    start = time.time()
    {"tables": tables, "tune": tune}[args.mode](args)
    print(f"\n({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
