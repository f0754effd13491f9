"""Fixed costs at d = 3, second part (issue 31): the paths without (n,) arrays compute the
same numbers.

The row-bound check in blocks (``row_bound_status``), the clip factors in blocks
(``row_clip_factors``), ``LinearData`` with ``clipped`` given (norms and factors made when
read, the augmented norms in blocks, a sample's factors from its gathered rows), the
regressor's targets without copies, ``ssp``'s residuals in place, the label codes as a view,
and the calibration's trial spectra not kept: each against the computation it replaces, and
whole fits against the eager paths (the same process, so the same BLAS).
"""

import math

import numpy as np
import pytest

from _toy import rows_near_bound

from skdp import KLAdaptiveRegressor, PrivateMinimaxClassifier
from skdp import minimax as minimax_module
from skdp import regression as regression_module
from skdp.minimax import UNKNOWN_LABEL_MESSAGE, _label_codes
from skdp.privacy import clipping
from skdp.privacy.clipping import (clip_factors, clip_overflowing_rows, row_bound_status,
                                   row_clip_factors)
from skdp.privacy.ledger import PrivacyLedger, _calibrate
from skdp.regression import _clipped_targets
from skdp.solvers import suffstats
from skdp.solvers.kl.models import Design
from skdp.solvers.minimax import data as data_module
from skdp.solvers.minimax.data import BLOCK_NAMES, LinearData


def _rows(n=2000, d=3, dtype=np.float64, beyond=True, seed=0):
    return rows_near_bound(n, d, dtype, seed, every=11 if beyond else None)


def _eager_within(X, bound):
    """What the eager path decides: no row changed and every factor exactly 1."""
    X2, norms = clip_overflowing_rows(X, bound, np, return_norms=True)
    return X2 is X and bool(np.all(clip_factors(norms, bound, np) == 1))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the eager path's cast of 1e300
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bound", [1.0, 0.7, 0.1, 3.0, 1e300])
def test_row_bound_status_is_the_eager_decision(dtype, bound, monkeypatch):
    monkeypatch.setattr(clipping, "WITHIN_BLOCK", 64)  # several blocks
    rng = np.random.default_rng(1)
    for beyond in (False, True):
        X = _rows(500, 3, dtype, beyond)
        # rows at the bound exactly, an ulp below, an ulp above (in X's dtype)
        edge = np.nextafter(dtype(min(bound, float(np.finfo(dtype).max))), dtype(0))
        for value in (dtype(min(bound, float(np.finfo(dtype).max))), edge):
            Y = X * dtype(0.1 / max(bound, 1.0)) if bound < 1e300 else X.copy()
            Y[rng.integers(0, 500)] = np.array([value, 0, 0], dtype=dtype)
            assert (row_bound_status(Y, bound) is True) == _eager_within(Y, bound)
        assert (row_bound_status(X, bound) is True) == _eager_within(X, bound)
        assert row_bound_status(X, bound) is not None
        status, factors = row_clip_factors(X, bound)
        assert status == row_bound_status(X, bound) and (factors is None) == status
    huge = _rows(300, 3, dtype)
    huge[5] = np.finfo(dtype).max / 4
    assert row_bound_status(huge, 1.0) is None
    assert row_bound_status(np.zeros((0, 3), dtype=dtype), 1.0) is True


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d", [1, 3, 10, 33])
def test_row_clip_factors_in_blocks_equal_the_full_computation(dtype, d, monkeypatch):
    monkeypatch.setattr(clipping, "WITHIN_BLOCK", 97)
    X = _rows(1000, d, dtype)
    X[:300] *= 0.1  # the first blocks within the bound: their factors filled with 1
    full = clip_factors(clipping.row_norms(X, np), 1.0, np)
    status, got = row_clip_factors(X, 1.0)
    assert status is False and got.dtype == full.dtype
    np.testing.assert_array_equal(got, full)


