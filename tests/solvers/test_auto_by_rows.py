"""Issue 31: ``solver='auto'`` switches to ``dpsgd_poisson`` by rows as well as by cells (the
rule is data of the solver specs), and the regressor's design keeps no clipped copy of X."""

import math

import numpy as np
import pytest

from skdp import KLAdaptiveRegressor, PrivateMinimaxClassifier
from skdp import minimax, regression
from skdp.model_selection import subsampled_steps
from skdp.privacy.clipping import clip_rows
from skdp.solvers.kl.models import Design
from skdp.solvers.shared.subsampling import (AUTO_ROWS_CLASSIFIER, AUTO_ROWS_REGRESSOR,
                                             AUTO_SUBSAMPLE)
from skdp.solvers.spec import AutoFrom, auto_by_size


# ------------------------------------------------------------------ the rule, in the specs
def test_the_thresholds_are_spec_data():
    assert regression.SOLVER_SPECS["dpsgd_poisson"].auto_from == AutoFrom(
        rows=AUTO_ROWS_REGRESSOR, size=AUTO_SUBSAMPLE)
    assert minimax.SOLVER_SPECS["dpsgd_poisson"].auto_from == AutoFrom(
        rows=AUTO_ROWS_CLASSIFIER, size=AUTO_SUBSAMPLE)
    assert (AUTO_ROWS_REGRESSOR, AUTO_ROWS_CLASSIFIER, AUTO_SUBSAMPLE) == (5e4, 1e5, 1e7)
    # only the subsampled solver is picked by shape
    for specs in (regression.SOLVER_SPECS, minimax.SOLVER_SPECS):
        assert [n for n, s in specs.items() if s.auto_from is not None] == ["dpsgd_poisson"]


def test_a_spec_without_the_fact_is_never_picked_by_shape():
    specs = {"gd": regression.SOLVER_SPECS["adaptive_gd"]}
    assert auto_by_size(specs, 10**9, 10**12) is None


@pytest.mark.parametrize("rows, d, expected", [
    (AUTO_ROWS_REGRESSOR - 1, 3, "adaptive_gd"),
    (AUTO_ROWS_REGRESSOR, 3, "dpsgd_poisson"),   # by rows (issue 31)
    (10**6, 3, "dpsgd_poisson"),                 # the 1e6 x 3 case
    (20_000, 500, "dpsgd_poisson"),              # by cells (issue 18, unchanged)
    (20_000, 499, "adaptive_gd"),
])
def test_the_regressor_rule(rows, d, expected):
    assert regression.resolve_solver("auto", None, None, True, size=rows * d,
                                     rows=rows) == expected


def test_the_regressor_rule_by_rows_keeps_its_other_facts():
    big = dict(size=3 * 10**6, rows=10**6)
    assert regression.resolve_solver("auto", None, None, False, **big) == "ppm"
    assert regression.resolve_solver("auto", 0.7, 2.0, True, **big) == "spider"
    assert regression.resolve_solver("auto", None, None, True, robust=True,
                                     **big) == "fo_single_pass"
    assert regression.resolve_solver("adaptive_gd", None, None, True, **big) == "adaptive_gd"


@pytest.mark.parametrize("rows, d, eps, expected", [
    (AUTO_ROWS_CLASSIFIER - 1, 3, 1.0, "noisy_gd"),
    (AUTO_ROWS_CLASSIFIER, 3, 1.0, "dpsgd_poisson"),
    (10**6, 3, 1.0, "dpsgd_poisson"),
    (10**6, 3, math.inf, "noisy_gd"),            # its exact fit
    (20_000, 500, 1.0, "dpsgd_poisson"),
    (20_000, 499, 1.0, "noisy_gd"),
])
def test_the_classifier_rule(rows, d, eps, expected):
    assert minimax.resolve_solver(rows, d, eps) == expected


