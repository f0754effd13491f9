"""The graphical-model histogram player (skdp/solvers/synth/graphical.py, junction_tree.py).

Small random models (3-6 columns, cardinalities 2-5) are checked against their dense joint:
exact marginals by belief propagation and variable elimination, estimation from noiseless
marginals, forward sampling; the junction tree's structure; and one wide model (15 columns,
about 1e19 cells) is estimated and sampled without materialising its domain.
"""

import itertools
import math
import tracemalloc

import numpy as np
import pytest

from skdp.solvers.synth.graphical import (
    GraphicalModel, Measurement, estimate, junction_tree, model_size, rounded_counts)


def _random_cliques(rng, d):
    """A few random cliques of 1-3 columns over ``d`` columns (a cycle possible)."""
    k = int(rng.integers(2, d + 1))
    return [tuple(sorted(rng.choice(d, size=int(rng.integers(1, 4)), replace=False).tolist()))
            for _ in range(k)]


def _random_model(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(3, 7))
    shape = tuple(int(s) for s in rng.integers(2, 6, size=d))
    cliques = list(dict.fromkeys(_random_cliques(rng, d)))
    potentials = {c: rng.normal(scale=1.5, size=[shape[i] for i in c]) for c in cliques}
    return shape, potentials


def _dense(shape, potentials):
    """The normalised dense joint of exp(sum of potentials)."""
    log = np.zeros(shape)
    cols = tuple(range(len(shape)))
    for c, theta in potentials.items():
        log = log + theta.reshape([shape[i] if i in c else 1 for i in cols])
    p = np.exp(log - log.max())
    return p / p.sum()


def _dense_marginal(joint, cols):
    other = tuple(i for i in range(joint.ndim) if i not in cols)
    m = joint.sum(axis=other)
    return np.transpose(m, [sorted(cols).index(c) for c in cols])


def _running_intersection(tree):
    """Every column's cliques form a connected subtree of the junction tree."""
    for col in set().union(*tree.cliques):
        holders = {k for k, c in enumerate(tree.cliques) if col in c}
        tops = [k for k in holders if tree.parent[k] not in holders]
        if len(tops) != 1:
            return False
    return True


@pytest.mark.parametrize("seed", range(12))
def test_marginals_match_dense(seed):
    shape, potentials = _random_model(seed)
    model = GraphicalModel(shape, potentials, total=1.0)
    joint = _dense(shape, potentials)
    for clique in model.cliques:
        np.testing.assert_allclose(model.marginal(clique), _dense_marginal(joint, clique),
                                   atol=1e-10, rtol=0)
    d = len(shape)
    for cols in list(itertools.combinations(range(d), 2)) + [(d - 1, 0), (0, 1, d - 1)]:
        np.testing.assert_allclose(model.marginal(cols), _dense_marginal(joint, cols),
                                   atol=1e-10, rtol=0)
    assert _running_intersection(model.tree)


@pytest.mark.parametrize("seed, accelerate", [(0, True), (1, True), (2, True), (3, True),
                                              (4, False)])
def test_noiseless_estimate_reproduces_marginals(seed, accelerate):
    shape, potentials = _random_model(100 + seed)
    joint = _dense(shape, potentials)
    n = 1000.0
    measured = list(potentials) + [(i,) for i in range(len(shape))]
    measurements = [Measurement(c, n * _dense_marginal(joint, c).ravel(), 1.0)
                    for c in dict.fromkeys(measured)]
    model = estimate(shape, measurements, n_iter=3000, accelerate=accelerate)
    assert model.total == pytest.approx(n)
    for m in measurements:
        np.testing.assert_allclose(model.marginal(m.cols).ravel(), m.values / n, atol=1e-4)


def test_warm_start_and_progress():
    shape, potentials = _random_model(7)
    joint = _dense(shape, potentials)
    ms = [Measurement(c, 500 * _dense_marginal(joint, c).ravel(), 2.0) for c in potentials]
    calls = []
    first = estimate(shape, ms[:1], n_iter=200)
    second = estimate(shape, ms, n_iter=200, warm_start=first,
                      progress=lambda i, n, loss: calls.append((i, loss)))
    assert 1 <= len(calls) <= 21
    assert set(first.potentials) <= set(second.potentials)
    cold = estimate(shape, ms, n_iter=0)
    assert second.loss < cold.loss


