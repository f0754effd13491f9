"""Logistic and multinomial losses of a linear model, per sample and vectorised.

The model is ``Z = s * (X @ W.T) - center @ W.T + c * b`` where ``s`` are
the per-row clipping factors (rows of ``X`` scaled to l2 norm at most the
public ``feature_bound``), ``center`` an optional public (privately
released) centre, ``c`` the public intercept feature and ``b`` the
intercept. Rows are never copied: the clipped design ``diag(s) X`` is applied
through ``s``. Every function works in the array namespace ``xp`` of its input
(NumPy, CuPy, array-api-strict) and has no loop over samples.

Per-sample gradients are outer products ``r_i a_i^T`` with ``r_i = dloss/dz_i``
and ``a_i = (s_i x_i, c)``, so their Frobenius norm is ``||r_i|| ||a_i||``:
clipping never forms them.

Constants (``u`` is the margin, ``a`` the augmented row, ``||a|| <= A``):

* binary logistic ``log(1 + exp(-y u))``: ``|dl/du| <= 1``, ``d2l/du2 <= 1/4``,
  ``|d3l/du3| <= 1/(6 sqrt 3)`` (notes 002 §6.8), so the per-sample gradient
  is ``A``-Lipschitz in l2 and ``A**2/4``-smooth;
* multinomial ``logsumexp(z) - z_y``: ``||softmax(z) - e_y||_2 <= sqrt 2``,
  ``||.||_inf <= 1``, Hessian ``diag(p) - p p^T <= 1/2`` (Böhning 1992), so
  ``sqrt(2) A``-Lipschitz and ``A**2/2``-smooth.
"""

import math

import numpy as np

from ...privacy.clipping import clip_factors, row_norms

__all__ = ["LinearData", "loss_and_residual", "lipschitz", "smoothness",
           "curvature_at_zero",
           "loss_bound",
           "LOSSES", "ramp_loss", "BLOCK_BYTES"]

LOSSES = ("logistic", "ramp")

BLOCK_BYTES = 1 << 22
"""Bytes of ``X`` per block of :meth:`LinearData.residual_gradient`: a block stays in cache
between its two products (4 MiB was fastest of 0.25 to 16 MiB, benchmarks/scale.py)."""


def ramp_loss(Z, T, xp):
    """Ramp loss ``min(1, max(0, 1 - mu))`` of the margin ``mu`` and its derivative in ``Z``.

    Binary (``k = 1``, ``T = +-1``): ``mu = y z``, derivative ``-y`` on
    ``0 < mu < 1``, so ``|dl/dz| <= 1``. Multiclass (one-hot ``T``): ``mu =
    z_y - max_{j != y} z_j`` (a capped Crammer–Singer hinge, notes 001 §5.2),
    derivative ``e_j* - e_y`` on ``0 < mu < 1``, of l2 norm ``sqrt 2``. Values
    lie in [0, 1] (so ``Phi = 1`` for ``theta = 0``, where every loss is 1);
    Lipschitz, nonsmooth, nonconvex (paper 001's setting). Shapes: ``Z`` is
    ``(..., k)``, ``T`` broadcastable to it; values ``(...)``.

    Examples
    --------
    >>> import numpy as np
    >>> v, g = ramp_loss(np.array([[0.5], [2.0]]), np.array([[1.0], [1.0]]), np)
    >>> v.tolist(), g.ravel().tolist()
    ([0.5, 0.0], [-1.0, -0.0])
    """
    if Z.shape[-1] == 1:
        mu = (T * Z)[..., 0]
        active = xp.astype((mu > 0) & (mu < 1), Z.dtype)
        return xp.clip(1.0 - mu, 0.0, 1.0), -T * active[..., None]
    big = xp.full_like(Z, -xp.inf)
    others = xp.where(T > 0, big, Z)
    top = xp.max(others, axis=-1)
    mu = xp.sum(Z * T, axis=-1) - top
    active = xp.astype((mu > 0) & (mu < 1), Z.dtype)
    runner = xp.astype(others == top[..., None], Z.dtype)
    runner = runner / xp.sum(runner, axis=-1, keepdims=True)
    return xp.clip(1.0 - mu, 0.0, 1.0), (runner - T) * active[..., None]


