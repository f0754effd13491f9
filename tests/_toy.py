"""A minimal private estimator for the shared privacy plumbing, and small shared test helpers."""

import contextlib
import math
from numbers import Real

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from skdp._backend import Backend
from skdp._base import PrivacyMixin
from skdp.audit import weakened_noise
from skdp._validation import (ACCOUNTANT_CONSTRAINT, DELTA_CONSTRAINT, EPSILON_CONSTRAINT,
                              check_epsilon_delta)
from skdp.privacy.ledger import PrivacyLedger, approx_dp_to_zcdp
from skdp.privacy.mechanisms import gaussian_mechanism
from skdp.synthesizer import SaddlePointSynthesizer


class NoisyMeanRegressor(PrivacyMixin, RegressorMixin, BaseEstimator):
    """Predicts the DP mean of y clipped to [-target_bound, target_bound]."""

    _parameter_constraints = {
        "epsilon": EPSILON_CONSTRAINT,
        "delta": DELTA_CONSTRAINT,
        "target_bound": [Interval(Real, 0, None, closed="neither")],
        "accountant": ACCOUNTANT_CONSTRAINT,
        "random_state": ["random_state"],
    }

    def __init__(self, epsilon=1.0, delta=1e-6, target_bound=1.0, accountant=None,
                 random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.target_bound = target_bound
        self.accountant = accountant
        self.random_state = random_state

    def fit(self, X, y):
        self._validate_params()
        check_epsilon_delta(self.epsilon, self.delta, need_delta=True)
        accountant = self._check_budget()
        X, y = validate_data(self, X, y, y_numeric=True)
        backend = Backend.from_arrays(X, random_state=self.random_state)
        ledger = PrivacyLedger()
        rho = approx_dp_to_zcdp(self.epsilon, self.delta) if self.delta > 0 else np.inf
        # replace-one sensitivity of the mean of values in [-b, b] is 2b/n
        total = np.clip(y, -self.target_bound, self.target_bound).mean()
        noisy, _ = gaussian_mechanism(np.asarray([total]), 2 * self.target_bound / len(y),
                                      backend, rho=rho, ledger=ledger, label="mean")
        self.mean_ = float(noisy[0])
        self._record_spend(accountant, ledger)
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return np.full(X.shape[0], self.mean_)

    def _expected_failed_checks(self):
        return {"check_regressors_train": "predicts a constant by design"}


class Spy:
    """The estimator, recording every attribute read from it (the
    release report's tests: it must read published attributes only)."""

    def __init__(self, est):
        object.__setattr__(self, "_est", est)
        object.__setattr__(self, "read", set())

    def __getattr__(self, name):
        self.read.add(name)
        return getattr(self._est, name)


def fit_synthesizer(X, **params):
    """A ``SaddlePointSynthesizer`` fitted on ``X`` at epsilon 1, delta 1e-6 and seed 0 unless
    ``params`` say otherwise, its warnings silenced (the same seed in several fits is on
    purpose in a test)."""
    params = {"epsilon": 1.0, "delta": 1e-6, "random_state": 0, **params}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SaddlePointSynthesizer(**params).fit(X)


def rows_near_bound(n, d, dtype=np.float64, seed=0, every=11, factor=3.0):
    """Rows of norm at most 1 (some at 1 + an ulp after the division), every ``every``-th
    one scaled by ``factor`` beyond the bound (``every=None``: none): the fixed-cost tests'
    data (issue 31)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / math.sqrt(2 * d)
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    if every:
        X[::every] *= factor
    return X.astype(dtype)


def ledger_total(reg):
    """The rho a fitted regressor's ledger records (each entry's count x rho)."""
    return sum(e["count"] * e["rho"] for e in reg.privacy_ledger_.log())


def solver_share(reg):
    """What the solver's filter held: ``rho_`` less the releases before the run (the clip's)."""
    before = ("second-moment matrix", "gradient-norm histogram")
    return reg.rho_ - sum(e["count"] * e["rho"] for e in reg.privacy_ledger_.log()
                          if e["label"] in before)


def check_noise_scale(draw, rel=0.05):
    """``draw()`` returns (sd of the drawn noise, recorded sigma): the sd is the recorded sigma,
    and with the noise halved (``weakened_noise(2)``) the recorded sigma stays while the sd
    does not match it (the halved-noise test of the definition of done)."""
    sd, sigma = draw()
    assert sd == pytest.approx(sigma, rel=rel)
    with weakened_noise(2.0):
        halved, sigma2 = draw()
    assert sigma2 == pytest.approx(sigma)
    assert not halved == pytest.approx(sigma, rel=rel)


@contextlib.contextmanager
def recorded_tail():
    """While active, ``adaptive_gd``'s noisy tail (``skdp.solvers.kl.gd._noisy_tail``) keeps
    its call's ``obj``, ``cfg``, ``w`` and ``first`` and each of its Gaussian releases as
    ``(value, noisy output)`` in the yielded dict's ``"releases"``."""
    from skdp.solvers.kl import gd

    seen = {"releases": []}
    original = gd._noisy_tail

    def recording(obj, cfg, budget, w, steps, history, iterates, first):
        seen.update(obj=obj, cfg=cfg, w=w, first=dict(first))
        release = budget.gaussian

        def kept(v, *a, **k):
            out = release(v, *a, **k)
            seen["releases"].append((np.array(v), np.array(out)))
            return out

        budget.gaussian = kept
        try:
            return original(obj, cfg, budget, w, steps, history, iterates, first)
        finally:
            budget.gaussian = release

    gd._noisy_tail = recording
    try:
        yield seen
    finally:
        gd._noisy_tail = original


def spiky_column(spikes, counts):
    """A float column on 0-60 (10 equal bins) whose fine grid of 64 equal cells holds the
    released ``counts`` at the released ``spikes`` over a flat rest of 20 a cell (noise sd 10):
    the spike-start bins' tests (issue 30)."""
    from skdp._domain import Column
    from skdp._domain.fine import FineGrid

    grid = FineGrid(0.0, 60.0, integer=False, points=np.array([0.0, 60.0]),
                    edges=np.linspace(0, 60, 65), sigma=10.0)
    grid.counts = np.full(66, 20.0)
    grid.spikes, grid.spike_counts = np.asarray(spikes, float), np.asarray(counts, float)
    np.add.at(grid.counts, grid.cell(grid.spikes), grid.spike_counts)
    return Column("n", float, kind="numeric", low=0.0, high=60.0, n_bins=10, fine=grid)

