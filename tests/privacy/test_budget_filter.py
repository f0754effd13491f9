"""The budget's filter: every currency refuses an over-budget release before drawing.

:class:`skdp.privacy.budget.Budget` is the one release path of every solver
and estimator. These tests check that a release past the planned budget is
refused *before* any noise is drawn (the fit's generator and ledger are left
as they were), in each currency (GDP, zCDP, the ledger's (epsilon, delta),
002 Thm 3.5's filter, delta), that a release at half the calibrated noise is
refused, and that the GDP accounting equals the closed form: ``mu**2 = sum
mu_i**2`` (Dong–Roth–Su 2022, Cor. 3.3) and mu-GDP is (epsilon, delta)-DP
exactly at ``delta = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``
(Cor. 2.13), solved here independently of :mod:`skdp.privacy.ledger`.
"""

import math

import numpy as np
import pytest
from scipy import optimize, stats

from skdp._backend import Backend
from skdp.privacy.ledger import approx_dp_to_gdp
from skdp.privacy.budget import Budget

EPS, DELTA = 1.0, 1e-6


def _budget(mu=None, rho=None, *, epsilon=EPS, delta=DELTA, exclusive=True, seed=0):
    rho = mu * mu / 2.0 if rho is None else rho
    return Budget.for_fit(Backend.from_arrays(np.zeros(1), random_state=seed), epsilon, delta,
                          rho, mu=mu, exclusive=exclusive)


def _state(budget):
    """What a refused release must leave untouched: the generator's state and the ledger."""
    return (repr(budget.backend.rng.bit_generator.state), len(budget.recorded().entries))


def _closed_form_epsilon(mu, delta):
    """Dong–Roth–Su 2022 Cor. 2.13, inverted for epsilon with scipy's normal cdf."""
    def excess(eps):
        return (stats.norm.cdf(-eps / mu + mu / 2.0)
                - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2.0) - delta)
    return optimize.brentq(excess, 0.0, 100.0, xtol=1e-14, rtol=1e-14)


def test_over_budget_gdp_release_is_refused_before_drawing():
    budget = _budget(mu=0.5)
    before = _state(budget)
    with pytest.raises(RuntimeError, match="would overspend"):
        budget.gaussian_gdp(np.zeros(3), 1.0, 1.0, label="1-GDP in a 0.5-GDP budget")
    assert _state(budget) == before and budget.mu_spent == 0.0


def test_gdp_filter_admits_the_plan_and_refuses_one_more():
    budget = _budget(mu=1.0)
    for _ in range(4):  # four releases at mu / 2 each: sqrt(4 / 4) = 1
        budget.gaussian_gdp(np.zeros(2), 1.0, 2.0, label="quarter")
    assert budget.mu_spent == pytest.approx(1.0, rel=1e-12)
    before = _state(budget)
    with pytest.raises(RuntimeError, match="would overspend"):
        budget.gaussian_gdp(np.zeros(2), 1.0, 100.0, label="one more")
    assert _state(budget) == before


def test_halved_noise_is_refused():
    sigma = 1.0 / 0.5  # calibrated: sensitivity 1 at mu = 0.5
    budget = _budget(mu=0.5)
    before = _state(budget)
    with pytest.raises(RuntimeError, match="would overspend"):
        budget.gaussian_gdp(np.zeros(2), 1.0, sigma / 2.0, label="halved noise")
    with pytest.raises(RuntimeError, match="would overspend"):
        budget.gaussian_gdp_blocks([np.zeros(2), np.zeros(1)], 1.0, sigma / 2.0, label="halved")
    assert _state(budget) == before
    budget.gaussian_gdp(np.zeros(2), 1.0, sigma, label="calibrated")
    zcdp = _budget(rho=0.125)
    with pytest.raises(RuntimeError, match="would overspend"):
        zcdp.gaussian(np.zeros(2), 1.0, zcdp.sigma(1.0, 0.125) / 2.0, label="halved noise")


def test_gdp_accounting_equals_the_closed_form():
    budget = _budget(mu=approx_dp_to_gdp(EPS, DELTA))
    mus = [0.1, 0.05, 0.1]
    for mu_i in mus:
        budget.gaussian_gdp(np.zeros(2), 2.0, 2.0 / mu_i, label="step")
    part = budget.on_host().disjoint_gdp(0.15, label="batches")
    part(np.zeros(2), 3.0)
    part.close()
    mu = math.sqrt(sum(m * m for m in mus) + 0.15**2)  # Cor. 3.3
    assert budget.mu_spent == pytest.approx(mu, rel=1e-12)
    assert budget.spent == pytest.approx(mu * mu / 2.0, rel=1e-12)  # a Gaussian is mu**2/2-zCDP
    eps, method = budget.recorded().spent(DELTA)
    assert method == "gdp"
    assert eps == pytest.approx(_closed_form_epsilon(mu, DELTA), rel=1e-8)
    # the whole budget is (EPS, DELTA) exactly: its mu is Cor. 2.13 at (EPS, DELTA)
    assert _closed_form_epsilon(budget.mu, DELTA) == pytest.approx(EPS, rel=1e-8)


def test_gdp_needs_a_gdp_budget_of_gaussian_releases_only():
    with pytest.raises(RuntimeError, match="has no mu"):
        _budget(rho=0.5).gaussian_gdp(np.zeros(1), 1.0, 10.0, label="no mu")
    budget = _budget(mu=1.0)
    budget.exponential_batch(0.01, 1, label="one draw")
    before = _state(budget)
    with pytest.raises(RuntimeError, match="non-Gaussian"):
        budget.gaussian_gdp(np.zeros(1), 1.0, 10.0, label="after an exponential")
    assert _state(budget) == before


