"""The graphical-model histogram player: private-pgm's estimation step in NumPy.

McKenna, Sheldon, Miklau 2019 ("Graphical-model based estimation and
inference for differential privacy", ICML; private-pgm): given noisy
marginals ``y_i`` of a table over column sets ``C_i`` with noise sd
``sigma_i``, estimate the distribution ``p`` over the product domain that
minimises the L2 marginal loss

    ``L(p) = sum_i ||N * p_{C_i} - y_i||_2^2 / sigma_i^2``

(``N`` the row count, ``p_C`` the marginal of ``p`` on ``C``). Their Theorem 1:
a minimiser exists in the exponential family
``p_theta(x) ∝ exp(sum_C theta_C(x_C))`` over the measured cliques, the
maximum-entropy one among the minimisers; it is found by entropic mirror
descent on the marginals, which in that family is gradient descent on the
potentials: ``theta_C <- theta_C - alpha * dL/dmu_C`` with ``mu_C = N p_C``
(their Algorithm 1 with the line search of their code). The marginals of
``p_theta`` are computed exactly by log-space sum-product belief propagation
on a junction tree of the cliques (:mod:`.junction_tree`), so memory and time
scale with the cliques' cells, never with the domain.

Everything here is post-processing of the measurements (no privacy cost);
the only randomness is :meth:`GraphicalModel.sample`'s, drawn from the
public generator passed to it.
"""

from dataclasses import dataclass
import math

import numpy as np

from .factor import Factor, eliminate, logsumexp
from .junction_tree import (host_clique, junction_tree, message_plan, model_size, propagate,
                            propagate_prob)

_add = np.add.reduce

__all__ = ["Measurement", "GraphicalModel", "estimate", "junction_tree", "model_size",
           "rounded_counts"]


@dataclass(frozen=True)
class Measurement:
    """A noisy marginal: counts over ``cols`` with Gaussian noise of sd ``sigma``.

    Attributes
    ----------
    cols : tuple of int
        Column indices, sorted ascending.
    values : ndarray
        The noisy counts of the marginal over ``cols``, flattened in C order
        over ``[shape[c] for c in cols]``.
    sigma : float or ndarray
        The noise standard deviation of each cell (one for all, or one per
        cell: a merged cell of a compressed column sums the noise of its
        values); the loss weighs each cell by ``1 / sigma``.

    Examples
    --------
    >>> import numpy as np
    >>> Measurement((0,), np.array([3.0, 7.0]), 1.0).cols
    (0,)
    """

    cols: tuple
    values: np.ndarray
    sigma: float

    def __post_init__(self):
        cols = tuple(int(c) for c in self.cols)
        if list(cols) != sorted(set(cols)):
            raise ValueError(f"Measurement cols must be strictly ascending, got {self.cols}.")
        values = np.asarray(self.values, dtype=float).ravel()
        sigma = np.asarray(self.sigma, dtype=float)
        if not np.all(sigma > 0) or sigma.ndim > 1 or sigma.size not in (1, values.size):
            raise ValueError("Measurement sigma must be positive, one value or one per cell; "
                             f"got {self.sigma}.")
        object.__setattr__(self, "cols", cols)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "sigma", float(sigma) if sigma.ndim == 0 else sigma)


