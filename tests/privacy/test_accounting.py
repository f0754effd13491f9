"""Privacy arithmetic against dp-accounting (an independent implementation) and closed forms."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dp_accounting
from dp_accounting import gaussian_mechanism as dpa_gaussian
from dp_accounting.rdp import rdp_privacy_accountant as dpa_rdp

from skdp.privacy.ledger import (
    PrivacyLedger, advanced_composition_epsilon, advanced_composition_step_epsilon,
    approx_dp_to_gdp, approx_dp_to_zcdp, bounded_range_rho, bounded_range_step_epsilon,
    fully_adaptive_epsilon, fully_adaptive_step_epsilon, gaussian_rho, gaussian_sigma,
    gdp_delta, gdp_to_approx_dp, pure_rho, zcdp_to_approx_dp)

SIGMAS = [0.5, 1.0, 3.0, 10.0]
SENSITIVITIES = [0.1, 1.0, 2.5]
STEPS = [1, 10, 1000]
DELTAS = [1e-3, 1e-6, 1e-9]
ORDERS = dpa_rdp.DEFAULT_RDP_ORDERS


def _dpa_rdp_epsilon(event, delta, orders=ORDERS):
    acc = dpa_rdp.RdpAccountant(orders)
    acc.compose(event)
    return acc.get_epsilon(delta)


# --- Gaussian mechanism and zCDP -----------------------------------------
@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("sens", SENSITIVITIES)
@pytest.mark.parametrize("steps", STEPS)
@pytest.mark.parametrize("delta", DELTAS)
def test_composed_gaussian_zcdp_matches_rdp_accountant(sigma, sens, steps, delta):
    """Same orders: identical formula, so agreement to 1e-6 relative (really 1e-10)."""
    rho = steps * gaussian_rho(sens, sigma)
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.GaussianDpEvent(noise_multiplier=sigma / sens), steps)
    expected = _dpa_rdp_epsilon(event, delta)
    assert zcdp_to_approx_dp(rho, delta, orders=ORDERS) == pytest.approx(expected, rel=1e-6)
    # over all orders (exact) we can only be tighter, and not by much
    exact = zcdp_to_approx_dp(rho, delta)
    assert exact <= expected * (1 + 1e-9)


@pytest.mark.parametrize("rho", [1e-4, 0.01, 0.5, 3.0])
@pytest.mark.parametrize("delta", DELTAS)
def test_zcdp_event_matches_rdp_accountant(rho, delta):
    expected = _dpa_rdp_epsilon(dp_accounting.ZCDpEvent(rho), delta)
    assert zcdp_to_approx_dp(rho, delta, orders=ORDERS) == pytest.approx(expected, rel=1e-6)


def test_zcdp_reference_value():
    # issue 5's reference value, and the loose classical bound as a sanity check
    assert zcdp_to_approx_dp(1 / 32, 1e-3) == pytest.approx(0.6880024554878086, rel=1e-9)
    rho, delta = 0.1, 1e-6
    assert zcdp_to_approx_dp(rho, delta) < rho + 2 * math.sqrt(rho * math.log(1 / delta))


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
@pytest.mark.parametrize("delta", DELTAS)
def test_zcdp_inversion_round_trip(eps, delta):
    rho = approx_dp_to_zcdp(eps, delta)
    assert zcdp_to_approx_dp(rho, delta) == pytest.approx(eps, rel=1e-9)
    # the Gaussian calibrated to rho and sensitivity 1 is spent as eps by dp-accounting (all orders)
    sigma = gaussian_sigma(1.0, rho)
    event = dp_accounting.GaussianDpEvent(noise_multiplier=sigma)
    fine = np.concatenate([1 + np.geomspace(1e-3, 1e4, 20000)])
    assert _dpa_rdp_epsilon(event, delta, fine) == pytest.approx(eps, rel=1e-4)


def test_gaussian_rho_sigma_inverse():
    assert gaussian_rho(2.0, 4.0) == 0.125
    assert gaussian_sigma(2.0, 0.125) == pytest.approx(4.0)
    assert gaussian_sigma(1.0, math.inf) == 0.0
    assert gaussian_rho(1.0, 0.0) == math.inf


# --- Gaussian DP ------------------------------------------------------------
@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("sens", SENSITIVITIES)
@pytest.mark.parametrize("steps", STEPS)
@pytest.mark.parametrize("delta", DELTAS)
def test_gdp_matches_analytic_gaussian(sigma, sens, steps, delta):
    """mu-GDP conversion (Dong-Roth-Su) against dp-accounting's exact analytic Gaussian."""
    mu = math.sqrt(steps) * sens / sigma
    expected = dpa_gaussian.get_epsilon_gaussian(1.0 / mu, delta)
    assert gdp_to_approx_dp(mu, delta) == pytest.approx(expected, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
@pytest.mark.parametrize("delta", DELTAS)
def test_gdp_inversion_matches_dp_accounting_sigma(eps, delta):
    mu = approx_dp_to_gdp(eps, delta)
    assert 1.0 / mu == pytest.approx(dpa_gaussian.get_sigma_gaussian(eps, delta), rel=1e-6)
    assert gdp_delta(mu, eps) == pytest.approx(delta, rel=1e-8)


def test_ledger_gaussian_composition_matches_pld_anchor():
    # anchors.md: sigma = 2 composed 100 times at delta = 1e-5 -> 33.10 (PLD), 35.08 (RDP)
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, 2.0, count=100)
    eps, method = ledger.spent(1e-5)
    assert method == "gdp"
    assert eps == pytest.approx(33.10, abs=0.01)
    assert zcdp_to_approx_dp(ledger.rho, 1e-5, orders=ORDERS) == pytest.approx(35.08, abs=0.01)


