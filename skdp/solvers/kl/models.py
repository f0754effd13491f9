"""The regressor's data model (paper 004): the clipped design, the models and the
per-row kernels (``*_block``) that the in-memory objective and the Dask one both run.

The problem the solvers see is :mod:`skdp.solvers.kl.problem` (the clipped empirical
objective built on these kernels, the public constants, the start); the private
preconditioner is :mod:`skdp.solvers.kl.preconditioner`. Per-sample gradients are never
materialised: a model's per-sample gradient is ``phi'(z_i, y_i) J_i`` with
``J_i = dz_i/dw``, and the models give ``||J_i||**2``, ``<J_i(w1), J_i(w0)>`` and
``sum_i u_i J_i`` in closed form (ghost clipping).
"""

import math

from ..._backend import array_api_compat
from ...privacy.clipping import clip_factors
from ...privacy.quantile import cell_counts
from ..shared.arrays import column_sums

__all__ = ["Design", "LinearModel", "MLPModel", "RowModel", "clipped_grad_block",
           "clipped_diff_block", "grad_norms_block", "grad_norm_counts_block",
           "second_moment_block", "clip_scale"]

ROW_CHUNK = 8192  # rows per block where a product with P would otherwise be (n, p)


class Design:
    """The design ``[X, c 1] P`` as an operator: products only, never materialised.

    A batch fit keeps one array, the clipped ``X`` of shape (n, d); the
    intercept column ``c 1`` and the preconditioner ``P`` (symmetric, (p, p)
    with ``p = d + 1`` when there is an intercept) enter only through
    products: ``Design @ W = X (P W)[:d] + c (P W)[d]`` and
    ``rmatmul(U) = [U X, c U 1] P`` (issue 18: the design with its
    intercept column and the preconditioned copy ``X P`` took about 1.7
    copies of ``X``). The algebra is that of the materialised
    ``[X, c 1] P``, so the solvers and their privacy are unchanged.

    Parameters
    ----------
    X : array of shape (n, d)
        Clipped features.
    intercept : float or None
        ``c``, the constant of the intercept column (None: no column).
    P : array of shape (p, p) or None
        Symmetric preconditioner (None: the identity).
    xp : namespace
    scale : array of shape (n,) or None
        Per-row factors applied on the fly: the design's rows are ``scale_i x_i``
        (the clip factors ``min(1, B / ||x_i||)`` of the rows of a user's ``X``,
        so that the fit keeps no clipped copy; issue 31). None: all 1.
    bound : NormBound or None
        An upper bound on ``||P x||**2`` cheaper than the product
        (:class:`~skdp.solvers.kl.preconditioner.NormBound`): :meth:`row_sq_bounds`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> D = Design(X, 1.0, 2.0 * np.eye(3), np)
    >>> D.shape, (D @ np.ones(3)).tolist(), D.rmatmul(np.ones(2)).tolist()
    ((2, 3), [8.0, 16.0], [8.0, 12.0, 4.0])
    >>> np.allclose(D.dense(), np.hstack([X, np.ones((2, 1))]) @ (2.0 * np.eye(3)))
    True
    """

    def __init__(self, X, intercept, P, xp, scale=None, bound=None):
        self.X, self.intercept, self.P, self.xp = X, intercept, P, xp
        self.scale, self.bound = scale, bound
        self.d = int(X.shape[1])
        self.shape = (int(X.shape[0]), self.d + (intercept is not None))
        self.dtype = X.dtype

    def _rows(self, X, V, scale=None):
        out = X @ V[:self.d, ...]
        if scale is not None:
            out = (scale if out.ndim == 1 else scale[:, None]) * out
        if self.intercept is not None:
            out = out + self.intercept * V[self.d, ...]
        return out

    def __matmul__(self, W):
        """``[X, c 1] P W`` for ``W`` of shape (p,) or (p, k)."""
        return self._rows(self.X, W if self.P is None else self.P @ W, self.scale)

    def rmatmul(self, U):
        """``U [X, c 1] P`` for ``U`` of shape (n,) or (m, n)."""
        xp = self.xp
        A = (U if self.scale is None else U * self.scale) @ self.X
        if self.intercept is not None:
            last = self.intercept * xp.sum(U, axis=-1)
            A = xp.concat([A, xp.reshape(last, (*A.shape[:-1], 1))], axis=-1)
        return A if self.P is None else A @ self.P

    def _scale_rows(self, start, stop):
        return None if self.scale is None else self.scale[start:stop]

    def row_sq_norms(self):
        """Squared norms of the rows of ``[X, c 1] P``, in blocks of ``ROW_CHUNK`` rows."""
        xp, n = self.xp, self.shape[0]
        if self.P is None:
            sq = xp.sum(self.X * self.X, axis=1)
            if self.scale is not None:
                sq = self.scale * self.scale * sq
            return sq if self.intercept is None else sq + self.intercept**2
        blocks = []
        for start in range(0, max(n, 1), ROW_CHUNK):  # one (empty) block when n = 0
            stop = min(start + ROW_CHUNK, n)
            Z = self._rows(self.X[start:stop, ...], self.P, self._scale_rows(start, stop))
            blocks.append(xp.sum(Z * Z, axis=1))
        return blocks[0] if len(blocks) == 1 else xp.concat(blocks)

    def row_sq_bounds(self):
        """Upper bounds on the squared row norms of ``[X, c 1] P`` from ``bound``
        (``top (1 + margin) ||x~||**2 - ||H^T x~||**2``, ``x~`` the row of ``[X, c 1]``),
        in blocks of ``ROW_CHUNK`` rows; None without a bound."""
        if self.bound is None:
            return None
        xp, n, b = self.xp, self.shape[0], self.bound
        blocks = []
        for start in range(0, max(n, 1), ROW_CHUNK):
            stop = min(start + ROW_CHUNK, n)
            rows = Design(self.X[start:stop, ...], self.intercept, None, xp,
                          self._scale_rows(start, stop))
            Z = rows @ b.head
            blocks.append(b.top * (1.0 + b.margin) * rows.row_sq_norms()
                          - xp.sum(Z * Z, axis=1))
        return blocks[0] if len(blocks) == 1 else xp.concat(blocks)

    def second_moment(self):
        """``[X, c 1]^T [X, c 1] / n`` (without ``P``), with no (n, p) temporary (rows scaled
        by ``scale`` in blocks of ``ROW_CHUNK`` rows when there is one)."""
        n = self.shape[0]
        if self.scale is None:
            return second_moment_block({"X": self.X}, self.intercept, n)
        total = None
        for start in range(0, max(n, 1), ROW_CHUNK):
            stop = min(start + ROW_CHUNK, n)
            block = self.X[start:stop, ...] * self.scale[start:stop, None]
            part = second_moment_block({"X": block}, self.intercept, n)
            total = part if total is None else total + part
        return total

    def preconditioned(self, P, bound=None):
        """The same rows in the coordinates of the preconditioner ``P`` (``bound``: its
        :class:`~skdp.solvers.kl.preconditioner.NormBound`, or None)."""
        return Design(self.X, self.intercept, P, self.xp, self.scale, bound)

    def take(self, idx):
        """The rows ``idx`` (a subsample) as a :class:`Design` with the same ``c``, ``P``
        and bound."""
        xp = self.xp
        scale = None if self.scale is None else xp.take(self.scale, idx, axis=0)
        return Design(xp.take(self.X, idx, axis=0), self.intercept, self.P, xp, scale,
                      self.bound)

    def dense(self):
        """``[X, c 1] P`` materialised (the solvers that need an array: Goldstein, streams)."""
        return self @ self.xp.eye(self.shape[1], dtype=self.dtype, device=_device(self.X))


