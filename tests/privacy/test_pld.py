"""PLD accounting of the Poisson-subsampled Gaussian (replace-one) against dp-accounting.

Tolerances: our accountant is pessimistic (an upper bound of the exact epsilon,
up to float error). Against dp-accounting's own pessimistic (connect-the-dots)
PLD on the same relation we require agreement to 1e-3 relative where its grid
resolves epsilon, and never more than that below it; on a coarse grid (1e-3)
dp-accounting is looser, and we must never be above it. At one step the exact
curve is closed form, and at ``q = 1`` the composition is exactly GDP.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import optimize

from dp_accounting.pld import privacy_loss_mechanism
from dp_accounting.pld import privacy_loss_distribution as dpa_pld
from dp_accounting.privacy_accountant import NeighboringRelation

from skdp._backend import Backend
from skdp.audit import weakened_noise
from skdp.privacy import Budget, PrivacyLedger, Release
from skdp.privacy.ledger import gdp_to_approx_dp, zcdp_to_approx_dp
from skdp.privacy.pld import (compose_gaussian_parts, subsampled_gaussian_delta,
                              subsampled_gaussian_epsilon, subsampled_gaussian_sigma)

DELTA = 1e-5
RATES = [0.001, 0.01, 0.1]
MULTIPLIERS = [0.8, 1.0, 2.0, 5.0]
STEPS = [1, 10, 100, 1000]
TOL = 1e-3


def _dpa_pld(nm, q, h, relation=NeighboringRelation.REPLACE_ONE):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dpa_pld.from_gaussian_mechanism(nm, sampling_prob=q, neighboring_relation=relation,
                                               value_discretization_interval=h)


def _dpa_epsilon(nm, q, steps, h, relation=NeighboringRelation.REPLACE_ONE):
    return _dpa_pld(nm, q, h, relation).self_compose(steps).get_epsilon_for_delta(DELTA)


def _exact_single_step(nm, q):
    """Exact epsilon of one step: the closed-form hockey-stick curve (dp-accounting's)."""
    loss = privacy_loss_mechanism.GaussianPrivacyLoss(
        nm, sampling_prob=q, adjacency_type=privacy_loss_mechanism.AdjacencyType.REPLACE)
    return optimize.brentq(lambda e: loss.get_delta_for_epsilon(e) - DELTA, 0.0, 100.0,
                           xtol=1e-13)


# --- the accountant -----------------------------------------------------------
@pytest.mark.parametrize("q", RATES + [1.0])
@pytest.mark.parametrize("nm", MULTIPLIERS)
def test_single_step_is_the_exact_curve_from_above(q, nm):
    """One step: exact (closed form) <= ours <= exact + one grid gap (1e-4)."""
    exact = _exact_single_step(nm, q)
    ours = subsampled_gaussian_epsilon(nm, q, 1, DELTA)
    assert exact - 1e-9 <= ours <= exact + 1e-4


def _hockey_stick_2d(u, v, q, alphas, half_width=9.0, n=721):
    """``H_a((1-q) N(0) + q N(u) || (1-q) N(0) + q N(v))`` in the plane, by quadrature."""
    x = np.linspace(-half_width, half_width, n)
    xx, yy = np.meshgrid(x, x, indexing="ij")

    def mixture(m):
        shifted = np.exp(-((xx - m[0]) ** 2 + (yy - m[1]) ** 2) / 2) / (2 * np.pi)
        return (1 - q) * np.exp(-(xx**2 + yy**2) / 2) / (2 * np.pi) + q * shifted

    p, r = mixture(u), mixture(v)
    return np.array([np.maximum(p - a * r, 0).sum() for a in alphas]) * (x[1] - x[0]) ** 2


@pytest.mark.parametrize("q", [0.05, 0.5])
def test_opposite_full_norm_contributions_are_the_worst_case(q):
    """The theorem's reduction: any |u|, |v| <= C is dominated by v = -u, |u| = C (1-d pair)."""
    c, eps = 1.5, np.array([-1.0, 0.0, 0.5, 1.0, 2.0])
    pair = compose_gaussian_parts(subsampled=[(1 / c, q, 1)])
    bound = np.array([pair.delta(e) for e in eps])
    for u, v in [((c, 0), (-c, 0)), ((c, 0), (0, 0)), ((c, 0), (0, c)),
                 ((c, 0), (-0.5 * c, 0.3)), ((0.4 * c, 0), (-c, 0))]:
        assert np.all(_hockey_stick_2d(u, v, q, np.exp(eps)) <= bound + 1e-5)


@pytest.mark.parametrize("q", RATES)
@pytest.mark.parametrize("nm", MULTIPLIERS)
def test_never_looser_than_dp_accounting_on_a_coarse_grid(q, nm):
    """All of (q, noise multiplier, steps): at most dp-accounting's REPLACE_ONE PLD at h=1e-3."""
    base = _dpa_pld(nm, q, 1e-3)
    for steps in STEPS:
        ours = subsampled_gaussian_epsilon(nm, q, steps, DELTA)
        assert ours <= base.self_compose(steps).get_epsilon_for_delta(DELTA) * (1 + 1e-6)


@pytest.mark.parametrize("nm, q, steps, h", [
    (5.0, 0.001, 1000, 1e-5), (2.0, 0.001, 1000, 1e-5), (2.0, 0.01, 1000, 1e-4),
    (5.0, 0.01, 100, 1e-4), (5.0, 0.1, 1000, 1e-4), (2.0, 0.1, 10, 1e-4),
])
def test_matches_dp_accounting_on_a_fine_grid(nm, q, steps, h):
    """Where dp-accounting's grid resolves epsilon: within 1e-3 relative, either side."""
    ours = subsampled_gaussian_epsilon(nm, q, steps, DELTA)
    assert ours == pytest.approx(_dpa_epsilon(nm, q, steps, h), rel=TOL)


@pytest.mark.parametrize("nm", MULTIPLIERS)
@pytest.mark.parametrize("steps", STEPS)
def test_full_sampling_is_gdp_with_twice_the_clip(nm, steps):
    """q = 1 under replace-one: the sensitivity is 2C, so exactly (2 sqrt(T)/nm)-GDP."""
    exact = gdp_to_approx_dp(2.0 * math.sqrt(steps) / nm, DELTA)
    ours = subsampled_gaussian_epsilon(nm, 1.0, steps, DELTA)
    assert exact * (1 - 1e-9) <= ours <= exact * (1 + 1e-6)


@pytest.mark.parametrize("nm, q, steps", [(1.0, 0.01, 100), (2.0, 0.1, 10)])
def test_replace_one_costs_more_than_add_remove(nm, q, steps):
    """Numerics check: the replace-one pair is worse than dp-accounting's add/remove one."""
    add_remove = _dpa_epsilon(nm, q, steps, 1e-4, NeighboringRelation.ADD_OR_REMOVE_ONE)
    ours = subsampled_gaussian_epsilon(nm, q, steps, DELTA)
    assert add_remove < ours < 2.5 * add_remove


def test_delta_inverts_epsilon():
    pld = compose_gaussian_parts(subsampled=[(1.5, 0.02, 300)])
    eps = pld.epsilon(DELTA)
    assert pld.delta(eps) == pytest.approx(DELTA, rel=1e-9)
    assert subsampled_gaussian_delta(1.5, 0.02, 300, eps) == pytest.approx(DELTA, rel=1e-9)


def test_degenerate_inputs():
    assert subsampled_gaussian_epsilon(1.0, 0.0, 100, DELTA) == 0.0
    assert subsampled_gaussian_epsilon(1.0, 0.5, 0, DELTA) == 0.0
    assert subsampled_gaussian_epsilon(0.0, 0.5, 10, DELTA) == math.inf
    assert subsampled_gaussian_sigma(0.1, 10, math.inf, DELTA) == 0.0
    with pytest.raises(ValueError):
        subsampled_gaussian_epsilon(1.0, 1.5, 10, DELTA)


def test_sigma_calibration_meets_the_target_and_halved_noise_is_caught():
    """Calibrated to 1e-6 relative in epsilon; half the noise spends more than the target."""
    sigma = subsampled_gaussian_sigma(0.01, 1000, 1.0, DELTA)
    eps = subsampled_gaussian_epsilon(sigma, 0.01, 1000, DELTA)
    assert 1.0 - 1e-6 <= eps <= 1.0
    assert _dpa_epsilon(sigma, 0.01, 1000, 1e-4) == pytest.approx(1.0, rel=TOL)
    assert subsampled_gaussian_epsilon(sigma / 2, 0.01, 1000, DELTA) > 1.5


def test_ten_thousand_steps_compose():
    """Ten thousand steps compose (their speed is a benchmark's business, not a test's)."""
    eps_10 = subsampled_gaussian_epsilon(1.0, 0.01, 10, DELTA)
    eps_10k = subsampled_gaussian_epsilon(1.0, 0.01, 10_000, DELTA)
    assert math.isfinite(eps_10k) and eps_10k > eps_10


# --- the ledger ---------------------------------------------------------------
def test_ledger_composes_subsampled_parts_by_pld():
    ledger = PrivacyLedger()
    ledger.subsampled_gaussian(0.5, sigma=1.0, sampling_rate=0.01, count=600, label="step")
    ledger.subsampled_gaussian(0.5, sigma=1.0, sampling_rate=0.01, count=400, label="step")
    eps, method = ledger.spent(DELTA)
    assert method == "pld"
    assert eps == pytest.approx(subsampled_gaussian_epsilon(2.0, 0.01, 1000, DELTA), rel=1e-9)
    assert ledger.entries[0].q == 0.01 and ledger.entries[0].mu == 0.5
    assert ledger.rho == pytest.approx(1000 * 2 * 0.5**2)      # unamplified, an upper bound
    assert eps < zcdp_to_approx_dp(ledger.rho, DELTA)


def test_ledger_plain_and_full_rate_gaussians_in_one_pld():
    """A plain mu-GDP part composed with q = 1 steps: exactly GDP of the l2-summed mu."""
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, sigma=2.0, count=3)
    ledger.subsampled_gaussian(1.0, sigma=4.0, sampling_rate=1.0, count=5)
    eps, method = ledger.spent(DELTA)
    mu = math.sqrt(3 * 0.5**2 + 5 * 0.5**2)
    assert method == "pld"
    assert eps == pytest.approx(gdp_to_approx_dp(mu, DELTA), rel=1e-6)


