"""The classifier's private search inside ``fit`` (issue 31, item 2): ``search=`` of
:class:`~skdp.PrivateMinimaxClassifier`, :func:`skdp.model_selection.search_in_fit`.

Its ledger against the closed form of Papernot-Steinke 2022 Theorem 2 (zCDP runs, the free
order optimised: ``2 sqrt(rho L) - rho``; Canonne-Kamath-Steinke 2020 Prop. 12), a halved
noise caught by the accounting, the run guard, refusals before the budget is reserved, and
the audit (claim kept; noise / 10 caught) of the case registered in tests/_audit_cases.py.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification

from skdp import BudgetAccountant, PrivateMinimaxClassifier
from skdp.audit import audit_estimator, weakened_noise
from skdp.model_selection import (SEARCH_DEFAULTS, SEARCH_GRID, check_search, gdp_epsilon,
                                  search_run_rho)
from skdp.minimax import SOLVER_SPECS
from skdp.privacy.ledger import approx_dp_to_gdp
from skdp.privacy.repeat_and_select import (repeat_and_select_epsilon,
                                            truncated_negative_binomial_gamma)

from _audit_cases import FIT_PARAMS, search_case

X, Y = make_classification(n_samples=400, n_features=4, weights=[0.7], random_state=0)
X = X / 6


def _closed_form_epsilon(rho, delta, mean, eta):
    """PS22 Thm 2 for a rho-zCDP run, written out here, minimised on a dense order grid."""
    L = -math.log(truncated_negative_binomial_gamma(mean, eta))
    extra = 2 * math.sqrt(rho * L) - rho if L >= rho else L
    lam = 1 + np.geomspace(1e-3, 1e5, 200001)
    tau = rho * lam + (1 + eta) * extra + math.log(mean) / (lam - 1)
    eps = tau + np.log1p(-1 / lam) - (math.log(delta) + np.log(lam)) / (lam - 1)
    return float(eps.min())


def _fit(**kw):
    params = dict(epsilon=1.0, delta=1e-6, search={}, random_state=0)
    params.update(kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return PrivateMinimaxClassifier(**params).fit(X, Y, classes=[0, 1])


@pytest.mark.parametrize("epsilon, mean, eta", [(1.0, 3.0, 0.0), (0.5, 2.0, 1.0),
                                                (2.0, 5.0, 0.5)])
def test_ledger_is_the_closed_form(epsilon, mean, eta):
    acc = BudgetAccountant()
    m = _fit(epsilon=epsilon, accountant=acc, search={"mean_runs": mean, "eta": eta})
    (entry,) = m.privacy_ledger_.entries
    assert entry.kind == "approx" and entry.delta == 1e-6 and "Thm 2" in entry.label
    rho = search_run_rho(epsilon, 1e-6, mean, eta)
    closed = _closed_form_epsilon(rho, 1e-6, mean, eta)
    # the bisection spends the budget: the closed form at the run's rho is epsilon
    assert entry.epsilon == pytest.approx(closed, rel=1e-6)
    assert epsilon * (1 - 1e-6) <= entry.epsilon <= epsilon
    assert m.privacy_spent_ == (entry.epsilon, 1e-6)
    assert acc.total() == m.privacy_spent_
    # the run's fit is given the epsilon whose GDP mu has mu**2 / 2 = rho (all-Gaussian ledger)
    assert approx_dp_to_gdp(gdp_epsilon(rho, 1e-6), 1e-6) ** 2 / 2 == pytest.approx(rho, rel=1e-9)


def test_closed_form_against_dp_accounting():
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from dp_accounting.rdp import RdpAccountant

    rho = search_run_rho(1.0, 1e-6, 3.0, 0.0)
    orders = np.concatenate([np.linspace(1.01, 8, 300), np.geomspace(8, 5000, 300)])
    acc = RdpAccountant(orders=list(orders))
    acc.compose(dp_event.RepeatAndSelectDpEvent(dp_event.GaussianDpEvent(
        1 / math.sqrt(2 * rho)), 3.0, 0.0))
    assert acc.get_epsilon(1e-6) == pytest.approx(1.0, rel=2e-3)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 5.0])
def test_halved_noise_is_caught_by_the_accounting(epsilon):
    """Halving every noise sd of a run (fit and score) makes it 4 rho-zCDP: the same
    theorem then puts the search above the claim."""
    for mean, eta in [(3.0, 0.0), (10.0, 1.0)]:
        rho = search_run_rho(epsilon, 1e-6, mean, eta)
        assert repeat_and_select_epsilon(rho, 1e-6, mean, eta) <= epsilon
        assert repeat_and_select_epsilon(4 * rho, 1e-6, mean, eta) > 1.5 * epsilon


def test_a_run_above_its_rho_is_refused(monkeypatch):
    """The guard: a run whose ledger spends more than the planned rho stops the fit."""
    import skdp._search_in_fit as ms

    monkeypatch.setattr(ms, "gdp_epsilon", lambda rho, delta: 2.0)  # a run given too much
    acc = BudgetAccountant()
    with pytest.raises(RuntimeError, match="search run spent"):
        _fit(accountant=acc)


def test_released_model_is_a_run_of_the_grid():
    m = _fit(search={"grid": {"clip_ratio": [0.05, 0.2], "n_iter": [30]}})
    assert m.search_params_["clip_ratio"] in (0.05, 0.2) and m.search_params_["n_iter"] == 30
    assert m.n_iter_ == 30 and m.solver_ == "noisy_gd"
    assert isinstance(m.search_score_, float)
    assert m.coef_.shape == (1, 4) and m.score(X, Y) > 0.5
    # a run's accountant and seed stay inside the search
    assert m.accountant is None and m.random_state == 0 and m.search is not None


def test_defaults_and_checks():
    s = check_search({}, SOLVER_SPECS["noisy_gd"], ("n_iter",))
    assert len(s["grid"]) == len(SEARCH_GRID["clip_ratio"]) * len(SEARCH_GRID["step_scale"])
    assert {k: s[k] for k in SEARCH_DEFAULTS} == SEARCH_DEFAULTS
    for bad, match in [({"grid": {"alpha": [1]}}, "neither"), ({"mean_runs": 1}, "mean_runs"),
                       ({"grid": {"clip_ratio": [2.0]}}, "clip_ratio"), ({"x": 1}, "unknown"),
                       ({"scoring": "f1"}, "scoring"), ({"grid": {"n_iter": []}}, "non-empty")]:
        with pytest.raises(ValueError, match=match):
            check_search(bad, SOLVER_SPECS["noisy_gd"], ("n_iter",))


@pytest.mark.parametrize("kw", [dict(search={"grid": {"alpha": [1]}}), dict(epsilon=math.inf),
                                dict(solver="sgda"), dict(search={"mean_runs": 0.5})])
def test_refused_before_the_budget_is_reserved(kw):
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)
    with pytest.raises(ValueError):
        _fit(accountant=acc, **kw)
    assert acc.total() == (0.0, 0.0)


def test_same_seed_same_release():
    a, b = _fit(random_state=3), _fit(random_state=3)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)
    assert a.search_params_ == b.search_params_


def test_audit_keeps_the_claim():
    est, Xa, ya = search_case(2.0)
    res = audit_estimator(est, Xa, ya, n_trials=50, fit_params=FIT_PARAMS["minimax"],
                          random_state=0)
    assert res.epsilon_lower_bound <= 2.0, res.summary()


def test_audit_catches_the_broken_variant():
    """noise / 10 in every run (fit and score): caught (eps_lb 3.00 measured; ~20 s)."""
    est, Xa, ya = search_case(2.0)
    with warnings.catch_warnings(), weakened_noise(10.0):
        warnings.simplefilter("ignore")
        res = audit_estimator(est, Xa, ya, n_trials=200, split=0.3,
                              fit_params=FIT_PARAMS["minimax"], random_state=0)
    assert res.epsilon_lower_bound > 2.0, res.summary()
