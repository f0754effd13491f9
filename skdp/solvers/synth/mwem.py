"""MWEM for marginal workloads (Hardt, Ligett and McSherry 2012), in zCDP.

Each of ``T`` rounds (default: the number of columns, capped by the workload
size):

1. *select* the workload marginal whose counts the current synthetic
   histogram answers worst, by the exponential mechanism with score
   ``||M_k(D) - n M_k(x)||_1`` (sensitivity 2 under replace-one, the
   relation of HLM12 with public ``n``: one record moves one count out of a
   cell and into another);
2. *measure* it with the Gaussian mechanism (l2-sensitivity ``sqrt 2``);
3. *update* ``x`` by multiplicative weights on every measurement so far
   (``x <- x exp(Q_k^T (a_k - Q_k x) / 2)``, HLM12 Alg. 1, several passes).

The zCDP budget is split evenly over rounds and, within a round, evenly
between selection (``eps_sel = sqrt(8 rho_sel)``: the exponential mechanism
is bounded-range, Cesar–Rogers 2021) and measurement (Bun–Steinke Prop. 1.6),
as in HLM12's even split. The output is the last histogram, as in the
maintained implementations (smartnoise-synth, private-pgm's ``mwem+pgm``);
HLM12's average of the rounds' histograms keeps the near-uniform first rounds
and measured worse at the few rounds used here. Marginals are computed by reshape-and-sum, in the
backend's namespace. Both releases of a round go through the solver's
:class:`~skdp.privacy.budget.Budget` (:meth:`~skdp.privacy.budget.Budget.select`,
:meth:`~skdp.privacy.budget.Budget.gaussian`), which draws, records and charges
them together; with ``epsilon = inf`` they are the exact argmax and answer.
"""

import math

from ..spec import SolverResult
from .marginals import softmax

__all__ = ["solve_mwem"]

N_PASSES = 10


def solve_mwem(problem, budget, options):
    """MWEM (HLM12) over the workload marginals; see the module docstring.

    ``problem.n_iter`` rounds (default: the number of columns, capped by the
    workload size). ``options``: none. Returns the last histogram as ``solution``.
    """
    if problem.relation != "replace_one":
        raise ValueError("solver 'mwem' uses the public n of HLM12 (replace-one neighbours); "
                         "use neighbouring='replace_one'.")
    backend, progress = budget.backend, problem.progress
    xp = backend.xp
    M = len(problem.marginals)
    n_iter = problem.n_iter
    T = min(M, len(problem.shape)) if n_iter is None else max(1, int(n_iter))
    rho_round = budget.rho / T
    eps_sel = math.sqrt(8.0 * rho_round / 2.0)
    counts = problem.counts(backend)
    data = problem.answer(counts, xp)  # private; only touched through the mechanisms
    n = float(problem.n)
    log_x = xp.zeros_like(counts) - math.log(problem.size)
    log_x = log_x + problem.log_prior(xp, log_x)  # structural zeros: never any mass
    measured = []
    for t in range(T):
        x = softmax(log_x, xp)
        errors = xp.stack([xp.sum(xp.abs(d - n * q)) for d, q in zip(data, problem.answer(x, xp))])
        # eps_sel = sqrt(8 rho_round / 2): the selection costs rho_round / 2 (Cesar-Rogers)
        k = budget.select(errors, 2.0, rho_round / 2.0, label=f"MWEM round {t + 1}: select")
        noisy = budget.gaussian(data[k], math.sqrt(2.0),
                                budget.sigma(math.sqrt(2.0), rho_round / 2.0),
                                label=f"MWEM round {t + 1}: measure")
        measured.append((k, problem.clear_zeros(k, noisy, xp)))  # structural zeros: 0
        for _ in range(N_PASSES):
            for j, a in measured:
                x = softmax(log_x, xp)
                resid = a / n - problem.marginal(x, j, xp)
                log_x = log_x + 0.5 * problem.adjoint_one(j, resid, xp, log_x)
        if progress is not None:
            progress(t + 1, T, math.nan)
    return SolverResult(softmax(log_x, xp), T,
                        info=dict(select_epsilon=eps_sel, rounds=T, n_estimate=n))
