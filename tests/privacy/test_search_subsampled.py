"""RDP of the Poisson-subsampled Gaussian (skdp.privacy.rdp) and the private search over
runs that take subsampled steps (issue 28: the search refused dpsgd_poisson runs)."""

import math
import warnings

import numpy as np
import pytest
from scipy import integrate

from skdp import BudgetAccountant, KLAdaptiveRegressor, PrivateMinimaxClassifier
from skdp.model_selection import (PrivateHyperparameterSearch, fit_rdp_bound, fit_rho_bound,
                                  subsampled_steps)
from skdp.privacy.ledger import PrivacyLedger
from skdp.privacy.rdp import RDP_ORDERS, ledger_rdp, rdp_to_delta, subsampled_gaussian_rdp
from skdp.privacy.repeat_and_select import (repeat_and_select_epsilon,
                                            repeat_and_select_epsilon_curve)

dpa = pytest.importorskip("dp_accounting")
from dp_accounting.rdp import RdpAccountant  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore:The set of classes:skdp.exceptions.PrivacyLeakWarning")

INTEGER_ORDERS = [2.0, 3.0, 4.0, 8.0, 16.0, 32.0, 64.0, 256.0]
GRID = [(1.0, 0.01, 10), (0.7, 0.1, 3), (2.0, 0.5, 1), (5.0, 0.001, 1000), (0.5, 0.02, 50),
        (1.5, 1.0, 2)]


@pytest.mark.parametrize("z, q, steps", GRID)
def test_add_remove_matches_dp_accounting_at_integer_orders(z, q, steps):
    """Mironov-Talwar-Zhang's binomial expansion, as dp-accounting's RdpAccountant with
    PoissonSampledDpEvent(GaussianDpEvent) (add/remove) computes it."""
    acc = RdpAccountant(INTEGER_ORDERS)
    acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)), steps)
    ours = subsampled_gaussian_rdp(z, q, INTEGER_ORDERS, steps, relation="add_remove")
    np.testing.assert_allclose(ours, np.array(acc._rdp), rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("z, q", [(1.0, 0.01), (2.0, 0.5), (0.5, 0.02)])
def test_fractional_orders_by_quadrature(z, q):
    """At fractional orders dp-accounting's series is an upper bound; ours is the exact
    integral (checked against scipy's adaptive quadrature) and never above it."""
    orders = [1.5, 2.5, 4.5]
    acc = RdpAccountant(orders)
    acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(z)), 1)
    ours = subsampled_gaussian_rdp(z, q, orders, relation="add_remove")
    assert np.all(ours <= np.array(acc._rdp) * (1 + 1e-9))
    c = 1.0 / z
    for a, value in zip(orders, ours):
        def moment(x, power):
            mix = (1 - q) + q * math.exp(c * x - c * c / 2)
            return math.exp(-x * x / 2) / math.sqrt(2 * math.pi) * mix**power
        both = [integrate.quad(moment, -60, 60, args=(p,), epsabs=0, epsrel=1e-12,
                               limit=400)[0] for p in (a, 1 - a)]
        assert value == pytest.approx(max(math.log(v) for v in both) / (a - 1), rel=1e-8)


@pytest.mark.parametrize("z, q", [(1.0, 0.01), (0.8, 0.2), (3.0, 0.05)])
def test_replace_one_by_quadrature(z, q):
    """The replace-one pair (1-q) N(0) + q N(-c) against (1-q) N(0) + q N(c), by scipy's
    adaptive quadrature; it is at least the add/remove curve and equals the Gaussian of
    sensitivity 2c at q = 1."""
    orders = [1.5, 2.0, 5.0, 16.0]
    ours = subsampled_gaussian_rdp(z, q, orders)
    c = 1.0 / z
    for a, value in zip(orders, ours):
        def f(x):
            log_p = np.logaddexp(math.log1p(-q), math.log(q) - c * x - c * c / 2)
            log_r = np.logaddexp(math.log1p(-q), math.log(q) + c * x - c * c / 2)
            return math.exp(-x * x / 2 + a * log_p + (1 - a) * log_r) / math.sqrt(2 * math.pi)
        exact = math.log(integrate.quad(f, -a * c - 40, a * c + 40, epsabs=0, epsrel=1e-12,
                                        limit=400)[0]) / (a - 1)
        assert value == pytest.approx(exact, rel=1e-8)
    assert np.all(ours >= subsampled_gaussian_rdp(z, q, orders, relation="add_remove") * 0.999)
    np.testing.assert_allclose(subsampled_gaussian_rdp(z, 1.0, orders),
                               2 * np.array(orders) * c * c)


