"""The solver facts of the specs (issue 29 item 3) against what the estimators do.

Each estimator decides by solver only through its registry's
:class:`~skdp.solvers.spec.SolverSpec` facts (``dask``, ``auto``, ``gaussian``,
``losses``, ``models``, ``neighbourings``, ``streaming``, ``graphical_model``,
``info_attributes``). Here: the facts equal the name sets they replaced (frozen
below as they stood), each fact is what the estimator does (a Dask solver fits
Dask input and the others are refused before any charge; the ``auto`` rule
picks only ``auto`` solvers, and each of them somewhere; ...), the command
line's list is the registry's, and the old public names still answer, with a
``FutureWarning``.
"""

import itertools

import numpy as np
import pytest

from _audit_cases import fit_case as _fit, make_case
from skdp import BudgetAccountant, minimax, regression, synthesizer
from skdp._cli import parser
from skdp._partial_fit import has_streaming_solver
from skdp.privacy.ledger import approx_dp_to_gdp, approx_dp_to_zcdp
from skdp.solvers.losses.classification import LOSSES as CLASSIFIER_LOSSES
from skdp.solvers.spec import SolverSpec, auto_solvers, choices_with, solvers_with
from skdp.solvers.streaming.srgd import STREAM_ALGORITHMS

CLF, REG, SYN = minimax.SOLVER_SPECS, regression.SOLVER_SPECS, synthesizer.SOLVER_SPECS
REGISTRIES = {"minimax": CLF, "regression": REG, "synthesizer": SYN}
CASES = [(name, solver) for name, specs in REGISTRIES.items() for solver in specs]
GOLDSTEIN = {"fo_single_pass", "zo_single_pass", "zo_multi_pass"}
STREAMS = {"srgd", "srg_memf", "memf", "dpsgd"}
ADDED = {"adassp", "ssp"}  # regressor solvers registered since (Gaussian, linear model only)

# the name sets as they stood before the facts replaced them (main at 7978bc8)
OLD_SETS = {
    "minimax.RAMP_SOLVERS": (GOLDSTEIN, lambda: solvers_with(CLF, loss="ramp")),
    "minimax._AUTO": ({"noisy_gd", "dpsgd_poisson"}, lambda: auto_solvers(CLF, loss="logistic")),
    "minimax: auto for ramp": ({"fo_single_pass"}, lambda: auto_solvers(CLF, loss="ramp")),
    "minimax.DASK_SOLVERS": ({"auto", "noisy_gd", "dpsgd_poisson", *STREAMS},
                             lambda: choices_with(CLF, {"loss": "logistic"}, dask=True)),
    "minimax: family streaming": (STREAMS, lambda: solvers_with(CLF, streaming=True)),
    "minimax: family goldstein": (GOLDSTEIN,
                                  lambda: [s for s in CLF if CLF[s].info_attributes]),
    "regression.GAUSSIAN_SOLVERS": ({"adaptive_gd", "noisy_gd", "spider", "ppm", *ADDED},
                                    lambda: solvers_with(REG, gaussian=True)),
    "regression.DASK_SOLVERS + STREAMING_SOLVERS": (
        {"adaptive_gd", "noisy_gd", "stationary_gd", "dpsgd_poisson", "spider", "ppm", *STREAMS},
        lambda: choices_with(REG, dask=True)),
    "regression.STREAMING_SOLVERS": (STREAMS, lambda: solvers_with(REG, streaming=True)),
    "regression: GOLDSTEIN_SOLVERS (model='linear' only)": (
        GOLDSTEIN | ADDED, lambda: [s for s in REG if not REG[s].has(model="mlp")]),
    "regression: family goldstein": (GOLDSTEIN,
                                     lambda: [s for s in REG if REG[s].info_attributes]),
    "regression: resolve_solver's values": (
        {"fo_single_pass", "dpsgd_poisson", "adaptive_gd", "ppm", "spider", "ssp"},
        lambda: auto_solvers(REG)),
    "synthesizer.MODEL_SOLVERS": ({"mst", "aim"},
                                  lambda: solvers_with(SYN, graphical_model=True)),
    "synthesizer.DASK_SOLVERS": ({"auto", "smd", "smd_linf", "mwem", "mst", "aim"},
                                 lambda: choices_with(SYN, dask=True)),
    "synthesizer: add_remove": ({"auto", "smd", "mst", "aim"},
                                lambda: choices_with(SYN, neighbouring="add_remove")),
    "synthesizer: auto": ({"mst", "aim"}, lambda: auto_solvers(SYN)),  # issue 30 item 3
    "srgd.STREAMING_SOLVERS": (STREAMS, lambda: STREAM_ALGORITHMS),
}


@pytest.mark.parametrize("name", OLD_SETS)
def test_the_facts_equal_the_name_sets_they_replace(name):
    old, derived = OLD_SETS[name]
    derived = list(derived())
    assert len(derived) == len(set(derived)) and set(derived) == old


