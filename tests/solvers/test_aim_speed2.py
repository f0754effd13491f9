"""AIM's estimation at 20 columns (issue 30 item 4, sixth part): the same sums in another
order, the same released values.

* ``graphical._marginal_plan``: every measured set's marginal, summed through intermediate
  marginals of its clique, equals the direct sum from the clique within rounding, and the
  plan reads no more cells than summing each set from its clique;
* ``graphical._clique_potentials`` along the plan (backwards) gives the clique potentials
  of one addition per theta, within rounding;
* ``junction_tree.propagate_prob`` (the downward messages divided on the separator, the
  child's sum not taken) gives beliefs summing to 1 and equal to the log-space ones;
* a fixed-seed ``aim`` fit gives the rounds, the measured marginals and the synthetic rows
  recorded with the code before this change (main at c944142).
"""

import hashlib
import math
import warnings

import numpy as np
import pytest

from skdp.solvers.synth import graphical, junction_tree as jt
from skdp.synthesizer import SaddlePointSynthesizer


def _random_sets(rng, d, k, width=3):
    return sorted({tuple(sorted(rng.choice(d, size=int(rng.integers(1, min(width, d) + 1)),
                                           replace=False).tolist())) for _ in range(k)})


def _model(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(3, 10))
    shape = tuple(int(s) for s in rng.integers(2, 6, d))
    sets = _random_sets(rng, d, int(rng.integers(2, 3 * d)))
    tree = jt.junction_tree(shape, sets)
    return rng, shape, sets, tree, graphical._layout(tree, shape, sets)


def _reads(tree, shape, plan):
    return sum(math.prod(shape[c] for c in (tree.cliques[s] if isinstance(s, int) else s[1]))
               for _, s, axes in plan if axes)


@pytest.mark.parametrize("seed", range(12))
def test_marginal_plan_sums_each_set(seed):
    rng, shape, sets, tree, layout = _model(seed)
    plan = graphical._marginal_plan(tree, shape, layout, sets)
    beliefs = [rng.random([shape[c] for c in cl]) for cl in tree.cliques]
    got = {}
    for node, source, axes in plan:
        array = beliefs[source] if isinstance(source, int) else got[source]
        got[node] = array.sum(axis=axes) if axes else array
    for cols in sets:
        k, _, axes = layout[cols]
        direct = beliefs[k].sum(axis=axes) if axes else beliefs[k]
        np.testing.assert_allclose(got[k, cols], direct, rtol=1e-12)
    direct_reads = sum(math.prod(shape[c] for c in tree.cliques[layout[c][0]])
                       for c in sets if layout[c][2])
    assert _reads(tree, shape, plan) <= direct_reads


def test_marginal_plan_reads_less_on_a_wide_clique():
    shape = (6, 5, 4, 7, 3)
    pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4), (0, 2), (1, 3), (0,), (2,)]
    tree = jt.junction_tree(shape, [tuple(range(5))] + pairs)
    layout = graphical._layout(tree, shape, pairs)
    plan = graphical._marginal_plan(tree, shape, layout, pairs)
    assert _reads(tree, shape, plan) < 0.6 * len(pairs) * math.prod(shape)


@pytest.mark.parametrize("seed", range(12))
def test_potentials_along_the_plan(seed):
    rng, shape, sets, tree, layout = _model(seed)
    theta = {c: rng.normal(size=[shape[j] for j in c]) for c in sets}
    keep = {c: v.copy() for c, v in theta.items()}
    plain = graphical._clique_potentials(tree, shape, theta, layout)
    psi = [np.full([shape[c] for c in cl], np.nan) for cl in tree.cliques]
    plan = graphical._marginal_plan(tree, shape, layout, list(layout))
    graphical._clique_potentials(tree, shape, theta, layout, psi, plan=plan)
    for a, b in zip(plain, psi):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
    for c in theta:  # the thetas are not written to
        np.testing.assert_array_equal(theta[c], keep[c])


@pytest.mark.parametrize("seed", range(8))
def test_propagate_prob_beliefs_sum_to_one(seed):
    rng, shape, sets, tree, _ = _model(100 + seed)
    plan = jt.message_plan(tree, shape)
    psi = [4.0 * rng.normal(size=[shape[c] for c in cl]) for cl in tree.cliques]
    log = jt.propagate(tree, [p.copy() for p in psi], plan)
    prob = jt.propagate_prob(tree, [p.copy() for p in psi], plan)
    for a, b in zip(log, prob):
        assert b.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(b, np.exp(a), rtol=1e-10, atol=1e-14)


# recorded with main at c944142 (before this change) by the same code
REFERENCE = {
    1.0: (15, [(0,), (1,), (2,), (3,), (4,), (5,), (6,), (7,), (0, 1), (2, 3), (5, 6), (3, 4),
               (4, 5), (6, 7), (1, 2), (3,), (6,), (4, 5), (2, 3), (5, 6), (4, 7), (2, 4),
               (0, 1)], "ec0c4211f517473e"),
    5.0: (18, [(0,), (1,), (2,), (3,), (4,), (5,), (6,), (7,), (0, 1), (5, 6), (4, 5), (3, 4),
               (6, 7), (2, 3), (1, 2), (4,), (0, 2), (5, 6), (1, 4), (6, 7), (0, 6), (0, 3),
               (3, 4), (1, 6), (4, 6), (1, 5)], "08d2c49fff57adbd"),
}


@pytest.mark.parametrize("eps", sorted(REFERENCE))
def test_aim_same_released_values(eps):
    rng = np.random.default_rng(3)
    n, cards = 3000, [3, 4, 2, 5, 3, 4, 6, 2]
    X = np.empty((n, len(cards)), dtype=np.int64)
    X[:, 0] = rng.integers(0, cards[0], n)
    for j in range(1, len(cards)):
        X[:, j] = np.where(rng.random(n) < 0.7, X[:, j - 1] % cards[j],
                           rng.integers(0, cards[j], n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SaddlePointSynthesizer(epsilon=eps, delta=1e-6, solver="aim",
                                     domain={j: list(range(k)) for j, k in enumerate(cards)},
                                     random_state=7).fit(X)
        Y = np.asarray(est.sample(), dtype=np.int64)
    rounds, measured, digest = REFERENCE[eps]
    assert est.solver_info_["rounds"] == rounds
    assert [tuple(m["marginal"]) for m in est.measurements_] == measured
    assert hashlib.sha256(Y.tobytes()).hexdigest()[:16] == digest
