"""Tests of SaddlePointSynthesizer and its solvers (paper 002 §1.4, §3.1, Thm 1.1, Cor. 3.6)."""

import itertools
import json
import math
import warnings

import numpy as np
import pytest
import sklearn

from skdp._backend import Backend
from skdp.exceptions import PrivacyLeakWarning
from skdp.privacy.ledger import (PrivacyLedger, advanced_composition_step_epsilon,
                                 approx_dp_to_gdp, approx_dp_to_zcdp,
                                 bounded_range_step_epsilon,
                                 fully_adaptive_step_epsilon, gaussian_sigma,
                                 zcdp_to_approx_dp)
from skdp.privacy.accountant import BudgetAccountant
from skdp.privacy.budget import Budget
from skdp.privacy.release import Release
from skdp.solvers.synth.compress import CompressedModel
from skdp.solvers.synth.graphical import GraphicalModel
from skdp.solvers.synth.games import private_game_schedule, step_epsilon, vertex_schedule
from skdp.solvers.synth.marginals import MarginalProblem, marginal_sensitivity
from skdp.solvers.synth.measure import measure
from skdp.solvers.synth.mst_aim import TableProblem
from skdp.solvers.spec import SolverResult, solvers_with
from skdp.solvers.synth.smd import mirror_prox
from skdp.synthesizer import SOLVER_SPECS, SaddlePointSynthesizer

MODEL_SOLVERS = frozenset(solvers_with(SOLVER_SPECS, graphical_model=True))

pd = pytest.importorskip("pandas")


def _table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(0, 2, n)) % 3
    c = rng.normal(size=n) + a
    return pd.DataFrame({
        "a": pd.Categorical(np.array(["x", "y", "z"])[a]),
        "b": b.astype(np.int64),
        "c": c,
        "flag": c > 1,
        "s": np.array(["u", "v", "w"], dtype=object)[b],
    })


DOMAIN = {"a": ["x", "y", "z"], "b": [0, 1, 2], "c": (-4.0, 6.0), "s": ["u", "v", "w"]}


def _problem(n=400, seed=0, shape=(3, 4, 2)):
    rng = np.random.default_rng(seed)
    records = rng.integers(0, int(np.prod(shape)), n)
    return MarginalProblem(shape, list(itertools.combinations(range(len(shape)), 2)), records)


# --------------------------------------------------------------------------- the game
@pytest.mark.parametrize("query_set", ["box", "simplex"])
def test_duality_gap_shrinks_with_iterations(query_set):
    problem = _problem()
    exact = problem.answer(np.bincount(problem.records, minlength=problem.size) / problem.n, np)
    gaps = [mirror_prox(problem, exact, np, query_set=query_set, n_iter=t, tol=None,
                        check_every=t)[1] for t in (10, 100, 1000)]
    assert gaps[0] > gaps[1] > gaps[2] >= -1e-12
    assert gaps[2] < 0.02


def test_game_solution_answers_exact_marginals():
    problem = _problem()
    exact = problem.answer(np.bincount(problem.records, minlength=problem.size) / problem.n, np)
    x, gap, _ = mirror_prox(problem, exact, np, n_iter=3000, tol=1e-4)
    err = max(np.abs(a - q).max() for a, q in zip(exact, problem.answer(x, np)))
    assert gap <= 1e-4 + 1e-12 and err < 2e-3
    assert abs(x.sum() - 1) < 1e-12 and x.min() >= 0


# --------------------------------------------------------------------------- privacy
def test_marginal_sensitivity_closed_form_and_replay():
    assert marginal_sensitivity(5) == pytest.approx(math.sqrt(10))
    assert marginal_sensitivity(5, "add_remove") == pytest.approx(math.sqrt(5))
    problem = _problem(n=50)
    moved = problem.records.copy()
    a = np.unravel_index(moved[0], problem.shape)
    moved[0] = np.ravel_multi_index(tuple((v + 1) % s for v, s in zip(a, problem.shape)),
                                    problem.shape)  # differs in every column
    before = np.concatenate(problem.answer(problem.counts(Backend(np, None, None)), np))
    after_p = MarginalProblem(problem.shape, problem.marginals, moved)
    after = np.concatenate(after_p.answer(after_p.counts(Backend(np, None, None)), np))
    assert np.linalg.norm(before - after) == pytest.approx(marginal_sensitivity(3))
    removed = MarginalProblem(problem.shape, problem.marginals, problem.records[1:])
    gone = np.concatenate(removed.answer(removed.counts(Backend(np, None, None)), np))
    assert np.linalg.norm(before - gone) == pytest.approx(marginal_sensitivity(3, "add_remove"))


