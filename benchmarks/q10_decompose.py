"""Where a CLI fit's 2-way excess at the user's bins comes from (issue 30): the model's
sampled codes against the training rows' codes at the same model bins, each decoded by the
fit's released fine grid or by the training rows' own within-bin values.

``cli_api_gap.py``'s split, curated domain and scoring (10 equal / 10 quantile bins of the
holdout, against the holdout, every figure over the independent-columns DP baseline of the
same seed). For each seed one fit (the default estimator at ``--epsilon``), then tables of
``len(train)`` rows, all at the fit's model bins:

- ``fit``: ``est.sample()`` (what the CLI writes);
- ``M.fine``: the model's codes (a fresh draw) decoded by the fit (= ``fit`` up to sampling);
- ``M.true``: the model's codes, each numeric value drawn from the training rows' values in
  the same model bin (the true within-bin distribution; the fit's decoding where the
  training rows leave the bin empty);
- ``R.fine`` / ``R.true``: the model's codes re-weighted (raking) to the training rows'
  1-way counts at the model bins, then decoded either way: the model's 2-way structure
  without its 1-way error;
- ``T.fine`` / ``T.true``: the training rows' own codes at the model bins decoded either way
  (``T.true``: the training rows with each numeric value redrawn within its bin, column by
  column: the model bins' resolution);
- ``T.exact``: the same codes decoded by the fit's grid with the training rows' exact counts
  on its cells and spikes (the bins' totals theirs too): ``T.fine - T.exact`` is the noise of
  the fine counts, ``T.exact - T.true`` the grid's resolution;
- ``train``: the training rows themselves (the floor).

Not a privacy claim: the ``.true`` and ``R`` / ``T`` tables read the training rows (a
diagnosis). ``--pairs`` prints per-pair and per-column ratios (mean over seeds)::

    OMP_NUM_THREADS=1 PYTHONPATH=. nice -n 10 python benchmarks/q10_decompose.py \\
        --table DoctorContacts --seeds 0 1 2 3 4 5 6 7 --pairs
"""

import argparse
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import cli_api_gap  # noqa: E402
from cli_api_gap import domains, split, two_way, one_way, _params  # noqa: E402
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from synth_resolution import independent  # noqa: E402

VARIANTS = ["fit", "M.fine", "M.true", "R.fine", "R.true", "T.fine", "T.exact", "T.true",
            "T.spk", "train"]


def true_decode(col, codes, values, rng, fallback):
    """Each code's value drawn from ``values`` (the training rows' prepared values) in the
    same model bin; ``fallback`` (the fit's decoding) where that bin holds none."""
    own = col.encode_prepared(values)
    out = fallback.copy()
    for b in np.unique(codes):
        rows = np.flatnonzero(codes == b)
        pool = values[own == b]
        if len(pool):
            out[rows] = pool[rng.integers(0, len(pool), len(rows))]
    return out


def rake(M, T, cards, rounds=30):
    """Row weights of ``M`` whose 1-way counts match ``T``'s (iterative proportional
    fitting), then ``len(M)`` rows drawn by systematic sampling."""
    w = np.ones(len(M))
    for _ in range(rounds):
        for j, k in enumerate(cards):
            have = np.bincount(M[:, j], weights=w, minlength=k)
            want = np.bincount(T[:, j], minlength=k) * (w.sum() / len(T))
            ratio = np.divide(want, have, out=np.zeros(k), where=have > 0)
            w = w * ratio[M[:, j]]
    cum = np.cumsum(w) / w.sum()
    u = (np.arange(len(M)) + np.random.default_rng(0).uniform()) / len(M)
    return M[np.minimum(np.searchsorted(cum, u), len(M) - 1)]


