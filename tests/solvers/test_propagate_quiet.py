"""Structural zeros in the junction tree's log-space messages raise no warning.

A separator cell of probability 0 gives ``-inf - (-inf)`` in ``propagate``'s downward pass;
with ``zeros=True`` that cell is set to ``-inf`` right after, so the NaN is never read and no
``RuntimeWarning`` may reach the user (the reserved-table check saw hundreds of them on stderr,
issue 30). Without ``zeros`` a NaN still warns.
"""

import warnings

import numpy as np

from skdp.solvers.synth import junction_tree as jt


def _zero_separator():
    """Cliques (0, 1) and (1, 2); value 1 of column 1 is impossible."""
    shape = (2, 2, 2)
    tree = jt.junction_tree(shape, [(0, 1), (1, 2)])
    psi = [np.zeros([shape[c] for c in cl]) for cl in tree.cliques]
    for p, cl in zip(psi, tree.cliques):
        index = [slice(None)] * len(cl)
        index[cl.index(1)] = 1
        p[tuple(index)] = -np.inf
    return shape, tree, psi


def test_zeros_propagate_without_warning_and_exactly():
    shape, tree, psi = _zero_separator()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        beliefs = jt.propagate(tree, psi, jt.message_plan(tree, shape), zeros=True)
    for b in beliefs:  # column 1 is always 0; columns 0 and 2 are fair coins
        assert not np.isnan(b).any() and np.isfinite(b).sum() == 2
        np.testing.assert_allclose(np.exp(b), 0.5 * np.isfinite(b), atol=1e-12)
