"""Streaming solvers of paper 003 (skdp.solvers.streaming.srgd) and the MF noise core
(privacy.matrix)."""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LinearRegression
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdp import (BudgetAccountant, BudgetExceededError, KLAdaptiveRegressor,
                  PrivateMinimaxClassifier)
from skdp._backend import Backend
from skdp.solvers.losses.regression import make_loss
from skdp.privacy.ledger import PrivacyLedger, approx_dp_to_gdp
from skdp.privacy.budget import Budget
from skdp.privacy.release import Release
from skdp.privacy.matrix import (BandedToeplitzNoise, MatrixMechanism, column_norm, mf_sigma,
                                 sqrt_toeplitz_coefficients, toeplitz_matrix,
                                 workload_coefficients, workload_noise_variance)
from skdp.solvers.minimax.data import LinearData
from skdp.solvers.kl.models import LinearModel, MLPModel
from skdp.solvers.streaming.srgd import STREAM_ALGORITHMS, StreamOptions, run_stream
from skdp.solvers.streaming.problems import ClassificationProblem, RegressionProblem

EPS, DELTA = 1.0, 1e-6


def _release(ledger, seed):
    return Release(Backend(np, None, np.random.default_rng(seed)), ledger)


def _budget(ledger, seed):
    """A budget recording in ``ledger``: the stream opens its own ``mu`` share of it."""
    return Budget(EPS, DELTA, math.inf, mu=math.inf, release=_release(ledger, seed))


def _matches(empirical, formula, rtol):
    return bool(np.all(np.abs(empirical / formula - 1.0) < rtol))


# -- the MF core ---------------------------------------------------------------------
@pytest.mark.parametrize("decays", [(1.0,), (1.0, 0.9), (1.0, 0.9, math.exp(-2.5))])
def test_sqrt_toeplitz_squares_to_the_workload(decays):
    C = toeplitz_matrix(sqrt_toeplitz_coefficients(30, decays), 30)
    W = toeplitz_matrix(workload_coefficients(30, decays), 30)
    np.testing.assert_allclose(C @ C, W, atol=1e-12)
    assert np.all(C >= 0)


def test_sqrt_toeplitz_regression_values():
    """RMSE of prefix sums at T = 120: 7.78 (independent noise) and 2.43 (sqrt A)."""
    for coef, rmse in [([1.0], 7.78), (sqrt_toeplitz_coefficients(120), 2.43)]:
        var = workload_noise_variance(coef, 120) * column_norm(coef) ** 2
        assert math.sqrt(var.mean()) == pytest.approx(rmse, abs=0.01)


def test_column_norm_is_the_sensitivity_factor():
    coef = sqrt_toeplitz_coefficients(8)
    for T in (3, 8, 20):
        C = toeplitz_matrix(coef, T)
        assert column_norm(coef, T) == pytest.approx(np.linalg.norm(C, axis=0).max())
        assert column_norm(coef, T) <= column_norm(coef) + 1e-15
    with pytest.raises(ValueError, match="non-negative"):
        column_norm([1.0, -0.5])


def test_banded_noise_is_forward_substitution():
    coef = sqrt_toeplitz_coefficients(4)
    noise = BandedToeplitzNoise((3,), coef, 2.0, Backend.from_arrays(np.zeros(1), random_state=0))
    w = np.stack([noise.next() for _ in range(10)])
    Z = np.random.default_rng(0).standard_normal((10, 3)) * 2.0  # the same draws
    np.testing.assert_allclose(w, np.linalg.solve(toeplitz_matrix(coef, 10), Z), atol=1e-12)
    assert len(noise.past) == 3  # O(band d) memory


