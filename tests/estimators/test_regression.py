"""Tests of KLAdaptiveRegressor (issue 5, paper 004)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats
import sklearn
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks

from skdp import BudgetAccountant, BudgetExceededError, PrivacyLeakWarning
from skdp._backend import Backend
from skdp.solvers.losses.regression import LOSSES, make_loss
from skdp.privacy.ledger import (PrivacyLedger, approx_dp_to_gdp, approx_dp_to_zcdp,
                                 zcdp_to_approx_dp)
from skdp.privacy.budget import Budget
from skdp.privacy.release import Release
from skdp.regression import KLAdaptiveRegressor, SOLVER_SPECS, resolve_solver
from skdp.solvers.spec import solvers_with
from skdp.solvers.kl.gd import noisy_gd
from skdp.solvers.kl.models import LinearModel, MLPModel
from skdp.solvers.kl.problem import KLProblem, Objective, SolverConfig

# the paper-004 and paper-003 solvers (paper 001's: tests/solvers/test_robust.py)
ALL_SOLVERS = sorted(name for name, spec in SOLVER_SPECS.items() if spec.family != "goldstein")
STREAMING_SOLVERS = solvers_with(SOLVER_SPECS, streaming=True)


def make_data(n=300, d=3, seed=0, noise=0.05):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (2 * math.sqrt(d))
    X /= np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)  # inside the bound
    y = X @ np.linspace(1.0, -0.5, d) + 0.2 + noise * rng.normal(size=n)
    return X, np.clip(y, -1, 1)


def solver_kwargs(solver):
    """Parameters that make each solver applicable (spider needs gamma)."""
    return dict(alpha=0.05) if solver == "spider" else {}


# ---------------------------------------------------------------- accounting
def test_zcdp_reference_value():
    assert zcdp_to_approx_dp(1 / 32, 1e-3) == pytest.approx(0.6880024554878086, abs=1e-9)
    assert approx_dp_to_zcdp(0.6880024554878086, 1e-3) == pytest.approx(1 / 32, rel=1e-7)


def test_fit_budget_is_exact_conversion():
    X, y = make_data()
    reg = KLAdaptiveRegressor(epsilon=0.7, delta=1e-5, random_state=0).fit(X, y)
    assert reg.rho_ == pytest.approx(approx_dp_to_gdp(0.7, 1e-5) ** 2 / 2)
    assert reg.privacy_spent_[0] <= 0.7 * (1 + 1e-9)
    reg = KLAdaptiveRegressor(epsilon=0.7, delta=1e-5, solver="stationary_gd",
                              random_state=0).fit(X, y)  # an exponential mechanism: zCDP
    assert reg.rho_ == pytest.approx(approx_dp_to_zcdp(0.7, 1e-5))
    assert reg.privacy_spent_[0] <= 0.7 * (1 + 1e-9)


@pytest.mark.parametrize("eps, delta", [(0.1, 1e-6), (0.5, 1e-5), (1.0, 1e-6), (5.0, 1e-8),
                                        (20.0, 1e-4)])
@pytest.mark.parametrize("kwargs", [{}, dict(solver_options={"precondition": 0.0}),
                                    dict(solver="noisy_gd")])
def test_default_ledger_spends_the_stated_epsilon(eps, delta, kwargs):
    """Issue 18: nothing unspent by calibration slack (GDP calibration, filter emptied)."""
    X, y = make_data(n=500)
    reg = KLAdaptiveRegressor(epsilon=eps, delta=delta, random_state=0, **kwargs).fit(X, y)
    spent, method = reg.privacy_ledger_.spent(delta)
    assert method == "gdp"
    assert abs(spent - eps) < 1e-6
    assert reg.privacy_spent_[0] == pytest.approx(eps, abs=1e-6)


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 60), d=st.integers(1, 4), eps=st.floats(0.05, 20.0),
       solver=st.sampled_from(ALL_SOLVERS), seed=st.integers(0, 2**16),
       scale=st.floats(0.01, 100.0), snr=st.sampled_from([1.0, 2.0]), theory=st.booleans(),
       precondition=st.sampled_from([0.0, 0.2]))
def test_logged_costs_never_exceed_budget(n, d, eps, solver, seed, scale, snr, theory,
                                          precondition):
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(n, d)) * scale, rng.normal(size=n) * scale
    reg = KLAdaptiveRegressor(epsilon=eps, solver=solver, random_state=seed, max_iter=300,
                              theory=theory, solver_options={
                                  k: v for k, v in dict(snr=snr, precondition=precondition).items()
                                  if k in SOLVER_SPECS[solver].option_names},
                              accountant=BudgetAccountant(),  # each example its own dataset
                              **solver_kwargs(solver)).fit(X, y)
    total = sum(e["count"] * e["rho"] for e in reg.privacy_ledger_.log())
    if solver != "dpsgd_poisson":  # PLD-accounted (its zCDP entries are the q = 1 bound)
        assert total <= reg.rho_ * (1 + 1e-9)
    assert reg.privacy_spent_[0] <= eps * (1 + 1e-9)


@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_each_solver_within_budget_on_larger_data(solver):
    X, y = make_data(n=2000, d=5)
    reg = KLAdaptiveRegressor(epsilon=0.5, solver=solver, random_state=1,
                              **solver_kwargs(solver)).fit(X, y)
    total = sum(e["count"] * e["rho"] for e in reg.privacy_ledger_.log())
    if solver == "dpsgd_poisson":  # PLD-accounted (its zCDP entries are the q = 1 bound)
        assert reg.privacy_spent_[0] <= 0.5 * (1 + 1e-9)
    else:
        assert total <= reg.rho_ * (1 + 1e-9)
    assert reg.solver_ == solver


# -------------------------------------------------------------- noise level
def _noisy_gd_noise(sigma_factor, monkeypatch, n=50, d=40, steps=5, fits=30):
    """chi-square statistic of noisy_gd's noise on data with zero gradients."""
    obj = Objective(np.zeros((n, d)), np.zeros(n), make_loss("squared"), LinearModel(d), 0.0, np)
    cfg = SolverConfig(clip=1.0, smoothness=1.0, n_params=d, max_iter=steps)
    rho = 0.3
    calibrated = (2 * 1.0 / n) * math.sqrt(steps / (2 * rho))
    if sigma_factor != 1:  # a bug that adds less noise than the ledger records
        real = Backend.normal
        monkeypatch.setattr(Backend, "normal", lambda self, shape, scale=1.0, dtype=None:
                            real(self, shape, sigma_factor * scale, dtype))
    stat = 0.0
    for seed in range(fits):
        backend = Backend.from_arrays(np.zeros(1), random_state=seed)
        budget = Budget(1.0, 1e-6, rho, release=Release(backend, PrivacyLedger()))
        res = noisy_gd(KLProblem(obj, np.zeros(d), cfg), budget, {})
        # w_T = -eta * sum of T noise vectors: N(0, T sigma^2) per coordinate (eta = 1)
        stat += float(np.sum(res.solution**2)) / (steps * calibrated**2)
        assert res.history[0]["sigma"] == pytest.approx(calibrated)
    dof = fits * d
    return abs(stat - dof) / math.sqrt(2 * dof)


