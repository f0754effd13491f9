"""Poisson-subsampled DP-SGD (``dpsgd_poisson``) of the classifier and the regressor.

The fits spend exactly their epsilon in the ledger's PLD composition; the noise
multiplier agrees with dp-accounting's PLD of the subsampled Gaussian and half
of it would overspend; the drawn noise has the recorded scale (halved noise
fails); the solvers index the sampled rows only (no copy of ``X``); a seed
reproduces a fit.
"""

import math
import tracemalloc
import warnings

import numpy as np
import pytest

from skdp import KLAdaptiveRegressor, PrivateMinimaxClassifier
from skdp._backend import Backend
from skdp.minimax import SOLVER_SPECS as CLF_SPECS
from skdp.privacy import Budget, PrivacyLedger, Release
from skdp.regression import SOLVER_SPECS as REG_SPECS
from skdp.solvers.kl.models import LinearModel
from skdp.solvers.kl.problem import KLProblem, Objective, SolverConfig
from skdp.solvers.minimax.data import LinearData
from skdp.solvers.losses.regression import make_loss
from skdp.solvers.minimax.common import MinimaxProblem
from skdp.privacy.ledger import subsampled_noise_within
from skdp.solvers.shared.subsampling import sampling_rate
from _toy import check_noise_scale

DELTA = 1e-6


def _clf_data(n=2000, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / 2
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0.3).astype(int)


def _reg_data(n=2000, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (2 * math.sqrt(d))
    return X, np.clip(X @ np.arange(1.0, d + 1) + 0.05 * rng.normal(size=n), -1, 1)


def _fit_clf(**params):
    X, y = _clf_data()
    est = PrivateMinimaxClassifier(**{"solver": "dpsgd_poisson", "random_state": 0, **params})
    return est.fit(X, y, classes=[0, 1])


def _fit_reg(**params):
    X, y = _reg_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        params = {"solver": "dpsgd_poisson", "random_state": 0, **params}
        return KLAdaptiveRegressor(**params).fit(X, y)


@pytest.mark.parametrize("fit", [_fit_clf, _fit_reg])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_fit_spends_exactly_its_epsilon_by_pld(fit, epsilon):
    est = fit(epsilon=epsilon, delta=DELTA)
    spent, method = est.privacy_ledger_.spent(DELTA)
    assert method == "pld"
    assert epsilon - 1e-6 <= spent <= epsilon
    sub = [e for e in est.privacy_ledger_.entries if e.kind == "subsampled_gaussian"]
    assert sum(e.count for e in sub) == est.n_iter_
    assert len({(e.mu, e.q) for e in sub}) == 1  # one noise multiplier, one rate
    assert 0 < sub[0].q < 1


def test_classifier_releases_one_subsampled_mechanism_per_step():
    est = _fit_clf(epsilon=1.0, delta=DELTA, n_iter=20)
    kinds = [e.kind for e in est.privacy_ledger_.entries]
    labels = [e.label for e in est.privacy_ledger_.entries]
    assert kinds.count("subsampled_gaussian") == 20
    assert labels.count("feature mean") == 1 and kinds.count("gaussian") == 2  # + class sizes
    assert est.group_weights_.shape == (2,)
    assert est.score(*_clf_data(seed=1)) > 0.8


def test_regressor_fits_and_averages():
    est = _fit_reg(epsilon=1.0, delta=DELTA, max_iter=50)
    assert est.n_iter_ == 50 and len(est.history_) == 50
    assert est.score(*_reg_data(seed=1)) > 0.8


@pytest.mark.parametrize("q, steps", [(0.05, 40), (0.5, 4)])
def test_noise_multiplier_matches_dp_accounting_and_half_overspends(q, steps):
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting import pld

    ledger = PrivacyLedger()
    ledger.gaussian(0.01, 0.2, count=3, label="other releases")
    z = subsampled_noise_within(ledger.entries, [(0.02, 0.4, 2)], q, steps, 1.0, DELTA)

    def independent(noise):  # dp-accounting's PLD, replace-one neighbours
        acc = pld.PLDAccountant(dp_accounting.NeighboringRelation.REPLACE_ONE,
                                value_discretization_interval=1e-3)
        acc.compose(dp_accounting.GaussianDpEvent(2 * 0.2 / 0.01), 3)  # replace distance 0.01
        acc.compose(dp_accounting.GaussianDpEvent(2 * 0.4 / 0.02), 2)
        acc.compose(dp_accounting.PoissonSampledDpEvent(
            q, dp_accounting.GaussianDpEvent(noise)), steps)
        return acc.get_epsilon(DELTA)

    assert independent(z) == pytest.approx(1.0, rel=1e-2)
    assert independent(z / 2) > 1.5
    with pytest.raises(ValueError, match="no privacy budget left"):
        subsampled_noise_within(ledger.entries, [(0.02, 0.001, 2)], q, steps, 1.0, DELTA)


def _spy_budget(seed=0):
    release = Release(Backend.from_arrays(np.zeros(1), random_state=seed), PrivacyLedger())
    return Budget(1.0, DELTA, rho=1.0, release=release)


def _released_noise():
    """The regressor's releases on a design of zeros: pure noise, and the recorded sigma."""
    obj = Objective(np.zeros((4000, 3)), np.zeros(4000), make_loss("squared"), LinearModel(3),
                    0.0, np)
    problem = KLProblem(obj, np.zeros(3), SolverConfig(clip=0.5, smoothness=1.0, n_params=3,
                                                       max_iter=300))
    budget = _spy_budget()
    seen = []
    release = budget.subsampled_gaussian
    budget.subsampled_gaussian = lambda v, *a, **k: seen.append(release(v, *a, **k)) or seen[-1]
    REG_SPECS["dpsgd_poisson"].fn(problem, budget, {"sampling_rate": 0.1})
    entry = budget.ledger.entries[-1]
    return float(np.std(np.concatenate(seen))), 0.5 / entry.mu


def test_drawn_noise_has_the_recorded_scale_and_halved_noise_fails():
    check_noise_scale(_released_noise)


def _traced_peak(run):
    run()  # warm the calibration cache (public accounting, not the data path)
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _runs(n):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 20)) / 5
    y = (X[:, 0] > 0).astype(int)
    data = LinearData(X, y, y, 2, 2, 1.0, 1.0, np)
    problem = MinimaxProblem(data, np.bincount(y).astype(float), n_iter=20)

    def clf():
        budget = _spy_budget()
        budget.mu = 0.5
        budget.epsilon = 2.0
        CLF_SPECS["dpsgd_poisson"].fn(problem, budget, {"sampling_rate": 0.01})

    obj = Objective(X, X[:, 0].copy(), make_loss("squared"), LinearModel(20), 0.0, np)
    kl = KLProblem(obj, np.zeros(20), SolverConfig(clip=1.0, smoothness=1.0, n_params=20,
                                                   max_iter=20))

    def reg():
        REG_SPECS["dpsgd_poisson"].fn(kl, _spy_budget(), {"sampling_rate": 0.01})

    return X.nbytes, (clf, reg)


