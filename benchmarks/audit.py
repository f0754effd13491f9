"""Thorough privacy audit of every estimator and solver (skdp.audit).

Run: ``OMP_NUM_THREADS=1 python benchmarks/audit.py [--trials 1000] [--broken-trials 500]
[--eps 0.5 1 2 4] [--quick] [--out FILE.md]``.

For every (estimator, solver) of the registries (``skdp.minimax.SOLVER_SPECS``,
``skdp.regression.SOLVER_SPECS`` and the synthesizer's
solvers) and every claimed epsilon, :func:`skdp.audit.audit_estimator` fits
``--trials`` times on each of two neighbouring datasets (the default canary of
:func:`skdp.audit.make_canary`) and reports the epsilon lower bound at 95%
confidence (Clopper–Pearson, threshold chosen on 30% of the fits, the bound
counted on the other 70%).
The same audit with every noise source divided by 10
(:func:`skdp.audit.weakened_noise`, ``--broken-trials`` fits per side) shows
whether the audit has the power to catch such a bug.

Data and per-solver parameters are those of the tests (``tests/_audit_cases.py``:
``ESTIMATORS``, ``SOLVER_PARAMS``, with the reasons there): 40 rows; 3
features with the last one 0 for every row (the canary's direction), binary
classes 20/20 (public group sizes) or targets ``clip(x1 - x2, -1, 1)``; for the
synthesizer 3 columns of 3 categories on a public domain. delta = 1e-6. Pairs
the tests list in ``LOW_POWER`` (the broken variant not caught with the tests'
fits) are marked ``(low power)``.

Columns: ``eps_lb`` (the bound), its counts (TP/FP on the evaluation fits),
``mu_hat`` = (mean_in - mean_out) / pooled sd of the statistic, and
``eps(mu_hat)``: the epsilon of a ``mu_hat``-GDP mechanism at the same delta.
``mu_hat`` is a normal-approximation *estimate* of how much of the claimed
Gaussian-DP parameter ``mu_claim`` the statistic sees, not a bound (it can
exceed the claim by sampling error). ``max_lb`` is the largest bound the
audit can report with that many fits (a perfect test).
"""

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

from skdp.audit import audit_estimator, epsilon_lower_bound, weakened_noise
from skdp.privacy.ledger import approx_dp_to_gdp, gdp_to_approx_dp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from _audit_cases import LOW_POWER, PAIRS, make_case  # noqa: E402  (shared with the tests)

DELTA = 1e-6
SPLIT = 0.3


def cases():
    """``(estimator name, solver, estimator, X, y, low power)`` for every audited pair."""
    for name, solver in PAIRS:
        est, X, y = make_case(name, solver, 1.0)
        yield type(est).__name__, solver, est, X, y, (name, solver) in LOW_POWER


def mu_hat(result):
    sd = math.sqrt((np.var(result.scores_in) + np.var(result.scores_out)) / 2)
    return (np.mean(result.scores_in) - np.mean(result.scores_out)) / sd if sd > 0 else 0.0


def max_bound(trials):
    m = trials - int(round(SPLIT * trials))
    return epsilon_lower_bound(m, m, 0, m, DELTA)


def run(trials, broken_trials, epsilons, out):
    header = ("| estimator | solver | claimed eps | eps_lb | TP/FP | mu_claim | mu_hat | "
              "eps(mu_hat) | broken eps_lb | broken TP/FP | s/audit |")
    lines = [header, "|" + "---|" * 11]
    print(header, flush=True)
    for est_name, solver, est, X, y, low_power in cases():
        for eps in epsilons:
            est.set_params(epsilon=eps, delta=DELTA)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = audit_estimator(est, X, y, n_trials=trials, split=SPLIT, random_state=0)
                with weakened_noise(10.0):
                    bad = audit_estimator(est, X, y, n_trials=broken_trials, split=SPLIT,
                                          random_state=1)
            seconds = (time.perf_counter() - t0) / 2
            mh = mu_hat(res)
            eps_mh = gdp_to_approx_dp(mh, DELTA) if mh > 0 else 0.0
            line = (f"| {est_name} | {solver} | {eps:g} | {res.epsilon_lower_bound:.2f} | "
                    f"{res.true_positives}/{res.false_positives} | "
                    f"{approx_dp_to_gdp(eps, DELTA):.3f} | {mh:.3f} | {eps_mh:.2f} | "
                    f"{bad.epsilon_lower_bound:.2f}{' (caught)' if bad.violation else ''}"
                    f"{' (low power)' if low_power else ''} | "
                    f"{bad.true_positives}/{bad.false_positives} | {seconds:.1f} |")
            lines.append(line)
            print(line, flush=True)
    lines.append("")
    lines.append(f"Evaluation fits per side: {trials - int(round(SPLIT * trials))} (honest), "
                 f"{broken_trials - int(round(SPLIT * broken_trials))} (broken); largest "
                 f"reportable bound: {max_bound(trials):.2f} (honest), "
                 f"{max_bound(broken_trials):.2f} (broken).")
    if out:
        with open(out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000, help="fits per side (honest)")
    parser.add_argument("--broken-trials", type=int, default=500,
                        help="fits per side (noise divided by 10)")
    parser.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 2.0, 4.0])
    parser.add_argument("--quick", action="store_true", help="100 / 100 fits per side")
    parser.add_argument("--out", default=None, help="also write the table to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.trials = args.broken_trials = 100
    run(args.trials, args.broken_trials, args.eps, args.out)


if __name__ == "__main__":
    sys.exit(main())
