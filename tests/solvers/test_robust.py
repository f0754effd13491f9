"""Tests of the paper-001 Goldstein solvers and the robust losses (issue 7)."""

import math

import numpy as np
import pytest

from skdp._backend import Backend
from skdp.solvers.losses.regression import make_loss
from skdp.minimax import PrivateMinimaxClassifier
from skdp.privacy.ledger import PrivacyLedger, approx_dp_to_zcdp, gaussian_rho
from skdp.privacy.release import Release
from skdp.privacy.tree import max_nodes_per_leaf
from skdp.regression import KLAdaptiveRegressor
from skdp.solvers import goldstein as G
from skdp.solvers.goldstein import config, o2nc, oracles
from skdp.solvers.losses.classification import ramp_loss

SOLVERS = sorted(G.GOLDSTEIN_SOLVERS)


def absolute(Z, T, xp):
    """Truncated absolute loss (tau = 1) in the GLMProblem convention."""
    loss = make_loss("truncated_absolute", truncation=1.0)
    return loss.value(Z[..., 0], T[..., 0], xp), loss.derivative(Z, T, xp)


def plain_absolute(Z, T, xp):
    """Untruncated absolute loss: an outlying record has a huge gradient and value."""
    return xp.abs(Z - T)[..., 0], xp.sign(Z - T)


def zero_loss(Z, T, xp):
    return xp.zeros_like(Z[..., 0]), xp.zeros_like(Z)


