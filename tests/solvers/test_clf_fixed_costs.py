"""The classifier's fixed costs at small d (issue 31): the cheaper paths compute the same numbers.

``LinearData`` derives its per-row arrays when first read, a Poisson step gathers ``X`` and one
packed array (row norms, clip factors, codes), the Poisson sample comes from geometric gaps, integer
labels are coded by their range, and the noise calibration remembers what its trial points share.
Each is checked against the computation it replaces.
"""

import math

import numpy as np
import pytest

from skdp import PrivateMinimaxClassifier
from skdp.minimax import UNKNOWN_LABEL_MESSAGE, _label_codes
from skdp.privacy import pld
from skdp.privacy.ledger import PrivacyLedger, subsampled_noise_within
from skdp.privacy.sampling import bernoulli_rows as _bernoulli_rows
from skdp.solvers.minimax.data import (BLOCK_NAMES, LinearData, blockwise, design_block,
                                       gradient_sums_block, row_blocks, row_norm_block)


def _data(n=3000, d=4, classes=2, groups=None, clipped=True, dtype=np.float64, seed=0,
          center=True):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) / math.sqrt(2 * d)
    if clipped:
        X[::7] *= 5.0
    else:
        X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None] * 1.01
    y = rng.integers(0, classes, n)
    g = y if groups is None else rng.integers(0, groups, n)
    m = classes if groups is None else groups
    data = LinearData(X.astype(dtype), y, g, classes, m, 1.0, 1.0, np)
    return data.with_center(np.full(d, 0.02, dtype=dtype)) if center else data


def _old_gather(data, idx):
    """The arrays a step gathered before: each full per-row array, taken by ``idx``."""
    full = design_block({"X": data.X, "norms": data.norms, "y": data.y_codes,
                         "group": data.group_codes}, data.n_classes, data.n_groups,
                        data.feature_bound)
    full["row_norm"] = row_norm_block(full, data.center, data.intercept_scale)
    return {name: np.take(full[name], idx, axis=0) for name in BLOCK_NAMES}


CASES = [dict(), dict(clipped=False), dict(classes=3), dict(groups=3), dict(classes=3, groups=1),
         dict(dtype=np.float32), dict(clipped=False, dtype=np.float32), dict(center=False)]


@pytest.mark.parametrize("case", CASES)
def test_sample_gather_equals_the_full_arrays_rows(case):
    data = _data(**case)
    idx = np.sort(np.random.default_rng(1).choice(data.n, 400, replace=False))
    old, new = _old_gather(data, idx), data._rows(BLOCK_NAMES, idx)
    for name in BLOCK_NAMES:
        if name == "scale" and new[name] is None:
            assert not data.clipped and np.all(old["scale"] == 1.0)
            continue
        assert new[name].dtype == old[name].dtype
        np.testing.assert_array_equal(new[name], old[name])
    W = np.random.default_rng(2).standard_normal((data.k, data.p)).astype(data.dtype)
    b = np.full(data.k, 0.3, dtype=data.dtype)
    q = np.linspace(0.5, 1.0, data.n_groups).astype(data.dtype)
    for a, c in zip(gradient_sums_block(old, W, b, data.center, 1.0, q, 0.25, 1.4),
                    gradient_sums_block(new, W, b, data.center, 1.0, q, 0.25, 1.4)):
        np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("case", CASES[:4])
def test_lazy_per_row_arrays_equal_the_eager_design(case):
    data = _data(**case)
    full = design_block({"X": data.X, "norms": data.norms, "y": data.y_codes,
                         "group": data.group_codes}, data.n_classes, data.n_groups, 1.0)
    data._rows(BLOCK_NAMES, np.arange(5))  # builds the packed array first
    for name in ("scale", "targets", "onehot"):
        np.testing.assert_array_equal(getattr(data, name), full[name])
    np.testing.assert_array_equal(data.row_norm,
                                  row_norm_block(full, data.center, data.intercept_scale))
    np.testing.assert_array_equal(data.group_counts, full["onehot"].sum(axis=0))