# --- pure DP ------------------------------------------------------------------
def test_bounded_range_and_pure_rho():
    assert bounded_range_rho(1.0) == 0.125
    assert pure_rho(1.0) == 0.5
    assert bounded_range_step_epsilon(bounded_range_rho(0.3) * 7, 7) == pytest.approx(0.3)


@pytest.mark.parametrize("eps0", [0.01, 0.1, 0.5])
@pytest.mark.parametrize("k", [1, 50, 2000])
@pytest.mark.parametrize("delta", DELTAS)
def test_advanced_composition_closed_forms(eps0, k, delta):
    drv = math.sqrt(2 * k * math.log(1 / delta)) * eps0 + k * eps0 * math.expm1(eps0)
    assert advanced_composition_epsilon([eps0] * k, delta) == pytest.approx(drv, rel=1e-12)
    wh = math.sqrt(2 * k * math.log(1 / delta)) * eps0 + k * eps0**2 / 2
    assert fully_adaptive_epsilon([eps0] * k, delta) == pytest.approx(wh, rel=1e-12)
    assert (fully_adaptive_epsilon([eps0] * k, delta)
            <= advanced_composition_epsilon([eps0] * k, delta))


@pytest.mark.parametrize("n", [1, 100, 2000])
@pytest.mark.parametrize("delta", [1e-5, 1e-9])
def test_per_step_rules(n, delta):
    # 002 Cor. 3.6: each of the two terms is at most eps/2, so the composition is <= eps
    step = advanced_composition_step_epsilon(1.0, delta, n)
    assert fully_adaptive_epsilon([step] * n, delta) <= 1.0
    exact = fully_adaptive_step_epsilon(1.0, delta, n)
    assert fully_adaptive_epsilon([exact] * n, delta) == pytest.approx(1.0, rel=1e-12)
    assert exact > step
    # Cor. 3.6 vs BR: eps = 1, delta = 1e-5, N = 2000 -> 0.00233 and bounded range ~3.9x larger
    if n == 2000 and delta == 1e-5:
        assert step == pytest.approx(0.00233, abs=5e-6)
        log_inv = math.log(1 / delta)  # the conversion eps = rho + 2 sqrt(rho log(1/delta))
        rho_classic = (math.sqrt(log_inv + 1.0) - math.sqrt(log_inv)) ** 2
        assert bounded_range_step_epsilon(rho_classic, n) == pytest.approx(0.00913, abs=5e-6)
        # the exact CKS inversion allows more still
        assert bounded_range_step_epsilon(approx_dp_to_zcdp(1.0, delta), n) > 0.0110


def test_cor36_requires_small_epsilon():
    with pytest.raises(ValueError, match="8 log"):
        advanced_composition_step_epsilon(200.0, 1e-5, 10)


# --- the ledger ------------------------------------------------------------
def test_ledger_mixed_takes_the_tightest_rule():
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, 5.0, count=10)
    ledger.exponential(0.1, count=5)
    eps, method = ledger.spent(1e-6)
    rho = 10 / 50 + 5 * 0.01 / 8
    assert method == "zcdp"
    assert eps == pytest.approx(zcdp_to_approx_dp(rho, 1e-6), rel=1e-12)


def test_ledger_many_small_pure_steps_prefer_zcdp_over_advanced():
    ledger = PrivacyLedger()
    ledger.exponential(0.01, count=2000)
    eps, method = ledger.spent(1e-5)
    assert eps <= fully_adaptive_epsilon([0.01] * 2000, 1e-5)
    assert eps == pytest.approx(zcdp_to_approx_dp(2000 * 0.01**2 / 8, 1e-5), rel=1e-12)


