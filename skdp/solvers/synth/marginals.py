"""Marginal queries on a dense histogram, without the workload matrix.

The data domain is the product ``Z = [c_0] x ... x [c_{d-1}]`` of the column
cardinalities; a histogram is a flat vector of length ``|Z|`` read as a
tensor of shape ``(c_0, ..., c_{d-1})``. A marginal on the sorted axes ``S``
is the tensor summed over the other axes (reshape-and-sum, ``O(|Z|)``), and
the workload matrix ``Q`` of paper 002 §1.4 eq. (3) (one row per marginal
cell, ``q(z) = 1[z_S = v]``) is never formed: ``Q x`` is the concatenation of
the marginals of ``x`` and ``Q^T y`` the sum of the per-marginal vectors
broadcast back over the full tensor (:func:`adjoint`). Memory stays
``O(|Z| + sum_S |S-cells|)``.

Sensitivity of the marginal counts (:func:`marginal_sensitivity`): a record
contributes one count to exactly one cell of each marginal, so

* replace-one neighbours (fixed ``n``, paper 002 §1.2): one record moves, each
  of the ``M`` marginals changes by ``e_a - e_b`` (l2 norm ``sqrt 2`` when
  ``a != b``), and the stacked count vector has l2-sensitivity
  ``sqrt(2 M)``;
* add/remove neighbours: one record appears or disappears, each marginal
  changes by ``e_a``, and the l2-sensitivity is ``sqrt(M)``.

Every function computes in the namespace ``xp`` of its arrays.
"""

from dataclasses import dataclass, field
import math

import numpy as np

from ..._backend import array_api_compat, to_numpy

__all__ = ["MarginalProblem", "PartitionMarginalProblem", "histogram_counts",
           "marginal_sensitivity", "replace_one_sensitivity", "softmax"]

MAX_CELLS = 10**7
RELATIONS = ("replace_one", "add_remove")


def marginal_sensitivity(n_marginals, relation="replace_one"):
    """l2-sensitivity of the stacked counts of ``n_marginals`` marginals.

    ``sqrt(2 M)`` under replace-one neighbours and ``sqrt(M)`` under
    add/remove (module docstring).

    Examples
    --------
    >>> marginal_sensitivity(3)
    2.449489742783178
    >>> marginal_sensitivity(4, "add_remove")
    2.0
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}.")
    return math.sqrt((2.0 if relation == "replace_one" else 1.0) * n_marginals)


def replace_one_sensitivity(sensitivity, relation):
    """Replace-one l2-sensitivity of stacked counts of ``sensitivity`` under ``relation``.

    Under add/remove, ``sqrt 2`` times ``sensitivity``: in each count vector a
    record adds or removes one count under add/remove, and under replace-one
    one count goes down and another up (``e_a - e_b``, l2 norm ``sqrt 2``; a
    missing value, counted in no cell, moves only one: less); so ``sqrt(M)``
    becomes ``sqrt(2 M)`` (:func:`marginal_sensitivity`). Recorded with the
    Gaussian release (``replace_sensitivity=``), it lets a replace-one budget
    count an add/remove fit's counts at ``sqrt 2 mu`` instead of group
    privacy's ``2 mu`` (:func:`~skdp.privacy.ledger.replace_ratio`).
    ``None`` under replace-one (nothing to convert).

    Examples
    --------
    >>> replace_one_sensitivity(marginal_sensitivity(4, "add_remove"), "add_remove")
    2.8284271247461903
    >>> replace_one_sensitivity(2.0, "replace_one") is None
    True
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}.")
    return math.sqrt(2.0) * sensitivity if relation == "add_remove" else None


def softmax(logits, xp):
    """Softmax of a 1-D array (max-shifted; the exponential mechanism's law)."""
    e = xp.exp(logits - xp.max(logits))
    return e / xp.sum(e)


