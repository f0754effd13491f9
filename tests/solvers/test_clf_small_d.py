"""Issue 31, the classifier at n = 1e6, d = 3 (third part): the geometric-gap Poisson sampler at
every rate, a Poisson step that gathers only ``X`` and (compact) codes, and the noise calibration
that starts its fine search at a coarse grid's root. Each keeps its law, its numbers or its
guarantee; no timing here (benchmarks/RESULTS.md, "the classifier at d = 3, third part")."""

import math

import numpy as np
import pytest

from skdp import PrivateMinimaxClassifier
from skdp.privacy import PrivacyLedger, pld
from skdp.privacy.ledger import _calibrate, subsampled_noise_within
from skdp.privacy.sampling import GAP_ROWS, _geometric_gaps
from skdp.privacy.sampling import bernoulli_rows as _bernoulli_rows
from skdp.solvers.minimax.data import BLOCK_NAMES, LinearData, design_block, row_norm_block

DELTA = 1e-6


# --- the sampler ----------------------------------------------------------------------------
@pytest.mark.parametrize("n, q", [(20_000, 0.016), (3_000, 0.001), (400, 0.3)])
def test_poisson_sample_has_the_bernoulli_law(n, q):
    """Each row kept with probability q, independently: the size is Binomial(n, q) (mean,
    variance) and the inclusion counts are uniform over the rows (chi-square over 20 bins)."""
    rng = np.random.default_rng(11)
    reps = 2000
    kept, sizes = np.zeros(n), []
    for _ in range(reps):
        rows = _bernoulli_rows(rng, n, q)
        assert rows.dtype == np.int64 and np.all(np.diff(rows) > 0)
        assert rows.size == 0 or (rows[0] >= 0 and rows[-1] < n)
        kept[rows] += 1
        sizes.append(rows.size)
    mean, var = n * q, n * q * (1 - q)
    assert abs(np.mean(sizes) - mean) < 5 * math.sqrt(var / reps)
    assert np.var(sizes) == pytest.approx(var, rel=0.15)
    bins = kept.reshape(20, -1).sum(axis=1)
    expected = reps * q * n / 20
    chi2 = float(((bins - expected) ** 2 / expected).sum())
    assert chi2 < 45.3  # the 0.9995 quantile of chi-square with 19 degrees of freedom


def test_gap_sampler_never_overflows_at_the_largest_n_and_tiny_rates():
    rng = np.random.default_rng(2)
    for q in (1e-9, 3e-18, 1e-300, 5e-324):
        sizes = []
        for _ in range(300):
            rows = _bernoulli_rows(rng, GAP_ROWS, q)
            assert rows.size == 0 or (rows[0] >= 0 and rows[-1] < GAP_ROWS)
            assert np.all(np.diff(rows) > 0)
            sizes.append(rows.size)
        assert np.mean(sizes) == pytest.approx(GAP_ROWS * q, abs=0.5 + 0.3 * GAP_ROWS * q)


class _ZeroExponentials:
    """A generator whose exponentials are all 0 (probability about 2**-61 each)."""

    def standard_exponential(self, size):
        return np.zeros(size)


def test_geometric_gaps_are_at_least_one_and_capped():
    np.testing.assert_array_equal(_geometric_gaps(_ZeroExponentials(), 0.01, 5, 100), 1)
    gaps = _geometric_gaps(np.random.default_rng(0), 1e-300, 50, 1000)
    np.testing.assert_array_equal(gaps, 1000)
    gaps = _geometric_gaps(np.random.default_rng(0), 0.5, 2000, 3)
    assert gaps.min() >= 1 and gaps.max() == 3


def test_geometric_gaps_are_generator_geometric_below_a_third():
    for q in (1e-7, 0.016, 0.2, 0.33):
        np.testing.assert_array_equal(_geometric_gaps(np.random.default_rng(4), q, 5000, 2**40),
                                      np.random.default_rng(4).geometric(q, size=5000))