def test_solvers_do_not_copy_x():
    # what grows with n: the accounting's own arrays (PLD grids) do not, so they are
    # measured on a small table and subtracted
    small_bytes, small = _runs(2_000)
    big_bytes, big = _runs(200_000)
    for run_small, run_big in zip(small, big):
        growth = _traced_peak(run_big) - _traced_peak(run_small)
        assert growth < (big_bytes - small_bytes) / 2


@pytest.mark.parametrize("fit", [_fit_clf, _fit_reg])
def test_same_seed_same_fit(fit):
    a, b = fit(epsilon=1.0, delta=DELTA), fit(epsilon=1.0, delta=DELTA)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-12)
    c = fit(epsilon=1.0, delta=DELTA, random_state=1)
    assert not np.allclose(a.coef_, c.coef_)


def test_sampling_rate_rule_and_option():
    assert sampling_rate(None, 200) == pytest.approx(0.02)
    assert sampling_rate(None, 200, private=False) == 1.0
    est = _fit_reg(epsilon=1.0, delta=DELTA, max_iter=20, solver_options={"sampling_rate": 0.3})
    assert est.history_[0]["sampling_rate"] == 0.3
    with pytest.raises(ValueError, match="sampling_rate"):
        _fit_reg(solver_options={"sampling_rate": 1.5})


def test_non_private_fit_adds_no_noise():
    est = _fit_reg(epsilon=math.inf)
    assert est.history_[0]["noise_multiplier"] == 0.0
    assert est.privacy_spent_[0] == math.inf
    assert est.score(*_reg_data(seed=1)) > 0.8
