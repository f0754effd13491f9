"""The preconditioner's row-norm bound (issue 31, d = 1,000): the subsampled solver's batches
clip with the exact norms of ``[x, c] P`` where the clip depends on them, and with a cheap
upper bound elsewhere; the released values and the ledger are those of the exact norms."""

import math

import numpy as np
import pytest

import skdp.regression as regression
from skdp import KLAdaptiveRegressor
from skdp._backend import Backend
from skdp.privacy.budget import Budget
from skdp.privacy.clipping import clip_factors
from skdp.privacy.ledger import PrivacyLedger
from skdp.privacy.release import Release
from skdp.solvers.kl import preconditioner, problem
from skdp.solvers.kl.models import Design, LinearModel
from skdp.solvers.kl.preconditioner import NormBound, private_preconditioner
from skdp.solvers.losses.regression import make_loss


@pytest.fixture(autouse=True)
def _small_p(monkeypatch):
    """The bound on the small designs of these tests (by default only from 64 columns)."""
    monkeypatch.setattr(preconditioner, "BOUND_MIN_P", 2)


def test_no_bound_below_its_column_count(monkeypatch):
    monkeypatch.setattr(preconditioner, "BOUND_MIN_P", 64)
    assert _whitened(_rows(500, 62, np.float64, False)).bound is None  # p = 63
    assert _whitened(_rows(500, 63, np.float64, False)).bound is not None


def _rows(n, d, dtype, correlated, seed=0):
    """Rows of norm at most 1; ``correlated``: a few strong directions (several head
    directions in the bound) instead of isotropic ones."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if correlated:
        X = X @ (np.diag(np.geomspace(3.0, 0.01, d)) @ rng.normal(size=(d, d)))
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None] * 1.05
    return X.astype(dtype)


def _whitened(X, intercept=1.0, scale=None, epsilon=2.0, seed=0):
    """``Design([X, c 1], P, bound)`` with ``P`` released from ``X`` (rows of norm <= 1)."""
    backend = Backend.from_arrays(X, random_state=seed)
    budget = Budget(epsilon, 1e-6, 0.05, release=Release(backend, PrivacyLedger()))
    D = Design(X, intercept, None, np, scale)
    P, _, bound = private_preconditioner(D, math.sqrt(2.0), budget)
    return D.preconditioned(P, bound)


def _adversarial(D, rng):
    """``D``'s rows followed by rows along each eigenvector of ``P`` and random mixtures (the
    directions where the bound is tightest and loosest), as a Design with the same P and
    bound."""
    p, d = D.shape[1], D.d
    _, V = np.linalg.eigh(D.P.astype(np.float64))
    dirs = np.vstack([V.T, rng.normal(size=(50, p))])
    dirs /= np.linalg.norm(dirs[:, :d], axis=1)[:, None]  # feature part of norm 1, c free
    X = np.vstack([D.X, dirs[:, :d].astype(D.dtype)])
    return Design(X, D.intercept, D.P, np, None, D.bound)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("correlated", [False, True])
@pytest.mark.parametrize("intercept", [1.0, None])
def test_bound_is_at_least_the_direct_norm(dtype, correlated, intercept):
    """``row_sq_bounds() >= row_sq_norms()`` row by row, no tolerance, in both dtypes, on
    the data, on every eigenvector of ``P`` and on random directions."""
    X = _rows(3000, 40, dtype, correlated)
    D = _adversarial(_whitened(X, intercept), np.random.default_rng(1))
    direct, bound = D.row_sq_norms(), D.row_sq_bounds()
    assert bound.dtype == direct.dtype == dtype
    assert np.all(bound >= direct)
    if correlated:
        assert D.bound.head.shape[1] > 1  # several head directions were tried


def test_bound_is_exact_for_a_floored_spectrum_in_float64():
    """With no head the bound is ``top ||x||**2`` (plus the margin): for the directions whose
    eigenvalue was floored it is the norm itself, up to the margin (so the bound is not
    loose where it needs not be)."""
    X = _rows(2000, 30, np.float64, correlated=False)
    D = _whitened(X, None, epsilon=0.05)  # noise-dominated: many eigenvalues floored at 0
    evals, V = np.linalg.eigh(D.P)
    top_dir = V[:, -1]  # the largest eigenvalue of P: a floored direction of S_hat
    E = Design(top_dir[None, :], None, D.P, np, None, D.bound)
    np.testing.assert_allclose(E.row_sq_bounds(), E.row_sq_norms(), rtol=2 * D.bound.margin)
    assert evals[-1] ** 2 == pytest.approx(D.bound.top, rel=1e-10)


def test_bound_with_row_scales_matches_the_scaled_rows():
    """The clip factors of a user's rows (``scale``) enter the bound as they enter the rows."""
    X = _rows(500, 10, np.float64, correlated=True)
    scale = np.random.default_rng(2).uniform(0.2, 1.0, size=500)
    D = _whitened(X, 1.0, scale)
    same = Design(X * scale[:, None], 1.0, D.P, np, None, D.bound)
    np.testing.assert_allclose(D.row_sq_bounds(), same.row_sq_bounds(), rtol=1e-12)
    assert np.all(D.row_sq_bounds() >= D.row_sq_norms())