@pytest.mark.parametrize("module, name, old", [
    (minimax, "RAMP_SOLVERS", GOLDSTEIN),
    (minimax, "DASK_SOLVERS", {"auto", "noisy_gd", "dpsgd_poisson", *STREAMS}),
    (regression, "GAUSSIAN_SOLVERS", {"adaptive_gd", "noisy_gd", "spider", "ppm", *ADDED}),
    (regression, "DASK_SOLVERS",
     {"adaptive_gd", "noisy_gd", "stationary_gd", "dpsgd_poisson", "spider", "ppm"}),
    (synthesizer, "MODEL_SOLVERS", {"mst", "aim"}),
    (synthesizer, "DASK_SOLVERS", {"auto", "smd", "smd_linf", "mwem", "mst", "aim"}),
    ("skdp.solvers.streaming.srgd", "STREAMING_SOLVERS", STREAMS),
    ("skdp.solvers.streaming.regressor", "STREAMING_SOLVERS", STREAMS),
])
def test_old_public_names_are_deprecated_aliases(module, name, old):
    import importlib

    module = importlib.import_module(module) if isinstance(module, str) else module
    with pytest.warns(FutureWarning, match=rf"{module.__name__}\.{name} is deprecated"):
        value = getattr(module, name)
    assert set(value) == old
    assert name not in getattr(module, "__all__", ())
    with pytest.raises(AttributeError, match="no attribute 'NOPE'"):
        module.NOPE  # noqa: B018


def test_unknown_fact_is_an_error():
    with pytest.raises(TypeError, match="unknown solver fact 'dsak'"):
        solvers_with(CLF, dsak=True)


@pytest.mark.parametrize("name, solver", CASES)
def test_fact_values_are_well_formed(name, solver):
    spec = REGISTRIES[name][solver]
    for flag in ("dask", "auto", "gaussian", "streaming", "graphical_model"):
        assert isinstance(getattr(spec, flag), bool), flag
    assert spec.neighbourings and set(spec.neighbourings) <= {"replace_one", "add_remove"}
    assert "replace_one" in spec.neighbourings
    for values in (spec.losses, spec.models):
        assert values is None or (isinstance(values, tuple) and values)
    for attr, key in spec.info_attributes:
        assert attr.endswith("_") and not attr.startswith("_") and key
    if spec.streaming:
        assert spec.name in STREAM_ALGORITHMS  # run_stream runs it


# ----------------------------------------------------------------- dask
def _dask(name, X, y):
    da = pytest.importorskip("dask.array")
    if name == "synthesizer":
        dd = pytest.importorskip("dask.dataframe")
        pd = pytest.importorskip("pandas")
        return dd.from_pandas(pd.DataFrame(X), npartitions=2), None
    return da.from_array(X, chunks=20), da.from_array(y, chunks=20)


@pytest.mark.parametrize("name, solver", CASES)
def test_a_dask_solver_fits_dask_input_and_the_others_are_refused_uncharged(name, solver):
    dask = pytest.importorskip("dask")
    est, X, y = make_case(name, solver, 1.0)
    accountant = BudgetAccountant(epsilon=10.0, delta=1e-3)
    est.set_params(delta=1e-5, random_state=0, accountant=accountant)
    Xd, yd = _dask(name, X, y)
    with dask.config.set(scheduler="synchronous"):
        if REGISTRIES[name][solver].dask:
            _fit(est, name, Xd, yd)
            assert len(accountant.spends) == 1 and est.solver_ == solver
        else:
            with pytest.raises(ValueError, match=rf"solver='{solver}' cannot run on a Dask"):
                _fit(est, name, Xd, yd)
            assert accountant.spends == []


def test_auto_runs_on_dask_where_every_pick_does():
    """``'auto'`` is in the Dask choices of the classifier (logistic) and the synthesizer,
    whose picks all run there, and not in the regressor's (robust losses pick paper 001)."""
    assert "auto" in choices_with(CLF, {"loss": "logistic"}, dask=True)
    assert "auto" not in choices_with(CLF, {"loss": "ramp"}, dask=True)
    assert "auto" in choices_with(SYN, dask=True)
    assert "auto" not in choices_with(REG, dask=True)


# ----------------------------------------------------------------- auto
def test_the_classifier_auto_rule_picks_only_auto_solvers():
    picks = {minimax.resolve_solver(n, p, eps)
             for n, p, eps in itertools.product([10, 10**4, 10**6], [1, 10, 1000],
                                                [0.1, 1.0, np.inf])}
    assert picks == set(auto_solvers(CLF, loss="logistic"))
    ramp = minimax.PrivateMinimaxClassifier(loss="ramp")._resolve_loss_solver()
    assert (ramp,) == auto_solvers(CLF, loss="ramp")