def test_matrix_mechanism_records_once_and_continues_across_chunks():
    coef = sqrt_toeplitz_coefficients(4)
    ledger = PrivacyLedger()
    mech = MatrixMechanism.open(_release(ledger, 0), 0.3, 2.0, coef, label="MF")
    (entry,) = ledger.entries
    assert entry.rho == pytest.approx((0.3 * column_norm(coef)) ** 2 / (2 * 2.0**2))
    backend = Backend(np, None, np.random.default_rng(1))
    first = mech.noise((3,), backend)
    w = [first.next() for _ in range(5)]
    second = mech.noise((3,), backend, past=first.past)  # the next chunk of the stream
    w += [second.next() for _ in range(5)]
    whole = BandedToeplitzNoise((3,), coef, 2.0, Backend(np, None, np.random.default_rng(1)))
    np.testing.assert_allclose(np.stack(w), np.stack([whole.next() for _ in range(10)]),
                               rtol=0, atol=0)
    assert len(ledger.entries) == 1


@pytest.mark.parametrize("band,decays", [(64, (1.0,)), (8, (1.0, 0.9, math.exp(-2.5)))])
def test_mf_noise_variance_matches_formula(band, decays):
    """Empirical variance of the answers' noise W w (20000 independent coordinates)."""
    T, sigma = 40, 1.5
    coef = sqrt_toeplitz_coefficients(band, decays)
    noise = BandedToeplitzNoise((20000,), coef, sigma,
                                Backend.from_arrays(np.zeros(1), random_state=1))
    w = np.stack([noise.next() for _ in range(T)])
    W = toeplitz_matrix(workload_coefficients(T, decays), T)
    empirical = (W @ w).var(axis=1)
    formula = workload_noise_variance(coef, T, sigma, decays)
    assert _matches(empirical, formula, 0.06)
    assert not _matches(empirical, workload_noise_variance(coef, T, sigma / 2, decays), 0.06)


# -- a problem with no signal: the iterates are pure noise ------------------------------
class _Silent:
    """Zero gradients for every example; counts residual calls per example."""

    def __init__(self, n, d, dtype=np.float64):
        self.n, self.shape, self.n_params, self.dtype = n, (d,), d, dtype
        self.lipschitz = self.smoothness = self.curvature = 1.0

    def initial(self):
        return np.zeros(self.shape)

    def batch(self, idx):
        return idx

    def residuals(self, batch, theta):
        return None

    def clipped_sum(self, batch, a, res1, c, res0, clip):
        return np.zeros(self.shape)

    def penalty(self, theta):
        return 0.0


def test_memf_noise_in_the_iterate_matches_formula():
    """memf without momentum: theta_T = -lr * (prefix sum of w), w of std 2G/B ||C|| / mu."""
    n, d, B, G, lr = 400, 20000, 20, 0.7, 0.5
    opts = StreamOptions("memf", 1.0, 1.0, 1.0, batch_size=B, learning_rate=lr, momentum=0.0,
                         clip=G, band=16, workload="ones")
    mu = approx_dp_to_gdp(EPS, DELTA)
    ledger = PrivacyLedger()
    state = run_stream(_Silent(n, d), opts, mu=mu, epsilon=EPS, delta=DELTA,
                       budget=_budget(ledger, 0))
    coef = sqrt_toeplitz_coefficients(16)
    sigma = mf_sigma(2 * G / B, mu, coef)
    T = n // B
    formula = lr**2 * workload_noise_variance(coef, T, sigma)[-1]
    empirical = float(np.var(state.theta))
    assert empirical == pytest.approx(formula, rel=0.05)
    assert empirical != pytest.approx(formula / 4, rel=0.05)  # halved noise fails
    assert ledger.spent(DELTA)[0] == pytest.approx(EPS, rel=1e-9)


def test_srgd_tree_noise_matches_formula():
    """srgd: the noisy prefix sum after T steps carries sigma_node**2 popcount(T)."""
    n, d, B, G = 22 * 10, 20000, 10, 0.3
    opts = StreamOptions("srgd", 1.0, 1.0, 1.0, batch_size=B, clip=G)
    mu = approx_dp_to_gdp(EPS, DELTA)
    ledger = PrivacyLedger()
    state = run_stream(_Silent(n, d), opts, mu=mu, epsilon=EPS, delta=DELTA,
                       budget=_budget(ledger, 0))
    T = 22  # 10110: popcount 3, a leaf is in at most floor(log2 22) + 1 = 5 nodes
    sigma_node = 2 * G / B * math.sqrt(5) / mu
    assert float(np.var(state.prefix)) == pytest.approx(3 * sigma_node**2, rel=0.05)
    assert float(np.var(state.prefix)) != pytest.approx(3 * sigma_node**2 / 4, rel=0.05)
    assert ledger.spent(DELTA)[0] == pytest.approx(EPS, rel=1e-9)
    assert state.step == T