class GraphicalModel:
    """A distribution ``p(x) ∝ exp(sum_C theta_C(x_C))`` on a junction tree.

    Parameters
    ----------
    shape : sequence of int
        The cardinality of every column.
    potentials : dict
        ``{cols: theta}``: ``cols`` a sorted tuple of columns, ``theta`` an
        array of log-potentials of shape ``[shape[c] for c in cols]``.
    total : float, default=1.0
        The row count the model stands for (:meth:`project_counts`).
    tree : JunctionTree, optional
        A junction tree whose cliques cover every key of ``potentials`` and of
        ``zeros``; default ``junction_tree(shape, potentials + zeros)``.
    zeros : dict, optional
        Structural zeros (public, from the domain: :mod:`skdp._domain.forbid`):
        ``{cols: mask}``, ``mask`` a boolean array of shape ``[shape[c] for c in
        cols]``, True on the cells that cannot occur. They are fixed log-potentials
        (``-inf`` there, 0 elsewhere), added to their host clique but kept apart from
        ``potentials`` (which stay finite, so that the estimation's steps and
        extrapolations never meet ``inf - inf``): ``p`` is exactly 0 on them, and
        :meth:`sample` never draws them.

    Attributes
    ----------
    shape : tuple of int
    cliques : list of tuple
        The junction tree's maximal cliques.
    total : float
    potentials : dict
        The log-potentials, as given (warm starts read them).
    tree : JunctionTree
        The junction tree (cliques, parents, separators).
    beliefs : list of ndarray
        The calibrated log-marginals of the cliques.

    Examples
    --------
    >>> import numpy as np
    >>> m = GraphicalModel((2, 2), {(0, 1): np.log([[1.0, 1.0], [1.0, 5.0]])}, total=8)
    >>> m.marginal((1,))
    array([0.25, 0.75])
    >>> m.project_counts((0,))
    array([2., 6.])
    """

    def __init__(self, shape, potentials, total=1.0, tree=None, zeros=None):
        self.shape = tuple(int(s) for s in shape)
        self.potentials = {tuple(c): np.asarray(v, dtype=float) for c, v in potentials.items()}
        self.total = float(total)
        self.zeros = log_zeros(zeros)
        if tree is None:
            tree = junction_tree(self.shape, list(self.potentials) + list(self.zeros))
        self.tree = tree
        self.cliques = list(self.tree.cliques)
        layout = _layout(self.tree, self.shape, {**self.potentials, **self.zeros})
        self.beliefs = propagate(self.tree, _clique_potentials(self.tree, self.shape,
                                                                self.potentials, layout,
                                                                zeros=self.zeros),
                                  message_plan(self.tree, self.shape), zeros=bool(self.zeros))
        self._sampler = None

    def marginal(self, cols):
        """Probabilities over ``cols``, of shape ``[shape[c] for c in cols]``.

        From the smallest clique belief containing ``cols`` when one does,
        else by variable elimination over the smallest subtree of the
        junction tree whose cliques cover ``cols`` (beliefs divided by
        separator marginals, the tree's factorisation of ``p``).

        Parameters
        ----------
        cols : sequence of int
            Distinct columns, in the order of the returned axes.

        Returns
        -------
        marginal : ndarray
            Non-negative, summing to 1.

        Examples
        --------
        >>> import numpy as np
        >>> m = GraphicalModel((2, 3), {})
        >>> m.marginal((1, 0)).shape
        (3, 2)
        """
        cols = tuple(int(c) for c in cols)
        if len(set(cols)) != len(cols):
            raise ValueError(f"marginal cols must be distinct, got {cols}.")
        key = tuple(sorted(cols))
        k = host_clique(self.cliques, key)
        if k is not None:
            log = Factor(self.cliques[k], self.beliefs[k]).keep(key).values
        else:
            log = eliminate(self._subtree_factors(key), key, self.shape)
        out = np.exp(log - logsumexp(log, tuple(range(log.ndim))))
        return np.transpose(out, [key.index(c) for c in cols])

    def project_counts(self, cols):
        """``total * marginal(cols)``: the model's counts over ``cols``.

        Parameters
        ----------
        cols : sequence of int
            Distinct columns.

        Returns
        -------
        counts : ndarray

        Examples
        --------
        >>> GraphicalModel((2,), {}, total=10).project_counts((0,))
        array([5., 5.])
        """
        return self.total * self.marginal(cols)

    def pair_counts(self, pairs):
        """``{(a, b): total * marginal((a, b)).ravel()}`` for pairs of columns in no common
        clique, all from one sweep of the junction tree per first column.

        For column ``a``, a walk over the tree from a clique holding it carries the joint
        ``p(a, S)`` of ``a`` and the separator ``S`` it crossed, divided by ``p(S)``: on a
        clique ``C`` without ``a``, ``p(a, T) = sum_S p(a, S) p(S, T) / p(S)`` for any
        ``T`` inside ``C`` (the tree's factorisation, as in :meth:`marginal`), ``T`` the
        next separator or a column ``b`` first met there; ``p(S, T)`` is a marginal of the
        clique's belief, shared by every ``a``. The same numbers as
        :meth:`project_counts`, summed in probability space rather than by log-space
        variable elimination (they differ in the last digits): AIM scores every pair every
        round (issue 30 item 4).

        Examples
        --------
        >>> import numpy as np
        >>> m = GraphicalModel((2, 3, 2), {(0, 1): np.log([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        ...                                (1, 2): np.log([[1.0, 2.0], [3.0, 1.0], [1.0, 1.0]])},
        ...                    total=10)
        >>> bool(np.allclose(m.pair_counts([(0, 2)])[(0, 2)], m.project_counts((0, 2)).ravel()))
        True
        """
        hosts, neighbours = self._tree_index()
        sets = [frozenset(c) for c in self.cliques]
        wanted = {}
        for a, b in pairs:
            wanted.setdefault(int(a), set()).add(int(b))
        probs, margins, out = {}, {}, {}

        def margin(k, cols):  # p(cols) from clique k's belief, axes in sorted column order
            key = (k, cols)
            if key not in margins:
                if k not in probs:
                    probs[k] = np.exp(self.beliefs[k])
                axes = tuple(i for i, c in enumerate(self.cliques[k]) if c not in cols)
                margins[key] = probs[k].sum(axis=axes) if axes else probs[k]
            return margins[key]

        for a, bs in wanted.items():
            todo = set(bs)
            stack = [(hosts[a], -1, None, None)]  # clique, from, separator, p(a, S) / p(S)
            while stack and todo:
                k, came, sep, ratio = stack.pop()
                here = [b for b in todo if b in sets[k]]
                if here and ratio is None:
                    raise ValueError(f"columns {a} and {here[0]} share a clique: use "
                                     "marginal().")
                for b in here:
                    joint = _chain(ratio, sep, margin(k, tuple(sorted(set(sep) | {b}))), (b,))
                    out[(a, b)] = self.total * (joint / joint.sum()).ravel()
                    todo.discard(b)
                for j in neighbours[k]:
                    if j == came:
                        continue
                    if a in sets[j]:  # a's cliques are a subtree: still inside it
                        stack.append((j, k, None, None))
                        continue
                    nxt = tuple(sorted(sets[k] & sets[j]))
                    if ratio is None:  # p(a, S') from this clique's belief
                        cols = tuple(sorted(set(nxt) | {a}))
                        joint = np.moveaxis(margin(k, cols), cols.index(a), 0)
                    else:
                        joint = _chain(ratio, sep, margin(k, tuple(sorted(set(sep) | set(nxt)))),
                                       nxt)
                    below = margin(j, nxt)
                    stack.append((j, k, nxt, np.divide(joint, below, out=np.zeros_like(joint),
                                                       where=below > 0)))
            if todo:
                raise ValueError(f"columns {sorted(todo)} not reached from column {a}.")
        return out

    def sample(self, n, rng, chunk=100_000):
        """Draw ``n`` rows of integer codes by forward sampling on the tree, rounded.

        The root clique is drawn from its belief, then each clique (parents
        first) from its conditional given the separator with its parent,
        ``belief_i / marginal(separator_i)``; by the running intersection
        property the rows follow ``p``. Within each group of rows that share
        a separator value, the counts of the clique's new cells are the
        group's expected counts under the conditional rounded to a
        neighbouring integer (systematic randomised rounding: unbiased, the
        group's size kept), and the cells are dealt to the group's rows in a
        random order. This is private-pgm's ``synthetic_data`` rounding
        (McKenna et al. 2021, §3.1): every clique marginal of the sample is
        within a few rows of ``n`` times the model's, where independent
        draws would add a multinomial error of order ``sqrt(cells / n)``.
        Rows are drawn ``chunk`` at a time (each chunk rounded on its own),
        memory ``O(chunk * d + model size)``.

        Parameters
        ----------
        n : int
            Number of rows.
        rng : numpy.random.Generator
            The public random generator (post-processing randomness).
        chunk : int, default=100_000
            Rows per batch.

        Returns
        -------
        codes : ndarray of shape (n, d), dtype int64

        Examples
        --------
        >>> import numpy as np
        >>> m = GraphicalModel((2, 3), {(0,): np.log([1.0, 3.0])})
        >>> x = m.sample(8, np.random.default_rng(0))
        >>> x.shape, int((x[:, 0] == 1).sum())
        ((8, 2), 6)
        """
        if self._sampler is None:
            self._sampler = [_conditional_table(self, i) for i in self.tree.order]
        out = np.empty((int(n), len(self.shape)), dtype=np.int64)
        for start in range(0, int(n), int(chunk)):
            rows = out[start:start + int(chunk)]
            for sep, rest, cond in self._sampler:
                _draw(rows, sep, rest, cond, self.shape, rng)
        return out

    def _tree_index(self):
        """Cached: each column's host clique (:func:`host_clique`) and each clique's
        neighbours in the tree (AIM scores thousands of marginals on one model)."""
        if getattr(self, "_index", None) is None:
            hosts = {c: host_clique(self.cliques, (c,)) for c in range(len(self.shape))}
            neighbours = [[] for _ in self.cliques]
            for k, p in enumerate(self.tree.parent):
                if p >= 0:
                    neighbours[k].append(p)
                    neighbours[p].append(k)
            self._index = (hosts, neighbours)
        return self._index

    def _subtree_factors(self, cols):
        """Log-factors of a small subtree covering ``cols``: beliefs less separators.

        The smallest clique holding each column, joined by the tree's paths:
        on any connected subtree the product of the beliefs over the product
        of the separator marginals is the marginal of ``p`` on its columns.
        """
        parent, seps = self.tree.parent, self.tree.separators
        hosts, neighbours = self._tree_index()
        keep = {hosts[c] for c in cols}
        nodes = set(range(len(self.cliques)))
        # drop leaves of the remaining subtree that are not needed, until none is left (the
        # smallest subtree holding `keep`): a queue of leaves, linear in the cliques
        degree = [len(n) for n in neighbours]
        leaves = [k for k in nodes if k not in keep and degree[k] <= 1]
        while leaves:
            k = leaves.pop()
            if k not in nodes:
                continue
            nodes.discard(k)
            for j in neighbours[k]:
                if j in nodes:
                    degree[j] -= 1
                    if degree[j] <= 1 and j not in keep:
                        leaves.append(j)
        factors = [Factor(self.cliques[k], self.beliefs[k]) for k in nodes]
        for k in nodes:
            if parent[k] in nodes:
                sep = Factor(self.cliques[k], self.beliefs[k]).keep(seps[k])
                # a separator cell of probability 0 (structural zeros): its cliques' cells
                # are -inf already; dividing by 0 there is 0/0, taken as 0 (no inf - inf)
                factors.append(Factor(sep.cols, np.where(np.isneginf(sep.values), 0.0,
                                                         -sep.values)))
        return factors


