"""AIM's speed at 20-30 columns (issue 30 item 4, fourth part): the faster paths give the
numbers of the slower ones.

* ``junction_tree._min_fill_masks`` recomputes only the elimination costs that can change:
  the same cliques as the full recomputation (the old code, copied here) on random graphs;
* ``GraphicalModel.pair_counts`` (one sweep of the tree per column) equals
  ``project_counts`` (log-space variable elimination per pair) within rounding, also with
  empty separators, structural zeros and more columns than einsum has labels;
* ``junction_tree.propagate_prob`` (sum-product in probability space) equals ``propagate``
  within rounding, and says when it cannot (a message that underflows), where the
  estimation falls back to log space;
* ``estimate(..., probability=True)`` reaches the same model as the log-space loss.
"""

import itertools
import math

import numpy as np
import pytest

from skdp.solvers.synth import graphical, junction_tree as jt
from skdp.solvers.synth.graphical import GraphicalModel, Measurement, estimate
from skdp.solvers.synth.mst_aim import _ComponentSizes, _model_counts


def _old_min_fill(shape, adj):
    """The min-fill elimination before this change (every touched cost recomputed)."""
    masks = [sum(1 << b for b in a) for a in adj]

    def fill(v):
        nbs, missing, rest = masks[v], 0, masks[v]
        while rest:
            low = rest & -rest
            missing += (nbs & ~masks[low.bit_length() - 1] & ~low).bit_count()
            rest ^= low
        return missing // 2

    def cost(u):
        return (fill(u), math.prod(shape[w] for w in jt._bits(masks[u])) * shape[u], u)

    costs = {v: cost(v) for v in range(len(shape))}
    cliques = []
    while costs:
        v = min(costs, key=costs.__getitem__)
        nbs = masks[v]
        cliques.append(nbs | (1 << v))
        del costs[v]
        touched = nbs
        for a in jt._bits(nbs):
            masks[a] = (masks[a] | nbs) & ~((1 << a) | (1 << v))
            touched |= masks[a]
        for u in jt._bits(touched):
            costs[u] = cost(u)
    maximal = [c for c in cliques if not any(c != o and c & o == c for o in cliques)]
    return [frozenset(jt._bits(c)) for c in maximal]


def _random_cliques(rng, d, k, width=3):
    return [tuple(sorted(rng.choice(d, size=int(rng.integers(1, min(width, d) + 1)),
                                    replace=False).tolist())) for _ in range(k)]


def test_min_fill_same_cliques_as_full_recomputation():
    rng = np.random.default_rng(0)
    for _ in range(600):
        d = int(rng.integers(1, 31))
        shape = [int(s) for s in rng.choice([2, 3, 5, 10, 20, 40], size=d)]
        cliques = _random_cliques(rng, d, int(rng.integers(0, 3 * d + 1)))
        adj = jt._graph(d, cliques)
        assert jt._min_fill_cliques(shape, adj) == _old_min_fill(shape, adj)


def test_component_sizes_match_model_size():
    rng = np.random.default_rng(1)
    for _ in range(100):
        d = int(rng.integers(2, 25))
        shape = tuple(int(s) for s in rng.integers(2, 12, d))
        cliques = [(j,) for j in range(d)] + _random_cliques(rng, d, int(rng.integers(0, 2 * d)),
                                                             width=2)
        sizes = _ComponentSizes(shape, cliques)
        for r in itertools.islice(itertools.combinations(range(d), 2), 30):
            assert sizes.with_clique(r) == graphical.model_size(shape, cliques + [r])


def _random_model(rng, d, k, zeros=None, scale=2.0):
    shape = tuple(int(s) for s in rng.integers(2, 6, d))
    cliques = set(_random_cliques(rng, d, k))
    potentials = {c: scale * rng.normal(size=[shape[j] for j in c]) for c in cliques}
    return GraphicalModel(shape, potentials, total=1000.0, zeros=zeros)


def _apart(model):
    return [p for p in itertools.combinations(range(len(model.shape)), 2)
            if jt.host_clique(model.cliques, p) is None]


@pytest.mark.parametrize("seed", range(8))
def test_pair_counts_equal_project_counts(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(3, 20))
    model = _random_model(rng, d, int(rng.integers(1, 2 * d)))  # often several components
    pairs = _apart(model)
    got = model.pair_counts(pairs)
    assert sorted(got) == sorted(pairs)
    for p in pairs:
        np.testing.assert_allclose(got[p], model.project_counts(p).ravel(), rtol=1e-10,
                                   atol=1e-9)


