"""Mechanisms: calibrated noise (chi-square), the exponential mechanism's law, the ledger."""

import math

import numpy as np
import pytest
from scipy import stats

from skdp._backend import Backend
from skdp.privacy.ledger import PrivacyLedger, approx_dp_to_zcdp, gaussian_sigma
from skdp.privacy.mechanisms import exponential_mechanism, gaussian_mechanism


def _backend(seed=0):
    return Backend.from_arrays(np.zeros(1), random_state=seed)


def _chi2_sigma_pvalue(noise, sigma):
    """Two-sided p-value of the variance test: (n) s^2 / sigma^2 ~ chi2(n) for known mean 0."""
    n = noise.size
    statistic = float(np.sum(noise**2)) / sigma**2
    cdf = stats.chi2.cdf(statistic, df=n)
    return 2 * min(cdf, 1 - cdf)


@pytest.mark.parametrize("sensitivity", [0.5, 2.0])
def test_gaussian_noise_has_the_calibrated_variance(sensitivity):
    rho = approx_dp_to_zcdp(1.0, 1e-6)
    ledger = PrivacyLedger()
    value = np.zeros(50_000)
    noisy, sigma = gaussian_mechanism(value, sensitivity, _backend(), rho=rho, ledger=ledger)
    assert sigma == pytest.approx(gaussian_sigma(sensitivity, rho))
    assert _chi2_sigma_pvalue(noisy, sigma) > 1e-3
    assert ledger.rho == pytest.approx(rho)
    assert ledger.epsilon(1e-6) <= 1.0 + 1e-9


def test_halved_gaussian_noise_fails_the_variance_test():
    rho = approx_dp_to_zcdp(1.0, 1e-6)
    noisy, sigma = gaussian_mechanism(np.zeros(50_000), 1.0, _backend(), rho=rho)
    assert _chi2_sigma_pvalue(noisy / 2, sigma) < 1e-6


def test_gaussian_mechanism_needs_one_scale():
    with pytest.raises(ValueError, match="exactly one"):
        gaussian_mechanism(np.zeros(2), 1.0, _backend())
    out, sigma = gaussian_mechanism(np.ones(2), 1.0, _backend(), rho=math.inf)
    assert sigma == 0 and out.tolist() == [1.0, 1.0]


def _em_frequencies(scores, sensitivity, epsilon, draws, monotonic=False, seed=0):
    backend = _backend(seed)
    picks = [exponential_mechanism(scores, sensitivity, epsilon, backend, monotonic=monotonic)
             for _ in range(draws)]
    return np.bincount(picks, minlength=len(scores))


@pytest.mark.parametrize("monotonic", [False, True])
def test_exponential_mechanism_has_the_softmax_law(monotonic):
    scores = np.array([0.0, 1.0, 2.0, 4.0])
    sensitivity, epsilon, draws = 1.0, 1.0, 20_000
    counts = _em_frequencies(scores, sensitivity, epsilon, draws, monotonic)
    scale = epsilon / (sensitivity if monotonic else 2 * sensitivity)
    probs = np.exp(scale * scores) / np.exp(scale * scores).sum()
    assert stats.chisquare(counts, draws * probs).pvalue > 1e-3


def test_exponential_mechanism_with_half_the_noise_is_detected():
    """Sampling with the exponent doubled (half the Gumbel noise) fails the same test."""
    scores = np.array([0.0, 1.0, 2.0, 4.0])
    draws = 20_000
    counts = _em_frequencies(scores, 1.0, 2.0, draws)  # twice the claimed epsilon = 1
    probs = np.exp(0.5 * scores) / np.exp(0.5 * scores).sum()
    assert stats.chisquare(counts, draws * probs).pvalue < 1e-6


def test_exponential_mechanism_records_bounded_range_cost():
    ledger = PrivacyLedger()
    exponential_mechanism(np.arange(3.0), 1.0, 0.4, _backend(), ledger=ledger)
    assert ledger.rho == pytest.approx(0.4**2 / 8)
    assert exponential_mechanism(np.array([0.0, 5.0, 1.0]), 1.0, math.inf, _backend()) == 1
