"""One harness over the solver registries: a solver is tested by registering it.

For every :class:`~skdp.solvers.spec.SolverSpec` of every estimator's
``SOLVER_SPECS``: it fits on a small table (the audit's cases,
``tests/_audit_cases.py``), its ledger composes to at most its claim and the
accountant is charged exactly the claim; a misspelt or out-of-range
``solver_options`` key raises before anything is charged; the Array API path
runs under ``array_api_strict`` and gives NumPy's result where the spec says
it runs there. The audit's weakened-noise checks run over the same registries
(``tests/privacy/test_audit.py``). Also here: the release path's noise has the
recorded scale (halved noise fails), and no module outside the privacy core
and the backend draws privacy noise.
"""

import ast
from pathlib import Path
import re

import numpy as np
import pytest
import sklearn

from _audit_cases import ESTIMATORS, PAIRS, make_case
from _audit_cases import fit_case as _fit
from skdp import BudgetAccountant, minimax, regression, synthesizer
from skdp._backend import Backend, to_numpy
from skdp.audit import weakened_noise
from skdp.privacy import Budget, PrivacyLedger, Release
from skdp.solvers.spec import SolverResult, SolverSpec

REGISTRIES = {"minimax": minimax.SOLVER_SPECS, "regression": regression.SOLVER_SPECS,
              "synthesizer": synthesizer.SOLVER_SPECS}
CASES = [(name, solver) for name, registry in REGISTRIES.items() for solver in registry]
FAMILIES = {"minimax", "kl", "synth", "streaming", "goldstein", "suffstats"}
DELTA = 1e-5


def _case(name, solver, epsilon=1.0):
    est, X, y = make_case(name, solver, epsilon)
    return est.set_params(delta=DELTA, random_state=0), X, y


def test_registries_are_what_the_audit_covers():
    assert sorted(CASES) == sorted(PAIRS)
    for name, registry in REGISTRIES.items():
        assert set(registry) <= set(ESTIMATORS[name][2])


@pytest.mark.parametrize("name, solver", CASES)
def test_spec_describes_the_solver(name, solver):
    spec = REGISTRIES[name][solver]
    assert isinstance(spec, SolverSpec) and spec.name == solver and callable(spec.fn)
    assert spec.family in FAMILIES
    assert re.search(r"\d{3}", spec.paper), "the spec names its paper"
    assert spec.budget, "the spec says how the solver splits its budget"
    assert set(spec.backends) <= {"numpy", "array_api"} and "numpy" in spec.backends
    assert len(spec.option_names) == len(set(spec.option_names))
    defaults = spec.resolve_options(None)
    assert set(defaults) == set(spec.option_names)


@pytest.mark.parametrize("name, solver", CASES)
def test_fit_spends_within_its_claim(name, solver):
    est, X, y = _case(name, solver)
    accountant = BudgetAccountant(epsilon=10.0, delta=1e-3)
    _fit(est.set_params(accountant=accountant), name, X, y)
    spent = est.privacy_ledger_.epsilon(DELTA)
    assert 0 < spent <= 1.0 * (1 + 1e-9), f"{solver}: the ledger composes to {spent}"
    assert est.privacy_spent_[0] == pytest.approx(spent, rel=1e-9)
    (charge,) = accountant.spends
    assert (charge["epsilon"], charge["delta"]) == (1.0, DELTA)
    spec = REGISTRIES[name][solver]
    for attr, _ in spec.info_attributes:  # the spec's fitted attributes are published
        assert hasattr(est, attr), attr
    if name == "synthesizer":  # a graphical model or a dense histogram, as the spec says
        assert hasattr(est, "model_") == spec.graphical_model != hasattr(est, "histogram_")


