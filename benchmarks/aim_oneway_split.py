"""aim's (or mst's) first 1-way measurements split equally or by the columns' cells (issue 30).

On the validation tables of ``synth_validation.py`` (none a benchmark or reserved table):
``SaddlePointSynthesizer(solver=S, solver_options=dict(oneway_split=SPLIT))``, every other
option at its default; per fit one JSON line with the mean 2-way TV of ``sample()`` against
the table and the mean workload error (the model's own 2-way marginals), as
``aim_round_iter.py`` reports them. One stream per split::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/aim_oneway_split.py --split cells
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synth_validation import TABLES, load  # noqa: E402
from synthesizer import tv  # noqa: E402

from skdp import SaddlePointSynthesizer  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["equal", "cells"], required=True)
    parser.add_argument("--solver", choices=["aim", "mst"], default="aim")
    parser.add_argument("--eps", type=float, nargs="*", default=[1.0, 5.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--tables", nargs="*", default=[f"{p}/{i}" for p, i in TABLES])
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    for name in args.tables:
        X, cards = load(*name.split("/"))
        for eps in args.eps:
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                c0 = time.process_time()
                est = SaddlePointSynthesizer(
                    epsilon=eps, delta=1e-6, solver=args.solver,
                    solver_options=dict(oneway_split=args.split),
                    domain={j: list(range(k)) for j, k in enumerate(cards)}, random_state=seed)
                est.fit(X)
                cpu = time.process_time() - c0
                mean_tv, _ = tv(X, np.asarray(est.sample(), dtype=np.int64), cards)
                werr = float(np.mean(list(est.workload_error(X).values())))
                print(json.dumps(dict(table=name, d=len(cards), epsilon=eps, seed=seed,
                                      solver=args.solver, split=args.split, tv=mean_tv,
                                      workload_error=werr, fit_cpu_s=cpu)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