def test_ledger_mixed_parts_split_delta():
    """Gaussian parts by PLD at delta_1, the exponential ones by their rule at delta_2."""
    ledger = PrivacyLedger()
    ledger.subsampled_gaussian(1.0, sigma=2.0, sampling_rate=0.01, count=1000)
    ledger.exponential(0.05, count=20)
    eps, method = ledger.spent(DELTA)
    assert method.startswith("pld+")
    gauss_only = subsampled_gaussian_epsilon(2.0, 0.01, 1000, DELTA)
    others = PrivacyLedger(ledger.entries[1:]).epsilon(DELTA)
    assert max(gauss_only, others) < eps < gauss_only + others + 0.5
    assert eps <= zcdp_to_approx_dp(ledger.rho, DELTA)
    ledger.approx(0.1, 1e-6)
    eps_b, method_b = ledger.spent(DELTA)
    assert method_b.startswith("basic+pld") and eps_b > eps + 0.1


def test_gaussian_only_ledger_keeps_gdp():
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, sigma=3.0, count=4)
    assert ledger.spent(DELTA)[1] == "gdp"


# --- the release path ---------------------------------------------------------
def _release(seed=0):
    return Release(Backend.from_arrays(np.zeros(1), random_state=seed), PrivacyLedger())


def test_release_records_what_it_adds():
    release = _release()
    rows = release.poisson_sample(20_000, 0.1)
    assert rows.dtype.kind == "i" and abs(rows.size - 2000) < 200
    assert np.all(np.diff(rows) > 0)
    noisy = release.subsampled_gaussian(np.zeros(4000), 1.0, 3.0, 0.1, label="gradient")
    assert np.std(noisy) == pytest.approx(3.0, rel=0.05)
    (entry,) = release.ledger.entries
    assert (entry.kind, entry.count, entry.mu, entry.q, entry.label) == (
        "subsampled_gaussian", 1, 1.0 / 3.0, 0.1, "gradient")
    batch = release.subsampled_gaussian_batch(1.0, 3.0, 0.1, count=2, label="steps")
    batch(np.zeros(3))
    batch(np.zeros(3))
    with pytest.raises(RuntimeError):
        batch(np.zeros(3))
    assert release.ledger.entries[-1].count == 2