def tables(est, train_csv, rng):
    """The variants' DataFrames (``VARIANTS``; ``fit`` and ``train`` excluded)."""
    from skdp._synth import decoding

    cols = est._columns
    n = len(train_csv)
    prepared = [c.prepare(train_csv[c.name].to_numpy()) for c in cols]
    T = np.column_stack([c.encode_prepared(p) for c, p in zip(cols, prepared)])
    M = np.asarray(est.model_.sample(n, rng))
    R = rake(M, T, [c.cardinality for c in cols])
    out = {}
    for name, codes in (("M", M), ("R", R), ("T", T[rng.permutation(n)])):
        fine = [c.decode(codes[:, j], rng) for j, c in enumerate(cols)]
        true = []
        for j, c in enumerate(cols):
            if c.categorical:
                true.append(fine[j])
                continue
            v = true_decode(c, np.minimum(codes[:, j], c.n_bins - 1), prepared[j], rng,
                            fine[j])
            if c.missing:
                v[codes[:, j] == c.n_bins] = np.nan
            true.append(v)
        out[f"{name}.fine"] = decoding._table(fine, cols, est._output)
        out[f"{name}.true"] = decoding._table(true, cols, est._output)
    out["T.spk"] = decoding._table(spike_bins(cols, T, prepared, rng), cols, est._output)
    codes = T[rng.permutation(n)]
    out["T.exact"] = decoding._table([exact_decode(c, codes[:, j], prepared[j], rng)
                                      for j, c in enumerate(cols)], cols, est._output)
    return out


def exact_decode(col, codes, values, rng):
    """``codes`` decoded by a copy of ``col``'s fine grid holding the exact counts of
    ``values`` (the training rows' prepared values) on its cells and released spikes, the
    bins' totals those of ``codes``: the grid's resolution without its noise."""
    import copy

    if col.categorical or col.fine is None or col.fine.counts is None:
        return col.decode(codes, rng)
    col = copy.deepcopy(col)
    grid = col.fine
    grid.counts, grid.sigma = grid.counts_of(values), 0.0  # exact: nothing to shrink
    if grid.spikes is not None and len(grid.spikes):
        grid.spike_counts = np.array([(values == s).sum() for s in grid.spikes], float)
    inside = codes[codes < col.n_bins]
    grid.set_bin_totals(np.bincount(inside, minlength=col.n_bins).astype(float), grid.shrink)
    return col.decode(codes, rng)


