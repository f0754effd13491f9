"""One fit template (issue 29 item 1): the base owns the sequence, the estimators the hooks.

:meth:`skdp._base.PrivateEstimator._fit` is the only ``_fit`` of the estimators; it takes
its steps in one order for every estimator, every input kind and every entry (``fit``,
``partial_fit``, a Dask stream's chunks), and opens the fit's one budget from the
calibration each estimator declares as a :class:`~skdp._base.BudgetPlan`, whose totals are
checked here against their closed forms.
"""

import math
import warnings

import numpy as np
import pytest

from skdp import (BudgetAccountant, KLAdaptiveRegressor, PrivateMinimaxClassifier,
                  SaddlePointSynthesizer)
from skdp import _backend, minimax, regression, synthesizer
from skdp._base import BudgetPlan, PrivateEstimator
from skdp.privacy.ledger import approx_dp_to_gdp, approx_dp_to_zcdp

ESTIMATORS = (KLAdaptiveRegressor, PrivateMinimaxClassifier, SaddlePointSynthesizer)
STEPS = ("_prepare", "_reserve", "_read_rows", "_budget_plan", "_open_budget", "_build_problem",
         "_dispatch", "_after_dispatch", "_check_published", "_charge",
         "_check_published")  # the last: _fit_atomically's, once the template returned

rng = np.random.default_rng(0)
X = rng.uniform(-0.5, 0.5, size=(200, 3))
y = np.clip(X @ np.array([1.0, -1.0, 0.5]), -1, 1)
y_class = (X[:, 0] > 0).astype(int)
X_table = rng.integers(0, 3, size=(200, 3))
DOMAIN = {0: [0, 1, 2], 1: [0, 1, 2], 2: [0, 1, 2]}


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_the_estimators_write_no_fit_sequence_of_their_own(cls):
    assert issubclass(cls, PrivateEstimator)
    for klass in cls.__mro__:
        if klass is not PrivateEstimator and "_fit" in vars(klass):
            pytest.fail(f"{klass.__name__} defines _fit: the template is the base's")
    for hook in ("_prepare", "_budget_plan", "_build_problem", "_after_dispatch",
                 "_read_arrays"):
        assert hook in vars(cls), f"{cls.__name__} lacks the hook {hook}"


def _recorded(est, monkeypatch):
    calls = []
    for name in dict.fromkeys(STEPS):
        method = getattr(est, name)

        def wrapped(*args, _name=name, _method=method, **kwargs):
            calls.append(_name)
            return _method(*args, **kwargs)

        monkeypatch.setattr(est, name, wrapped)
    return calls


FITS = {
    "regressor": lambda: (KLAdaptiveRegressor(max_iter=5, random_state=0), (X, y), {}),
    "regressor, stream": lambda: (KLAdaptiveRegressor(solver="srgd", random_state=0),
                                  (X, y), {}),
    "classifier": lambda: (PrivateMinimaxClassifier(n_iter=5, random_state=0), (X, y_class),
                           {"classes": [0, 1]}),
    "classifier, search": lambda: (PrivateMinimaxClassifier(search={"mean_runs": 2},
                                                            random_state=0),
                                   (X, y_class), {"classes": [0, 1]}),
    "synthesizer": lambda: (SaddlePointSynthesizer(domain=DOMAIN, n_iter=5, random_state=0),
                            (X_table,), {}),
}


