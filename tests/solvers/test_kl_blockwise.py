"""``dpsgd_poisson``'s batches read in blocks (issue 31, d = 1,000): ``Objective.clipped_sum``
gathers a batch's rows block by block into one buffer and sums the clipped gradients there;
the sum equals the batch objective's (``rows(idx).clipped_grad * n``) up to rounding, with
the same clip factors (bounded or exact norms), and a fit's released values and ledger are
those of the batch objective up to rounding."""

import math

import numpy as np
import pytest

from skdp import KLAdaptiveRegressor
from skdp._backend import Backend
from skdp.privacy.budget import Budget
from skdp.privacy.ledger import PrivacyLedger
from skdp.privacy.release import Release
from skdp.solvers.kl import preconditioner, problem
from skdp.solvers.kl.models import Design, LinearModel, MLPModel
from skdp.solvers.kl.preconditioner import private_preconditioner
from skdp.solvers.kl.problem import Objective
from skdp.solvers.losses.regression import make_loss


@pytest.fixture(autouse=True)
def _small_p(monkeypatch):
    """The norm bound on these small designs (by default only from 64 columns)."""
    monkeypatch.setattr(preconditioner, "BOUND_MIN_P", 2)


def _design(n, d, dtype, intercept=1.0, scaled=False, precondition=True, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) @ np.diag(np.geomspace(3.0, 0.05, d))
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None] * 1.05
    X, y = X.astype(dtype), np.clip(X @ rng.normal(size=d), -1, 1).astype(dtype)
    scale = None
    if scaled:  # a few rows beyond the bound, scaled on the fly
        scale = np.ones(n, dtype=dtype)
        scale[::7] = 0.5
    D = Design(X, intercept, None, np, scale)
    if precondition:
        backend = Backend.from_arrays(X, random_state=seed)
        budget = Budget(2.0, 1e-6, 0.05, release=Release(backend, PrivacyLedger()))
        P, _, bound = private_preconditioner(D, math.sqrt(2.0), budget)
        D = D.preconditioned(P, bound)
    return D, y


def _objective(D, y, loss="squared"):
    return Objective(D, y, make_loss(loss), LinearModel(D.shape[1]), 0.0, np)


def _reference(obj, w, idx, clip):
    batch = obj.rows(idx, alpha=0.0)
    return batch.clipped_grad(w, clip) * batch.n


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("intercept", [1.0, None])
@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("precondition", [True, False])
@pytest.mark.parametrize("clip", [0.05, 0.5, math.inf])
def test_clipped_sum_equals_the_batch_objective(monkeypatch, dtype, intercept, scaled,
                                                 precondition, clip):
    """Several blocks (a small ``BLOCK_BYTES``), rows that need exact norms or not, rows
    scaled, intercept or not, with and without ``P`` (then no bound: exact norms)."""
    monkeypatch.setattr(problem, "BLOCK_BYTES", 40 * 8)
    D, y = _design(2000, 12, dtype, intercept, scaled, precondition)
    rng = np.random.default_rng(3)
    w = rng.normal(size=D.shape[1]).astype(dtype)
    idx = np.nonzero(rng.random(2000) < 0.3)[0]
    fast, slow = _objective(D, y), _objective(D, y)
    assert fast.blockwise()
    got, want = fast.clipped_sum(w, idx, clip), _reference(slow, w, idx, clip)
    assert got.dtype == want.dtype == dtype
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.max(np.abs(want)))
    assert fast._exact_rows == slow._exact_rows  # the same rows took their exact norms
    if precondition and math.isfinite(clip):
        assert fast._exact_rows[0] > 0
        if clip == 0.5:
            assert fast._exact_rows[0] < idx.shape[0]  # the bound settled some rows


def test_clipped_sum_huber_and_past_the_exact_share(monkeypatch):
    """Another loss; and past ``EXACT_SHARE`` (all norms computed once) as the batch
    objective does."""
    monkeypatch.setattr(problem, "EXACT_SHARE", 0.01)
    D, y = _design(3000, 10, np.float64)
    rng = np.random.default_rng(4)
    fast, slow = _objective(D, y, "huber"), _objective(D, y, "huber")
    for _ in range(3):
        w = rng.normal(size=D.shape[1])
        idx = np.nonzero(rng.random(3000) < 0.2)[0]
        np.testing.assert_allclose(fast.clipped_sum(w, idx, 0.05),
                                   _reference(slow, w, idx, 0.05), rtol=1e-11)
    assert fast._x_sq_norms is not None and slow._x_sq_norms is not None


def test_not_blockwise_for_an_mlp():
    D, y = _design(100, 4, np.float64, precondition=False)
    obj = Objective(D, y, make_loss("squared"), MLPModel(D.shape[1], 3), 0.0, np)
    assert not obj.blockwise()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fit_matches_the_batch_objective(monkeypatch, dtype):
    """A whole ``dpsgd_poisson`` fit (bound on, several blocks) against the same fit through
    the batch objective: coefficients equal up to rounding, the ledger the same."""
    monkeypatch.setattr(problem, "BLOCK_BYTES", 64 * 8 * 20)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4000, 20)) @ np.diag(np.geomspace(2.0, 0.1, 20))
    X = (X / np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]).astype(dtype)
    y = np.clip(X @ rng.normal(size=20), -1, 1).astype(dtype)
    fits = []
    for blockwise in (True, False):
        monkeypatch.setattr(Objective, "blockwise", lambda self, on=blockwise: on)
        fits.append(KLAdaptiveRegressor(solver="dpsgd_poisson", random_state=0).fit(X, y))
    fast, slow = fits
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(fast.coef_, slow.coef_, rtol=tol, atol=tol)
    assert repr(fast.privacy_ledger_) == repr(slow.privacy_ledger_)



@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("precondition", [True, False])
def test_subset_counts_in_blocks_equal_the_subset_objective(monkeypatch, dtype, scaled,
                                                            precondition):
    """The private clip's histogram over a subset, read in blocks: the same counts as the
    subset's objective (``rows(idx)``), to the count."""
    monkeypatch.setattr(problem, "BLOCK_BYTES", 50 * 8)
    D, y = _design(3000, 12, dtype, 1.0, scaled, precondition)
    rng = np.random.default_rng(7)
    w = rng.normal(size=D.shape[1]).astype(dtype)
    idx = np.sort(rng.choice(3000, 700, replace=False))
    grid = [0.8 * 2.0 ** (-k / 2.0) for k in reversed(range(12))]
    got = _objective(D, y).grad_norm_counts(w, grid, idx)
    want = _objective(D, y).rows(idx).grad_norm_counts(w, grid)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert float(got.sum()) == 700
