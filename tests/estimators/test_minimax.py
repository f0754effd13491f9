"""Tests of PrivateMinimaxClassifier and its solvers (issue 4)."""

import math
import tracemalloc
import warnings

import numpy as np
import pytest
import sklearn
from scipy.optimize import linprog
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skdp import BudgetAccountant
from skdp.exceptions import PrivacyLeakWarning
from skdp.minimax import (PrivateMinimaxClassifier, SOLVER_SPECS, UNKNOWN_LABEL_MESSAGE,
                          resolve_solver)
from skdp.privacy.ledger import approx_dp_to_gdp
from skdp.solvers.minimax import euclidean as minimax_euclidean
from skdp.solvers.spec import SolverSpec, solvers_with

RAMP_SOLVERS = solvers_with(SOLVER_SPECS, loss="ramp")  # paper 001's
# the worst-group solvers; the single-pass streaming ones need one group
# (tests/solvers/test_srgd.py)
ALL_SOLVERS = sorted(name for name, spec in SOLVER_SPECS.items() if spec.family == "minimax")

# most tests fit toy data without the public classes; the warning is tested below
pytestmark = pytest.mark.filterwarnings(
    "ignore:The set of classes:skdp.exceptions.PrivacyLeakWarning")


# ---------------------------------------------------------------------------
# A worst-group problem whose minimax solution is an LP
# ---------------------------------------------------------------------------
# Group g holds copies of one point with margin vector c_g = y_g x_g, so
# L_g(theta) = log(1 + exp(-c_g . theta)) and, the loss being decreasing,
# min_{||theta|| <= R} max_g L_g = loss(t*) with t* = max_{||theta||_1 <= R} min_g c_g . theta,
# an LP. With these c_g the maximiser is theta* = (R, 0) for the l1 ball and
# for the l2 ball alike (t* = R / 2).
MARGINS = np.array([[1.0, 1.0], [1.0, -1.0], [0.5, 0.0]])
LABELS = np.array([1, 0, 1])


def _lp_value(radius):
    """t* by linprog over variables (theta+, theta-, t)."""
    m = MARGINS.shape[0]
    c = np.array([0, 0, 0, 0, -1.0])
    A_ub = np.hstack([-MARGINS, MARGINS, np.ones((m, 1))])  # t - c.theta <= 0
    A_ub = np.vstack([A_ub, [1, 1, 1, 1, 0]])                 # ||theta||_1 <= R
    b_ub = np.r_[np.zeros(m), radius]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=[(0, None)] * 4 + [(None, None)],
                  method="highs")
    return -res.fun, res.x[:2] - res.x[2:4]


def _lp_data(n):
    reps = n // 3
    X = np.repeat(MARGINS * np.where(LABELS == 1, 1, -1)[:, None], reps, axis=0)
    y = np.repeat(LABELS, reps)
    groups = np.repeat(np.arange(3), reps)
    return X, y, groups


def _loss(t):
    return np.logaddexp(0.0, -t)


def _duality_gap(theta, weights, radius, norm):
    """max_g L_g(theta) - min_{||v|| <= R} sum_g w_g L_g(v), inner min on a fine grid."""
    grid = np.linspace(-radius, radius, 401)
    V = np.stack(np.meshgrid(grid, grid), -1).reshape(-1, 2)
    inside = (np.abs(V).sum(1) if norm == "l1" else np.linalg.norm(V, axis=1)) <= radius + 1e-12
    V = V[inside]
    inner = (_loss(V @ MARGINS.T) @ weights).min()
    return _loss(MARGINS @ theta).max() - inner


