"""skdp on the coded tables upstream AIM / MST were fitted on (issue 30, 2026-11-28).

Reads ``RUN/upstream/TABLE.npz`` (the 12,000 training rows coded at the 10 quantile bins of
the 3,000-row holdout, categories as their codes; written by ``cli_draft_workflow.py --curated
--out RUN --rows 15000``) and fits ``SaddlePointSynthesizer(epsilon, delta=1e-6,
domain={j: k_j})`` (the integer-code domain, the cardinalities upstream got) with each solver
and seed; scores mean 2-way TV against the holdout and the training rows, and the DP
independent baseline of ``cli_draft_workflow.py`` (seed 0: ``rng(7)``). With ``--upstream
DIR`` it scores upstream's saved rows too. One JSON line per fit::

    OMP_NUM_THREADS=1 PYTHONPATH=. nice -n 10 python \
        benchmarks/results/aim_upstream_mixed/skdp_coded.py --run /tmp/aimup/run \
        --solvers auto aim mst --seeds 0 1 2 3 4 5 6 7 --upstream /tmp/aimup/run/upstream_synth

``--solvers`` with no names and ``--upstream DIR --upstream-seeds 1 2 ...`` scores only
upstream's rows of those seeds.
"""
import argparse
import itertools
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(os.path.dirname(HERE)), os.path.dirname(HERE)]

from synth_resolution import independent, scores  # noqa: E402

from skdp import SaddlePointSynthesizer  # noqa: E402


def two_way(ref, syn, cards):
    return scores(ref, syn, cards, [])[0]


def line(**kw):
    print(json.dumps(kw), flush=True)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--run", default="/tmp/aimup/run")
    p.add_argument("--tables", nargs="*", default=["DoctorContacts", "nassCDS", "weather"])
    p.add_argument("--solvers", nargs="*", default=["auto", "aim", "mst"])
    p.add_argument("--seeds", type=int, nargs="*", default=list(range(8)))
    p.add_argument("--eps", type=float, default=1.0)
    p.add_argument("--upstream", default=None)
    p.add_argument("--upstream-seeds", type=int, nargs="*", default=[0])
    args = p.parse_args(argv)
    warnings.simplefilter("ignore")
    for table in args.tables:
        z = np.load(os.path.join(args.run, "upstream", f"{table}.npz"))
        train, hold, cards = z["codes"], z["holdout"], [int(k) for k in z["cards"]]
        base = independent(train, cards, np.random.default_rng(7))
        bh, bt = two_way(hold, base, cards), two_way(train, base, cards)
        line(table=table, method="DP indep", hold=bh, train=bt)
        for mech, seed in itertools.product(("mst", "aim"), args.upstream_seeds):
            path = os.path.join(args.upstream or "", f"{table}__{mech}-replace__eps{args.eps:g}"
                                f"__seed{seed}.npy")
            if args.upstream and os.path.exists(path):
                Y = np.load(path)
                h, t = two_way(hold, Y, cards), two_way(train, Y, cards)
                line(table=table, method=f"upstream {mech}", seed=seed, hold=h, train=t,
                     hold_x=h / bh, train_x=t / bt)
        for solver in args.solvers:
            for seed in args.seeds:
                c0 = time.process_time()
                est = SaddlePointSynthesizer(epsilon=args.eps, delta=1e-6, solver=solver,
                                             domain={j: k for j, k in enumerate(cards)},
                                             random_state=seed)
                est.fit(train)
                cpu = time.process_time() - c0
                Y = np.asarray(est.sample(len(train)), dtype=np.int64)
                h, t = two_way(hold, Y, cards), two_way(train, Y, cards)
                line(table=table, method=f"skdp {solver}", seed=seed, hold=h, train=t,
                     hold_x=h / bh, train_x=t / bt, fit_cpu_s=round(cpu, 2),
                     solver_=est.solver_, rounds=est.solver_info_.get("rounds"),
                     spent=list(est.privacy_spent_), shape=list(est.domain_shape_),
                     fine_grids=len(est.resolution_),
                     cliques=[list(c) for c in est.cliques_])

if __name__ == "__main__":
    main()
