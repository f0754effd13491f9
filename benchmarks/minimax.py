"""Benchmark of PrivateMinimaxClassifier: worst-group and overall accuracy, fit time.

Run (one BLAS thread, as sklearn's reference fit gets)::

    OMP_NUM_THREADS=1 python benchmarks/minimax.py   # full: 5 seeds, eps in {0.5, 1, 2, 5, inf}
    OMP_NUM_THREADS=1 python benchmarks/minimax.py --seeds 2 --eps 1 --datasets wine   # a look

Data (bundled with scikit-learn, no download), 70/30 stratified split per seed:

* ``digits``: 10 classes, groups = classes (worst-class accuracy). Pixels are
  divided by their public maximum 16.
* ``digits_8_vs_rest``: binary, 8 against the other digits (a 1:9 class
  imbalance), groups = classes: the worst class is the minority (recall of 8s).
* ``breast_cancer``: 4 groups = class x (mean texture >= 19, a fixed public
  threshold, about the median): malignant tumours of smooth texture are the
  small (about 46 of 569 rows), hard group. Features standardised with the training
  split's mean and std (as in the anchors' diffprivlib runs; this preprocessing is not
  private).
* ``wine``: 3 classes, groups = classes; standardised as above.

Models: non-private ``sklearn.linear_model.LogisticRegression``; a DP ERM
baseline that ignores groups (``PrivateMinimaxClassifier(group_by=None)``,
i.e. DP gradient descent on the average risk); and every solver of
``PrivateMinimaxClassifier`` on the worst-group objective. Group sizes are not
given (each worst-group fit estimates them privately, 15% of its budget),
except in the row "noisy_gd, public group sizes" (sizes treated as public
knowledge, e.g. published class priors).
``delta = 1e-6``. Prints one markdown table per dataset: mean (std) over seeds;
fit times are CPU seconds of this process (``time.process_time``: less
sensitive than wall time to other jobs on a shared machine; BLAS threads are
counted).
"""

import argparse
import math
import time
import warnings

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from skdp.minimax import PrivateMinimaxClassifier

SOLVERS = ["noisy_gd", "sgda", "smd", "smd_bias_reduced", "mlmc"]


def load(name):
    """X, y, groups and whether to standardise."""
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        return X / 16.0, y, y, False
    if name == "digits_8_vs_rest":
        X, y = load_digits(return_X_y=True)
        y = (y == 8).astype(int)
        return X / 16.0, y, y, False
    if name == "breast_cancer":
        data = load_breast_cancer()
        rough = data.data[:, list(data.feature_names).index("mean texture")] >= 19.0
        return data.data, data.target, 2 * data.target + rough, True
    X, y = load_wine(return_X_y=True)
    return X, y, y, True


def split(name, seed):
    X, y, g, standardise = load(name)
    Xtr, Xte, ytr, yte, gtr, gte = train_test_split(X, y, g, test_size=0.3, random_state=seed,
                                                    stratify=g)
    if standardise:
        mean, std = Xtr.mean(0), Xtr.std(0) + 1e-12
        Xtr, Xte = (Xtr - mean) / std, (Xte - mean) / std
    return Xtr, Xte, ytr, yte, gtr, gte


def evaluate(model, Xte, yte, gte):
    pred = model.predict(Xte)
    worst = min(np.mean(pred[gte == g] == yte[gte == g]) for g in np.unique(gte))
    return float(np.mean(pred == yte)), float(worst)


def models(name, eps, seed):
    """(label, estimator, whether fit gets the groups) for one run."""
    groups_from_fit = name == "breast_cancer"  # elsewhere the groups are the classes
    out = []
    if math.isinf(eps):
        out.append(("sklearn LogisticRegression", LogisticRegression(max_iter=2000), False))
    out.append(("DP ERM (group_by=None)",
                PrivateMinimaxClassifier(epsilon=eps, group_by=None, random_state=seed), False))
    for solver in SOLVERS:
        out.append((solver, PrivateMinimaxClassifier(epsilon=eps, solver=solver,
                                                     random_state=seed), groups_from_fit))
    out.append(("noisy_gd, public group sizes", "public", groups_from_fit))
    return out


def run(name, eps_list, seeds):
    rows = {}
    for eps in eps_list:
        for seed in range(seeds):
            Xtr, Xte, ytr, yte, gtr, gte = split(name, seed)
            for label, model, with_groups in models(name, eps, seed):
                if model == "public":  # group sizes known (e.g. published class priors)
                    sizes = np.bincount(gtr if with_groups else ytr)
                    model = PrivateMinimaxClassifier(epsilon=eps, group_sizes=sizes,
                                                     random_state=seed)
                start = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if with_groups:
                        model.fit(Xtr, ytr, groups=gtr)
                    else:
                        model.fit(Xtr, ytr)
                seconds = time.process_time() - start
                acc, worst = evaluate(model, Xte, yte, gte)
                rows.setdefault((label, eps), []).append((acc, worst, seconds))
    return rows


def table(name, rows, eps_list):
    labels = list(dict.fromkeys(label for label, _ in rows))
    head = "| model | " + " | ".join(f"eps={e:g}" for e in eps_list) + " |"
    lines = [f"### {name}: worst-group accuracy / overall accuracy (mean over seeds), "
             "median fit CPU seconds", "", head, "|" + "---|" * (len(eps_list) + 1)]
    for label in labels:
        cells = []
        for eps in eps_list:
            res = rows.get((label, eps))
            if res is None:
                cells.append("")
                continue
            a = np.asarray(res)
            cells.append(f"{a[:, 1].mean():.3f} ({a[:, 1].std():.3f}) / {a[:, 0].mean():.3f} "
                         f"/ {np.median(a[:, 2]):.2g}s")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def anchors(seeds):
    """Average-risk model against the anchors (guides/anchors.md): 70/30 split,
    breast_cancer standardised, digits / 16, test accuracy, mean over seeds."""
    eps_list = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0]
    lines = ["### average-risk model (group_by=None), anchors protocol: test accuracy", "",
             "| data | " + " | ".join(f"eps={e:g}" for e in eps_list) + " |",
             "|" + "---|" * (len(eps_list) + 1)]
    for name, loader in (("breast_cancer", load_breast_cancer), ("digits", load_digits)):
        X, y = loader(return_X_y=True)
        cells = []
        for eps in eps_list:
            accs = []
            for seed in range(seeds):
                Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed)
                if name == "digits":
                    Xtr, Xte = Xtr / 16.0, Xte / 16.0
                else:
                    mean, std = Xtr.mean(0), Xtr.std(0)
                    Xtr, Xte = (Xtr - mean) / std, (Xte - mean) / std
                model = PrivateMinimaxClassifier(epsilon=eps, group_by=None, random_state=seed)
                accs.append(model.fit(Xtr, ytr).score(Xte, yte))
            cells.append(f"{np.mean(accs):.3f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 2.0, 5.0, math.inf])
    parser.add_argument("--datasets", nargs="+",
                        default=["breast_cancer", "digits", "digits_8_vs_rest", "wine"])
    parser.add_argument("--anchors", action="store_true",
                        help="only the average-risk model under the anchors' protocol")
    args = parser.parse_args()
    if args.anchors:
        print(anchors(args.seeds))
        return
    for name in args.datasets:
        rows = run(name, args.eps, args.seeds)
        print(table(name, rows, args.eps), flush=True)
        print()


if __name__ == "__main__":
    main()
