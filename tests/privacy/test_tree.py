"""Binary-tree noise: node counts, unbiasedness, the variance formula, accounting."""

import math

import numpy as np
import pytest

import dp_accounting
from dp_accounting.rdp import rdp_privacy_accountant as dpa_rdp

from skdp._backend import Backend
from skdp.privacy.ledger import PrivacyLedger, zcdp_to_approx_dp
from skdp.privacy.budget import Budget
from skdp.privacy.release import Release
from skdp.privacy.own_noise import drawing_from
from skdp.privacy.tree import (TreeAggregator, TreeMechanism, max_nodes_per_leaf,
                               node_decomposition, nodes_per_leaf, tree_rho, tree_sigma)


def _released_nodes(horizon):
    return {node for t in range(1, horizon + 1) for node in node_decomposition(t)}


def _contains(node, i):
    level, index = node
    return (index - 1) << level < i <= index << level


@pytest.mark.parametrize("horizon", [1, 2, 3, 7, 8, 13, 64, 120])
def test_node_count_per_leaf_is_exact(horizon):
    nodes = _released_nodes(horizon)
    for i in range(1, horizon + 1):
        brute = sum(_contains(node, i) for node in nodes)
        assert nodes_per_leaf(i, horizon) == brute
    most = max(nodes_per_leaf(i, horizon) for i in range(1, horizon + 1))
    assert most == max_nodes_per_leaf(horizon)
    # the same depth as dp-accounting's single-epoch tree aggregation
    assert max_nodes_per_leaf(horizon) == math.ceil(math.log2(horizon + 1))
    # paper 003 Lemma 4.3: floor(log2 T) + 1, sharper than 1 + ceil(log2 T) for non powers of two
    assert max_nodes_per_leaf(horizon) == math.floor(math.log2(horizon)) + 1


def test_decomposition_covers_the_prefix_exactly():
    for t in range(1, 200):
        leaves = [i for i in range(1, t + 1) for node in node_decomposition(t)
                  if _contains(node, i)]
        assert sorted(leaves) == list(range(1, t + 1))
        assert len(node_decomposition(t)) == bin(t).count("1")


def test_prefix_sums_without_noise_are_exact():
    rng = np.random.default_rng(0)
    values = rng.normal(size=(37, 3))
    tree = TreeAggregator((3,), sigma=0.0, horizon=37, backend=Backend.from_arrays(values))
    out = np.array([tree.add(v) for v in values])
    np.testing.assert_allclose(out, np.cumsum(values, axis=0))
    with pytest.raises(ValueError, match="37 elements"):
        tree.add(values[0])


def _noise_matrix(sigma, horizon, dim, seed=0):
    tree = TreeAggregator((dim,), sigma=sigma, horizon=horizon,
                          backend=Backend.from_arrays(np.zeros(1), random_state=seed))
    return np.array([tree.add(np.zeros(dim)) for _ in range(horizon)])  # (T, dim)


def test_tree_noise_unbiased_with_the_variance_formula():
    sigma, horizon, dim = 1.5, 23, 40_000
    noise = _noise_matrix(sigma, horizon, dim)
    popcount = np.array([bin(t).count("1") for t in range(1, horizon + 1)])
    # coordinates are independent replications: mean 0, variance sigma^2 popcount(t)
    se_mean = sigma * np.sqrt(popcount / dim)
    assert np.all(np.abs(noise.mean(axis=1)) < 4.5 * se_mean)
    ratio = noise.var(axis=1) / (sigma**2 * popcount)
    assert np.all(np.abs(ratio - 1) < 0.04)  # sd of the ratio is sqrt(2/dim) = 0.7%
    # covariance of two prefixes is sigma^2 |NODE(t) & NODE(t')|
    for t, u in [(6, 7), (8, 12), (15, 16), (3, 23)]:
        shared = len(set(node_decomposition(t)) & set(node_decomposition(u)))
        cov = np.mean(noise[t - 1] * noise[u - 1])
        assert cov == pytest.approx(sigma**2 * shared, abs=0.06 * sigma**2 * 4)


def test_halving_the_tree_noise_is_detected():
    sigma, horizon, dim = 1.0, 8, 20_000
    half = _noise_matrix(sigma / 2, horizon, dim)
    popcount = np.array([bin(t).count("1") for t in range(1, horizon + 1)])
    ratio = half.var(axis=1) / (sigma**2 * popcount)
    assert np.all(np.abs(ratio - 1) > 0.5)