def test_measurement_noise_is_calibrated():
    """Empirical noise std matches sigma = sqrt(2M) / sqrt(2 rho); halving it fails."""
    problem = _problem(n=100, shape=(6, 6, 6, 6))
    rho = approx_dp_to_zcdp(1.0, 1e-6)
    backend = Backend.from_arrays(np.zeros(1), random_state=0)
    ledger = PrivacyLedger()
    budget = Budget(1.0, 1e-6, rho, release=Release(backend, ledger))
    answers, sigma, n = measure(problem, budget)
    expected = gaussian_sigma(marginal_sensitivity(6), rho)
    assert sigma == pytest.approx(expected)
    exact = problem.answer(problem.counts(backend), np)
    noise = np.concatenate([a * n - e for a, e in zip(answers, exact)])
    assert np.std(noise) == pytest.approx(expected, rel=0.1)
    assert ledger.rho == pytest.approx(rho)
    assert ledger.spent(1e-6)[0] <= 1.0 + 1e-9


def test_fit_spends_exactly_the_closed_form():
    X = _table()
    # resolution=None: the fine grid of column c would be a second release (composed exactly
    # in GDP with smd's: tests/estimators/test_synth_domain.py)
    est = SaddlePointSynthesizer(epsilon=0.7, delta=1e-6, domain=DOMAIN, random_state=0,
                                 resolution=None, solver="smd")
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        est.fit(X)
    # one Gaussian release calibrated by exact Gaussian DP (Dong-Roth-Su Cor. 2.13)
    mu = approx_dp_to_gdp(0.7, 1e-6)
    sigma = est.solver_info_["noise_std_counts"]
    assert sigma == pytest.approx(math.sqrt(2 * 10) / mu)
    assert est.privacy_spent_[0] == pytest.approx(0.7, rel=1e-6)
    assert est.privacy_spent_[0] <= 0.7 * (1 + 1e-9) and est.privacy_method_ == "gdp"
    # it needs less noise than the zCDP calibration, which is also exact
    rho = approx_dp_to_zcdp(0.7, 1e-6)
    assert zcdp_to_approx_dp(rho, 1e-6) == pytest.approx(0.7, rel=1e-6)
    assert sigma < gaussian_sigma(math.sqrt(2 * 10), rho)


