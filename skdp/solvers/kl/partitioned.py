"""The clipped objective of a table held in partitions (a Dask collection): one pass, one sum.

:class:`PartitionedObjective` answers what a paper-004 solver asks of an
:class:`~skdp.solvers.kl.problem.Objective` (``n``, ``alpha``,
``clipped_grad``, ``clipped_diff``, ``rows``, ``grad_norm_counts``) with the
same block functions of :mod:`skdp.solvers.kl.models`, called on each
partition of a :class:`skdp._partitions.Partitions` where it lives and
summed on the client: each query is one pass over the partitions (one
``Partitions.reduce``, or ``Partitions.reduce_rows`` for the rows of a
subsample drawn on the client). The solvers run unchanged; every release is
still drawn by the solver through its budget, on the client, in the same
order as in memory, so a partitioned fit equals the in-memory fit of the
same seed up to the order of floating-point additions.

The partitions hold ``"X"`` (the clipped features) and ``"y"`` (the clipped
targets); the squared row norms of the design (``"sq"``, which depend on the
released preconditioner) are added in cluster memory on first use.
"""

import numpy as np

from ..._backend import get_namespace
from .models import (Design, RowModel, clipped_diff_block, clipped_grad_block,
                     grad_norm_counts_block, second_moment_block)

__all__ = ["PartitionedDesign", "PartitionedObjective"]


class PartitionedDesign:
    """The design ``[X, c 1] P`` of partitioned rows (``"X"``: the clipped features).

    Parameters
    ----------
    parts : skdp._partitions.Partitions
        Per-row arrays ``"X"`` (n, d) and ``"y"`` (n,).
    n_features : int
        ``d``.
    intercept : float or None
        ``c`` (None: no intercept column).
    P : ndarray of shape (p, p) or None
        Preconditioner (None: the identity).
    dtype : dtype
        Float dtype of the features.

    Examples
    --------
    >>> import dask.array as da
    >>> from skdp._partitions import Partitions
    >>> X = da.from_array(np.array([[1.0], [3.0]]), chunks=(1, 1))
    >>> parts = Partitions.from_arrays({"X": X, "y": X[:, 0]})
    >>> D = PartitionedDesign(parts, 1, 2.0, None, X.dtype)
    >>> D.shape, D.second_moment().tolist()
    ((2, 2), [[5.0, 4.0], [4.0, 4.0]])
    """

    def __init__(self, parts, n_features, intercept, P, dtype):
        self.parts, self.d, self.intercept, self.P = parts, n_features, intercept, P
        self.dtype = np.dtype(dtype)
        self.shape = (parts.n, n_features + (intercept is not None))

    def second_moment(self):
        """``[X, c 1]^T [X, c 1] / n`` (without ``P``): one pass."""
        return self.parts.reduce(second_moment_block, self.intercept, self.shape[0])

    def preconditioned(self, P, bound=None):
        """The same rows in the coordinates of the preconditioner ``P`` (``bound`` is not
        used: a partitioned fit takes the exact norms, on its partitions)."""
        return PartitionedDesign(self.parts, self.d, self.intercept, P, self.dtype)


def row_sq_norms_part(part, intercept, P):
    """``{"sq": ...}``: the squared norms of the rows of ``[X, c 1] P`` of ``part``.

    Examples
    --------
    >>> row_sq_norms_part({"X": np.array([[3.0, 4.0]])}, 1.0, None)["sq"].tolist()
    [26.0]
    """
    X = part["X"]
    return {"sq": Design(X, intercept, P, get_namespace(X)).row_sq_norms()}


class PartitionedObjective:
    """:class:`~skdp.solvers.kl.problem.Objective` of a :class:`PartitionedDesign` (see module).

    Parameters
    ----------
    design : PartitionedDesign
    loss : loss object from :mod:`skdp.solvers.losses.regression`
    model : LinearModel or MLPModel
    alpha : float
        Ridge strength.
    index : ndarray of int, default=None
        Sorted global row numbers the objective is restricted to (see :meth:`rows`).
    parts : skdp._partitions.Partitions, default=None
        The partitions with their squared row norms, when already computed.

    Examples
    --------
    >>> import dask.array as da
    >>> from skdp._partitions import Partitions
    >>> from skdp.solvers.kl.models import LinearModel
    >>> from skdp.solvers.kl.problem import Objective
    >>> from skdp.solvers.losses.regression import make_loss
    >>> X = np.random.default_rng(0).normal(size=(50, 2)) / 4
    >>> y = X[:, 0] - X[:, 1]
    >>> parts = Partitions.from_arrays({"X": da.from_array(X, chunks=(20, 2)),
    ...                                 "y": da.from_array(y, chunks=20)})
    >>> obj = PartitionedObjective(PartitionedDesign(parts, 2, 1.0, None, X.dtype),
    ...                            make_loss("squared"), LinearModel(3), 0.0)
    >>> w = np.array([0.5, 0.0, 0.1])
    >>> ref = Objective(np.hstack([X, np.ones((50, 1))]), y, make_loss("squared"),
    ...                 LinearModel(3), 0.0, np)
    >>> bool(np.allclose(obj.clipped_grad(w, 0.2), ref.clipped_grad(w, 0.2)))
    True
    """

    def __init__(self, design, loss, model, alpha, *, index=None, parts=None):
        self.X, self.loss, self.model, self.alpha = design, loss, model, alpha
        self.xp = get_namespace(np.zeros(0))
        self._index, self._parts = index, parts
        self.n = design.parts.n if index is None else int(index.shape[0])
        self._rows = RowModel(loss, model, design.intercept, design.P)

    def _with_sq(self):
        """The partitions with the squared row norms, computed (and persisted) once."""
        if self._parts is None:
            X = self.X
            self._parts = X.parts.with_columns(row_sq_norms_part, X.intercept, X.P)
        return self._parts

    def _pass(self, fn, *args):
        parts = self._with_sq()
        if self._index is None:
            return parts.reduce(fn, *args)
        return parts.reduce_rows(self._index, fn, *args)

    def rows(self, idx, alpha=None):
        """The objective restricted to the rows ``idx`` (sorted global row numbers, drawn on
        the client): each query reads only those rows of each partition."""
        return PartitionedObjective(self.X, self.loss, self.model,
                                    self.alpha if alpha is None else alpha,
                                    index=np.asarray(idx, dtype=np.int64),
                                    parts=self._with_sq())

    def grad_norm_counts(self, w, grid, idx=None):
        """Counts of the per-sample gradient norms at ``w`` in the cells cut by ``grid`` (over
        the rows ``idx`` where given)."""
        if idx is not None:
            return self.rows(idx).grad_norm_counts(w, grid)
        return self._pass(grad_norm_counts_block, w, [float(g) for g in grid], self._rows)

    def clipped_grad(self, w, clip):
        """Mean of per-sample gradients clipped to norm ``clip``, plus ``alpha w``: one pass."""
        return self._pass(clipped_grad_block, w, clip, self.n, self._rows) + self.alpha * w

    def clipped_diff(self, w1, w0, clip):
        """Mean of per-sample gradient differences clipped to ``clip``, plus ``alpha (w1 -
        w0)``: one pass."""
        return (self._pass(clipped_diff_block, w1, w0, clip, self.n, self._rows)
                + self.alpha * (w1 - w0))