def _chain(ratio, sep, joint, keep):
    """``sum over the other columns of ratio[a, sep] * joint[cols]``, with axes ``(a,
    *keep)``; ``joint``'s axes are the sorted columns of ``sep`` and ``keep``
    (:meth:`GraphicalModel.pair_counts`; einsum's labels are local: at most 52)."""
    cols = sorted(set(sep) | set(keep))
    label = {c: i + 1 for i, c in enumerate(cols)}
    return np.einsum(ratio, [0] + [label[c] for c in sep], joint, [label[c] for c in cols],
                     [0] + [label[c] for c in keep])


def _layout(tree, shape, cliques):
    """``{cols: (k, bshape, axes)}``: the host clique ``k`` of each column set, the set's
    broadcast shape inside it, and the host's axes summed out for its marginal."""
    out = {}
    for cols in cliques:
        k = host_clique(tree.cliques, cols)
        host = tree.cliques[k]
        out[cols] = (k, [shape[c] if c in cols else 1 for c in host],
                     tuple(a for a, c in enumerate(host) if c not in cols))
    return out


def log_zeros(zeros):
    """Structural zeros ``{cols: boolean mask}`` as fixed log-potentials ``{cols: 0 or
    -inf}`` (already in that form: kept)."""
    out = {}
    for cols, mask in (zeros or {}).items():
        mask = np.asarray(mask)
        out[tuple(int(c) for c in cols)] = mask if mask.dtype.kind == "f" else \
            np.where(mask, -np.inf, 0.0)
    return out