def _batch(dtype, correlated=True, n=3000, seed=0):
    """(full objective on a bounded design, a batch of it, w, clip): the clip at the batch's
    gradient-norm median, so that about half of its rows are clipped."""
    X = _rows(n, 20, dtype, correlated, seed)
    rng = np.random.default_rng(seed)
    y = np.clip(X @ rng.normal(size=20) + 0.3 * rng.normal(size=n), -1, 1).astype(dtype)
    D = _whitened(X)
    obj = problem.Objective(D, y, make_loss("squared"), LinearModel(D.shape[1]), 0.0, np)
    idx = np.sort(rng.choice(n, n // 4, replace=False))
    w = (0.01 * rng.normal(size=D.shape[1])).astype(dtype)
    batch = obj.rows(idx, alpha=0.0)
    clip = float(np.median(problem.Objective(D.take(idx), y[idx], obj.loss, obj.model, 0.0,
                                             np).grad_norms(w)))
    return obj, batch, idx, w, clip


def _clipped_rows_within(batch, w, clip, sq, rtol):
    """Every row's clipped gradient, rebuilt from the dense design, has norm at most ``clip``
    (``sq``: the squared row norms the clip factors are computed from)."""
    dense = batch.X.dense().astype(np.float64)
    r = dense @ w.astype(np.float64) - batch.y.astype(np.float64)  # squared loss: phi' = z - y
    factors = clip_factors(np.abs(r) * np.sqrt(sq.astype(np.float64)), clip)
    norms = np.linalg.norm((factors * r)[:, None] * dense, axis=1)
    return bool(np.all(norms <= clip * (1 + rtol)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_batch_uses_bounds_and_exact_norms_where_the_clip_needs_them(dtype):
    obj, batch, idx, w, clip = _batch(dtype)
    assert batch._x_sq_norms is None and batch._sq_bounds is not None  # no full norms
    assert obj._x_sq_norms is None
    sq = batch.clip_sq_norms(w, clip)
    exact = batch.X.row_sq_norms()
    norms = batch.grad_norms(w)  # exact norms (computed now)
    clipped = norms > clip
    assert 0 < clipped.sum() < len(idx)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    # the same product on the same rows, here on the clipped rows only: BLAS may round the
    # last digit differently for a subset's block than for the whole batch's
    np.testing.assert_allclose(sq[clipped], exact[clipped], rtol=rtol)
    assert np.all(sq >= exact * (1 - rtol))
    assert _clipped_rows_within(batch, w, clip, sq, rtol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_batch_clipped_gradient_equals_the_exact_norms_one(dtype):
    obj, batch, idx, w, clip = _batch(dtype)
    exact = obj.rows(idx, alpha=0.0)
    exact._sq_bounds, exact._x_sq_norms = None, obj.X.row_sq_norms()[idx]
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    want = exact.clipped_grad(w, clip)
    np.testing.assert_allclose(batch.clipped_grad(w, clip), want, rtol=rtol,
                               atol=rtol * float(np.max(np.abs(want))))


def test_an_underestimated_norm_is_caught():
    """The per-row check fails when the bound undercuts the norms (here: the whole bound
    times 0.3, so that rows the clip should scale down are left whole)."""
    obj, batch, idx, w, clip = _batch(np.float64)
    exact = batch.X.row_sq_norms()
    assert _clipped_rows_within(batch, w, clip, batch.clip_sq_norms(w, clip), 1e-12)
    b = batch.X.bound
    low = NormBound(0.3 * b.top, math.sqrt(0.3) * b.head, b.margin)
    D = Design(batch.X.X, batch.X.intercept, batch.X.P, np, None, low)
    assert np.any(D.row_sq_bounds() < exact)
    sick = problem.Objective(D, batch.y, batch.loss, batch.model, 0.0, np)
    sick._sq_bounds = D.row_sq_bounds()
    assert not _clipped_rows_within(batch, w, clip, sick.clip_sq_norms(w, clip), 1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("blockwise", [True, False])
def test_fit_on_bounds_equals_the_fit_on_exact_norms(monkeypatch, dtype, blockwise):
    """``dpsgd_poisson`` above ``CLIP_ROWS`` rows (lowered here so that the private clip reads a
    subset and the full norms are never computed): same coefficients (to rounding) and the
    same ledger as with the exact norms of every row; through the batch objective and through
    ``Objective.clipped_sum``'s blocks."""
    monkeypatch.setattr(regression, "CLIP_ROWS", 500)
    X = _rows(4000, 30, dtype, correlated=True)
    rng = np.random.default_rng(0)
    y = np.clip(X @ rng.normal(size=30) + 0.3 * rng.normal(size=4000), -1, 1).astype(dtype)

    def fit():
        return KLAdaptiveRegressor(epsilon=2.0, solver="dpsgd_poisson", random_state=0).fit(X, y)

    calls = []  # per step: whether its batch clipped on bounds
    monkeypatch.setattr(problem.Objective, "blockwise", lambda self: blockwise)
    name = "clipped_sum" if blockwise else "clip_sq_norms"
    original = getattr(problem.Objective, name)
    on_bounds = ((lambda self: self._bounded()) if blockwise
                 else (lambda self: self._sq_bounds is not None))
    monkeypatch.setattr(problem.Objective, name,
                        lambda self, *args: calls.append(on_bounds(self)) or original(self, *args))
    bounded = fit()
    assert calls and all(calls)  # every step's batch clipped on bounds
    monkeypatch.setattr(problem.Objective, "_bounded", lambda self: False)
    exact = fit()
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(bounded.coef_, exact.coef_, rtol=rtol, atol=rtol)
    assert bounded.intercept_ == pytest.approx(exact.intercept_, rel=rtol, abs=rtol)
    assert bounded.clip_norm_ == exact.clip_norm_
    assert bounded.privacy_ledger_.log() == exact.privacy_ledger_.log()


def test_batches_switch_to_the_full_norms_past_half_the_rows():
    """Where the bound settles few clips, the batches' exact norms stop at ``EXACT_SHARE n``
    rows: the next batch takes the full norms, computed once."""
    obj, batch, idx, w, clip = _batch(np.float64)
    assert batch._exact_rows is obj._exact_rows
    while obj._exact_rows[0] < problem.EXACT_SHARE * obj.n:
        obj.rows(idx, alpha=0.0).clip_sq_norms(w, 0.0)  # every row clipped: all exact
    after = obj.rows(idx, alpha=0.0)
    assert after._sq_bounds is None and obj._x_sq_norms is not None
    np.testing.assert_allclose(after.clip_sq_norms(w, clip), obj.X.row_sq_norms()[idx])


def test_bound_path_under_array_api_strict(monkeypatch):
    """The bounds, the exact norms of the clipped rows and their scatter are Array API code:
    ``array_api_strict`` gives NumPy's fit."""
    import sklearn

    from skdp import BudgetAccountant
    xps = pytest.importorskip("array_api_strict")
    monkeypatch.setattr(regression, "CLIP_ROWS", 300)
    X = _rows(1500, 6, np.float64, correlated=True)
    y = np.clip(X.sum(axis=1), -1, 1)
    kw = dict(epsilon=2.0, solver="dpsgd_poisson", random_state=3)
    ref = KLAdaptiveRegressor(accountant=BudgetAccountant(), **kw).fit(X, y)
    exact = []
    clip_sq_norms = problem.Objective.clip_sq_norms
    monkeypatch.setattr(problem.Objective, "clip_sq_norms", lambda self, w, clip: (
        clip_sq_norms(self, w, clip), exact.append(self._exact_rows[0]))[0])
    with sklearn.config_context(array_api_dispatch=True):
        reg = KLAdaptiveRegressor(**kw).fit(xps.asarray(X), xps.asarray(y))
    assert exact[-1] > 0  # some batch rows took their exact norm
    np.testing.assert_allclose(np.asarray(reg.coef_), ref.coef_, rtol=1e-9, atol=1e-12)
