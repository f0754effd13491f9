"""adaptive_gd's reading of its noisy gradient norm (issue 18, deliverable 2).

A noisy norm below ``k`` times its noise sd is "unknown", not "converged": the
run goes on (skdp/solvers/kl/gd.py ``_adaptive_path``). Lemma 11's stop at the
floor stays where the norm is confidently small; the budget is always spent
exactly and ``max_iter`` bounds the run.
"""

import math

import numpy as np
import pytest

from skdp import BudgetAccountant
from skdp.regression import KLAdaptiveRegressor
from skdp.solvers.kl.gd import NORM_NOISE_K
from _toy import ledger_total, solver_share


def tiny_signal(n=2000, d=3, seed=0):
    """Gradient norms far below the norm query's noise (sd ~ 2C/(sqrt(2n) rho**(1/4)))."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (2 * math.sqrt(d))
    return X, 1e-3 * X[:, 0]


def strong_signal(n=2000, d=5, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.clip(X @ np.full(d, 2.0) + 0.8, -1, 1)


def fit(X, y, **params):
    options = {"precondition": 0, "tail": 0} | params.pop("solver_options", {})  # Alg. 3 steps
    params = dict(epsilon=1.0, solver="adaptive_gd", solver_options=options, random_state=0,
                  accountant=BudgetAccountant()) | params
    return KLAdaptiveRegressor(**params).fit(X, y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_noise_swamped_norm_does_not_end_the_run(seed):
    X, y = tiny_signal(seed=seed)
    reg = fit(X, y, fit_intercept=False, random_state=seed)
    history = reg.history_
    assert history[0]["unknown"]                  # Alg. 3 would have stopped here (floor)
    assert reg.n_iter_ > 2
    assert sum(h["unknown"] for h in history) > 2
    assert [h.get("stop") for h in history[:-1]] == [None] * (len(history) - 1)
    assert history[-1]["stop"] == "budget"
    assert ledger_total(reg) == pytest.approx(reg.rho_, abs=1e-6 * reg.rho_)
    assert sum(h["rho"] for h in history) == pytest.approx(solver_share(reg), rel=1e-9)


def test_strong_signal_still_stops_early_at_the_floor():
    """A norm measured above its noise level and below the floor threshold ends the run
    (Lemma 11)."""
    X, y = strong_signal()
    reg = fit(X, y, solver_options={"snr": 4.0}, random_state=1,
              clip_norm=math.sqrt(2.0))  # the bound rule's clip
    last = reg.history_[-1]
    assert last["stop"] == "floor"
    assert not last["unknown"]
    assert 1 < reg.n_iter_ <= 5
    assert not any(h["unknown"] for h in reg.history_[:-1])
    assert ledger_total(reg) == pytest.approx(reg.rho_, abs=1e-6 * reg.rho_)


@pytest.mark.parametrize("max_iter", [1, 2, 5])
def test_max_iter_bounds_the_run_and_the_budget_is_spent(max_iter):
    X, y = tiny_signal()
    reg = fit(X, y, fit_intercept=False, max_iter=max_iter)
    assert reg.n_iter_ == max_iter
    assert reg.history_[-1]["stop"] in ("max_iter", "budget", "floor")
    assert ledger_total(reg) == pytest.approx(reg.rho_, abs=1e-6 * reg.rho_)


@pytest.mark.parametrize("eps", [0.3, 1.0, 8.0])
@pytest.mark.parametrize("data", [tiny_signal, strong_signal])
def test_default_fit_spends_its_budget_exactly(eps, data):
    """With the preconditioner's share: every release is in the ledger and it sums to rho."""
    X, y = data(n=1000)
    reg = KLAdaptiveRegressor(epsilon=eps, random_state=0, accountant=BudgetAccountant()).fit(X, y)
    assert reg.solver_ == "adaptive_gd"
    assert ledger_total(reg) == pytest.approx(reg.rho_, abs=1e-6 * reg.rho_)