def _clique_potentials(tree, shape, potentials, layout, psi=None, zeros=None, plan=None):
    """Log-potential arrays of the junction cliques: each theta added to its host, then
    the structural zeros' fixed log-potentials (``-inf`` on forbidden cells).

    Into the arrays ``psi`` when given, else new ones. With ``plan`` (:func:`_marginal_plan`
    of the potentials' keys) the thetas are added up along the plan's steps backwards:
    the sets a step sums from a larger array are first added into that array's cells, so
    that each clique is written a few times rather than once per theta (issue 30 item 4,
    sixth part): the same sums in another order.
    """
    if psi is None:
        psi = [np.zeros([shape[c] for c in clique]) for clique in tree.cliques]
    elif plan is None:
        for p in psi:
            p.fill(0.0)
    if plan is not None:
        _add_along(tree, shape, potentials, layout, psi, plan)
    else:
        for cols, theta in potentials.items():
            k, bshape, _ = layout[cols]
            psi[k] += theta.reshape(bshape)
    for cols, log_mask in (zeros or {}).items():
        k, bshape, _ = layout[cols]
        psi[k] += log_mask.reshape(bshape)
    return psi


def _add_along(tree, shape, potentials, layout, psi, plan):
    """The thetas added into the cliques ``psi`` along ``plan`` backwards (children first)."""
    acc, written = {}, set()
    for node, source, axes in reversed(plan):
        k, cols = node
        value = acc.pop(node, None)
        if layout.get(cols, (None,))[0] == k:  # a theta's own node
            own = potentials[cols]
            value = own if value is None else value + own
        if value is None:
            continue
        if isinstance(source, tuple):
            into = source[1]
            bshape = [1 if a in axes else shape[c] for a, c in enumerate(into)]
            if source in acc:
                acc[source] += value.reshape(bshape)
            else:
                acc[source] = np.broadcast_to(value.reshape(bshape),
                                              [shape[c] for c in into]).copy()
        else:
            bshape = [1 if a in axes else shape[c] for a, c in enumerate(tree.cliques[k])]
            if k in written:
                psi[k] += value.reshape(bshape)
            else:
                np.copyto(psi[k], value.reshape(bshape))
                written.add(k)
    for k, p in enumerate(psi):
        if k not in written:
            p.fill(0.0)