def test_gaussian_measurement_checked_by_dp_accounting():
    """An independent accountant (dp-accounting, PLD) agrees the release is (1, 1e-6)-DP."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    est = SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain=DOMAIN, random_state=0,
                                 resolution=None, solver="smd")  # the solver's release alone
    est.fit(_table())
    ratio = est.solver_info_["noise_std_counts"] / math.sqrt(2 * len(est.marginals_))
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dp_accounting.GaussianDpEvent(noise_multiplier=ratio))
    eps = acc.get_epsilon(1e-6)
    assert eps <= 1.0 + 1e-3 and eps == pytest.approx(est.privacy_spent_[0], rel=0.02)
    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dp_accounting.GaussianDpEvent(noise_multiplier=ratio / 2))  # noise halved
    assert acc.get_epsilon(1e-6) > 1.5


def test_step_epsilon_rules_and_paper_fixture():
    # paper 002 Cor. 3.6's tau_max: n=10000, T=100, K=9, eps=1, delta=1e-5 -> tau_max = 0.058249
    eps_step = advanced_composition_step_epsilon(1.0, 1e-5, 2 * 100 * (9 + 1))
    assert eps_step * 100 / 4.0 == pytest.approx(0.058249, abs=1e-6)
    budget = Budget(1.0, 1e-5, approx_dp_to_zcdp(1.0, 1e-5), release=None)
    e, rule = step_epsilon(budget, 2000)
    candidates = {"bounded_range_zcdp": bounded_range_step_epsilon(budget.rho, 2000),
                  "advanced_cor3.6": eps_step,
                  "fully_adaptive_thm3.5": fully_adaptive_step_epsilon(1.0, 1e-5, 2000)}
    assert rule == max(candidates, key=candidates.get) and e == candidates[rule]
    assert candidates["fully_adaptive_thm3.5"] > eps_step  # Cor. 3.6 is the loosest
    # not exclusive (another mechanism shares the budget): bounded range only
    assert step_epsilon(Budget(1.0, 1e-5, budget.rho, release=None, exclusive=False),
                        2000)[1] == \
        "bounded_range_zcdp"


def test_private_game_score_sensitivity_replay():
    """Replacing one record moves each cumulative score by at most tau_y / B."""
    problem = _problem(n=600)
    budget = Budget(1.0, 1e-6, approx_dp_to_zcdp(1.0, 1e-6), release=None)
    T, B, tau_x, tau_y, eps_step, _ = private_game_schedule(problem, budget)
    assert 2 * tau_y / B <= eps_step * (1 + 1e-12)
    perm = np.random.default_rng(0).permutation(problem.n)
    other = problem.records.copy()
    other[perm[0]] = (other[perm[0]] + 7) % problem.size
    diff = []
    for recs in (problem.records, other):
        batches = [recs[perm[t * B:(t + 1) * B]] for t in range(T)]
        cum = np.cumsum([np.concatenate(problem.record_marginals(b)) / B for b in batches], 0)
        diff.append(tau_y * cum)
    assert np.abs(diff[0] - diff[1]).max() <= tau_y / B + 1e-12


@pytest.mark.parametrize("solver", ["smd_private_game", "smd_vertex", "mwem", "smd_linf"])
def test_other_solvers_account_within_budget(solver):
    X = _table(n=300)
    est = SaddlePointSynthesizer(epsilon=1.0, solver=solver, domain=DOMAIN, n_bins=4,
                                 random_state=0, resolution=None).fit(X)
    assert est.privacy_spent_[0] <= 1.0 * (1 + 1e-9)
    assert est.n_iter_ >= 1
    assert np.isclose(float(np.sum(est.histogram_)), 1.0)
    if solver in ("smd_private_game", "smd_vertex"):
        assert est.step_rule_ in ("bounded_range_zcdp", "fully_adaptive_thm3.5",
                                  "advanced_cor3.6")
        draws = est.privacy_ledger_.entries[0]
        assert draws.kind == "exponential"
        assert draws.count == (est.n_iter_ if solver == "smd_private_game" else 4 * est.n_iter_)
    if solver == "mwem":
        kinds = {e.kind for e in est.privacy_ledger_.entries}
        assert kinds == {"exponential", "gaussian"}


def test_vertex_schedule_matches_prop_3_3():
    problem = _problem(n=2000)
    budget = Budget(1.0, 1e-6, approx_dp_to_zcdp(1.0, 1e-6), release=None)
    T, B, tau, eps_step, _ = vertex_schedule(problem, budget)
    assert 4 * tau / B <= eps_step * (1 + 1e-12)


# --------------------------------------------------------------------------- utility
def test_huge_epsilon_matches_data_marginals():
    X = _table(n=3000)
    est = SaddlePointSynthesizer(epsilon=1e8, domain=DOMAIN, n_bins=4, tol=1e-5, n_iter=3000,
                                 missing="error", random_state=0).fit(X)
    assert est.score(X) > -0.01
    syn = est.sample(random_state=1)
    assert est.score(syn) > -0.05  # sampling error of 3000 rows


def test_private_game_beats_uniform_at_large_n_epsilon():
    X = _table(n=3000)
    est = SaddlePointSynthesizer(epsilon=50.0, solver="smd_private_game", domain=DOMAIN,
                                 n_bins=3, random_state=0).fit(X)
    uniform = SaddlePointSynthesizer(epsilon=1e-3, domain=DOMAIN, n_bins=3, n_iter=1,
                                     random_state=0).fit(X)
    assert est.score(X) > uniform.score(X)


# --------------------------------------------------------------------------- tables
def test_dataframe_roundtrip_dtypes_and_categories():
    X = _table()
    est = SaddlePointSynthesizer(domain=DOMAIN, missing="error", random_state=0).fit(X)
    out = est.sample(50)
    assert list(out.columns) == list(X.columns) and len(out) == 50
    assert (out.dtypes == X.dtypes).all()
    assert list(out["a"].cat.categories) == ["x", "y", "z"]
    assert set(out["s"]) <= {"u", "v", "w"} and out["b"].between(0, 2).all()
    assert out["c"].between(-4, 6).all()
    assert len(est.sample()) == len(X)


def test_ndarray_roundtrip_and_determinism():
    X = np.random.default_rng(0).integers(0, 4, size=(300, 3))
    domain = {0: [0, 1, 2, 3], 1: [0, 1, 2, 3], 2: [0, 1, 2, 3]}
    a = SaddlePointSynthesizer(domain=domain, random_state=3, solver="smd").fit(X)
    b = SaddlePointSynthesizer(domain=domain, random_state=3, solver="smd").fit(X)
    np.testing.assert_array_equal(a.histogram_, b.histogram_)
    out = a.sample(20)
    assert out.dtype == X.dtype and out.shape == (20, 3)
    np.testing.assert_array_equal(out, a.sample(20))
    assert a.histogram_.shape == (4, 4, 4)


def test_json_domain_and_workload_list(tmp_path):
    X = _table()
    path = tmp_path / "domain.json"
    path.write_text(json.dumps({"a": ["x", "y", "z"], "b": [0, 1, 2],
                                "c": {"low": -4, "high": 6}, "s": ["u", "v", "w"]}))
    est = SaddlePointSynthesizer(domain=str(path), workload=[("a", "c"), ("b", "s", "flag")],
                                 n_bins=5, random_state=0).fit(X)
    assert est.domain_["c"] == {"low": -4.0, "high": 6.0, "n_bins": 5, "integer": False,
                                "missing": True}
    assert est.domain_["flag"] == {"categories": [False, True], "missing": False}
    assert est.domain_["b"] == {"categories": [0, 1, 2], "missing": False}  # int64: no NA
    assert est.marginals_ == [("a", "c"), ("b", "flag", "s")]
    assert set(est.workload_error(X)) == set(est.marginals_)


def test_missing_domain_warns_and_private_domain_does_not():
    X = _table()
    with pytest.warns(PrivacyLeakWarning, match="domain"):
        SaddlePointSynthesizer(random_state=1).fit(X)  # not the seed of the fit below
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        est = SaddlePointSynthesizer(domain="private", domain_share=0.2, n_bins=4,
                                     random_state=0).fit(X)
    labels = [e.label for e in est.privacy_ledger_.entries]
    assert any("domain" in lab for lab in labels)
    assert est.privacy_spent_[0] <= 1.0 * (1 + 1e-9)
    assert est.domain_["s"]["categories"][-1] == "<other>"
    # a pandas category column's categories are found privately too (its dtype's categories
    # may have been read from the values: issue 28)
    assert est.domain_["a"] == {"categories": ["x", "y", "z", "<other>"], "missing": True}
    domain_rho = est.privacy_ledger_.entries[0].rho
    # delta: half to the categories' threshold, a tenth to the spikes' of the float column
    # found privately, the rest to the Gaussian releases
    assert domain_rho == pytest.approx(0.2 * approx_dp_to_zcdp(1.0, 0.4e-6))


def test_add_remove_relation():
    X = _table()
    est = SaddlePointSynthesizer(domain=DOMAIN, neighbouring="add_remove", random_state=0,
                                 resolution=None, solver="smd").fit(X)  # its release alone
    assert est.solver_info_["noise_std_counts"] == pytest.approx(
        math.sqrt(10) / approx_dp_to_gdp(1.0, 1e-6))
    assert abs(est.n_records_ - len(X)) < 0.2 * len(X)
    with pytest.raises(ValueError, match="replace_one"):
        SaddlePointSynthesizer(solver="mwem", neighbouring="add_remove", domain=DOMAIN).fit(X)


# --------------------------------------------------------------------------- solver contract
@pytest.mark.parametrize("solver", sorted(SOLVER_SPECS))
def test_solver_specs_and_misspelt_options_raise_before_the_data(solver):
    """Every solver is registered with its paper and budget; an unknown option key raises
    before the data are read or any accountant is charged."""
    spec = SOLVER_SPECS[solver]
    assert spec.name == solver and spec.family == "synth" and spec.paper and spec.budget
    acc = BudgetAccountant()
    est = SaddlePointSynthesizer(solver=solver, solver_options={"n_itr": 10}, accountant=acc)
    with pytest.raises(ValueError, match="'n_itr'.*valid keys"):
        est.fit("not a table: never read")
    assert acc.spends == [] and not hasattr(est, "histogram_")
    with pytest.raises(ValueError, match="solver_options"):
        SaddlePointSynthesizer(solver=solver, solver_options=[("n_iter", 3)]).fit(_table())


@pytest.mark.parametrize("solver", sorted(set(SOLVER_SPECS) - MODEL_SOLVERS))
def test_every_solver_returns_the_one_result_type(solver):
    problem = MarginalProblem((3, 3), [(0, 1)], np.arange(90) % 9, n_iter=5)
    release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    rho = approx_dp_to_zcdp(1.0, 1e-6)
    budget = Budget(1.0, 1e-6, rho, release=release, mu=approx_dp_to_gdp(1.0, 1e-6))
    result = SOLVER_SPECS[solver].fn(problem, budget, SOLVER_SPECS[solver].resolve_options(None))
    assert isinstance(result, SolverResult) and result.n_iter >= 1
    assert np.isclose(float(np.sum(result.solution)), 1.0) and result.solution.shape == (9,)
    assert result.info["n_estimate"] == 90.0 and release.ledger.entries


@pytest.mark.parametrize("solver", sorted(MODEL_SOLVERS))
def test_every_model_solver_returns_the_one_result_type(solver):
    codes = np.stack(np.unravel_index(np.arange(90) % 9, (3, 3)), axis=1)
    problem = TableProblem((3, 3), [(0, 1)], codes, n_iter=5)
    release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    budget = Budget(1.0, 1e-6, approx_dp_to_zcdp(1.0, 1e-6), release=release)
    result = SOLVER_SPECS[solver].fn(problem, budget, SOLVER_SPECS[solver].resolve_options(None))
    assert isinstance(result, SolverResult) and result.n_iter >= 1
    assert isinstance(result.solution, (GraphicalModel, CompressedModel))  # mst may compress
    assert np.isclose(result.solution.marginal((0, 1)).sum(), 1.0)
    assert result.info["n_estimate"] == 90.0 and release.ledger.entries


# --------------------------------------------------------------------------- bad input
def test_bad_input_errors():
    X = _table()
    bad = X.copy()
    bad.loc[3, "c"] = np.nan
    with pytest.raises(ValueError, match="column 'c' has missing values .* missing='error'"):
        SaddlePointSynthesizer(domain=DOMAIN, missing="error").fit(bad)
    with pytest.raises(ValueError, match="column 0 has missing values"):
        SaddlePointSynthesizer(domain={0: [0, 1]}, missing="error").fit(
            np.array([[0.0], [np.nan]]))
    est = SaddlePointSynthesizer(domain=DOMAIN, random_state=0).fit(X)
    unseen = X.copy()
    unseen["s"] = unseen["s"].replace("u", "new")
    with pytest.raises(ValueError, match="column 's' has a value that is not among") as err:
        est.score(unseen)
    assert "new" not in str(err.value)  # private values are never echoed
    with pytest.raises(ValueError, match="column 's' has a value that is not among") as err:
        SaddlePointSynthesizer(domain={**DOMAIN, "s": ["u", "v"]}).fit(X)
    assert "'w'" not in str(err.value)
    wide = np.random.default_rng(0).normal(size=(50, 8))
    with pytest.raises(ValueError, match="cells.*fewer bins"):
        SaddlePointSynthesizer(solver="smd", domain={j: (-5, 5) for j in range(8)}).fit(wide)
    for eps in (0, -1.0):
        with pytest.raises(ValueError, match="epsilon"):
            SaddlePointSynthesizer(epsilon=eps, domain=DOMAIN).fit(X)
    with pytest.raises(ValueError, match="delta"):
        SaddlePointSynthesizer(delta=1.5, domain=DOMAIN).fit(X)
    with pytest.raises(ValueError, match="delta must be > 0"):
        SaddlePointSynthesizer(delta=0.0, domain=DOMAIN).fit(X)
    with pytest.raises(ValueError, match="solver"):
        SaddlePointSynthesizer(solver="newton", domain=DOMAIN).fit(X)
    with pytest.raises(ValueError, match="unknown column"):
        SaddlePointSynthesizer(workload=[("a", "zzz")], domain=DOMAIN).fit(X)
    with pytest.raises(ValueError, match="does not have"):
        SaddlePointSynthesizer(domain={"nope": [1]}).fit(X)


# --------------------------------------------------------------------------- array API
def test_array_api_strict_matches_numpy():
    xps = pytest.importorskip("array_api_strict")
    X = np.random.default_rng(0).integers(0, 3, size=(400, 3)).astype(np.float64)
    domain = {j: (0.0, 3.0) for j in range(3)}
    params = dict(domain=domain, n_bins=3, random_state=0, solver="smd")
    ref = SaddlePointSynthesizer(**params).fit(X)
    try:
        with sklearn.config_context(array_api_dispatch=True):
            est = SaddlePointSynthesizer(**params).fit(xps.asarray(X))
    except RuntimeError as exc:  # SCIPY_ARRAY_API not set before scipy was imported
        pytest.skip(f"array-API dispatch unavailable: {exc}")
    import array_api_compat

    assert array_api_compat.array_namespace(est.histogram_) is xps
    np.testing.assert_allclose(np.asarray(est.histogram_), ref.histogram_, rtol=1e-10,
                               atol=1e-14)
    assert est.n_iter_ == ref.n_iter_


def test_parameter_constraints_are_validated():
    from sklearn.utils.estimator_checks import check_param_validation

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        check_param_validation("SaddlePointSynthesizer", SaddlePointSynthesizer(random_state=0))


# --------------------------------------------------------------------------- issue 15, item 2
def _neighbours(value):
    """Two object tables differing in one row: all integers, or one ``value`` in column 0."""
    rng = np.random.default_rng(0)
    X0 = np.empty((60, 2), dtype=object)
    X0[:, 0] = [int(v) for v in rng.integers(0, 10, 60)]
    X0[:, 1] = [str(v) for v in rng.choice(["u", "v"], 60)]
    X1 = X0.copy()
    X1[0, 0] = value
    return X0, X1


def test_integer_output_does_not_read_the_values():
    """One non-integer value under public bounds flipped the column to float output
    (integers read from the values): now the dtype or the entry decides, never the values."""
    X0, X1 = _neighbours(2.5)
    domain = {0: (0, 10), 1: ["u", "v"]}
    params = dict(domain=domain, random_state=0)
    fits = [SaddlePointSynthesizer(**params).fit(X) for X in (X0, X1)]
    kinds = [{type(v) for v in est.sample(200, random_state=1)[:, 0] if v is not None}
             for est in fits]  # None: the missing cell
    assert kinds[0] == kinds[1] == {float}
    assert fits[0].domain_ == fits[1].domain_ and not fits[0].domain_[0]["integer"]
    domain[0] = {"low": 0, "high": 10, "integer": True}
    fits = [SaddlePointSynthesizer(**params).fit(X) for X in (X0, X1)]
    assert fits[0].domain_ == fits[1].domain_ and fits[0].domain_[0]["integer"]
    assert {type(v) for v in fits[1].sample(200, random_state=1)[:, 0] if v is not None} == {int}


def test_private_domain_kind_does_not_read_the_values():
    """With domain='private', one string in a column of numbers turned it categorical (and
    split delta for a threshold): the kind now comes from the dtype, the same for both."""
    X0, X1 = _neighbours("a string")
    fits = [SaddlePointSynthesizer(domain="private", epsilon=5.0, random_state=0).fit(X[:, :1])
            for X in (X0, X1)]
    entries = [list(est.privacy_ledger_.entries) for est in fits]  # kind, label and parameters
    assert entries[0] == entries[1]
    assert all(set(est.domain_[0]) == {"categories", "missing"} for est in fits)
    # the kind is public: {"kind": "numeric"} makes the same column numeric, bounds private
    est = SaddlePointSynthesizer(domain={0: {"kind": "numeric", "integer": True},
                                         1: {"kind": "categorical"}},
                                 epsilon=5.0, random_state=0).fit(X0)
    assert est.domain_[0]["integer"] and "low" in est.domain_[0]
    assert est.domain_[1]["categories"][-1] == "<other>"
    with pytest.raises(ValueError, match="column 0 has a value that is not a number") as err:
        SaddlePointSynthesizer(domain={0: {"kind": "numeric"}, 1: ["u", "v"]}).fit(X1)
    assert "a string" not in str(err.value)


def test_value_outside_the_domain_is_not_echoed():
    X0, X1 = _neighbours("secret-7")
    with pytest.raises(ValueError, match="column 0 has a value that is not a number") as err:
        SaddlePointSynthesizer(domain={0: (0, 10), 1: ["u", "v"]}).fit(X1)
    assert "secret" not in str(err.value)
    with pytest.raises(ValueError, match="column 0 has a value that is not among its 10") as err:
        SaddlePointSynthesizer(domain={0: 10, 1: ["u", "v"]}).fit(X1)
    assert "secret" not in str(err.value)


# --------------------------------------------------------------------------- issue 15, item 11
def test_domain_entry_forms():
    X = pd.DataFrame({"code": np.arange(40) % 5, "flag": np.array([True, False] * 20, object),
                      "x": np.linspace(0, 1, 40), "city": ["Lyon", "Rome"] * 20})
    domain = {"code": 5, "flag": [True, False], "x": {"low": 0, "high": 1, "n_bins": 4},
              "city": {"categories": ["Lyon", "Paris", "Rome"], "missing": False}}
    est = SaddlePointSynthesizer(domain=domain, random_state=0).fit(X)
    assert est.domain_ == {
        "code": {"categories": [0, 1, 2, 3, 4], "missing": False},  # int64: no missing cell
        "flag": {"categories": [True, False], "missing": True},     # object: one
        "x": {"low": 0.0, "high": 1.0, "n_bins": 4, "integer": False, "missing": True},
        "city": {"categories": ["Lyon", "Paris", "Rome"], "missing": False}}
    assert est.domain_shape_ == (5, 3, 5, 3)
    # True is not 1: a list of 0/1 does not hold booleans
    with pytest.raises(ValueError, match="column 'flag' has a value that is not among its 2"):
        SaddlePointSynthesizer(domain={**domain, "flag": [0, 1]}).fit(X)


@pytest.mark.parametrize("entry, match", [
    ({"categories": ["a"], "low": 0}, "column 'x'.*keys"),
    ({"low": 0, "high": 1, "colour": 2}, "column 'x'.*keys"),
    ({"kind": "ordinal"}, "column 'x'.*'kind'"),
    ({"kind": "categorical", "integer": True}, "column 'x'.*'kind'"),
    ({"low": 0}, "bounds of column 'x' need both"),
    ({"low": 0, "high": 1, "n_bins": 0}, "column 'x'.*n_bins"),
    ({"low": 0, "high": 1, "integer": 1}, "column 'x'.*'integer' must be true or false"),
    ({"categories": ["a"], "missing": "yes"}, "column 'x'.*'missing' must be true or false"),
    ({"low": True, "high": 2}, "bounds of column 'x'"),
    ((0, 1, 2), "bounds of column 'x'"),
    ([], "column 'x' has an empty category list"),
    (["a", None], "categories of column 'x' contain a missing value"),
    ([1, 1.0], "categories of column 'x' repeat a value"),
    (0, "domain of column 'x'.*>= 1"),
    (None, "domain of column 'x' must be"),
    ("private", "domain of column 'x' must be"),
])
def test_malformed_domain_entries_name_the_column(entry, match):
    X = pd.DataFrame({"x": [0.5, 0.25], "k": [1, 2]})
    with pytest.raises((ValueError, TypeError), match=match):
        SaddlePointSynthesizer(domain={"x": entry, "k": [1, 2]}).fit(X)


def test_missing_true_on_a_dtype_without_missing_values_is_refused():
    X = np.array([[0], [1]])
    with pytest.raises(ValueError, match="column 0 has dtype int64, which cannot hold"):
        SaddlePointSynthesizer(domain={0: {"categories": [0, 1], "missing": True}}).fit(X)


def test_domain_is_reported_in_a_reusable_json_form(tmp_path):
    X = _table(n=300)
    X.loc[::7, "c"] = np.nan
    est = SaddlePointSynthesizer(domain="private", epsilon=20.0, random_state=0).fit(X)
    path = tmp_path / "domain.json"
    path.write_text(json.dumps(est.domain_))
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        again = SaddlePointSynthesizer(domain=str(path), random_state=1).fit(X)
    assert again.domain_ == est.domain_ and again.domain_shape_ == est.domain_shape_
    assert est.domain_["c"]["missing"] and not est.domain_["b"]["missing"]
    assert est.domain_["b"]["integer"] and not est.domain_["c"]["integer"]


def test_a_private_domain_that_keeps_nothing_says_so():
    """Issue 30: ``--domain private`` on a 481-row, 33-column table kept no category of any
    column, and the release of all '<other>' came with no word; the columns and the public
    level a noisy count had to pass are now named (post-processing of the release)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"city": rng.choice(["a", "b"], 60), "age": rng.integers(20, 70, 60)})
    with pytest.warns(UserWarning, match=r"kept no category of column\(s\) \['city'\] "
                      r"\(one is kept when its noisy count passes \d+ rows.*and no range of "
                      r"column\(s\) \['age'\]"):
        est = SaddlePointSynthesizer(domain="private", epsilon=1.0, random_state=0).fit(X)
    assert est.domain_["city"]["categories"] == ["<other>"]
    big = pd.concat([X] * 200, ignore_index=True)  # 12,000 rows: both found
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        est = SaddlePointSynthesizer(domain="private", epsilon=1.0, random_state=0).fit(big)
    assert set(est.domain_["city"]["categories"]) == {"a", "b", "<other>"}


