"""dpsgd_poisson's ``n_iter='auto'``: the default rate's batch capped at POISSON_MAX_BATCH rows
(issue 31, "the classifier's batch cap at 1e7 rows"); accounting unchanged in form."""

import math

import numpy as np
import pytest

from skdp import PrivateMinimaxClassifier
from skdp.model_selection import subsampled_steps
from skdp.privacy import PrivacyLedger
from skdp.solvers.minimax import subsampled
from skdp.solvers.minimax.subsampled import POISSON_MAX_BATCH, auto_passes
from skdp.solvers.shared.subsampling import SAMPLING_PASSES, sampling_rate

DELTA = 1e-6


@pytest.mark.parametrize("n", [1000, 10**5, 10**6, 2 * 10**6, 10**7, 10**9])
def test_rule_caps_the_expected_batch(n):
    steps = 250
    q = sampling_rate(None, steps, True, auto_passes(n, steps))
    assert q == pytest.approx(min(1.0, SAMPLING_PASSES / steps, POISSON_MAX_BATCH / n), rel=1e-15)
    assert q * n <= POISSON_MAX_BATCH * (1 + 1e-12)
    if n <= POISSON_MAX_BATCH * steps / SAMPLING_PASSES:  # up to 1e6 rows: the rate of before
        assert auto_passes(n, steps) == SAMPLING_PASSES


def test_cap_value():
    assert POISSON_MAX_BATCH == 16_000 and auto_passes(10**7, 250) == pytest.approx(0.4)


def _data(n=20_000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / (2 * math.sqrt(d))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)


def _fit(**params):
    X, y = _data()
    est = PrivateMinimaxClassifier(**{"epsilon": 1.0, "delta": DELTA, "random_state": 0,
                                      **params})
    return est.fit(X, y, classes=[0, 1])


def _subsampled(est):
    return [e for e in est.privacy_ledger_.entries if e.kind == "subsampled_gaussian"]


@pytest.fixture
def small_cap(monkeypatch):
    """A cap of 100 rows, so that a 20,000-row fit is past it (q = 0.005 < 4 / 250)."""
    monkeypatch.setattr(subsampled, "POISSON_MAX_BATCH", 100)
    return 100 / 20_000


def test_capped_fit_spends_exactly_epsilon_at_the_capped_rate(small_cap):
    est = _fit(solver="dpsgd_poisson")
    sub = _subsampled(est)
    assert est.n_iter_ == 250 and sum(e.count for e in sub) == 250
    assert {e.q for e in sub} == {small_cap}
    spent, method = est.privacy_ledger_.spent(DELTA)
    assert method == "pld" and 1.0 - 1e-6 <= spent <= 1.0
    # half the noise of the recorded steps overspends, by the ledger's own accountant
    halved = PrivacyLedger([e for e in est.privacy_ledger_.entries if e not in sub])
    z = 1.0 / sub[0].mu  # the steps' sensitivity is 1: mu = 1 / z
    halved.subsampled_gaussian(1.0, z / 2, small_cap, count=250)
    assert halved.spent(DELTA)[0] > 1.2
    assert est.score(*_data(seed=1)) > 0.72  # LogisticRegression: 0.741
    # the search's plan reads the same rule (the solver given, and 'auto' past its rows)
    assert subsampled_steps(PrivateMinimaxClassifier(solver="dpsgd_poisson"), 20_000, 3) == (
        (small_cap, 250), True)
    assert subsampled_steps(PrivateMinimaxClassifier(), 10**6, 3) == ((100 / 10**6, 250), False)


def test_capped_fit_repeats_with_its_seed(small_cap):
    first, second = _fit(solver="dpsgd_poisson"), _fit(solver="dpsgd_poisson")
    np.testing.assert_array_equal(first.coef_, second.coef_)


def test_explicit_rate_or_steps_are_not_capped(small_cap):
    assert {e.q for e in _subsampled(_fit(solver="dpsgd_poisson", n_iter=250))} == {4 / 250}
    rate = {"sampling_rate": 0.03}
    assert {e.q for e in _subsampled(_fit(solver="dpsgd_poisson", solver_options=rate))} == {0.03}
    assert subsampled_steps(PrivateMinimaxClassifier(solver="dpsgd_poisson", n_iter=250),
                            20_000, 3) == ((4 / 250, 250), True)


def test_non_private_fit_keeps_full_batches(small_cap, monkeypatch):
    rates = []
    real = subsampled._run
    monkeypatch.setattr(subsampled, "_run",
                        lambda problem, budget, data, T, q, *a: rates.append(q)
                        or real(problem, budget, data, T, q, *a))
    _fit(solver="dpsgd_poisson", epsilon=math.inf)
    _fit(solver="dpsgd_poisson")
    assert rates == [1.0, small_cap]


@pytest.mark.parametrize("n", [0, 5, 2**16, 2**16 * 3 + 7])
def test_group_counts_blockwise_equal_bincount(n):
    """The group counts in blocks (no (n,) copy of read-only codes) are np.bincount's."""
    from skdp.minimax import _code_counts

    codes = np.random.default_rng(n).integers(0, 3, size=n)
    view = codes.view()
    view.flags.writeable = False
    for k in (3, 5):
        expected = np.bincount(codes, minlength=k)
        np.testing.assert_array_equal(_code_counts(view, k), expected)
        np.testing.assert_array_equal(_code_counts(codes.astype(np.int8), k), expected)