def _marginal_plan(tree, shape, layout, sets):
    """``[(node, source, axes), ...]``: how each measured set's marginal is summed from its
    host clique's belief, in an order where every source comes first.

    A node is ``(k, cols)``, the marginal over ``cols`` of host clique ``k``; a source is
    a node or ``k`` itself (the clique's belief). Each clique's sets are summed through
    intermediate marginals (the clique less one column, recursively: :func:`_split`) where
    that reads fewer cells than summing each set from the whole clique (issue 30 item 4,
    sixth part: a clique of 5 columns hosts up to 10 measured pairs). The same sums in
    another order.

    Examples
    --------
    >>> tree = junction_tree((2, 3, 4), [(0, 1, 2)])
    >>> sets = [(0,), (0, 1), (1,)]
    >>> _marginal_plan(tree, (2, 3, 4), _layout(tree, (2, 3, 4), sets), sets)
    [((0, (0, 1)), 0, (2,)), ((0, (0,)), (0, (0, 1)), (1,)), ((0, (1,)), (0, (0, 1)), (0,))]
    """
    hosted = {}
    for cols in sets:
        hosted.setdefault(layout[cols][0], []).append(tuple(cols))
    plan = []
    for k, members in sorted(hosted.items()):
        _emit(shape, k, tuple(tree.cliques[k]), k, frozenset(members), {}, plan, set())
    return plan


def _cells(shape, cols):
    return math.prod(shape[c] for c in cols)


def _split(shape, array, sets, memo):
    """``(cells read, column)``: the cheapest way to sum ``sets`` (column tuples inside
    ``array``) from the marginal over ``array``: each from it directly (column None), or
    first the marginal over ``array`` less ``column`` (one read), the sets without that
    column from there (recursively), the others from ``array``. The sets below an array
    are those of the clique inside it, so ``memo`` is keyed by the array; cliques of more
    than :data:`PLAN_COLUMNS` columns sum each set directly (the search is exponential
    in the columns)."""
    if array not in memo:
        whole = _cells(shape, array)
        best = (whole * sum(s != array for s in sets), None)
        if len(array) <= PLAN_COLUMNS:
            for j in array:
                without = frozenset(s for s in sets if j not in s)
                if len(without) < 2:
                    continue
                sub = tuple(c for c in array if c != j)
                cost = whole * (1 + sum(j in s and s != array for s in sets)) + \
                    _split(shape, sub, without, memo)[0]
                if cost < best[0]:
                    best = (cost, j)
        memo[array] = best
    return memo[array]


PLAN_COLUMNS = 8
"""Cliques of at most this many columns get :func:`_split`'s search (8: about 10 ms for
all the pairs of 8 columns, once per estimation)."""


def _emit(shape, k, array, source, sets, memo, plan, done):
    """Append to ``plan`` the steps :func:`_split` chose for ``sets`` from ``source``
    (a node over ``array``, or clique ``k``)."""
    j = _split(shape, array, sets, memo)[1]
    rest = sets
    if j is not None:
        sub = tuple(c for c in array if c != j)
        node = (k, sub)
        if node not in done:
            plan.append((node, source, (array.index(j),)))
            done.add(node)
        _emit(shape, k, sub, node, frozenset(s for s in sets if j not in s), memo, plan, done)
        rest = [s for s in sets if j in s]
    for s in sorted(rest, key=lambda s: (-len(s), s)):
        if (k, s) not in done:
            plan.append(((k, s), source, tuple(a for a, c in enumerate(array) if c not in s)))
            done.add((k, s))


