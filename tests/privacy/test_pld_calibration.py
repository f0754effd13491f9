"""Issue 31: the noise calibration's search (coarse grids, Richardson start, Newton steps).

The returned noise multiplier must be certified by the fine PLD (the ledger's own accountant)
whatever the coarse grids say, land where the plain bracketing search lands (to its tolerance,
about 1e-9 in log z, the fine grid's rounding), and a z half as large must overspend. Checked
against dp-accounting's PLD (replace-one), as tests/privacy/test_pld.py does.
"""

import math

import numpy as np
import pytest

from skdp.privacy import PrivacyLedger
from skdp.privacy import ledger as ledger_module
from skdp.privacy import pld
from skdp.privacy.ledger import PLD_MARGIN, _calibrate, subsampled_noise_within

# a default classifier's ledger before its steps: group sizes and feature mean (mu of each)
CLASSIFIER_MUS = (0.052928708573542906, 0.0729571898978906)
POINTS = [  # (q, steps, epsilon, delta)
    (0.0016, 250, 1.0, 1e-6), (0.004, 1000, 1.0, 1e-6), (0.008, 250, 0.5, 1e-6),
    (0.016, 250, 1.0, 1e-9), (0.04, 100, 4.0, 1e-6), (0.1, 10, 2.0, 1e-6), (0.4, 100, 1.0, 1e-6),
]


def _entries(mus=CLASSIFIER_MUS):
    ledger = PrivacyLedger()
    for mu in mus:
        ledger.gaussian(1.0, 1.0 / mu)
    return tuple(ledger.entries)


def _spent(entries, z, q, steps, delta):
    ledger = PrivacyLedger(list(entries))
    ledger.subsampled_gaussian(1.0, z, q, count=steps)
    return ledger.spent(delta)[0]


def _plain_search(entries, q, steps, eps, delta, monkeypatch):
    """The bracketing search alone (no coarse grid), on the same fine excess."""
    search = ledger_module.smallest_noise_multiplier
    with monkeypatch.context() as patch:
        patch.setattr(ledger_module, "smallest_noise_multiplier",
                      lambda excess, start, **_: search(excess, start))
        return _calibrate.__wrapped__(entries, (), q, steps, eps, delta)


@pytest.mark.parametrize("q, steps, eps, delta", POINTS)
def test_noise_is_certified_by_the_fine_pld_and_half_of_it_overspends(q, steps, eps, delta):
    entries = _entries()
    z = _calibrate.__wrapped__(entries, (), q, steps, eps, delta)
    spent = _spent(entries, z, q, steps, delta)
    assert eps * (1 - 1e-6) < spent <= eps * (1 - PLD_MARGIN)
    assert _spent(entries, z / 2, q, steps, delta) > 1.2 * eps


@pytest.mark.parametrize("q, steps, eps, delta", POINTS[:4] + POINTS[5:6])
def test_lands_where_the_bracketing_search_lands(q, steps, eps, delta, monkeypatch):
    entries = _entries()
    z = _calibrate.__wrapped__(entries, (), q, steps, eps, delta)
    plain = _plain_search(entries, q, steps, eps, delta, monkeypatch)
    assert z == pytest.approx(plain, rel=5e-9 if delta >= 1e-6 else 3e-7)  # rounding: _refine


@pytest.mark.parametrize("q, steps", [(0.0016, 250), (0.004, 1000), (0.016, 250)])
def test_fewer_fine_compositions_than_the_bracketing_search(q, steps, monkeypatch):
    counts = {1.0: 0}
    compose = pld.compose_gaussian_parts

    def counted(gaussian_mu=0.0, subsampled=(), gap_scale=1.0):
        counts[gap_scale] = counts.get(gap_scale, 0) + 1
        return compose(gaussian_mu, subsampled, gap_scale)

    monkeypatch.setattr(ledger_module, "compose_gaussian_parts", counted)
    ledger_module._composed.cache_clear()
    _calibrate.__wrapped__(_entries(), (), q, steps, 1.0, 1e-6)
    refined = counts[1.0]
    counts.clear()
    counts[1.0] = 0
    ledger_module._composed.cache_clear()
    _plain_search(_entries(), q, steps, 1.0, 1e-6, monkeypatch)
    assert refined <= 4 < counts[1.0]
    ledger_module._composed.cache_clear()


