"""Private measurement of the workload marginals: the only step of ``smd`` that reads the data.

As in private-pgm (McKenna et al. 2019, 2021), a synthesizer is a
*measurement*, the one private release, followed by an *estimation* that
fits a distribution to the noisy answers and never reads the data again
(post-processing): :func:`measure` is the first half, shared by every
estimator that works from noisy marginals (the dense mirror-prox one of
:mod:`~skdp.solvers.synth.smd`, a graphical model beside it).

Every workload marginal is measured once, all of them stacked into one
Gaussian release whose l2-sensitivity is
:func:`~skdp.solvers.synth.marginals.marginal_sensitivity` (``sqrt(2 M)``
under replace-one neighbours, ``sqrt(M)`` under add/remove, where the
release also records its replace-one sensitivity ``sqrt(2 M)`` for a
replace-one budget's conversion). The noise is
calibrated exactly: to ``mu``-GDP (``sigma = Delta / mu``, Dong–Roth–Su 2022
Thm 2.7) when the budget carries a GDP filter ``mu`` (the synthesizer's fits with
this solver are Gaussian only, so they are planned in GDP: ``mu`` is the exact GDP
budget of (epsilon, delta less the thresholds' delta), Cor. 2.13, or the share of its
``mu**2`` left after the domain and fine-grid releases, Cor. 3.3;
:mod:`skdp.privacy.gdp_plan`), else to ``rho``-zCDP (``sigma = Delta / sqrt(2 rho)``,
Bun–Steinke 2016 Prop. 1.6).
"""

import math

from ...privacy.ledger import gaussian_sigma
from .marginals import marginal_sensitivity, replace_one_sensitivity

__all__ = ["measure"]


def measure(problem, budget):
    """Gaussian measurement of every workload marginal (counts).

    Calibrated to ``budget.mu``-GDP when the budget carries a finite ``mu``,
    else to ``budget.rho``-zCDP (module docstring); charged, drawn and recorded
    by the budget (``gaussian_gdp`` or ``gaussian``).

    Parameters
    ----------
    problem : MarginalProblem
        The encoded table and its workload.
    budget : Budget
        The fit's budget (``rho``, ``mu`` and the release path).

    Returns
    -------
    answers : list of arrays
        The noisy answers as probabilities (per marginal).
    sigma : float
        The noise standard deviation in counts.
    n_est : float
        The ``n`` used to normalise: public under replace-one; the mean noisy
        total under add/remove (post-processing).
    """
    xp = budget.backend.xp
    counts = problem.counts(budget.backend)
    exact = xp.concat(problem.answer(counts, xp))
    sens = marginal_sensitivity(len(problem.marginals), problem.relation)
    mu = budget.mu
    # mu-GDP is mu**2 / 2-zCDP for a Gaussian (Dong–Roth–Su 2022 Thm 2.7): sigma = Delta / mu
    # (sqrt(2 (mu**2 / 2)) is mu exactly in floating point)
    rho = budget.rho if mu is None or math.isinf(mu) else mu * mu / 2.0
    sigma = gaussian_sigma(sens, rho)
    label = f"{len(problem.marginals)} workload marginals"
    replace = replace_one_sensitivity(sens, problem.relation)
    if mu is not None:  # mu-GDP (or not private: recorded without noise)
        noisy = budget.gaussian_gdp(exact, sens, sigma, label=label, replace_sensitivity=replace)
    else:
        noisy = budget.gaussian(exact, sens, sigma, label=label, replace_sensitivity=replace)
    parts, start = [], 0
    for k in range(len(problem.marginals)):
        c = problem.cells(k)
        parts.append(noisy[start:start + c])
        start += c
    if problem.relation == "replace_one":
        n_est = float(problem.n)
    else:
        n_est = max(1.0, float(sum(float(xp.sum(p)) for p in parts)) / len(parts))
    return [p / n_est for p in parts], sigma, n_est
