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
  ``|d3l/du3| <= 1/(6 sqrt 3)``, so the per-sample gradient
  is ``A``-Lipschitz in l2 and ``A**2/4``-smooth;
* multinomial ``logsumexp(z) - z_y``: ``||softmax(z) - e_y||_2 <= sqrt 2``,
  ``||.||_inf <= 1``, Hessian ``diag(p) - p p^T <= 1/2`` (Böhning 1992), so
  ``sqrt(2) A``-Lipschitz and ``A**2/2``-smooth.
"""

import math

import numpy as np

from ...privacy.clipping import clip_factors, row_norms

__all__ = ["LinearData", "PartitionedLinearData", "margins_block", "clipped_sum_block",
           "row_norm_block", "gradient_sums_block", "group_sums_block", "design_block",
           "finish_gradient", "row_blocks", "blockwise", "BLOCK_NAMES", "loss_and_residual",
           "lipschitz", "smoothness", "curvature_at_zero", "loss_bound", "LOSSES", "ramp_loss",
           "BLOCK_BYTES"]

LOSSES = ("logistic", "ramp")

BLOCK_BYTES = 1 << 22
"""Bytes of ``X`` per block of :meth:`LinearData.gradient_sums`: a block stays in cache
between its two products (4 MiB was fastest of 0.25 to 16 MiB, benchmarks/scale.py)."""


def ramp_loss(Z, T, xp):
    """Ramp loss ``min(1, max(0, 1 - mu))`` of the margin ``mu`` and its derivative in ``Z``.

    Binary (``k = 1``, ``T = +-1``): ``mu = y z``, derivative ``-y`` on
    ``0 < mu < 1``, so ``|dl/dz| <= 1``. Multiclass (one-hot ``T``): ``mu =
    z_y - max_{j != y} z_j`` (a capped Crammer–Singer hinge),
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
        part = design_block({"X": X, "norms": self.norms, "y": y_codes, "group": group_codes},
                            n_classes, n_groups, self.feature_bound, xp)
        self.scale, self.targets, self.onehot = part["scale"], part["targets"], part["onehot"]
        self.center = center
        self.row_norm = self._row_norm(self.norms)
        self.group_counts = xp.sum(self.onehot, axis=0)

    def _row_norm(self, norms):
        return row_norm_block({"X": self.X, "norms": norms, "scale": self.scale}, self.center,
                              self.intercept_scale, self.xp)

    @property
    def dtype(self):
        """Float dtype of the rows."""
        return self.X.dtype

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
        out.row_norm = out._row_norm(self.norms)
        return out

    def clipped_sum(self):
        """``sum_i s_i x_i``, shape (p,): one pass over ``X``."""
        return clipped_sum_block({"X": self.X, "scale": self.scale}, self.xp)

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
        return margins_block({"X": self.X, "scale": self.scale}, W, b, self.center,
                             self.intercept_scale)

    def gradient(self, weights):
        """``sum_i weights_i r_i a_i^T`` given ``weights[:, None] * r`` of shape (n, k).

        Returns the parts for ``W`` (k, p) and ``b`` (k,).
        """
        return self._finish((weights * self.scale[:, None]).T @ self.X,
                            self.xp.sum(weights, axis=0))

    def _finish(self, gw, total):
        return finish_gradient((gw, total, None), self.center, self.intercept_scale)[:2]

    def _rows(self, names, idx=None):
        arrays = {name: getattr(self, name) for name in names}
        if idx is None:
            return arrays
        return {name: self.xp.take(a, idx, axis=0) for name, a in arrays.items()}

    def gradient_sums(self, W, b, q, clip, loss_clip=None, rows=None):
        """Clipped, group-weighted gradient sums (and group-loss sums) at ``(W, b)``.

        :func:`gradient_sums_block` over row blocks of about :data:`BLOCK_BYTES`
        (of the rows ``rows``, an integer index array, if given): a block's
        margins and its share of the gradient are computed while it is in
        cache, so ``X`` is read from memory once per gradient. Returns the
        parts for ``W`` (k, p) and ``b`` (k,) of ``sum_i R_i a_i^T`` and,
        with ``loss_clip``, the per-group sums of the losses clipped at it
        (else None).

        Examples
        --------
        >>> X = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, 0.5]])
        >>> data = LinearData(X, np.array([0, 1, 1]), np.zeros(3, dtype=int), 2, 1, 1.0, 1.0, np)
        >>> W, b = np.array([[1.0, -1.0]]), np.array([0.5])
        >>> gw, gb, _ = data.gradient_sums(W, b, np.ones(1), np.inf)
        >>> r = loss_and_residual(data.margins(W, b), data.targets, np)[1]
        >>> bool(np.allclose(gw, data.gradient(r)[0]) and np.allclose(gb, data.gradient(r)[1]))
        True
        """
        sums = blockwise(self._rows(BLOCK_NAMES, rows), gradient_sums_block, W, b, self.center,
                         self.intercept_scale, q, clip, loss_clip, xp=self.xp)
        return finish_gradient(sums, self.center, self.intercept_scale)

    def group_sums(self, W, b):
        """Per-group sums of the losses and of the (unclipped) gradients at ``(W, b)``.

        :func:`group_sums_block` over row blocks, summed: one pass over ``X``.

        Examples
        --------
        >>> y = np.array([0, 1])
        >>> data = LinearData(np.ones((2, 1)), y, y, 2, 2, 1.0, 0.0, np)
        >>> losses, G, t = data.group_sums(np.zeros((1, 1)), np.zeros(1))
        >>> losses.round(4).tolist(), G.tolist(), t.tolist()
        ([0.6931, 0.6931], [[[0.5]], [[-0.5]]], [[0.5], [-0.5]])
        """
        return blockwise(self._rows(("X", "scale", "targets", "onehot")), group_sums_block, W, b,
                         self.center, self.intercept_scale, xp=self.xp)