def _conditional_table(model, i):
    """``(sep, rest, cond)`` of clique ``i``: row ``s`` of ``cond`` is ``p(rest | sep = s)``."""
    clique, sep = model.cliques[i], model.tree.separators[i]
    rest = tuple(c for c in clique if c not in sep)
    axes = [clique.index(c) for c in sep + rest]
    log = np.transpose(model.beliefs[i], axes).reshape(
        math.prod(model.shape[c] for c in sep), -1)
    norm = logsumexp(log, (1,))[:, None]
    # a separator value of probability 0 (structural zeros) is never drawn: any row will do
    return sep, rest, np.exp(log - np.where(np.isneginf(norm), 0.0, norm))


def _draw(rows, sep, rest, cond, shape, rng):
    """Fill the ``rest`` columns of ``rows`` given their ``sep`` columns, in place.

    Per group of equal ``sep`` value, the counts of the ``rest`` cells are
    :func:`rounded_counts` of the group's size times ``cond``, dealt to the
    group's rows in a random order.
    """
    if not rest:
        return
    s = (np.ravel_multi_index(tuple(rows[:, c] for c in sep), [shape[c] for c in sep])
         if sep else np.zeros(len(rows), dtype=np.int64))
    order = np.lexsort((rng.random(len(rows)), s))  # by group, random within a group
    sizes = np.bincount(s, minlength=cond.shape[0])
    groups = np.flatnonzero(sizes)
    counts = rounded_counts(sizes[groups], cond[groups], rng)
    width = cond.shape[1]
    cells = np.repeat(np.tile(np.arange(width), len(groups)), counts.ravel())
    for c, codes in zip(rest, np.unravel_index(cells, [shape[c] for c in rest])):
        rows[order, c] = codes


def rounded_counts(sizes, cond, rng):
    """Systematic randomised rounding of ``sizes[:, None] * cond`` row by row.

    Row ``g``: ``floor(c_k + u) - floor(c_{k-1} + u)`` with ``c`` the cumulated
    expected counts and ``u`` uniform on [0, 1): each count is the floor or
    the ceiling of its expectation, unbiased, and the row sums to ``sizes[g]``.

    Examples
    --------
    >>> import numpy as np
    >>> c = rounded_counts(np.array([10]), np.array([[0.25, 0.75]]), np.random.default_rng(0))
    >>> c.sum(), c[0, 0] in (2, 3)
    (np.int64(10), True)
    """
    size = np.asarray(sizes, dtype=float)[:, None]
    expected = np.minimum(np.cumsum(cond * size, axis=1), size)
    expected[:, -1] = size[:, 0]
    upper = np.floor(expected + rng.random((len(size), 1)))
    return np.diff(upper, axis=1, prepend=0.0).astype(np.int64)


def _estimate_total(measurements):
    """Inverse-variance weighted row count: each marginal's sum has variance ``sigma^2 m``."""
    if not measurements:
        return 1.0
    var = np.array([float(np.sum(np.broadcast_to(np.square(m.sigma), m.values.shape)))
                    for m in measurements])
    est = np.array([m.values.sum() for m in measurements])
    return max(1.0, float(np.sum(est / var) / np.sum(1.0 / var)))


def _group(measurements, shape):
    """Per measured column set: ``(w, ybar, resid)``, the loss ``sum w (mu - ybar)^2 + resid``.

    ``w`` is one weight or one per cell (per-cell sigmas)."""
    groups = {}
    for m in measurements:
        size = math.prod(shape[c] for c in m.cols)
        if m.values.size != size:
            raise ValueError(f"Measurement on {m.cols} has {m.values.size} values, "
                             f"expected {size}.")
        w, b, q = groups.get(m.cols, (0.0, 0.0, 0.0))
        s2 = np.square(m.sigma) ** -1.0
        groups[m.cols] = (w + s2, b + s2 * m.values, q + float(np.sum(s2 * m.values ** 2)))
    return {cols: (w, b / w, q - float(np.sum(b * b / w))) for cols, (w, b, q) in groups.items()}


def _zero_targets(groups, shape, zeros):
    """The groups with their targets set to 0 on the structural zeros' cells (public facts:
    post-processing of the noisy counts); the residual constants are unchanged (the loss
    moves by a constant, its minimiser does not)."""
    out = dict(groups)
    for cols, (w, ybar, resid) in groups.items():
        forbidden = np.zeros([shape[c] for c in cols], dtype=bool)
        for zcols, log_mask in zeros.items():
            if set(zcols) <= set(cols):
                bshape = [shape[c] if c in zcols else 1 for c in cols]
                forbidden |= np.isneginf(log_mask).reshape(bshape)
        if forbidden.any():
            out[cols] = (w, np.where(forbidden.ravel(), 0.0, ybar), resid)
    return out


