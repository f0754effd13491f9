"""adaptive_gd's tail (issue 31): after the first "unknown" noisy norm, plain noisy steps.

On tables of TAIL_MIN_ROWS rows or more the norm queries stop at the first noisy norm
below its noise level and what is left is split evenly over ``tail_steps(tail, R, c_u,
max_iter - t)`` plain noisy steps (skdp/solvers/kl/gd.py ``_noisy_tail``). The ledger is
checked against that closed form; drawn noise against the recorded sigma (a halved noise
fails); smaller tables and ``tail=0`` keep Alg. 3's steps.
"""

import math

import numpy as np
import pytest

from skdp import BudgetAccountant
from skdp.regression import KLAdaptiveRegressor
from skdp.solvers.kl.gd import NORM_NOISE_K, TAIL_FACTOR, TAIL_MIN_ROWS, tail_steps
from _toy import check_noise_scale, ledger_total, recorded_tail, solver_share


def tiny_signal(n=2000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (2 * math.sqrt(d))
    return X, 1e-3 * X[:, 0]


def fit(X, y, seed=0, **options):
    return KLAdaptiveRegressor(epsilon=1.0, solver="adaptive_gd", fit_intercept=False,
                               clip_norm=1.0, random_state=seed, accountant=BudgetAccountant(),
                               solver_options={"precondition": 0} | options).fit(X, y)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("tail", [TAIL_FACTOR, 1.0, 6.0])
def test_tail_ledger_matches_its_closed_form(seed, tail):
    X, y = tiny_signal(seed=seed)
    reg = fit(X, y, seed=seed, tail=tail)
    n, d, history = len(y), X.shape[1], reg.history_
    rho = solver_share(reg)
    t = next(i for i, h in enumerate(history) if h["unknown"])
    assert not any("tail" in h for h in history[:t])
    tail_entries = history[t:]
    K = tail_entries[0]["tail"]
    assert all(h["tail"] == K for h in tail_entries) and len(tail_entries) == K
    assert tail_entries[-1]["stop"] == "budget"
    # closed form: Alg. 3's unknown step cost c_u, what was left R after the norm query
    sens = 2.0 / n
    norm_cost = math.sqrt(rho) / n
    s_hat = sens / math.sqrt(2 * norm_cost)
    scale = math.sqrt(d * max(math.log(n * math.sqrt(rho) / 0.1), 1.0))
    sigma_u = max(NORM_NOISE_K * s_hat / scale, sens / math.sqrt(2 * 0.5 * rho))
    c_u = norm_cost + sens**2 / (2 * sigma_u**2)
    R = rho - sum(h["rho"] for h in history[:t]) - norm_cost
    assert K == min(2000 - t, max(1, math.ceil(tail * R / c_u)))
    sigma = sens / math.sqrt(2 * R / K)
    assert [h["sigma"] for h in tail_entries] == pytest.approx([sigma] * K, rel=1e-9)
    assert tail_entries[0]["rho"] == pytest.approx(norm_cost + R / K, rel=1e-9)
    assert sum(h["rho"] for h in history) == pytest.approx(rho, rel=1e-9)
    assert ledger_total(reg) == pytest.approx(reg.rho_, abs=1e-6 * reg.rho_)
    if tail > 1:
        assert reg.n_iter_ > len(fit(X, y, seed=seed, tail=0).history_)


def test_tail_steps_rule():
    assert tail_steps(2.5, 1.0, 0.2, 100) == 13       # ceil(12.5)
    assert tail_steps(2.5, 1.0, 0.2, 7) == 7          # max_iter bounds it
    assert tail_steps(2.5, 1e-9, 0.2, 100) == 1       # at least the step that spends the rest


def test_max_iter_bounds_the_tail_and_the_budget_is_spent():
    X, y = tiny_signal()
    reg = KLAdaptiveRegressor(epsilon=1.0, solver="adaptive_gd", fit_intercept=False,
                              max_iter=4, random_state=0, accountant=BudgetAccountant(),
                              solver_options={"precondition": 0}).fit(X, y)
    assert reg.n_iter_ == 4
    assert ledger_total(reg) == pytest.approx(reg.rho_, abs=1e-6 * reg.rho_)


def test_no_tail_below_min_rows_and_with_tail_zero():
    """Fewer rows than TAIL_MIN_ROWS: the tail option changes nothing (same seed, same path)."""
    X, y = tiny_signal(n=TAIL_MIN_ROWS - 1)
    with_tail, without = fit(X, y, tail=6.0), fit(X, y, tail=0)
    assert not any("tail" in h for h in with_tail.history_)
    assert np.array_equal(with_tail.coef_, without.coef_)
    assert with_tail.history_ == without.history_
    X, y = tiny_signal()
    assert not any("tail" in h for h in fit(X, y, tail=0).history_)


def _tail_noise(d=400):
    """Drawn noise of the tail's gradient releases and their recorded sigma (zero data: the
    clipped gradient is 0 at w = 0, so the first norm is unknown and every step is the tail's)."""
    X, y = np.zeros((2000, d)), np.zeros(2000)
    X[0, 0] = 1e-9  # not a constant design
    with recorded_tail() as recorded:
        reg = fit(X, y, tail=TAIL_FACTOR)
    seen = recorded["releases"]
    noise = np.concatenate([np.ravel(np.asarray(out) - np.asarray(v)) for v, out in seen[:-1]])
    sigmas = {h["sigma"] for h in reg.history_[:-1]}
    assert len(seen) == reg.n_iter_ and len(sigmas) == 1
    return float(np.std(noise)), sigmas.pop()


def test_tail_noise_has_the_recorded_scale_and_halved_noise_fails():
    check_noise_scale(_tail_noise)