@pytest.mark.parametrize("name, solver", CASES)
def test_misspelt_option_raises_before_anything_is_charged(name, solver):
    est, X, y = _case(name, solver)
    accountant = BudgetAccountant(epsilon=10.0, delta=1e-3)
    options = {**(est.solver_options or {}), "n_itr": 10}
    est.set_params(solver_options=options, accountant=accountant)
    valid = REGISTRIES[name][solver].option_names
    with pytest.raises(ValueError, match=r"'n_itr'.*valid keys: " + re.escape(str(valid))):
        _fit(est, name, X, y)
    assert accountant.spends == []
    assert not hasattr(est, "privacy_spent_")
    assert not hasattr(est, "n_features_in_")  # refused before the data are read


def _bad_value(option):
    if option.choices is not None:
        return "not-a-choice"
    if option.low is not None:
        return option.low - 1
    if option.high is not None:
        return option.high + 1
    return object()


@pytest.mark.parametrize("name, solver", CASES)
def test_option_out_of_range_or_of_wrong_type_raises(name, solver):
    spec = REGISTRIES[name][solver]
    if not spec.options:
        pytest.skip(f"{solver} takes no options")
    est, X, y = _case(name, solver)
    accountant = BudgetAccountant(epsilon=10.0, delta=1e-3)
    base = dict(est.solver_options or {})
    for option in spec.options:
        options = {**base, option.name: _bad_value(option)}
        est.set_params(solver_options=options, accountant=accountant)
        with pytest.raises(ValueError, match=re.escape(repr(option.name))):
            _fit(est, name, X, y)
    assert accountant.spends == []


ARRAY_API_CASES = [(name, solver) for name, solver in CASES
                   if "array_api" in REGISTRIES[name][solver].backends]


def _released(est):
    if hasattr(est, "histogram_"):
        return np.asarray(to_numpy(est.histogram_), dtype=float).ravel()
    return np.r_[np.ravel(to_numpy(est.coef_)), np.ravel(to_numpy(est.intercept_))]


@pytest.mark.parametrize("name, solver", ARRAY_API_CASES)
def test_array_api_strict_gives_numpy_result(name, solver):
    xps = pytest.importorskip("array_api_strict")
    est, X, y = _case(name, solver)
    if name == "synthesizer":  # a numeric table: array namespaces hold numbers only
        X = X.astype(np.float64)
        est.set_params(domain={j: (0.0, 3.0) for j in range(X.shape[1])}, n_bins=3)
    expected = _released(_fit(est, name, X, y))
    y_strict = None if y is None else xps.asarray(y)
    try:
        with sklearn.config_context(array_api_dispatch=True):
            strict = _fit(est.__class__(**est.get_params()), name, xps.asarray(X), y_strict)
    except RuntimeError as exc:  # SCIPY_ARRAY_API not set before scipy was imported
        pytest.skip(f"array-API dispatch unavailable: {exc}")
    np.testing.assert_allclose(_released(strict), expected, rtol=1e-6, atol=1e-9)


# ---------------------------------------------------------------------------
# The release path
# ---------------------------------------------------------------------------
def _release_noise_sd(factor=None):
    release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    budget = Budget(1.0, DELTA, rho=10.0, release=release)
    step = budget.gaussian_batch(1.0, 2.0, count=2, label="batch")
    draws = np.concatenate([release.gaussian(np.zeros(20_000), 1.0, 2.0, label="one"),
                            step(np.zeros(20_000)), step(np.zeros(20_000))])
    return float(np.std(draws)), release.ledger


def test_release_noise_has_the_recorded_scale_and_halved_noise_fails():
    sd, ledger = _release_noise_sd()
    assert sd == pytest.approx(2.0, rel=0.02)
    assert ledger.rho == pytest.approx(3 * 1.0 / (2 * 2.0**2))
    with weakened_noise(2.0):
        halved, _ = _release_noise_sd()
    assert not halved == pytest.approx(2.0, rel=0.02)


def test_a_batch_refuses_draws_beyond_its_record():
    release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    step = release.gaussian_batch(1.0, 1.0, count=1, label="one step")
    step(np.zeros(2))
    with pytest.raises(RuntimeError, match="more than the 1 releases"):
        step(np.zeros(2))