def test_pair_counts_more_columns_than_einsum_labels():
    rng = np.random.default_rng(3)
    d = 70
    chain = {(j, j + 1): rng.normal(size=(2, 2)) for j in range(d - 1)}
    model = GraphicalModel((2,) * d, chain, total=50.0)
    pairs = [(0, 69), (5, 60), (30, 32)]
    got = model.pair_counts(pairs)
    for p in pairs:
        np.testing.assert_allclose(got[p], model.project_counts(p).ravel(), rtol=1e-10)


def test_pair_counts_with_structural_zeros():
    shape = (3, 3, 3)
    mask = np.zeros((3, 3), dtype=bool)
    mask[0, :] = True  # column 1 never takes code 0 (with any value of column 0)
    potentials = {(0, 1): np.log(np.arange(1.0, 10.0).reshape(3, 3)),
                  (1, 2): np.log(np.arange(9.0, 0.0, -1.0).reshape(3, 3))}
    model = GraphicalModel(shape, potentials, total=100.0, zeros={(1,): mask[:, 0]})
    got = model.pair_counts([(0, 2)])[(0, 2)]
    np.testing.assert_allclose(got, model.project_counts((0, 2)).ravel(), rtol=1e-10)
    with pytest.raises(ValueError, match="share a clique"):
        model.pair_counts([(0, 1)])


def test_model_counts_every_candidate():
    rng = np.random.default_rng(4)
    model = _random_model(rng, 9, 8)
    marginals = [(j,) for j in range(9)] + list(itertools.combinations(range(9), 2)) + \
        [(0, 1, 2)]
    got = _model_counts(model, marginals)
    for r in marginals:
        np.testing.assert_allclose(got[r], model.project_counts(r).ravel(), rtol=1e-10,
                                   atol=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_propagate_prob_equals_log_space(seed):
    rng = np.random.default_rng(10 + seed)
    d = int(rng.integers(2, 15))
    shape = tuple(int(s) for s in rng.integers(2, 7, d))
    cliques = sorted(set(_random_cliques(rng, d, int(rng.integers(1, 2 * d)))))
    tree = jt.junction_tree(shape, cliques)
    plan = jt.message_plan(tree, shape)
    psi = [5.0 * rng.normal(size=[shape[c] for c in cl]) for cl in tree.cliques]
    log = jt.propagate(tree, [p.copy() for p in psi], plan)
    prob = jt.propagate_prob(tree, [p.copy() for p in psi], plan)
    for a, b in zip(log, prob):
        np.testing.assert_allclose(b, np.exp(a), rtol=1e-10, atol=1e-14)


def _underflow():
    """Column 1 is 0 or 1 with weights e^-800 from one clique and e^-800 from the other:
    probability space multiplies two zeros."""
    shape = (2, 2, 2)
    theta = {(0, 1): np.array([[0.0, -800.0], [0.0, -800.0]]),
             (1, 2): np.array([[-800.0, -800.0], [0.0, 0.0]])}
    return shape, theta


def test_propagate_prob_says_when_a_message_vanishes():
    shape, theta = _underflow()
    tree = jt.junction_tree(shape, list(theta))
    plan = jt.message_plan(tree, shape)
    psi = [theta[c].copy() for c in tree.cliques]
    assert jt.propagate_prob(tree, psi, plan) is None
    # the objective falls back to log space: the same loss as without the flag
    ms = [Measurement((0, 1), np.array([10.0, 20.0, 30.0, 40.0]), 1.0),
          Measurement((1, 2), np.array([5.0, 45.0, 25.0, 25.0]), 1.0)]
    groups = graphical._group(ms, shape)
    layout = graphical._layout(tree, shape, theta)
    plain = graphical._Objective(shape, tree, groups, 100.0, layout)(theta)
    fast = graphical._Objective(shape, tree, groups, 100.0, layout, probability=True)(theta)
    assert math.isfinite(fast[0]) and fast[0] == pytest.approx(plain[0], rel=1e-12)


def test_estimate_probability_space_same_model():
    rng = np.random.default_rng(5)
    shape = (4, 3, 5, 2, 3)
    truth = rng.dirichlet(np.ones(math.prod(shape))).reshape(shape) * 1000
    ms = []
    for cols in [(0,), (1,), (2,), (3,), (4,), (0, 1), (1, 2), (2, 3), (0, 4)]:
        other = tuple(a for a in range(5) if a not in cols)
        exact = truth.sum(axis=other).ravel()
        ms.append(Measurement(cols, exact + rng.normal(scale=3.0, size=exact.size), 3.0))
    a = estimate(shape, ms, total=1000.0, n_iter=200)
    b = estimate(shape, ms, total=1000.0, n_iter=200, probability=True)
    assert b.loss == pytest.approx(a.loss, rel=1e-9)
    for x, y in zip(a.beliefs, b.beliefs):
        np.testing.assert_allclose(y, x, atol=1e-8)