@dataclass
class MarginalProblem:
    """A discretised table, its marginal workload and the public settings of its solver.

    Parameters
    ----------
    shape : tuple of int
        Column cardinalities.
    marginals : list of tuple of int
        Each workload marginal as sorted column indices.
    records : ndarray of int64
        Flat domain index of every record (host NumPy array; private).
    relation : {'replace_one', 'add_remove'}
        Neighbouring relation the privacy guarantee refers to.
    n_iter : int, default=None
        The solver's iterations, steps or rounds (``None``: its own schedule).
    tol : float or 'auto', default='auto'
        Stopping rule of the ``smd`` solvers (:func:`~skdp.solvers.synth.smd.solve_smd`).
    progress : callable, default=None
        ``progress(t, total, gap)``, called as the solver advances.
    zeros : ndarray of bool, default=None
        Structural zeros (public, from the domain: :mod:`skdp._domain.forbid`): the flat
        mask of the cells of ``Z`` that cannot occur. Every solver's histogram player
        ranges over the other cells only (:meth:`log_prior` is added to its logits), so
        the released histogram is 0 on them.
    """

    shape: tuple
    marginals: list
    records: np.ndarray
    relation: str = "replace_one"
    n_iter: int | None = None
    tol: object = "auto"
    progress: object = None
    zeros: np.ndarray | None = None
    _prior: dict = field(default_factory=dict, repr=False)

    @property
    def size(self):
        return int(np.prod(self.shape))

    @property
    def n(self):
        return int(self.records.shape[0])

    def cells(self, k):
        """Number of cells of marginal ``k``."""
        return int(np.prod([self.shape[i] for i in self.marginals[k]]))

    @property
    def n_cells(self):
        return sum(self.cells(k) for k in range(len(self.marginals)))

    def log_prior(self, xp, like):
        """``0`` on the allowed cells and ``-inf`` on the structural zeros (flat, in the
        namespace, dtype and device of ``like``), or ``0.0`` without structural zeros: added
        to a histogram player's logits, it restricts the player to the allowed cells."""
        if self.zeros is None:
            return 0.0
        key = (id(xp), str(like.dtype), str(_device(like)))
        if key not in self._prior:
            host = np.where(self.zeros, -np.inf, 0.0)
            self._prior[key] = xp.asarray(host, dtype=like.dtype, device=_device(like))
        return self._prior[key]

    def clear_zeros(self, k, answer, xp):
        """``answer`` (marginal ``k``'s noisy answer, flat) set to 0 on the cells that hold
        structural zeros only (every cell of ``Z`` projecting to them is forbidden): the
        noise measured there is post-processed away with public facts. Unchanged without
        structural zeros."""
        if self.zeros is None:
            return answer
        allowed = self.marginal((~self.zeros).astype(np.float64), k, np)
        if allowed.all():
            return answer
        keep = xp.asarray(allowed > 0, device=_device(answer))
        return xp.where(keep, answer, xp.zeros_like(answer))

    # histogram <-> marginals, in any namespace --------------------------------
    def marginal(self, x, k, xp):
        """Marginal ``k`` of the flat histogram ``x`` (flat vector)."""
        axes = self.marginals[k]
        if isinstance(x, np.ndarray) and len(self.shape) <= 52:  # NumPy fast path
            letters = [chr(65 + i) if i < 26 else chr(71 + i) for i in range(len(self.shape))]
            spec = "".join(letters) + "->" + "".join(letters[i] for i in axes)
            return np.einsum(spec, x.reshape(self.shape)).reshape(-1)
        other = tuple(i for i in range(len(self.shape)) if i not in axes)
        full = xp.reshape(x, self.shape)
        out = xp.sum(full, axis=other) if other else full
        return xp.reshape(out, (-1,))

    def answer(self, x, xp):
        """``Q x``: every workload marginal of ``x``, as a list of flat vectors."""
        return [self.marginal(x, k, xp) for k in range(len(self.marginals))]

    def expand(self, v, k, xp):
        """Marginal-``k`` vector ``v`` reshaped to broadcast over the full tensor."""
        axes = self.marginals[k]
        bshape = tuple(self.shape[i] if i in axes else 1 for i in range(len(self.shape)))
        return xp.reshape(v, bshape)

    def adjoint(self, vs, xp, like):
        """``Q^T y`` for per-marginal vectors ``vs`` (flat, length ``|Z|``)."""
        out = xp.zeros(self.shape, dtype=like.dtype, device=_device(like))
        for k, v in enumerate(vs):
            if isinstance(out, np.ndarray):
                out += self.expand(v, k, xp)  # in place on NumPy
            else:
                out = out + self.expand(v, k, xp)
        return xp.reshape(out, (-1,))

    def counts(self, backend, records=None):
        """Count histogram of the records (host bincount, moved to the backend)."""
        records = self.records if records is None else records
        hist = np.bincount(records, minlength=self.size).astype(np.float64)
        return backend.asarray(hist)

    def record_marginals(self, records):
        """Host count vectors of every marginal for a set of records (``O(len * M)``)."""
        cols = np.unravel_index(records, self.shape)
        out = []
        for axes in self.marginals:
            sub = tuple(self.shape[i] for i in axes)
            idx = np.ravel_multi_index(tuple(cols[i] for i in axes), sub)
            out.append(np.bincount(idx, minlength=int(np.prod(sub))).astype(np.float64))
        return out

    def cell_indicator(self, k, cell, xp, like):
        """Row ``q`` of ``Q`` for cell ``cell`` of marginal ``k`` (flat, ``O(|Z|)``)."""
        v = np.zeros(self.cells(k))
        v[cell] = 1.0
        return self.adjoint_one(k, xp.asarray(v, dtype=like.dtype, device=_device(like)), xp, like)

    def adjoint_one(self, k, v, xp, like):
        out = xp.zeros(self.shape, dtype=like.dtype, device=_device(like)) + self.expand(v, k, xp)
        return xp.reshape(out, (-1,))

    def record_cells(self, z):
        """Cell index of domain point ``z`` in every marginal (host ints)."""
        cols = np.unravel_index(int(z), self.shape)
        return [int(np.ravel_multi_index(tuple(cols[i] for i in axes),
                                          tuple(self.shape[i] for i in axes)))
                for axes in self.marginals]


