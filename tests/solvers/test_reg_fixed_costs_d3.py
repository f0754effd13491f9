"""The regressor's fixed costs at d = 3 (issue 31): the row check's factors without
``clip_factors``' temporaries, ``ssp``'s one work array (``y * scale`` for ``X^T y``, then
every residual written into it) and its column sums by ``einsum`` compute the same numbers as
the paths they replace.

Same process, same arrays, so the comparisons are exact.
"""


import numpy as np
import pytest

from _toy import rows_near_bound

from skdp import KLAdaptiveRegressor, PrivateMinimaxClassifier
from skdp.privacy import clipping
from skdp.privacy.clipping import clip_factors, row_clip_factors, row_norms
from skdp.solvers import suffstats
from skdp.solvers.kl import models
from skdp.solvers.shared.arrays import column_sums
from skdp.solvers.kl.models import Design


def _rows(n, d, dtype, seed=0):
    return rows_near_bound(n, d, dtype, seed, every=13, factor=2.5)


def _old_block_factors(sq, limit, out):
    out[...] = clip_factors(np.sqrt(sq), limit)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bound", [1.0, 0.7, 2.5, 1e-100, 1e100])
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # 0 / 0 at 1e-100 (float32)
def test_block_factors_are_clip_factors(dtype, bound, monkeypatch):
    monkeypatch.setattr(clipping, "WITHIN_BLOCK", 64)  # several blocks
    X = _rows(700, 3, dtype)
    if bound == 1e100 and dtype == np.float64:
        X[3] = np.array([1e120, 0, 0])  # beyond the bound only far out (a finite square)
    elif bound < 1e100:
        cast = np.asarray(bound, dtype=dtype)  # the bound in X's dtype (0 for 1e-100 in float32)
        X[10] = np.array([cast, 0, 0], dtype=dtype)  # at the bound
        X[11] = np.array([np.nextafter(cast, dtype(0)), 0, 0], dtype=dtype)  # an ulp below
        X[12] = np.array([np.nextafter(cast, dtype(np.inf)), 0, 0], dtype=dtype)  # an ulp above
    X[20] = 0.0
    status, got = row_clip_factors(X, bound)
    with np.errstate(invalid="ignore", divide="ignore"):
        want = clip_factors(row_norms(X), bound)  # 1e-100 is 0 in float32: 0 / 0 there
    if status is True:
        assert got is None and np.all(want == 1)
        return
    assert status is False and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_block_factors_at_a_zero_limit_are_clip_factors_own():
    sq = np.array([0.0, 4.0, 0.25], dtype=np.float32)
    out = np.empty(3, dtype=np.float32)
    with np.errstate(invalid="ignore"):
        clipping._block_factors(sq.copy(), 0.0, out)
        want = clip_factors(np.sqrt(sq), 0.0)
    np.testing.assert_array_equal(out, want)  # nan, 0, 0: not 1 for the zero row


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("intercept", [None, 0.5])
def test_targets_product_in_the_work_array_is_rmatmul(dtype, intercept):
    X = _rows(900, 3, dtype)
    y = np.random.default_rng(1).uniform(-1, 1, 900).astype(dtype)
    for scale in (None, row_clip_factors(X, 1.0)[1]):
        D = Design(X, intercept, None, np, scale)
        work = suffstats._work_array(D, y)
        assert (work is None) == (scale is None)
        got = suffstats._rmatmul_targets(D, y, work, np)
        np.testing.assert_array_equal(got, D.rmatmul(y))
        assert got.dtype == D.rmatmul(y).dtype
        if work is not None:
            np.testing.assert_array_equal(work, y * scale)


def _fits(monkeypatch, make, X, y, **kw):
    """The fit as it is, then with the replaced paths (no work array, a fresh array for every
    residual, the factors through clip_factors)."""
    new = make().fit(X, y, **kw)
    residuals = suffstats._residuals
    monkeypatch.setattr(suffstats, "_work_array", lambda D, y: None)
    monkeypatch.setattr(suffstats, "_residuals", lambda y, D, w, xp, out=None:
                        residuals(y, D, w, xp))
    monkeypatch.setattr(clipping, "_block_factors", _old_block_factors)
    monkeypatch.setattr(suffstats, "column_sums", lambda X, xp: xp.sum(X, axis=0))
    monkeypatch.setattr(models, "column_sums", lambda X, xp: xp.sum(X, axis=0))
    old = make().fit(X, y, **kw)
    return new, old


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("refine_steps", [0, 2, 3])
@pytest.mark.parametrize("within", [False, True])
def test_regressor_fit_and_ledger_unchanged(dtype, fit_intercept, refine_steps, within,
                                            monkeypatch):
    X = _rows(120_000, 3, dtype, seed=4) * dtype(0.3 if within else 1.0)  # no factors: within
    y = np.clip(X @ np.array([1.0, -1.0, 0.5], dtype=dtype), -1, 1).astype(dtype)

    def make():
        return KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, fit_intercept=fit_intercept,
                                   solver_options={"refine_steps": refine_steps},
                                   random_state=5)

    new, old = _fits(monkeypatch, make, X, y)
    assert new.solver_ == "ssp" and new.n_iter_ == 1 + refine_steps
    np.testing.assert_array_equal(new.coef_, old.coef_)
    np.testing.assert_array_equal(np.asarray(new.intercept_), np.asarray(old.intercept_))
    assert repr(new.privacy_ledger_) == repr(old.privacy_ledger_)
    assert new.privacy_spent_ == old.privacy_spent_


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_classifier_fit_unchanged(dtype, monkeypatch):
    X = _rows(60_000, 3, dtype, seed=6)
    y = (X @ np.array([1.0, -1.0, 0.5], dtype=dtype) > 0).astype(np.int64)

    def make():
        return PrivateMinimaxClassifier(epsilon=1.0, delta=1e-6, random_state=3)

    new, old = _fits(monkeypatch, make, X, y, classes=[0, 1])
    np.testing.assert_array_equal(new.coef_, old.coef_)
    np.testing.assert_array_equal(new.intercept_, old.intercept_)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d", [1, 2, 3, 10, 33, 100])
def test_column_sums_are_sum(dtype, d):
    rng = np.random.default_rng(d)
    for n in (0, 1, 9, 129, 8193, 50_000):
        X = (rng.standard_normal((n, d)) * 10.0 ** rng.integers(-3, 3, (n, d))).astype(dtype)
        for A in (X, np.asfortranarray(X), X[::2]):
            got, want = column_sums(A, np), np.sum(A, axis=0)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
