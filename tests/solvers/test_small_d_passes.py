"""Issue 31, 1e6 x 3 (helper ``smalld2``): ``ssp``'s statistics and residuals at 3 columns read
``X`` in transposed blocks (equal to the products up to rounding), a Poisson sample's targets and
group indicators are looked up by its codes (the same numbers), and the classifier's row scan
hands its clip factors to the centring (one scan of ``X``, the same numbers). No timing here
(benchmarks/RESULTS.md, "1e6 x 3, the regressor's residual passes and the classifier's second
scan")."""

import numpy as np
import pytest

from _toy import rows_near_bound

from skdp import KLAdaptiveRegressor, PrivateMinimaxClassifier
from skdp import minimax as minimax_module
from skdp.privacy import clipping
from skdp.privacy.clipping import row_clip_factors
from skdp.solvers import suffstats
from skdp.solvers.kl.models import Design
from skdp.solvers.minimax.data import LinearData, class_targets, group_indicators


def _case(n, d, dtype, intercept, scaled, seed=0):
    rng = np.random.default_rng(seed)
    X = rows_near_bound(n, d, dtype, seed, every=7)
    scale = row_clip_factors(X, 1.0)[1] if scaled else None
    D = Design(X, intercept, None, np, scale)
    y = rng.uniform(-1, 1, n).astype(dtype)
    w = (rng.standard_normal(D.shape[1]) * 3).astype(dtype)
    return D, y, w


