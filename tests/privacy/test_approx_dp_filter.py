"""``Budget.approx_dp`` against the fit's whole guarantee, not only its own delta.

An ``(epsilon_a, delta_a)``-DP release (a thresholded histogram's categories, a private
search) composes with the zCDP the fit reserves by basic composition (Dwork and Roth 2014,
Thm 3.16): the fit is ``(epsilon_a + zcdp_to_approx_dp(rho, delta - delta_a), delta)``-DP
(Bun and Steinke 2016 Prop. 1.3 for the zCDP part). Before, ``approx_dp`` only kept the
deltas within ``delta``, so a threshold could take ``delta`` whole while the zCDP part was
calibrated at ``delta / 2``, and its epsilon was not counted at all. These tests check
admission and refusal against that closed form, that a refused release leaves the
ledger and the generator as they were, that a budget whose zCDP is untouched is narrowed
to the closed form's ``approx_dp_to_zcdp(epsilon - epsilon_a, delta - delta_a)``, and
that fits with private categories stay within their (epsilon, delta).
"""

import math

import numpy as np
import pytest

from skdp._backend import Backend
from skdp.privacy.budget import Budget
from skdp.privacy.ledger import approx_dp_to_zcdp, zcdp_to_approx_dp

EPS, DELTA = 1.0, 1e-6


def _fit_budget(rho, epsilon=EPS, delta=DELTA):
    return Budget.for_fit(Backend.from_arrays(np.zeros(1), random_state=0), epsilon, delta,
                          rho, exclusive=False)


def _state(budget):
    return (repr(budget.backend.rng.bit_generator.state), len(budget.recorded().entries))


def _composed(rho, eps_a, delta_a, delta=DELTA):
    """The closed form: basic composition of the approx part and the zCDP part."""
    return eps_a + zcdp_to_approx_dp(rho, delta - delta_a)


def _domain_then_threshold(fit, rho_domain, delta_thr):
    """The synthesizer's private domains: a Gaussian release on a share, then the
    threshold's delta on the fit's budget."""
    share = fit.share(rho_domain, mu=math.sqrt(2 * rho_domain))
    share.gaussian_gdp(np.zeros(4), 1.0, 1.0 / math.sqrt(2 * rho_domain), label="domain")
    fit.approx_dp(0.0, delta_thr, label="category thresholding")


def test_threshold_at_the_planned_half_is_admitted():
    rho = approx_dp_to_zcdp(EPS, DELTA / 2)  # the zCDP part calibrated at delta / 2
    fit = _fit_budget(rho)
    _domain_then_threshold(fit, 0.1 * rho, DELTA / 2)
    assert math.isclose(_composed(rho, 0.0, DELTA / 2), EPS, rel_tol=1e-12)
    assert fit.recorded().spent(DELTA)[0] <= EPS * (1 + 1e-12)


@pytest.mark.parametrize("eps_a, delta_a", [(0.0, 0.6 * DELTA), (0.0, DELTA), (0.05, DELTA / 2),
                                            (1e-3, DELTA / 2)])
def test_threshold_past_the_composition_is_refused(eps_a, delta_a):
    """Each would have passed the old check (delta_a <= delta); composed with the reserved
    zCDP it exceeds epsilon (closed form), so it is refused before it is recorded."""
    rho = approx_dp_to_zcdp(EPS, DELTA / 2)
    assert _composed(rho, eps_a, delta_a) > EPS
    fit = _fit_budget(rho)
    share = fit.share(0.1 * rho, mu=math.sqrt(0.2 * rho))
    share.gaussian_gdp(np.zeros(4), 1.0, 1.0 / math.sqrt(0.2 * rho), label="domain")
    before = _state(fit)
    with pytest.raises(RuntimeError, match="would overspend"):
        fit.approx_dp(eps_a, delta_a, label="threshold")
    assert _state(fit) == before


def test_untouched_budget_is_narrowed_to_the_closed_form():
    """Nothing released and no share handed out: the zCDP filter is narrowed to what the
    approx part leaves, ``approx_dp_to_zcdp(epsilon - eps_a, delta - delta_a)``; a release
    past it is refused, one within it admitted, and the fit stays within (epsilon, delta)."""
    fit = _fit_budget(approx_dp_to_zcdp(EPS, DELTA))
    fit.approx_dp(0.4, DELTA / 2, label="search")
    cap = approx_dp_to_zcdp(EPS - 0.4, DELTA / 2)
    before = _state(fit)
    with pytest.raises(RuntimeError, match="would overspend"):
        fit.gaussian(np.zeros(2), 1.0, fit.sigma(1.0, cap * 1.001), label="too much")
    assert _state(fit) == before
    fit.gaussian(np.zeros(2), 1.0, fit.sigma(1.0, cap * 0.999), label="fits")
    assert fit.recorded().spent(DELTA)[0] <= EPS * (1 + 1e-12)
    assert _composed(cap, 0.4, DELTA / 2) == pytest.approx(EPS, rel=1e-12)


def test_a_whole_budget_approx_release_closes_the_zcdp_filter():
    """A private search records the fit's whole (epsilon_total <= epsilon, delta): no zCDP
    is left after it."""
    fit = _fit_budget(approx_dp_to_zcdp(EPS, DELTA))
    fit.approx_dp(0.9, DELTA, label="private search")
    with pytest.raises(RuntimeError, match="would overspend"):
        fit.gaussian(np.zeros(1), 1.0, fit.sigma(1.0, 1e-6), label="after")
    with pytest.raises(RuntimeError, match="would overspend"):
        fit.approx_dp(0.2, 0.0, label="more epsilon")


def test_after_a_release_there_is_no_narrowing():
    """Once the budget has spent zCDP itself, an approx release that does not fit beside
    its reservation is refused (the reservation may already have been relied on)."""
    fit = _fit_budget(approx_dp_to_zcdp(EPS, DELTA))
    fit.gaussian(np.zeros(1), 1.0, fit.sigma(1.0, 1e-3), label="first")
    with pytest.raises(RuntimeError, match="would overspend"):
        fit.approx_dp(0.0, DELTA / 10, label="threshold")


def test_not_private_records_as_before():
    fit = Budget.for_fit(Backend.from_arrays(np.zeros(1), random_state=0), math.inf, DELTA,
                         math.inf, exclusive=False)
    fit.approx_dp(0.0, DELTA, label="threshold")
    assert fit.recorded().entries[0].delta == DELTA


@pytest.mark.parametrize("solver", ["aim", "mst", "smd"])
def test_fits_with_private_categories_stay_within(solver):
    pd = pytest.importorskip("pandas")
    from skdp import BudgetAccountant, SaddlePointSynthesizer

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"c": rng.choice(list("abcde"), 1500), "x": rng.normal(size=1500)})
    est = SaddlePointSynthesizer(domain="private", solver=solver, random_state=0,
                                 accountant=BudgetAccountant()).fit(X)
    eps, method = est.privacy_ledger_.spent(1e-6)
    assert method.startswith("basic+") and eps <= 1.0 * (1 + 1e-12)
