"""Shared validation helpers and parameter errors."""

import math
import warnings

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from skdp import (BudgetAccountant, KLAdaptiveRegressor, PrivacyLeakWarning,
                  PrivateMinimaxClassifier, SaddlePointSynthesizer)
from skdp._validation import (check_bound, check_epsilon_delta, warn_large_delta, warn_privacy_leak)
from skdp.privacy.clipping import clip_rows
from skdp.model_selection import PrivateHyperparameterSearch
from _toy import NoisyMeanRegressor

ESTIMATORS = [NoisyMeanRegressor, KLAdaptiveRegressor, PrivateMinimaxClassifier,
              SaddlePointSynthesizer]


@pytest.mark.parametrize("eps", [0, -1, float("nan")])
def test_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        check_epsilon_delta(eps, 1e-6)


@pytest.mark.parametrize("delta", [-0.1, 1.0, 2.0, float("nan")])
def test_bad_delta(delta):
    with pytest.raises(ValueError, match=r"delta must be in \[0, 1\)"):
        check_epsilon_delta(1.0, delta)


def test_gaussian_needs_positive_delta():
    with pytest.raises(ValueError, match="delta must be > 0"):
        check_epsilon_delta(1.0, 0.0, need_delta=True)
    assert check_epsilon_delta(math.inf, 0.0, need_delta=True) == (math.inf, 0.0)
    with pytest.raises(TypeError, match="real numbers"):
        check_epsilon_delta("one", 1e-6)


@pytest.mark.parametrize("value", [0, -1, math.inf, math.nan])
def test_bad_bound(value):
    with pytest.raises(ValueError, match="feature_bound must be finite and > 0"):
        check_bound(value, "feature_bound")


def test_clip_rows_scales_long_rows_only():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    out = clip_rows(X, 1.0)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), [1.0, 0.5, 0.0])
    np.testing.assert_allclose(out[1], X[1])


def test_privacy_leak_warning():
    with pytest.warns(PrivacyLeakWarning, match="not differentially private"):
        warn_privacy_leak("The domain", "Pass domain=...")


@pytest.mark.parametrize("params, match", [
    ({"epsilon": 0}, "'epsilon' parameter"),
    ({"epsilon": -1.0}, "'epsilon' parameter"),
    ({"delta": 1.0}, "'delta' parameter"),
    ({"delta": -1e-9}, "'delta' parameter"),
])
def test_estimator_rejects_bad_budget(params, match):
    X, y = np.ones((5, 2)), np.ones(5)
    with pytest.raises(InvalidParameterError, match=match):
        NoisyMeanRegressor(**params).fit(X, y)


@pytest.mark.parametrize("bad, match", [(np.nan, "NaN"), (np.inf, "infinity")])
def test_estimator_rejects_non_finite_input(bad, match):
    X = np.ones((5, 2))
    X[2, 1] = bad
    with pytest.raises(ValueError, match=match):
        NoisyMeanRegressor().fit(X, np.ones(5))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
@pytest.mark.parametrize("param, value", [("epsilon", True), ("epsilon", np.True_),
                                          ("delta", False), ("delta", np.False_)])
def test_estimator_rejects_a_boolean_budget(Estimator, param, value):
    """True is not epsilon = 1, nor False delta = 0 (bool is an int to sklearn's Interval)."""
    X, y = np.ones((5, 2)), np.ones(5)
    with pytest.raises(InvalidParameterError, match=f"'{param}' parameter .*not a bool"):
        Estimator(**{param: value}).fit(X, y)


@pytest.mark.parametrize("epsilon, delta", [(True, 1e-6), (1.0, False)])
def test_check_epsilon_delta_rejects_booleans(epsilon, delta):
    with pytest.raises(TypeError, match="not a bool"):
        check_epsilon_delta(epsilon, delta)
    with pytest.raises(TypeError, match="not bools"):
        BudgetAccountant(epsilon, delta)


def test_warn_large_delta():
    with pytest.warns(PrivacyLeakWarning, match=r"delta=0.01 is not below 1/n = 1/100"):
        warn_large_delta(0.01, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_large_delta(0.0099, 100)
        warn_large_delta(0.0, 100)


def _budget_fits(delta):
    """One fit of each estimator (and the search) on 40 rows, at this delta."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)) / 3
    y = np.arange(40) % 2
    table = {0: ["x", "y"]}
    domain_X = np.array(["x", "y"], dtype=object)[y][:, None]
    fast = dict(delta=delta, accountant=BudgetAccountant(), random_state=0)
    yield lambda: KLAdaptiveRegressor(max_iter=2, solver_options={"precondition": 0},
                                      **fast).fit(X, y)
    yield lambda: PrivateMinimaxClassifier(n_iter=2, group_by=None, **fast).fit(
        X, y, classes=np.unique(y))
    yield lambda: SaddlePointSynthesizer(domain=table, n_iter=2, **fast).fit(domain_X)
    search = PrivateHyperparameterSearch(NoisyMeanRegressor(), {"epsilon": [1.0]}, mean_runs=2,
                                         **fast)
    yield lambda: search.fit(X, y)


@pytest.mark.parametrize("index", range(4))
def test_delta_not_below_one_over_n_warns(index):
    fit = list(_budget_fits(1 / 40))[index]
    with pytest.warns(PrivacyLeakWarning, match="not below 1/n = 1/40"):
        fit()
    fit = list(_budget_fits(1e-6))[index]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        fit()