def test_inputs_checked_and_axes_ordered():
    with pytest.raises(ValueError, match="ascending"):
        Measurement((1, 0), np.ones(4), 1.0)
    with pytest.raises(ValueError, match="sigma"):
        Measurement((0,), np.ones(2), 0.0)
    with pytest.raises(ValueError, match="expected 6"):
        estimate((2, 3), [Measurement((0, 1), np.ones(5), 1.0)])
    shape, potentials = _random_model(5)
    model = GraphicalModel(shape, potentials)
    with pytest.raises(ValueError, match="distinct"):
        model.marginal((0, 0))
    np.testing.assert_allclose(model.marginal((2, 0)), model.marginal((0, 2)).T, atol=1e-14)
    assert model.marginal(()) == pytest.approx(1.0)


def test_total_is_inverse_variance_weighted():
    ms = [Measurement((0,), np.array([40.0, 60.0]), 1.0),   # sum 100, variance 2
          Measurement((1,), np.array([50.0, 60.0]), 2.0)]   # sum 110, variance 8
    model = estimate((2, 2), ms, n_iter=1)
    assert model.total == pytest.approx((100 / 2 + 110 / 8) / (1 / 2 + 1 / 8))
    assert estimate((2, 2), ms, total=7.0, n_iter=1).total == 7.0


def test_no_measurement_is_uniform_and_the_total_can_be_measured():
    model = estimate((2, 3), [], cliques=[(0, 1)])
    assert model.total == 1.0 and model.cliques == [(0, 1)]
    np.testing.assert_allclose(model.marginal((0, 1)), np.full((2, 3), 1 / 6))
    ms = [Measurement((), [100.0], 1.0), Measurement((1,), [10.0, 20.0, 70.0], 1.0)]
    model = estimate((2, 3), ms)
    assert model.total == pytest.approx(100.0)
    np.testing.assert_allclose(model.project_counts((1,)), [10.0, 20.0, 70.0], atol=1e-6)
    np.testing.assert_allclose(model.marginal((0,)), [0.5, 0.5], atol=1e-12)


def test_sampling_matches_marginals():
    shape, potentials = _random_model(3)
    model = GraphicalModel(shape, potentials)
    n = 200_000
    x = model.sample(n, np.random.default_rng(0), chunk=30_000)
    assert x.shape == (n, len(shape)) and x.dtype == np.int64
    for clique in model.cliques + [(0, len(shape) - 1)]:
        p = model.marginal(clique).ravel()
        idx = np.ravel_multi_index(tuple(x[:, c] for c in clique), [shape[c] for c in clique])
        freq = np.bincount(idx, minlength=p.size) / n
        sd = np.sqrt(p * (1 - p) / n)
        assert np.all(np.abs(freq - p) <= 4 * sd + 1e-12), clique


def test_rounded_sample_keeps_clique_counts_within_rows():
    """Systematic rounding: the root clique's counts are n p rounded (within one row)."""
    shape, potentials = _random_model(3)
    model = GraphicalModel(shape, potentials)
    n = 5_000
    x = model.sample(n, np.random.default_rng(2))
    root = model.cliques[model.tree.order[0]]
    idx = np.ravel_multi_index(tuple(x[:, c] for c in root), [shape[c] for c in root])
    counts = np.bincount(idx, minlength=model.marginal(root).size)
    assert np.all(np.abs(counts - n * model.marginal(root).ravel()) < 1.0 + 1e-9)


def test_rounded_counts_are_unbiased_and_sum_to_the_size():
    rng = np.random.default_rng(0)
    cond = rng.dirichlet(np.ones(5), size=3)
    sizes = np.array([7, 0, 40])
    draws = np.array([rounded_counts(sizes, cond, rng) for _ in range(4000)])
    assert np.all(draws.sum(axis=2) == sizes)
    expected = sizes[:, None] * cond
    assert np.all((draws >= np.floor(expected) - 1e-9) & (draws <= np.ceil(expected) + 1e-9))
    np.testing.assert_allclose(draws.mean(axis=0), expected, atol=0.05)


