"""Solver-specific constructor parameters moved into ``solver_options`` (issue 29 item 3).

The old names keep working for one release: a value given warns ``FutureWarning`` naming the
new spelling and fits exactly as the new spelling does; both at once raise; the solvers'
specs accept the moved keys (and a solver that does not read one refuses it, as any
unknown option).
"""

import warnings

import numpy as np
import pytest

from skdp import BudgetAccountant, KLAdaptiveRegressor, PrivateMinimaxClassifier
from skdp import minimax, regression

rng = np.random.default_rng(0)
X = rng.normal(size=(300, 3)) / 3
y = np.clip(X @ np.array([1.0, -1.0, 0.5]), -1, 1)
y_class = (X[:, 0] > 0).astype(int)

ROBUST = dict(solver="fo_single_pass", loss="truncated_absolute")
CASES = [  # (estimator, old parameter, value, the key in solver_options, other parameters)
    (KLAdaptiveRegressor, "snr", 2.0, "snr", dict(max_iter=20)),
    (KLAdaptiveRegressor, "beta", 0.2, "beta", dict(max_iter=20)),
    (KLAdaptiveRegressor, "precondition", 0.0, "precondition", dict(max_iter=20)),
    (KLAdaptiveRegressor, "smoothness", 3.0, "smoothness", dict(solver="noisy_gd")),
    (KLAdaptiveRegressor, "smoothness", 3.0, "smoothness", dict(solver="srgd")),
    (KLAdaptiveRegressor, "goldstein_radius", 0.05, "radius", ROBUST),
    (PrivateMinimaxClassifier, "goldstein_radius", 0.05, "radius", dict(loss="ramp")),
]


def _fit(Estimator, **params):
    est = Estimator(random_state=0, accountant=BudgetAccountant(), **params)
    if Estimator is PrivateMinimaxClassifier:
        return est.fit(X, y_class, classes=[0, 1])
    return est.fit(X, y)


@pytest.mark.parametrize("Estimator, old, value, key, params", CASES)
def test_old_name_warns_and_fits_as_the_new_one(Estimator, old, value, key, params):
    with pytest.warns(FutureWarning, match=rf"solver_options=\{{'{key}': {value!r}\}}"):
        before = _fit(Estimator, **{old: value}, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        after = _fit(Estimator, solver_options={key: value}, **params)
    np.testing.assert_allclose(after.coef_, before.coef_, rtol=1e-12, atol=1e-12)
    assert getattr(after, old) == "deprecated"


@pytest.mark.parametrize("Estimator, old, value, key, params", CASES[:1] + CASES[-1:])
def test_both_spellings_raise(Estimator, old, value, key, params):
    with pytest.warns(FutureWarning), pytest.raises(ValueError, match="both"):
        _fit(Estimator, **{old: value}, solver_options={key: value}, **params)


def test_the_specs_read_the_moved_keys():
    specs = regression.SOLVER_SPECS
    for name in ("noisy_gd", "adaptive_gd", "stationary_gd", "dpsgd_poisson", "spider", "ppm"):
        assert {"smoothness", "precondition"} <= set(specs[name].option_names), name
    for name in ("adaptive_gd", "stationary_gd"):
        assert {"snr", "beta"} <= set(specs[name].option_names)
    for name in ("fo_single_pass", "zo_single_pass", "zo_multi_pass"):
        assert {"radius", "precondition"} <= set(specs[name].option_names)
        assert "radius" in minimax.SOLVER_SPECS[name].option_names
    with pytest.raises(ValueError, match="unknown option 'snr'"):
        specs["noisy_gd"].check_options({"snr": 2.0})
    with pytest.raises(ValueError, match="precondition"):
        specs["adaptive_gd"].check_options({"precondition": 1.0})  # a share below 1
