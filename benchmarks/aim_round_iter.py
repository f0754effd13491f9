"""aim's ``round_iter`` (estimation iterations per intermediate round) against utility.

On the validation tables of ``synth_validation.py`` (none a benchmark or reserved table):
``SaddlePointSynthesizer(solver='aim', solver_options=dict(round_iter=K))``, every other
option at its default; per fit one JSON line with the mean 2-way TV of ``sample()`` (as many
rows as the table) against the table, the mean workload error (``workload_error``: the
model's own 2-way marginals, no sampling noise), the rounds, the spent epsilon and the fit's
CPU seconds. Run one stream per ``K``::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/aim_round_iter.py --round-iter 50
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


def common_args(parser):
    """The arguments both this script and ``aim_oneway_split.py`` take."""
    parser.add_argument("--eps", type=float, nargs="*", default=[1.0, 5.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--tables", nargs="*", default=[f"{p}/{i}" for p, i in TABLES])


def run(args, solver, options, **labels):
    """Fit every table, epsilon and seed of ``args`` with ``solver`` and ``solver_options``;
    print one JSON line per fit (``labels`` added to it)."""
    warnings.simplefilter("ignore")
    for name in args.tables:
        X, cards = load(*name.split("/"))
        for eps in args.eps:
            for seed in range(args.first_seed, args.first_seed + args.seeds):
                c0 = time.process_time()
                est = SaddlePointSynthesizer(
                    epsilon=eps, delta=1e-6, solver=solver, solver_options=options,
                    domain={j: list(range(k)) for j, k in enumerate(cards)}, random_state=seed)
                est.fit(X)
                cpu = time.process_time() - c0
                Y = np.asarray(est.sample(), dtype=np.int64)
                mean_tv, max_tv = tv(X, Y, cards)
                werr = float(np.mean(list(est.workload_error(X).values())))
                print(json.dumps(dict(table=name, n=len(X), d=len(cards), epsilon=eps,
                                      seed=seed, solver=solver, **labels, tv=mean_tv,
                                      max_tv=max_tv, workload_error=werr, fit_cpu_s=cpu,
                                      rounds=est.solver_info_.get("rounds"),
                                      spent=est.privacy_spent_[0])), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round-iter", type=int, required=True)
    common_args(parser)
    args = parser.parse_args(argv)
    run(args, "aim", dict(round_iter=args.round_iter), round_iter=args.round_iter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
