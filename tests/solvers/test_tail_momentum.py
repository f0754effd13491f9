"""adaptive_gd's tail with Nesterov momentum (issue 31, option ``tail_momentum``).

When the run is averaged (``average='suffix'``, ``t + K >= AVERAGE_MIN_STEPS``), the tail's
steps are ``y_k = w_k + m (w_k - w_{k-1})``, ``w_{k+1} = y_k - eta g~(y_k)`` and the released
mean covers all of the tail's iterates (skdp/solvers/kl/gd.py ``_noisy_tail``,
``tail_window``). Post-processing only: the ledger and the noise are those of
``tail_momentum=0`` (checked against it, same seed); a halved noise still fails; shorter or
unaveraged runs take no momentum.
"""

import math

import numpy as np
import pytest

from skdp import BudgetAccountant
from skdp.regression import KLAdaptiveRegressor
from skdp.solvers.kl import gd
from skdp.solvers.kl.gd import AVERAGE_MIN_STEPS, TAIL_MOMENTUM, suffix_start, tail_window
from _toy import check_noise_scale, ledger_total, recorded_tail


def tiny_signal(n=2000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (2 * math.sqrt(d))
    return X, 1e-3 * X[:, 0]


def fit(X, y, seed=0, max_iter=None, **options):
    return KLAdaptiveRegressor(epsilon=1.0, solver="adaptive_gd", fit_intercept=False,
                               clip_norm=1.0, max_iter=max_iter, random_state=seed,
                               accountant=BudgetAccountant(),
                               solver_options={"precondition": 0} | options).fit(X, y)


def _costs(reg):
    return [(h["step"], h.get("tail"), h["sigma"], h["rho"]) for h in reg.history_]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_momentum_leaves_the_ledger_unchanged(seed):
    X, y = tiny_signal(seed=seed)
    with_m, without = fit(X, y, seed=seed), fit(X, y, seed=seed, tail_momentum=0)
    tail = [h for h in with_m.history_ if "tail" in h]
    assert len(with_m.history_) >= AVERAGE_MIN_STEPS and tail
    assert {h["momentum"] for h in tail} == {TAIL_MOMENTUM}
    assert {h["momentum"] for h in without.history_ if "tail" in h} == {0.0}
    assert _costs(with_m) == _costs(without)               # same K, sigma and costs, step by step
    assert ledger_total(with_m) == ledger_total(without)
    assert ledger_total(with_m) == pytest.approx(with_m.rho_, abs=1e-6 * with_m.rho_)
    assert not np.allclose(with_m.coef_, without.coef_)    # the option has an effect


def _record_tail(X, y, seed, m):
    """The tail's inputs, its releases (clipped gradient, noisy output) and the fit."""
    with recorded_tail() as seen:
        reg = fit(X, y, seed=seed, tail_momentum=m)
    return reg, seen


@pytest.mark.parametrize("m", [TAIL_MOMENTUM, 0.8])
def test_momentum_steps_and_the_released_mean_of_the_tail(m):
    """Replaying Nesterov's recursion on the recorded releases gives the released mean."""
    X, y = tiny_signal()
    reg, seen = _record_tail(X, y, 0, m)
    obj, cfg, first = seen["obj"], seen["cfg"], seen["first"]
    assert first["momentum"] == m
    eta = gd._step_size(cfg)
    w = previous = np.asarray(seen["w"])
    tail = []
    for clipped, noisy in seen["releases"]:
        point = w + m * (w - previous)
        assert np.allclose(clipped, obj.clipped_grad(point, cfg.clip), rtol=1e-10, atol=1e-14)
        previous, w = w, point - eta * noisy
        tail.append(w)
    T, t = reg.n_iter_, first["step"]
    assert len(tail) == T - t and tail_window(reg.history_) == t + 1 < suffix_start(T)
    # no preconditioner, no intercept: the solver's w is coef_; the mean is over w_{t+1}..w_T
    assert np.allclose(np.ravel(reg.coef_), np.mean(tail, axis=0), rtol=1e-9, atol=1e-12)


def test_no_momentum_without_averaging():
    """average='last' and runs shorter than AVERAGE_MIN_STEPS: the tail of tail_momentum=0."""
    X, y = tiny_signal()
    for kw in ({"average": "last"}, {"max_iter": AVERAGE_MIN_STEPS - 1}):
        a, b = fit(X, y, **kw), fit(X, y, tail_momentum=0, **kw)
        assert {h["momentum"] for h in a.history_ if "tail" in h} == {0.0}
        assert np.array_equal(a.coef_, b.coef_) and a.history_ == b.history_


def test_tail_window_without_a_momentum_tail():
    assert tail_window([{"step": 0}, {"step": 1}]) == 2
    assert tail_window([{"step": 0}, {"step": 1, "tail": 9, "momentum": 0.0}]) == 2
    tail = [{"step": k, "tail": 2, "momentum": 0.5} for k in (1, 2)]
    assert tail_window([{"step": 0}] + tail) == 2                  # w_2..w_3 (not len 3)
    assert tail_window([{"step": 0, "tail": 9, "momentum": 0.5}]) == 1


def _momentum_tail_noise(d=40):
    """Drawn noise of a momentum tail's releases and their recorded sigma (zero data: every
    clipped gradient is 0, so each release is pure noise)."""
    X, y = np.zeros((2000, d)), np.zeros(2000)
    X[0, 0] = 1e-9  # not a constant design
    reg, seen = _record_tail(X, y, 0, TAIL_MOMENTUM)
    assert seen["first"]["momentum"] == TAIL_MOMENTUM
    noise = np.concatenate([out - v for v, out in seen["releases"][:-1]])
    sigmas = {h["sigma"] for h in reg.history_[:-1]}
    assert len(sigmas) == 1
    return float(np.std(noise)), sigmas.pop()


def test_momentum_tail_noise_has_the_recorded_scale_and_halved_noise_fails():
    check_noise_scale(_momentum_tail_noise)


def test_tail_momentum_is_validated():
    X, y = tiny_signal()
    for bad in (1.0, -0.1):
        with pytest.raises(ValueError, match="tail_momentum"):
            fit(X, y, tail_momentum=bad)