# --- a Poisson step's arrays --------------------------------------------------------------
def _design(lazy, clipped, center, dtype=np.float64, groups=False, n=4000, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.standard_normal((n, d)) / math.sqrt(2 * d)).astype(dtype)
    if clipped:
        X[::9] *= 4.0
    else:
        X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None].astype(dtype) * 1.01
    y = rng.integers(0, 2, n)
    g = rng.integers(0, 3, n) if groups else y
    data = LinearData(X, y, g, 2, 3 if groups else 2, 1.0, 1.0, np,
                      clipped=bool(clipped) if lazy else None)
    return data.with_center(np.full(d, 0.03, dtype=dtype)) if center else data


@pytest.mark.parametrize("lazy", [True, False])
@pytest.mark.parametrize("clipped", [True, False])
@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sample_arrays_are_the_full_arrays_rows(lazy, clipped, center, dtype):
    data = _design(lazy, clipped, center, dtype)
    full = design_block({"X": data.X, "norms": data.norms, "y": data.y_codes,
                         "group": data.group_codes}, 2, data.n_groups, 1.0)
    full["row_norm"] = row_norm_block(full, data.center, data.intercept_scale)
    idx = _bernoulli_rows(np.random.default_rng(1), data.n, 0.05)
    part = _design(lazy, clipped, center, dtype)._rows(BLOCK_NAMES, idx)
    for name in ("X", "targets", "onehot"):
        np.testing.assert_array_equal(part[name], full[name][idx])
    if clipped:
        np.testing.assert_array_equal(part["scale"], full["scale"][idx])
    else:
        assert part["scale"] is None
    # X @ center over the sample's rows: BLAS's last digit may differ from the full product's
    assert part["row_norm"].dtype == dtype
    np.testing.assert_allclose(part["row_norm"], full["row_norm"][idx],
                               rtol=4 * np.finfo(dtype).eps)


def test_a_step_keeps_no_row_array_but_the_compact_codes():
    data = _design(True, True, True, groups=True)
    data.gradient_sums(np.ones((1, 3)), np.zeros(1), np.ones(3), 0.3, 1.0,
                       rows=_bernoulli_rows(np.random.default_rng(0), data.n, 0.05))
    arrays = {k: v for k, v in vars(data).items() if isinstance(v, np.ndarray)}
    assert set(arrays) <= {"X", "y_codes", "group_codes", "center"}
    assert data._row_norm is None and data._targets is None and data._onehot is None
    y8, g8 = data._compact_codes()
    assert y8.dtype == g8.dtype == np.int8 and y8.nbytes == data.n
    np.testing.assert_array_equal(y8, data.y_codes)
    np.testing.assert_array_equal(g8, data.group_codes)


def test_many_classes_keep_their_codes_in_a_wider_type():
    n, k = 2000, 300
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((n, 2)) / 3, rng.integers(0, k, n)
    data = LinearData(X, y, y, k, k, 1.0, 1.0, np, clipped=False)
    codes, _ = data._compact_codes()
    assert codes.dtype == np.int16
    idx = np.arange(0, n, 7)
    np.testing.assert_array_equal(data._rows(("targets",), idx)["targets"],
                                  data.targets[idx])


# --- the calibration ------------------------------------------------------------------------
def _ledger_epsilon(entries, z, q, steps):
    ledger = PrivacyLedger(list(entries))
    ledger.subsampled_gaussian(1.0, z, q, count=steps)
    return ledger.spent(DELTA)[0]


@pytest.mark.parametrize("q, steps", [(0.016, 250), (0.04, 100), (0.4, 10), (0.005, 800)])
def test_calibrated_noise_meets_epsilon_and_half_of_it_fails(q, steps):
    others = PrivacyLedger()
    others.gaussian(1.4142, 30.0, label="group sizes")
    others.gaussian(0.02, 0.5, count=2, label="centre")
    z = subsampled_noise_within(others.entries, [], q, steps, 1.0, DELTA)
    assert 1.0 - 1e-6 < _ledger_epsilon(others.entries, z, q, steps) <= 1.0 - 1e-8
    assert _ledger_epsilon(others.entries, z / 2, q, steps) > 1.2