def test_clipped_targets_no_copy_when_within():
    y = np.array([-0.0, 0.5, -1.0, 1.0])
    out = _clipped_targets(y, -1.0, 1.0, np)
    assert np.shares_memory(out, y) and not out.flags.writeable
    np.testing.assert_array_equal(out, np.clip(y, -1.0, 1.0))
    assert math.copysign(1.0, out[0]) == -1.0
    y = np.array([-2.0, 0.5, 3.0], dtype=np.float32)
    out = _clipped_targets(y, 0.0, 1.0, np)
    assert not np.shares_memory(out, y) and out.dtype == np.float32
    np.testing.assert_array_equal(out, np.clip(y, 0.0, 1.0))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("intercept", [None, 0.5])
@pytest.mark.parametrize("scaled", [False, True])
def test_ssp_residuals_in_place_are_the_expressions(dtype, intercept, scaled, monkeypatch):
    # the row kernel's path (d = 3 reads X in transposed blocks since smalld2, equal up to
    # rounding: tests/solvers/test_small_d_passes.py)
    monkeypatch.setattr(suffstats, "BLOCKED_WIDTHS", frozenset())
    rng = np.random.default_rng(2)
    X = _rows(700, 3, dtype)
    scale = row_clip_factors(X, 1.0)[1] if scaled else None
    D = Design(X, intercept, None, np, scale)
    y = rng.uniform(-1, 1, 700).astype(dtype)
    w = rng.standard_normal(D.shape[1]).astype(dtype)
    r = suffstats._residuals(y, D, w, np)
    expected = y - D @ w
    assert r.dtype == expected.dtype
    np.testing.assert_array_equal(r, expected)
    out = np.full(700, 7.0, dtype=dtype)  # into an own work array (issue 31, smalldreg)
    assert suffstats._residuals(y, D, w, np, out=out) is out
    np.testing.assert_array_equal(out, expected)
    clipped = suffstats._clip_own(r, 0.3, np)
    np.testing.assert_array_equal(clipped, np.clip(expected, -0.3, 0.3))
    expected_g = D.rmatmul(np.clip(expected, -0.3, 0.3))
    np.testing.assert_array_equal(suffstats._rmatmul_own(D, clipped, np), expected_g)


def _linear(X, y, clipped, center):
    data = LinearData(X, y, y, 2, 2, 1.0, 1.0, np, clipped=clipped)
    if center is not None:
        data = data.with_center(center)
    return data


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("beyond", [False, True])
@pytest.mark.parametrize("centred", [False, True])
def test_lazy_design_equals_the_eager_one(dtype, beyond, centred, monkeypatch):
    monkeypatch.setattr(data_module, "NORM_BLOCK", 128)
    monkeypatch.setattr(clipping, "WITHIN_BLOCK", 64)
    X = _rows(1500, 3, dtype, beyond)
    y = np.random.default_rng(3).integers(0, 2, 1500)
    center = np.full(3, 0.05, dtype=dtype) if centred else None
    eager = _linear(X, y, None, center)
    status = row_bound_status(X, 1.0)
    lazy = _linear(X, y, not status, center)
    assert lazy.clipped == eager.clipped
    assert "norms" not in lazy.__dict__ and "scale" not in lazy.__dict__
    np.testing.assert_array_equal(lazy.clipped_sum(), eager.clipped_sum())
    assert "scale" not in lazy.__dict__  # made for the product only
    idx = np.sort(np.random.default_rng(4).choice(1500, 300, replace=False))
    got, want = lazy._rows(BLOCK_NAMES, idx), eager._rows(BLOCK_NAMES, idx)
    assert "norms" not in lazy.__dict__ and "scale" not in lazy.__dict__
    for name in BLOCK_NAMES:
        if want[name] is None:
            assert got[name] is None
            continue
        assert got[name].dtype == want[name].dtype
        np.testing.assert_array_equal(got[name], want[name])
    np.testing.assert_array_equal(lazy.row_norm, eager.row_norm)
    np.testing.assert_array_equal(lazy.norms, eager.norms)  # made when read: the same
    np.testing.assert_array_equal(lazy.scale, eager.scale)
    W, b = np.ones((1, 3), dtype=dtype), np.zeros(1, dtype=dtype)
    np.testing.assert_array_equal(lazy.margins(W, b), eager.margins(W, b))
    sub_l, sub_e = lazy.subset(idx), eager.subset(idx)
    np.testing.assert_array_equal(sub_l.row_norm, sub_e.row_norm)