def test_an_integer_range_found_privately_ends_at_its_integers():
    """A 0/1 column found privately had the range [0, 2] (the grid bin [1, 2) kept), and about
    1% of its synthetic values were a 2 no row holds: an integer column's bounds are now the
    first and last integer of the bins kept (post-processing)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"male": rng.integers(0, 2, 8000), "age": rng.integers(25, 65, 8000)})
    est = SaddlePointSynthesizer(domain="private", epsilon=1.0, random_state=0).fit(X)
    assert (est.domain_["male"]["low"], est.domain_["male"]["high"]) == (0.0, 1.0)
    assert (est.domain_["age"]["low"], est.domain_["age"]["high"]) == (16.0, 127.0)
    assert set(est.sample(random_state=1)["male"]) <= {0, 1}


def test_the_auto_domain_share_follows_the_columns_found_privately():
    """``domain_share='auto'``: 0.4 of the budget where every column's domain is found
    privately (measured), 0.1 where none is, in proportion between: one ``"kind"`` entry
    among four columns takes 0.175, not the whole private share (public: the entries)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({c: rng.choice(["x", "y", "z"], 3000) for c in "abcd"})
    domain = {"a": {"kind": "categorical"}, **{c: ["x", "y", "z"] for c in "bcd"}}
    rho = approx_dp_to_zcdp(1.0, 0.5e-6)  # half of delta to the categories' threshold
    for dom, share in ((domain, 0.25 * 0.4 + 0.75 * 0.1), ("private", 0.4)):
        est = SaddlePointSynthesizer(domain=dom, epsilon=1.0, solver="aim",
                                     random_state=0).fit(X)
        first = est.privacy_ledger_.entries[0]
        assert first.label.startswith("domain counts")
        assert first.rho == pytest.approx(share * rho, rel=1e-9)