def test_on_host_view_and_shares_keep_their_filters():
    fit = _budget(mu=1.0)
    fit.on_host().gaussian_gdp(np.zeros(2), 1.0, 1.0 / 0.6, label="sizes")
    assert fit.mu_spent == pytest.approx(0.6)
    assert fit.mu_remaining == pytest.approx(0.8)
    solver = fit.share(0.32, mu=0.8, exclusive=True)
    solver.gaussian_gdp(np.zeros(2), 1.0, 1.0 / 0.8, label="the rest")
    with pytest.raises(RuntimeError, match="would overspend"):
        solver.gaussian_gdp(np.zeros(2), 1.0, 1e3, label="past the share")
    assert len(fit.recorded().entries) == 2  # one ledger for the fit


def test_disjoint_partition_is_charged_when_opened():
    budget = _budget(mu=0.5)
    budget.disjoint_gdp(0.4, label="epoch 1")
    before = _state(budget)
    with pytest.raises(RuntimeError, match="would overspend"):
        budget.disjoint_gdp(0.4, label="epoch 2")
    assert _state(budget) == before


def test_exponential_batch_past_epsilon_is_refused_before_drawing():
    budget = _budget(mu=approx_dp_to_gdp(EPS, DELTA))
    before = _state(budget)
    with pytest.raises(RuntimeError, match="would overspend"):
        budget.exponential_batch(0.5, 1000, label="too many draws")
    assert _state(budget) == before
    draws = budget.exponential_batch(0.01, 10, label="ten draws")
    assert int(draws.counts(10, np.array([0.5, 0.5])).sum()) == 10
    assert budget.recorded().spent(DELTA)[0] <= EPS
    shared = _budget(rho=2e-4, exclusive=False)  # zCDP: 10 x 0.01**2 / 8 fits, 1000 do not
    shared.exponential_batch(0.01, 10, label="bounded range")
    with pytest.raises(RuntimeError, match="would overspend"):
        shared.exponential_batch(0.01, 1000, label="past rho")


def test_exponential_filter_refuses_past_thm_3_5():
    tally = _budget(mu=1.0).exponential_filter(1.0, DELTA, label="vertices")
    steps = 0
    while tally.fits(0.05, 4):
        tally.charge(0.05, 4)
        steps += 1
    s = 4 * steps * 0.05**2
    assert math.sqrt(2 * math.log(1 / DELTA) * s) + s / 2 <= 1.0
    with pytest.raises(RuntimeError, match="would overspend"):
        tally.charge(0.05, 4)


def test_approx_dp_past_delta_is_refused():
    budget = _budget(rho=0.5)
    budget.approx_dp(0.0, DELTA / 2, label="threshold")
    with pytest.raises(RuntimeError, match="overspend delta"):
        budget.approx_dp(0.0, DELTA, label="threshold again")
    assert len(budget.recorded().entries) == 1


def test_not_private_gdp_records_without_noise():
    budget = _budget(mu=math.inf, epsilon=math.inf)
    value = np.arange(3.0)
    out = budget.gaussian_gdp(value, 1.0, 0.0, label="exact")
    assert out is value and math.isinf(budget.recorded().entries[0].mu)


def test_gdp_batch_is_charged_for_all_its_releases_when_opened():
    budget = _budget(mu=1.0)
    before = _state(budget)
    with pytest.raises(RuntimeError, match="would overspend"):
        budget.gaussian_gdp_batch(1.0, 1.0, 2, label="two 1-GDP steps")  # sqrt(2) > 1
    assert _state(budget) == before
    step = budget.gaussian_gdp_batch(1.0, 2.0, 4, label="four 0.5-GDP steps")  # sqrt(4)/2 = 1
    _ = [step(np.zeros(2)) for _ in range(4)]
    assert budget.mu_spent == pytest.approx(1.0, rel=1e-12)
    (entry,) = budget.recorded().entries
    assert entry.count == 4 and entry.mu == pytest.approx(0.5)
    with pytest.raises(RuntimeError, match="more than the 4 releases"):
        step(np.zeros(2))


def test_a_gdp_only_budget_refuses_non_gaussian_zcdp_releases_before_drawing():
    """The classifier's budgets hold rho = mu**2 / 2 only as GDP's image: a selection charged
    in zCDP there would compose to rho-zCDP, which is not (epsilon, delta) at the exact GDP mu;
    a Gaussian release charged in zCDP is exactly its GDP (Dong–Roth–Su Thm 2.7)."""
    mu = approx_dp_to_gdp(EPS, DELTA)
    budget = Budget.for_fit(Backend.from_arrays(np.zeros(1), random_state=0), EPS, DELTA,
                            mu * mu / 2.0, mu=mu, gdp_only=True)
    before = _state(budget)
    with pytest.raises(RuntimeError, match="GDP-only"):
        budget.select(np.zeros(3), 1.0, 1e-3, label="selection on a GDP budget")
    assert _state(budget) == before
    budget.gaussian(np.zeros(3), 1.0, 10.0, label="a Gaussian, charged in zCDP")
    assert budget.spent == pytest.approx(1.0 / 200.0, rel=1e-12)
    share = budget.share(1e-3, mu=0.1, gdp_only=True)
    with pytest.raises(RuntimeError, match="GDP-only"):
        share.select(np.zeros(3), 1.0, 1e-4, label="selection on a GDP share")
