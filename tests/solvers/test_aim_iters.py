"""aim's ``round_iter`` (issue 30 item 4, fifth part): the estimation iterations of the
intermediate rounds only.

The option is honoured by every per-round estimation (the first, 1-way one included), the
final estimation keeps its own ``n_iter`` (``AIM_ESTIMATE_ITER`` by default), warm started
from the last round's model, and the accounting does not depend on it: estimation is
post-processing of the noisy measurements (the rounds' budgets come from the schedule, never
from the model), so the spent epsilon is the same closed-form total for any ``round_iter``.
"""

import math
import warnings

import numpy as np
import pytest

from skdp.solvers.synth import graphical
from skdp.solvers.synth.mst_aim import AIM_ESTIMATE_ITER
from skdp.solvers.synth.registry import SOLVER_SPECS
from skdp.synthesizer import SaddlePointSynthesizer

EPS, DELTA = 1.0, 1e-6


def _table(n=800, d=5, k=4, seed=0):
    rng = np.random.default_rng(seed)
    X = np.empty((n, d), dtype=np.int64)
    X[:, 0] = rng.integers(0, k, n)
    for j in range(1, d):
        X[:, j] = np.where(rng.random(n) < 0.7, X[:, j - 1], rng.integers(0, k, n))
    return X, {j: list(range(k)) for j in range(d)}


def _fit(monkeypatch=None, calls=None, n_iter=None, **options):
    X, domain = _table()
    if monkeypatch is not None:
        original = graphical.estimate

        def spy(*args, **kwargs):
            calls.append(dict(n_iter=kwargs.get("n_iter"), tol=kwargs.get("tol"),
                              warm=kwargs.get("warm_start")))
            model = original(*args, **kwargs)
            calls[-1]["model"] = model
            return model

        monkeypatch.setattr(graphical, "estimate", spy)
    params = dict(epsilon=EPS, delta=DELTA, solver="aim", domain=domain, random_state=0,
                  solver_options=dict(max_rounds=6, **options))
    if n_iter is not None:
        params["n_iter"] = n_iter
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SaddlePointSynthesizer(**params).fit(X)


def test_default_is_documented():
    option = {o.name: o for o in SOLVER_SPECS["aim"].options}["round_iter"]
    assert option.default == 25
    assert "final" in option.doc
    assert SOLVER_SPECS["aim"].resolve_options(None)["round_iter"] == 25


@pytest.mark.parametrize("round_iter", [None, 3, 50])
def test_round_iter_honoured_and_final_unchanged(monkeypatch, round_iter):
    calls = []
    options = {} if round_iter is None else dict(round_iter=round_iter)
    est = _fit(monkeypatch, calls, **options)
    rounds = est.solver_info_["rounds"]
    assert len(calls) == rounds + 2  # the 1-way start, one per round, the final
    expected = 25 if round_iter is None else round_iter
    assert [c["n_iter"] for c in calls[:-1]] == [expected] * (rounds + 1)
    final = calls[-1]
    assert final["n_iter"] == AIM_ESTIMATE_ITER
    assert final["tol"] == calls[0]["tol"] == 1e-6
    assert final["warm"] is calls[-2]["model"]  # warm started from the last round's model


def test_final_keeps_the_synthesizers_n_iter(monkeypatch):
    calls = []
    _fit(monkeypatch, calls, n_iter=77, round_iter=4)
    assert calls[-1]["n_iter"] == 77
    assert {c["n_iter"] for c in calls[:-1]} == {4}


def test_accounting_does_not_depend_on_round_iter():
    spent = [_fit(round_iter=k).privacy_spent_ for k in (2, 25, 50)]
    for eps, delta in spent:
        assert math.isclose(eps, EPS, rel_tol=1e-9)
        assert delta <= DELTA * (1 + 1e-12)
    assert all(math.isclose(s[0], spent[0][0], rel_tol=1e-12) for s in spent)