def test_noise_variance_matches_calibrated_sigma(monkeypatch):
    assert _noisy_gd_noise(1.0, monkeypatch) < 4.0


def test_chi_square_detects_halved_noise(monkeypatch):
    assert _noisy_gd_noise(0.5, monkeypatch) > 4.0


def test_adaptive_gd_norm_noise_sd():
    """With zero gradients the first released norm is N(0, sigma_hat**2)."""
    n, d, eps, delta = 200, 2, 1.0, 1e-6
    rho = approx_dp_to_gdp(eps, delta) ** 2 / 2  # GDP calibration (all releases Gaussian)
    sigma_hat = (2 * 1.0 / n) / math.sqrt(2 * math.sqrt(rho) / n)
    norms = []
    for seed in range(300):
        reg = KLAdaptiveRegressor(epsilon=eps, delta=delta, solver="adaptive_gd",
                              solver_options={"precondition": 0},
                                  max_iter=1, clip_norm=1.0, fit_intercept=False,
                                  random_state=seed)
        reg.fit(np.zeros((n, d)), np.zeros(n))
        norms.append(reg.history_[0]["noisy_norm"])
    assert stats.kstest(np.array(norms) / sigma_hat, "norm").pvalue > 1e-3


def test_gaussian_sensitivity_of_clipped_gradients():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 4)), rng.normal(size=30)
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = 1e3, -1e3
    for model in (LinearModel(4), MLPModel(4, 3)):
        w = rng.normal(size=model.n_params)
        w1 = w + 0.01 * rng.normal(size=model.n_params)
        a = Objective(X, y, make_loss("squared"), model, 0.0, np)
        b = Objective(X2, y2, make_loss("squared"), model, 0.0, np)
        gap = a.clipped_grad(w, 0.7) - b.clipped_grad(w, 0.7)
        assert np.linalg.norm(gap) <= 2 * 0.7 / 30 + 1e-12
        step = np.linalg.norm(w1 - w)
        gap = a.clipped_diff(w1, w, 2.0 * step) - b.clipped_diff(w1, w, 2.0 * step)
        assert np.linalg.norm(gap) <= 2 * 2.0 * step / 30 + 1e-12


