"""Small tables and heavy tails (issue 30): the default synthesizer at a few thousand
training rows, and a heavy-tailed column with wide public bounds, against the
independent-columns DP baseline at user-side bins.

Split: the public 15,000-row subsample of ``cli_api_gap.split`` (seed 2030); the training
rows are the first ``--train`` of its 12,000 training rows (in the subsample's random order;
12,000: exactly the split of "the target table"), the holdout its 3,000 held-out rows (the
same for every ``--train``). Domain: ``synth_resolution.domain_of`` with
``synth_real_tables.TABLES``' public bounds (the ``api`` workflow); ``--heavy`` replaces
nassCDS ``weight``'s bounds 0-2,000 by 0-60,000 (its range; the heavy-tail case). The
estimator is fitted on the training rows as the CLI reads them (written to CSV and read
back) at each epsilon (delta 1e-6, the defaults otherwise, or ``--params``) and seed, and
``len(train)`` rows are sampled.

Scores: 10 equal (e10) and 10 quantile (q10) bins of the holdout for every column with
bounds (categories as they are, missing a cell of its own; ``cli_draft_workflow._user_codes``),
the mean 2-way TV against the holdout, and each numeric column's 1-way TV, beside the
independent-columns DP baseline at the same bins and the same epsilon (``independent``
below: ``synth_resolution.independent`` at any epsilon, rng ``seed + 7``).

``--decomp`` also scores the same fitted model with two other placements of numeric values
within the model's bins (the model's bin codes the same draw): ``uniform`` (uniform within
the bin, the decoding without the fine grid) and ``oracle`` (a training row's value drawn
from those in the same model bin: the true within-bin distribution, not private; what a
perfect fine release could give). ``default - oracle`` is the fine decoding's share of the
error, ``oracle`` the model bins' own::

    OMP_NUM_THREADS=1 PYTHONPATH=. nice -n 10 python benchmarks/smalln_check.py \\
        --tables nassCDS DoctorContacts weather --train 3600 --epsilons 0.5 1 5 \\
        --seeds 0 1 2 3 4 5 6 7 [--heavy] [--decomp] [--params resolution_refine=0.5]
"""

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import cli_api_gap as gap  # noqa: E402
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from synth_real_tables import TABLES  # noqa: E402
from synth_resolution import DELTA, domain_of, independent, marginal  # noqa: E402

from skdp._synth import decoding  # noqa: E402

HEAVY_BOUNDS = {"weight": (0, 60000, 8)}


def tv(R, S, cards, num):
    """Mean 2-way TV over all pairs; 1-way TV of each column of ``num``."""
    d = R.shape[1]
    two = [0.5 * np.abs(marginal(R, (i, j), cards) - marginal(S, (i, j), cards)).sum()
           for i in range(d) for j in range(i + 1, d)]
    one = [0.5 * np.abs(marginal(R, (j,), cards) - marginal(S, (j,), cards)).sum() for j in num]
    return float(np.mean(two)), one


def split(item, n_train):
    """The first ``n_train`` of ``cli_api_gap.split``'s 12,000 training rows (its random
    order), and its 3,000 held-out rows."""
    df = gap._load(gap.PACKAGES[item], item)
    order = np.random.default_rng(gap.SUBSAMPLE_SEED).permutation(len(df))[:15000]
    return df.iloc[np.sort(order[:n_train])], df.iloc[np.sort(order[12000:])]


def oracle_decoder(est, train):
    """A ``_decode_codes`` for ``est`` that places each numeric value at a training value
    drawn from those in the same model bin (uniform decoding where the bin holds none)."""
    pools = {}
    for j, c in enumerate(est._columns):
        if c.categorical:
            continue
        v = c.prepare(train[c.name].to_numpy())
        ok = ~np.isnan(v)
        codes = c._encode_bins(v[ok])
        pools[j] = (v[ok][np.argsort(codes, kind="stable")], np.bincount(codes, minlength=c.n_bins))

    def decode(codes, rng):
        cols = []
        for j, c in enumerate(est._columns):
            if j not in pools:
                cols.append(c.decode(codes[:, j], rng))
                continue
            vals, counts = pools[j]
            b = np.minimum(codes[:, j], c.n_bins - 1)
            out = c._decode_bins(b, rng).astype(float)
            starts = np.concatenate([[0], np.cumsum(counts)])
            has = counts[b] > 0
            pick = starts[b[has]] + np.floor(rng.uniform(size=has.sum()) * counts[b[has]])
            out[has] = vals[pick.astype(np.int64)]
            if c.missing:
                out[codes[:, j] == c.n_bins] = np.nan
            cols.append(out)
        return decoding._table(cols, est._columns, est._output)

    return decode