def test_solver_result_is_one_type():
    result = SolverResult(solution=np.zeros(2), n_iter=3)
    assert result.history == [] and result.info == {} and result.state is None


# ---------------------------------------------------------------------------
# No privacy noise outside the privacy core
# ---------------------------------------------------------------------------
SKDP = Path(__file__).resolve().parents[2] / "skdp"
DRAWS = {"normal", "standard_normal", "laplace", "gumbel", "exponential", "multinomial"}
ALLOWED = {"privacy", "_backend.py"}
# the audit's weakened generator wraps the fit generator's draws (tests and audits only)
AUDIT = {"audit.py"}


def _draw_calls(path):
    """``(line, call)`` of every ``<x>.<draw>(...)`` call in the module's code (not its strings,
    so doctests and prose are left out), except the release path's own
    ``release.exponential(...)``: a generator's draw, or a ledger record written apart
    from its draw."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in DRAWS):
            call = ast.unparse(node.func)
            if not call.endswith("release.exponential"):
                yield node.lineno, call


def test_no_module_outside_the_privacy_core_draws_noise():
    offenders = [f"skdp/{path.relative_to(SKDP)}:{line}: {call}(...)"
                 for path in sorted(SKDP.rglob("*.py"))
                 if path.relative_to(SKDP).parts[0] not in ALLOWED | AUDIT
                 for line, call in _draw_calls(path)]
    assert not offenders, "privacy noise drawn outside skdp/privacy:\n" + "\n".join(offenders)


# ---------------------------------------------------------------------------
# One release path: only Budget methods, outside the privacy core
# ---------------------------------------------------------------------------
PATH_ATTRS = {"release", "ledger", "_release", "_filter"}
PATH_MODULES = {"release", "composite"}
# names of those modules that release nothing (a what-if ledger for a budget search)
PATH_NAMES_ALLOWED = {"exponential_trial"}
# none: the accountant's budget store is ``store`` (``BudgetAccountant.store``, the CLI's
# ``--store``) and a reservation is cancelled by ``BudgetAccountant.cancel``, not ``release``
OWNERS_ALLOWED = set()


def _release_path_bypasses(path):
    """``(line, code)`` of every reach past :class:`~skdp.privacy.budget.Budget`'s methods:
    a ``.release`` / ``.ledger`` / ``._release`` / ``._filter`` attribute (a budget's release
    path or ledger, written or read), or an import of the release path itself
    (``skdp.privacy.release``, ``skdp.privacy.composite``, ``Release``)."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr in PATH_ATTRS
                and ast.unparse(node.value) not in OWNERS_ALLOWED):
            yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.ImportFrom):
            names = {alias.name for alias in node.names}
            module = (node.module or "").rsplit(".", 1)[-1]
            if ((module in PATH_MODULES and not names <= PATH_NAMES_ALLOWED)
                    or "Release" in names):
                source = "." * node.level + (node.module or "")
                yield node.lineno, f"from {source} import {', '.join(sorted(names))}"


def test_solvers_and_estimators_release_only_through_budget_methods():
    offenders = [f"skdp/{path.relative_to(SKDP)}:{line}: {code}"
                 for path in sorted(SKDP.rglob("*.py"))
                 if path.relative_to(SKDP).parts[0] not in ALLOWED
                 for line, code in _release_path_bypasses(path)]
    assert not offenders, ("a release outside Budget's methods (the one release path, "
                           "skdp/privacy/budget.py):\n" + "\n".join(offenders))


def test_the_release_path_check_sees_a_bypass(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from ..privacy.composite import host\n"
                   "def fn(problem, budget, options):\n"
                   "    budget.release.gaussian(1.0, 1.0, 1.0, label='x')\n"
                   "    budget.ledger.approx(0.0, 1e-9)\n")
    found = [code for _, code in _release_path_bypasses(bad)]
    assert "budget.release" in found and "budget.ledger" in found
    assert any(code.startswith("from ..privacy.composite") for code in found)
