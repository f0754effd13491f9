"""Binary-tree (continual counting) noise for all prefix sums of a stream.

The tree mechanism (Dwork, Naor, Pitassi, Rothblum 2010; Chan, Shi, Song 2011)
releases the prefix sums ``g_t = sum_{i <= t} v_i`` of a stream of vectors
``v_1, ..., v_T`` with noise that grows like ``log T`` rather than ``sqrt(T)``.
Node ``(k, j)`` (level k, odd index j) covers the leaves
``(j - 1) 2^k + 1 .. j 2^k`` and carries its own ``N(0, sigma**2 I_d)``
noise; the prefix ``[1, t]`` is the union of the nodes given by the set bits
of ``t`` (paper 001 Alg. 1: ``NODE(t)`` is the set bits of ``t``, so
``|NODE(t)| = popcount(t)``; paper 003 Lemma 4.3 for the odd-index node set).

Privacy (paper 003 Lemma 4.3; paper 001 Prop. 2.5, Alg. 1): if neighbouring
streams differ in one ``v_i`` by at most ``C`` in l2 norm, leaf ``i`` lies in
:func:`nodes_per_leaf` ``(i, T)`` released nodes, at most
:func:`max_nodes_per_leaf` ``(T) = floor(log2 T) + 1``, so all node releases
together are a Gaussian mechanism with l2-sensitivity
``C sqrt(max_nodes_per_leaf(T))``: ``mu = C sqrt(h) / sigma``-GDP and
``C**2 h / (2 sigma**2)``-zCDP. Each coordinate of the noise in ``g_t`` has
variance exactly ``sigma**2 popcount(t)``.

Memory is O(d log T): each level keeps only the node that is still open.

Solvers open a :class:`TreeMechanism` on their release path (a
:class:`~skdp.privacy.budget.Budget` or a :class:`~skdp.privacy.release.Release`):
it records the whole mechanism when opened and builds the
:class:`TreeAggregator` of each part of a public partition of the records
(a period of paper 001, a chunk of paper 003), none of which may cost more
than the record.
"""

import math

from .ledger import gaussian_rho

__all__ = ["max_nodes_per_leaf", "nodes_per_leaf", "node_decomposition", "tree_rho",
           "tree_sigma", "TreeAggregator", "TreeMechanism"]

_SLACK = 1.0 + 1e-12  # float round-off of a noise scale recomputed from the same budget


def node_decomposition(t):
    """The nodes ``(level, index)`` whose sum is the prefix ``[1, t]``.

    Examples
    --------
    >>> node_decomposition(7)
    [(2, 1), (1, 3), (0, 7)]
    """
    t = int(t)
    if t < 1:
        raise ValueError("t must be >= 1.")
    return [(k, t >> k) for k in range(t.bit_length() - 1, -1, -1) if (t >> k) & 1]