def uniform_decoder(est):
    """A ``_decode_codes`` for ``est`` without the fine grid (uniform within the bin)."""
    def decode(codes, rng):
        cols = []
        for j, c in enumerate(est._columns):
            fine, c.fine = c.fine, None
            try:
                cols.append(c.decode(codes[:, j], rng))
            finally:
                c.fine = fine
        return decoding._table(cols, est._columns, est._output)

    return decode


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", nargs="*", default=["nassCDS", "DoctorContacts", "weather"])
    ap.add_argument("--train", type=int, default=3600)
    ap.add_argument("--epsilons", nargs="*", type=float, default=[0.5, 1.0, 5.0])
    ap.add_argument("--seeds", nargs="*", type=int, default=list(range(8)))
    ap.add_argument("--heavy", action="store_true", help="nassCDS weight bounds 0-60,000")
    ap.add_argument("--decomp", action="store_true")
    ap.add_argument("--params", default="", help="estimator parameters, key=value,...")
    ap.add_argument("--out", default="/tmp/smalln_check")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import pandas as pd
    from skdp.synthesizer import SaddlePointSynthesizer

    params = gap._params(args.params)
    decoders = ["default"] + (["uniform", "oracle"] if args.decomp else [])
    print(f"params {params or 'defaults'}; train {args.train}; heavy {args.heavy}")
    for item in args.tables:
        train, hold = split(item, args.train)
        bounds = dict(TABLES[(gap.PACKAGES[item], item)][0])
        if args.heavy:
            bounds.update({k: v for k, v in HEAVY_BOUNDS.items() if k in bounds})
        header = [c for c in train.columns if c not in TABLES[(gap.PACKAGES[item], item)][1]]
        dom = domain_of(train[header], bounds)
        src, hsrc = (os.path.join(args.out, f"{item}.{x}.csv") for x in ("train", "holdout"))
        train[header].to_csv(src, index=False)
        hold[header].to_csv(hsrc, index=False)
        tr, ho = _read_csv_rows(src), _read_csv_rows(hsrc)
        train_csv = pd.read_csv(src)
        numeric = ["low" in dom[c] for c in header]
        num = [j for j, n in enumerate(numeric) if n]
        names = [header[j] for j in num]
        print(f"## {item}: {len(train)} training / {len(hold)} held-out rows; numeric {names}")
        print("| eps | seed | decoding | 2-way e10 (x indep) | 2-way q10 (x indep) | "
              "1-way e10 / q10: columns at most the baseline's | s |")
        print("|---|---|---|---|---|---|---|")
        summary = {}
        for eps in args.epsilons:
            for seed in args.seeds:
                t0 = time.time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = SaddlePointSynthesizer(epsilon=eps, delta=DELTA, domain=dom,
                                                 random_state=seed, **params).fit(train_csv)
                secs = time.time() - t0
                for dec in decoders:
                    if dec == "uniform":
                        est._decode_codes = uniform_decoder(est)
                    elif dec == "oracle":
                        est._decode_codes = oracle_decoder(est, train_csv)
                    path = os.path.join(args.out, f"{item}.syn.csv")
                    est.sample(len(train_csv)).to_csv(path, index=False)
                    sy = _read_csv_rows(path)
                    cells, oks = [], []
                    for kind in ("equal", "quantile"):
                        (h, t, s), cards = _user_codes([ho, tr, sy], numeric, kind, 10)
                        base = independent(t, cards, np.random.default_rng(seed + 7), eps)
                        (f2, f1), (b2, b1) = tv(h, s, cards, num), tv(h, base, cards, num)
                        summary.setdefault((eps, dec, kind), []).append((f2 / b2, f1, b1))
                        cells.append(f"{f2:.4f} / {b2:.4f} ({f2 / b2:.3f}x)")
                        oks.append(sum(a <= b for a, b in zip(f1, b1)))
                    print(f"| {eps:g} | {seed} | {dec} | " + " | ".join(cells) +
                          f" | {oks[0]} / {oks[1]} of {len(num)} | {secs:.0f} |", flush=True)
                del est
        print(f"\n### {item}: means over seeds (se); 1-way per numeric column, mean fit / "
              "baseline over seeds")
        print("| eps | decoding | 2-way e10 (x indep) | 2-way q10 (x indep) | 1-way e10 | "
              "1-way q10 |")
        print("|---|---|---|---|---|---|")
        for eps in args.epsilons:
            for dec in decoders:
                row = [f"{eps:g}", dec]
                for kind in ("equal", "quantile"):
                    r = np.array([x[0] for x in summary[(eps, dec, kind)]])
                    row.append(f"{r.mean():.3f} ({r.std(ddof=1) / math.sqrt(len(r)):.3f})"
                               if len(r) > 1 else f"{r.mean():.3f}")
                for kind in ("equal", "quantile"):
                    f1 = np.mean([x[1] for x in summary[(eps, dec, kind)]], axis=0)
                    b1 = np.mean([x[2] for x in summary[(eps, dec, kind)]], axis=0)
                    row.append(", ".join(f"{n} {a:.3f}/{b:.3f}" for n, a, b in
                                         zip(names, f1, b1)))
                print("| " + " | ".join(row) + " |", flush=True)
        print()


if __name__ == "__main__":
    main()