def _fit_lp(solver, n, epsilon, seed=0):
    X, y, groups = _lp_data(n)
    clf = PrivateMinimaxClassifier(epsilon=epsilon, solver=solver, radius=1.0,
                                   feature_bound=math.sqrt(2), fit_intercept=False,
                                   group_sizes={g: n // 3 for g in range(3)}, random_state=seed)
    clf.fit(X, y, groups=groups)
    norm = "l1" if solver.startswith("smd") else "l2"
    return clf, _duality_gap(clf.coef_[0], clf.group_weights_, 1.0, norm)


def test_lp_reference_solution():
    t_star, theta = _lp_value(1.0)
    assert t_star == pytest.approx(0.5)
    np.testing.assert_allclose(theta, [1.0, 0.0], atol=1e-9)


@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_duality_gap_falls_with_n_non_private(solver):
    gaps = [np.mean([_fit_lp(solver, n, math.inf, seed)[1] for seed in range(3)])
            for n in (300, 10000)]
    assert gaps[1] <= gaps[0] + 1e-3
    assert gaps[1] < GAP_TOLERANCE[solver]


@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_duality_gap_finite_at_small_epsilon(solver):
    _, gap = _fit_lp(solver, 3000, 0.1)
    assert np.isfinite(gap) and 0 <= gap + 1e-9 <= math.log1p(math.exp(math.sqrt(2)))


# gap reached at n = 10000, eps = inf (the l1 solvers' outputs are averages of
# sampled vertices, so their floor is the Maurey sampling error of 002 Lemma 3.11). Measured
# (mean of the 3 seeds, n = 300 / 10000 / 30000): noisy_gd 0.014 at every n, dpsgd_poisson 0.018,
# sgda 0.083 / 0.036 / 0.036, smd 0.091 / 0.010 / 0.009, smd_bias_reduced 0.083 / 0.014 / 0.011,
# mlmc 0.248 / 0.084 / 0.081: n = 30000 (the test's former large n) tripled the time of the
# full-batch solvers' fits for no further fall
GAP_TOLERANCE = {"noisy_gd": 0.03, "sgda": 0.05, "dpsgd_poisson": 0.03, "smd": 0.03,
                 "smd_bias_reduced": 0.05, "mlmc": 0.1}


@pytest.mark.parametrize("solver, n_classes, floor", [
    ("smd", 4, 0.5), ("smd_bias_reduced", 4, 0.5), ("mlmc", 4, 0.5), ("smd", 2, 0.85),
    ("smd_bias_reduced", 2, 0.85), ("mlmc", 2, 0.85)])
def test_paper_solvers_learn_without_noise(solver, n_classes, floor):
    """At epsilon = inf the practical defaults learn (the LP toy above, radius 1 and two
    features, did not catch defaults that left the l1 and MLMC solvers at chance)."""
    X, y = make_classification(n_samples=1500, n_features=8, n_informative=5,
                               n_classes=n_classes, class_sep=1.5, random_state=0)
    clf = PrivateMinimaxClassifier(epsilon=math.inf, solver=solver, random_state=0).fit(X / 6, y)
    assert clf.score(X / 6, y) > floor  # chance: 1 / n_classes; noisy_gd 0.65 / 0.92


# ---------------------------------------------------------------------------
# Privacy calibration
# ---------------------------------------------------------------------------
def _bc():
    X, y = load_breast_cancer(return_X_y=True)
    return (X - X.mean(0)) / X.std(0), y


def test_noisy_gd_per_step_sensitivity_and_budget():
    X, y = _bc()
    n = X.shape[0]
    clf = PrivateMinimaxClassifier(epsilon=1.0, group_by=None, n_iter=10, random_state=0,
                                   solver="noisy_gd").fit(X, y)
    centre, *log = clf.privacy_ledger_.log()
    assert len(log) == 10
    clip = minimax_euclidean.CLIP_RATIO * math.sqrt(2.0)  # Lipschitz 1 x sqrt(1 + 1)
    mu = approx_dp_to_gdp(1.0, 1e-6)
    share = minimax_euclidean.CENTER_SHARE
    assert centre["label"] == "feature mean"
    assert centre["mu"] == pytest.approx(mu * math.sqrt(share), rel=1e-6)
    assert centre["rho"] == pytest.approx(centre["mu"] ** 2 / 2)
    for entry in log:
        sigma = 2 * clip / n / entry["mu"]
        assert entry["mu"] == pytest.approx(mu * math.sqrt((1 - share) / 10), rel=1e-6)
        assert entry["rho"] == pytest.approx((2 * clip / n) ** 2 / (2 * sigma**2))
    assert clf.privacy_spent_[0] == pytest.approx(1.0, rel=1e-6)
    assert clf.privacy_method_ == "gdp"


def test_worst_group_sensitivities_follow_the_weights():
    X, y = _bc()
    sizes = np.bincount(y).astype(float)
    clf = PrivateMinimaxClassifier(epsilon=2.0, n_iter=5, group_sizes=sizes, random_state=0,
                                   solver="noisy_gd").fit(X, y)
    log = clf.privacy_ledger_.log()
    losses = [e for e in log if e["label"] == "group losses"]
    grads = [e for e in log if e["label"] == "worst-group gradient"]
    assert len(losses) == len(grads) == 5
    mu = approx_dp_to_gdp(2.0, 1e-6)
    total = sum(e["mu"] ** 2 for e in log)
    assert total == pytest.approx(mu**2, rel=1e-6)
    rest = (1 - minimax_euclidean.CENTER_SHARE) * mu**2
    assert sum(e["mu"] ** 2 for e in losses) == pytest.approx(
        minimax_euclidean.LOSS_SHARE * rest, rel=1e-6)


def test_noise_matches_closed_form():
    """One step from 0 exposes the gradient noise: its std is 2 C / (n mu).

    Halving the noise in the solver makes this test fail.
    """
    X, y = _bc()
    n = X.shape[0]
    kw = dict(group_by=None, n_iter=1, solver="noisy_gd", fit_intercept=False)
    ref = PrivateMinimaxClassifier(epsilon=math.inf, **kw).fit(X, y)
    step = minimax_euclidean.STEP_SCALE / 0.25
    noise = []
    for seed in range(40):
        clf = PrivateMinimaxClassifier(epsilon=1.0, random_state=seed, **kw).fit(X, y)
        noise.append((ref.coef_ - clf.coef_).ravel() / step)
    clip = minimax_euclidean.CLIP_RATIO * 1.0
    expected = 2 * clip / n / approx_dp_to_gdp(1.0, 1e-6)
    assert np.std(noise) == pytest.approx(expected, rel=0.05)


def test_group_sizes_are_never_silently_taken_from_data():
    X, y = _bc()
    clf = PrivateMinimaxClassifier(epsilon=1.0, n_iter=3, random_state=0).fit(X, y)
    labels = [e["label"] for e in clf.privacy_ledger_.log()]
    assert labels[0] == "group sizes"
    assert not np.allclose(clf.group_sizes_, np.bincount(y))
    public = PrivateMinimaxClassifier(epsilon=1.0, n_iter=3, random_state=0,
                                      group_sizes={0: 200, 1: 369}).fit(X, y)
    assert "group sizes" not in [e["label"] for e in public.privacy_ledger_.log()]
    np.testing.assert_array_equal(public.group_sizes_, [200, 369])
    assert clf.privacy_spent_[0] <= 1.0 + 1e-9


@pytest.mark.parametrize("solver", ALL_SOLVERS)
def test_every_solver_stays_within_budget(solver):
    X, y = _bc()
    clf = PrivateMinimaxClassifier(epsilon=0.5, delta=1e-5, solver=solver,
                                   random_state=0).fit(X, y)
    assert clf.privacy_spent_[0] <= 0.5 * (1 + 1e-9)
    assert clf.privacy_spent_[1] == 1e-5
    w = clf.group_weights_
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# Behaviour
# ---------------------------------------------------------------------------
def test_average_risk_model_is_a_good_dp_classifier():
    X, y = _bc()
    clf = PrivateMinimaxClassifier(epsilon=1.0, group_by=None, random_state=0).fit(X, y)
    assert clf.score(X, y) > 0.9
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(1), 1.0)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[proba.argmax(1)])