# -------------------------------------------------------- non-private limit
def _ridge_solution(X, y, alpha, bound=1.0):
    Xd = np.c_[X, np.full(len(X), bound)]
    w = np.linalg.solve(Xd.T @ Xd / len(X) + alpha * np.eye(Xd.shape[1]), Xd.T @ y / len(X))
    return w[:-1], w[-1] * bound


@pytest.mark.parametrize("solver", [s for s in ALL_SOLVERS if s not in STREAMING_SOLVERS])
def test_infinite_epsilon_reaches_optimum(solver):  # one pass cannot: tests/solvers/test_srgd.py
    X, y = make_data(n=200, d=3)
    options = {"ppm": dict(max_outer=300, max_inner=30)}.get(solver, {})
    if "precondition" in SOLVER_SPECS[solver].option_names:
        options["precondition"] = 0
    reg = KLAdaptiveRegressor(epsilon=np.inf, solver=solver, alpha=0.05,
                              clip_norm=100.0, max_iter=None if solver == "ppm" else 3000,
                              solver_options=options, random_state=0).fit(X, y)
    coef, intercept = _ridge_solution(X, y, 0.05)
    np.testing.assert_allclose(reg.coef_, coef, atol=1e-4)
    assert reg.intercept_ == pytest.approx(intercept, abs=1e-4)


def test_infinite_epsilon_with_preconditioning_is_ols():
    X, y = make_data(n=200, d=3)
    reg = KLAdaptiveRegressor(epsilon=np.inf, clip_norm=100.0, random_state=0).fit(X, y)
    coef, intercept = _ridge_solution(X, y, 0.0)
    np.testing.assert_allclose(reg.coef_, coef, atol=1e-6)
    assert reg.intercept_ == pytest.approx(intercept, abs=1e-6)


@pytest.mark.parametrize("solver", ["adaptive_gd", "noisy_gd", "ppm", "srgd", "fo_single_pass"])
def test_infinite_epsilon_is_recorded_as_an_infinite_spend(solver):
    """epsilon=inf releases the exact fit: privacy_spent_ and the accountant say inf, not 0."""
    X, y = make_data(n=100, d=2)
    acc = BudgetAccountant()
    reg = KLAdaptiveRegressor(epsilon=np.inf, solver=solver, max_iter=3, accountant=acc,
                              random_state=0).fit(X, y)
    assert reg.privacy_spent_ == (math.inf, 1e-6)
    assert reg.privacy_method_ != "none"
    assert reg.privacy_ledger_.epsilon(1e-6) == math.inf
    assert acc.total() == (math.inf, 1e-6)


def test_default_is_close_to_non_private_on_20k_rows():
    X, y = make_data(n=20000, d=5, noise=0.2)
    Xt, yt = make_data(n=5000, d=5, seed=1, noise=0.2)
    exact = KLAdaptiveRegressor(epsilon=np.inf, random_state=0).fit(X, y).score(Xt, yt)
    private = KLAdaptiveRegressor(epsilon=1.0, random_state=0).fit(X, y).score(Xt, yt)
    assert private >= 0.9 * exact