@pytest.mark.parametrize("q", [0.0016, 0.016])
def test_against_dp_accounting(q):
    """dp-accounting's pessimistic PLD at z: epsilon within 2e-3 of the target (its own grid's
    slack); its optimistic one (below the exact epsilon) at most the target, and at z / 2
    above it."""
    pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as dpa
    from dp_accounting.privacy_accountant import NeighboringRelation

    steps, delta = 250, 1e-6
    z = subsampled_noise_within(_entries(), [], q, steps, 1.0, delta)

    def epsilon(noise, pessimistic=True):
        # the plain part: N(0) against N(mu), mu-GDP as the ledger's N(-mu/2) against N(mu/2)
        plain = dpa.from_gaussian_mechanism(1.0 / math.hypot(*CLASSIFIER_MUS),
                                            pessimistic_estimate=pessimistic,
                                            value_discretization_interval=1e-4)
        step = dpa.from_gaussian_mechanism(noise, sampling_prob=q,
                                           neighboring_relation=NeighboringRelation.REPLACE_ONE,
                                           pessimistic_estimate=pessimistic,
                                           value_discretization_interval=1e-4)
        return plain.compose(step.self_compose(steps)).get_epsilon_for_delta(delta)

    assert epsilon(z) == pytest.approx(1.0, rel=2e-3)
    assert epsilon(z, pessimistic=False) <= 1.0
    assert epsilon(z / 2, pessimistic=False) > 1.5


def _root_two(s):
    return 2.0 / s - 1.0


@pytest.mark.parametrize("coarse, coarser", [
    (lambda s: 2.001 / s - 1.0, lambda s: 2.004 / s - 1.0),      # the h^2 law
    (lambda s: 2.001 / s - 1.0, lambda s: 1.5 / s - 1.0),        # a coarser grid that is wrong
    (lambda s: 9.0 / s - 1.0, None),                             # far off
    (lambda s: 1.9 / s - 1.0, lambda s: 30.0 / s - 1.0),         # below the root, then far off
    (lambda s: 2.0 / s - 1.0, lambda s: math.inf),               # infinite
])
def test_certified_whatever_the_coarse_grids_say(coarse, coarser):
    root = pld.smallest_noise_multiplier(_root_two, coarse=coarse, coarser=coarser)
    assert _root_two(root) <= 0 and root == pytest.approx(2.0, rel=3e-9)


def test_rounding_below_the_tolerance_is_stepped_over():
    """A fine excess that is not monotone below 1e-9 (the grid's rounding) is still met."""
    def rough(s):
        return 2.0 / s - 1.0 + 2e-9 * math.sin(1e10 * math.log(s))

    root = pld.smallest_noise_multiplier(rough, coarse=lambda s: 2.001 / s - 1.0,
                                         coarser=lambda s: 2.004 / s - 1.0)
    assert rough(root) <= 0 and root == pytest.approx(2.0, rel=1e-8)


def test_rounding_above_the_tolerance_is_bracketed():
    """Rounding of 2e-6 in the excess (delta 1e-9 at T = 1000 is rough at about 1e-6): a
    certified point close above one that is not, in a few compositions."""
    calls = []

    def rough(s):
        calls.append(s)
        return 2.0 / s - 1.0 + 2e-6 * math.sin(3e7 * math.log(s))

    root = pld.smallest_noise_multiplier(rough, coarse=lambda s: 2.001 / s - 1.0,
                                         coarser=lambda s: 2.004 / s - 1.0)
    assert rough(root) <= 0 and root == pytest.approx(2.0, rel=1e-5)
    assert len(calls) <= pld._FINE_TRIES


def test_newton_steps_that_do_not_settle_fall_back_to_the_bracketing_search(monkeypatch):
    monkeypatch.setattr(pld, "_FINE_TRIES", 1)
    far = pld.smallest_noise_multiplier(_root_two, coarse=lambda s: 9.0 / s - 1.0)
    assert _root_two(far) <= 0 and far == pytest.approx(2.0, rel=3e-9)


def test_richardson_removes_a_gap_squared_offset():
    a2, b2 = pld.COARSE_GAP ** 2, pld.COARSER_GAP ** 2
    fine, scale = 0.3, 1e-6
    assert pld._richardson(fine + scale * (a2 - 1), fine + scale * (b2 - 1)) == pytest.approx(fine)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 250, 1000, 1023])
def test_power_by_squaring_is_numpys_power(n):
    rng = np.random.default_rng(n)
    values = np.exp(1j * rng.uniform(-np.pi, np.pi, 500)) * rng.uniform(0.9, 1.0, 500)
    np.testing.assert_allclose(pld._power(values, n), values ** n, rtol=1e-12, atol=1e-300)