# -- each example's gradient at exactly the steps the algorithm says --------------------
def _class_data(n=230, p=4, classes=3, seed=0):
    X, y = make_classification(n_samples=n, n_features=p, n_informative=3, n_redundant=0,
                               n_classes=classes, n_clusters_per_class=1, random_state=seed)
    X = X / np.linalg.norm(X, axis=1).max()
    return LinearData(X, y, np.zeros(n, dtype=int), classes, 1, 1.0, 1.0, np)


class _Counted(ClassificationProblem):
    def __init__(self, data):
        super().__init__(data)
        self.calls = []  # (step, example ids, theta)

    def batch(self, idx):
        self.current_idx = np.asarray(idx)
        return super().batch(idx)

    def residuals(self, batch, theta):
        self.calls.append((self.current_idx.copy(), theta.copy()))
        return super().residuals(batch, theta)


@pytest.mark.parametrize("solver", STREAM_ALGORITHMS)
def test_gradients_evaluated_at_the_right_steps(solver):
    problem = _Counted(_class_data())
    opts = StreamOptions.from_dict(solver, dict(batch_size=23), lipschitz=problem.lipschitz,
                                   smoothness=problem.smoothness, curvature=problem.curvature)
    iterates = []
    run_stream(problem, opts, mu=1.0, epsilon=EPS, delta=DELTA,
               budget=_budget(PrivacyLedger(), 0))
    two_points = solver in ("srgd", "srg_memf")
    counts = np.zeros(problem.n, dtype=int)
    calls = iter(problem.calls)
    for t in range(10):
        idx, theta = next(calls)
        counts[idx] += 1
        iterates.append(theta)  # x_t
        if two_points and t > 0:
            idx0, theta0 = next(calls)
            assert np.array_equal(idx0, idx)  # the current batch's examples ...
            np.testing.assert_array_equal(theta0, iterates[t - 1])  # ... at x_{t-1}
            counts[idx0] += 1
    assert next(calls, None) is None
    assert all(len(i) == 23 for i in [c[0] for c in problem.calls])
    # one pass: every example in one batch; 2 evaluations (1 in batch 0) or 1
    first = problem.calls[0][0]
    expected = np.full(problem.n, 2 if two_points else 1)
    expected[first] = 1
    np.testing.assert_array_equal(counts, expected)


# -- clipping: rank-1 norms and the sensitivity ---------------------------------------
def _explicit_clipped_sum(problem, batch_ids, a, th1, c, th0, clip):
    total = 0.0
    for i in batch_ids:
        one = problem.batch(np.array([i]))
        g1 = problem.clipped_sum(one, a, problem.residuals(one, th1), 0.0, None, np.inf)
        g0 = problem.clipped_sum(one, c, problem.residuals(one, th0), 0.0, None, np.inf)
        diff = g1 - g0
        total = total + diff * min(1.0, clip / max(np.linalg.norm(diff), 1e-300))
    return total


@pytest.mark.parametrize("classes", [2, 3])
def test_rank_one_clipping_equals_explicit_loop(classes):
    problem = ClassificationProblem(_class_data(n=40, classes=classes))
    rng = np.random.default_rng(0)
    th1, th0 = rng.normal(size=problem.shape), rng.normal(size=problem.shape)
    ids = np.arange(15)
    batch = problem.batch(ids)
    fast = problem.clipped_sum(batch, 3.0, problem.residuals(batch, th1), 2.0,
                               problem.residuals(batch, th0), 0.4)
    np.testing.assert_allclose(fast, _explicit_clipped_sum(problem, ids, 3.0, th1, 2.0, th0, 0.4),
                               atol=1e-12)