# ------------------------------------------------------------------ models
def test_mlp_ghost_norms_equal_explicit_per_sample_gradients():
    rng = np.random.default_rng(0)
    n, d, m = 7, 3, 4
    X, y = rng.normal(size=(n, d)), rng.normal(size=n)
    model = MLPModel(d, m)
    w0, w1 = rng.normal(size=model.n_params), rng.normal(size=model.n_params)
    z0, c0 = model.forward(w0, X, np)
    z1, c1 = model.forward(w1, X, np)
    J0, J1 = model.jacobians(w0, X, np), model.jacobians(w1, X, np)
    # the Jacobian is the derivative of z (finite differences)
    e = np.zeros(model.n_params)
    e[5] = 1e-6
    np.testing.assert_allclose((model.forward(w0 + e, X, np)[0] - z0) / 1e-6, J0[:, 5], rtol=1e-4)
    sq = np.sum(X * X, axis=1)
    np.testing.assert_allclose(model.jac_sq_norms(c0, sq, np), np.sum(J0 * J0, axis=1))
    np.testing.assert_allclose(model.jac_inner(c1, c0, sq, np), np.sum(J1 * J0, axis=1))
    u = rng.normal(size=n)
    np.testing.assert_allclose(model.vjp(c0, u, X, np), u @ J0)
    # clipped mean gradient and difference against explicit per-sample ones
    loss = make_loss("squared")
    obj = Objective(X, y, loss, model, 0.0, np)
    G0 = (z0 - y)[:, None] * J0
    G1 = (z1 - y)[:, None] * J1
    def clip(G, c):
        return G * np.minimum(1, c / np.linalg.norm(G, axis=1))[:, None]

    np.testing.assert_allclose(obj.clipped_grad(w0, 0.5), clip(G0, 0.5).mean(0), atol=1e-12)
    np.testing.assert_allclose(obj.clipped_diff(w1, w0, 0.3), clip(G1 - G0, 0.3).mean(0),
                               atol=1e-12)


def test_mlp_fits_nonlinear_target():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(3000, 1)) * 0.9
    y = np.sin(3 * X[:, 0]) * 0.8
    reg = KLAdaptiveRegressor(epsilon=np.inf, model="mlp", hidden_units=16, max_iter=1500,
                              random_state=0).fit(X, y)
    lin = KLAdaptiveRegressor(epsilon=np.inf, random_state=0).fit(X, y)
    assert reg.score(X, y) > lin.score(X, y) + 0.1
    assert len(reg.coefs_) == 2


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_derivative_and_curvature(name):
    loss = make_loss(name)
    y = np.linspace(0, 1, 7) if name == "sigmoid" else np.linspace(-1, 1, 7)
    z = np.linspace(-2, 2, 7) + 0.013
    h = 1e-6
    numeric = (loss.value(z + h, y, np) - loss.value(z - h, y, np)) / (2 * h)
    np.testing.assert_allclose(loss.derivative(z, y, np), numeric, rtol=1e-5, atol=1e-8)
    if loss.smooth:
        zz = np.linspace(-10, 10, 2001)
        for target in (y.min(), y.max()):
            d = loss.derivative(zz, target, np)
            assert np.max(np.abs(np.diff(d) / np.diff(zz))) <= loss.curvature(1.0) + 1e-6
    assert np.all(np.abs(loss.derivative(np.zeros_like(y), y, np))
                  <= loss.residual_bound(1.0) + 1e-12)


def test_sigmoid_predictions_in_unit_interval():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 2)) / 3
    y = 1 / (1 + np.exp(-3 * X[:, 0]))
    reg = KLAdaptiveRegressor(loss="sigmoid", epsilon=5.0, random_state=0).fit(X, y)
    pred = reg.predict(X)
    assert pred.min() >= 0 and pred.max() <= 1


def test_lp_loss_auto_uses_ppm_and_huber_runs():
    X, y = make_data()
    assert KLAdaptiveRegressor(loss="lp", random_state=0).fit(X, y).solver_ == "ppm"
    assert KLAdaptiveRegressor(loss="huber", random_state=1).fit(X, y).solver_ == "adaptive_gd"
    with pytest.warns(UserWarning, match="not smooth"):
        KLAdaptiveRegressor(loss="lp", solver="adaptive_gd", random_state=2).fit(X, y)


def test_auto_rule():
    assert resolve_solver("auto", None, None, True) == "adaptive_gd"
    assert resolve_solver("auto", None, None, False) == "ppm"
    assert resolve_solver("auto", 1.0, 2.0, True) == "spider"
    assert resolve_solver("auto", 1.0, 3.0, True) == "ppm"
    X, y = make_data()
    assert KLAdaptiveRegressor(alpha=0.1, random_state=0).fit(X, y).solver_ == "spider"