def test_structure_of_chain_tree_cycle():
    shape = (2, 3, 4, 5, 2)
    chain = junction_tree(shape, [(0, 1), (1, 2), (2, 3), (3, 4)])
    assert set(chain.cliques) == {(0, 1), (1, 2), (2, 3), (3, 4)}
    star = junction_tree(shape, [(0, 1), (0, 2), (0, 3), (3, 4)])
    assert set(star.cliques) == {(0, 1), (0, 2), (0, 3), (3, 4)}
    cycle = junction_tree(shape, [(0, 1), (1, 2), (2, 3), (0, 3)])
    assert len(cycle.cliques) == 3  # the 4-cycle gets one chord; column 4 stands alone
    assert sorted(len(c) for c in cycle.cliques) == [1, 3, 3]
    assert (4,) in cycle.cliques
    for tree in (chain, star, cycle):
        assert _running_intersection(tree)
        assert sorted(tree.order) == list(range(len(tree.cliques)))
        for k, p in enumerate(tree.parent):
            if p >= 0:
                assert set(tree.separators[k]) == set(tree.cliques[k]) & set(tree.cliques[p])


@pytest.mark.parametrize("seed", range(20))
def test_model_size_and_running_intersection(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(3, 9))
    shape = tuple(int(s) for s in rng.integers(2, 6, size=d))
    cliques = _random_cliques(rng, d)
    tree = junction_tree(shape, cliques)
    assert _running_intersection(tree)
    assert model_size(shape, cliques) == sum(math.prod(shape[c] for c in cl) for cl in tree.cliques)
    assert set().union(*tree.cliques) == set(range(d))
    for cl in cliques:  # every input clique lies in a maximal clique
        assert any(set(cl) <= set(m) for m in tree.cliques)


def _wide_case(d, seed=7):
    """A d-column domain (sizes 2-40), 1-way marginals and a chain of d-1 2-way ones."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(2, 41, size=d))
    chain = GraphicalModel(shape, {(i, i + 1): rng.normal(size=(shape[i], shape[i + 1]))
                                   for i in range(d - 1)}, total=50_000)
    sets = [(i,) for i in range(d)] + [(i, i + 1) for i in range(d - 1)]
    sigma = 5.0
    ms = [Measurement(c, chain.project_counts(c).ravel() + rng.normal(scale=sigma, size=math.prod(
        shape[i] for i in c)), sigma) for c in sets]
    return shape, ms, chain


def test_wide_model_without_dense_domain():
    shape, ms, truth = _wide_case(15)
    assert math.prod(shape) > 1e17
    model = estimate(shape, ms, n_iter=500)  # its time: benchmarks/synth_scaling.py
    tv = [0.5 * np.abs(model.marginal(m.cols) - truth.marginal(m.cols)).sum() for m in ms]
    assert np.mean(tv) < 0.02
    tracemalloc.start()  # memory of a (short) fit and of sampling: no array of the domain's size
    estimate(shape, ms, n_iter=5, warm_start=model)
    x = model.sample(50_000, np.random.default_rng(1))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert x.shape == (50_000, 15) and peak < 100e6


def test_per_cell_sigma_weighs_each_cell():
    """A merged cell measured with sd sigma sqrt(k) counts for 1/k of a plain cell."""
    plain = Measurement((0,), [60.0, 40.0], 1.0)
    loud = Measurement((0,), [40.0, 60.0], np.array([1.0, 3.0]))
    model = estimate((2,), [plain, loud], total=100.0)
    # x = mu_0 minimises 2 (x - 60)^2 + (1 + 1/9) (x - 40)^2 (mu_1 = 100 - x): x = 2960 / 56
    counts = model.project_counts((0,))
    assert counts[0] == pytest.approx(2960 / 56, abs=1e-3)
    with pytest.raises(ValueError, match="one per cell"):
        Measurement((0,), [1.0, 2.0], np.array([1.0, 1.0, 1.0]))