def test_worst_class_weights_pick_the_hard_class():
    X, y = make_classification(n_samples=3000, n_features=5, n_informative=3, weights=[0.8, 0.2],
                               flip_y=0.0, class_sep=0.5, random_state=0)
    X = X / 4
    clf = PrivateMinimaxClassifier(epsilon=5.0, group_sizes=np.bincount(y), random_state=0)
    clf.fit(X, y)
    erm = PrivateMinimaxClassifier(epsilon=5.0, group_by=None, random_state=0).fit(X, y)
    pred, pred_erm = clf.predict(X), erm.predict(X)
    worst = min(np.mean(pred[y == c] == c) for c in (0, 1))
    worst_erm = min(np.mean(pred_erm[y == c] == c) for c in (0, 1))
    # the weights balance the class losses (at the minimax point neither class dominates)
    assert worst > worst_erm + 0.3
    assert abs(clf.group_weights_[1] - 0.5) < 0.2


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fit_keeps_no_copy_of_X(dtype):
    # issue 18: a fit's peak memory beside X is O(n) arrays (labels, clip factors, margins),
    # never an (n, p) copy (a centred, scaled or upcast X): one copy would exceed the bound
    n, p = 200_000, 20
    X = (np.random.default_rng(0).standard_normal((n, p)) / np.sqrt(2 * p)).astype(dtype)
    y = (X[:, 0] > 0).astype(int)
    # noisy_gd: at 2e5 rows 'auto' runs dpsgd_poisson (issue 31), whose n_iter=5 would
    # gather Poisson batches of q = 0.8 of the rows
    clf = PrivateMinimaxClassifier(solver="noisy_gd", n_iter=5, random_state=0)
    tracemalloc.start()
    try:
        clf.fit(X, y, classes=[0, 1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert clf.coef_.dtype == dtype
    assert peak < 0.2 * X.nbytes + 25 * X.itemsize * n


def test_multiclass_shapes_and_determinism():
    X, y = make_classification(n_samples=600, n_features=6, n_informative=4, n_classes=3,
                               random_state=0)
    a = PrivateMinimaxClassifier(random_state=3).fit(X / 5, y)
    b = PrivateMinimaxClassifier(random_state=3).fit(X / 5, y)
    assert a.coef_.shape == (3, 6) and a.intercept_.shape == (3,)
    assert a.decision_function(X).shape == (600, 3)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.n_iter_ >= 1 and a.solver_ == "noisy_gd"


def test_auto_rule():
    assert resolve_solver(500, 10, 1.0) == "noisy_gd"
    assert resolve_solver(10**6, 10**3, 1.0) == "dpsgd_poisson"
    assert resolve_solver(10**6, 10**3, math.inf) == "noisy_gd"


# ---------------------------------------------------------------------------
# sklearn integration
# ---------------------------------------------------------------------------
def test_grid_search_in_pipeline_with_routed_groups():
    X, y = make_classification(n_samples=300, n_features=4, random_state=0)
    groups = np.arange(300) % 3
    with sklearn.config_context(enable_metadata_routing=True):
        clf = PrivateMinimaxClassifier(n_iter=5, random_state=0, group_sizes={0: 66, 1: 66, 2: 66})
        pipe = make_pipeline(StandardScaler(), clf.set_fit_request(groups=True))
        search = GridSearchCV(pipe, {"privateminimaxclassifier__epsilon": [0.5, 2.0]},
                              cv=GroupKFold(n_splits=3))
        search.fit(X, y, groups=groups)
    fitted = search.best_estimator_[-1]
    np.testing.assert_array_equal(fitted.group_labels_, [0, 1, 2])
    assert search.best_params_["privateminimaxclassifier__epsilon"] in (0.5, 2.0)


def test_grid_search_over_epsilon_with_routed_groups():
    X, y = make_classification(n_samples=300, n_features=4, random_state=1)
    groups = np.arange(300) % 2
    seen = []

    class Spy(PrivateMinimaxClassifier):
        def fit(self, X, y, groups=None):
            seen.append(None if groups is None else len(groups))
            return super().fit(X, y, groups=groups)

    with sklearn.config_context(enable_metadata_routing=True):
        clf = Spy(n_iter=5, random_state=0, group_sizes={0: 100, 1: 100}).set_fit_request(
            groups=True)
        GridSearchCV(clf, param_grid={"epsilon": [0.5, 1.0, 4.0]}, cv=3).fit(X, y, groups=groups)
    assert len(seen) == 3 * 3 + 1 and all(s is not None for s in seen)


def test_check_estimator():
    from sklearn.utils.estimator_checks import check_estimator

    est = PrivateMinimaxClassifier(random_state=0)
    results = check_estimator(est, expected_failed_checks=est._expected_failed_checks(),
                              on_fail=None)
    assert [r["check_name"] for r in results if r["status"] == "failed"] == []


@pytest.mark.parametrize("solver", ["noisy_gd", "sgda"])
def test_array_api_strict_gives_numpy_result(solver):
    xps = pytest.importorskip("array_api_strict")
    X, y = _bc()
    ref = PrivateMinimaxClassifier(solver=solver, random_state=0).fit(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        clf = PrivateMinimaxClassifier(solver=solver, random_state=0)
        clf.fit(xps.asarray(X), xps.asarray(y))
        proba = clf.predict_proba(xps.asarray(X))
        assert type(clf.coef_).__module__.startswith("array_api_strict")
        np.testing.assert_allclose(np.asarray(clf.coef_), ref.coef_, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(np.asarray(proba), ref.predict_proba(X), rtol=1e-10)
        np.testing.assert_array_equal(clf.predict(xps.asarray(X)), ref.predict(X))
        with pytest.raises(ValueError, match="same namespace"):
            clf.predict(X)


@pytest.mark.parametrize("group_by", ["class", None])
def test_array_api_labels_stay_in_their_namespace(group_by, monkeypatch):
    """With public classes the labels are coded on their device: nothing of n rows goes to
    the host (the GPU check, benchmarks/gpu.py), and the result is NumPy's."""
    xps = pytest.importorskip("array_api_strict")
    from skdp import minimax

    X, y = _bc()
    params = dict(solver="noisy_gd", group_by=group_by, random_state=0)
    ref = PrivateMinimaxClassifier(**params).fit(X, y, classes=[0, 1])
    copies = []
    real = minimax.to_numpy
    monkeypatch.setattr(minimax, "to_numpy", lambda a: copies.append(a.shape) or real(a))
    with sklearn.config_context(array_api_dispatch=True):
        clf = PrivateMinimaxClassifier(**params).fit(xps.asarray(X), xps.asarray(y),
                                                     classes=[0, 1])
        assert all(np.prod(shape) < X.shape[0] for shape in copies)
        np.testing.assert_allclose(np.asarray(clf.coef_), ref.coef_, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(clf.group_sizes_, ref.group_sizes_)
        y_bad = xps.asarray(np.where(np.arange(y.shape[0]) == 7, 5, y))
        with pytest.raises(ValueError, match="not in classes_"):
            PrivateMinimaxClassifier(**params).fit(xps.asarray(X), y_bad, classes=[0, 1])
        with pytest.raises(ValueError, match="not in classes_"):
            PrivateMinimaxClassifier(**params).fit(xps.asarray(X), xps.asarray(y),
                                                   classes=["a", "b"])


# ---------------------------------------------------------------------------
# The solver registry (issue 16)
# ---------------------------------------------------------------------------
def test_every_solver_has_a_spec():
    names = PrivateMinimaxClassifier._parameter_constraints["solver"][0].options - {"auto"}
    assert names == set(SOLVER_SPECS)
    assert set(ALL_SOLVERS) == {"noisy_gd", "sgda", "dpsgd_poisson", "smd", "smd_bias_reduced",
                                "mlmc"}
    for name, spec in SOLVER_SPECS.items():
        assert isinstance(spec, SolverSpec) and spec.name == name
        assert spec.paper and spec.budget and spec.family in ("minimax", "streaming", "goldstein")
        assert spec.streaming == (spec.family == "streaming")
    assert set(RAMP_SOLVERS) == {"fo_single_pass", "zo_single_pass", "zo_multi_pass"}


@pytest.mark.parametrize("solver", ["auto"])
def test_misspelt_solver_option_raises_before_anything_is_read_or_charged(solver):
    """``solver='auto'`` refuses an unknown key (each registered solver: tests/solvers/
    test_solvers.py::test_misspelt_option_raises_before_anything_is_charged)."""
    X, y = _bc()
    acc = BudgetAccountant()
    clf = PrivateMinimaxClassifier(solver=solver, group_by=None, accountant=acc,
                                   loss="ramp" if solver in RAMP_SOLVERS else "logistic",
                                   solver_options={"n_itr": 10})
    with pytest.raises(ValueError, match="n_itr"):
        clf.fit(X, y, classes=[0, 1])
    assert acc.spends == [] and not hasattr(clf, "n_features_in_")


# a float for an integer option; the out-of-range values and choices of every option are in
# tests/solvers/test_solvers.py::test_option_out_of_range_or_of_wrong_type_raises
@pytest.mark.parametrize("solver, options", [("zo_multi_pass", {"multi_iter": 2.5})])
def test_bad_solver_option_values_raise(solver, options):
    X, y = _bc()
    clf = PrivateMinimaxClassifier(solver=solver, group_by=None, solver_options=options,
                                   loss="ramp" if solver in RAMP_SOLVERS else "logistic")
    with pytest.raises(ValueError, match=next(iter(options))):
        clf.fit(X, y, classes=[0, 1])


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("params, match", [
    ({"epsilon": 0}, "epsilon"),
    ({"epsilon": -1}, "epsilon"),
    ({"delta": 1.0}, "delta"),
    ({"delta": -0.1}, "delta"),
    ({"delta": 0.0}, "delta"),
    ({"solver": "newton"}, "solver"),
    ({"feature_bound": 0}, "feature_bound"),
    ({"group_sizes": [1, 2, 3]}, "group_sizes"),
    ({"group_sizes": [0, 5]}, "group_sizes"),
])
def test_bad_parameters(params, match):
    X, y = _bc()
    with pytest.raises(ValueError, match=match):
        PrivateMinimaxClassifier(**params).fit(X, y)


def test_group_labels_from_data_warn():
    X, y = _bc()
    groups = np.arange(len(y)) % 2
    with pytest.warns(PrivacyLeakWarning, match="group labels"):
        PrivateMinimaxClassifier(n_iter=2, random_state=0).fit(X, y, groups=groups)


# ---------------------------------------------------------------------------
# Public classes (issue 15, item 1)
# ---------------------------------------------------------------------------
def _lone_label_neighbours():
    """Neighbours differing in row 0, whose label in D1 is the only one of its class."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) / 3
    y0 = np.repeat([0, 1], 20)
    y1 = y0.copy()
    y1[0] = 2
    return X, y0, y1


def _shapes(clf):
    return {name: np.shape(value) for name, value in vars(clf).items() if name.endswith("_")}


def test_classes_from_y_warn_and_leak_the_lone_label():
    """Without classes the lone row adds a class and a row of coef_: a certain
    distinguisher, which the PrivacyLeakWarning owns up to."""
    X, y0, y1 = _lone_label_neighbours()
    fits = []
    for y in (y0, y1):
        with pytest.warns(PrivacyLeakWarning, match="set of classes"):
            fits.append(PrivateMinimaxClassifier(n_iter=2, random_state=0).fit(X, y))
    assert fits[0].coef_.shape == (1, 3) and fits[1].coef_.shape == (3, 3)


@pytest.mark.parametrize("solver", ["noisy_gd", "sgda", "smd", "mlmc", "fo_single_pass"])
def test_public_classes_fix_every_shape(solver):
    """With classes given, the lone-label neighbours give the same classes_ and the same
    shape of every fitted attribute (on the old code fit had no classes parameter)."""
    X, y0, y1 = _lone_label_neighbours()
    kw = dict(solver=solver, loss="ramp" if solver == "fo_single_pass" else "logistic",
              n_iter=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        # one accountant each: the same seed on one accountant warns (shared noise)
        a, b = (PrivateMinimaxClassifier(**kw, accountant=BudgetAccountant())
                .fit(X, y, classes=[2, 0, 1]) for y in (y0, y1))
    np.testing.assert_array_equal(a.classes_, [0, 1, 2])
    np.testing.assert_array_equal(b.classes_, [0, 1, 2])
    assert _shapes(a) == _shapes(b) and a.coef_.shape == (3, 3)
    assert a.predict_proba(X).shape == (40, 3)


@pytest.mark.parametrize("bad", [[7], [7, 8, 9], ["a"], [None], [np.nan], [0.5]])
def test_unknown_labels_get_one_fixed_message(bad):
    """A label outside classes is refused with the same message whatever it is and
    however many there are, in fit and partial_fit (the old partial_fit echoed the
    labels); the labels were read, so each refused call keeps its reservation."""
    X, y0, _ = _lone_label_neighbours()
    y = y0.astype(object)
    y[:len(bad)] = bad
    acc = BudgetAccountant()
    with pytest.raises(ValueError) as fit_error:
        PrivateMinimaxClassifier(accountant=acc).fit(X, y, classes=[0, 1, 2])
    stream = PrivateMinimaxClassifier(solver="dpsgd", group_by=None, accountant=acc)
    with pytest.raises(ValueError) as first_chunk:
        stream.partial_fit(X, y, classes=[0, 1, 2])
    stream.partial_fit(X, y0, classes=[0, 1, 2])
    with pytest.raises(ValueError) as next_chunk:
        stream.partial_fit(X, y)
    for error in (fit_error, first_chunk, next_chunk):
        assert str(error.value) == UNKNOWN_LABEL_MESSAGE
    # every call read the labels before it failed, so each keeps its reservation charged
    # (issue 28: the failure was a free membership test); the successful chunk is charged
    assert [s["status"] for s in acc.spends] == ["reserved", "reserved", "charged", "reserved"]


def test_one_class_message_does_not_echo_the_label():
    X, y0, _ = _lone_label_neighbours()
    messages = set()
    for label in (3, "secret"):
        with pytest.raises(ValueError, match="1 class") as error:
            PrivateMinimaxClassifier().fit(X, np.full(40, label))
        messages.add(str(error.value))
    assert len(messages) == 1
    with pytest.raises(ValueError, match="at least 2 classes"):
        PrivateMinimaxClassifier().fit(X, y0, classes=[0])


def test_unknown_groups_get_one_fixed_message():
    X, y0, _ = _lone_label_neighbours()
    clf = PrivateMinimaxClassifier(group_sizes={"a": 20, "b": 20})
    messages = set()
    for bad in (["zebra"], ["xenon", "yak", "zebra"], [None]):
        groups = np.where(y0 == 1, "a", "b").astype(object)
        groups[:len(bad)] = bad
        with pytest.raises(ValueError, match="not in group_sizes") as error:
            clf.fit(X, y0, groups=groups, classes=[0, 1])
        messages.add(str(error.value))
    assert len(messages) == 1 and "zebra" not in messages.pop()


def test_bad_data():
    X, y = _bc()
    clf = PrivateMinimaxClassifier(random_state=0)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(Xn, y)
    Xn[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        clf.fit(Xn, y)
    with pytest.raises(ValueError):
        clf.fit(X[:, 0], y)
    with pytest.raises(ValueError, match="class"):
        clf.fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="groups"):
        clf.fit(X, y, groups=np.zeros(3))
    with pytest.raises(ValueError, match="group_sizes"):
        PrivateMinimaxClassifier(group_sizes={"a": 10}).fit(X, y)
    sized = PrivateMinimaxClassifier(group_sizes={"a": 10, "b": 10})
    with pytest.raises(ValueError, match="not in group_sizes"):
        sized.fit(X, y, groups=np.where(y == 1, "a", "c"))
    clf.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :3])


# ---------------------------------------------------------------------------
# Paper 002 solvers: step-size caps, sensitivities, filter
# ---------------------------------------------------------------------------
from skdp.solvers.minimax import mirror as minimax_mirror  # noqa: E402
from skdp.solvers.minimax.data import LinearData  # noqa: E402
from skdp._backend import Backend  # noqa: E402
from skdp.privacy.ledger import (advanced_composition_step_epsilon,  # noqa: E402
                                 fully_adaptive_epsilon)


def test_prop33_fixture():
    # paper 002 Cor. 3.6's tau_max: n=10000, T=100, K=9, eps=1, delta=1e-5, L0=1
    assert minimax_mirror.prop33_step_cap(10000, 100, 9, 1.0, 1e-5, 1.0) == pytest.approx(
        0.058249, abs=5e-7)
    tau = minimax_mirror.prop33_step_cap(10000, 100, 9, 1.0, 1e-5, 1.0)
    assert 4 * tau / 100 == pytest.approx(advanced_composition_step_epsilon(1.0, 1e-5, 2000))


def test_smd_step_cap_spends_exactly_the_budget():
    """The step is the largest the tightest composition allows: halving it fails."""
    X, y = _bc()
    clf = PrivateMinimaxClassifier(epsilon=1.0, solver="smd", group_sizes=np.bincount(y),
                                   random_state=0).fit(X, y)
    (entry,) = clf.privacy_ledger_.log()
    T, K = clf.n_iter_, minimax_mirror.PRACTICAL_KX
    kept = round(minimax_mirror.TAIL * T)  # steps whose output vertex is drawn
    assert entry["count"] == T * (K + 1) + 2 * kept
    assert clf.privacy_spent_[0] == pytest.approx(1.0, rel=1e-6)
    data = LinearData(X, y, y, 2, 2, 1.0, 1.0, np)
    consts = minimax_mirror.problem_constants(data, np.bincount(y), minimax_mirror.DEFAULT_RADIUS)
    B = X.shape[0] // T
    tau = entry["epsilon"] * B / (4 * consts["L0"])  # 002 Thm 3.4: eps' = 4 L0 tau / B
    assert tau > 0


def test_smd_theory_parameters_follow_thm31_and_prop33():
    X, y = _bc()
    n = X.shape[0]
    clf = PrivateMinimaxClassifier(epsilon=1.0, delta=1e-5, solver="smd", theory=True,
                                   group_sizes=np.bincount(y), random_state=0).fit(X, y)
    data = LinearData(X, y, y, 2, 2, 1.0, 1.0, np)
    consts = minimax_mirror.problem_constants(data, np.bincount(y), minimax_mirror.DEFAULT_RADIUS)
    d_x = 2 * (X.shape[1] + 1)
    T, K, tau = minimax_mirror.thm31_parameters(n, 1.0, 1e-5, d_x, 2, consts["L0"])
    assert clf.n_iter_ == T
    cap = minimax_mirror.prop33_step_cap(n, T, K, 1.0, 1e-5, consts["L0"])
    assert tau <= cap
    (entry,) = clf.privacy_ledger_.log()
    assert entry["count"] == 2 * T * (K + 1)
    assert entry["epsilon"] == pytest.approx(4 * consts["L0"] * tau / (n // T))
    assert clf.privacy_spent_[0] <= 1.0


def test_smd_score_sensitivity_replay():
    """Replacing one record moves a batch's tau * gradient by <= 2 L0 tau / B (l_inf)."""
    rng = np.random.default_rng(0)
    n, p, B = 200, 4, 20
    X = rng.normal(size=(n, p))
    y = rng.integers(0, 2, n)
    sizes = np.array([100.0, 100.0])
    data = LinearData(X, y, y, 2, 2, 1.0, 1.0, np)
    game = minimax_mirror._Game(data, sizes, 2.0, Backend.from_arrays(X, random_state=0))
    L0 = minimax_mirror.problem_constants(data, sizes, 2.0)["L0"]
    worst = 0.0
    for trial in range(50):
        lam = rng.dirichlet(np.ones(game.d_x))
        yv = rng.dirichlet(np.ones(2))
        idx = rng.choice(n, B, replace=False)
        other = rng.integers(n)
        idx2 = idx.copy()
        idx2[0] = other
        g1 = game.grads(data.subset(idx), lam, yv)
        g2 = game.grads(data.subset(idx2), lam, yv)
        worst = max(worst, np.abs(g1[0] - g2[0]).max(), np.abs(g1[1] - g2[1]).max())
    assert worst <= 2 * L0 / B


def test_bias_reduced_filter_and_sensitivity():
    X, y = _bc()
    clf = PrivateMinimaxClassifier(epsilon=1.0, solver="smd_bias_reduced",
                                   group_sizes=np.bincount(y), random_state=0).fit(X, y)
    eps = np.concatenate([[e["epsilon"]] * e["count"] for e in clf.privacy_ledger_.log()])
    assert fully_adaptive_epsilon(eps, 1e-6) <= 1.0 + 1e-9  # 002 Thm 3.5 filter
    # Prop. 3.17's constant, corrected: tau L0 (4 C_M 2^N + 2) / |B|
    c_M = 2 - 2.0**-3
    assert minimax_mirror.bias_reduced_sensitivity(0.1, 2.0, 2, 16, c_M) == pytest.approx(
        0.1 * 2.0 * (4 * c_M * 4 + 2) / 16)


def test_mlmc_records_one_release_per_phase_kind():
    X, y = _bc()
    clf = PrivateMinimaxClassifier(epsilon=1.0, solver="mlmc", group_sizes=np.bincount(y),
                                   random_state=0).fit(X, y)
    log = clf.privacy_ledger_.log()
    assert [e["label"] for e in log] == ["feature mean", "phase group losses",
                                        "phase model (MLMC mean of copies)"]
    mu = approx_dp_to_gdp(1.0, 1e-6)
    assert log[0]["mu"] ** 2 == pytest.approx(minimax_euclidean.CENTER_SHARE * mu**2, rel=1e-6)
    rest = (1 - minimax_euclidean.CENTER_SHARE) * mu**2
    assert log[1]["mu"] ** 2 == pytest.approx(minimax_euclidean.LOSS_SHARE * rest, rel=1e-6)
    assert clf.privacy_spent_[0] == pytest.approx(1.0, rel=1e-6)


# ---------------------------------------------------------------------------
# Issue 18: the default's budget, class sizes and worst-group weights
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("public", [False, True])
@pytest.mark.parametrize("epsilon, delta", [(0.5, 1e-6), (1.0, 1e-6), (2.0, 1e-5), (5.0, 1e-8)])
def test_default_ledger_sums_to_the_stated_epsilon(epsilon, delta, public):
    """Sizes, centre, losses and gradients: one GDP composition spending exactly epsilon."""
    X, y = make_classification(n_samples=400, n_features=4, n_informative=3, n_redundant=0,
                               n_classes=3, random_state=1)
    sizes = {c: int(s) for c, s in enumerate(np.bincount(y))} if public else None
    clf = PrivateMinimaxClassifier(epsilon=epsilon, delta=delta, group_sizes=sizes,
                                   random_state=0).fit(X / 5, y, classes=[0, 1, 2])
    labels = {e["label"] for e in clf.privacy_ledger_.log()}
    assert ("group sizes" in labels) is not public
    assert clf.privacy_method_ == "gdp"
    assert clf.privacy_spent_[0] == pytest.approx(epsilon, abs=1e-6)
    assert clf.privacy_spent_[0] <= epsilon


def test_one_group_releases_no_sizes():
    X, y = _bc()
    clf = PrivateMinimaxClassifier(epsilon=1.0, group_by=None, n_iter=3, random_state=0)
    clf.fit(X, y, classes=[0, 1])
    assert "group sizes" not in [e["label"] for e in clf.privacy_ledger_.log()]
    np.testing.assert_array_equal(clf.group_sizes_, [X.shape[0]])
    assert clf.privacy_spent_[0] == pytest.approx(1.0, abs=1e-6)


def test_group_sizes_are_a_gdp_share_floored_at_a_few_noise_sds():
    from skdp.minimax import GROUP_SIZE_SHARE, SIZE_FLOOR_SDS

    X, y = _bc()
    y = y.copy()
    y[np.flatnonzero(y == 0)[3:]] = 1  # a class of 3 rows
    mu = approx_dp_to_gdp(1.0, 1e-6)
    sigma = math.sqrt(2.0) / (math.sqrt(GROUP_SIZE_SHARE) * mu)
    for seed in range(3):
        clf = PrivateMinimaxClassifier(epsilon=1.0, n_iter=3, random_state=seed)
        clf.fit(X, y, classes=[0, 1])
        sizes = clf.privacy_ledger_.log()[0]
        assert sizes["label"] == "group sizes"
        assert sizes["mu"] == pytest.approx(math.sqrt(GROUP_SIZE_SHARE) * mu, rel=1e-9)
        assert clf.group_sizes_[0] >= SIZE_FLOOR_SDS * sigma - 1e-9
        assert clf.group_sizes_[0] < 10 * sigma  # not the old n / (4 m) = 142
        assert abs(clf.group_sizes_[1] - 566) < 6 * sigma


def test_group_player_fixed_point_and_noise():
    """Damped EG ascent: constant losses -> softmax(prior + L / tau); pure noise -> near prior."""
    player = minimax_euclidean._GroupPlayer(np.zeros(2), 400, 0.0)
    for _ in range(2000):
        player.update(np.array([0.70, 0.65]))
    expected = np.exp(np.array([0.70, 0.65]) / player.tau)
    np.testing.assert_allclose(player.weights, expected / expected.sum(), rtol=1e-6)
    rng = np.random.default_rng(0)
    sigma = 0.5
    noisy = minimax_euclidean._GroupPlayer(np.zeros(2), 400, sigma)
    seen = []
    for _ in range(400):
        noisy.update(0.7 + sigma * rng.standard_normal(2))
        seen.append(noisy.weights[0])
    assert 0.25 < min(seen) and max(seen) < 0.75  # the noise cannot swing the weights


def test_noise_free_noisy_gd_does_not_collapse_to_one_class():
    """The swing of issue 18: 200 noise-free steps on an imbalanced weak-signal table."""
    X, y = make_classification(n_samples=4000, n_features=6, n_informative=2, n_redundant=0,
                               weights=[0.62, 0.38], flip_y=0.2, class_sep=0.4, random_state=3)
    X = X / (2 * np.linalg.norm(X, axis=1).max())
    clf = PrivateMinimaxClassifier(epsilon=math.inf, n_iter=200, solver="noisy_gd")
    pred = clf.fit(X, y, classes=[0, 1]).predict(X)
    recalls = [np.mean(pred[y == c] == c) for c in (0, 1)]
    assert min(recalls) > 0.4
    assert np.all(clf.group_weights_ > 0.2)


def test_group_size_noise_matches_its_ledger_entry():
    """The released sizes' noise has the sd the ledger charges (halving it fails this test)."""
    from skdp.minimax import GROUP_SIZE_SHARE

    X, y = _bc()
    counts = np.bincount(y)
    sigma = math.sqrt(2.0) / (math.sqrt(GROUP_SIZE_SHARE) * approx_dp_to_gdp(1.0, 1e-6))
    noise = [PrivateMinimaxClassifier(epsilon=1.0, n_iter=1, random_state=seed)
             .fit(X, y, classes=[0, 1]).group_sizes_ - counts for seed in range(150)]
    assert np.std(noise) == pytest.approx(sigma, rel=0.1)