def test_label_codes_are_a_read_only_view():
    y = np.array([0, 1, 1, 0], dtype=np.intp)
    codes = _label_codes(np.array([0, 1]), y, UNKNOWN_LABEL_MESSAGE)
    assert np.shares_memory(codes, y) and not codes.flags.writeable
    np.testing.assert_array_equal(codes, y)
    shifted = _label_codes(np.array([1, 2]), y + 1, UNKNOWN_LABEL_MESSAGE)
    np.testing.assert_array_equal(shifted, y)
    with pytest.raises(ValueError, match="label"):
        _label_codes(np.array([0, 1]), np.array([0, 2]), UNKNOWN_LABEL_MESSAGE)


def test_calibration_unchanged():
    """The noise multiplier of the default 1e6-row classifier's steps (q = 0.016, T = 250,
    after the group sizes' release) is main's (the spectra of the trials are no longer kept,
    recomputed where they were read: the same numbers). Issue 31 (third part): the search
    starts at a coarse grid's root, so z moves within its tolerance (1e-9 in log s; the
    value also moved by 1.6e-9 between numpy 2.4 / scipy 1.17 and the versions it was taken
    with)."""
    ledger = PrivacyLedger()
    ledger.gaussian(1.4142, 30.0)
    z = _calibrate.__wrapped__(tuple(ledger.entries), (), 0.016, 250, 1.0, 1e-6)
    assert z == pytest.approx(2.1910847592375893, rel=1e-8)


def _fit_pair(monkeypatch, module, name, eager_value, make, X, y, **kw):
    lazy = make().fit(X, y, **kw)
    with monkeypatch.context() as m:
        m.setattr(module, name, lambda *a, **k: eager_value)  # the eager path
        eager = make().fit(X, y, **kw)
    return lazy, eager


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("beyond", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_classifier_fit_equals_the_eager_path(dtype, beyond, fit_intercept, monkeypatch):
    X = _rows(120_000, 3, dtype, beyond, seed=5)
    y = (X @ np.array([1.0, -1.0, 0.5], dtype=dtype) > 0).astype(np.int64)

    def make():
        return PrivateMinimaxClassifier(epsilon=1.0, delta=1e-6, fit_intercept=fit_intercept,
                                        random_state=3)

    lazy, eager = _fit_pair(monkeypatch, minimax_module, "row_bound_status", None, make, X,
                             y, classes=[0, 1])
    assert lazy.solver_ == "dpsgd_poisson"
    np.testing.assert_array_equal(lazy.coef_, eager.coef_)
    np.testing.assert_array_equal(lazy.intercept_, eager.intercept_)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("beyond", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_regressor_fit_equals_the_eager_path(dtype, beyond, fit_intercept, monkeypatch):
    X = _rows(120_000, 3, dtype, beyond, seed=6)
    y = np.clip(X @ np.array([1.0, -1.0, 0.5], dtype=dtype), -1, 1).astype(dtype)
    y[::50] *= 2.0  # targets beyond the bound: clipped (a copy)

    def make():
        return KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, fit_intercept=fit_intercept,
                                   random_state=3)

    lazy, eager = _fit_pair(monkeypatch, regression_module, "row_clip_factors", (None, None),
                             make, X, y)
    assert lazy.solver_ == "ssp"
    np.testing.assert_array_equal(lazy.coef_, eager.coef_)
    np.testing.assert_array_equal(np.asarray(lazy.intercept_), np.asarray(eager.intercept_))