@pytest.mark.parametrize("case", list(FITS))
def test_every_fit_takes_the_steps_in_one_order(case, monkeypatch):
    est, args, kwargs = FITS[case]()
    est.set_params(accountant=BudgetAccountant())
    calls = _recorded(est, monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(*args, **kwargs)
    assert tuple(calls) == STEPS


def test_partial_fit_takes_the_same_steps(monkeypatch):
    est = KLAdaptiveRegressor(solver="dpsgd", random_state=0, accountant=BudgetAccountant())
    calls = _recorded(est, monkeypatch)
    est.partial_fit(X[:100], y[:100])
    est.partial_fit(X[100:], y[100:])
    assert tuple(calls) == STEPS + STEPS


def test_the_reservation_is_counted_before_the_rows_are_read(monkeypatch):
    acc = BudgetAccountant(epsilon=10, delta=1e-3)
    est = PrivateMinimaxClassifier(n_iter=5, random_state=0, accountant=acc)
    read = est._read_rows
    seen = []

    def reading(*args, **kwargs):
        seen.append(acc.total()[0])
        return read(*args, **kwargs)

    monkeypatch.setattr(est, "_read_rows", reading)
    est.fit(X, y_class, classes=[0, 1])
    assert seen == [1.0]


EPS, DELTA = 1.0, 1e-6


def test_the_regressors_plans_match_their_closed_forms():
    mu = approx_dp_to_gdp(EPS, DELTA) * (1 - regression.GDP_SLACK)
    gaussian = regression.budget_plan("adaptive_gd")
    assert gaussian.rho(EPS, DELTA) == pytest.approx(mu * mu / 2, rel=1e-12)
    assert gaussian.mu(EPS, DELTA) is None and not gaussian.exclusive
    other = regression.budget_plan("stationary_gd")
    assert other.rho(EPS, DELTA) == pytest.approx(approx_dp_to_zcdp(EPS, DELTA), rel=1e-12)
    stream = regression.budget_plan("srgd")
    rho = approx_dp_to_zcdp(EPS, DELTA)
    assert stream.rho(EPS, DELTA) == pytest.approx(rho, rel=1e-12)
    assert stream.mu(EPS, DELTA) == pytest.approx(math.sqrt(2 * rho), rel=1e-8)
    assert stream.mu(EPS, DELTA) < math.sqrt(2 * rho)  # never above the zCDP image
    assert stream.exclusive


def test_the_classifiers_plan_is_exact_gdp():
    plan = minimax.FIT_BUDGET
    mu = approx_dp_to_gdp(EPS, DELTA)
    assert plan.mu(EPS, DELTA) == pytest.approx(mu, rel=1e-12)
    assert plan.rho(EPS, DELTA) == pytest.approx(mu * mu / 2, rel=1e-12)
    assert plan.gdp_only and plan.exclusive


def test_a_plan_at_a_smaller_delta_and_at_epsilon_inf():
    plan = BudgetPlan("zcdp", zcdp_delta=DELTA / 2, gdp_filter="exact")
    assert plan.rho(EPS, DELTA) == pytest.approx(approx_dp_to_zcdp(EPS, DELTA / 2), rel=1e-12)
    # the exact filter too: the Gaussian releases compose to (epsilon, delta - delta_t), so
    # that with the thresholds' delta_t the fit stays within (epsilon, delta)
    assert plan.mu(EPS, DELTA) == pytest.approx(approx_dp_to_gdp(EPS, DELTA / 2), rel=1e-12)
    assert plan.rho(math.inf, DELTA) == math.inf and plan.mu(math.inf, DELTA) == math.inf
    with pytest.raises(ValueError, match="currency"):
        BudgetPlan("rdp")
    with pytest.raises(ValueError, match="gdp_filter"):
        BudgetPlan(gdp_filter="loose")


@pytest.mark.parametrize("domain, exclusive, mu, currency", [
    # two-column mst releases Gaussians only: its fits are planned in GDP whatever comes
    # before its releases (issue 30: one GDP plan)
    ({0: [0, 1, 2], 1: [0, 1, 2]}, True, True, "gdp"),                     # no release before
    ({0: {"low": 0, "high": 3}, 1: [0, 1, 2]}, False, True, "gdp"),       # the fine grid's only
    ({0: {"low": 0, "high": 3}, 1: {"kind": "categorical"}}, False, True, "gdp"),  # a domain
])
def test_the_synthesizers_plan_follows_its_public_domain(domain, exclusive, mu, currency,
                                                         monkeypatch):
    est = SaddlePointSynthesizer(domain=domain, solver="mst", random_state=0,
                                 accountant=BudgetAccountant())
    plans = []
    plan_of = est._budget_plan
    monkeypatch.setattr(est, "_budget_plan", lambda run: plans.append(plan_of(run)) or plans[-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X_table[:, :2].astype(float))
    (plan,) = plans
    assert plan.currency == currency and plan.exclusive == exclusive
    assert (plan.gdp_filter == "exact") == mu


def test_is_numpy_is_defined_once_below_the_estimators():
    for module in (minimax, regression, synthesizer):
        assert not hasattr(module, "_is_numpy")
    assert _backend.is_numpy(np)