def _device(a):
    return array_api_compat.device(a)


def rmatmul(U, X):
    """``U @ X`` for an array or a :class:`Design` ``X``."""
    return X.rmatmul(U) if isinstance(X, Design) else U @ X


def row_sq_norms(X, xp):
    """Squared row norms of an array or a :class:`Design`."""
    return X.row_sq_norms() if isinstance(X, Design) else xp.sum(X * X, axis=1)


class LinearModel:
    """``z = X w`` (an intercept is a constant column of ``X``).

    Examples
    --------
    >>> import numpy as np
    >>> m = LinearModel(2)
    >>> m.forward(np.array([1.0, 2.0]), np.eye(2), np)[0].tolist()
    [1.0, 2.0]
    """

    def __init__(self, n_features):
        self.n_features = n_features
        self.n_params = n_features

    def init(self, backend, dtype):
        return backend.xp.zeros(self.n_params, dtype=dtype, device=backend.device)

    def forward(self, w, X, xp):
        return X @ w, None

    def jac_sq_norms(self, cache, x_sq_norms, xp):
        return x_sq_norms

    def jac_inner(self, cache1, cache0, x_sq_norms, xp):
        return x_sq_norms

    def vjp(self, cache, u, X, xp):
        """``sum_i u_i J_i``."""
        return rmatmul(u, X)


