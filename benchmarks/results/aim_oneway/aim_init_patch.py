"""A screen of RESULTS "a larger first 1-way share for aim" (not adopted): copied as
``sitecustomize.py`` into a folder on the CLI process's ``PYTHONPATH``, with ``AIM_INIT=f`` set,
it replaces ``mst_aim._aim_start`` so that ``aim``'s first 1-way release spends ``f`` of the
solver's budget (main: ``measure_share * d / T`` = 0.9 / 16); the rounds' budgets are main's,
so fewer rounds fit. Same filter, same total: still private, only the split differs. The
driver was ``../issue30_targets/cli_targets.py`` with the subprocess's ``PYTHONPATH`` extended
by that folder and its output file named by a ``TAG``; rows: ``init_*.md`` against
``main_5e59cc3.md``."""
import os
f = os.environ.get("AIM_INIT")
if f:
    from skdp.solvers.synth import mst_aim
    def _aim_start(problem, budget, options, _f=float(f)):
        T = options["max_rounds"] or 16 * problem.d
        share = options["measure_share"]
        rho_init = budget.rho * _f
        schedule = mst_aim._Schedule(budget.rho, (1.0 - share) * budget.rho / T,
                                     share * budget.rho / T, share)
        ones, sigma = mst_aim._measure_oneways(problem, budget, rho_init, "AIM: 1-way marginals",
                                               options["oneway_split"])
        return T, schedule, ones, sigma
    mst_aim._aim_start = _aim_start