# --------------------------------------------------------------------------- issue 15, item 9
def _with_missing():
    X = _table(n=400)
    X["c"] = X["c"].where(np.arange(400) % 4 != 0)  # a quarter missing
    X["s"] = X["s"].astype(object).where(np.arange(400) % 5 != 1, None)
    X["a"] = X["a"].where(np.arange(400) % 10 != 2)
    X["i"] = pd.array(np.where(np.arange(400) % 8 == 3, None, np.arange(400) % 3), dtype="Int64")
    return X


def test_missing_keep_is_a_value_of_its_own():
    X = _with_missing()
    domain = {**DOMAIN, "i": [0, 1, 2]}
    est = SaddlePointSynthesizer(epsilon=1e6, domain=domain, random_state=0).fit(X)
    assert [e["missing"] for e in est.domain_.values()] == [True, False, True, False, True, True]
    out = est.sample(4000, random_state=1)
    assert (out.dtypes == X.dtypes).all()
    for col, rate in [("c", 0.25), ("s", 0.2), ("a", 0.1), ("i", 0.125), ("b", 0.0)]:
        assert out[col].isna().mean() == pytest.approx(rate, abs=0.04), col
    # the cells do not depend on whether the data has missing values
    clean = SaddlePointSynthesizer(domain=domain, random_state=0).fit(X.fillna({"c": 0.0}))
    assert clean.domain_ == SaddlePointSynthesizer(domain=domain, random_state=0).fit(X).domain_