def spike_bins(cols, T, prepared, rng):
    """The training rows redrawn within their model bins as ``T.true``, except that each
    released spike is a bin of its own (its rows keep the spike's value): the model bins'
    resolution were every released spike isolated."""
    perm = rng.permutation(len(T))
    out = []
    for j, c in enumerate(cols):
        v = prepared[j][perm]
        if c.categorical:
            out.append(c.decode(T[perm, j], rng))
            continue
        code = T[perm, j].astype(np.int64)
        spikes = c.fine.spikes if c.fine is not None and c.fine.spikes is not None else []
        for k, s in enumerate(spikes):
            code = np.where(v == s, c.cardinality + k, code)
        new = v.copy()
        for b in np.unique(code):
            rows = np.flatnonzero(code == b)
            new[rows] = v[rows][rng.permutation(len(rows))]
        out.append(new)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default="DoctorContacts")
    ap.add_argument("--seeds", nargs="*", type=int, default=[0])
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--params", default="", help="estimator parameters (cli_api_gap form)")
    ap.add_argument("--out", default="/tmp/q10_decompose")
    ap.add_argument("--pairs", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import pandas as pd
    from skdp.synthesizer import SaddlePointSynthesizer

    _, train, hold = split(args.table, 15000)
    cur, _, header = domains(args.table, train, args.out)
    train, hold = train[header], hold[header]
    src, hsrc = (os.path.join(args.out, f"{args.table}.{x}.csv") for x in ("train", "holdout"))
    train.to_csv(src, index=False)
    hold.to_csv(hsrc, index=False)
    tr, ho = _read_csv_rows(src), _read_csv_rows(hsrc)
    train_csv = pd.read_csv(src)
    numeric = ["low" in cur[c] for c in header]
    kinds = ("equal", "quantile")
    res = {v: {k: [] for k in kinds} for v in VARIANTS}  # per seed: (pair TVs, 1-way TVs)
    base = {k: [] for k in kinds}
    for seed in args.seeds:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = SaddlePointSynthesizer(epsilon=args.epsilon, delta=cli_api_gap.DELTA,
                                         domain=cur, random_state=seed,
                                         **_params(args.params)).fit(train_csv)
        frames = {"fit": est.sample(len(train_csv))}
        frames.update(tables(est, train_csv, np.random.default_rng(1000 + seed)))
        rows = {"train": tr}
        for name, df in frames.items():
            path = os.path.join(args.out, f"{args.table}.{name}.s{seed}.csv")
            df.to_csv(path, index=False)
            rows[name] = _read_csv_rows(path)
        for kind in kinds:
            (h, t), cards = _user_codes([ho, tr], numeric, kind, 10)
            b = independent(t, cards, np.random.default_rng(seed + 7))
            base[kind].append((two_way(h, b, cards), one_way(h, b, cards)))
            for name in VARIANTS:
                s = _user_codes([ho, rows[name]], numeric, kind, 10)[0][1]
                res[name][kind].append((two_way(h, s, cards), one_way(h, s, cards)))
        print(f"<!-- seed {seed} done -->", flush=True)
    report(args, header, numeric, res, base)


def _mean_ratio(res_k, base_k, keys=None):
    """Mean over seeds of (mean pair TV / the baseline's), over ``keys`` (all pairs)."""
    out = []
    for (tw, _), (bw, _) in zip(res_k, base_k):
        ks = list(tw) if keys is None else keys
        out.append(np.mean([tw[k] for k in ks]) / np.mean([bw[k] for k in ks]))
    return np.mean(out), np.std(out) / np.sqrt(len(out))


def report(args, header, numeric, res, base):
    kinds = ("equal", "quantile")
    print(f"## {args.table}: epsilon {args.epsilon}, seeds {args.seeds}, params "
          f"{args.params or '(default)'}; mean 2-way TV / baseline (se over seeds), "
          "mean numeric 1-way TV")
    print("| variant | e10 2-way | q10 2-way | e10 1-way | q10 1-way |")
    print("|---|---|---|---|---|")
    num = [j for j, x in enumerate(numeric) if x]
    for name in VARIANTS:
        cells = [f"{m:.3f} ({s:.3f})" for m, s in (_mean_ratio(res[name][k], base[k])
                                                   for k in kinds)]
        cells += [f"{np.mean([np.mean([o[j] for j in num]) for _, o in res[name][k]]):.4f}"
                  for k in kinds]
        print(f"| {name} | " + " | ".join(cells) + " |")
    b1 = [f"{np.mean([np.mean([o[j] for j in num]) for _, o in base[k]]):.4f}" for k in kinds]
    print(f"| baseline | 1 | 1 | {b1[0]} | {b1[1]} |")
    if not args.pairs:
        return
    d = len(header)
    print("\n### per column: 2-way ratio over its pairs (e10 / q10), then 1-way TV q10 "
          "(baseline's)")
    print("| column | " + " | ".join(VARIANTS) + " | 1-way q10: " + " / ".join(
        VARIANTS[:3]) + " / T.fine (base) |")
    print("|---|" + "---|" * (len(VARIANTS) + 1))
    for j, col in enumerate(header):
        keys = [(a, b) for a in range(d) for b in range(a + 1, d) if j in (a, b)]
        cells = []
        for name in VARIANTS:
            r = [_mean_ratio(res[name][k], base[k], keys)[0] for k in kinds]
            cells.append(f"{r[0]:.2f} / {r[1]:.2f}")
        q1 = [np.mean([o[j] for _, o in res[name]["quantile"]])
              for name in VARIANTS[:3] + ["T.fine"]]
        qb = np.mean([o[j] for _, o in base["quantile"]])
        print(f"| {col}{'' if numeric[j] else ' (cat)'} | " + " | ".join(cells) +
              " | " + " / ".join(f"{x:.3f}" for x in q1) + f" ({qb:.3f}) |")
    print("\n### pairs: q10 excess of `fit` over the baseline's 0.6x, largest first "
          "(mean over seeds: fit TV, M.true, R.fine, T.fine, train, baseline)")
    keys = list(res["fit"]["quantile"][0][0])
    mean = {name: {k: np.mean([tw[k] for tw, _ in res[name]["quantile"]]) for k in keys}
            for name in VARIANTS}
    bm = {k: np.mean([tw[k] for tw, _ in base["quantile"]]) for k in keys}
    excess = sorted(keys, key=lambda k: -(mean["fit"][k] - 0.6 * bm[k]))
    total = sum(mean["fit"][k] - 0.6 * bm[k] for k in keys)
    print(f"sum over pairs of (fit - 0.6 baseline): {total:.4f} over {len(keys)} pairs")
    print("| pair | fit | M.true | R.fine | T.fine | train | baseline | fit - 0.6 base |")
    print("|---|---|---|---|---|---|---|---|")
    for k in excess[:15]:
        print(f"| {header[k[0]]} x {header[k[1]]} | " + " | ".join(
            f"{mean[n][k]:.4f}" for n in ("fit", "M.true", "R.fine", "T.fine", "train")) +
            f" | {bm[k]:.4f} | {mean['fit'][k] - 0.6 * bm[k]:+.4f} |")


if __name__ == "__main__":
    main()