def test_memory_is_one_open_node_per_level():
    tree = TreeAggregator((2,), sigma=1.0, horizon=1000, backend=Backend.from_arrays(np.zeros(2)))
    for _ in range(1000):
        tree.add(np.zeros(2))
        assert len(tree._nodes) <= max_nodes_per_leaf(1000)


def test_same_seed_same_noise():
    np.testing.assert_array_equal(_noise_matrix(1.0, 9, 5, seed=3),
                                  _noise_matrix(1.0, 9, 5, seed=3))
    assert not np.array_equal(_noise_matrix(1.0, 9, 5, seed=3), _noise_matrix(1.0, 9, 5, seed=4))


@pytest.mark.parametrize("horizon", [1, 10, 128, 1000])
@pytest.mark.parametrize("noise_multiplier", [0.5, 2.0, 8.0])
def test_tree_accounting_matches_dp_accounting(horizon, noise_multiplier):
    sens = 0.7
    rho = tree_rho(sens, noise_multiplier * sens, horizon)
    acc = dpa_rdp.RdpAccountant(dpa_rdp.DEFAULT_RDP_ORDERS,
                                dp_accounting.NeighboringRelation.REPLACE_SPECIAL)
    acc.compose(dp_accounting.SingleEpochTreeAggregationDpEvent(noise_multiplier, horizon))
    expected = acc.get_epsilon(1e-6)
    got = zcdp_to_approx_dp(rho, 1e-6, orders=dpa_rdp.DEFAULT_RDP_ORDERS)
    assert got == pytest.approx(expected, rel=1e-6)
    assert tree_sigma(sens, rho, horizon) == pytest.approx(noise_multiplier * sens)


def _release(seed=0):
    return Release(Backend.from_arrays(np.zeros(1), random_state=seed), PrivacyLedger())


def test_tree_mechanism_records_once_and_bounds_every_tree():
    release = _release()
    sigma = tree_sigma(0.5, 0.3, 12)
    mech = TreeMechanism.open(release, 0.5, sigma, 12, label="sums")
    (entry,) = release.ledger.entries  # one record for every tree of the partition
    assert entry.count == 1 and entry.label == "sums"
    assert entry.rho == pytest.approx(0.5**2 * max_nodes_per_leaf(12) / (2 * sigma**2))
    assert entry.rho == pytest.approx(0.3)
    for horizon in (1, 5, 12):  # shorter trees at the same sigma cost no more
        mech.aggregator((2,), horizon, release.backend)
    with pytest.raises(RuntimeError, match="costs more"):
        mech.aggregator((2,), 16, release.backend)  # one more node per leaf
    with pytest.raises(RuntimeError, match="costs more"):
        mech.aggregator((2,), 12, release.backend, sigma=sigma / 2)
    assert len(release.ledger.entries) == 1


def test_tree_mechanism_noise_comes_from_the_given_generator():
    mech = TreeMechanism.open(_release(), 1.0, 1.0, 8, label="sums")
    a = mech.aggregator((3,), 8, Backend.from_arrays(np.zeros(1), random_state=5))
    b = TreeAggregator((3,), 1.0, 8, Backend.from_arrays(np.zeros(1), random_state=5))
    for _ in range(8):
        np.testing.assert_array_equal(a.add(np.zeros(3)), b.add(np.zeros(3)))


def test_tree_mechanism_on_a_budget_is_charged_and_not_private_records_nothing():
    budget = Budget(1.0, 1e-6, 0.3, release=_release())
    TreeMechanism.open(budget, 0.5, tree_sigma(0.5, 0.3, 12), 12, label="sums")
    assert budget.spent == pytest.approx(0.3) and budget.remaining < 1e-12
    free = Budget(math.inf, 0.0, math.inf, release=_release())
    mech = TreeMechanism.open(free, 0.5, 0.0, 12, label="sums")
    assert mech.sigma == 0 and free.ledger.entries == []


def test_drawing_from_charges_the_fit_budget():
    budget = Budget(1.0, 1e-6, 0.5, release=_release())
    own = Backend.from_arrays(np.zeros(1), random_state=9)
    with drawing_from(budget, own) as sub:
        assert sub.remaining == 0.5 and sub.backend is own
        batch = sub.gaussian_batch(1.0, 2.0, 3, label="steps")
        noisy = batch(np.zeros(4))
    expected = np.random.default_rng(9).standard_normal(4) * 2.0  # the solver's own stream
    np.testing.assert_array_equal(noisy, expected)
    assert budget.spent == pytest.approx(3 / 8) and len(budget.ledger.entries) == 1