class _Objective:
    """The marginal loss of :func:`estimate` as a function of the potentials."""

    def __init__(self, shape, tree, groups, total, layout, zeros=None, probability=False):
        self.shape, self.tree, self.groups, self.total = shape, tree, groups, total
        self.zeros = zeros or {}
        self.probability = probability and not self.zeros
        self.layout, self.plan = layout, message_plan(tree, shape)
        self.adds = _marginal_plan(tree, shape, layout, list(layout))
        self.sums = _marginal_plan(tree, shape, layout, list(groups))
        # work arrays reused by every call: no page faults on fresh large cliques
        self.buffers = [[np.empty([shape[c] for c in clique]) for clique in tree.cliques]
                        for _ in range(3)]

    def __call__(self, theta):
        """``(loss, grad, mu)``: loss, its gradient and the marginal counts per measured set."""
        psi, scratch, prob = self.buffers
        _clique_potentials(self.tree, self.shape, theta, self.layout, psi, self.zeros, self.adds)
        probs = {}
        if self.probability:  # the beliefs as probabilities, one exp per cell
            beliefs = propagate_prob(self.tree, psi, self.plan)
            if beliefs is not None:
                probs = dict(enumerate(beliefs))
            else:  # a message out of range: the log-space sum-product
                _clique_potentials(self.tree, self.shape, theta, self.layout, psi, self.zeros,
                                   self.adds)
        if not probs:
            beliefs = propagate(self.tree, psi, self.plan, scratch, zeros=bool(self.zeros))
        # the marginals along _marginal_plan (the ufuncs' reduce
        # directly: ndarray.sum's arithmetic without its Python wrapper)
        marginals = {}
        for node, source, axes in self.sums:
            if not isinstance(source, tuple):  # clique `source`'s belief
                if source not in probs:  # log-probabilities: no overflow
                    probs[source] = np.exp(beliefs[source], out=prob[source])
                source = probs[source]
            else:
                source = marginals[source]
            marginals[node] = _add(source, axis=axes) if axes else source
        loss, grad, mu = 0.0, {}, {}
        for cols, (w, ybar, resid) in self.groups.items():
            mu[cols] = self.total * marginals[self.layout[cols][0], cols].ravel()
            diff = mu[cols] - ybar
            loss += float(_add(w * diff * diff, axis=None)) + resid
            grad[cols] = 2.0 * w * diff
        return loss, grad, mu