@pytest.mark.parametrize("model", ["linear", "mlp"])
def test_regression_clipping_equals_explicit_loop(model):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(12, 3)) / 2, rng.normal(size=12)
    m = LinearModel(3) if model == "linear" else MLPModel(3, 4)
    problem = RegressionProblem(X, y, make_loss("squared"), m, 0.0, np, clip=1.0, smoothness=1.0,
                                curvature=1.0)
    w1, w0 = rng.normal(size=m.n_params), rng.normal(size=m.n_params)
    ids = np.arange(12)
    batch = problem.batch(ids)
    fast = problem.clipped_sum(batch, 1.0, problem.residuals(batch, w1), 0.3,
                               problem.residuals(batch, w0), 0.5)
    np.testing.assert_allclose(fast, _explicit_clipped_sum(problem, ids, 1.0, w1, 0.3, w0, 0.5),
                               atol=1e-12)


def test_clipped_difference_sensitivity_with_adversarial_record():
    """Replacing one record moves only its batch's clipped sum, by at most 2G."""
    data = _class_data(n=120)
    X_adv = data.X.copy()
    y_adv = np.argmax(data.targets, axis=1).copy()
    X_adv[7] = 50.0 * np.ones(data.p)  # far outside the bound: rows are clipped
    y_adv[7] = (y_adv[7] + 1) % 3
    other = LinearData(X_adv, y_adv, np.zeros(120, dtype=int), 3, 1, 1.0, 1.0, np)
    problems = [_Counted(data), ClassificationProblem(other)]
    G, B = 0.05, 12
    opts = StreamOptions.from_dict("srg_memf", dict(batch_size=B, clip=G, learning_rate=20.0),
                                   lipschitz=1.0, smoothness=1.0, curvature=1.0)
    run_stream(problems[0], opts, mu=math.inf, epsilon=math.inf, delta=DELTA,
               budget=_budget(PrivacyLedger(), 3))
    # replay the recorded iterates (noise off) on both datasets
    calls = problems[0].calls
    t, k, moved = 0, 0, []
    while k < len(calls):
        idx, x = calls[k]
        prev = calls[k + 1][1] if (t > 0 and k + 1 < len(calls)) else None
        k += 1 if prev is None else 2
        sums = []
        for pb in problems:
            batch = ClassificationProblem.batch(pb, idx)
            r0 = None if prev is None else ClassificationProblem.residuals(pb, batch, prev)
            sums.append(pb.clipped_sum(batch, 1.0, ClassificationProblem.residuals(pb, batch, x),
                                       opts.decay if prev is not None else 0.0, r0, G))
        moved.append((7 in idx, float(np.linalg.norm(sums[0] - sums[1]))))
        t += 1
    assert sum(inside for inside, _ in moved) == 1
    for inside, change in moved:
        assert change <= 2 * G + 1e-12 if inside else change == 0.0
    assert max(change for _, change in moved) > G  # the adversary does move it


