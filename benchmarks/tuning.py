"""Private hyperparameter search against GridSearchCV: true total cost and selected model.

Run: ``OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/tuning.py [--seeds 10]``,
or ``... tuning.py --large [--rows 1000000]`` for 3. only.

1. The total epsilon (delta = 1e-6) of the private search (Papernot–Steinke 2022
   Thm 2 / Thm 6) for E[K] runs of an epsilon = 1 Gaussian fit, against composing
   E[K] fits (zCDP).
2. PrivateMinimaxClassifier on make_classification (6000 rows, 20 % public test
   split): GridSearchCV (9 candidates, 3 folds, refit: 28 fits, cost from the
   BudgetAccountant) against PrivateHyperparameterSearch (E[K] = 9, eta = 0),
   test accuracy over seeds.
3. ``--large`` (issue 28): PrivateHyperparameterSearch with the estimators' default
   ``solver='auto'`` on a generated float32 table of ``--rows`` x 20 (n d >= 1e7 on the
   training part, where ``auto`` is ``dpsgd_poisson``), once for the classifier and once
   for the regressor: wall time, the chosen solver, the test score (accuracy, R^2; with
   scikit-learn's non-private fit for reference), the total spend on the search's accountant.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import GridSearchCV, train_test_split

from skdp import BudgetAccountant, KLAdaptiveRegressor, PrivateMinimaxClassifier
from skdp.model_selection import PrivateHyperparameterSearch, fit_rho_bound
from skdp.privacy.ledger import zcdp_to_approx_dp
from skdp.privacy.repeat_and_select import repeat_and_select_epsilon

DELTA = 1e-6


def cost_table():
    rho = fit_rho_bound(PrivateMinimaxClassifier(epsilon=1.0, delta=DELTA))
    print(f"one fit: epsilon = 1, delta = {DELTA:g}, rho = {rho:.4f}")
    print("| E[K] | eta=-0.5 | eta=0 | eta=0.5 | eta=1 | Poisson | E[K] fits composed (zCDP) |")
    print("|---|---|---|---|---|---|---|")
    for mean in (5, 10, 20):
        cells = [repeat_and_select_epsilon(rho, DELTA, mean, eta) for eta in (-0.5, 0, 0.5, 1)]
        cells.append(repeat_and_select_epsilon(rho, DELTA, mean, distribution="poisson"))
        cells.append(zcdp_to_approx_dp(mean * rho, DELTA))
        print(f"| {mean} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")


def comparison(seeds):
    X, y = make_classification(n_samples=6000, n_features=10, n_informative=5, random_state=0)
    X = X / np.linalg.norm(X, axis=1).max()
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
    grid = {"solver": ["noisy_gd", "sgda", "smd"], "radius": [1.0, 5.0, None]}
    rows = {"GridSearchCV": [], "private search": [], "one untuned fit": []}
    for seed in range(seeds):
        base = PrivateMinimaxClassifier(epsilon=1.0, delta=DELTA, group_by=None, random_state=seed)
        acc = BudgetAccountant()
        gs = GridSearchCV(base.set_params(accountant=acc), grid, cv=3).fit(X_tr, y_tr)
        rows["GridSearchCV"].append((acc.total()[0], acc.total()[1], gs.score(X_te, y_te), 28))
        # a study of the search: K is revealed (PrivacyLeakWarning), which a release must not do
        ps = PrivateHyperparameterSearch(base.set_params(accountant=None), grid, mean_runs=9,
                                         delta=DELTA, accountant=BudgetAccountant(),
                                         random_state=seed, reveal_n_runs=True).fit(X_tr, y_tr)
        rows["private search"].append((*ps.privacy_spent_, ps.score(X_te, y_te), ps.n_runs_))
        one = base.set_params(accountant=BudgetAccountant()).fit(X_tr, y_tr)
        rows["one untuned fit"].append((1.0, DELTA, one.score(X_te, y_te), 1))
    print(f"\n{seeds} seeds; test accuracy mean (sd, min); total (epsilon, delta); fits or K")
    print("| method | total epsilon | delta | test accuracy | fits / K (median, max) |")
    print("|---|---|---|---|---|")
    for name, r in rows.items():
        r = np.array(r)
        print(f"| {name} | {r[:, 0].mean():.2f} | {r[:, 1].mean():.1e} | {r[:, 2].mean():.3f} "
              f"(sd {r[:, 2].std():.3f}, min {r[:, 2].min():.3f}) | "
              f"{np.median(r[:, 3]):.0f}, {r[:, 3].max():.0f} |")


def large(rows, d=20, seed=0):
    """One search per estimator with the default ``auto`` solver at n d >= 1e7."""
    rng = np.random.default_rng(seed)
    X = (rng.standard_normal((rows, d), dtype=np.float32) / np.float32(np.sqrt(2 * d)))
    w = rng.standard_normal(d) / np.sqrt(d)
    margin = X @ w.astype(np.float32)
    y_clf = (margin + 0.1 * rng.standard_normal(rows).astype(np.float32) > 0).astype(int)
    y_reg = np.clip(margin + 0.05 * rng.standard_normal(rows).astype(np.float32), -1, 1)
    n_test = rows // 10
    cases = [
        ("PrivateMinimaxClassifier", PrivateMinimaxClassifier(epsilon=1.0, group_by=None),
         {"radius": [1.0, 5.0, None]}, y_clf, {"classes": [0, 1]},
         LogisticRegression(max_iter=200)),
        ("KLAdaptiveRegressor", KLAdaptiveRegressor(epsilon=1.0),
         {"alpha": [0.0, 0.01, 0.1]}, y_reg, {}, LinearRegression()),
    ]
    print(f"\ntable: {rows} x {d} float32 (test: last {n_test} rows), n d = {rows * d:.2g}; "
          "search: mean_runs=10 (truncated negative binomial, eta=0), delta='auto', "
          "refit=False, random_state=0")
    print("| estimator | wall time (s) | K | solver_ of best | test score | non-private "
          "score | total spend (epsilon, delta) |")
    print("|---|---|---|---|---|---|---|")
    for name, est, grid, y, fit_params, reference in cases:
        X_tr, y_tr, X_te, y_te = X[:-n_test], y[:-n_test], X[-n_test:], y[-n_test:]
        acc = BudgetAccountant()
        search = PrivateHyperparameterSearch(est, grid, accountant=acc, random_state=0,
                                             reveal_n_runs=True)
        start = time.perf_counter()
        search.fit(X_tr, y_tr, **fit_params)
        wall = time.perf_counter() - start
        best = search.best_estimator_
        eps, delta = acc.total()
        exact = reference.fit(X_tr, y_tr).score(X_te, y_te)
        print(f"| {name} | {wall:.1f} | {search.n_runs_} | {getattr(best, 'solver_', '?')} | "
              f"{best.score(X_te, y_te):.4f} | {exact:.4f} | ({eps:.3f}, {delta:.2e}) |",
              flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--large", action="store_true",
                        help="only the searches at n d >= 1e7 (issue 28)")
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.large:
        large(args.rows)
        raise SystemExit(0)
    cost_table()
    comparison(args.seeds)
