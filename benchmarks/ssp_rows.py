"""Can ``auto`` pick the sufficient-statistics solver ``ssp`` at large ``n``? Issue 31 item 1.

Run: ``OMP_NUM_THREADS=1 python benchmarks/ssp_rows.py [--tables flights] [--rows 25000 50000
100000 0] [--eps 0.5 1 5] [--seeds 5] [--solvers auto ssp adassp] [--out FILE.jsonl]``
(``--load FILE.jsonl ...``: tabulate saved runs; a row count 0 means the whole training split).

As ``benchmarks/auto_rows.py``: a public, seeded subset of ``m`` rows of the **training**
split of a suite regression table (encoding, scaling and bounds unchanged), each solver at
each epsilon (delta 1e-6) over ``--seeds`` noise seeds, R^2 on the whole **validation**
split (never the test split, never the reserved tables), process CPU seconds of the fit.
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
from auto_rows import SUBSET_SEED, load_or_run  # noqa: E402


def run(name, rows, eps_list, seeds, solvers):
    from skdp import BudgetAccountant, KLAdaptiveRegressor

    spec = rt.TABLES[name]
    if spec["task"] != "reg":
        raise SystemExit(f"{name!r} is not a regression table")
    X, _, y, tr, ev = rt.table_data(name, spec, "validation")
    low, high = spec["target_bounds"]
    mid, half = (low + high) / 2, (high - low) / 2
    target = (np.clip(y, low, high) - mid) / half
    perm = np.random.default_rng([SUBSET_SEED, len(tr)]).permutation(tr)
    out = []
    for m in rows:
        m = len(tr) if m in (0, None) or m > len(tr) else m
        sub = np.sort(perm[:m])
        Xs, ys = np.ascontiguousarray(X[sub]), target[sub]
        for eps in eps_list:
            for solver in solvers:
                for seed in range(seeds):
                    est = KLAdaptiveRegressor(epsilon=eps, delta=rt.DELTA, solver=solver,
                                              feature_bound=1.0, target_bound=1.0,
                                              random_state=seed, accountant=BudgetAccountant())
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        start = time.process_time()
                        est.fit(Xs, ys)
                        sec = time.process_time() - start
                    rec = dict(table=name, rows=m, d=int(X.shape[1]), eps=eps, solver=solver,
                               fitted=getattr(est, "solver_", solver), seed=seed, cpu_s=sec,
                               r2=rt.r2(y[ev], mid + half * est.predict(X[ev])))
                    print(json.dumps(rec), flush=True)
                    out.append(rec)
    return out


def tabulate(records):
    solvers = list(dict.fromkeys(r["solver"] for r in records))
    keys = sorted({(r["table"], r["rows"], r["eps"]) for r in records})
    head = " | ".join(f"{s} R^2 (cpu s)" for s in solvers)
    lines = [f"| table | training rows | d | eps | {head} |",
             "|---" * (4 + len(solvers)) + "|"]
    for table, rows, eps in keys:
        cells, d = [], None
        for s in solvers:
            rs = [r for r in records if (r["table"], r["rows"], r["eps"], r["solver"])
                  == (table, rows, eps, s)]
            if not rs:
                cells.append("-")
                continue
            d = rs[0]["d"]
            v = [r["r2"] for r in rs]
            cells.append(f"{np.mean(v):.4f} ± {np.std(v):.4f} "
                         f"({np.mean([r['cpu_s'] for r in rs]):.2f})")
        lines.append(f"| {table} | {rows:,} | {d} | {eps:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["flights"])
    parser.add_argument("--rows", nargs="+", type=int, default=[25_000, 50_000, 100_000, 0])
    parser.add_argument("--eps", nargs="+", type=float, default=[0.5, 1.0, 5.0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--solvers", nargs="+", default=["auto", "ssp", "adassp"])
    parser.add_argument("--out")
    parser.add_argument("--load", nargs="+")
    args = parser.parse_args(argv)
    print(tabulate(load_or_run(
        args, lambda name: run(name, args.rows, args.eps, args.seeds, args.solvers))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