def test_missing_keep_on_arrays():
    X = np.array([[0.5, "a"], [np.nan, None], [0.25, "b"]] * 20, dtype=object)
    est = SaddlePointSynthesizer(epsilon=1e6, domain={0: (0, 1), 1: ["a", "b"]},
                                 random_state=0).fit(X)
    out = est.sample(300, random_state=0)
    assert {type(v) for v in out[:, 0]} == {float, type(None)}
    assert sum(v is None for v in out[:, 1]) == pytest.approx(100, abs=30)
    F = np.array([[0.5], [np.nan], [0.25]] * 20)
    out = SaddlePointSynthesizer(epsilon=1e6, domain={0: (0, 1)}, random_state=0).fit(F).sample(300)
    assert out.dtype == np.float64 and np.isnan(out).sum() == pytest.approx(100, abs=30)


def test_missing_drop_and_error():
    X = _with_missing()
    domain = {**DOMAIN, "i": [0, 1, 2]}
    complete = int(X.notna().all(axis=1).sum())
    with pytest.warns(PrivacyLeakWarning, match="missing='drop'"):
        est = SaddlePointSynthesizer(domain=domain, missing="drop", random_state=0).fit(X)
    assert est.n_records_ == complete and not any(e["missing"] for e in est.domain_.values())
    assert not est.sample(200).isna().any().any()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # private under add/remove
        SaddlePointSynthesizer(domain=domain, missing="drop", neighbouring="add_remove",
                               random_state=1).fit(X)
    with pytest.raises(ValueError, match="column 'a' has missing values"):  # the first
        SaddlePointSynthesizer(domain=domain, missing="error").fit(X)