def test_ledger_curve_adds_its_parts():
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, sigma=2.0)
    ledger.subsampled_gaussian(1.0, sigma=1.5, sampling_rate=0.1, count=7)
    ledger.zcdp(0.01, count=2)
    orders = np.array([2.0, 8.0])
    expected = (orders / 8 + subsampled_gaussian_rdp(1.5, 0.1, orders, steps=7)
                + 0.02 * orders)
    np.testing.assert_allclose(ledger_rdp(ledger.entries, orders), expected)
    ledger.approx(0.1, 1e-6)
    assert np.all(np.isinf(ledger_rdp(ledger.entries, orders)))


def test_rdp_to_delta_matches_zcdp():
    """A rho-zCDP curve converts as the CKS conversion of the zCDP code (on a grid: above)."""
    from skdp.privacy.ledger import zcdp_to_approx_dp
    orders = np.linspace(1.01, 200, 4000)
    delta = rdp_to_delta(orders, 0.05 * orders, zcdp_to_approx_dp(0.05, 1e-6))
    assert 1e-6 * 0.99 < delta < 1e-6 * 1.01


def test_curve_selection_matches_the_closed_form_on_a_zcdp_curve():
    orders = np.array(RDP_ORDERS)
    for rho, mean, eta in [(0.01, 10.0, 1.0), (0.05, 5.0, 0.0)]:
        exact = repeat_and_select_epsilon(rho, 1e-6, mean, eta)
        grid = repeat_and_select_epsilon_curve(orders, rho * orders, 1e-6, mean, eta)
        assert exact <= grid * (1 + 1e-9) and grid < exact * 1.1
    poisson = repeat_and_select_epsilon_curve(orders, 0.01 * orders, 1e-6, 5.0,
                                              distribution="poisson")
    assert repeat_and_select_epsilon(0.01, 1e-6, 5.0, distribution="poisson") <= poisson * 1.001


# -- the plan, from public parameters --------------------------------------------------
def test_plan_of_each_solver():
    reg = KLAdaptiveRegressor(delta=1e-6)
    assert subsampled_steps(reg, 1000, 5) == (None, True)
    assert subsampled_steps(reg, 10**6, 10) == ((0.04, 100), False)  # 'auto' at n d >= 1e7
    assert subsampled_steps(reg, 10**6, None)[0] == (0.04, 100)  # unknown width: planned
    forced = KLAdaptiveRegressor(solver="dpsgd_poisson", max_iter=20,
                                 solver_options={"sampling_rate": 0.1})
    assert subsampled_steps(forced, 10, 2) == ((0.1, 20), True)
    clf = PrivateMinimaxClassifier(delta=1e-6)
    assert subsampled_steps(clf, 1000, 5) == (None, True)
    assert subsampled_steps(clf, 10**6, 10)[0] is not None
    assert subsampled_steps(PrivateMinimaxClassifier(epsilon=math.inf, solver="dpsgd_poisson"),
                            100, 2) == (None, True)
    # 'auto' covers both solvers; a forced one only its own (one plan, shared by the tests)
    reg = KLAdaptiveRegressor(delta=1e-6, max_iter=10)
    plain = fit_rho_bound(reg) * np.array(RDP_ORDERS)
    assert np.all(fit_rdp_bound(reg, 10**6, 10) >= plain)
    assert np.all(fit_rdp_bound(reg, 1000, 5) == plain)