def estimate(shape, measurements, *, total=None, cliques=None, n_iter=1000, warm_start=None,
             tol=1e-10, progress=None, accelerate=True, zeros=None, probability=False):
    """The graphical model minimising the L2 marginal loss of ``measurements``.

    Entropic mirror descent of McKenna, Sheldon, Miklau 2019 (module
    docstring) on the potentials ``theta_C``, one per measured column set and
    per extra clique: each step sets ``theta <- theta - alpha * grad`` with
    ``grad_C = sum_i 2 (N p_C - y_i) / sigma_i^2`` over the measurements on
    ``C``; ``alpha`` grows by 1.5 at each step and is halved (at most 25
    times) until the Armijo condition
    ``L(new) <= L(old) - 0.5 <grad, mu_old - mu_new>`` holds (private-pgm's
    backtracking). With ``accelerate`` (the default) the step is taken from
    Nesterov's extrapolated point ``theta_k + (t_{k-1} - 1) / t_k (theta_k -
    theta_{k-1})`` with adaptive restart when the loss goes up (O'Donoghue and
    Candès 2015, "Adaptive restart for accelerated gradient schemes"): the
    same fixed point, reached in far fewer steps when cells of very different
    probability make the plain step slow (measured on a 15-column chain: loss
    602 after 1000 steps against 9107 without). Post-processing only.

    Parameters
    ----------
    shape : sequence of int
        The cardinality of every column.
    measurements : list of Measurement
        The noisy marginals.
    total : float, optional
        The row count. Default: the inverse-variance weighted mean of the
        measurements' sums (each has variance ``sigma^2 * cells``), at least 1,
        as private-pgm estimates it.
    cliques : list of tuple, optional
        Extra cliques the model must contain (default none: the measurements'
        column sets). A potential is kept for each, zero unless warm-started.
    n_iter : int, default=1000
        Maximum number of mirror-descent steps.
    warm_start : GraphicalModel, optional
        A previous model whose potentials seed this one (its cliques join the
        model; cliques new since then start at zero).
    tol : float, default=1e-10
        Stop when a step lowers the loss by less than ``tol`` times the loss.
    progress : callable, optional
        ``progress(i, n_iter, loss)``, called about 20 times.
    accelerate : bool, default=True
        Nesterov momentum with adaptive restart; ``False`` gives private-pgm's
        plain mirror descent.
    zeros : dict, optional
        Structural zeros ``{cols: boolean mask}`` (:class:`GraphicalModel`): each
        column set joins the model as a clique (no measurement: no budget), with
        the fixed log-potential ``-inf`` on its masked cells, so the estimate is 0
        there. The noisy counts measured on cells made of forbidden cells only are
        set to 0 (post-processing with public facts: the loss moves by a constant
        elsewhere). Default: the warm start's, else none.
    probability : bool, default=False
        Evaluate the loss by sum-product in probability space
        (:func:`~.junction_tree.propagate_prob`: one exponential per cell per evaluation,
        the log-space messages' values up to rounding, about half the time), falling
        back to log space for a message out of range and with structural zeros. The
        returned model's beliefs are log-space's either way.

    Returns
    -------
    model : GraphicalModel
        The estimate, with its ``total`` and its ``loss`` attribute set.

    Examples
    --------
    >>> import numpy as np
    >>> m = estimate((2, 2), [Measurement((0, 1), np.array([10.0, 20.0, 30.0, 40.0]), 1.0)])
    >>> np.round(m.project_counts((0, 1)), 3)
    array([[10., 20.],
           [30., 40.]])
    """
    shape = tuple(int(s) for s in shape)
    measurements = list(measurements)
    total = _estimate_total(measurements) if total is None else float(total)
    groups = _group(measurements, shape)
    if zeros is None and warm_start is not None:
        zeros = getattr(warm_start, "zeros", None)
    zeros = log_zeros(zeros)
    groups = _zero_targets(groups, shape, zeros)
    theta = {tuple(sorted(int(c) for c in cl)): None for cl in (cliques or [])}
    theta.update({cols: None for cols in zeros})
    theta.update({cols: None for cols in groups})
    if warm_start is not None:
        theta.update(dict.fromkeys(warm_start.potentials, None))
    for cols in theta:
        old = None if warm_start is None else warm_start.potentials.get(cols)
        theta[cols] = np.zeros([shape[c] for c in cols]) if old is None else old.copy()
    tree = junction_tree(shape, list(theta))
    objective = _Objective(shape, tree, groups, total, _layout(tree, shape, theta), zeros,
                           probability)
    theta = _mirror_descent(objective, theta, n_iter, tol, progress, accelerate)
    model = GraphicalModel(shape, theta, total, tree, zeros=zeros)
    model.loss = objective(theta)[0]
    return model


def _step(objective, point, alpha):
    """One mirror-descent step from ``point = (theta, loss, grad, mu)`` with backtracking.

    Halves ``alpha`` (at most 25 times) until the Armijo condition holds;
    returns the new point and step size, or ``None`` if no step lowered the loss.
    """
    theta, loss, grad, mu = point
    for _ in range(25):
        new = dict(theta)
        new.update({c: theta[c] - alpha * g.reshape(theta[c].shape) for c, g in grad.items()})
        new_loss, new_grad, new_mu = objective(new)
        decrease = sum(float(g @ (mu[c] - new_mu[c])) for c, g in grad.items())
        if loss - new_loss >= 0.5 * decrease:
            return (new, new_loss, new_grad, new_mu), alpha
        alpha *= 0.5
    return None, alpha


def _mirror_descent(objective, theta, n_iter, tol, progress, accelerate):
    """Mirror descent on the potentials; returns them (see :func:`estimate`)."""
    point = (theta, *objective(theta))
    if not point[2]:
        return theta
    alpha = 1.0 / (objective.total * max(np.max(w) for w, _, _ in objective.groups.values()))
    look, t = point, 1.0  # the extrapolated point and Nesterov's sequence
    every = max(1, n_iter // 20)
    for it in range(1, n_iter + 1):
        alpha *= 1.5
        new, alpha = _step(objective, look, alpha)
        if new is None or new[1] > point[1]:
            if look is point:
                break  # no step from the iterate lowers the loss: converged to rounding
            look, t = point, 1.0  # adaptive restart
            continue
        done = point[1] - new[1] <= tol * point[1]
        t_next = (1.0 + math.sqrt(1.0 + 4.0 * t * t)) / 2.0 if accelerate else 1.0
        beta = (t - 1.0) / t_next
        if beta > 0:
            look = {c: new[0][c] + beta * (new[0][c] - point[0][c]) for c in theta}
            look = (look, *objective(look))
        else:
            look = new
        point, t = new, t_next
        if progress is not None and (it % every == 0 or it == n_iter or done):
            progress(it, n_iter, point[1])
        if done:
            break
    return point[0]
