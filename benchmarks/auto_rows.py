"""Where should ``solver='auto'`` switch to ``dpsgd_poisson``? Rows subsampled from the suite's
large tables (issue 31).

Run: ``OMP_NUM_THREADS=1 python benchmarks/auto_rows.py [--tables flights Fertility]
[--rows 12500 25000 50000 100000] [--eps 0.5 1] [--seeds 2] [--out FILE.json]``
(``--load FILE.json ...``: tabulate saved runs).

The real-table suite (``benchmarks/real_tables.py``) has no table between 17k (CPS1988) and
153k (Fertility) training rows, where the choice between the full-pass solvers and the
subsampled one is made. This script takes a public, seeded random subset of ``m`` rows of
the **training** split of a large suite table (its encoding, scaling and bounds unchanged),
fits the estimator's full-pass ``auto`` solver (regressor: ``adaptive_gd``; classifier:
``noisy_gd``) and ``dpsgd_poisson`` at each epsilon (delta 1e-6) over ``--seeds`` noise seeds,
and scores both on the whole **validation** split (R^2; accuracy and worst-class accuracy).
Never on the test split, never on the reserved tables (``real_tables.py``'s docstring).
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import real_tables as rt  # noqa: E402

FULL = {"reg": "adaptive_gd", "clf": "noisy_gd"}
SUBSET_SEED = 31


def run(name, rows, eps_list, seeds):
    from skdp import KLAdaptiveRegressor, PrivateMinimaxClassifier

    spec = rt.TABLES[name]
    task = spec["task"]
    X, _, y, tr, ev = rt.table_data(name, spec, "validation")
    if task == "clf":
        classes = np.asarray(spec["classes"], dtype=object)
        target = y.astype(object)
        score = lambda pred: rt.class_scores(target[ev], pred, classes)  # noqa: E731
        make = lambda **kw: PrivateMinimaxClassifier(feature_bound=1.0, **kw)  # noqa: E731
        fit_kw = {"classes": classes}
    else:
        low, high = spec["target_bounds"]
        mid, half = (low + high) / 2, (high - low) / 2
        target = (np.clip(y, low, high) - mid) / half
        score = lambda pred: {"r2": rt.r2(y[ev], mid + half * pred)}  # noqa: E731
        make = lambda **kw: KLAdaptiveRegressor(feature_bound=1.0, target_bound=1.0,  # noqa: E731
                                                **kw)
        fit_kw = {}
    out = []
    perm = np.random.default_rng([SUBSET_SEED, len(tr)]).permutation(tr)
    for m in rows:
        if m > len(tr):
            continue
        sub = np.sort(perm[:m])
        Xs, ys = np.ascontiguousarray(X[sub]), target[sub]
        for eps in eps_list:
            for solver in (FULL[task], "dpsgd_poisson"):
                for seed in range(seeds):
                    est = make(epsilon=eps, delta=rt.DELTA, solver=solver, random_state=seed)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        start = time.process_time()
                        est.fit(Xs, ys, **fit_kw)
                        sec = time.process_time() - start
                    rec = dict(table=name, task=task, rows=m, d=int(X.shape[1]), eps=eps,
                               solver=solver, seed=seed, cpu_s=sec, **score(est.predict(X[ev])))
                    print(json.dumps(rec), flush=True)
                    out.append(rec)
    return out


def tabulate(records):
    keys = sorted({(r["table"], r["rows"], r["eps"]) for r in records})
    lines = ["| table | training rows | d | eps | full-pass score | dpsgd_poisson score "
             "| full-pass cpu s | dpsgd_poisson cpu s |", "|---|---|---|---|---|---|---|---|"]
    for table, rows, eps in keys:
        cells, secs, d = [], [], None
        for kind in ("full", "sub"):
            rs = [r for r in records if (r["table"], r["rows"], r["eps"]) == (table, rows, eps)
                  and (r["solver"] == "dpsgd_poisson") == (kind == "sub")]
            d = rs[0]["d"] if rs else d
            if not rs:
                cells.append("-")
                secs.append("-")
                continue
            if rs[0]["task"] == "reg":
                v = [r["r2"] for r in rs]
                cells.append(f"{np.mean(v):.3f} ± {np.std(v):.3f}")
            else:
                a, w = [r["acc"] for r in rs], [r["worst"] for r in rs]
                cells.append(f"{np.mean(a):.3f} / {np.mean(w):.3f} (worst sd {np.std(w):.3f})")
            secs.append(f"{np.mean([r['cpu_s'] for r in rs]):.2f}")
        lines.append(f"| {table} | {rows:,} | {d} | {eps:g} | {cells[0]} | {cells[1]} "
                     f"| {secs[0]} | {secs[1]} |")
    return "\n".join(lines)


def load_or_run(args, run_table):
    """The records of ``args.load`` (JSON lines), else ``run_table(name)`` over
    ``args.tables``, written to ``args.out`` when given."""
    records = []
    for path in args.load or []:
        with open(path) as fh:
            records += [json.loads(line) for line in fh if line.strip()]
    if not args.load:
        for name in args.tables:
            records += run_table(name)
        if args.out:
            with open(args.out, "w") as fh:
                fh.writelines(json.dumps(r) + "\n" for r in records)
    return records


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["flights", "Fertility"])
    parser.add_argument("--rows", nargs="+", type=int, default=[12_500, 25_000, 50_000, 100_000])
    parser.add_argument("--eps", nargs="+", type=float, default=[0.5, 1.0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--load", nargs="+")
    args = parser.parse_args(argv)
    for name in [] if args.load else args.tables:
        if name not in rt.TABLES or rt.TABLES[name]["task"] not in FULL:
            raise SystemExit(f"unknown table {name!r}")
    print(tabulate(load_or_run(args, lambda name: run(name, args.rows, args.eps, args.seeds))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
