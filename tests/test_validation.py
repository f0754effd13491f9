"""Shared validation helpers and parameter errors."""

import math

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from skdp import PrivacyLeakWarning
from skdp._validation import check_bound, check_epsilon_delta, clip_rows, warn_privacy_leak
from _toy import NoisyMeanRegressor


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
