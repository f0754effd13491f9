"""The CLI against the API on mixed tables (issue 30): where the gap between
``cli_draft_workflow.py --curated`` and ``synth_resolution.py`` comes from.

The two benchmarks differ in more than the entry point. This script fits the
estimator on **one** split (the public 15,000-row subsample of ``cli_draft_workflow``,
12,000 training rows, 3,000 held out) with each domain below and scores every fit on
the **same** user-side bins, so that one difference at a time is measured:

- ``curated``: the CLI's domain (``python -m skdp domain`` draft, edited by
  ``cli_draft_workflow.curate``); ``--cli`` also runs ``python -m skdp synthesize``
  with it and checks that the CLI's rows equal the estimator's (same seed);
- ``api``: ``synth_resolution.domain_of`` with ``synth_real_tables.TABLES``' bounds
  (the API benchmark's domain);
- single edits of ``curated`` listed in ``VARIANTS`` (one change each);
- any of them with other estimator parameters: ``curated:n_bins=8,resolution_share=0.1``.

Scores (``cli_draft_workflow``'s: 10 equal / 10 quantile bins of the holdout,
categories as they are, missing a cell of its own; mean 2-way TV, against the
holdout and against the training rows) beside the independent-columns DP baseline
at the same bins (``--sample-factor F``: both sample ``F`` times the training rows, to
measure the synthetic table's own sampling noise). ``--scoring``: which columns are
binned: ``curated`` (those with bounds in the curated domain: item 6's scoring) or
``union`` (those with bounds in either domain). ``--per-column`` prints each column's
mean 2-way TV over its pairs, the fit's against the baseline's::

    OMP_NUM_THREADS=1 PYTHONPATH=. nice -n 10 python benchmarks/cli_api_gap.py \\
        --tables weather --configs curated api --seeds 0 1 [--cli] [--per-column]
"""

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

from cli_draft_workflow import CURATED, SUBSAMPLE_SEED, _load, _read_csv_rows, _user_codes, \
    curate  # noqa: E402
from synth_real_tables import TABLES  # noqa: E402
from synth_resolution import domain_of, independent, marginal  # noqa: E402
import synth_resolution  # noqa: E402

EPSILON, DELTA = 1.0, 1e-6
PACKAGES = {item: package for item, (package, _) in CURATED.items()}

# one edit of the curated domain each: table -> {name: {column: entry or callable}}
VARIANTS = {
    "weather": {
        "day_hour_numeric": {"day": {"low": 1, "high": 31, "integer": True},
                             "hour": {"low": 0, "high": 23, "integer": True}},
        "api_bounds": {"wind_speed": {"low": 0, "high": 40}, "wind_gust": {"low": 0, "high": 50},
                       "precip": {"low": 0, "high": 1}, "pressure": {"low": 980, "high": 1045}},
    },
    "DoctorContacts": {
        "lc_categories": {"lc": "categories"},
        "mdu_0_20": {"mdu": {"low": 0, "high": 20, "integer": True}},
        # the draft's new flag followed: a public bound that clips the tail (99.6% of rows)
        "mdu_0_30": {"mdu": {"low": 0, "high": 30, "integer": True}},
        # the heavy-tailed columns' bounds kept, more equal bins where their rows are
        "heavy_bins": {"mdu": {"low": 0, "high": 80, "integer": True, "n_bins": 40},
                       "linc": {"low": 0, "high": 12, "n_bins": 30}},
    },
    "nassCDS": {},
}


def split(item, rows):
    df = _load(PACKAGES[item], item)
    order = np.random.default_rng(SUBSAMPLE_SEED).permutation(len(df))[:rows or None]
    cut = int(0.8 * len(order))
    return df, df.iloc[np.sort(order[:cut])], df.iloc[np.sort(order[cut:])]


def domains(item, train, out):
    """The curated domain (drafted by the CLI on the training rows, then edited) and the
    API benchmark's domain, on the curated domain's columns."""
    full = os.path.join(out, f"{item}.full.csv")
    draft = os.path.join(out, f"{item}.draft.json")
    train.to_csv(full, index=False)
    subprocess.run([sys.executable, "-m", "skdp", "domain", full, "-o", draft], check=True,
                   capture_output=True, env=dict(os.environ, PYTHONPATH=os.path.dirname(HERE)))
    with open(draft) as fh:
        cur = curate(json.load(fh), CURATED[item][1])
    header = list(cur)
    key = (PACKAGES[item], item)  # the API benchmark's domain, where it has the table
    api = domain_of(train[header], TABLES[key][0]) if key in TABLES else None
    return cur, api, header


def variant(cur, train, edits):
    dom = json.loads(json.dumps(cur))
    for col, entry in edits.items():
        if entry == "categories":
            vals = sorted(train[col].dropna().unique().tolist())
            dom[col] = {"categories": vals, "missing": cur[col].get("missing", False)}
        else:
            dom[col] = {**entry, "missing": cur[col].get("missing", False)}
    return dom


