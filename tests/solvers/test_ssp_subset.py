"""Issue 31: ssp's public subset for the residual quantile (Poisson sampling from the public
generator) and the shared column sums of the second moment (same values as ``sum``)."""

import numpy as np
import pytest

from skdp import KLAdaptiveRegressor
from skdp.privacy import quantile
from skdp.privacy.sampling import bernoulli_rows
from skdp.solvers import suffstats
from skdp.solvers.kl import models
from skdp.solvers.kl.models import second_moment_block

PRIVATE_QUANTILE = quantile.private_quantile
pytestmark = pytest.mark.filterwarnings("ignore::skdp.exceptions.PrivacyLeakWarning")


def test_subset_size_is_binomial():
    n, q, reps = 5000, 0.02, 3000
    rng = np.random.default_rng(0)
    sizes = np.array([bernoulli_rows(rng, n, q).size for _ in range(reps)])
    mean, var = n * q, n * q * (1 - q)
    assert abs(sizes.mean() - mean) < 5 * np.sqrt(var / reps)
    assert abs(sizes.var(ddof=1) / var - 1) < 5 * np.sqrt(2 / (reps - 1))


def test_subset_includes_each_row_with_probability_q():
    n, q, reps = 400, 0.1, 5000
    rng = np.random.default_rng(1)
    hits = np.zeros(n)
    for _ in range(reps):
        rows = bernoulli_rows(rng, n, q)
        assert np.all(np.diff(rows) > 0) and rows.min(initial=0) >= 0 and rows.max(initial=0) < n
        hits[rows] += 1
    z = (hits / reps - q) / np.sqrt(q * (1 - q) / reps)
    assert np.abs(z).max() < 5  # 400 rows, each |z| < 5 with probability 1 - 6e-7
    assert abs(np.mean(z ** 2) - 1) < 0.3  # a chi-square over 400 rows: sd about 0.07


def _ssp_subsets(monkeypatch, X, y, seed):
    """(n, q, rows) of each subset ssp draws, and the sizes of the quantile's inputs."""
    drawn, sizes = [], []

    def record(rng, n, q):
        rows = bernoulli_rows(rng, n, q)
        drawn.append((n, q, rows))
        return rows

    def sized(values, *args, **kw):
        sizes.append(int(values.shape[0]))
        return PRIVATE_QUANTILE(values, *args, **kw)

    monkeypatch.setattr(suffstats, "bernoulli_rows", record)
    monkeypatch.setattr(quantile, "private_quantile", sized)
    reg = KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, solver="ssp", random_state=seed)
    reg.fit(X, y)
    return drawn, sizes


def _table(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3)) * 0.4
    return X, np.clip(X @ np.array([1.0, -1.0, 0.5]) + 0.1 * rng.standard_normal(n), -1, 1)


def test_ssp_subset_is_poisson_and_independent_of_the_data(monkeypatch):
    n = suffstats.QUANTILE_ROWS + 30_000
    a, sizes_a = _ssp_subsets(monkeypatch, *_table(n, 2), seed=7)
    b, sizes_b = _ssp_subsets(monkeypatch, *_table(n, 3), seed=7)  # other data, same seed
    assert len(a) == len(b) == 1
    assert a[0][0] == n and a[0][1] == suffstats.QUANTILE_ROWS / n
    np.testing.assert_array_equal(a[0][2], b[0][2])
    assert sizes_a == sizes_b == [a[0][2].size]
    c, _ = _ssp_subsets(monkeypatch, *_table(n, 2), seed=8)
    assert not np.array_equal(a[0][2], c[0][2])


def test_ssp_reads_all_rows_up_to_quantile_rows(monkeypatch):
    drawn, sizes = _ssp_subsets(monkeypatch, *_table(60_000, 4), seed=1)
    assert drawn == [] and sizes == [60_000]


def _old_block(X, c, n):
    S = X.T @ X / n
    col = np.reshape(c * np.sum(X, axis=0) / n, (-1, 1))
    corner = np.full((1, 1), c * c * (X.shape[0] / n), dtype=S.dtype)
    return np.concatenate([np.concatenate([S, col], axis=1),
                           np.concatenate([col.T, corner], axis=1)], axis=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d", [1, 3, 12])
def test_second_moment_block_unchanged(dtype, d):
    X = np.random.default_rng(d).standard_normal((20_001, d)).astype(dtype)
    for A in (X, np.asfortranarray(X), X[::3]):
        got = second_moment_block({"X": A}, 0.7, 30_000)
        want = _old_block(A, 0.7, 30_000)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_kl_regressor_with_intercept_unchanged(monkeypatch):
    X, y = _table(5000, 5)

    def fit():
        return KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, random_state=3).fit(X, y)

    calls = []
    shared = models.column_sums
    monkeypatch.setattr(models, "column_sums", lambda A, xp: calls.append(1) or shared(A, xp))
    new = fit()
    assert calls  # the fit reads the second moment with the intercept column
    monkeypatch.setattr(models, "column_sums", lambda A, xp: xp.sum(A, axis=0))
    old = fit()
    np.testing.assert_array_equal(new.coef_, old.coef_)
    np.testing.assert_array_equal(np.asarray(new.intercept_), np.asarray(old.intercept_))