def test_a_recentred_copy_does_not_read_the_old_packed_rows():
    data = _data()
    data._rows(BLOCK_NAMES, np.arange(10))
    other = data.with_center(np.full(data.p, -0.1))
    idx = np.arange(0, data.n, 3)
    np.testing.assert_array_equal(other._rows(("row_norm",), idx)["row_norm"],
                                  _old_gather(other, idx)["row_norm"])
    assert not np.array_equal(other.row_norm, data.row_norm)
    wider = data.with_intercept_scale(2.0)
    np.testing.assert_array_equal(wider._rows(("row_norm",), idx)["row_norm"],
                                  _old_gather(wider, idx)["row_norm"])


def test_subset_keeps_the_rows_arrays():
    data = _data(groups=3)
    idx = np.array([4, 1, 7, 7, 100])
    sub = data.subset(idx)
    for name in ("X", "scale", "row_norm", "targets", "onehot"):
        np.testing.assert_array_equal(getattr(sub, name), np.take(getattr(data, name), idx, 0))
    assert sub.n == 5


def test_one_block_is_the_rows_themselves():
    data = _data(n=500)
    part = data._rows(BLOCK_NAMES)
    args = (np.ones((1, data.p)), np.zeros(1), data.center, 1.0, np.ones(data.n_groups), 0.3)
    blocks = list(row_blocks(part))
    assert len(blocks) == 1
    for a, c in zip(blockwise(part, gradient_sums_block, *args),
                    gradient_sums_block(blocks[0], *args)):
        assert (a is None and c is None) or np.array_equal(a, c)


@pytest.mark.parametrize("n, q", [(10**5, 0.008), (3000, 0.01), (10**5, 0.3), (50, 0.0),
                                  (1000, 0.5)])
def test_poisson_rows_are_the_cumulative_geometric_draws(n, q):
    # issue 31 (third part): every rate draws Generator.geometric's gaps (vectorised below 1/3)
    rows = _bernoulli_rows(np.random.default_rng(5), n, q)
    rng = np.random.default_rng(5)
    if q == 0:
        assert rows.size == 0
    else:
        chunk = int(q * n + 4.0 * math.sqrt(q * n) + 16)
        parts, end = [], -1
        while end < n:
            parts.append(end + np.cumsum(rng.geometric(q, size=chunk)))
            end = int(parts[-1][-1])
        expected = np.concatenate(parts)
        np.testing.assert_array_equal(rows, expected[expected < n])
    assert rows.dtype == np.int64 and np.all(np.diff(rows) > 0)


def _searchsorted_codes(labels, values):
    return np.clip(np.searchsorted(labels, values), 0, labels.shape[0] - 1)


@pytest.mark.parametrize("labels, values", [
    (np.array([0, 1]), np.array([1, 0, 0, 1])),
    (np.array([3, 4, 5]), np.array([5, 3, 4, 4], dtype=np.int32)),
    (np.array([-1, 0, 1]), np.array([-1, 1, 0])),
    (np.array([0, 2, 5]), np.array([5, 0, 2])),          # not consecutive: searched
    (np.array([0, 1]), np.array([1, 0], dtype=np.uint8)),
])
def test_integer_labels_coded_by_range(labels, values):
    codes = _label_codes(labels, values, UNKNOWN_LABEL_MESSAGE)
    np.testing.assert_array_equal(codes, _searchsorted_codes(labels, values))
    assert codes.dtype.kind == "i"


@pytest.mark.parametrize("values", [np.array([0, 1, 2]), np.array([-1, 0]),
                                    np.array([0, 1, 2**40])])
def test_integer_labels_out_of_range_get_the_fixed_message(values):
    with pytest.raises(ValueError) as err:
        _label_codes(np.array([0, 1]), values, UNKNOWN_LABEL_MESSAGE)
    assert str(err.value) == UNKNOWN_LABEL_MESSAGE