def test_the_regressor_fit_takes_the_rule_from_its_shape():
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(AUTO_ROWS_REGRESSOR, 2))
    y = np.clip(X @ np.array([1.0, -1.0]), -1, 1)
    reg = KLAdaptiveRegressor(feature_bound=1.0, target_bound=1.0, random_state=0).fit(X, y)
    assert reg.solver_ == "ssp"  # the squared loss in memory, rows * mu >= 100 d**1.5
    weak = KLAdaptiveRegressor(epsilon=0.01, feature_bound=1.0, target_bound=1.0,
                               random_state=0).fit(X, y)  # rows * mu < 100 d**1.5
    assert weak.solver_ == "dpsgd_poisson"
    small = KLAdaptiveRegressor(feature_bound=1.0, target_bound=1.0, max_iter=5,
                                random_state=0).fit(X[:2000], y[:2000])
    assert small.solver_ == "adaptive_gd"
    # the MLP and a non-private fit are never switched by shape
    exact = KLAdaptiveRegressor(epsilon=math.inf, feature_bound=1.0, target_bound=1.0,
                                max_iter=5).fit(X, y)
    assert exact.solver_ == "adaptive_gd"


def test_the_search_plans_the_rows_rule():
    steps, only = subsampled_steps(KLAdaptiveRegressor(), AUTO_ROWS_REGRESSOR, 3)
    assert steps is not None and steps[1] == 100
    assert subsampled_steps(KLAdaptiveRegressor(), AUTO_ROWS_REGRESSOR - 1, 3)[0] is None
    assert subsampled_steps(PrivateMinimaxClassifier(), AUTO_ROWS_CLASSIFIER, 3)[0] is not None
    assert subsampled_steps(PrivateMinimaxClassifier(), AUTO_ROWS_CLASSIFIER - 1, 3)[0] is None


# ------------------------------------------------------------------ no clipped copy of X
def _rows_beyond(rng, n=400, d=5, dtype=np.float64):
    X = rng.normal(size=(n, d)) / 3
    X[::5] *= 6  # a fifth of the rows beyond the bound 1
    return X.astype(dtype)


@pytest.mark.parametrize("intercept", [None, 1.0])
@pytest.mark.parametrize("with_P", [False, True])
def test_the_design_with_clip_factors_is_the_clipped_design(intercept, with_P):
    rng = np.random.default_rng(1)
    X = _rows_beyond(rng)
    norms = np.linalg.norm(X, axis=1)
    scale = np.minimum(1.0, 1.0 / norms)
    p = X.shape[1] + (intercept is not None)
    A = rng.normal(size=(p, p))
    P = A @ A.T / p + np.eye(p) if with_P else None
    lazy = Design(X, intercept, P, np, scale)
    copy = Design(clip_rows(X, 1.0), intercept, P, np)
    w, W, u = rng.normal(size=p), rng.normal(size=(p, 3)), rng.normal(size=X.shape[0])
    np.testing.assert_allclose(lazy @ w, copy @ w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lazy @ W, copy @ W, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lazy.rmatmul(u), copy.rmatmul(u), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lazy.rmatmul(np.stack([u, 2 * u])),
                               copy.rmatmul(np.stack([u, 2 * u])), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lazy.row_sq_norms(), copy.row_sq_norms(), rtol=1e-12)
    np.testing.assert_allclose(lazy.second_moment(), copy.second_moment(), rtol=1e-12,
                               atol=1e-14)
    np.testing.assert_allclose(lazy.dense(), copy.dense(), rtol=1e-12, atol=1e-14)
    idx = np.array([0, 5, 7, 10])
    np.testing.assert_allclose(lazy.take(idx) @ w, copy.take(idx) @ w, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kw", [{}, {"solver": "dpsgd_poisson"}, {"solver": "noisy_gd"},
                                {"solver": "ppm"}, {"solver": "adassp"},
                                {"model": "mlp", "max_iter": 20},
                                {"solver": "adaptive_gd", "fit_intercept": False}])
def test_a_fit_on_rows_beyond_the_bound_equals_the_fit_on_their_clipped_copy(dtype, kw):
    rng = np.random.default_rng(2)
    X = _rows_beyond(rng, n=1500, dtype=dtype)
    y = np.clip(X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=X.shape[0]), -1, 1).astype(dtype)
    before = X.copy()
    make = lambda: KLAdaptiveRegressor(feature_bound=1.0, target_bound=1.0,  # noqa: E731
                                       random_state=4, **kw)
    lazy = make().fit(X, y)
    np.testing.assert_array_equal(X, before)  # the user's X is not written
    copy = make().fit(clip_rows(X, 1.0), y)
    tol = dict(rtol=2e-3, atol=2e-4) if dtype == np.float32 else dict(rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(lazy.predict(X[:100]), copy.predict(X[:100]), **tol)
    assert lazy.coef_.dtype == dtype