class MLPModel:
    """One hidden layer: ``z = v . tanh(W x + b) + c``, parameters flattened.

    With ``h_i = W x_i + b``, ``A_i = tanh(h_i)`` and ``a_i = v * tanh'(h_i)``
    the Jacobian blocks are ``(a_i x_i^T, a_i, A_i, 1)``, so
    ``||J_i||**2 = ||A_i||**2 + 1 + ||a_i||**2 (||x_i||**2 + 1)`` and inner
    products of two Jacobians factor the same way.

    Examples
    --------
    >>> import numpy as np
    >>> m = MLPModel(3, 4)
    >>> m.n_params
    21
    """

    def __init__(self, n_features, width):
        self.n_features = n_features
        self.width = width
        self.n_params = width * n_features + 2 * width + 1

    def init(self, backend, dtype):
        """Random, data-independent start: ``W ~ N(0, 1/d)``, ``v ~ N(0, 1/m)`` (public draws)."""
        xp, d, m = backend.xp, self.n_features, self.width
        W = backend.public_normal((m * d,), scale=1.0 / math.sqrt(d), dtype=dtype)
        v = backend.public_normal((m,), scale=1.0 / math.sqrt(m), dtype=dtype)
        zeros = xp.zeros(m + 1, dtype=dtype, device=backend.device)
        return xp.concat([W, zeros[:m], v, zeros[m:]])

    def unpack(self, w, xp):
        d, m = self.n_features, self.width
        W = xp.reshape(w[: m * d], (m, d))
        return W, w[m * d: m * d + m], w[m * d + m: m * d + 2 * m], w[m * d + 2 * m]

    def forward(self, w, X, xp):
        W, b, v, c = self.unpack(w, xp)
        A = xp.tanh(X @ W.T + b)
        a = v * (1.0 - A * A)
        return A @ v + c, (A, a)

    def jac_sq_norms(self, cache, x_sq_norms, xp):
        A, a = cache
        return xp.sum(A * A, axis=1) + 1.0 + xp.sum(a * a, axis=1) * (x_sq_norms + 1.0)

    def jac_inner(self, cache1, cache0, x_sq_norms, xp):
        (A1, a1), (A0, a0) = cache1, cache0
        return (xp.sum(A1 * A0, axis=1) + 1.0
                + xp.sum(a1 * a0, axis=1) * (x_sq_norms + 1.0))

    def vjp(self, cache, u, X, xp):
        A, a = cache
        G = u[:, None] * a
        gW = rmatmul(G.T, X)
        return xp.concat([xp.reshape(gW, (-1,)), xp.sum(G, axis=0), u @ A,
                          xp.reshape(xp.sum(u), (1,))])

    def jacobians(self, w, X, xp):
        """Explicit per-sample Jacobians, shape (n, n_params): tests only."""
        W, b, v, c = self.unpack(w, xp)
        A, a = self.forward(w, X, xp)[1]
        n = X.shape[0]
        gW = xp.reshape(a[:, :, None] * X[:, None, :], (n, -1))
        ones = xp.ones((n, 1), dtype=X.dtype, device=array_api_compat.device(X))
        return xp.concat([gW, a, A, ones], axis=1)


class RowModel:
    """What a row's clipped gradient depends on besides the row: all public.

    The loss, the model, and the constant ``c`` of the intercept column and
    the preconditioner ``P`` of the design ``[X, c 1] P`` (None: none). The
    block functions below take one, with a block of rows as a dict of
    per-row arrays (``"X"``, ``"y"``, ``"sq"``: the clipped features, the
    clipped targets, the squared row norms of the design).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.solvers.losses.regression import make_loss
    >>> rows = RowModel(make_loss("squared"), LinearModel(2), intercept=1.0)
    >>> part = {"X": np.array([[2.0]]), "y": np.array([0.0]), "sq": np.array([5.0])}
    >>> grad_norms_block(part, np.array([1.0, 1.0]), rows).tolist()  # |3| * sqrt(5)
    [6.708203932499369]
    """

    def __init__(self, loss, model, intercept=None, P=None):
        self.loss, self.model, self.intercept, self.P = loss, model, intercept, P


# Per-row maths on one block of rows, as module-level functions of a dict of per-row arrays
# and public arguments: an in-memory Objective calls them on all its rows at once, a
# partitioned one (skdp.solvers.kl.partitioned) on each partition, the results summed.

def _residuals(part, w, rows):
    xp = array_api_compat.array_namespace(part["X"])
    X = Design(part["X"], rows.intercept, rows.P, xp, part.get("scale"))
    z, cache = rows.model.forward(w, X, xp)
    return xp, X, rows.loss.derivative(z, part["y"], xp), cache