# ------------------------------------------------------- sklearn integration
def test_gridsearch_over_epsilon_and_solver_in_pipeline():
    X, y = make_data(n=400)
    pipe = Pipeline([("scale", FunctionTransformer(np.tanh)),
                     ("reg", KLAdaptiveRegressor())])  # a seed: same noise in every fold
    grid = GridSearchCV(pipe, {"reg__epsilon": [0.5, 4.0],
                               "reg__solver": ["adaptive_gd", "noisy_gd", "stationary_gd"]}, cv=2)
    with BudgetAccountant() as acc:
        grid.fit(X, y)
    assert len(acc.spends) == 2 * 6 + 1
    assert np.isfinite(grid.best_score_)


@parametrize_with_checks([KLAdaptiveRegressor(random_state=0),
                          KLAdaptiveRegressor(model="mlp", solver="stationary_gd", random_state=0),
                          KLAdaptiveRegressor(solver="spider", alpha=0.1, random_state=0),
                          KLAdaptiveRegressor(loss="lp", random_state=0)],
                         expected_failed_checks=lambda e: e._expected_failed_checks(),
                         xfail_strict=True)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("kwargs", [{}, dict(model="mlp"), dict(solver="spider", alpha=0.1),
                                    dict(solver="ppm")])
def test_array_api_strict_matches_numpy(kwargs):
    xps = pytest.importorskip("array_api_strict")
    X, y = make_data(n=300, d=3)
    ref = KLAdaptiveRegressor(random_state=3, accountant=BudgetAccountant(), **kwargs).fit(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        reg = KLAdaptiveRegressor(random_state=3, **kwargs).fit(xps.asarray(X), xps.asarray(y))
        pred = reg.predict(xps.asarray(X))
        with pytest.raises(ValueError, match="same namespace"):
            reg.predict(X)
    np.testing.assert_allclose(np.asarray(reg.coef_), np.asarray(ref.coef_), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(np.asarray(pred), ref.predict(X), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------- validation
def test_determinism():
    """The same seed gives the same fit (and, on one accountant, a shared-noise warning)."""
    X, y = make_data()
    a = KLAdaptiveRegressor(random_state=7).fit(X, y)
    with pytest.warns(PrivacyLeakWarning, match="random_state=7"):
        b = KLAdaptiveRegressor(random_state=7).fit(X, y)
    c = KLAdaptiveRegressor(random_state=8).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert not np.array_equal(a.coef_, c.coef_)


@pytest.mark.parametrize("kwargs, match", [
    (dict(epsilon=0), "epsilon"), (dict(epsilon=-1), "epsilon"), (dict(delta=1.0), "delta"),
    (dict(delta=-0.1), "delta"), (dict(delta=0.0), "delta must be > 0"),
    (dict(solver="newton"), "solver"), (dict(loss="hinge"), "loss"),
    (dict(feature_bound=-1), "feature_bound"), (dict(solver="spider"), "kl_gamma"),
    (dict(solver="spider", kl_gamma=1.0, kl_kappa=3.0), "kappa <= 2"), (dict(p=2.5), "'p'"),
])
def test_bad_parameters(kwargs, match):
    X, y = make_data()
    with pytest.raises(ValueError, match=match):
        KLAdaptiveRegressor(**kwargs).fit(X, y)


def test_registry_covers_every_solver():
    choices = KLAdaptiveRegressor._parameter_constraints["solver"][0].options
    assert choices == {"auto"} | set(SOLVER_SPECS)
    for name, spec in SOLVER_SPECS.items():
        assert spec.name == name and spec.paper and spec.budget and callable(spec.fn)
        assert spec.streaming == (spec.family == "streaming")


# the values below test_solvers' out-of-range test does not give: a pair's element, an open
# bound itself
@pytest.mark.parametrize("solver, options, match", [
    ("spider", dict(spider_constants=(4, -1)), "pair"),
    ("stationary_gd", dict(select_frac=1.0), "select_frac"),
])
def test_solver_option_values_are_checked(solver, options, match):
    X, y = make_data()
    with pytest.raises(ValueError, match=match):
        KLAdaptiveRegressor(solver=solver, solver_options=options,
                            **solver_kwargs(solver)).fit(X, y)


@pytest.mark.parametrize("bad, match", [("nan", "NaN"), ("inf", "infinity"),
                                        ("1d", "2D array"), ("rows", "inconsistent")])
def test_bad_input(bad, match):
    X, y = make_data()
    if bad == "nan":
        X[0, 0] = np.nan
    elif bad == "inf":
        X[0, 0] = np.inf
    elif bad == "1d":
        X = X[:, 0]
    else:
        y = y[:-1]
    with pytest.raises(ValueError, match=match):
        KLAdaptiveRegressor().fit(X, y)


def test_predict_checks_feature_count():
    X, y = make_data()
    reg = KLAdaptiveRegressor(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        reg.predict(X[:, :2])


def test_bounds_from_data_warn():
    X, y = make_data()
    with pytest.warns(PrivacyLeakWarning, match="feature_bound"):
        KLAdaptiveRegressor(feature_bound="data", random_state=0).fit(X, y)
    with pytest.warns(PrivacyLeakWarning, match="target_bound"):
        KLAdaptiveRegressor(target_bound="data", random_state=1).fit(X, y)


def test_clipping_to_public_bounds():
    """Rows and targets outside the bounds are clipped: a huge row cannot dominate."""
    X, y = make_data(n=500)
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = 1e6, -1e6
    a = KLAdaptiveRegressor(epsilon=np.inf, random_state=0).fit(X, y)
    b = KLAdaptiveRegressor(epsilon=np.inf, random_state=0).fit(X2, y2)
    assert np.linalg.norm(a.coef_ - b.coef_) < 0.2


def test_accountant_refuses_before_fitting():
    X, y = make_data()
    acc = BudgetAccountant(epsilon=1.5, delta=1e-5)
    KLAdaptiveRegressor(epsilon=1.0, accountant=acc, random_state=0).fit(X, y)
    reg = KLAdaptiveRegressor(epsilon=1.0, accountant=acc, random_state=0)
    with pytest.raises(BudgetExceededError):
        reg.fit(X, y)
    assert not hasattr(reg, "coef_")


@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_theory_mode_and_verbose(solver, capsys):
    X, y = make_data(n=1000)
    reg = KLAdaptiveRegressor(solver=solver, theory=True, verbose=1, max_iter=200,
                              random_state=0, **solver_kwargs(solver)).fit(X, y)
    assert reg.privacy_spent_[0] <= 1.0 + 1e-9
    assert solver.split("_")[0] in capsys.readouterr().out


def test_snr_trades_steps_for_noise():
    X, y = make_data(n=5000)
    one = KLAdaptiveRegressor(solver_options={"snr": 1.0, "precondition": 0},
                              random_state=0).fit(X, y)
    two = KLAdaptiveRegressor(solver_options={"snr": 2.0, "precondition": 0},
                              random_state=0,  # the same noise
                              accountant=BudgetAccountant()).fit(X, y)
    s1 = [h["sigma"] / h["noisy_norm"] for h in one.history_[:2]]
    s2 = [h["sigma"] / h["noisy_norm"] for h in two.history_[:2]]
    np.testing.assert_allclose(s2[0], s1[0] / 2)


@pytest.mark.parametrize("solver", ["spider", "ppm", "noisy_gd"])
def test_iteration_cap_is_applied_before_noise(solver):
    """Capped schedules spend the whole budget on the queries that run."""
    X, y = make_data(n=3000)
    reg = KLAdaptiveRegressor(solver=solver, max_iter=40, solver_options={"precondition": 0},
                              random_state=0,
                              **solver_kwargs(solver)).fit(X, y)
    assert reg.n_iter_ <= 40
    planned = sum(e["count"] * e["rho"] for e in reg.privacy_ledger_.log())
    if solver != "spider":  # spider's rounds may stop early (post-processing)
        assert planned == pytest.approx(reg.rho_, rel=1e-9)


def test_stationary_gd_releases_an_iterate_of_the_trajectory():
    X, y = make_data(n=3000)
    reg = KLAdaptiveRegressor(solver="stationary_gd", random_state=0).fit(X, y)
    chosen = reg.history_[-1]["selected"]
    assert 0 <= chosen <= len(reg.history_) - 1
    labels = [e["label"] for e in reg.privacy_ledger_.log()]
    assert labels[-1] == "select iterate" and labels.count("select iterate") == 1


def test_history_and_ledger_are_logged():
    X, y = make_data()
    reg = KLAdaptiveRegressor(random_state=0).fit(X, y)
    log = reg.privacy_ledger_.log()
    assert log[0]["label"] == "second-moment matrix"
    assert any(e["label"] == "gradient" for e in log)
    assert reg.n_iter_ == len(reg.history_)


def test_preconditioner_sensitivity():
    """Frobenius sensitivity of the mean second moment is sqrt(2) B^2 / n."""
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(2000):
        x, x2 = rng.normal(size=3), rng.normal(size=3)
        x, x2 = x / np.linalg.norm(x), x2 / np.linalg.norm(x2)
        worst = max(worst, np.linalg.norm(np.outer(x, x) - np.outer(x2, x2)))
    assert worst <= math.sqrt(2) + 1e-12


# -------------------------------------------------- design operator (issue 18)
@pytest.mark.parametrize("intercept", [None, 0.7])
@pytest.mark.parametrize("with_p", [False, True])
def test_design_operator_equals_materialised_design(intercept, with_p, monkeypatch):
    """[X, c 1] P applied on the fly gives the products of the materialised design."""
    from skdp.solvers.kl import models
    monkeypatch.setattr(models, "ROW_CHUNK", 7)  # several blocks, a short last one
    rng = np.random.default_rng(0)
    n, d = 30, 4
    X = rng.normal(size=(n, d))
    p = d + (intercept is not None)
    A = rng.normal(size=(p, p))
    P = A @ A.T if with_p else None
    D = models.Design(X, intercept, P, np)
    dense = X if intercept is None else np.hstack([X, np.full((n, 1), intercept)])
    full = dense if P is None else dense @ P
    w, W = rng.normal(size=p), rng.normal(size=(p, 3))
    u, U = rng.normal(size=n), rng.normal(size=(2, n))
    assert D.shape == full.shape
    np.testing.assert_allclose(D @ w, full @ w, rtol=1e-10)
    np.testing.assert_allclose(D @ W, full @ W, rtol=1e-10)
    np.testing.assert_allclose(D.rmatmul(u), u @ full, rtol=1e-10)
    np.testing.assert_allclose(D.rmatmul(U), U @ full, rtol=1e-10)
    np.testing.assert_allclose(D.row_sq_norms(), np.sum(full**2, axis=1), rtol=1e-10)
    np.testing.assert_allclose(D.second_moment(), dense.T @ dense / n, rtol=1e-10)
    np.testing.assert_allclose(D.dense(), full, rtol=1e-10)
    np.testing.assert_allclose(D.take(np.array([3, 1])).dense(), full[[3, 1]], rtol=1e-10)


def test_design_operator_fit_matches_materialised_fit():
    """A fit on the operator equals a fit on the materialised, preconditioned design."""
    X, y = make_data(n=400, d=3)
    reg = KLAdaptiveRegressor(epsilon=2.0, random_state=3).fit(X, y)
    backend = Backend.from_arrays(X, random_state=3)
    budget = Budget(2.0, 1e-6, reg.rho_ * 0.2, release=Release(backend, PrivacyLedger()))
    from skdp.solvers.kl.preconditioner import private_preconditioner
    dense = np.hstack([X, np.ones((len(X), 1))])
    P, _, _ = private_preconditioner(dense, math.sqrt(2.0), budget)
    np.testing.assert_allclose(reg._precond, P, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(reg.predict(X), dense @ P @ reg._w, rtol=1e-8, atol=1e-10)


# ------------------------------------------------------ adaptive clip (issue 18)
def test_default_clip_is_a_private_quantile_charged_to_the_ledger():
    from skdp.regression import CLIP_GRID, CLIP_SHARE
    X, y = make_data(n=20000, d=3)
    reg = KLAdaptiveRegressor(epsilon=1.0, solver_options={"precondition": 0.0},
                              random_state=0).fit(X, y)
    (entry,) = [e for e in reg.privacy_ledger_.log() if e["label"] == "gradient-norm histogram"]
    assert entry["rho"] == pytest.approx(CLIP_SHARE * reg.rho_)
    bound = math.sqrt(2.0)  # the bound rule: |y| <= 1 at w0 = 0, rows of norm <= 1 plus intercept
    grid = [bound * 2.0 ** (-k / 2.0) for k in range(CLIP_GRID)]
    assert min(abs(reg.clip_norm_ - g) for g in grid) < 1e-12
    norms = np.abs(y) * np.sqrt(np.sum(X**2, axis=1) + 1.0)  # gradient norms at w0 = 0
    assert 0.6 < np.mean(norms <= reg.clip_norm_) and reg.clip_norm_ < bound
    assert reg.privacy_spent_[0] == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("kwargs", [dict(n=300), dict(theory=True), dict(clip_norm=0.7),
                                    dict(epsilon=math.inf)])
def test_bound_rule_clip_where_the_quantile_is_uninformative_or_not_asked(kwargs):
    """Small n * mu (a public rule), theory=True, a given clip or no privacy: no histogram."""
    X, y = make_data(n=kwargs.pop("n", 20000), d=3)
    reg = KLAdaptiveRegressor(solver_options={"precondition": 0.0}, random_state=0,
                              **kwargs).fit(X, y)
    assert all(e["label"] != "gradient-norm histogram" for e in reg.privacy_ledger_.log())
    assert reg.clip_norm_ == pytest.approx(kwargs.get("clip_norm", math.sqrt(2.0)))


# -------------------------------------------------------------- adassp (issue 31 item 1)
def test_adassp_calibrates_its_two_releases_on_the_closed_form():
    """Two Gaussian releases of rho_/2 each (Bun–Steinke Prop. 1.6: sigma = Delta /
    sqrt(2 rho_step)), sensitivities sqrt(2) R**2 and 2 R C with R**2 = B**2 + (B/2)**2 (the
    intercept column at intercept_scale 0.5); the ridge 2 sigma sqrt(p); the ledger spends
    exactly epsilon (GDP, Dong–Roth–Su Cor. 2.13)."""
    X, y = make_data(n=2000, d=4)
    reg = KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, solver="adassp", feature_bound=2.0,
                              target_bound=3.0, random_state=0).fit(X, y)
    step = reg.history_[0]
    R2, C, rho2 = 1.25 * 2.0**2, 3.0, reg.rho_ / 2
    assert step["sigma_xtx"] == pytest.approx(math.sqrt(2) * R2 / math.sqrt(2 * rho2))
    assert step["sigma_xty"] == pytest.approx(2 * math.sqrt(R2) * C / math.sqrt(2 * rho2))
    assert step["lambda"] == pytest.approx(2.0 * step["sigma_xtx"] * math.sqrt(5))
    assert reg.rho_ == pytest.approx(approx_dp_to_gdp(1.0, 1e-6) ** 2 / 2, rel=1e-6)
    assert reg.privacy_spent_[0] == pytest.approx(1.0, abs=1e-6)
    assert len(reg.privacy_ledger_.log()) == 2 and reg.n_iter_ == 1


def test_adassp_theory_calibrates_wangs_three_releases_on_the_closed_form():
    """theory=True: Wang's Alg. 2, three releases of rho_/3 each, sensitivities sqrt(2) R**2,
    R**2, 2 R C with R**2 = 2 B**2 (the intercept column B 1)."""
    X, y = make_data(n=2000, d=4)
    reg = KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, solver="adassp", feature_bound=2.0,
                              target_bound=3.0, theory=True, random_state=0).fit(X, y)
    step = reg.history_[0]
    R2, C, rho3 = 2 * 2.0**2, 3.0, reg.rho_ / 3
    assert step["sigma_xtx"] == pytest.approx(math.sqrt(2) * R2 / math.sqrt(2 * rho3))
    assert step["sigma_lambda_min"] == pytest.approx(R2 / math.sqrt(2 * rho3))
    assert step["sigma_xty"] == pytest.approx(2 * math.sqrt(R2) * C / math.sqrt(2 * rho3))
    assert reg.privacy_spent_[0] == pytest.approx(1.0, abs=1e-6)
    assert len(reg.privacy_ledger_.log()) == 3


def test_adassp_intercept_scale_predicts_as_the_full_column_without_noise():
    """The intercept column's constant is a parametrisation: at epsilon = inf every scale gives
    the same predictions (the coefficient is mapped back to the design's column)."""
    X, y = make_data(n=500, d=3)
    preds = [KLAdaptiveRegressor(epsilon=math.inf, solver="adassp", alpha=1e-3,
                                 solver_options={"intercept_scale": s}).fit(X, y).predict(X)
             for s in (1.0, 0.5, 0.25)]
    assert np.allclose(preds[0], preds[1], atol=1e-2) and np.allclose(preds[0], preds[2], atol=1e-2)


def test_adassp_refuses_other_losses_and_models_before_reading():
    X, y = make_data(n=50)
    for params, word in ((dict(loss="huber"), "loss="), (dict(model="mlp"), "model=")):
        with pytest.raises(ValueError, match=f"solver='adassp' supports {word}"):
            KLAdaptiveRegressor(solver="adassp", **params).fit(X, y)