def _table(n=600, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    return X, np.clip(X @ np.linspace(1, -1, d), -1, 1)


def test_search_runs_dpsgd_poisson_end_to_end():
    X, y = _table()
    acc = BudgetAccountant(epsilon=10.0, delta=1e-5)
    search = PrivateHyperparameterSearch(
        KLAdaptiveRegressor(solver="dpsgd_poisson", max_iter=10, delta=1e-6),
        {"alpha": [0.01, 0.1]}, mean_runs=3, accountant=acc, refit=True,
        random_state=0).fit(X, y)
    eps, delta = search.privacy_spent_
    assert acc.total() == search.privacy_spent_ and 0 < eps < 10
    assert "RDP" in search.privacy_method_ and math.isnan(search.run_rho_)
    assert search.best_estimator_.solver_ == "dpsgd_poisson"
    assert set(search.run_rdp_) == set(RDP_ORDERS)
    # the plan bounds a fitted run's own ledger
    run = KLAdaptiveRegressor(solver="dpsgd_poisson", max_iter=10, delta=1e-6,
                              accountant=BudgetAccountant()).fit(X[:480], y[:480])
    assert np.all(ledger_rdp(run.privacy_ledger_.entries, RDP_ORDERS)
                  <= fit_rdp_bound(run, 480, 3) * (1 + 1e-9))


def test_search_runs_the_classifier_with_subsampled_steps():
    X, y = _table(500)
    search = PrivateHyperparameterSearch(
        PrivateMinimaxClassifier(solver="dpsgd_poisson", group_by=None, delta=1e-6),
        {"n_iter": [10]}, mean_runs=2, accountant=BudgetAccountant(),
        random_state=1).fit(X, (y > 0).astype(int), classes=[0, 1])
    assert search.best_estimator_ is not None and "RDP" in search.privacy_method_


def test_a_halved_noise_is_caught(monkeypatch):
    """A run whose noise is half what the search planned raises before anything is
    released: the search's plan is made at twice the calibrated noise multiplier, so the
    runs (calibrated as usual) spend above it at some order."""
    import skdp.model_selection as ms
    calibrated = ms.subsampled_noise_within
    monkeypatch.setattr(ms, "subsampled_noise_within", lambda *args: 2 * calibrated(*args))
    ms._subsampled_envelope.cache_clear()
    try:
        X, y = _table(300)
        search = PrivateHyperparameterSearch(
            KLAdaptiveRegressor(solver="dpsgd_poisson", max_iter=10, delta=1e-6),
            {"alpha": [0.1]}, mean_runs=2, accountant=BudgetAccountant(), random_state=0)
        with pytest.raises(RuntimeError, match="planned"):
            search.fit(X, y)
        assert not hasattr(search, "best_estimator_")
    finally:
        ms._subsampled_envelope.cache_clear()  # the doubled plan must not outlive the test


def test_the_check_catches_a_ledger_with_half_the_noise():
    """The per-run check itself: a ledger as a run with half the planned noise records it."""
    from skdp.model_selection import _ORDERS, _check_within_plan
    from skdp.privacy.ledger import subsampled_noise_within
    plan = fit_rdp_bound(KLAdaptiveRegressor(solver="dpsgd_poisson", max_iter=10, delta=1e-6),
                         300, 3, _ORDERS)
    z = subsampled_noise_within([], [], 0.4, 10, 1.0, 1e-6)
    ledger = PrivacyLedger()
    ledger.subsampled_gaussian(1.0, z, 0.4, count=10)
    _check_within_plan(ledger.entries, ("rdp", plan))  # as calibrated: within
    halved = PrivacyLedger()
    halved.subsampled_gaussian(1.0, z / 2, 0.4, count=10)
    with pytest.raises(RuntimeError, match="planned"):
        _check_within_plan(halved.entries, ("rdp", plan))


def test_a_run_with_halved_noise_is_refused(monkeypatch):
    """The solver itself calibrating half the noise: refused by the run's own ledger filter
    (or else by the search's check)."""
    import skdp.solvers.shared.subsampling as sub  # the calibration both dpsgd_poisson use
    calibrated = sub.subsampled_noise_within
    monkeypatch.setattr(sub, "subsampled_noise_within", lambda *args: calibrated(*args) / 2)
    X, y = _table(300)
    search = PrivateHyperparameterSearch(
        KLAdaptiveRegressor(solver="dpsgd_poisson", max_iter=10, delta=1e-6),
        {"alpha": [0.1]}, mean_runs=2, accountant=BudgetAccountant(), random_state=0)
    with pytest.raises(RuntimeError, match="overspend|planned"):
        search.fit(X, y)
    assert not hasattr(search, "best_estimator_")


def test_sampled_step_parameters_must_be_lists():
    from scipy import stats
    X, y = _table(100)
    search = PrivateHyperparameterSearch(
        KLAdaptiveRegressor(solver="dpsgd_poisson"), {"max_iter": stats.randint(5, 20)},
        accountant=BudgetAccountant())
    with pytest.raises(ValueError, match="lists"):
        search.fit(X, y)
    # without subsampled steps a distribution is fine (the zCDP bound does not depend on it)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PrivateHyperparameterSearch(KLAdaptiveRegressor(), {"max_iter": stats.randint(5, 20)},
                                    mean_runs=2, accountant=BudgetAccountant(),
                                    random_state=0).fit(X, y)