def histogram_counts(part, shape):
    """Count histogram (float64, flat over the whole domain ``shape``) of the rows
    ``part["codes"]`` (int array of shape (rows, d)): additive over row blocks.

    Examples
    --------
    >>> histogram_counts({"codes": np.array([[0, 1], [0, 1]])}, (2, 2)).tolist()
    [0.0, 2.0, 0.0, 0.0]
    """
    codes = part["codes"]
    flat = np.ravel_multi_index(tuple(codes[:, j] for j in range(len(shape))), shape)
    return np.bincount(flat, minlength=math.prod(shape)).astype(np.float64)


class PartitionMarginalProblem(MarginalProblem):
    """A :class:`MarginalProblem` whose rows are the partitions of a Dask table.

    ``records`` is a :class:`~skdp._partitions.Partitions` whose partitions hold
    ``{"codes": (rows, d)}`` (unsigned integers); the histogram (:meth:`counts`) is one
    reduction of :func:`histogram_counts` over them (``|Z|`` float64 per
    partition sent back: the domain is capped at :data:`MAX_CELLS`). The
    solvers that read single records (the private games) cannot use it.
    """

    @property
    def n(self):
        return self.records.n

    def counts(self, backend, records=None):
        if records is not None:
            raise TypeError("a partitioned table has no records on the client.")
        return backend.asarray(self.records.reduce(histogram_counts, tuple(self.shape)))


def _device(x):
    """Device of an array of any namespace (``'cpu'`` for NumPy)."""
    return array_api_compat.device(x)


def total_variation(p_marginals, q_marginals):
    """Per-marginal total-variation distances between two lists of host vectors."""
    return np.array([0.5 * float(np.abs(to_numpy(p) - to_numpy(q)).sum())
                     for p, q in zip(p_marginals, q_marginals)])