# -- utility and determinism ------------------------------------------------------------
@pytest.mark.parametrize("solver", STREAM_ALGORITHMS)
def test_eps_inf_reaches_the_nonprivate_optimum(solver):
    """Least squares with a full-rank design (strongly convex), realisable: one pass suffices."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 4)) / 3
    y = X @ np.array([0.8, -0.6, 0.4, 0.1]) + 0.1
    reg = KLAdaptiveRegressor(epsilon=math.inf, solver=solver, random_state=0).fit(X, y)
    opt = LinearRegression().fit(X, y)
    assert np.linalg.norm(reg.coef_ - opt.coef_) < 0.02
    assert abs(reg.intercept_ - opt.intercept_) < 0.02


@pytest.mark.parametrize("solver", ["srgd", "srg_memf"])
def test_same_seed_same_model(solver):
    X, y = make_classification(n_samples=500, n_features=6, random_state=0)
    fit = lambda seed: PrivateMinimaxClassifier(solver=solver, group_by=None,  # noqa: E731
                                                random_state=seed).fit(X / 6, y).coef_
    np.testing.assert_array_equal(fit(0), fit(0))
    assert not np.array_equal(fit(0), fit(1))
    reg = lambda seed: KLAdaptiveRegressor(solver=solver, random_state=seed).fit(  # noqa: E731
        X / 6, y).coef_
    np.testing.assert_array_equal(reg(0), reg(0))


def test_classifier_private_accuracy():
    X, y = make_classification(n_samples=20000, n_features=10, n_informative=6, n_classes=3,
                               n_clusters_per_class=1, random_state=0)
    X = X / 6
    for solver in STREAM_ALGORITHMS:
        clf = PrivateMinimaxClassifier(epsilon=2.0, solver=solver, group_by=None,
                                       random_state=0).fit(X, y)
        assert clf.score(X, y) > 0.7, solver
        assert clf.privacy_spent_[0] <= 2.0


# -- partial_fit and the stream's accounting ------------------------------------------
def test_partial_fit_accounting_classifier():
    X, y = make_classification(n_samples=3000, n_features=5, random_state=0)
    X = X / 5
    acc = BudgetAccountant(epsilon=1.5, delta=1e-5)
    clf = PrivateMinimaxClassifier(epsilon=1.0, solver="srg_memf", group_by=None,
                                   stream_chunks="disjoint", accountant=acc, random_state=0)
    clf.partial_fit(X[:1000], y[:1000], classes=[0, 1])
    spent, ledger_size = clf.privacy_spent_, len(clf.privacy_ledger_.entries)
    steps = clf.n_iter_
    for k in (1, 2):
        clf.partial_fit(X[1000 * k:1000 * (k + 1)], y[1000 * k:1000 * (k + 1)])
    assert len(acc.spends) == 1 and acc.total()[0] == pytest.approx(1.0, rel=1e-6)
    assert clf.privacy_spent_ == spent and len(clf.privacy_ledger_.entries) == ledger_size
    assert clf.n_iter_ == 3 * steps and clf.checkpoint().n_seen == 3000
    assert clf.score(X, y) > 0.7
    with pytest.raises(BudgetExceededError):  # fit starts a new stream: charged again
        clf.fit(X, y)
    assert len(acc.spends) == 1


def test_partial_fit_accounting_regressor():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 3)) / 3
    y = np.clip(X @ np.array([1.0, -1.0, 0.5]), -1, 1)
    acc = BudgetAccountant()
    reg = KLAdaptiveRegressor(epsilon=1.0, solver="memf", stream_chunks="disjoint",
                              accountant=acc, random_state=0)
    for k in range(4):
        reg.partial_fit(X[1000 * k:1000 * (k + 1)], y[1000 * k:1000 * (k + 1)])
    assert len(acc.spends) == 1 and reg.privacy_spent_[0] <= 1.0
    assert reg._stream.calls == 4 and reg.score(X, y) > 0.5
    with pytest.raises(ValueError, match="features"):
        reg.partial_fit(X[:10, :2], y[:10])
    reg.set_params(epsilon=2.0)
    with pytest.raises(ValueError, match="parameters changed"):
        reg.partial_fit(X[:10], y[:10])


def test_partial_fit_needs_a_streaming_solver():
    for est in (PrivateMinimaxClassifier(), KLAdaptiveRegressor(solver="noisy_gd")):
        assert not hasattr(est, "partial_fit")
        with pytest.raises(AttributeError) as info:
            est.partial_fit(np.zeros((4, 2)), np.arange(4) % 2)
        assert "streaming solver" in str(info.value.__cause__)


def test_streaming_classifier_needs_one_group():
    X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    with pytest.raises(ValueError, match="one group"):
        PrivateMinimaxClassifier(solver="srg_memf", group_sizes=[100, 100]).fit(X / 4, y)
    with pytest.raises(ValueError, match="not in classes_"):
        PrivateMinimaxClassifier(solver="dpsgd", group_by=None).partial_fit(
            X / 4, y, classes=[0, 5])


# decay at its open bound; an unknown key, batch_size 0 and a workload outside the choices:
# tests/solvers/test_solvers.py (misspelt option, out-of-range option)
@pytest.mark.parametrize("options", [dict(decay=1.0)])
def test_bad_solver_options(options):
    X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    with pytest.raises(ValueError, match="solver_options"):
        PrivateMinimaxClassifier(solver="srg_memf", group_by=None,
                                 solver_options=options).fit(X / 4, y)


def test_sklearn_partial_fit_checks():
    from sklearn.utils.estimator_checks import (check_classifiers_train,
                                                check_estimators_partial_fit_n_features,
                                                check_fit_idempotent)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for est in (PrivateMinimaxClassifier(solver="srg_memf", group_by=None, random_state=0),
                    KLAdaptiveRegressor(solver="srgd", random_state=0)):
            check_estimators_partial_fit_n_features(type(est).__name__, est)
            check_fit_idempotent(type(est).__name__, est)
        check_classifiers_train("PrivateMinimaxClassifier",
                                PrivateMinimaxClassifier(solver="srg_memf", group_by=None,
                                                         epsilon=math.inf, random_state=0))


@parametrize_with_checks([PrivateMinimaxClassifier(solver="srg_memf", group_by=None,
                                                   random_state=0),
                          KLAdaptiveRegressor(solver="srgd", random_state=0)],
                         expected_failed_checks=lambda est: est._expected_failed_checks())
def test_sklearn_compatible_streaming(estimator, check):
    """The whole check suite, partial_fit checks included, for streaming solvers."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