class PartitionedLinearData:
    """:class:`LinearData` of rows held in partitions (:class:`skdp._partitions.Partitions`).

    The counterpart the Dask fit gives the solvers ``noisy_gd`` and
    ``dpsgd_poisson``: the same public attributes and the same
    :meth:`clipped_sum`, :meth:`gradient_sums`, :meth:`with_center` and
    :meth:`with_intercept_scale`, each a pass computed by the same block
    functions, one :meth:`~skdp._partitions.Partitions.reduce` (or
    ``reduce_rows`` for a subsample) over the partitions, whose partial sums
    are added on the client. The per-row arrays (:data:`BLOCK_NAMES`) stay in
    cluster memory.

    Parameters
    ----------
    parts : Partitions
        Each partition a dict of ``X`` (rows, p), the l2 ``norms`` of its
        rows and the integer codes ``y`` (classes) and ``group``.
    p : int
    dtype : dtype
        Float dtype of ``X``.
    n_classes, n_groups, feature_bound, intercept_scale
        As for :class:`LinearData`.

    Examples
    --------
    >>> import dask.array as da
    >>> from skdp._partitions import Partitions
    >>> X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 1.0]])
    >>> arrays = {"X": X, "norms": np.linalg.norm(X, axis=1), "y": np.array([0, 1, 1]),
    ...           "group": np.zeros(3, dtype=int)}
    >>> parts = Partitions.from_arrays({k: da.from_array(a, chunks=2) for k, a in arrays.items()})
    >>> data = PartitionedLinearData(parts, 2, X.dtype, 2, 1, 1.0, 1.0)
    >>> data.clipped_sum().round(2).tolist()
    [0.9, 2.2]
    """

    xp = np
    augmented_bound = LinearData.augmented_bound

    def __init__(self, parts, p, dtype, n_classes, n_groups, feature_bound, intercept_scale):
        self.n, self.p, self.dtype = parts.n, int(p), np.dtype(dtype)
        self.n_classes, self.n_groups = n_classes, n_groups
        self.k = 1 if n_classes <= 2 else n_classes
        self.feature_bound = float(feature_bound)
        self.intercept_scale = float(intercept_scale)
        self.center = None
        self.parts = parts.with_columns(_design_part, n_classes, n_groups, self.feature_bound,
                                      self.intercept_scale)

    def _with(self, center, intercept_scale):
        out = object.__new__(PartitionedLinearData)
        out.__dict__.update(self.__dict__)
        out.center, out.intercept_scale = center, float(intercept_scale)
        out.parts = self.parts.with_columns(_row_norm_part, center, out.intercept_scale)
        return out

    def with_center(self, center):
        """A copy whose rows are ``s_i x_i - center`` (their augmented norms recomputed)."""
        return self._with(center, self.intercept_scale)

    def with_intercept_scale(self, intercept_scale):
        """A copy whose constant intercept feature is ``intercept_scale``."""
        return self._with(self.center, intercept_scale)

    def clipped_sum(self):
        """``sum_i s_i x_i``, shape (p,): one pass."""
        return self.parts.reduce(blockwise, clipped_sum_block)

    def group_sums(self, W, b):
        """As :meth:`LinearData.group_sums`: one pass."""
        return self.parts.reduce(blockwise, group_sums_block, W, b, self.center,
                                 self.intercept_scale)

    def gradient_sums(self, W, b, q, clip, loss_clip=None, rows=None):
        """As :meth:`LinearData.gradient_sums`: one pass (over the rows ``rows`` if given)."""
        args = (blockwise, gradient_sums_block, W, b, self.center, self.intercept_scale, q, clip,
                loss_clip)
        if rows is None:
            sums = self.parts.reduce(*args)
        else:
            sums = self.parts.reduce_rows(np.asarray(rows), *args)
        return finish_gradient(sums, self.center, self.intercept_scale)