def test_remembered_log_mgf_and_spectrum_change_no_composition():
    mu = 0.09
    pld._MEMO.clear()
    cold = [pld.compose_gaussian_parts(mu, [(z, 0.008, 500)]) for z in (1.5, 1.6)]
    assert pld._MEMO  # the Gaussian part's results were remembered ...
    pld._discretise.cache_clear()
    pld._MEMO.clear()
    warm = []
    for z in (1.5, 1.6):  # ... and reading them back gives the same distributions
        pld.compose_gaussian_parts(mu, [(z * 1.01, 0.008, 500)])
        warm.append(pld.compose_gaussian_parts(mu, [(z, 0.008, 500)]))
    for a, c in zip(cold, warm):
        assert (a.offset, a.p_inf, a.h) == (c.offset, c.p_inf, c.h)
        np.testing.assert_array_equal(a.probs, c.probs)


def test_memo_ignores_writable_arrays_and_dead_identities():
    probs = np.array([0.5, 0.5])
    calls = []
    compute = lambda: calls.append(1) or np.ones(1)  # noqa: E731
    pld._memo(probs, ("k",), compute)
    pld._memo(probs, ("k",), compute)
    assert len(calls) == 2  # writable: never remembered
    frozen = probs.copy()
    frozen.setflags(write=False)
    pld._memo(frozen, ("k",), compute)
    pld._memo(frozen, ("k",), compute)
    assert len(calls) == 3
    key = (id(frozen), "k")
    pld._MEMO[key] = (lambda: None, np.zeros(1))  # the array it was made for is gone
    assert pld._memo(frozen, ("k",), compute)[0] == 1.0 and len(calls) == 4


def test_calibration_is_the_uncached_root():
    entries = ()
    z = subsampled_noise_within(entries, [], 0.02, 200, 1.0, 1e-6)
    plain = pld.smallest_noise_multiplier(
        lambda s: pld.subsampled_gaussian_epsilon(s, 0.02, 200, 1e-6) - (1 - 1e-8),
        start=1.0 / math.sqrt(math.log1p(
            __import__("skdp.privacy.ledger", fromlist=["x"]).approx_dp_to_gdp(1.0, 1e-6) ** 2
            / (0.02 ** 2 * 200))))
    # issue 31 (third part): the calibration starts its search at a coarse grid's root, so
    # it lands elsewhere within the search's tolerance (1e-9 in log s), on the same side
    assert z == pytest.approx(plain, rel=3e-9)
    assert pld.subsampled_gaussian_epsilon(plain, 0.02, 200, 1e-6) <= 1 - 1e-8
    ledger = PrivacyLedger()
    ledger.subsampled_gaussian(1.0, z, 0.02, count=200)
    assert ledger.spent(1e-6)[0] <= 1 - 1e-8


def test_array_api_strict_sample_gather_equals_numpy():
    xps = pytest.importorskip("array_api_strict")
    data = _data(groups=3, center=False)
    strict = LinearData(xps.asarray(data.X), xps.asarray(data.y_codes),
                        xps.asarray(data.group_codes), 2, 3, 1.0, 1.0, xps)
    idx = np.sort(np.random.default_rng(3).choice(data.n, 300, replace=False))
    new = strict._rows(BLOCK_NAMES, xps.asarray(idx))
    old = _old_gather(data, idx)
    for name in BLOCK_NAMES:
        np.testing.assert_allclose(np.asarray(new[name]), old[name], rtol=1e-15)


def test_default_fit_on_data_within_the_bound_skips_the_clip_factors():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120_000, 3)) / 3.0
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None] * 1.001
    y = (X[:, 0] > 0).astype(int)
    clf = PrivateMinimaxClassifier(random_state=0).fit(X, y, classes=[0, 1])
    assert clf.solver_ == "dpsgd_poisson" and clf.score(X[:5000], y[:5000]) > 0.9