def test_weakened_noise_covers_the_subsampled_release():
    with weakened_noise(10.0) as draws:
        release = _release()
        release.poisson_sample(100, 0.5)
        noisy = release.subsampled_gaussian(np.zeros(4000), 1.0, 3.0, 0.5, label="g")
    assert np.std(noisy) == pytest.approx(0.3, rel=0.05)
    assert draws == ["geometric", "standard_normal"]


def test_budget_admits_steps_within_epsilon_and_refuses_one_more():
    steps, q, sigma = 200, 0.02, 2.0
    target = subsampled_gaussian_epsilon(sigma, q, steps, DELTA)
    release = _release()
    budget = Budget(target, DELTA, rho=0.1, release=release)
    for _ in range(steps):
        budget.poisson_sample(500, q)
        budget.subsampled_gaussian(np.zeros(2), 1.0, sigma, q, label="step")
    assert release.ledger.epsilon(DELTA) <= target
    with pytest.raises(RuntimeError, match="overspend"):
        budget.subsampled_gaussian(np.zeros(2), 1.0, sigma, q, label="step")
    with pytest.raises(RuntimeError, match="overspend"):     # the zCDP filter is closed
        budget.gaussian(np.zeros(2), 1.0, 100.0, label="late")


def test_budget_batch_and_halved_noise_refused():
    sigma = 1.5
    target = subsampled_gaussian_epsilon(sigma, 0.05, 100, DELTA)
    budget = Budget(target, DELTA, rho=1.0, release=_release())
    with pytest.raises(RuntimeError, match="overspend"):
        budget.subsampled_gaussian_batch(1.0, sigma / 2, 0.05, 100, label="half")
    step = budget.subsampled_gaussian_batch(1.0, sigma, 0.05, 100, label="steps")
    assert step.sigma == sigma and budget.ledger.spent(DELTA)[0] <= target


