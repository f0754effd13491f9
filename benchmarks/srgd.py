"""Single-epoch streaming solvers of paper 003: accuracy vs epsilon, and wall time.

Paper 003 §5 compares DP-SRG-MEMF with DP-MEMF (and the non-private model)
on MNIST / CIFAR-10 softmax regression. Redone here on data we have:

* ``digits``: scikit-learn's 8x8 digits (1797 rows, 64 features, 10 classes),
  70/30 train/test split;
* ``generated``: ``make_classification`` (60000 rows, 50 features, 30
  informative, 10 classes), 70/30 split;

rows scaled to unit l2 norm (a public, per-row transform; ``feature_bound=1``).
Solvers (``PrivateMinimaxClassifier(group_by=None)``, one epoch, default
options): ``srg_memf``, ``memf``, ``dpsgd`` and the theory algorithm
``srgd``, at epsilon in {0.1, 0.5, 1, 2, 8}, delta = 1e-6, ``--seeds`` seeds
(mean ± standard error of the test accuracy); non-private references:
``srg_memf`` at epsilon = inf (same single pass) and sklearn's
``LogisticRegression`` (to convergence). The practical defaults of
:mod:`skdp.solvers.streaming.srgd` were chosen on a validation split of the training
part of both sets (never on the test split).

Timing (``--timing``): one fit on ``n`` generated rows (50 features, 10
classes) for n in {1e5, 3e5, 1e6}: ``srg_memf`` at epsilon = 1 against
sklearn's ``LogisticRegression()`` and ``SGDClassifier(max_iter=1, tol=None)``
(one epoch, log loss), best of ``--repeats`` runs (1 at 1e6).

Usage::

    OMP_NUM_THREADS=1 python benchmarks/srgd.py --seeds 20
    OMP_NUM_THREADS=1 python benchmarks/srgd.py --timing
"""

import argparse
import math
import time
import warnings

import numpy as np
from sklearn.datasets import load_digits, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import normalize

from skdp import PrivateMinimaxClassifier

EPSILONS = (0.1, 0.5, 1.0, 2.0, 8.0)
SOLVERS = ("srg_memf", "memf", "dpsgd", "srgd")
DELTA = 1e-6


def datasets():
    X, y = load_digits(return_X_y=True)
    yield "digits", train_test_split(normalize(X), y, test_size=0.3, random_state=0)
    X, y = make_classification(n_samples=60000, n_features=50, n_informative=30, n_classes=10,
                               n_clusters_per_class=1, class_sep=1.0, random_state=0)
    X = normalize(X - X.mean(axis=0))  # centring on the (public, synthetic) mean
    yield "generated", train_test_split(X, y, test_size=0.3, random_state=0)


def _fit_score(solver, eps, seed, Xtr, ytr, Xte, yte):
    clf = PrivateMinimaxClassifier(epsilon=eps, delta=DELTA, solver=solver, group_by=None,
                                   random_state=seed).fit(Xtr, ytr)
    return clf.score(Xte, yte)


def _cell(values):
    values = np.asarray(values, dtype=float) * 100
    se = values.std(ddof=1) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return f"{values.mean():.2f} ± {se:.2f}"


def accuracy(seeds):
    for name, (Xtr, Xte, ytr, yte) in datasets():
        print(f"\n### {name}: n_train={len(ytr)}, n_test={len(yte)}, d={Xtr.shape[1]}, "
              f"classes={len(np.unique(ytr))}\n")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            lr = LogisticRegression(max_iter=1000).fit(Xtr, ytr).score(Xte, yte)
        one_pass = [_fit_score("srg_memf", math.inf, s, Xtr, ytr, Xte, yte) for s in range(seeds)]
        print(f"non-private: LogisticRegression {100 * lr:.2f}; srg_memf single pass "
              f"(epsilon=inf) {_cell(one_pass)}\n")
        print("| solver | " + " | ".join(f"eps={e:g}" for e in EPSILONS) + " |")
        print("|---|" + "---|" * len(EPSILONS))
        table = {}
        for solver in SOLVERS:
            row = []
            for eps in EPSILONS:
                scores = [_fit_score(solver, eps, s, Xtr, ytr, Xte, yte) for s in range(seeds)]
                table[solver, eps] = np.mean(scores)
                row.append(_cell(scores))
            print(f"| {solver} | " + " | ".join(row) + " |", flush=True)
        order = ["holds" if table["srg_memf", e] >= table["memf", e] >= table["dpsgd", e]
                 else "fails" for e in EPSILONS]
        print("\nordering SRG-MEMF >= MEMF >= DP-SGD (means): "
              + ", ".join(f"eps={e:g}: {o}" for e, o in zip(EPSILONS, order)))


def _best_time(fit, repeats):
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fit()
        best = min(best, time.perf_counter() - start)
    return best


def timing(repeats):
    print("\n| n | skdp srg_memf (eps=1) | LogisticRegression | SGDClassifier(max_iter=1) | "
          "srg_memf / SGD |")
    print("|---|---|---|---|---|")
    for n in (100_000, 300_000, 1_000_000):
        X, y = make_classification(n_samples=n, n_features=50, n_informative=30, n_classes=10,
                                   n_clusters_per_class=1, random_state=0)
        X = normalize(X)
        reps = 1 if n >= 1_000_000 else repeats
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            t_dp = _best_time(lambda: PrivateMinimaxClassifier(
                epsilon=1.0, solver="srg_memf", group_by=None, random_state=0).fit(X, y), reps)
            t_lr = _best_time(lambda: LogisticRegression().fit(X, y), reps)
            t_sgd = _best_time(lambda: SGDClassifier(loss="log_loss", max_iter=1, tol=None,
                                                     random_state=0).fit(X, y), reps)
        print(f"| {n:,} | {t_dp:.2f} s | {t_lr:.2f} s | {t_sgd:.2f} s | {t_dp / t_sgd:.2f} |",
              flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--timing", action="store_true", help="wall time instead of accuracy")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.timing:
        timing(args.repeats)
    else:
        accuracy(args.seeds)


if __name__ == "__main__":
    main()