def _design_part(part, n_classes, n_groups, feature_bound, intercept_scale):
    """The per-row arrays :func:`design_block` derives, and the row norms (not ``X``)."""
    design = design_block(part, n_classes, n_groups, feature_bound)
    return {"scale": design["scale"], "targets": design["targets"], "onehot": design["onehot"],
            **_row_norm_part(design, None, intercept_scale)}


def _row_norm_part(part, center, intercept_scale):
    return {"row_norm": row_norm_block(part, center, intercept_scale)}


def design_block(part, n_classes, n_groups, feature_bound, xp=np):
    """The per-row arrays of a fit from ``X``, its row ``norms`` and the codes ``y``, ``group``.

    Returns ``X`` and ``norms`` with the clipping factors ``scale``
    (``min(1, feature_bound / norm)``), the ``targets`` (``+-1`` for two
    classes, else one-hot) and the group indicators ``onehot``.

    Examples
    --------
    >>> part = {"X": np.array([[3.0, 4.0]]), "norms": np.array([5.0]), "y": np.array([0]),
    ...         "group": np.array([1])}
    >>> out = design_block(part, 2, 2, 1.0)
    >>> out["scale"].tolist(), out["targets"].tolist(), out["onehot"].tolist()
    ([0.2], [[-1.0]], [[0.0, 1.0]])
    """
    X, y, dtype = part["X"], part["y"], part["X"].dtype
    onehot = xp.astype(part["group"][:, None] == xp.arange(n_groups)[None, :], dtype)
    if n_classes <= 2:
        targets = xp.astype(2 * y - 1, dtype)[:, None]
    else:
        targets = xp.astype(y[:, None] == xp.arange(n_classes)[None, :], dtype)
    return {"X": X, "norms": part["norms"], "scale": clip_factors(part["norms"], feature_bound, xp),
            "targets": targets, "onehot": onehot}


BLOCK_NAMES = ("X", "scale", "row_norm", "targets", "onehot")
"""The per-row arrays :func:`gradient_sums_block` reads."""


