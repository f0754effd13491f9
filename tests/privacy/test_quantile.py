"""Tests of the private quantile releases (skdp/privacy/quantile.py, issue 18)."""

import math

import numpy as np
import pytest

from skdp._backend import Backend
from skdp.privacy.ledger import PrivacyLedger
from skdp.privacy.budget import Budget
from skdp.privacy.quantile import (FRACTION_SENSITIVITY, HISTOGRAM_SENSITIVITY,
                                   noisy_fraction_below, private_quantile)
from skdp.privacy.release import Release

GRID = [0.1, 0.2, 0.4, 0.8, 1.6]


def _budget(rho, seed=0):
    release = Release(Backend.from_arrays(np.zeros(1), random_state=seed), PrivacyLedger())
    return Budget(1.0, 1e-6, rho, release=release)


def _cells(values):
    """Exact histogram (the release before noise): a non-private budget adds none."""
    _, fractions = private_quantile(values, 0.5, GRID, _budget(math.inf), math.inf)
    cumulative = np.append(np.array(fractions) * len(values), len(values))
    return np.diff(cumulative, prepend=0.0)


def _count(values, threshold):
    return noisy_fraction_below(values, threshold, _budget(math.inf), math.inf) * len(values)


def test_replace_one_moves_the_released_values_by_at_most_their_sensitivity():
    """The adaptive clip's quantile release has the sensitivity it claims."""
    rng = np.random.default_rng(0)
    worst_hist, worst_count = 0.0, 0.0
    for _ in range(300):
        values = rng.exponential(0.5, size=int(rng.integers(1, 40)))
        other = values.copy()
        other[rng.integers(len(values))] = rng.choice([0.0, 0.15, 0.4, 5.0, rng.exponential()])
        worst_hist = max(worst_hist, float(np.linalg.norm(_cells(values) - _cells(other))))
        for threshold in GRID:
            moved = abs(_count(values, threshold) - _count(other, threshold))
            worst_count = max(worst_count, moved)
    assert worst_hist <= HISTOGRAM_SENSITIVITY + 1e-9
    assert worst_hist == pytest.approx(HISTOGRAM_SENSITIVITY)  # attained: the bound is tight
    assert worst_count <= FRACTION_SENSITIVITY + 1e-9


@pytest.mark.parametrize("release", ["histogram", "fraction"])
def test_ledger_records_the_claimed_sensitivity_and_spends_rho(release):
    budget = _budget(0.3)
    values = np.linspace(0.0, 2.0, 50)
    if release == "histogram":
        private_quantile(values, 0.5, GRID, budget, 0.3)
        sens = HISTOGRAM_SENSITIVITY
    else:
        noisy_fraction_below(values, 0.7, budget, 0.3)
        sens = FRACTION_SENSITIVITY
    (entry,) = budget.ledger.entries
    assert entry.kind == "gaussian"
    assert entry.mu == pytest.approx(sens / budget.sigma(sens, 0.3))
    assert entry.rho == pytest.approx(0.3) and budget.remaining == pytest.approx(0.0)


def _chi_square(factor, monkeypatch, fits=200):
    """|chi-square - dof| / sd of the histogram noise against the sigma the ledger records."""
    if factor != 1:  # a bug that adds less noise than the ledger records
        real = Backend.normal
        monkeypatch.setattr(Backend, "normal", lambda self, shape, scale=1.0, dtype=None:
                            real(self, shape, factor * scale, dtype))
    values = np.random.default_rng(1).exponential(0.5, size=200)
    exact = _cells(values)
    stat = 0.0
    for seed in range(fits):
        budget = _budget(0.05, seed)
        _, fractions = private_quantile(values, 0.5, GRID, budget, 0.05)
        noisy = np.diff(np.array(fractions) * len(values), prepend=0.0)
        sigma = HISTOGRAM_SENSITIVITY / budget.ledger.entries[0].mu  # what the ledger claims
        stat += float(np.sum((noisy - exact[:-1]) ** 2)) / sigma**2
    dof = fits * len(GRID)
    return abs(stat - dof) / math.sqrt(2 * dof)


def test_histogram_noise_matches_the_ledger(monkeypatch):
    assert _chi_square(1.0, monkeypatch) < 4.0


def test_halved_histogram_noise_is_caught(monkeypatch):
    assert _chi_square(0.5, monkeypatch) > 4.0


def test_quantile_is_accurate_with_little_noise_and_checks_its_grid():
    values = np.random.default_rng(2).uniform(0.0, 1.6, size=20000)
    assert private_quantile(values, 0.5, GRID, _budget(10.0), 10.0)[0] == 0.8
    assert private_quantile(values, 0.999, GRID, _budget(10.0), 10.0)[0] == 1.6
    with pytest.raises(ValueError, match="increasing"):
        private_quantile(values, 0.5, [0.2, 0.1], _budget(1.0), 1.0)
