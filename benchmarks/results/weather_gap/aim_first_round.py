"""A screen, not shipped: ``python aim_first_round.py FRACTION [weather_gap.py args]`` runs
``benchmarks/weather_gap.py`` with aim's first 1-way round at ``FRACTION`` of rho and the
rounds' schedule on the rest (the default: ``min(0.9 d / T, 1/2)`` of rho, then ``rho / T``
per round)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [ROOT, os.path.join(ROOT, "benchmarks")]
FRACTION = float(sys.argv.pop(1))

from skdp.solvers.synth import mst_aim  # noqa: E402


def _aim_start(problem, budget, options):
    T = options["max_rounds"] or 16 * problem.d
    share = options["measure_share"]
    rho_init = budget.rho * FRACTION
    rest = budget.rho - rho_init
    schedule = mst_aim._Schedule(budget.rho, (1.0 - share) * rest / T, share * rest / T, share)
    ones, sigma = mst_aim._measure_oneways(problem, budget, rho_init, "AIM: 1-way marginals",
                                           options["oneway_split"])
    return T, schedule, ones, sigma


mst_aim._aim_start = _aim_start
import weather_gap  # noqa: E402

weather_gap.main()