def test_unknown_steps_cost_what_the_noise_level_gives():
    """An unknown step's sigma is Alg. 3's rule at N = k s_hat (or the floor), never below the
    floor."""
    X, y = tiny_signal()
    reg = fit(X, y, fit_intercept=False, clip_norm=1.0)
    n, d, rho = len(y), X.shape[1], reg.rho_
    sens = 2 * 1.0 / n
    sigmas = {h["sigma"] for h in reg.history_[:-1] if h["unknown"]}
    assert len(sigmas) == 1                       # one noise level for every unknown step
    norm_cost = math.sqrt(rho) / n
    s_hat = sens / math.sqrt(2 * norm_cost)
    scale = math.sqrt(d * max(math.log(n * math.sqrt(rho) / 0.1), 1.0))
    floor = sens / math.sqrt(2 * 0.5 * rho)
    assert sigmas.pop() == pytest.approx(max(NORM_NOISE_K * s_hat / scale, floor))


# Released point: suffix averaging (post-processing of the path; issue 18).

def _path_and_release(X, y, average, seed=0, **params):
    """The fit's released solution and its recorded path (same seed, same noise)."""
    import skdp.solvers.kl.gd as gd

    seen = {}
    original = gd._adaptive_path

    def recording(problem, budget, options, keep_iterates=False):
        out = original(problem, budget, options, keep_iterates=True)
        seen["iterates"], seen["history"] = out[2], out[1]
        return out

    gd._adaptive_path = recording
    try:
        reg = fit(X, y, fit_intercept=False, random_state=seed,
                  solver_options={"average": average}, **params)
    finally:
        gd._adaptive_path = original
    return reg, seen


@pytest.mark.parametrize("seed", [0, 1])
def test_suffix_average_is_the_mean_of_the_last_half_of_the_iterates(seed):
    from skdp.solvers.kl.gd import AVERAGE_MIN_STEPS, suffix_start

    X, y = tiny_signal(seed=seed)
    reg, seen = _path_and_release(X, y, "suffix", seed=seed)
    T = len(seen["history"])
    assert T >= AVERAGE_MIN_STEPS
    iterates = [np.asarray(w) for w in seen["iterates"]]
    assert len(iterates) == T + 1
    s = suffix_start(T)
    assert len(iterates) - s == (T + 1) // 2
    expected = np.mean(iterates[s:], axis=0)
    # the released coefficients are the mean (no preconditioner, no intercept: w is coef_)
    assert np.allclose(np.ravel(reg.coef_), np.ravel(expected), rtol=1e-10, atol=1e-12)
    last, _ = _path_and_release(X, y, "last", seed=seed)
    assert np.allclose(np.ravel(last.coef_), np.ravel(iterates[-1]), rtol=1e-10, atol=1e-12)


def test_suffix_start_window():
    from skdp.solvers.kl.gd import suffix_start
    assert [suffix_start(T) for T in (10, 11, 20)] == [6, 6, 11]  # w_6..w_10, w_6..w_11, w_11..w_20


@pytest.mark.parametrize("seed", [0, 1])
def test_averaging_spends_nothing(seed):
    """Same path, same ledger with and without averaging: it is post-processing."""
    X, y = tiny_signal(seed=seed)
    avg, seen_avg = _path_and_release(X, y, "suffix", seed=seed)
    last, seen_last = _path_and_release(X, y, "last", seed=seed)
    assert avg.privacy_ledger_.log() == last.privacy_ledger_.log()
    assert [h["rho"] for h in seen_avg["history"]] == [h["rho"] for h in seen_last["history"]]
    assert ledger_total(avg) == pytest.approx(avg.rho_, abs=1e-6 * avg.rho_)
    assert not np.allclose(np.ravel(avg.coef_), np.ravel(last.coef_))


def test_short_runs_release_the_last_iterate():
    X, y = tiny_signal()
    avg, seen = _path_and_release(X, y, "suffix", max_iter=5)
    assert len(seen["history"]) == 5
    assert np.allclose(np.ravel(avg.coef_), np.ravel(np.asarray(seen["iterates"][-1])))