def margins_block(part, W, b, center, intercept_scale):
    """Margins ``s_i x_i W^T - center W^T + c b`` of the rows of ``part``, shape (rows, k).

    ``part`` holds ``X`` (rows, p) and the clipping factors ``scale``
    (rows,); the other arguments are public (the model, the released centre,
    the intercept feature ``c``).

    Examples
    --------
    >>> part = {"X": np.array([[3.0, 4.0]]), "scale": np.array([0.2])}
    >>> margins_block(part, np.ones((1, 2)), np.zeros(1), None, 1.0).round(6).tolist()
    [[1.4]]
    """
    Z = part["scale"][:, None] * (part["X"] @ W.T) + intercept_scale * b[None, :]
    if center is not None:
        Z = Z - (center[None, :] @ W.T)
    return Z


def clipped_sum_block(part, xp=np):
    """``sum_i s_i x_i`` over the rows of ``part`` (``X``, ``scale``), shape (p,).

    Examples
    --------
    >>> clipped_sum_block({"X": np.array([[3.0, 4.0], [1.0, 0.0]]), "scale": np.array([0.2, 1.0])})
    array([1.6, 0.8])
    """
    return (part["scale"][None, :] @ part["X"])[0, :]


def row_norm_block(part, center, intercept_scale, xp=np):
    """l2 norms of the augmented clipped rows ``(s_i x_i - center, c)`` of ``part``.

    ``part`` holds ``X``, ``norms`` (the l2 norms of its rows) and ``scale``.

    Examples
    --------
    >>> part = {"X": np.array([[3.0, 4.0]]), "norms": np.array([5.0]), "scale": np.array([0.2])}
    >>> row_norm_block(part, None, 0.0).tolist()
    [1.0]
    """
    scale = part["scale"]
    sq = (part["norms"] * scale) ** 2
    if center is not None:
        sq = sq - 2.0 * scale * (part["X"] @ center) + xp.sum(center**2)
        sq = xp.maximum(sq, xp.zeros_like(sq))
    return xp.sqrt(sq + intercept_scale**2)


def group_sums_block(part, W, b, center, intercept_scale, xp=np):
    """Per-group sums of the losses and gradients of the rows of ``part`` at ``(W, b)``.

    Returns the losses' sums (n_groups,), and for each group ``g`` the sums
    ``G_g = sum_{i in g} r_i s_i x_i^T`` (n_groups, k, p) and ``t_g = sum_{i
    in g} r_i`` (n_groups, k) of the residuals (unclipped: the exact,
    non-private fit), so that a weighted gradient ``sum_g v_g (G_g, t_g)``
    needs no second pass. ``part`` holds ``X``, ``scale``, ``targets`` and
    ``onehot``; each group's rows are gathered (``take``) so the products
    cost one ``(k, p)`` gradient in all.

    Examples
    --------
    >>> part = {"X": np.ones((2, 1)), "scale": np.ones(2), "targets": np.array([[1.0], [-1.0]]),
    ...         "onehot": np.array([[1.0], [1.0]])}
    >>> losses, G, t = group_sums_block(part, np.zeros((1, 1)), np.zeros(1), None, 0.0)
    >>> losses.round(4).tolist(), G.tolist(), t.tolist()
    ([1.3863], [[[0.0]]], [[0.0]])
    """
    loss, r = loss_and_residual(margins_block(part, W, b, center, intercept_scale),
                                part["targets"], xp)
    onehot, X = part["onehot"], part["X"]
    R = r * part["scale"][:, None]
    G, t = [], []
    for g in range(onehot.shape[1]):
        rows = xp.nonzero(onehot[:, g])[0]
        G.append(xp.take(R, rows, axis=0).T @ xp.take(X, rows, axis=0))
        t.append(xp.sum(xp.take(r, rows, axis=0), axis=0))
    return onehot.T @ loss, xp.stack(G), xp.stack(t)