def baseline(R, cards, rng, size):
    """``synth_resolution.independent`` (the same release of the 1-way counts of ``R``)
    with ``size`` rows sampled."""
    sigma = (2 * len(cards)) ** 0.5 / synth_resolution.approx_dp_to_gdp(EPSILON, DELTA)
    cols = []
    for j, k in enumerate(cards):
        noisy = np.bincount(R[:, j], minlength=k) + rng.normal(0, sigma, k)
        p = np.clip(noisy, 0, None)
        p = p / p.sum() if p.sum() > 0 else np.full(k, 1.0 / k)
        cols.append(rng.choice(k, size=size, p=p))
    return np.column_stack(cols)


def fit_sample(train, dom, seed, params=None, size=None):
    from skdp.synthesizer import SaddlePointSynthesizer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SaddlePointSynthesizer(epsilon=EPSILON, delta=DELTA, domain=dom,
                                     random_state=seed, **(params or {})).fit(train)
    return est, est.sample(size or len(train))


def two_way(R, S, cards):
    d = R.shape[1]
    return {(i, j): 0.5 * np.abs(marginal(R, (i, j), cards) - marginal(S, (i, j), cards)).sum()
            for i in range(d) for j in range(i + 1, d)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", nargs="*", default=list(CURATED))
    ap.add_argument("--configs", nargs="*", default=["curated", "api"])
    ap.add_argument("--seeds", nargs="*", type=int, default=[0])
    ap.add_argument("--rows", type=int, default=15000)
    ap.add_argument("--scoring", nargs="*", default=["curated", "union"],
                    choices=["curated", "union"])
    ap.add_argument("--out", default="/tmp/cli_api_gap")
    ap.add_argument("--cli", action="store_true", help="check the CLI's rows (curated, seed)")
    ap.add_argument("--per-column", action="store_true")
    ap.add_argument("--without", nargs="*", default=[],
                    help="with --per-column: also the 2-way ratio without these columns' pairs")
    ap.add_argument("--sample-factor", type=int, default=1,
                    help="synthetic (and baseline) rows: this many times the training rows "
                         "(the sampling noise of the synthetic table itself)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    import pandas as pd

    for item in args.tables:
        _, train, hold = split(item, args.rows)
        cur, api, header = domains(item, train, args.out)
        train, hold = train[header], hold[header]
        src, hsrc = (os.path.join(args.out, f"{item}.{x}.csv") for x in ("train", "holdout"))
        train.to_csv(src, index=False)
        hold.to_csv(hsrc, index=False)
        tr, ho = _read_csv_rows(src), _read_csv_rows(hsrc)
        train_csv = pd.read_csv(src)  # the rows as the CLI reads them
        configs = {"curated": cur, **({"api": api} if api is not None else {})}
        configs.update({k: variant(cur, train_csv, e) for k, e in VARIANTS.get(item, {}).items()})
        scorings = {}  # scoring -> (numeric flags, {kind: (holdout, train, cards, baselines)})
        base_one = {}  # scoring -> kind -> reference -> the baselines' 1-way TV per column
        for scoring in args.scoring:
            numeric = ["low" in cur[c] or (scoring == "union" and "low" in api[c])
                       for c in header]
            bins = {}
            for kind in ("equal", "quantile"):
                (h, t), cards = _user_codes([ho, tr], numeric, kind, 10)
                base = [independent(t, cards, np.random.default_rng(s + 7))
                        if args.sample_factor == 1 else
                        baseline(t, cards, np.random.default_rng(s + 7),
                                 args.sample_factor * len(t)) for s in args.seeds]
                bins[kind] = (h, t, cards, {ref: [two_way(r, b, cards) for b in base]
                                            for ref, r in (("holdout", h), ("train", t))})
                base_one.setdefault(scoring, {})[kind] = {
                    ref: [one_way(r, b, cards) for b in base]
                    for ref, r in (("holdout", h), ("train", t))}
            scorings[scoring] = (numeric, bins)
        lines = {scoring: [] for scoring in scorings}
        for name in args.configs:
            base_name, _, extra = name.partition(":")  # e.g. curated:n_bins=8
            if base_name not in configs:
                continue
            dom, params = configs[base_name], _params(extra)
            agg = {scoring: [] for scoring in scorings}
            for si, seed in enumerate(args.seeds):
                t0 = time.time()
                est, syn = fit_sample(train_csv, dom, seed, params,
                                      args.sample_factor * len(train_csv))
                secs = time.time() - t0
                path = os.path.join(args.out, f"{item}.{name.replace(':', '.')}.s{seed}.csv")
                syn.to_csv(path, index=False)
                sy = _read_csv_rows(path)
                if args.cli and name == "curated":
                    check_cli(item, src, dom, seed, args.out, sy)
                for scoring, (numeric, bins) in scorings.items():
                    cells, ratios, per = [], [], {}
                    for ref in ("holdout", "train"):
                        for kind in ("equal", "quantile"):
                            base = bins[kind][3]
                            # coded with the synthetic rows: a category only they hold (a
                            # public code no real row has) is a cell of its own
                            (h, t, s), cards = _user_codes([ho, tr, sy], numeric, kind, 10)
                            r = h if ref == "holdout" else t
                            tw = two_way(r, s, cards)
                            v = np.mean(list(tw.values()))
                            b = np.mean(list(base[ref][si].values()))
                            cells.append(f"{v:.4f} ({v / b:.2f}x)")
                            ratios.append(v / b)
                            per[(ref, kind)] = (tw, base[ref][si], one_way(r, s, cards),
                                                base_one[scoring][kind][ref][si])
                    agg[scoring].append(ratios)
                    lines[scoring].append(f"| {name} | {seed} | " + " | ".join(cells) +
                                          f" | {secs:.0f} |")
                    if args.per_column:
                        lines[scoring].extend(per_column(header, numeric, per, args.without))
                print(f"<!-- {item} {name} seed {seed}: {secs:.0f} s -->", flush=True)
            if len(args.seeds) > 1:
                for scoring in scorings:
                    m = np.mean(agg[scoring], axis=0)
                    lines[scoring].append(f"| **{name} (mean of {len(args.seeds)})** | | " +
                                          " | ".join(f"({x:.2f}x)" for x in m) + " | |")
        for scoring, (numeric, _) in scorings.items():
            print(f"## {item}: {len(train)} / {len(hold)} rows, scoring {scoring} "
                  f"(binned: {[c for c, n in zip(header, numeric) if n]})")
            print("| config | seed | e10 vs holdout (x indep) | q10 vs holdout (x indep) | "
                  "e10 vs train (x) | q10 vs train (x) | s |")
            print("|---|---|---|---|---|---|---|")
            print("\n".join(lines[scoring]), flush=True)


def _params(text):
    """``key=value,key=value`` estimator parameters (numbers as numbers), or a JSON object
    (``{"solver_options": {"max_rounds": 104}}``)."""
    if text.startswith("{"):
        return json.loads(text)
    out = {}
    for part in filter(None, text.split(",")):
        key, value = part.split("=")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def one_way(R, S, cards):
    return [0.5 * np.abs(marginal(R, (j,), cards) - marginal(S, (j,), cards)).sum()
            for j in range(R.shape[1])]


def per_column(header, numeric, per, without=()):
    """Each column's mean 2-way TV over its pairs and its 1-way TV (fit / baseline), at each
    binning and reference; then the 2-way ratio over the pairs of the other columns."""
    out = ["    column: " + "  ".join(f"{ref[0]}-{kind[0]}10 2-way fit/base (x), 1-way fit/base"
                                     for ref, kind in per)]
    for j, name in enumerate(header):
        parts = []
        for tw, base, one, base1 in per.values():
            f = np.mean([v for (a, b), v in tw.items() if j in (a, b)])
            bb = np.mean([v for (a, b), v in base.items() if j in (a, b)])
            parts.append(f"{f:.3f}/{bb:.3f} ({f / bb:.2f}x), {one[j]:.3f}/{base1[j]:.3f}")
        out.append(f"    {name:<12}{'num' if numeric[j] else 'cat'} " + "  ".join(parts))
    drop = {header.index(c) for c in without if c in header}
    if drop:
        ratios = []
        for tw, base, _, _ in per.values():
            keep = [k for k in tw if not drop & set(k)]
            ratios.append(np.mean([tw[k] for k in keep]) / np.mean([base[k] for k in keep]))
        out.append(f"    without the pairs of {sorted(without)}: " +
                   "  ".join(f"{x:.2f}x" for x in ratios))
    return out


def check_cli(item, src, dom, seed, out, sy):
    """The CLI's rows with the curated domain and the same seed equal the estimator's."""
    edited = os.path.join(out, f"{item}.edited.json")
    with open(edited, "w") as fh:
        json.dump(dom, fh)
    cli_out = os.path.join(out, f"{item}.cli.s{seed}.csv")
    subprocess.run([sys.executable, "-m", "skdp", "synthesize", src, "-o", cli_out, "--domain",
                    edited, "--epsilon", str(EPSILON), "--delta", str(DELTA), "--seed",
                    str(seed), "--quiet"], check=True, capture_output=True,
                   env=dict(os.environ, PYTHONPATH=os.path.dirname(HERE)))
    cli = _read_csv_rows(cli_out)
    same = all(_same(a, b) for a, b in zip(cli.ravel(), sy.ravel())) and cli.shape == sy.shape
    print(f"<!-- {item} seed {seed}: CLI rows equal the estimator's: {same} -->", flush=True)


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    try:
        return abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(a)))
    except (TypeError, ValueError):
        return str(a) == str(b)


if __name__ == "__main__":
    main()
