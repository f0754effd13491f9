"""README.md against the code: its Quickstart runs and scores well, its estimator table lists
every solver of the registries with the right default, its extras table matches
pyproject.toml, and its GPU snippet ends in one sentence where no GPU can be used.

Code blocks are taken from README.md by their section heading, so what is tested is what a
reader copies.
"""

import ast
import contextlib
import inspect
import io
import itertools
import math
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import skdp
import skdp.minimax
import skdp.regression
import skdp.synthesizer
from skdp import KLAdaptiveRegressor, PrivateMinimaxClassifier, SaddlePointSynthesizer

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(heading):
    """The text of README.md's ``## heading`` section, up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", README, re.M | re.S)
    assert match, f"README.md has no '## {heading}' section"
    return match.group(1)


def _code_blocks(heading, lang):
    return re.findall(rf"^```{lang}\n(.*?)^```", _section(heading), re.M | re.S)


# ---------------------------------------------------------------------------
# Quickstart
# ---------------------------------------------------------------------------
@pytest.fixture
def seeded_fresh_noise(monkeypatch):
    """Every ``np.random.default_rng()`` without a seed (the README's data, and each skdp
    fit's noise with ``random_state=None``) draws from the next seed of a fixed sequence,
    and the legacy global generator (``train_test_split``) is seeded: the run is
    reproducible, and the fits still draw distinct noise."""
    original = np.random.default_rng
    seeds = itertools.count(2027)
    monkeypatch.setattr(np.random, "default_rng",
                        lambda seed=None: original(next(seeds) if seed is None else seed))
    state = np.random.get_state()
    np.random.seed(0)
    yield
    np.random.set_state(state)


def test_quickstart_runs_and_its_printed_score_is_good(seeded_fresh_noise):
    (code,) = _code_blocks("Quickstart", "python")
    namespace, out = {}, io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("error", skdp.PrivacyLeakWarning)  # bounds are parameters
        exec(compile(code, "README.md:Quickstart", "exec"), namespace)
    printed = out.getvalue()
    search, accountant = namespace["search"], namespace["accountant"]
    scores = [float(s) for s in re.findall(r"R\^2: (-?[\d.]+) \(cross-validated\), "
                                           r"(-?[\d.]+) \(test\)", printed)[0]]
    # 0.93 to 0.94 in 10 fresh-noise runs (README); the non-private fit scores about 0.94
    assert min(scores) > 0.85, printed
    assert search.best_score_ > 0.85
    # every fit of the search was charged: 2 candidates x 3 folds + the refit
    assert len(accountant.spends) == 7
    epsilon, delta = accountant.total()
    assert epsilon <= accountant.epsilon and delta <= accountant.delta
    assert "all 7 fits" in printed


# ---------------------------------------------------------------------------
# The estimator table against the solver registries
# ---------------------------------------------------------------------------
def _auto_synthesizer():
    from skdp.solvers.synth.registry import resolve_solver

    return {resolve_solver(eps, n) for eps, n in itertools.product(
        [0.5, 1.0, math.inf], [None, 10, 10**6])}


def _auto_classifier():
    rule = skdp.minimax.resolve_solver
    names = {rule(n, p, eps) for n, p, eps in itertools.product(
        [100, 10**6], [10, 1000], [1.0, math.inf])}
    return names | {PrivateMinimaxClassifier(loss="ramp")._resolve_loss_solver()}


def _auto_regressor():
    rule = skdp.regression.resolve_solver
    return {rule("auto", gamma, kappa, smooth, robust=robust, size=size, rows=size // 10,
                 features=features, mu=1.0)
            for (gamma, kappa), smooth, robust, size, features in itertools.product(
                [(None, None), (1.0, 1.5), (1.0, 2.0), (1.0, 3.0)], [True, False],
                [True, False], [0, 10**8], [0, 10])}


ESTIMATORS = {  # README row -> (class, registry, the solvers solver="auto" can run)
    "SaddlePointSynthesizer": (SaddlePointSynthesizer, skdp.synthesizer.SOLVER_SPECS,
                               _auto_synthesizer),
    "PrivateMinimaxClassifier": (PrivateMinimaxClassifier, skdp.minimax.SOLVER_SPECS,
                                 _auto_classifier),
    "KLAdaptiveRegressor": (KLAdaptiveRegressor, skdp.regression.SOLVER_SPECS,
                            _auto_regressor),
}
# backticked words of the solver cells that are not solver names
NOT_SOLVERS = {"partial_fit", 'loss="ramp"', "X"}


def _table_rows():
    rows = {}
    for line in _section("Estimators").splitlines():
        match = re.match(r"\| `(\w+)` \|(.*)\|\s*$", line)
        if match:
            cells = [cell.strip() for cell in match.group(2).split(" | ")]
            rows[match.group(1)] = cells[-1]
    return rows


def _parenthetical(text, start):
    """The text from ``start`` (just after an opening parenthesis) to its closing one."""
    depth = 1
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i]
    raise AssertionError(f"unbalanced parentheses in {text!r}")


def _ticked(text):
    return set(re.findall(r"`([^`]+)`", text))


def test_the_table_has_a_row_per_estimator():
    assert set(_table_rows()) == set(ESTIMATORS)
    assert set(ESTIMATORS) <= set(skdp.__all__)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_the_table_lists_every_solver_of_the_registry(name):
    cls, registry, _ = ESTIMATORS[name]
    cell = _table_rows()[name]
    solvers = set(registry) | {"auto"}
    missing = solvers - _ticked(cell)
    assert not missing, f"README.md's {name} row lacks the solvers {sorted(missing)}"
    unknown = _ticked(cell) - solvers - NOT_SOLVERS
    assert not unknown, (f"README.md's {name} row names {sorted(unknown)}, which are not "
                         f"solvers of its SOLVER_SPECS (or add them to NOT_SOLVERS)")
    allowed = inspect.signature(cls).parameters["solver"].default
    assert allowed == "auto" or allowed in registry


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_the_table_gives_the_default_and_what_auto_runs(name):
    cls, registry, auto = ESTIMATORS[name]
    cell = _table_rows()[name]
    default = inspect.signature(cls).parameters["solver"].default
    marker = f"`{default}` (the default"
    assert marker in cell, f"README.md's {name} row must say {marker}...)"
    if default != "auto":
        return
    rule = _parenthetical(cell, cell.index(marker) + len(f"`{default}` ("))
    said = _ticked(rule) & set(registry)
    assert said == auto(), (f"README.md's {name} row says 'auto' runs {sorted(said)}; "
                            f"the code runs {sorted(auto())}")


def test_the_auto_thresholds_in_the_table_are_the_code_s():
    from skdp.solvers.shared.subsampling import AUTO_SUBSAMPLE

    rows = _table_rows()
    assert skdp.synthesizer.MAX_CELLS == AUTO_SUBSAMPLE == 1e7
    for name in ESTIMATORS:
        if name == "SaddlePointSynthesizer":  # epsilon * n, not cells (issue 30 item 3)
            from skdp.solvers.synth.registry import AUTO_MST_BELOW

            assert f"{AUTO_MST_BELOW:,.0f}" in rows[name]
            continue
        assert "1e7" in rows[name], f"README.md's {name} row: the 'auto' threshold is 1e7"


# ---------------------------------------------------------------------------
# Extras
# ---------------------------------------------------------------------------
def _pyproject():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _names(requirements):
    return {re.match(r"[A-Za-z0-9_.-]+", req).group(0).lower() for req in requirements}


def _extras_table():
    rows = {}
    for line in _section("Extras").splitlines():
        match = re.match(r"\| (`[\w-]+`|\*\(none\)\*) \| (.*?) \| (.*?) \|\s*$", line)
        if match:
            rows[match.group(1).strip("`")] = match.group(2).lower()
    return rows


def test_the_extras_table_matches_pyproject():
    project = _pyproject()
    extras = project["optional-dependencies"]
    rows = _extras_table()
    assert set(rows) == set(extras) | {"*(none)*"}, "README.md's extras table vs pyproject.toml"
    for name, requirements in [("*(none)*", project["dependencies"]), *extras.items()]:
        for package in _names(requirements):
            assert package in rows[name], f"README.md's extra {name!r} does not name {package}"


def test_the_examples_extra_installs_what_the_examples_import():
    project = _pyproject()
    installed = _names(project["dependencies"]) | _names(
        project["optional-dependencies"]["examples"])
    import_names = {"sklearn": "scikit-learn"}
    for path in sorted((ROOT / "examples").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top in sys.stdlib_module_names or top == "skdp":
                    continue
                assert import_names.get(top, top) in installed, (
                    f"{path.name} imports {top}, which the 'examples' extra does not install")
    assert '".[examples]"' in README


# ---------------------------------------------------------------------------
# GPU
# ---------------------------------------------------------------------------
def _gpu_snippet():
    (block,) = _code_blocks("GPU", "bash")
    assert 'pip install -e ".[gpu]"' in block and "export SCIPY_ARRAY_API=1" in block
    match = re.search(r"^python - <<'EOF'\n(.*?)^EOF$", block, re.M | re.S)
    assert match, "the GPU section runs its Python through a here-document"
    return match.group(1)


FAKE_CUPY = {
    "missing": "raise ImportError(\"No module named 'cupy' (stand-in)\")\n",
    "no_gpu": ("class _Runtime:\n"
               "    class CUDARuntimeError(RuntimeError):\n        pass\n\n"
               "    @staticmethod\n    def getDeviceCount():\n"
               "        raise _Runtime.CUDARuntimeError('cudaErrorNoDevice: no CUDA-capable "
               "device is detected')\n\n"
               "class cuda:\n    runtime = _Runtime\n"),
}


def _run_snippet(tmp_path, code, cupy_source):
    (tmp_path / "cupy").mkdir()
    (tmp_path / "cupy" / "__init__.py").write_text(cupy_source, encoding="utf-8")
    env = dict(os.environ, SCIPY_ARRAY_API="1", OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT),
                                           os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-"], input=code, cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case, sentence", [
    ("missing", 'CuPy cannot be imported: pip install -e ".[gpu]" installs it.'),
    ("no_gpu", "CuPy finds no CUDA GPU on this machine: run this on a machine with one.")],
    ids=["cupy_missing", "no_gpu"])
def test_the_gpu_snippet_without_a_gpu_ends_in_one_sentence(tmp_path, case, sentence):
    proc = _run_snippet(tmp_path, _gpu_snippet(), FAKE_CUPY[case])
    assert proc.returncode == 1
    assert proc.stderr == sentence + "\n" and proc.stdout == ""  # no traceback


def test_the_gpu_snippet_runs_on_an_array_api_namespace(tmp_path):
    # array-api-strict stands in for CuPy with one device: the snippet past its check runs
    # (dispatch on, a fit and a score in a non-NumPy namespace); 2,000 rows for speed.
    pytest.importorskip("array_api_strict")
    stand_in = ("import array_api_strict as _xp\n\n"
                "class ndarray:  # array-api-compat looks cupy.ndarray up\n    pass\n\n"
                "class _Runtime:\n    @staticmethod\n    def getDeviceCount():\n"
                "        return 1\n\n"
                "class cuda:\n    runtime = _Runtime\n\n"
                "def asarray(x):\n    return _xp.asarray(x)\n")
    code = _gpu_snippet()
    assert code.count("200_000") == 2
    proc = _run_snippet(tmp_path, code.replace("200_000", "2_000"), stand_in)
    assert proc.returncode == 0, proc.stderr[-3000:]
    match = re.fullmatch(r"R\^2 (-?[\d.]+); coef_ is a array_api_strict array\n", proc.stdout)
    assert match, proc.stdout
    assert float(match.group(1)) > 0.5