def test_srg_memf_with_no_decay_is_memf():
    """c = 0 reproduces DP-MEMF (paper 003 Alg. 2) bit for bit."""
    X, y = make_classification(n_samples=600, n_features=5, random_state=0)
    fit = lambda solver, opts: PrivateMinimaxClassifier(  # noqa: E731
        solver=solver, group_by=None, solver_options=opts, random_state=3).fit(X / 5, y).coef_
    np.testing.assert_array_equal(fit("srg_memf", dict(decay=0.0)), fit("memf", None))


def test_srgd_theory_mode_uses_theorem_constants():
    from skdp.solvers.streaming.srgd import theory_constants
    X, y = make_classification(n_samples=2000, n_features=5, random_state=0)
    clf = PrivateMinimaxClassifier(epsilon=2.0, solver="srgd", theory=True, group_by=None,
                                   random_state=0).fit(X / 5, y)
    A = math.sqrt(2.0)  # rows of norm <= 1 plus the intercept feature 1
    B, beta, clip = theory_constants(A, A**2 / 4, 10.0, 2000, 6, 2.0, DELTA)
    state = clf._stream
    assert (state.batch_size, state.beta, state.clip) == (B, pytest.approx(beta), clip)
    assert clf.n_iter_ == math.ceil(2000 / B) and clf.privacy_spent_[0] <= 2.0


def test_failed_chunk_leaves_the_stream_untouched(monkeypatch):
    """A chunk interrupted midway released nothing: the stream (rng included) is restored."""
    X, y = make_classification(n_samples=900, n_features=5, random_state=0)
    X = X / 5
    clf = PrivateMinimaxClassifier(solver="srg_memf", group_by=None, random_state=0)
    clf.partial_fit(X[:300], y[:300])
    before = clf._stream
    calls = []

    def interrupt(self, batch, theta):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(self, batch, theta)

    original = ClassificationProblem.residuals
    monkeypatch.setattr(ClassificationProblem, "residuals", interrupt)
    with pytest.raises(KeyboardInterrupt):
        clf.partial_fit(X[300:600], y[300:600])
    monkeypatch.setattr(ClassificationProblem, "residuals", original)
    assert clf._stream is before and before.step == clf.n_iter_
    twin = PrivateMinimaxClassifier(solver="srg_memf", group_by=None, random_state=0)
    for est in (clf, twin):
        if est is twin:
            est.partial_fit(X[:300], y[:300])
        est.partial_fit(X[300:600], y[300:600])
    np.testing.assert_array_equal(clf.coef_, twin.coef_)
