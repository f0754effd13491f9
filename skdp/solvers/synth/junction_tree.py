"""Junction trees over the columns of a table, and log-space factors on them.

The junction tree of a set of cliques (McKenna, Sheldon, Miklau 2019,
"Graphical-model based estimation and inference for differential privacy",
§4, and the standard construction of Koller and Friedman 2009, ch. 10):

1. the graph whose nodes are all the columns and whose edges join columns
   that share a clique;
2. a greedy min-fill elimination order (ties broken by the eliminated
   clique's number of cells, then by column index) triangulates it; the
   elimination cliques that are not contained in another are the maximal
   cliques of the chordal graph;
3. a maximum-weight spanning tree of the maximal cliques, the weight of a
   pair being the size of its intersection (its separator), is a junction
   tree: it has the running intersection property. Cliques with no column in
   common are joined by an empty separator, so the tree is always connected.

Building the tree touches only column indices and cardinalities, never an
array of the model's size: :func:`model_size` is cheap enough to screen
every candidate of a selection round.

:func:`propagate` is log-space sum-product belief propagation on the tree
(two passes; Koller and Friedman 2009, §10.2-10.3): it returns every clique's
exact marginal of ``p ∝ exp(sum of the clique potentials)``.
"""

from dataclasses import dataclass
import math

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree

from .factor import logsumexp

__all__ = ["JunctionTree", "junction_tree", "model_size", "message_plan", "propagate",
           "propagate_prob", "host_clique"]


@dataclass(frozen=True)
class JunctionTree:
    """A junction tree: maximal cliques, a rooted spanning tree, its separators.

    Attributes
    ----------
    cliques : tuple of tuple of int
        The maximal cliques of the triangulated graph, each sorted.
    parent : tuple of int
        ``parent[i]`` is the clique joined to clique ``i`` towards the root
        (``-1`` for the root, clique 0).
    order : tuple of int
        The cliques in breadth-first order from the root (parents first).
    separators : tuple of tuple of int
        ``separators[i]`` is ``cliques[i] & cliques[parent[i]]`` (sorted;
        empty for the root).

    Examples
    --------
    >>> tree = junction_tree((2, 2, 2), [(0, 1), (1, 2)])
    >>> tree.cliques, tree.parent, tree.separators
    (((0, 1), (1, 2)), (-1, 0), ((), (1,)))
    """

    cliques: tuple
    parent: tuple
    order: tuple
    separators: tuple


def _graph(d, cliques):
    """Adjacency sets of the graph joining columns that share a clique."""
    adj = [set() for _ in range(d)]
    for clique in cliques:
        for a in clique:
            adj[a].update(b for b in clique if b != a)
    return adj


def _fill(adj, v):
    """The number of edges missing among the neighbours of ``v`` (``adj``: bit masks)."""
    nbs = adj[v]
    missing, rest = 0, nbs
    while rest:
        low = rest & -rest
        a = low.bit_length() - 1
        missing += (nbs & ~adj[a] & ~low).bit_count()
        rest ^= low
    return missing // 2