def clip_scale(norms, bound, xp):
    """``clip_factors`` of ``norms`` at ``bound``; ones at an infinite bound."""
    if math.isinf(bound):
        return xp.ones_like(norms)
    return clip_factors(norms, bound, xp)


def grad_norms_block(part, w, rows):
    """Per-row gradient norms ``|phi'(z_i, y_i)| ||J_i||`` at ``w`` of the rows of ``part``."""
    xp, _, r, cache = _residuals(part, w, rows)
    return _grad_norms(part, r, cache, rows, xp)


def _grad_norms(part, r, cache, rows, xp):
    return xp.abs(r) * xp.sqrt(rows.model.jac_sq_norms(cache, part["sq"], xp))


def grad_norm_counts_block(part, w, grid, rows):
    """Counts of the rows' gradient norms in the cells cut by ``grid`` (a histogram).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.solvers.losses.regression import make_loss
    >>> part = {"X": np.eye(2), "y": np.array([-3.0, 0.5]), "sq": np.ones(2)}
    >>> rows = RowModel(make_loss("squared"), LinearModel(2))
    >>> grad_norm_counts_block(part, np.zeros(2), [1.0], rows).tolist()
    [1.0, 1.0]
    """
    xp = array_api_compat.array_namespace(part["X"])
    return cell_counts(grad_norms_block(part, w, rows), grid, xp)


def clipped_grad_block(part, w, clip, n, rows):
    """``sum_i g_i / n`` over the rows of ``part``, each gradient ``g_i`` clipped to ``clip``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.solvers.losses.regression import make_loss
    >>> part = {"X": np.eye(2), "y": np.array([-3.0, 0.5]), "sq": np.ones(2)}
    >>> rows = RowModel(make_loss("squared"), LinearModel(2))
    >>> clipped_grad_block(part, np.zeros(2), 1.0, 2, rows).tolist()
    [0.5, -0.25]
    """
    xp, X, r, cache = _residuals(part, w, rows)
    u = clip_scale(_grad_norms(part, r, cache, rows, xp), clip, xp) * r / n
    return rows.model.vjp(cache, u, X, xp)


def clipped_diff_block(part, w1, w0, clip, n, rows):
    """``sum_i d_i / n`` over the rows of ``part``, ``d_i = grad f_i(w1) - grad f_i(w0)``
    clipped to ``clip``; norms from ``||r1 J1 - r0 J0||**2 = r1**2 ||J1||**2 + r0**2
    ||J0||**2 - 2 r1 r0 <J1, J0>``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.solvers.losses.regression import make_loss
    >>> part = {"X": np.eye(2), "y": np.zeros(2), "sq": np.ones(2)}
    >>> rows = RowModel(make_loss("squared"), LinearModel(2))
    >>> clipped_diff_block(part, np.array([4.0, 0.5]), np.zeros(2), 1.0, 2, rows).tolist()
    [0.5, 0.25]
    """
    xp, X, r1, c1 = _residuals(part, w1, rows)
    _, _, r0, c0 = _residuals(part, w0, rows)
    m, x_sq = rows.model, part["sq"]
    sq = (r1 * r1 * m.jac_sq_norms(c1, x_sq, xp) + r0 * r0 * m.jac_sq_norms(c0, x_sq, xp)
          - 2.0 * r1 * r0 * m.jac_inner(c1, c0, x_sq, xp))
    s = clip_scale(xp.sqrt(xp.maximum(sq, xp.zeros_like(sq))), clip, xp) / n
    return m.vjp(c1, s * r1, X, xp) - m.vjp(c0, s * r0, X, xp)


def second_moment_block(part, intercept, n):
    """``[X, c 1]^T [X, c 1] / n`` over the rows ``X`` of ``part`` (``n``: all the fit's rows).

    Examples
    --------
    >>> import numpy as np
    >>> second_moment_block({"X": np.array([[1.0], [3.0]])}, 2.0, 2).tolist()
    [[5.0, 4.0], [4.0, 4.0]]
    """
    X = part["X"]
    xp = array_api_compat.array_namespace(X)
    S = X.T @ X / n
    if intercept is None:
        return S
    c = intercept
    col = xp.reshape(c * column_sums(X, xp) / n, (-1, 1))
    corner = xp.full((1, 1), c * c * (int(X.shape[0]) / n), dtype=S.dtype, device=_device(S))
    return xp.concat([xp.concat([S, col], axis=1), xp.concat([col.T, corner], axis=1)], axis=0)