def test_budget_shared_or_not_private():
    shared = Budget(1.0, DELTA, rho=0.5, release=_release(), exclusive=False)
    shared.subsampled_gaussian(np.zeros(2), 1.0, 4.0, 0.1, label="step")
    assert shared.spent == pytest.approx(2 * (1 / 4) ** 2)    # unamplified (2C)^2 / (2 sigma^2)
    free = Budget(math.inf, 0.0, rho=math.inf, release=_release())
    value = np.ones(2)
    assert free.subsampled_gaussian(value, 1.0, 0.0, 0.1, label="step") is value
    assert free.ledger.entries == []


def test_poisson_sample_keeps_each_row_independently_with_probability_q():
    # the gap sampler draws Geometric(q) gaps: each row is kept with probability q,
    # the count is Binomial(n, q) (mean and variance), the last row as often as the first
    release = _release(seed=3)
    n, q, reps = 50, 0.2, 4000
    kept = np.zeros(n)
    counts = []
    for _ in range(reps):
        rows = release.poisson_sample(n, q)
        assert rows.size == 0 or (rows.min() >= 0 and rows.max() < n)
        kept[rows] += 1
        counts.append(rows.size)
    assert np.abs(kept / reps - q).max() < 4 * np.sqrt(q * (1 - q) / reps)
    assert np.mean(counts) == pytest.approx(n * q, rel=0.02)
    assert np.var(counts) == pytest.approx(n * q * (1 - q), rel=0.1)
    assert release.poisson_sample(7, 1.0).tolist() == list(range(7))
    assert release.poisson_sample(7, 0.0).size == 0


@pytest.mark.parametrize("n, q", [(50, 0.01), (20_000, 0.001)])
def test_poisson_sample_at_small_rates_keeps_each_row_with_probability_q(n, q):
    # the count is Binomial(n, q) and every row kept as often (geometric gaps at every rate)
    release = _release(seed=5)
    reps = 3000
    kept = np.zeros(n)
    counts = []
    for _ in range(reps):
        rows = release.poisson_sample(n, q)
        assert rows.dtype == np.int64 and np.all(np.diff(rows) > 0)
        kept[rows] += 1
        counts.append(rows.size)
    assert np.mean(counts) == pytest.approx(n * q, rel=0.05)
    assert np.var(counts) == pytest.approx(n * q * (1 - q), rel=0.15)
    if n == 50:
        assert np.abs(kept / reps - q).max() < 4 * np.sqrt(q * (1 - q) / reps)
    else:   # the first and last halves of the rows as often as each other
        assert kept[: n // 2].sum() == pytest.approx(kept[n // 2:].sum(), rel=0.1)


@pytest.mark.parametrize("q", [3e-18, 1e-300, 5e-324])
def test_poisson_sample_never_overflows_at_tiny_rates(q):
    # issue 28: the int64 sum of Geometric(q) gaps wrapped below q ~ 3e-18 (negative or
    # huge indices) and never returned at 1e-300
    release = _release(seed=1)
    n = 2**62
    sizes = []
    for _ in range(2000):
        rows = release.poisson_sample(n, q)
        assert rows.size == 0 or (rows.min() >= 0 and rows.max() < n)
        assert np.all(np.diff(rows) > 0)
        sizes.append(rows.size)
    assert np.mean(sizes) == pytest.approx(n * q, abs=0.2 + 0.2 * n * q)