# --------------------------------------------------------------------------- issue 15, item 10
def test_feature_names_name_the_columns_of_an_array():
    X = np.random.default_rng(0).integers(0, 3, size=(100, 3)).astype(float)
    names = ["age", "sex", "zip"]
    with pytest.warns(PrivacyLeakWarning, match=r"\['zip'\]"):
        est = SaddlePointSynthesizer(domain={"age": (0, 3), "sex": [0, 1, 2]}, workload=1,
                                     random_state=0).fit(X, feature_names=names)
    assert list(est.domain_) == names and est.marginals_ == [("age",), ("sex",), ("zip",)]
    assert np.isfinite(est.score(X)) and not hasattr(est, "feature_names_in_")
    with pytest.raises(ValueError, match="does not have: \\[0\\]"):
        SaddlePointSynthesizer(domain={0: (0, 3)}).fit(X, feature_names=names)
    with pytest.raises(ValueError, match="feature_names must be 3 distinct strings"):
        SaddlePointSynthesizer().fit(X, feature_names=["a", "a", "b"])
    with pytest.raises(ValueError, match="feature_names must be None for a DataFrame"):
        SaddlePointSynthesizer().fit(pd.DataFrame(X, columns=names), feature_names=["x"] * 3)


# --------------------------------------------------------------------------- issue 15, item 13
def test_iter_sample_batches_are_one_sample():
    X = np.random.default_rng(0).integers(0, 4, size=(300, 2))
    est = SaddlePointSynthesizer(domain={0: 4, 1: 4}, random_state=0, solver="smd").fit(X)
    batches = list(est.iter_sample(1050, batch_size=100, random_state=3))
    assert [len(b) for b in batches] == [100] * 10 + [50]
    whole = est.sample(1050, random_state=3)  # the same rounded counts, split differently
    np.testing.assert_array_equal(np.sort(np.concatenate(batches), axis=0), np.sort(whole, axis=0))
    assert list(est.iter_sample(0)) == [] and est.sample(0).shape == (0, 2)
    with pytest.raises(ValueError, match="batch_size"):
        est.iter_sample(10, batch_size=0)
    with pytest.raises(ValueError, match="below"):
        est.iter_sample(10**9, batch_size=10)


