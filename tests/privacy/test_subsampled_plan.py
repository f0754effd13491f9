"""A declared horizon of subsampled Gaussian steps (:meth:`Budget.plan_subsampled`).

A solver that knows its ``T`` steps declares them before the first: the
filter verifies the whole horizon by one PLD composition (the ledger's own
rule, :meth:`PrivacyLedger.spent`) instead of a doubling horizon and a
bisection (O(log T) compositions). These tests check that the plan changes
nothing but the work: the same ledger and the same released values for the
same seed, planned or not; that a release beyond the plan, or at another
noise, still goes through the step-by-step check and is refused when it
would overspend; that a plan at half the calibrated noise is refused before
any draw; that steps admitted ahead count as spent for the other releases
of the budget; and that both ``dpsgd_poisson`` solvers declare their plan
(one composition after the calibration, none per step).
"""

import math

import numpy as np
import pytest

from skdp import KLAdaptiveRegressor, PrivateMinimaxClassifier
from skdp._backend import Backend
from skdp.privacy.budget import Budget
from skdp.privacy.ledger import PrivacyLedger, subsampled_noise_within

EPS, DELTA, Q, T, CLIP = 1.0, 1e-6, 0.05, 40, 0.5


def _budget(seed=0, *, exclusive=True, rho=0.1, prior=True):
    budget = Budget.for_fit(Backend.from_arrays(np.zeros(1), random_state=seed), EPS, DELTA,
                            rho, exclusive=exclusive)
    if prior:  # a Gaussian release before the steps (a preconditioner, a centring)
        budget.gaussian(np.zeros(2), 1.0, 20.0, label="prior")
    return budget


def _z(budget, steps=T):
    return subsampled_noise_within(budget.recorded().entries, [], Q, steps, EPS, DELTA)


def _steps(budget, z, count, clip=CLIP):
    """``count`` releases as a solver makes them: a Poisson sample, then the noisy sum."""
    out = []
    for _ in range(count):
        rows = budget.poisson_sample(1000, Q)
        value = np.full(3, float(rows.shape[0]))
        out.append(budget.subsampled_gaussian(value, clip, z * clip, Q, label="step"))
    return np.array(out)


class _Counter:
    """Counts the filter's compositions (``PrivacyLedger.epsilon`` calls from the budget)."""

    def __init__(self, monkeypatch):
        self.calls = 0
        original = PrivacyLedger.epsilon

        def counted(ledger, delta):
            self.calls += 1
            return original(ledger, delta)

        monkeypatch.setattr(PrivacyLedger, "epsilon", counted)


def test_planned_and_unplanned_same_ledger_and_values():
    planned, unplanned = _budget(seed=7), _budget(seed=7)
    z = _z(planned)
    planned.plan_subsampled(CLIP, z * CLIP, Q, T, label="step")
    a, b = _steps(planned, z, T), _steps(unplanned, z, T)
    np.testing.assert_array_equal(a, b)  # same generator, same draws in the same order
    assert planned.recorded().log() == unplanned.recorded().log()
    assert planned.recorded().spent(DELTA) == unplanned.recorded().spent(DELTA)
    assert planned.recorded().spent(DELTA)[0] <= EPS


def test_plan_is_one_composition_and_steps_none(monkeypatch):
    budget = _budget()
    z = _z(budget)
    counter = _Counter(monkeypatch)
    budget.plan_subsampled(CLIP, z * CLIP, Q, T, label="step")
    assert counter.calls == 1
    _steps(budget, z, T)
    assert counter.calls == 1
    unplanned = _budget()
    _steps(unplanned, z, T)
    assert counter.calls > 5  # doubling horizon, then bisection