class LinearData:
    """Clipped design, labels and groups of one fit, in one array namespace.

    Parameters
    ----------
    X : array of shape (n, p)
        Features (not copied).
    y_codes : array of shape (n,)
        Integer class codes in ``[0, n_classes)``.
    group_codes : array of shape (n,)
        Integer group codes in ``[0, n_groups)``.
    n_classes, n_groups : int
    feature_bound : float
        Public l2 bound on each row; rows are scaled down to it.
    intercept_scale : float
        Value of the constant intercept feature (0: no intercept).
    xp : namespace
    center : array of shape (p,), default=None
        A public (privately released) vector subtracted from the clipped rows:
        the rows used are ``s_i x_i - center``.
    norms : array of shape (n,), default=None
        The l2 norms of the rows of ``X`` if already known (as
        :func:`~skdp.privacy.clipping.clip_overflowing_rows` returns
        them); None: computed here (one pass over ``X``).

    Attributes
    ----------
    scale : array of shape (n,)
        Row clipping factors ``min(1, feature_bound / ||x_i||)``.
    row_norm : array of shape (n,)
        l2 norm of the augmented clipped row ``(s_i x_i, c)``.
    onehot : array of shape (n, n_groups)
        Group indicator matrix.
    targets : array of shape (n, k)
        ``+-1`` labels (binary, ``k = 1``) or one-hot classes (``k = n_classes``).

    Only O(n) arrays are stored beside ``X``; no method makes an (n, p) temporary
    (the margins and gradients are products with ``X`` itself).

    Examples
    --------
    >>> X = np.array([[3.0, 4.0], [0.3, 0.4]])
    >>> data = LinearData(X, np.array([0, 1]), np.array([0, 1]), 2, 2, 1.0, 1.0, np)
    >>> data.scale.tolist(), data.margins(np.ones((1, 2)), np.zeros(1)).ravel().round(2).tolist()
    ([0.2, 1.0], [1.4, 0.7])
    """

    def __init__(self, X, y_codes, group_codes, n_classes, n_groups, feature_bound,
                 intercept_scale, xp, center=None, norms=None):
        self.xp = xp
        self.X = X
        self.n, self.p = X.shape
        self.n_classes = n_classes
        self.n_groups = n_groups
        self.k = 1 if n_classes <= 2 else n_classes
        self.intercept_scale = float(intercept_scale)
        self.feature_bound = float(feature_bound)
        self.norms = row_norms(X, xp) if norms is None else norms
        self.scale = clip_factors(self.norms, self.feature_bound, xp)
        self.center = center
        self.row_norm = self._row_norm(self.norms)
        dtype = X.dtype
        self.onehot = xp.astype(group_codes[:, None] == xp.arange(n_groups)[None, :], dtype)
        if self.k == 1:
            self.targets = xp.astype(2 * y_codes - 1, dtype)[:, None]
        else:
            self.targets = xp.astype(y_codes[:, None] == xp.arange(n_classes)[None, :], dtype)
        self.group_counts = xp.sum(self.onehot, axis=0)

    def _row_norm(self, norms):
        xp = self.xp
        sq = (norms * self.scale) ** 2
        if self.center is not None:
            sq = sq - 2.0 * self.scale * (self.X @ self.center) + xp.sum(self.center**2)
            sq = xp.maximum(sq, xp.zeros_like(sq))
        return xp.sqrt(sq + self.intercept_scale**2)

    def with_center(self, center):
        """A copy whose rows are ``s_i x_i - center``."""
        out = object.__new__(LinearData)
        out.__dict__.update(self.__dict__)
        out.center = center
        out.row_norm = out._row_norm(self.norms)
        return out

    def with_intercept_scale(self, intercept_scale):
        """A copy whose constant intercept feature is ``intercept_scale``."""
        out = object.__new__(LinearData)
        out.__dict__.update(self.__dict__)
        out.intercept_scale = float(intercept_scale)
        out.row_norm = out._row_norm(row_norms(self.X, self.xp))
        return out

    @property
    def augmented_bound(self):
        """Public bound on ``||a_i||``: ``sqrt(feature_bound**2 + c**2)``."""
        return math.sqrt(self.feature_bound**2 + self.intercept_scale**2)

    def subset(self, idx):
        """The same data restricted to rows ``idx`` (an integer index array)."""
        xp = self.xp
        out = object.__new__(LinearData)
        out.__dict__.update(self.__dict__)
        out.X = xp.take(self.X, idx, axis=0)
        for name in ("norms", "scale", "row_norm", "onehot", "targets"):
            setattr(out, name, xp.take(getattr(self, name), idx, axis=0))
        out.n = int(idx.shape[0])
        out.group_counts = xp.sum(out.onehot, axis=0)
        return out

    def margins(self, W, b):
        """``Z = s * (X @ W.T) - center @ W.T + c * b``, shape (n, k)."""
        return self._margins(self.X, self.scale[:, None], W, b)

    def _margins(self, X, s, W, b):
        Z = s * (X @ W.T) + self.intercept_scale * b[None, :]
        if self.center is not None:
            Z = Z - (self.center[None, :] @ W.T)
        return Z

    def gradient(self, weights):
        """``sum_i weights_i r_i a_i^T`` given ``weights[:, None] * r`` of shape (n, k).

        Returns the parts for ``W`` (k, p) and ``b`` (k,).
        """
        return self._finish((weights * self.scale[:, None]).T @ self.X,
                            self.xp.sum(weights, axis=0))

    def _finish(self, gw, total):
        if self.center is not None:
            gw = gw - total[:, None] * self.center[None, :]
        return gw, self.intercept_scale * total

    def residual_gradient(self, W, b, residual):
        """:meth:`gradient` of the residuals at ``(W, b)``, reading ``X`` once.

        ``residual(Z, rows)`` maps the margins ``Z`` of the rows ``rows`` (a
        slice) to their weighted residuals ``w_i r_i`` (shape (rows, k)). Rows
        are taken in blocks of about :data:`BLOCK_BYTES`: a block's margins
        and its share of the gradient are computed while it is in cache, so
        ``X`` is read from memory once per gradient instead of twice
        (:meth:`margins` then :meth:`gradient`): the same sum, in about half
        the memory traffic (the full-batch steps are memory-bound).

        Examples
        --------
        >>> X = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, 0.5]])
        >>> data = LinearData(X, np.array([0, 1, 1]), np.zeros(3, dtype=int), 2, 1, 1.0, 1.0, np)
        >>> W, b = np.array([[1.0, -1.0]]), np.array([0.5])
        >>> gw, gb = data.residual_gradient(W, b, lambda Z, rows: Z)
        >>> gw2, gb2 = data.gradient(data.margins(W, b))
        >>> bool(np.allclose(gw, gw2) and np.allclose(gb, gb2))
        True
        """
        xp = self.xp
        step = max(1, BLOCK_BYTES // (self.p * (xp.finfo(self.X.dtype).bits // 8)))
        gw = xp.zeros((self.k, self.p), dtype=self.X.dtype)
        total = xp.zeros((self.k,), dtype=self.X.dtype)
        for start in range(0, self.n, step):
            rows = slice(start, min(start + step, self.n))
            X, s = self.X[rows, :], self.scale[rows][:, None]
            R = residual(self._margins(X, s, W, b), rows)
            gw = gw + (R * s).T @ X
            total = total + xp.sum(R, axis=0)
        return self._finish(gw, total)


def loss_and_residual(Z, targets, xp):
    """Per-sample loss (n,) and residual ``r = dloss/dz`` (n, k).

    Binary (``k = 1``, targets ``+-1``): ``log(1 + exp(-y z))`` and
    ``-y sigmoid(-y z)``. Multinomial (one-hot targets):
    ``logsumexp(z) - z_y`` and ``softmax(z) - e_y``.

    Examples
    --------
    >>> import numpy as np
    >>> loss, r = loss_and_residual(np.zeros((2, 1)), np.array([[1.0], [-1.0]]), np)
    >>> loss.round(4).tolist(), r.ravel().tolist()
    ([0.6931, 0.6931], [-0.5, 0.5])
    """
    if targets.shape[1] == 1:
        m = -targets * Z
        # log(1 + e^m) = max(m, 0) + log1p(e^-|m|): no overflow, and several times faster
        # than logaddexp (which NumPy does not vectorise)
        loss = xp.maximum(m, xp.zeros_like(m)) + xp.log1p(xp.exp(-xp.abs(m)))
        r = -targets * xp.exp(m - loss)  # -y sigmoid(-y z), stable
        return loss[:, 0], r
    zmax = xp.max(Z, axis=1, keepdims=True)
    ez = xp.exp(Z - zmax)
    total = xp.sum(ez, axis=1, keepdims=True)
    lse = xp.log(total) + zmax
    loss = (lse - xp.sum(Z * targets, axis=1, keepdims=True))[:, 0]
    return loss, ez / total - targets


def lipschitz(k, norm="l2"):
    """Bound on ``||dloss/dz||`` (l2 or l_inf) for ``k`` outputs (see module doc).

    Examples
    --------
    >>> lipschitz(1), round(lipschitz(10), 4), lipschitz(10, "linf")
    (1.0, 1.4142, 1.0)
    """
    if k == 1 or norm == "linf":
        return 1.0
    return math.sqrt(2.0)


def smoothness(k):
    """Bound on the Hessian of the loss in ``z``: 1/4 (binary), 1/2 (multinomial).

    Examples
    --------
    >>> smoothness(1), smoothness(3)
    (0.25, 0.5)
    """
    return 0.25 if k == 1 else 0.5


def curvature_at_zero(k, n_classes):
    """Largest Hessian eigenvalue of the loss in ``z`` at ``z = 0``.

    Binary: ``1/4``; multinomial: ``1/K`` (``diag(u) - u u^T`` at the uniform
    ``u``). A practical step-size scale (the worst case is :func:`smoothness`).

    Examples
    --------
    >>> curvature_at_zero(1, 2), curvature_at_zero(10, 10)
    (0.25, 0.1)
    """
    return 0.25 if k == 1 else 1.0 / n_classes


def loss_bound(k, margin_bound):
    """Largest loss value when every ``|z_j| <= margin_bound``.

    Binary: ``log(1 + exp(B))``; multinomial: ``log(1 + (k - 1) exp(2 B))``.

    Examples
    --------
    >>> round(loss_bound(1, 0.0), 4)
    0.6931
    """
    if k == 1:
        return float(np.logaddexp(0.0, margin_bound))
    return float(np.logaddexp(0.0, math.log(k - 1) + 2.0 * margin_bound))