@pytest.mark.parametrize("q, steps", [(0.016, 250), (0.04, 100), (0.4, 10)])
def test_coarse_start_finds_the_plain_search_root(q, steps, monkeypatch):
    """The root found from the coarse start is the plain (unit-bracket) search's root within
    the search's tolerance (1e-9 in log z), and it takes fewer fine compositions."""
    others = PrivacyLedger()
    others.gaussian(1.4142, 30.0)
    entries = tuple(others.entries)
    calls = {"fine": 0, "coarse": 0}
    compose = pld.compose_gaussian_parts

    def counted(gaussian_mu=0.0, subsampled=(), gap_scale=1.0):
        calls["fine" if gap_scale == 1.0 else "coarse"] += 1
        return compose(gaussian_mu, subsampled, gap_scale)

    from skdp.privacy import ledger as ledger_module
    monkeypatch.setattr(ledger_module, "compose_gaussian_parts", counted)
    ledger_module._composed.cache_clear()
    z = _calibrate.__wrapped__(entries, (), q, steps, 1.0, DELTA)
    coarse_start = dict(calls)
    search = ledger_module.smallest_noise_multiplier
    monkeypatch.setattr(ledger_module, "smallest_noise_multiplier",
                        lambda excess, start, **_: search(excess, start))
    calls.update(fine=0, coarse=0)
    ledger_module._composed.cache_clear()
    plain = _calibrate.__wrapped__(entries, (), q, steps, 1.0, DELTA)
    assert calls["coarse"] == 0 and coarse_start["coarse"] > 0
    assert coarse_start["fine"] < calls["fine"]
    assert z == pytest.approx(plain, rel=3e-9)
    for noise in (z, plain):
        assert _ledger_epsilon(entries, noise, q, steps) <= 1.0 - 1e-8


def test_coarse_search_only_moves_where_the_fine_one_starts():
    def excess(s):
        return 2.0 / s - 1.0

    for coarse in (lambda s: 2.001 / s - 1.0, lambda s: 1.9 / s - 1.0, lambda s: 9.0 / s - 1.0):
        root = pld.smallest_noise_multiplier(excess, coarse=coarse)
        assert excess(root) <= 0 and root == pytest.approx(2.0, rel=3e-9)


def test_non_gaussian_ledgers_search_without_the_coarse_grid(monkeypatch):
    from skdp.privacy import ledger as ledger_module
    seen = []
    search = ledger_module.smallest_noise_multiplier

    def spy(excess, start, coarse=None, coarser=None):
        seen.append(coarse)
        return search(excess, start, coarse=coarse, coarser=coarser)

    monkeypatch.setattr(ledger_module, "smallest_noise_multiplier", spy)
    others = PrivacyLedger()
    others.exponential(0.05, label="a choice")
    z = _calibrate.__wrapped__(tuple(others.entries), (), 0.05, 40, 1.0, DELTA)
    assert seen == [None]
    assert _ledger_epsilon(others.entries, z, 0.05, 40) <= 1.0


# --- whole fits -----------------------------------------------------------------------------
def test_default_poisson_fit_spends_its_epsilon_and_repeats_with_its_seed():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120_000, 3)) / math.sqrt(6)
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    y = (X @ np.array([1.0, -1.0, 0.5]) + 0.2 * rng.standard_normal(120_000) > 0).astype(int)

    def fit():
        return PrivateMinimaxClassifier(epsilon=1.0, delta=DELTA, random_state=4).fit(
            X, y, classes=[0, 1])

    first, second = fit(), fit()
    assert first.solver_ == "dpsgd_poisson"
    np.testing.assert_array_equal(first.coef_, second.coef_)
    spent, method = first.privacy_ledger_.spent(DELTA)
    assert method == "pld" and 1.0 - 1e-6 < spent <= 1.0
    assert first.score(X[:20_000], y[:20_000]) > 0.8