def test_release_beyond_plan_verified_when_it_fits():
    budget = _budget()
    z = _z(budget)              # calibrated for T steps
    budget.plan_subsampled(CLIP, z * CLIP, Q, T // 2, label="step")
    _steps(budget, z, T)        # the second half beyond the plan: verified step by step
    assert budget.recorded().spent(DELTA)[0] <= EPS * (1 + 1e-12)


def test_release_beyond_plan_refused_when_it_overspends():
    budget = _budget()
    z = _z(budget)
    budget.plan_subsampled(CLIP, z * CLIP, Q, T, label="step")
    _steps(budget, z, T)
    before = budget.recorded().log()
    state = budget.backend.rng.bit_generator.state
    with pytest.raises(RuntimeError, match="overspend"):
        budget.subsampled_gaussian(np.zeros(3), CLIP, z * CLIP, Q, label="step")
    assert budget.recorded().log() == before                     # nothing recorded
    assert budget.backend.rng.bit_generator.state == state       # nothing drawn


def test_plan_beyond_budget_refused():
    budget = _budget()
    z = _z(budget)
    with pytest.raises(RuntimeError, match="plan of 60 steps"):
        budget.plan_subsampled(CLIP, z * CLIP, Q, 60, label="step")
    assert len(budget.recorded().entries) == 1


def test_halved_noise_caught_by_plan_check():
    budget = _budget()
    z = _z(budget)
    state = budget.backend.rng.bit_generator.state
    with pytest.raises(RuntimeError, match="overspend"):
        budget.plan_subsampled(CLIP, z * CLIP / 2.0, Q, T, label="step")
    assert budget.backend.rng.bit_generator.state == state
    assert [e.label for e in budget.recorded().entries] == ["prior"]


def test_halved_noise_after_plan_refused():
    """A release at another noise is not the plan's: checked with the plan counted as spent."""
    budget = _budget()
    z = _z(budget)
    budget.plan_subsampled(CLIP, z * CLIP, Q, T, label="step")
    with pytest.raises(RuntimeError, match="overspend"):
        budget.subsampled_gaussian(np.zeros(3), CLIP, z * CLIP / 2.0, Q, label="step")


def test_two_plans_compose():
    budget = _budget()
    z = _z(budget, 2 * T)
    budget.plan_subsampled(CLIP, z * CLIP, Q, T, label="step")
    budget.plan_subsampled(CLIP, z * CLIP, Q, T, label="step")   # the same key: added up
    with pytest.raises(RuntimeError, match="overspend"):
        budget.plan_subsampled(CLIP, z * CLIP, Q, T, label="step")
    _steps(budget, z, 2 * T)
    assert budget.recorded().spent(DELTA)[0] <= EPS


def test_planned_steps_count_for_other_releases():
    budget = _budget()
    z = _z(budget)
    budget.plan_subsampled(CLIP, z * CLIP, Q, T, label="step")
    with pytest.raises(RuntimeError, match="overspend"):   # the plan left no epsilon
        budget.exponential_batch(0.2, 1, label="selection")


def test_shared_budget_plan_charges_zcdp_up_front():
    rho_step = 0.125                  # (2C)**2 / (2 sigma**2) at sigma = 4C
    budget = _budget(exclusive=False, rho=T * rho_step, prior=False)
    budget.plan_subsampled(CLIP, 4.0 * CLIP, Q, T, label="step")
    assert math.isclose(budget.spent, T * rho_step)
    _steps(budget, 4.0, T)                                  # drawn down, not charged again
    assert math.isclose(budget.spent, T * rho_step)
    with pytest.raises(RuntimeError, match="overspend"):
        budget.subsampled_gaussian(np.zeros(3), CLIP, 4.0 * CLIP, Q, label="step")
    with pytest.raises(RuntimeError, match="overspend"):
        _budget(exclusive=False, rho=T * rho_step / 2, prior=False).plan_subsampled(
            CLIP, 4.0 * CLIP, Q, T, label="step")


def test_not_private_plan_is_nothing():
    budget = Budget.for_fit(Backend.from_arrays(np.zeros(1), random_state=0), math.inf, DELTA,
                            math.inf)
    budget.plan_subsampled(CLIP, 0.0, Q, T, label="step")
    assert budget.recorded().entries == []


@pytest.mark.parametrize("make", [
    lambda: KLAdaptiveRegressor(solver="dpsgd_poisson", max_iter=30, delta=1e-6,
                                random_state=0),
    lambda: PrivateMinimaxClassifier(solver="dpsgd_poisson", n_iter=30, delta=1e-6,
                                     random_state=0),
])
def test_solvers_declare_their_plan(monkeypatch, make):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(800, 3)) / 3
    y = np.clip(X @ np.array([1.0, -1.0, 0.5]), -1, 1)
    if "Classifier" in type(make()).__name__:
        y = (y > 0).astype(int)
    plans = []
    original = Budget.plan_subsampled

    def recorded(self, sensitivity, sigma, rate, steps, *, label):
        plans.append((sensitivity / sigma, rate, steps))
        return original(self, sensitivity, sigma, rate, steps, label=label)

    monkeypatch.setattr(Budget, "plan_subsampled", recorded)
    fits = []
    original_fits = Budget._fits

    def counted(self, *args):
        fits.append(args[-1])
        return original_fits(self, *args)

    monkeypatch.setattr(Budget, "_fits", counted)
    est = make()
    est.fit(X, y, **({"classes": [0, 1]} if "Classifier" in type(est).__name__ else {}))
    assert len(plans) == 1 and plans[0][2] == 30
    assert fits == [30]                     # the plan's one check; no step re-verifies
    steps = [e for e in est.privacy_ledger_.entries if e.kind == "subsampled_gaussian"]
    assert sum(e.count for e in steps) == 30
    assert est.privacy_ledger_.spent(est.delta)[0] <= est.epsilon