def test_batches_split_a_uniform_random_order():
    """Each batch's composition is the hypergeometric law of its rows in a random order."""
    from skdp.solvers.synth.sample import batches as _batches

    cells, counts = np.array([3, 7, 9]), np.array([500, 300, 201])
    draws = []
    for seed in range(200):
        parts = list(_batches(cells, counts, 100, np.random.default_rng(seed)))
        assert [int(c.sum()) for _, c in parts] == [100] * 10 + [1]
        full = [np.bincount(np.searchsorted(cells, c_), weights=k, minlength=3)
                for c_, k in parts]
        np.testing.assert_array_equal(np.sum(full, axis=0), counts)
        draws.append(full[:10])
    mean = np.mean(draws, axis=0)  # 200 x 10 batches x 3 cells
    np.testing.assert_allclose(mean, np.tile(counts / 10.01, (10, 1)), atol=2.5)
    var = np.var(np.asarray(draws)[:, :, 0], axis=0)
    p = 500 / 1001
    expected = 100 * p * (1 - p) * (1001 - 100) / (1001 - 1)
    assert np.all(np.abs(var / expected - 1) < 0.5)


def test_sample_refuses_what_cannot_fit_in_memory(monkeypatch):
    from skdp.solvers.synth import sample as sampling

    X = np.random.default_rng(0).integers(0, 4, size=(100, 2))
    est = SaddlePointSynthesizer(domain={0: 4, 1: 4}, random_state=0).fit(X)
    with pytest.raises(ValueError, match="GiB.*iter_sample"):
        est.sample(10**15)
    monkeypatch.setattr(sampling, "available_memory", lambda: 10_000)
    with pytest.raises(ValueError, match="sample\\(1000\\) needs"):
        est.sample(1000)
    assert sum(len(b) for b in est.iter_sample(1000, batch_size=200)) == 1000
