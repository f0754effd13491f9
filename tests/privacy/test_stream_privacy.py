"""Issue 28, items 2 and 7: the streaming state stays off the model, and epochs are charged.

* Item 2: a fitted streaming model carried its stream (``stream_state_``: the noise generator
  and the last noise vectors) in its attributes and its pickles, and so did a search's
  ``best_estimator_``; ``stream_state_.grad - noise_past[0]`` was the exact clipped gradient of
  the last batch. The live stream is now private, dropped by pickling and copies, and leaves
  the process only as an explicit, secret :class:`~skdp._partial_fit.StreamCheckpoint`.
* Item 7: ``for epoch in range(16): est.partial_fit(X, y)`` was charged one pass. With the
  default ``stream_chunks='repeated'`` every call is a new pass, charged, with fresh noise.
"""

import copy
import math
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.utils._param_validation import InvalidParameterError

from skdp import (BudgetAccountant, BudgetExceededError, KLAdaptiveRegressor, PrivacyLeakWarning,
                  PrivateMinimaxClassifier)
from skdp._partial_fit import StreamCheckpoint
from skdp.model_selection import PrivateHyperparameterSearch
from skdp.privacy import approx_dp_to_gdp, approx_dp_to_zcdp, gdp_to_approx_dp
from skdp.privacy import matrix as mf

DELTA = 1e-6


def _clf_data(n=1000, seed=0):
    X, y = make_classification(n_samples=n, n_features=5, random_state=seed)
    return X / 5, y