def gradient_sums_block(part, W, b, center, intercept_scale, q, clip, loss_clip=None, xp=np):
    """Sums over the rows of ``part`` of the clipped, group-weighted gradients.

    With ``r_i`` the loss residual of row ``i`` at ``(W, b)`` and ``g_i`` its
    group, ``R_i = q_{g_i} min(1, clip / (||r_i|| ||a_i||)) r_i`` (the
    per-sample gradient ``r_i a_i^T`` clipped to norm ``clip``, weighted);
    returns ``(sum_i R_i s_i x_i^T, sum_i R_i)`` of shapes (k, p) and (k,)
    (:func:`finish_gradient` turns them into the gradient's parts for the
    centred, augmented rows) and, with ``loss_clip``, the per-group sums of
    the losses clipped at it, shape (n_groups,). ``part`` holds the
    :data:`BLOCK_NAMES` arrays; the other arguments are public. Any number
    of rows, zero included: a sum over rows, so the sums of row blocks (or
    partitions) add up to the sum over all rows.

    Examples
    --------
    >>> part = {"X": np.array([[1.0, 0.0]]), "scale": np.ones(1), "row_norm": np.ones(1),
    ...         "targets": np.array([[1.0]]), "onehot": np.ones((1, 1))}
    >>> gw, total, losses = gradient_sums_block(part, np.zeros((1, 2)), np.zeros(1), None, 0.0,
    ...                                         np.ones(1), np.inf, 10.0)
    >>> gw.tolist(), total.tolist(), losses.round(4).tolist()
    ([[-0.5, 0.0]], [-0.5], [0.6931])
    """
    loss, r = loss_and_residual(margins_block(part, W, b, center, intercept_scale),
                                part["targets"], xp)
    gnorm = xp.sqrt(xp.sum(r * r, axis=1)) * part["row_norm"]
    R = r * ((part["onehot"] @ q) * clip_factors(gnorm, clip, xp))[:, None]
    sums = ((R * part["scale"][:, None]).T @ part["X"], xp.sum(R, axis=0))
    if loss_clip is None:
        return sums + (None,)
    clipped = xp.minimum(loss, xp.full_like(loss, loss_clip))
    return sums + (part["onehot"].T @ clipped,)


def row_blocks(part, xp=np):
    """Row slices of ``part`` (a dict of per-row arrays), about :data:`BLOCK_BYTES` of ``X`` each.

    At least one (empty if ``part`` has no rows).

    Examples
    --------
    >>> [b["X"].shape for b in row_blocks({"X": np.zeros((3, 2))})]
    [(3, 2)]
    """
    n, p = part["X"].shape
    step = max(1, BLOCK_BYTES // (max(p, 1) * (xp.finfo(part["X"].dtype).bits // 8)))
    for start in range(0, n, step) if n else [0]:
        rows = slice(start, min(start + step, n))
        yield {name: a[rows] if a.ndim == 1 else a[rows, :] for name, a in part.items()}


def blockwise(part, fn, *args, xp=np):
    """``fn(block, *args, xp=xp)`` summed over the :func:`row_blocks` of ``part``.

    A block's margins and its share of a gradient are computed while it is in
    cache, so ``X`` is read from memory once per pass (the full-batch steps
    are memory-bound: 4x faster than one product over 1e5 rows of 20
    features). ``fn`` returns an array or a tuple of arrays (or None).

    Examples
    --------
    >>> blockwise({"X": np.ones((5, 2)), "scale": np.ones(5)}, clipped_sum_block).tolist()
    [5.0, 5.0]
    """
    total = None
    for block in row_blocks(part, xp):
        sums = fn(block, *args, xp=xp)
        total = sums if total is None else _add_sums(total, sums)
    return total


def _add_sums(total, sums):
    if not isinstance(sums, tuple):
        return total + sums
    return tuple(None if t is None else t + s for t, s in zip(total, sums))


def finish_gradient(sums, center, intercept_scale):
    """``(gw, gb, losses)`` from :func:`gradient_sums_block`'s sums ``(G, t, losses)``.

    The gradient of the centred rows ``s_i x_i - center`` is ``G - t center^T``;
    the intercept feature ``c`` gives ``c t``.
    """
    gw, total, losses = sums
    if center is not None:
        gw = gw - total[:, None] * center[None, :]
    return gw, intercept_scale * total, losses


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
