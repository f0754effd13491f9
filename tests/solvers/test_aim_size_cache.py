"""issue 30 item 4 (third part): AIM's model-size screen remembers each component graph's
size across rounds (``state["sizes"]``); a remembered size is the junction tree's own.

The cache is keyed by the component's cardinalities and its graph's adjacency masks, which
is all ``model_size`` reads; these checks grow clique lists the way AIM's rounds do (one
clique a round, often one inside a clique already) with one cache for the whole run, and
compare every answer with a fresh ``model_size`` of every column.
"""

import numpy as np

from skdp.solvers.synth.graphical import model_size
from skdp.solvers.synth.mst_aim import _admissible, _ComponentSizes


def _clique(rng, d, most=3):
    k = int(rng.integers(1, min(most, d) + 1))
    return tuple(sorted(rng.choice(d, size=k, replace=False).tolist()))


def test_a_shared_cache_answers_as_the_whole_junction_tree():
    rng = np.random.default_rng(7)
    for _ in range(40):
        d = int(rng.integers(2, 14))
        shape = tuple(int(x) for x in rng.integers(1, 7, d))
        cliques = [(j,) for j in range(d)]
        cache = {}
        for _ in range(15):  # AIM's rounds: the clique list grows, the cache is kept
            sizes = _ComponentSizes(shape, cliques, cache)
            for _ in range(8):
                r = _clique(rng, d)
                assert sizes.with_clique(r) == model_size(shape, cliques + [r])
            cliques = cliques + [_clique(rng, d)]
        assert cache  # it was used


def test_admissible_with_and_without_the_cache_agree():
    rng = np.random.default_rng(8)
    d = 9
    shape = tuple(int(x) for x in rng.integers(2, 9, d))
    candidates = [(j,) for j in range(d)] + [(a, b) for a in range(d) for b in range(a + 1, d)]
    cliques, cache = [(j,) for j in range(d)], {}
    for t in range(12):
        limit = 200 + 150 * t
        assert _admissible(shape, cliques, candidates, limit, cache) == \
            _admissible(shape, cliques, candidates, limit)
        cliques.append(_clique(rng, d, 2))