def robust_data(n=4000, d=2, frac=0.2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (1.5 * math.sqrt(d))
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    w = np.linspace(0.8, -0.6, d)
    y = X @ w
    y[rng.random(n) < frac] += 0.9  # one-sided gross outliers (within the target bound)
    return X, np.clip(y, -1, 1), w


# ------------------------------------------------------------- tree noise
def _oracle(problem, cfg, seed=0, order=None):
    backend = Backend.from_arrays(problem.A, random_state=seed)
    _, dirs, _, noise = o2nc._streams(backend)
    order = np.arange(problem.n) if order is None else order
    return oracles._SinglePassOracle(problem, cfg, oracles._Estimator(problem, cfg, dirs), order,
                                     Release(noise, PrivacyLedger()), "fo_single_pass")


def _noise_config(rho, period=12, n=400, p=3000):
    cfg = G.goldstein_config("fo_single_pass", n, p, 1.0, rho, 1.0, 1.0,
                             options=dict(period=period))
    return cfg


def _tree_noise_variance(rho, period=12, p=3000):
    """Per-step empirical per-coordinate variance of the released (pure-noise) estimates."""
    problem = G.GLMProblem(np.ones((400, p)) / math.sqrt(p), np.zeros((400, 1)), zero_loss, 1, np)
    cfg = _noise_config(rho, period, p=p)
    oracle = _oracle(problem, cfg)
    w = np.zeros(p)
    out = np.stack([oracle(w, w) for _ in range(2 * period)])
    return out, cfg


def test_tree_noise_count_per_leaf():
    """Var of TREE(t) per coordinate is sigma**2 popcount(idx), idx = ((t-1) mod Sigma) + 1;
    a fresh tree per period (paper 001 Alg. 1; its level range leaves t = Sigma out)."""
    rho, period = 0.5, 12
    out, cfg = _tree_noise_variance(rho, period)
    # sigma from the closed form of Prop. 2.5 with clipping: s = max(2 C1/B1, 2 C2/B2)
    s = max(2 * cfg.clip / cfg.anchor_batch, 2 * cfg.diff_clip / cfg.diff_batch)
    sigma = s * math.sqrt(max_nodes_per_leaf(period) / (2 * rho))
    assert cfg.sigma == pytest.approx(sigma, rel=1e-12)
    for t in range(2 * period):
        idx = t % period + 1
        ratio = out[t].var() / (sigma**2 * bin(idx).count("1"))
        assert abs(ratio - 1) < 6 * math.sqrt(2 / out.shape[1])  # chi-square, 6 sd
    cov = lambda a, b: float(np.mean(out[a] * out[b])) / sigma**2  # noqa: E731
    assert cov(1, 2) == pytest.approx(1.0, abs=0.15)  # t = 2, 3 share node (1, 1)
    assert cov(period - 1, period) == pytest.approx(0.0, abs=0.15)  # new period, new tree


def test_halved_noise_is_detected(monkeypatch):
    rho, period = 0.5, 12
    out, cfg = _tree_noise_variance(rho, period)
    full = out[0].var()
    monkeypatch.setattr(config, "tree_sigma", lambda s, r, h: 0.5 * s * math.sqrt(
        max_nodes_per_leaf(h) / (2 * r)))
    half, _ = _tree_noise_variance(rho, period)
    expected = (2 * cfg.clip / cfg.anchor_batch) ** 2 * max_nodes_per_leaf(period) / (2 * rho)
    assert abs(full / expected - 1) < 0.2
    assert half[0].var() / expected < 0.5  # the calibration check above would fail


def test_single_pass_spend_is_the_tree_gaussian():
    X, y, _ = robust_data(n=2000)
    reg = KLAdaptiveRegressor(loss="truncated_absolute", epsilon=1.0, delta=1e-6,
                              solver_options={"precondition": 0}, random_state=0).fit(X, y)
    cfg = reg.goldstein_config_
    s = cfg["extra"]["sensitivity"] * math.sqrt(max_nodes_per_leaf(cfg["period"]))
    assert gaussian_rho(s, cfg["sigma"]) == pytest.approx(approx_dp_to_zcdp(1.0, 1e-6), rel=1e-9)
    assert reg.privacy_spent_[0] <= 1.0 * (1 + 1e-9)
    assert [e["label"] for e in reg.privacy_ledger_.log()] == ["fo_single_pass tree"]


def test_multi_pass_sigmas_meet_the_budget():
    for n_a, n_d, s1, s2, rho, period in [(10, 90, 0.1, 0.02, 0.3, 10), (5, 0, 1.0, 1.0, 1.0, 1)]:
        sig1, sig2 = G.multi_pass_sigmas(n_a, n_d, s1, s2, rho, period)
        total = n_a * s1**2 / (2 * sig1**2) + (n_d * s2**2 / (2 * sig2**2) if n_d else 0)
        assert total == pytest.approx(rho, rel=1e-12)
    X, y, _ = robust_data(n=500)
    reg = KLAdaptiveRegressor(loss="truncated_absolute", solver="zo_multi_pass", epsilon=0.5,
                              max_iter=20, solver_options={"precondition": 0},
                              random_state=0).fit(X, y)
    assert reg.privacy_ledger_.rho == pytest.approx(reg.rho_, rel=1e-9)
    assert reg.privacy_spent_[0] <= 0.5 * (1 + 1e-9)


# ---------------------------------------------------- clipped sensitivities
@pytest.mark.parametrize("solver", ["fo_single_pass", "zo_single_pass"])
@pytest.mark.parametrize("position", [0, 5])  # the record in an anchor or a difference step
def test_adversarial_record_single_pass(solver, position):
    """Coupled neighbours (same z's, same streams): released estimates differ only in the
    period holding the record, by the clipped increment, of norm <= s_a or s_d (Lemma 3.4
    / 6.3 made deterministic by clipping)."""
    X, y, _ = robust_data(n=200, d=3)
    A = np.c_[X, np.ones(len(X))]
    A2, y2 = A.copy(), y.copy()
    period = 8
    cfg = G.goldstein_config(solver, 200, 4, 1.0, 0.5, 2.0, 1.0,
                             options=dict(period=period, diff_clip=0.3, max_step=0.05))
    row = cfg.anchor_batch + (position - 1) if position else 0  # sample read at that step
    rng = np.random.default_rng(1)
    zs = np.cumsum(rng.normal(scale=0.02, size=(2 * period + 2, 4)), axis=0)
    # far outside every bound (only clipping saves it); in a difference step its residual
    # changes sign between z_{t-1} and z_t, so its raw difference is huge too
    A2[row] = 100.0
    y2[row] = -1e6 if position == 0 else A2[row] @ (zs[position - 1] + zs[position]) / 2
    p1 = G.GLMProblem(A, y[:, None], plain_absolute, 1, np)
    p2 = G.GLMProblem(A2, y2[:, None], plain_absolute, 1, np)
    o1, o2 = _oracle(p1, cfg, seed=3), _oracle(p2, cfg, seed=3)
    diffs, z_prev = [], None
    for z in zs:
        diffs.append(np.linalg.norm(o1(z, z_prev) - o2(z, z_prev)))
        z_prev = z
    diffs = np.array(diffs)
    s_a, s_d = 2 * cfg.clip / cfg.anchor_batch, 2 * cfg.diff_clip / cfg.diff_batch
    bound = s_a if position == 0 else s_d
    assert np.all(diffs[:position] == 0)
    assert 0 < diffs[position] <= bound * (1 + 1e-12)
    np.testing.assert_allclose(diffs[position:period], diffs[position])  # a prefix sum
    assert np.all(diffs[period:] == 0)  # later periods: other samples, fresh trees


def test_adversarial_record_multi_pass():
    X, y, _ = robust_data(n=100, d=3)
    A = np.c_[X, np.ones(len(X))]
    A2, y2 = A.copy(), y.copy()
    A2[7], y2[7] = -50.0, 1e6
    cfg = G.goldstein_config("zo_multi_pass", 100, 4, 1.0, 0.5, 2.0, 1.0,
                             options=dict(period=3, max_step=0.05), max_iter=9)
    p1 = G.GLMProblem(A, y[:, None], plain_absolute, 1, np)
    p2 = G.GLMProblem(A2, y2[:, None], plain_absolute, 1, np)

    def oracle(problem):
        backend = Backend.from_arrays(A, random_state=5)
        _, dirs, _, noise = o2nc._streams(backend)
        return oracles._MultiPassOracle(problem, cfg, oracles._Estimator(problem, cfg, dirs),
                                        Release(noise, PrivacyLedger()), "zo_multi_pass", 32)

    o1, o2 = oracle(p1), oracle(p2)
    zs = np.cumsum(np.random.default_rng(2).normal(scale=0.02, size=(9, 4)), axis=0)
    prev_gap, z_prev = np.zeros(4), None
    for t, z in enumerate(zs):
        gap = o1(z, z_prev) - o2(z, z_prev)
        step = gap if t % 3 == 0 else gap - prev_gap  # anchors restart the recursion
        bound = 2 * (cfg.clip if t % 3 == 0 else cfg.diff_clip) / 100
        assert np.linalg.norm(step) <= bound * (1 + 1e-9)
        prev_gap, z_prev = gap, z


# ------------------------------------------------ convergence (eps = inf)
def test_infinite_epsilon_certified_goldstein_gap():
    """Truncated-l1 regression in 2-D: 80% of the targets follow w*, so w* is the global
    minimiser (zero loss on the inliers); the solver must reach it with a small certified
    gap at radius 2 alpha, while w = 0 has a large one."""
    X, y, w_star = robust_data(n=6000, d=2, frac=0.2, seed=1)
    reg = KLAdaptiveRegressor(loss="truncated_absolute", truncation=0.5, epsilon=np.inf,
                              fit_intercept=False, solver_options={"precondition": 0},
                              random_state=0).fit(X, y)
    assert np.linalg.norm(reg.coef_ - w_star) < 0.1
    gap = reg.goldstein_gap(X, y, random_state=0)
    radius = 2 * reg.goldstein_config_["radius"]
    start = G.goldstein_gap(G.GLMProblem(X, y[:, None], absolute, 1, np), np.zeros(2), radius,
                            random_state=0)
    assert gap < 0.05 < 0.2 < start


def test_min_norm_in_hull_matches_a_known_case():
    G_ = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert G.min_norm_in_hull(G_) == pytest.approx(math.sqrt(0.5), abs=1e-6)
    assert G.min_norm_in_hull(np.array([[1.0, 2.0], [-1.0, -2.0]])) < 1e-6


@pytest.mark.parametrize("solver", SOLVERS)
def test_each_solver_resists_outliers(solver):
    X, y, w = robust_data(n=4000, d=3, frac=0.2, seed=2)
    rng = np.random.default_rng(9)
    Xt = rng.normal(size=(2000, 3)) / (1.5 * math.sqrt(3))
    robust = KLAdaptiveRegressor(loss="truncated_absolute", solver=solver, truncation=0.5,
                                 epsilon=np.inf, random_state=0).fit(X, y)
    squared = KLAdaptiveRegressor(epsilon=np.inf, random_state=0).fit(X, y)
    mae = lambda r: np.mean(np.abs(r.predict(Xt) - Xt @ w))  # noqa: E731
    # zo_multi_pass runs 200 full-batch steps only (practical default): less converged
    assert mae(robust) < (0.75 if solver == "zo_multi_pass" else 0.5) * mae(squared)


# --------------------------------------------------------------- contract
@pytest.mark.parametrize("solver", SOLVERS)
def test_same_seed_same_model(solver):
    X, y, _ = robust_data(n=600, d=3)
    kw = dict(loss="truncated_absolute", solver=solver, epsilon=1.0, max_iter=30)
    a = KLAdaptiveRegressor(random_state=4, **kw).fit(X, y)
    b = KLAdaptiveRegressor(random_state=4, **kw).fit(X, y)
    c = KLAdaptiveRegressor(random_state=5, **kw).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.intercept_ == b.intercept_
    assert not np.array_equal(a.coef_, c.coef_)


def test_auto_solver_and_attributes():
    X, y, _ = robust_data(n=800, d=3)
    for loss in ("truncated_absolute", "capped_huber"):
        reg = KLAdaptiveRegressor(loss=loss, random_state=0).fit(X, y)
        assert reg.solver_ == "fo_single_pass"
        assert reg.goldstein_certificate_ >= 0
        assert not hasattr(reg, "clip_fraction_")  # a count of clipped private rows, unnoised
        assert reg.n_iter_ <= 400  # a single pass: two samples per step on average


def test_theory_mode_runs_and_reports():
    X, y, _ = robust_data(n=1000, d=3)
    for solver in SOLVERS:
        reg = KLAdaptiveRegressor(loss="truncated_absolute", solver=solver, theory=True,
                                  max_iter=40, random_state=0).fit(X, y)
        cfg = reg.goldstein_config_
        assert cfg["window"] * cfg["max_step"] <= cfg["radius"] + 1e-12  # M D <= alpha
        assert reg.privacy_spent_[0] <= 1.0 + 1e-9


@pytest.mark.parametrize("kwargs, match", [
    (dict(loss="truncated_absolute", truncation=0), "truncation"),
    (dict(loss="truncated_absolute", solver_options={"radius": -1.0}), "radius"),
    (dict(loss="truncated_absolute", goldstein_radius=-1.0), "goldstein_radius"),  # deprecated
    (dict(loss="truncated_absolute", solver="fo_single_pass", model="mlp"), "linear"),
    (dict(solver="zo_single_pass", loss="truncated_absolute", solver_options=dict(output="x")),
     "output"),
])
def test_bad_parameters_regressor(kwargs, match):
    X, y, _ = robust_data(n=200, d=3)
    with pytest.raises(ValueError, match=match):
        KLAdaptiveRegressor(**kwargs).fit(X, y)


@pytest.mark.parametrize("kwargs, match", [
    (dict(loss="ramp", solver="noisy_gd"), "paper-001"),
    (dict(solver="fo_single_pass"), "ramp"),
    (dict(loss="ramp", solver_options={"radius": 0.0}), "radius"),
    (dict(loss="ramp", goldstein_radius=0.0), "goldstein_radius"),  # deprecated
    (dict(loss="ramp", solver_options={"bogus": 1}), "unknown option"),
])
def test_bad_parameters_classifier(kwargs, match):
    X, y, _ = robust_data(n=200, d=3)
    with pytest.raises(ValueError, match=match):
        PrivateMinimaxClassifier(**kwargs).fit(X, y > 0)


# ------------------------------------------------------------------- ramp
def test_ramp_loss_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    for k in (1, 3):
        Z = rng.normal(size=(50, k))
        T = (np.sign(rng.normal(size=(50, 1))) if k == 1
             else np.eye(3)[rng.integers(3, size=50)])
        v, g = ramp_loss(Z, T, np)
        assert np.all((0 <= v) & (v <= 1))
        for j in range(k):
            e = np.zeros(k)
            e[j] = 1e-7
            num = (ramp_loss(Z + e, T, np)[0] - ramp_loss(Z - e, T, np)[0]) / 2e-7
            np.testing.assert_allclose(g[:, j], num, atol=1e-5)


def test_ramp_classifier_learns_and_is_deterministic():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 3)) / 2
    y = (X @ np.array([1.0, -1.0, 0.5]) > 0).astype(int)
    y_noisy = np.where(rng.random(3000) < 0.1, 1 - y, y)
    kw = dict(loss="ramp", epsilon=np.inf, group_sizes=np.bincount(y_noisy), random_state=0)
    a = PrivateMinimaxClassifier(**kw).fit(X, y_noisy)
    b = PrivateMinimaxClassifier(**kw).fit(X, y_noisy)
    assert a.solver_ == "fo_single_pass"
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_allclose(a.group_weights_, 0.5)
    # the balanced ramp risk decreases from its value 1 at theta = 0 (a descent check: a
    # run may end in a flat, Goldstein-stationary region of the ramp, see the user guide)
    margins = (2 * y_noisy - 1) * a.decision_function(X)
    assert np.mean(np.clip(1 - margins, 0, 1)) < 0.6
    assert PrivateMinimaxClassifier(**{**kw, "random_state": 1}).fit(X, y_noisy).score(X, y) > 0.8
    multi = PrivateMinimaxClassifier(loss="ramp", solver="zo_multi_pass", epsilon=2.0,
                                     n_iter=20, random_state=0)
    multi.fit(X, np.digitize(X[:, 0], [-0.3, 0.3]))
    assert multi.coef_.shape == (3, 3) and multi.privacy_spent_[0] <= 2.0 + 1e-9