def nodes_per_leaf(i, horizon):
    """Number of released nodes that contain leaf ``i`` in a tree of ``horizon`` leaves.

    Node ``(k, j)`` is released when ``j`` is odd and complete
    (``j 2^k <= horizon``). Leaf ``i`` is in node ``(k, ceil(i / 2^k))``.

    Examples
    --------
    >>> [nodes_per_leaf(i, 7) for i in range(1, 8)]
    [3, 2, 2, 1, 2, 1, 1]
    """
    i, horizon = int(i), int(horizon)
    if not 1 <= i <= horizon:
        raise ValueError("need 1 <= i <= horizon.")
    count = 0
    for k in range(horizon.bit_length()):
        j = -(-i // (1 << k))
        if j & 1 and j << k <= horizon:
            count += 1
    return count


def max_nodes_per_leaf(horizon):
    """``floor(log2 horizon) + 1``: the most released nodes any leaf lies in.

    Leaf 1 attains it (it is in node ``(k, 1)`` for every level k with
    ``2^k <= horizon``). dp-accounting's single-epoch tree aggregation uses the
    same depth, ``ceil(log2(horizon + 1))``.

    Examples
    --------
    >>> max_nodes_per_leaf(7), max_nodes_per_leaf(8), max_nodes_per_leaf(120)
    (3, 4, 7)
    """
    horizon = int(horizon)
    if horizon < 1:
        raise ValueError("horizon must be >= 1.")
    return horizon.bit_length()


def tree_rho(sensitivity, sigma, horizon):
    """zCDP of releasing every node of a tree over ``horizon`` leaves.

    ``sensitivity**2 * max_nodes_per_leaf(horizon) / (2 sigma**2)``.

    Examples
    --------
    >>> tree_rho(1.0, 1.0, 7)
    1.5
    """
    return max_nodes_per_leaf(horizon) * gaussian_rho(sensitivity, sigma)


def tree_sigma(sensitivity, rho, horizon):
    """Per-node noise scale that makes the whole tree ``rho``-zCDP.

    Examples
    --------
    >>> tree_sigma(1.0, 1.5, 7)
    1.0
    """
    if rho <= 0:
        raise ValueError("rho must be > 0.")
    if math.isinf(rho):
        return 0.0
    return sensitivity * math.sqrt(max_nodes_per_leaf(horizon) / (2.0 * rho))


def _float_dtype(value):
    """The float dtype of an array element (None: the backend's float64)."""
    dtype = getattr(value, "dtype", None)
    return dtype if dtype is not None and "float" in str(dtype) else None


class TreeAggregator:
    """Streaming noisy prefix sums by the binary-tree mechanism.

    Parameters
    ----------
    shape : tuple of int
        Shape of each stream element.
    sigma : float
        Per-node noise standard deviation (see :func:`tree_sigma`).
    horizon : int
        Number of elements T the stream may have; more raises.
    backend : Backend
        Namespace, device and generator for the noise.

    Attributes
    ----------
    t : int
        Elements added so far.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> b = Backend.from_arrays(np.zeros(2), random_state=0)
    >>> tree = TreeAggregator((2,), sigma=0.0, horizon=4, backend=b)
    >>> [tree.add(np.ones(2)).tolist() for _ in range(3)]
    [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
    """

    def __init__(self, shape, sigma, horizon, backend):
        self.shape = tuple(shape)
        self.sigma = float(sigma)
        self.horizon = int(horizon)
        self.backend = backend
        self.t = 0
        self._sum = None
        self._nodes = {}  # level -> (index, noise): the open node of each level

    def _node_noise(self, level, index, dtype=None):
        cached = self._nodes.get(level)
        if cached is None or cached[0] != index:
            cached = (index, self.backend.normal(self.shape, scale=self.sigma, dtype=dtype))
            self._nodes[level] = cached
        return cached[1]

    def noise(self, dtype=None):
        """Noise of the current prefix: the sum of its nodes' noises (in ``dtype``, default
        float64; a node drawn earlier keeps the dtype it was drawn in)."""
        if self.t == 0:
            raise ValueError("no element added yet.")
        total = None
        for level, index in node_decomposition(self.t):
            z = self._node_noise(level, index, dtype)
            total = z if total is None else total + z
        return total

    def add(self, value):
        """Add the next element; return the noisy prefix sum up to it.

        The noise is drawn in the element's float dtype (a float32 stream stays
        float32), or float64 for an element without one (a Python float).
        """
        if self.t >= self.horizon:
            raise ValueError(f"the tree was built for {self.horizon} elements.")
        self.t += 1
        self._sum = value if self._sum is None else self._sum + value
        if self.sigma == 0:
            return self._sum
        return self._sum + self.noise(dtype=_float_dtype(value))


class TreeMechanism:
    """Tree aggregation over a public partition of the records, recorded once when opened.

    The records are split, by a public rule, into parts (paper 001: the
    periods of a single pass; paper 003: the chunks of a stream), and the
    per-element contributions of each part are summed by its own
    :class:`TreeAggregator`. A record lies in one part, hence in at most
    ``max_nodes_per_leaf(horizon)`` noisy nodes of one tree: all trees
    together are one Gaussian mechanism of l2-sensitivity
    ``sensitivity * sqrt(max_nodes_per_leaf(horizon))`` (paper 001 Prop. 2.5,
    paper 003 Lemma 4.3; parallel composition over the parts), recorded by
    :meth:`open`. Each tree built by :meth:`aggregator` is checked to cost at
    most that record. Holds only public constants (picklable): each tree
    draws from the generator it is given.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> from skdp.privacy.release import Release
    >>> backend = Backend.from_arrays(np.zeros(2), random_state=0)
    >>> release = Release(backend, PrivacyLedger())
    >>> mech = TreeMechanism.open(release, 1.0, tree_sigma(1.0, 0.5, 8), 8, label="sums")
    >>> tree = mech.aggregator((2,), 8, backend)
    >>> release.ledger.rho   # one record for every tree of the partition
    0.5
    """

    def __init__(self, sensitivity, sigma, horizon):
        self.sensitivity = float(sensitivity)
        self.sigma = float(sigma)
        self.horizon = int(horizon)
        self.rho = tree_rho(self.sensitivity, self.sigma, self.horizon)

    @classmethod
    def open(cls, path, sensitivity, sigma, horizon, *, label):
        """Record the mechanism on ``path`` (a Budget: charged; a Release) and return it.

        The record is one Gaussian release of l2-sensitivity ``sensitivity *
        sqrt(max_nodes_per_leaf(horizon))`` at node noise ``sigma``. A
        non-private Budget records nothing and gives ``sigma = 0``.
        """
        joint = sensitivity * math.sqrt(max_nodes_per_leaf(horizon))
        batch = path.gaussian_batch(joint, sigma, 1, label=label)
        return cls(sensitivity, batch.sigma, horizon)

    def aggregator(self, shape, horizon, backend, sigma=None):
        """The tree of one part: ``horizon`` elements, node noise ``sigma`` (default: the record's).

        Raises ``RuntimeError`` if that tree would cost more than the record.
        """
        sigma = self.sigma if sigma is None else float(sigma)
        if self.sigma > 0 and tree_rho(self.sensitivity, sigma, horizon) > self.rho * _SLACK:
            raise RuntimeError(f"internal error: a tree of {horizon} leaves at sigma={sigma} "
                               f"costs more than the recorded mechanism.")
        return TreeAggregator(shape, sigma, horizon, backend)