def _reg_data(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    return X, np.clip(X @ np.array([1.0, -1.0, 0.5]), -1, 1)


def _streamers():
    """A fitted streaming model of each estimator and family of noise (tree, MF, independent)."""
    X, y = _clf_data()
    Xr, yr = _reg_data()
    out = []
    for solver in ("srgd", "srg_memf", "dpsgd"):
        out.append(PrivateMinimaxClassifier(solver=solver, group_by=None, delta=DELTA,
                                            accountant=BudgetAccountant(), random_state=0)
                   .partial_fit(X, y, classes=[0, 1]))
    for solver in ("srgd", "memf"):
        out.append(KLAdaptiveRegressor(solver=solver, delta=DELTA, accountant=BudgetAccountant(),
                                       random_state=0).fit(Xr, yr))
    return out


def _secret_in(blob):
    """Whether a pickle holds a stream: its state class, a NumPy generator or its bit generator."""
    return any(name in blob for name in (b"StreamState", b"PCG64", b"Generator", b"deque"))


# -- item 2: the live stream is not on the model -----------------------------------------
def test_no_stream_in_attributes_pickles_or_copies():
    for est in _streamers():
        public = {k: v for k, v in vars(est).items() if not k.startswith("_")}
        assert "stream_state_" not in public
        assert not _secret_in(pickle.dumps(public)), type(est).__name__
        assert not _secret_in(pickle.dumps(est)), (type(est).__name__, est.solver)
        for twin in (pickle.loads(pickle.dumps(est)), copy.deepcopy(est), copy.copy(est),
                     clone(est)):
            assert "_stream" not in vars(twin)
        assert "_stream" in vars(est)  # the live stream stays in this process


def test_unpickled_model_refuses_partial_fit_until_resumed():
    X, y = _clf_data(1500)
    clf = PrivateMinimaxClassifier(solver="srg_memf", group_by=None, delta=DELTA,
                                   accountant=BudgetAccountant(), random_state=0)
    clf.partial_fit(X[:500], y[:500], classes=[0, 1])
    checkpoint = pickle.loads(pickle.dumps(clf.checkpoint()))  # it pickles: to resume elsewhere
    assert isinstance(checkpoint, StreamCheckpoint) and "secret" in repr(checkpoint)
    assert checkpoint.n_seen == 500
    copy_ = pickle.loads(pickle.dumps(clf))
    with pytest.raises(ValueError, match=r"no live stream.*resume\(checkpoint\).*fit"):
        copy_.partial_fit(X[500:1000], y[500:1000])
    with pytest.raises(ValueError, match="no live stream"):
        copy_.checkpoint()
    np.testing.assert_array_equal(copy_.predict(X), clf.predict(X))  # the released model works
    copy_.resume(checkpoint).partial_fit(X[500:1000], y[500:1000])
    clf.partial_fit(X[500:1000], y[500:1000])  # the same seed: the same continuation
    np.testing.assert_allclose(copy_.coef_, clf.coef_, rtol=1e-10, atol=1e-12)
    assert copy_.privacy_spent_ == pytest.approx(clf.privacy_spent_)
    # a fresh estimator with the stream's parameters resumes too
    fresh = clone(clf).resume(checkpoint)
    fresh.partial_fit(X[500:1000], y[500:1000])
    np.testing.assert_allclose(fresh.coef_, clf.coef_, rtol=1e-10, atol=1e-12)


def test_resume_refuses_what_is_not_its_stream():
    X, y = _clf_data()
    clf = PrivateMinimaxClassifier(solver="dpsgd", group_by=None, delta=DELTA,
                                   accountant=BudgetAccountant(), random_state=0)
    with pytest.raises(NotFittedError):
        clf.checkpoint()
    checkpoint = clf.partial_fit(X, y, classes=[0, 1]).checkpoint()
    with pytest.raises(TypeError, match="StreamCheckpoint"):
        clone(clf).resume(clf)
    with pytest.raises(ValueError, match="other parameters"):
        clone(clf).set_params(epsilon=2.0).resume(checkpoint)
    with pytest.raises(ValueError, match="not of a KLAdaptiveRegressor"):
        KLAdaptiveRegressor(solver="dpsgd").resume(checkpoint)
    assert not hasattr(PrivateMinimaxClassifier(), "checkpoint")  # not a streaming solver


def test_resume_without_a_seed_draws_fresh_noise():
    X, y = _clf_data()
    clf = PrivateMinimaxClassifier(solver="dpsgd", group_by=None, delta=DELTA,
                                   accountant=BudgetAccountant())
    checkpoint = clf.partial_fit(X, y, classes=[0, 1]).checkpoint()
    a, b = (clone(clf).resume(checkpoint).partial_fit(X, y) for _ in range(2))
    assert not np.allclose(a.coef_, b.coef_)  # two resumes never replay one noise


def test_search_best_estimator_carries_no_stream():
    X, y = _clf_data(600)
    est = PrivateMinimaxClassifier(solver="dpsgd", group_by=None)
    search = PrivateHyperparameterSearch(est, {"epsilon": [0.5, 1.0]}, mean_runs=2, refit=False,
                                         delta=DELTA, accountant=BudgetAccountant(),
                                         random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # classes read from y
        search.fit(X, y)
    best = search.best_estimator_
    if best is None:  # K = 0 runs drawn
        pytest.skip("the search drew no run")
    assert "_stream" not in vars(best) and not _secret_in(pickle.dumps(search))
    with pytest.raises(ValueError, match="no live stream"):
        best.partial_fit(X, y)


def test_grid_search_and_clone_work_with_streaming_solvers():
    X, y = _clf_data(600)
    est = PrivateMinimaxClassifier(solver="dpsgd", group_by=None, delta=DELTA,
                                   accountant=BudgetAccountant(), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        grid = GridSearchCV(est, {"stream_chunks": ["repeated", "disjoint"]}, cv=2).fit(X, y)
    assert "_stream" in vars(grid.best_estimator_)  # scikit-learn's refit: a live model of yours
    assert clone(grid.best_estimator_).get_params() == grid.best_estimator_.get_params()


# -- item 7: passes over the same rows are charged -----------------------------------------
def test_sixteen_epochs_of_dpsgd_are_charged_as_their_composition():
    X, y = _clf_data()
    acc = BudgetAccountant()
    clf = PrivateMinimaxClassifier(epsilon=1.0, delta=DELTA, solver="dpsgd", group_by=None,
                                   accountant=acc, random_state=0)
    for _ in range(16):
        clf.partial_fit(X, y, classes=[0, 1])
    mu = approx_dp_to_gdp(1.0, DELTA)  # one pass: calibrated exactly to (1, 1e-6)
    expected = gdp_to_approx_dp(math.sqrt(16) * mu, 16 * DELTA)
    assert clf.privacy_spent_[0] == pytest.approx(expected, rel=1e-6)
    assert clf.privacy_spent_[1] == pytest.approx(16 * DELTA)
    assert expected > 3.5  # one pass' epsilon was charged before (the issue: 0.93)
    assert len(acc.spends) == 16 and len(clf.privacy_ledger_.entries) == 16
    assert acc.total()[0] == pytest.approx(expected, rel=1e-6)
    assert clf.privacy_method_ == "gdp"

    Xr, yr = _reg_data()
    acc = BudgetAccountant()
    reg = KLAdaptiveRegressor(epsilon=1.0, delta=DELTA, solver="dpsgd", accountant=acc,
                              random_state=0)
    for _ in range(16):
        reg.partial_fit(Xr, yr)
    mu = math.sqrt(2 * approx_dp_to_zcdp(1.0, DELTA))  # the regressor calibrates to rho_
    assert reg.privacy_spent_[0] == pytest.approx(gdp_to_approx_dp(4 * mu, 16 * DELTA), rel=1e-6)
    assert len(acc.spends) == 16 and acc.total()[0] == pytest.approx(reg.privacy_spent_[0])


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_the_charge_matches_the_noise_drawn(monkeypatch, scale):
    """The epsilon recomputed from the noise actually added (each pass independent) is the
    one charged; halving the noise (scale 0.5) is caught."""
    draws = []
    original = mf.BandedToeplitzNoise.next

    def record(self, dtype=None):
        w = original(self, dtype) * scale
        draws.append(np.array(w, copy=True).ravel())
        return w

    monkeypatch.setattr(mf.BandedToeplitzNoise, "next", record)
    X, y = _clf_data(2000)
    clip, B = 0.5, 50
    clf = PrivateMinimaxClassifier(epsilon=1.0, delta=DELTA, solver="dpsgd", group_by=None,
                                   solver_options=dict(clip=clip, batch_size=B),
                                   accountant=BudgetAccountant(), random_state=0)
    for _ in range(16):
        clf.partial_fit(X, y, classes=[0, 1])
    assert len(draws) == 16 * (2000 // B)  # one noise vector per step, 40 steps a pass
    noise = np.array(draws).reshape(16, -1)  # a row per pass
    corr = np.corrcoef(noise)[np.triu_indices(16, 1)]
    assert np.max(np.abs(corr)) < 0.2  # fresh noise in every pass (no replay across passes)
    mu_pass = (2 * clip / B) / np.std(noise)  # sensitivity 2G/B over the noise's sd
    recomputed = gdp_to_approx_dp(math.sqrt(16) * mu_pass, 16 * DELTA)
    matches = abs(recomputed / clf.privacy_spent_[0] - 1) < 0.1
    assert matches == (scale == 1.0), (recomputed, clf.privacy_spent_)


def test_a_new_pass_restarts_the_matrix_factorisation_noise(monkeypatch):
    """Independent passes: the banded noise of a pass never continues the previous pass's."""
    pasts = []
    original = mf.BandedToeplitzNoise.__init__

    def spy(self, shape, coef, sigma, backend, past=None):
        pasts.append(0 if past is None else len(past))
        original(self, shape, coef, sigma, backend, past=past)

    monkeypatch.setattr(mf.BandedToeplitzNoise, "__init__", spy)
    X, y = _clf_data(1200)
    for mode, want in (("repeated", [0, 0, 0]), ("disjoint", [0, 20, 40])):
        pasts.clear()
        clf = PrivateMinimaxClassifier(solver="srg_memf", group_by=None, delta=DELTA,
                                       stream_chunks=mode, solver_options=dict(batch_size=20),
                                       accountant=BudgetAccountant(), random_state=0)
        for k in range(3):
            clf.partial_fit(X[400 * k:400 * (k + 1)], y[400 * k:400 * (k + 1)], classes=[0, 1])
        assert pasts == want, mode
        assert len(clf.privacy_ledger_.entries) == (3 if mode == "repeated" else 1)


def test_disjoint_chunks_are_one_stream_charged_once():
    X, y = _clf_data(1500)
    acc = BudgetAccountant(epsilon=1.2, delta=1e-5)
    clf = PrivateMinimaxClassifier(epsilon=1.0, delta=DELTA, solver="memf", group_by=None,
                                   stream_chunks="disjoint", accountant=acc, random_state=0)
    for k in range(3):
        clf.partial_fit(X[500 * k:500 * (k + 1)], y[500 * k:500 * (k + 1)], classes=[0, 1])
    assert len(acc.spends) == 1 and clf.privacy_spent_[0] <= 1.0


def test_a_pass_is_reserved_before_its_chunk_is_read():
    X, y = _clf_data()
    acc = BudgetAccountant(epsilon=1.2, delta=1e-5)
    clf = PrivateMinimaxClassifier(epsilon=1.0, delta=DELTA, solver="dpsgd", group_by=None,
                                   accountant=acc, random_state=0)
    clf.partial_fit(X, y, classes=[0, 1])
    coef, spent = clf.coef_.copy(), clf.privacy_spent_
    bad = X.copy()
    bad[0, 0] = np.nan  # reading it would raise ValueError: the refusal comes first
    with pytest.raises(BudgetExceededError):
        clf.partial_fit(bad, y)
    np.testing.assert_array_equal(clf.coef_, coef)
    assert clf.privacy_spent_ == spent and len(acc.spends) == 1
    # declared disjoint, the next chunk continues the stream uncharged
    clf.set_params(stream_chunks="disjoint").partial_fit(X[:300], y[:300])
    assert len(acc.spends) == 1


def test_passes_of_one_stream_do_not_warn_of_shared_noise():
    X, y = _clf_data()
    acc = BudgetAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf = PrivateMinimaxClassifier(solver="dpsgd", group_by=None, delta=DELTA,
                                       accountant=acc, random_state=0)
        for _ in range(3):
            clf.partial_fit(X, y, classes=[0, 1])
    twin = PrivateMinimaxClassifier(solver="dpsgd", group_by=None, delta=DELTA, accountant=acc,
                                    random_state=0)
    with pytest.warns(PrivacyLeakWarning, match="random_state=0"):  # same seed: same noise
        twin.partial_fit(X, y, classes=[0, 1])
    with pytest.warns(PrivacyLeakWarning, match="pass 2"):  # and pass 2 of each too
        twin.partial_fit(X, y)


def test_stream_chunks_is_validated():
    X, y = _clf_data(200)
    with pytest.raises(InvalidParameterError, match="stream_chunks"):
        PrivateMinimaxClassifier(solver="dpsgd", group_by=None,
                                 stream_chunks="epochs").partial_fit(X, y, classes=[0, 1])
    with pytest.raises(InvalidParameterError, match="stream_chunks"):
        KLAdaptiveRegressor(solver="dpsgd", stream_chunks=None).fit(*_reg_data(200))
    clf = PrivateMinimaxClassifier(solver="dpsgd", group_by=None, delta=DELTA,
                                   accountant=BudgetAccountant(), random_state=0)
    clf.partial_fit(X, y, classes=[0, 1]).set_params(stream_chunks="epochs")
    with pytest.raises(ValueError, match="stream_chunks must be one of"):
        clf.partial_fit(X, y)


def test_dask_fit_is_one_pass_and_its_partial_fit_another(monkeypatch):
    da = pytest.importorskip("dask.array")
    import skdp._dask as skdp_dask

    monkeypatch.setattr(skdp_dask, "STREAM_ROWS", 300)
    X, y = _clf_data(1000)
    for est in (PrivateMinimaxClassifier(solver="dpsgd", group_by=None, delta=DELTA,
                                         random_state=0),
                KLAdaptiveRegressor(solver="memf", delta=DELTA, random_state=0)):
        acc = BudgetAccountant()
        est.set_params(accountant=acc)
        kw = {"classes": [0, 1]} if isinstance(est, PrivateMinimaxClassifier) else {}
        Xd, yd = da.from_array(X, chunks=(250, 5)), da.from_array(y, chunks=250)
        est.fit(Xd, yd, **kw)  # 4 chunks of one collection: one pass
        assert len(acc.spends) == 1 and len(est.privacy_ledger_.entries) == 1
        est.partial_fit(Xd, yd)  # another pass over the same rows: charged once more
        assert len(acc.spends) == 2 and len(est.privacy_ledger_.entries) == 2