def _bits(mask):
    """The set bits of ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _min_fill_cliques(shape, adj):
    """Elimination cliques of the greedy min-fill order (module docstring, step 2).

    Adjacency as bit masks (one int per column): the fill of a column is a few
    popcounts, so screening every AIM candidate's model size stays cheap (issue 30).
    Ties are broken as before: by ``(fill, cells of the eliminated clique, column)``.
    """
    return _min_fill_masks(shape, [sum(1 << b for b in a) for a in adj])


def _min_fill_masks(shape, masks):
    """:func:`_min_fill_cliques` on adjacency bit masks (``masks[v]``: the neighbours of
    ``v``, without ``v``; not modified).

    After column ``v`` is eliminated only two kinds of costs can change: those of its
    neighbours (their neighbourhoods change) and those of a column with at least two of
    them as neighbours (edges appear among its neighbours); the others are kept, not
    recomputed (issue 30 item 4: the same order and cliques in a third of the time).
    """
    masks = list(masks)
    shape = [int(s) for s in shape]

    def cost(u):
        nbs = masks[u]
        missing, weight, rest = 0, shape[u], nbs
        while rest:
            low = rest & -rest
            a = low.bit_length() - 1
            missing += (nbs & ~masks[a] & ~low).bit_count()
            weight *= shape[a]
            rest ^= low
        return (missing // 2, weight, u)

    costs = {v: cost(v) for v in range(len(shape))}
    cliques = []
    while costs:
        v = min(costs.values())[2]  # (fill, weight, column): unique, as the old key
        nbs = masks[v]
        cliques.append(nbs | (1 << v))
        del costs[v]
        rest, seen = nbs, nbs
        while rest:
            low = rest & -rest
            a = low.bit_length() - 1
            masks[a] = (masks[a] | nbs) & ~(low | (1 << v))
            seen |= masks[a]
            rest ^= low
        rest = seen
        while rest:
            low = rest & -rest
            u = low.bit_length() - 1
            rest ^= low
            if low & nbs or (masks[u] & nbs).bit_count() >= 2:
                costs[u] = cost(u)
    maximal = [c for c in cliques if not any(c != o and c & o == c for o in cliques)]
    return [frozenset(_bits(c)) for c in maximal]


def _spanning_tree(cliques):
    """Parents and breadth-first order of a maximum-weight spanning tree (step 3)."""
    k = len(cliques)
    if k == 1:
        return (-1,), (0,)
    sizes = np.array([[len(a & b) for b in cliques] for a in cliques], dtype=float)
    weights = np.triu(sizes.max() + 1.0 - sizes, 1)  # positive; smallest = largest separator
    tree = minimum_spanning_tree(csr_matrix(weights))
    order, pred = breadth_first_order(tree, 0, directed=False, return_predecessors=True)
    parent = tuple(int(p) if p >= 0 else -1 for p in pred)
    return parent, tuple(int(i) for i in order)


def junction_tree(shape, cliques):
    """The junction tree of ``cliques`` over columns of cardinalities ``shape``.

    Greedy min-fill triangulation of the graph joining columns that share a
    clique (every column is a node, so a column in no clique is a clique of
    its own), its maximal cliques, and a maximum-weight spanning tree over
    separator sizes (module docstring). No array of the model's size is made.

    Parameters
    ----------
    shape : sequence of int
        The cardinality of every column.
    cliques : iterable of iterable of int
        The cliques (column index tuples) the model must contain.

    Returns
    -------
    tree : JunctionTree
        Maximal cliques (sorted by their first column), parents, order and
        separators.

    Examples
    --------
    >>> junction_tree((2, 3, 4, 2), [(0, 1), (1, 2), (0, 2), (3,)]).cliques
    ((0, 1, 2), (3,))
    """
    shape = tuple(int(s) for s in shape)
    adj = _graph(len(shape), [tuple(c) for c in cliques])
    maximal = sorted((tuple(sorted(c)) for c in _min_fill_cliques(shape, adj)))
    parent, order = _spanning_tree([frozenset(c) for c in maximal])
    separators = tuple(
        () if p < 0 else tuple(sorted(set(c) & set(maximal[p])))
        for c, p in zip(maximal, parent))
    return JunctionTree(tuple(maximal), parent, order, separators)


def model_size(shape, cliques):
    """Total cells of the maximal cliques of the junction tree of ``cliques``.

    AIM's ``max_model_size`` check (McKenna et al. 2022, §4): computed from
    the cardinalities only, never by allocating the model.

    Parameters
    ----------
    shape : sequence of int
        The cardinality of every column.
    cliques : iterable of iterable of int
        The cliques of the model.

    Returns
    -------
    size : int
        ``sum over maximal cliques C of prod(shape[c] for c in C)``.

    Examples
    --------
    >>> model_size((10, 10, 10), [(0, 1), (1, 2)])
    200
    >>> model_size((10, 10, 10), [(0, 1), (1, 2), (0, 2)])
    1000
    """
    shape = tuple(int(s) for s in shape)
    maximal = _min_fill_cliques(shape, _graph(len(shape), [tuple(c) for c in cliques]))
    return sum(math.prod(shape[c] for c in clique) for clique in maximal)


def message_plan(tree, shape):
    """Per clique ``i``, the axes and broadcast shapes of its messages with its parent.

    ``(up_axes, up_shape, down_axes, down_shape)``: the axes of clique ``i``
    summed out of its upward message and the message's shape inside the
    parent's array, then the same for the parent's downward message
    (``None`` for the root). Computed once per tree, so that
    :func:`propagate` does no set arithmetic.

    Examples
    --------
    >>> tree = junction_tree((2, 3, 4), [(0, 1), (1, 2)])
    >>> message_plan(tree, (2, 3, 4))
    [None, ((1,), [1, 3], (0,), [3, 1])]
    """
    out = []
    for i, p in enumerate(tree.parent):
        if p < 0:
            out.append(None)
            continue
        clique, sep, host = tree.cliques[i], set(tree.separators[i]), tree.cliques[p]
        out.append((tuple(k for k, c in enumerate(clique) if c not in sep),
                    [shape[c] if c in sep else 1 for c in host],
                    tuple(k for k, c in enumerate(host) if c not in sep),
                    [shape[c] if c in sep else 1 for c in clique]))
    return out


def propagate(tree, psi, plan, scratch=None, zeros=False):
    """Calibrated log-beliefs (log-probabilities) of the cliques, by sum-product.

    ``psi[i]`` is the log-potential array of clique ``i``; it is overwritten
    with the clique's belief (no copies of the large cliques). Upward pass
    from the leaves, then downward from the root; the message into a child is
    the parent's belief less the child's own upward message (log-space
    division), summed over the parent's other columns. The root's
    log-partition function normalises every belief at once.

    Parameters
    ----------
    tree : JunctionTree
    psi : list of ndarray
        Log-potentials of the cliques, in the tree's clique order.
    plan : list
        ``message_plan(tree, shape)``.
    scratch : list of ndarray, optional
        Work arrays of the shapes of ``psi`` (reused across calls by
        :func:`~skdp.solvers.synth.graphical.estimate`); default: allocated.
    zeros : bool, default=False
        Whether some potentials are ``-inf`` (structural zeros): a separator cell of
        probability 0 then sends ``-inf``, not ``-inf - (-inf)`` (NaN), downwards.

    Returns
    -------
    beliefs : list of ndarray
        The log-marginals of the cliques of the normalised distribution.

    Examples
    --------
    >>> import numpy as np
    >>> tree = junction_tree((2, 2), [(0,), (1,)])
    >>> psi = [np.log(np.array([1.0, 3.0])), np.zeros(2)]
    >>> [np.exp(b) for b in propagate(tree, psi, message_plan(tree, (2, 2)))]
    [array([0.25, 0.75]), array([0.5, 0.5])]
    """
    parent = tree.parent
    scratch = [None] * len(psi) if scratch is None else scratch
    up = [None] * len(psi)
    for i in reversed(tree.order[1:]):
        up_axes, up_shape, _, _ = plan[i]
        up[i] = logsumexp(psi[i], up_axes, out=scratch[i]).reshape(up_shape)
        psi[parent[i]] += up[i]
    root = tree.order[0]
    psi[root] -= logsumexp(psi[root], tuple(range(psi[root].ndim)), out=scratch[root])
    for i in tree.order[1:]:  # psi[i] becomes the belief of clique i, in place
        _, _, down_axes, down_shape = plan[i]
        with np.errstate(invalid="ignore" if zeros else "warn"):  # -inf - -inf: set below
            diff = np.subtract(psi[parent[i]], up[i], out=scratch[parent[i]])
        zero = np.isneginf(up[i]) if zeros else None
        if zeros and zero.any():  # a separator cell of probability 0 (structural zeros): -inf, not
            np.copyto(diff, -np.inf, where=np.broadcast_to(zero, diff.shape))  # inf - inf
        psi[i] += logsumexp(diff, down_axes, out=diff).reshape(down_shape)
    return psi


def propagate_prob(tree, psi, plan):
    """Calibrated beliefs (probabilities) of the cliques, by sum-product in probability space.

    The messages of :func:`propagate` with the potentials exponentiated once (each
    clique's shifted by its maximum) and every message rescaled by its maximum, so
    that no exponential or logarithm is taken per message: one ``exp`` per cell per
    call instead of one per cell per message, the same beliefs up to rounding (issue 30
    item 4: AIM's estimation evaluates this thousands of times). ``psi`` (log-potentials)
    is overwritten with the beliefs, each summing to 1 (up to rounding: a child's is its
    parent's, normalised, through the separator). Returns None, with
    ``psi`` spoilt, when a message vanished or overflowed (a cell far below the others:
    no finite positive scale); the caller then runs :func:`propagate`. Not for
    structural zeros (``-inf`` potentials).

    Examples
    --------
    >>> import numpy as np
    >>> tree = junction_tree((2, 2), [(0,), (1,)])
    >>> psi = [np.log(np.array([1.0, 3.0])), np.zeros(2)]
    >>> propagate_prob(tree, psi, message_plan(tree, (2, 2)))
    [array([0.25, 0.75]), array([0.5, 0.5])]
    """
    parent = tree.parent
    for p in psi:
        np.subtract(p, _max(p, axis=None), out=p)
        np.exp(p, out=p)
    up, scale = [None] * len(psi), [1.0] * len(psi)
    for i in reversed(tree.order[1:]):
        up_axes, up_shape, _, _ = plan[i]
        m = _add(psi[i], axis=up_axes) if up_axes else psi[i].copy()
        top = _max(m, axis=None)
        if not 0.0 < top < math.inf:
            return None
        m /= top
        up[i], scale[i] = m.reshape(up_shape), top
        psi[parent[i]] *= up[i]
    root = tree.order[0]
    total = _add(psi[root], axis=None)
    if not 0.0 < total < math.inf:
        return None
    psi[root] /= total
    for i in tree.order[1:]:
        _, _, down_axes, down_shape = plan[i]
        belief = psi[parent[i]]
        # the parent's belief summed to the separator, divided by the upward message (the
        # child's own separator marginal over its scale ``top``), and by ``top``: the child's
        # belief then sums to the parent's, 1, with no pass over its cells for the sum
        # (issue 30 item 4, sixth part)
        ratio = _add(belief, axis=down_axes) if down_axes else belief.copy()
        msg = up[i].reshape(ratio.shape)
        if not _all(msg > 0.0, axis=None):  # a separator cell of probability 0: 0 / 1
            msg = np.where(msg > 0.0, msg, 1.0)
        ratio /= msg
        ratio /= scale[i]
        if not _max(ratio, axis=None) < math.inf:
            return None
        psi[i] *= ratio.reshape(down_shape)
    return psi


_max, _add, _all = np.maximum.reduce, np.add.reduce, np.logical_and.reduce


def host_clique(cliques, cols):
    """Index of the smallest clique containing ``cols`` (``None`` if none does).

    Examples
    --------
    >>> host_clique([(0, 1, 2), (1, 2), (3,)], (2,))
    1
    >>> host_clique([(0, 1, 2), (1, 2), (3,)], (0, 3)) is None
    True
    """
    cols = set(cols)
    hosts = [k for k, c in enumerate(cliques) if cols <= set(c)]
    return min(hosts, key=lambda k: len(cliques[k])) if hosts else None
