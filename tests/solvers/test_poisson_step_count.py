"""dpsgd_poisson's ``n_iter='auto'``: at most POISSON_MAX_ITER steps, the step as much larger
(issue 31, "the classifier's step count at small d"); accounting unchanged in form."""

import math

import numpy as np
import pytest

from skdp import PrivateMinimaxClassifier
from skdp.model_selection import subsampled_steps
from skdp.privacy import PrivacyLedger
from skdp.privacy.ledger import approx_dp_to_gdp, subsampled_noise_within
from skdp.solvers.minimax import subsampled
from skdp.solvers.minimax.euclidean import auto_iterations
from skdp.solvers.minimax.steps import STEP_SCALE
from skdp.solvers.minimax.subsampled import POISSON_MAX_BATCH, POISSON_MAX_ITER, auto_poisson_steps

DELTA = 1e-6


@pytest.mark.parametrize("n, mu", [(1000, 0.2), (5000, 0.2), (20_000, 0.2), (10**6, 1.0),
                                   (10**7, 0.05)])
def test_rule_caps_the_steps_and_keeps_their_product(n, mu):
    steps, scale = auto_poisson_steps(n, mu)
    planned = auto_iterations(n, mu)
    assert steps == min(planned, POISSON_MAX_ITER)
    assert steps * scale == pytest.approx(planned * STEP_SCALE, rel=1e-15)
    if planned <= POISSON_MAX_ITER:  # below the cap: noisy_gd's rule, the same step
        assert (steps, scale) == (planned, STEP_SCALE)


def test_non_private_rule_unchanged():
    assert auto_poisson_steps(10**6, math.inf) == (auto_iterations(10**6, math.inf), STEP_SCALE)


def _data(n=20_000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (2 * math.sqrt(d))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)


def _fit(spy=None, **params):
    X, y = _data()
    est = PrivateMinimaxClassifier(**{"solver": "dpsgd_poisson", "epsilon": 1.0, "delta": DELTA,
                                      "random_state": 0, **params})
    return est.fit(X, y, classes=[0, 1])


def _subsampled(est):
    return [e for e in est.privacy_ledger_.entries if e.kind == "subsampled_gaussian"]


def test_auto_fit_takes_the_capped_steps_at_the_larger_rate(monkeypatch):
    scales = []
    real = subsampled.step_sizes
    monkeypatch.setattr(subsampled, "step_sizes",
                        lambda data, scale=STEP_SCALE: scales.append(scale) or real(data, scale))
    est = _fit()
    assert auto_iterations(20_000, approx_dp_to_gdp(1.0, DELTA)) == 500  # above the cap
    assert est.n_iter_ == POISSON_MAX_ITER == 250
    sub = _subsampled(est)
    assert sum(e.count for e in sub) == 250 and {e.q for e in sub} == {4 / 250}
    spent, method = est.privacy_ledger_.spent(DELTA)
    assert method == "pld" and 1.0 - 1e-6 <= spent <= 1.0
    assert scales == [STEP_SCALE * 500 / 250]
    assert est.score(*_data(seed=1)) > 0.73  # LogisticRegression: 0.741
    # the search's plan reads the same rule (solver given: only subsampled steps)
    assert subsampled_steps(PrivateMinimaxClassifier(solver="dpsgd_poisson"), 20_000, 3) == (
        (4 / 250, 250), True)
    assert subsampled_steps(PrivateMinimaxClassifier(), 10**6, 3) == ((4 / 250, 250), False)


def test_explicit_n_iter_is_the_users(monkeypatch):
    scales = []
    real = subsampled.step_sizes
    monkeypatch.setattr(subsampled, "step_sizes",
                        lambda data, scale=STEP_SCALE: scales.append(scale) or real(data, scale))
    est = _fit(n_iter=500)
    assert est.n_iter_ == 500 and {e.q for e in _subsampled(est)} == {4 / 500}
    assert scales == [STEP_SCALE]


@pytest.mark.parametrize("q", [4 / 250, POISSON_MAX_BATCH / 10**7])
def test_noise_multiplier_at_the_new_rate_matches_dp_accounting(q):
    """The (q, T) = (0.016, 250) of the capped rule, as the existing (0.05, 40) case, and
    (0.0016, 250), a default fit's at 1e7 rows under the batch cap."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting import pld

    steps = 250
    ledger = PrivacyLedger()
    ledger.gaussian(0.01, 0.2, count=3, label="other releases")
    z = subsampled_noise_within(ledger.entries, [], q, steps, 1.0, DELTA)

    def independent(noise):  # dp-accounting's PLD, replace-one neighbours
        acc = pld.PLDAccountant(dp_accounting.NeighboringRelation.REPLACE_ONE,
                                value_discretization_interval=1e-3)
        acc.compose(dp_accounting.GaussianDpEvent(2 * 0.2 / 0.01), 3)  # replace distance 0.01
        acc.compose(dp_accounting.PoissonSampledDpEvent(
            q, dp_accounting.GaussianDpEvent(noise)), steps)
        return acc.get_epsilon(DELTA)

    assert independent(z) == pytest.approx(1.0, rel=1e-2)
    assert independent(z / 2) > 1.5