def test_ledger_generic_pure_can_win_by_basic_composition():
    ledger = PrivacyLedger()
    ledger.pure(0.5, count=1)
    eps, method = ledger.spent(1e-6)
    assert method == "zcdp+basic"
    assert eps == pytest.approx(0.5)


def test_ledger_approx_parts_compose_basically():
    ledger = PrivacyLedger()
    ledger.approx(0.3, 1e-7, count=2)
    ledger.zcdp(0.01)
    eps, method = ledger.spent(1e-6)
    assert method.startswith("basic+")
    assert eps == pytest.approx(0.6 + zcdp_to_approx_dp(0.01, 1e-6 - 2e-7), rel=1e-12)
    assert ledger.spent(1e-7)[0] == math.inf  # the approx parts alone need 2e-7


def test_ledger_log_lists_every_entry():
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, 1.0, label="a")
    ledger.exponential(0.2, count=3, label="b")
    log = ledger.log()
    assert [e["label"] for e in log] == ["a", "b"] and log[1]["count"] == 3


def test_halving_the_noise_is_detected():
    """A mechanism calibrated to (1, 1e-6) spends more than that with half its noise."""
    rho = approx_dp_to_zcdp(1.0, 1e-6)
    sigma = gaussian_sigma(1.0, rho)
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, sigma / 2)
    assert ledger.epsilon(1e-6) > 1.5


# --- properties ---------------------------------------------------------------
pos = st.floats(min_value=1e-4, max_value=20.0)
deltas = st.floats(min_value=1e-12, max_value=0.5)


@settings(max_examples=60, deadline=None)
@given(rho=pos, delta=deltas, factor=st.floats(min_value=1.01, max_value=10.0))
def test_zcdp_conversion_monotone(rho, delta, factor):
    assert zcdp_to_approx_dp(rho * factor, delta) >= zcdp_to_approx_dp(rho, delta)
    assert zcdp_to_approx_dp(rho, delta / factor) >= zcdp_to_approx_dp(rho, delta)


@settings(max_examples=60, deadline=None)
@given(eps=st.floats(min_value=0.01, max_value=20.0), delta=deltas)
def test_round_trips(eps, delta):
    assert zcdp_to_approx_dp(approx_dp_to_zcdp(eps, delta), delta) == pytest.approx(eps, rel=1e-7)
    assert gdp_to_approx_dp(approx_dp_to_gdp(eps, delta), delta) == pytest.approx(eps, rel=1e-7)
    # GDP is exact for the Gaussian, so at equal noise it never spends more than zCDP
    mu = approx_dp_to_gdp(eps, delta)
    assert zcdp_to_approx_dp(mu**2 / 2, delta) >= eps * (1 - 1e-9)


@settings(max_examples=60, deadline=None)
@given(mu=st.floats(min_value=1e-3, max_value=20.0), delta=deltas,
       factor=st.floats(min_value=1.01, max_value=10.0))
def test_gdp_conversion_monotone(mu, delta, factor):
    assert gdp_to_approx_dp(mu * factor, delta) >= gdp_to_approx_dp(mu, delta)


@settings(max_examples=40, deadline=None)
@given(sigmas=st.lists(st.floats(min_value=0.3, max_value=20.0), min_size=1, max_size=6),
       eps_list=st.lists(st.floats(min_value=1e-3, max_value=1.0), max_size=6), delta=deltas)
def test_ledger_never_beats_a_valid_lower_bound_or_exceeds_basic(sigmas, eps_list, delta):
    ledger = PrivacyLedger()
    for s in sigmas:
        ledger.gaussian(1.0, s)
    for e in eps_list:
        ledger.exponential(e)
    eps, _ = ledger.spent(delta)
    # never worse than the zCDP conversion of everything, never better than the Gaussians alone
    assert eps <= zcdp_to_approx_dp(ledger.rho, delta) * (1 + 1e-9)
    mu = math.sqrt(sum(1 / s**2 for s in sigmas))
    assert eps >= gdp_to_approx_dp(mu, delta) * (1 - 1e-6)


@pytest.mark.parametrize("old, new, name", [
    ("skdp.privacy.accounting", "skdp.privacy.ledger", "PrivacyLedger"),
    ("skdp.privacy.selection", "skdp.privacy.repeat_and_select", "repeat_and_select_epsilon"),
])
def test_renamed_privacy_modules_keep_their_old_path(old, new, name):
    import importlib

    with pytest.warns(FutureWarning, match=rf"{old} is deprecated \(renamed {new}\)"):
        value = getattr(importlib.import_module(old), name)
    assert value is getattr(importlib.import_module(new), name)
