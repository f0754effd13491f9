"""Issue 31 item 1 (first part): AdaSSP against the regressor's default and sklearn.

A linear signal with noise, rows scaled to norm <= 1, float64, d = 100, 80/20
split; R^2 on the held-out rows and fit seconds for ``solver='adassp'``, the
regressor's default (``'auto'``), sklearn ``Ridge`` and ``LinearRegression``
(epsilon = 1, delta = 1e-6 for the private ones; feature_bound 1, target_bound
a public bound on |y|). One run each.

    python benchmarks/adassp.py [--rows 100000 1000000] [--skip-auto-above N]
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.metrics import r2_score

from skdp.regression import KLAdaptiveRegressor


def make_data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.sqrt(d) * 1.5  # most rows of norm < 1
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]  # every row of norm <= 1
    w = rng.normal(size=d) / np.sqrt(d) * 3.0
    y = X @ w + 0.3 + 0.1 * rng.normal(size=n)
    return X, y


def timed(est, X, y, Xt, yt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        est.fit(X, y)
        seconds = time.perf_counter() - t
    return r2_score(yt, est.predict(Xt)), seconds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--skip-auto-above", type=int, default=10**9)
    args = parser.parse_args()
    print("| n | d | estimator | R^2 (held out) | fit s |")
    print("|---|---|---|---|---|")
    for n in args.rows:
        X, y = make_data(n + n // 4, args.d)
        X, Xt, y, yt = X[:n], X[n:], y[:n], y[n:]
        bound = 2.0  # public bound on |y| (|x.w| <= ||w|| ~ 3 is rare at this scale: clipped)
        private = dict(epsilon=1.0, delta=1e-6, feature_bound=1.0, target_bound=bound,
                       random_state=0)
        ests = {"adassp": KLAdaptiveRegressor(solver="adassp", **private),
                "auto (default)": KLAdaptiveRegressor(**private),
                "Ridge": Ridge(alpha=1.0), "LinearRegression": LinearRegression()}
        for name, est in ests.items():
            if name.startswith("auto") and n > args.skip_auto_above:
                print(f"| {n:.0e} | {args.d} | {name} | skipped | |", flush=True)
                continue
            r2, s = timed(est, X, y, Xt, yt)
            print(f"| {n:.0e} | {args.d} | {name} | {r2:.4f} | {s:.2f} |", flush=True)


if __name__ == "__main__":
    main()