def test_the_regressor_auto_rule_picks_only_auto_solvers():
    picks = {regression.resolve_solver("auto", gamma, kappa, smooth, robust=robust, size=size,
                                       rows=size // 10, features=features, mu=1.0)
             for gamma, kappa in [(None, None), (0.7, 1.5), (0.7, 3.0)]
             for smooth, robust, size, features in itertools.product(
                 [True, False], [True, False], [0, 10**8], [0, 10])}
    assert picks == set(auto_solvers(REG))
    for name in REG:  # a named solver is run as named
        assert regression.resolve_solver(name, None, None, True) == name


def test_the_synthesizer_auto_rule_picks_only_auto_solvers():
    est = synthesizer.SaddlePointSynthesizer(solver="auto")
    picks = set()
    for epsilon, n in [(1.0, 10), (1.0, 10**4), (0.5, 10**6)]:
        pick = est._solver_for(epsilon, [np.zeros(n)])
        assert (pick == "mst") == (epsilon * n < 1000)  # tests/test_synth_auto.py
        picks.add(pick)
    assert picks == set(auto_solvers(SYN))


# ----------------------------------------------------------------- losses, models, neighbours
@pytest.mark.parametrize("solver", sorted(CLF))
@pytest.mark.parametrize("loss", CLASSIFIER_LOSSES)
def test_a_classifier_solver_fits_its_losses_and_refuses_the_others(solver, loss):
    clf = minimax.PrivateMinimaxClassifier(solver=solver, loss=loss)
    if CLF[solver].has(loss=loss):
        assert clf._resolve_loss_solver() == solver
    else:
        with pytest.raises(ValueError, match=f"solver={solver!r}|loss='ramp' needs"):
            clf._resolve_loss_solver()


@pytest.mark.parametrize("solver", sorted(REG))
def test_a_regressor_solver_refuses_a_model_its_spec_does_not_list(solver):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 2)) / 2, rng.uniform(-1, 1, 30)
    accountant = BudgetAccountant(epsilon=10.0, delta=1e-3)
    reg = regression.KLAdaptiveRegressor(solver=solver, model="mlp", hidden_units=2,
                                         max_iter=2, accountant=accountant, random_state=0)
    if REG[solver].has(model="mlp"):
        pytest.skip("fits model='mlp' (tests/estimators/test_regression.py)")
    with pytest.raises(ValueError, match=rf"solver='{solver}' supports model='linear' only"):
        reg.fit(X, y)
    assert accountant.spends == []


@pytest.mark.parametrize("solver", ["auto", *SYN])
def test_a_synthesizer_solver_refuses_add_remove_unless_its_spec_lists_it(solver):
    accountant = BudgetAccountant(epsilon=10.0, delta=1e-3)
    est, X, _ = make_case("synthesizer", "smd", 1.0)
    est.set_params(solver=solver, neighbouring="add_remove", accountant=accountant,
                   solver_options=None)
    if solver in choices_with(SYN, neighbouring="add_remove"):
        return  # fitted under add_remove in tests/privacy/test_budget_relations.py
    with pytest.raises(ValueError, match="only 'smd', 'mst' and 'aim' support 'add_remove'"):
        est.fit(X)
    assert accountant.spends == []


# ----------------------------------------------------------------- calibration, streaming
@pytest.mark.parametrize("solver", sorted(set(REG) - set(solvers_with(REG, streaming=True))))
def test_gaussian_solvers_are_calibrated_on_gdp_the_others_on_zcdp(solver):
    eps, delta = 1.0, 1e-6
    mu = approx_dp_to_gdp(eps, delta) * (1 - regression.GDP_SLACK)
    rho = regression.fit_budget(eps, delta, solver)
    expected = mu * mu / 2 if REG[solver].gaussian else approx_dp_to_zcdp(eps, delta)
    assert rho == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name, solver", [c for c in CASES if c[0] != "synthesizer"])
def test_partial_fit_exists_exactly_for_the_streaming_specs(name, solver):
    cls = {"minimax": minimax.PrivateMinimaxClassifier,
           "regression": regression.KLAdaptiveRegressor}[name]
    est = cls(solver=solver)
    assert hasattr(est, "partial_fit") == REGISTRIES[name][solver].streaming
    if not REGISTRIES[name][solver].streaming:
        with pytest.raises(AttributeError, match=r"partial_fit needs a streaming solver "
                                                 r"\(srgd, srg_memf, memf, dpsgd\)"):
            has_streaming_solver(est)


# ----------------------------------------------------------------- the command line
def test_the_cli_solver_list_is_the_registry():
    from skdp.solvers.synth.registry import SOLVER_SPECS

    assert SOLVER_SPECS is SYN
    assert parser.SOLVERS == ["auto", *SYN]
    assert all(isinstance(spec, SolverSpec) for spec in SYN.values())
    help_text = parser.build_parser().format_help()
    assert help_text  # the subcommands' lists are checked in tests/cli/test_cli_robust.py
    sub = parser.build_parser()._subparsers._group_actions[0].choices["synthesize"]
    text = sub.format_help()
    assert "{" + ",".join(parser.SOLVERS) + "}" in text.replace("\n", "").replace(" ", "")
    assert "(solvers " + ", ".join(choices_with(SYN, neighbouring="add_remove")) + ")" \
        in " ".join(text.split())
