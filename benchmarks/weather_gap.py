"""Where a mixed table's 2-way miss through the CLI comes from (issue 30): epsilon, pairs, floors.

The fits of ``cli_api_gap.py`` (the curated domain, the public 15,000-row subsample split
12,000 / 3,000, the estimator the CLI runs; its rows are the CLI's) at several epsilons,
scored at the same user-side bins (10 equal / 10 quantile bins of the holdout) against the
holdout, as multiples of the independent-columns DP baseline **at epsilon 1** (the target's
denominator, fixed so that the epsilons compare), beside two references, what an exact
model of the training rows scores:

- ``train``: the training rows themselves (the issue's floor);
- ``resample``: ``len(train)`` rows (``--rows-factor`` times that) drawn with replacement
  from the training rows: an exact model of the training table sampled by independent
  draws (its sampling noise added to ``train``'s; the synthesizer's sampler rounds the
  counts of its cliques, so on those it adds less).

``--pairs`` prints, at the first epsilon, each pair's mean TV (fit, floors, baseline) and its
share of the mean excess over the ``train`` floor, and each column's share (half of each of
its pairs' excess)::

    OMP_NUM_THREADS=1 PYTHONPATH=. nice -n 10 python benchmarks/weather_gap.py \\
        --table weather --epsilons 1 2 5 1000 --seeds 0 1 2 3 [--pairs] [--params n_bins=20]
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

from cli_api_gap import DELTA, _params, domains, split, two_way  # noqa: E402
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from synth_resolution import independent  # noqa: E402

KINDS = ("equal", "quantile")


def fit_rows(train_csv, dom, epsilon, seed, params, path, factor=1):
    from skdp.synthesizer import SaddlePointSynthesizer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SaddlePointSynthesizer(epsilon=epsilon, delta=DELTA, domain=dom,
                                     random_state=seed, **params).fit(train_csv)
    est.sample(factor * len(train_csv)).to_csv(path, index=False)
    return _read_csv_rows(path)


def pair_table(header, fit, refs):
    """Rows: pair, fit TV, each reference's TV, excess over ``train`` and its share."""
    pairs = sorted(fit, key=lambda p: fit[p] - refs["train"][p], reverse=True)
    total = sum(fit[p] - refs["train"][p] for p in pairs)
    out = ["| pair | fit | train | resample | baseline | excess over train | share |",
           "|---|---|---|---|---|---|---|"]
    for p in pairs:
        ex = fit[p] - refs["train"][p]
        out.append(f"| {header[p[0]]} x {header[p[1]]} | {fit[p]:.4f} | "
                   f"{refs['train'][p]:.4f} | {refs['resample'][p]:.4f} | "
                   f"{refs['baseline'][p]:.4f} | {ex:+.4f} | {ex / total:.1%} |")
    out.append("\n| column | share of the excess | 2-way fit / baseline over its pairs |")
    out.append("|---|---|---|")
    for j, name in enumerate(header):
        mine = [p for p in pairs if j in p]
        share = sum(fit[p] - refs["train"][p] for p in mine) / (2 * total)
        ratio = np.mean([fit[p] for p in mine]) / np.mean([refs["baseline"][p] for p in mine])
        out.append(f"| {name} | {share:.1%} | {ratio:.2f}x |")
    return out


def mean_pairs(dicts):
    return {p: float(np.mean([d[p] for d in dicts])) for p in dicts[0]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default="weather")
    ap.add_argument("--epsilons", nargs="*", type=float, default=[1.0])
    ap.add_argument("--seeds", nargs="*", type=int, default=[0])
    ap.add_argument("--params", default="", help="estimator parameters, as cli_api_gap's")
    ap.add_argument("--pairs", action="store_true")
    ap.add_argument("--rows-factor", type=int, default=1,
                    help="synthetic rows (and the resample floor's): this many times the "
                         "training rows (the synthetic table's own sampling noise)")
    ap.add_argument("--out", default="/tmp/weather_gap")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import pandas as pd

    _, train, hold = split(args.table, 15000)
    cur, _, header = domains(args.table, train, args.out)
    src, hsrc = (os.path.join(args.out, f"{args.table}.{x}.csv") for x in ("train", "holdout"))
    train[header].to_csv(src, index=False)
    hold[header].to_csv(hsrc, index=False)
    tr, ho = _read_csv_rows(src), _read_csv_rows(hsrc)
    train_csv = pd.read_csv(src)
    numeric = ["low" in cur[c] for c in header]
    params = _params(args.params)

    refs = {k: {"train": [], "resample": [], "baseline": []} for k in KINDS}
    for kind in KINDS:
        (h, t), cards = _user_codes([ho, tr], numeric, kind, 10)
        for s in args.seeds:
            rng = np.random.default_rng(s + 7)
            refs[kind]["baseline"].append(two_way(h, independent(t, cards, rng), cards))
            refs[kind]["train"].append(two_way(h, t, cards))
            rs = np.random.default_rng(1000 + s).integers(0, len(t), args.rows_factor * len(t))
            refs[kind]["resample"].append(two_way(h, t[rs], cards))
    base = {k: np.mean([np.mean(list(d.values())) for d in refs[k]["baseline"]]) for k in KINDS}
    print(f"## {args.table}: {len(tr)} / {len(ho)} rows, params {params or 'default'}, "
          f"seeds {args.seeds}; mean 2-way TV vs holdout (x the epsilon-1 baseline)")
    print("| rows | e10 | q10 | CPU s per fit |\n|---|---|---|---|")
    for name in ("baseline", "train", "resample"):
        cells = []
        for k in KINDS:
            v = np.mean([np.mean(list(d.values())) for d in refs[k][name]])
            cells.append(f"{v:.4f} ({v / base[k]:.2f}x)")
        print(f"| {name} | " + " | ".join(cells) + " | |", flush=True)
    first = None
    for eps in args.epsilons:
        fits = {k: [] for k in KINDS}
        cpu = []
        for s in args.seeds:
            c0 = time.process_time()
            sy = fit_rows(train_csv, cur, eps, s, params,
                          os.path.join(args.out, f"{args.table}.e{eps:g}.s{s}.csv"),
                          args.rows_factor)
            cpu.append(time.process_time() - c0)
            for kind in KINDS:
                (h, y), cards = _user_codes([ho, sy], numeric, kind, 10)
                fits[kind].append(two_way(h, y, cards))
        cells = []
        for k in KINDS:
            per_seed = [np.mean(list(d.values())) / base[k] for d in fits[k]]
            cells.append(f"{np.mean(per_seed) * base[k]:.4f} ({np.mean(per_seed):.2f}x, "
                         f"{min(per_seed):.2f}-{max(per_seed):.2f})")
        print(f"| fit, epsilon {eps:g} | " + " | ".join(cells) +
              f" | {np.mean(cpu):.1f} |", flush=True)
        first = first or fits
    if args.pairs:
        for k in KINDS:
            print(f"\n### pairs at epsilon {args.epsilons[0]:g}, {k} bins (means over seeds)\n")
            print("\n".join(pair_table(header, mean_pairs(first[k]),
                                       {n: mean_pairs(v) for n, v in refs[k].items()})))


if __name__ == "__main__":
    main()