def _step(d, dtype):
    return max(1, suffstats.BLOCK_BYTES // (d * np.dtype(dtype).itemsize))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d", [1, 2, 3, 4])
@pytest.mark.parametrize("intercept", [None, 0.5])
@pytest.mark.parametrize("scaled", [False, True])
def test_small_d_residuals_are_the_expression_up_to_rounding(dtype, d, intercept, scaled):
    eps = np.finfo(dtype).eps
    for n in (0, 1, 5, _step(d, dtype) - 1, _step(d, dtype), 2 * _step(d, dtype) + 3):
        D, y, w = _case(n, d, dtype, intercept, scaled)
        expected = y - D @ w
        r = suffstats._residuals(y, D, w, np)
        assert r.dtype == expected.dtype and r.shape == (n,)
        # |x_i . w| <= ||w||_1 (rows of norm <= 3): a few roundings of that size apart
        np.testing.assert_allclose(r, expected, rtol=0, atol=16 * eps * (1 + np.abs(w).sum()))
        out = np.full(n, 7.0, dtype=dtype)
        assert suffstats._residuals(y, D, w, np, out=out) is out
        np.testing.assert_array_equal(out, r)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("intercept", [None, 0.5])
@pytest.mark.parametrize("scaled", [False, True])
def test_small_d_statistics_are_the_products_up_to_rounding(dtype, intercept, scaled):
    eps = np.finfo(dtype).eps
    for n in (0, 1, 5, _step(3, dtype) - 1, _step(3, dtype), 2 * _step(3, dtype) + 3):
        D, y, _ = _case(n, 3, dtype, intercept, scaled)
        G, b = suffstats._small_d_statistics(D, y)
        G0, b0 = suffstats._gram(D, np), D.rmatmul(y)
        for got, expected in ((G, G0), (b, b0)):
            assert got.dtype == expected.dtype and got.shape == expected.shape
            # sums of n terms of size <= 1 (rows of norm <= 1 after the factors; |y| <= 1)
            np.testing.assert_allclose(got, expected, rtol=0, atol=4 * eps * max(n, 1))
        np.testing.assert_array_equal(G, G.T)


def test_small_d_path_only_where_it_pays(monkeypatch):
    """C-contiguous X of 3 columns; F-ordered X and other widths keep the exact expression
    (bit for bit)."""
    calls = []
    real = suffstats._small_d_residuals
    monkeypatch.setattr(suffstats, "_small_d_residuals",
                        lambda *args: calls.append(args[1].d) or real(*args))
    for d, order, used in ((3, "C", True), (3, "F", False), (2, "C", False), (4, "C", False)):
        D, y, w = _case(5000, d, np.float64, 0.5, True)
        D = Design(np.asarray(D.X, order=order), 0.5, None, np, D.scale)
        calls.clear()
        r = suffstats._residuals(y, D, w, np)
        assert bool(calls) == used
        if not used:
            np.testing.assert_array_equal(r, y - D @ w)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ssp_fit_equals_the_row_kernel_fit_up_to_rounding(dtype, fit_intercept, monkeypatch):
    X = rows_near_bound(150_000, 3, dtype, seed=3, every=13)
    y = np.clip(X @ np.array([1.0, -1.0, 0.5], dtype=dtype) + 0.1, -1, 1).astype(dtype)

    def fit():
        return KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, fit_intercept=fit_intercept,
                                   solver="ssp", random_state=5).fit(X, y)

    new = fit()
    monkeypatch.setattr(suffstats, "BLOCKED_WIDTHS", frozenset())  # the row kernel (main's)
    old = fit()
    assert new.solver_ == old.solver_ == "ssp"
    rtol = 1e-9 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(new.coef_, old.coef_, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(new.intercept_, old.intercept_, rtol=rtol, atol=rtol)
    assert new.privacy_spent_ == old.privacy_spent_


# --- the classifier ---------------------------------------------------------------------------
@pytest.mark.parametrize("k, m", [(2, 2), (2, 3), (3, 3), (200, 200)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sample_codes_looked_up_are_the_functions_of_the_codes(k, m, dtype):
    rng = np.random.default_rng(1)
    n = 3000
    X = rows_near_bound(n, 3, dtype, seed=1)
    y = rng.integers(0, k, n)
    g = y if m == k else rng.integers(0, m, n)
    data = LinearData(X, y, g, k, m, 1.0, 1.0, np, clipped=True)
    idx = np.sort(rng.choice(n, 500, replace=False))
    part = data._rows(("targets", "onehot"), idx)
    expected_t = class_targets(y[idx], k, dtype)
    expected_o = group_indicators(g[idx], m, dtype)
    for got, expected in ((part["targets"], expected_t), (part["onehot"], expected_o)):
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


def _scans(monkeypatch):
    calls = []
    real = clipping._scan

    def spy(X, bound, xp, factors):
        calls.append(factors)
        return real(X, bound, xp, factors)

    monkeypatch.setattr(clipping, "_scan", spy)
    return calls


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("solver", ["dpsgd_poisson", "noisy_gd", "smd"])
def test_classifier_scans_x_once_and_fits_the_same(dtype, solver, monkeypatch):
    X = rows_near_bound(30_000, 3, dtype, seed=2, every=11)
    y = (X @ np.array([1.0, -1.0, 0.5], dtype=dtype) > 0).astype(np.int64)

    def fit():
        return PrivateMinimaxClassifier(epsilon=1.0, delta=1e-6, solver=solver, n_iter=20,
                                        random_state=3).fit(X, y, classes=[0, 1])

    calls = _scans(monkeypatch)
    new = fit()
    new_calls = list(calls)
    real = minimax_module.PrivateMinimaxClassifier._bounded_rows

    def no_factors(self, X, xp, batch):  # main's path: the design scans X again for them
        X, norms, clipped, _ = real(self, X, xp, batch)
        return X, norms, clipped, None

    monkeypatch.setattr(minimax_module.PrivateMinimaxClassifier, "_bounded_rows", no_factors)
    calls.clear()
    old = fit()
    assert new_calls[0] is True and len(new_calls) <= len(calls)
    if solver == "dpsgd_poisson":  # one scan in all: the centring reads the handed factors
        assert new_calls == [True] and calls == [True, True]
    np.testing.assert_array_equal(new.coef_, old.coef_)
    np.testing.assert_array_equal(new.intercept_, old.intercept_)
    assert repr(new.privacy_ledger_) == repr(old.privacy_ledger_)


def test_classifier_without_intercept_or_beyond_rows_makes_no_factors(monkeypatch):
    X = rows_near_bound(5000, 3, seed=4, every=None) * 0.5
    y = (X[:, 0] > 0).astype(np.int64)
    made = []
    real = minimax_module.PrivateMinimaxClassifier._bounded_rows
    monkeypatch.setattr(minimax_module.PrivateMinimaxClassifier, "_bounded_rows",
                        lambda self, X, xp, batch: made.append(real(self, X, xp, batch)[3])
                        or real(self, X, xp, batch))
    PrivateMinimaxClassifier(random_state=0).fit(X, y)  # within the bound
    PrivateMinimaxClassifier(fit_intercept=False, random_state=0).fit(X * 4, y)
    assert made == [None, None]


def test_handed_factors_are_read_once_then_dropped():
    X = rows_near_bound(2000, 3, seed=5, every=3)
    status, factors = row_clip_factors(X, 1.0)
    assert status is False
    y = (X[:, 0] > 0).astype(np.int64)
    data = LinearData(X, y, y, 2, 2, 1.0, 1.0, np, clipped=True, factors=factors)
    np.testing.assert_array_equal(data.clipped_sum(), factors @ X)
    assert data._made_factors is None
    np.testing.assert_array_equal(data.clipped_sum(), factors @ X)  # scanned again: the same
