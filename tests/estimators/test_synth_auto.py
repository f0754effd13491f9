"""``solver='auto'`` of the synthesizer (issue 30 item 3): the rule, where it lives, what the
docs say it does.

The rule is :func:`skdp.solvers.synth.registry.resolve_solver`, next to the solver specs
(``auto=True`` on the solvers it may pick); its evidence is in ``benchmarks/RESULTS.md``
("Issue 30 item 3") and ``benchmarks/synth_auto.py``.
"""

import math
import os
import re
import warnings

import numpy as np
import pytest

from skdp import SaddlePointSynthesizer
from skdp.solvers.spec import auto_solvers
from skdp.solvers.synth.registry import AUTO_MST_BELOW, SOLVER_SPECS, resolve_solver

ROOT = os.path.dirname(os.path.abspath(__file__))
while not os.path.exists(os.path.join(ROOT, "README.md")):  # tests/ or tests/<group>/
    ROOT = os.path.dirname(ROOT)


def _table(n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    return np.column_stack([a, (a + rng.integers(0, 2, n)) % 3, rng.integers(0, 2, n)])


def _fit(n, epsilon, **params):
    est = SaddlePointSynthesizer(epsilon=epsilon, delta=1e-6, domain={0: 3, 1: 3, 2: 2},
                                 random_state=0, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(_table(n))


@pytest.mark.parametrize("epsilon, n, expected", [
    (1.0, 999, "mst"), (1.0, 1000, "aim"), (0.5, 1999, "mst"), (0.5, 2000, "aim"),
    (5.0, 199, "mst"), (5.0, 200, "aim"), (0.1, 10**6, "aim"), (math.inf, 5, "aim"),
    (0.01, None, "aim"),  # add/remove: n is private, the rule does not read it
])
def test_the_rule(epsilon, n, expected):
    assert resolve_solver(epsilon, n) == expected


def test_the_rule_picks_only_the_solvers_the_specs_mark_auto():
    picks = {resolve_solver(eps, n) for eps in (0.1, 1.0, 10.0, math.inf)
             for n in (None, 1, 100, 10**4, 10**8)}
    assert picks == set(auto_solvers(SOLVER_SPECS)) == {"mst", "aim"}
    assert not SOLVER_SPECS["smd"].auto  # still run by name


@pytest.mark.parametrize("n, epsilon, neighbouring, expected", [
    (300, 1.0, "replace_one", "mst"),   # eps n = 300
    (300, 5.0, "replace_one", "aim"),   # eps n = 1500
    (300, 1.0, "add_remove", "aim"),    # n private: never read by the rule
])
def test_the_estimator_runs_what_the_rule_says(n, epsilon, neighbouring, expected):
    est = _fit(n, epsilon, neighbouring=neighbouring)
    assert est.solver_ == expected and hasattr(est, "model_")


def test_solver_options_are_checked_against_aim_and_ignored_by_mst():
    est = _fit(300, 1.0, solver_options={"round_iter": 5})
    assert est.solver_ == "mst"
    with pytest.raises(ValueError, match="round_itr"):
        _fit(300, 1.0, solver_options={"round_itr": 5})


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as fh:
        return fh.read()


def test_the_docs_state_the_rule_the_code_runs():
    threshold = f"{AUTO_MST_BELOW:.0f}"
    doc = SaddlePointSynthesizer.__doc__
    assert f"``epsilon * n < {threshold}``" in doc and "``'mst'``" in doc
    guide = _read("docs", "user_guide", "synthesizer.rst")
    section = guide[guide.index("The ``auto`` rule"):]
    assert f"epsilon \\cdot n < {threshold}" in section
    assert "``\"add_remove\"``" in section and "``\"aim\"``" in section
    readme = _read("README.md")
    row = next(line for line in readme.splitlines() if line.startswith("| `SaddlePoint"))
    assert re.search(r"`mst` when epsilon x n is below 1,000", row)


def test_the_user_guide_example_runs_as_printed():
    import doctest

    guide = _read("docs", "user_guide", "synthesizer.rst")
    start = guide.index("The ``auto`` rule")
    example = guide[start:guide.index("\n\n``\"mst\"`` and ``\"aim\"``", start)]
    test = doctest.DocTestParser().get_doctest(example, {}, "auto rule", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runner.run(test)
    assert test.examples and runner.summarize(verbose=False).failed == 0
