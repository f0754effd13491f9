"""The worst-group classifier's data model: the clipped design of one fit, in memory
(:class:`LinearData`) or in the partitions of a Dask collection
(:class:`PartitionedLinearData`), and the per-partition kernels (``*_block``) that both run.

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

The kernels take one partition (a dict of arrays, :data:`BLOCK_NAMES`) and return sums
over its rows, which a Dask fit adds across the partitions.
"""

import functools
import math

import numpy as np

from ..._backend import array_api_compat
from ...privacy.clipping import clip_factors, row_clip_factors, row_norms
from ..losses.classification import loss_and_residual

__all__ = ["LinearData", "PartitionedLinearData", "margins_block", "clipped_sum_block",
           "row_norm_block", "gradient_sums_block", "group_sums_block", "design_block",
           "class_targets", "group_indicators",
           "finish_gradient", "row_blocks", "blockwise", "BLOCK_NAMES", "BLOCK_BYTES"]

NORM_BLOCK = 1 << 16
"""Rows per block of the row norms of rows within the bound (:meth:`LinearData.row_norm`)."""

BLOCK_BYTES = 1 << 22
"""Bytes of ``X`` per block of :meth:`LinearData.gradient_sums`: a block stays in cache
between its two products (4 MiB was fastest of 0.25 to 16 MiB, benchmarks/scale.py)."""


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
    clipped : bool, default=None
        None: ``norms`` and ``scale`` are computed here. True / False: the
        caller has checked (:func:`~skdp.privacy.clipping.row_bound_status`)
        that no squared row norm of ``X`` overflows and whether a row is
        beyond ``feature_bound``; ``norms`` and ``scale`` are then made only if
        read (the same numbers) and the augmented rows' norms are computed in
        blocks. Either way a Poisson sample's factors and augmented row norms
        come from its gathered rows (issue 31: a ``dpsgd_poisson`` fit keeps no
        (n,) array of norms or factors, only one-byte codes, :meth:`_compact_codes`).
    factors : array of shape (n,), default=None
        With ``clipped=True``: the rows' clip factors if the caller has made them
        (:func:`~skdp.privacy.clipping.row_clip_factors`, the same numbers the design
        makes): read by the first product that needs them (the clipped sum of the
        centring) instead of a second pass over ``X``, then dropped.

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
                 intercept_scale, xp, center=None, norms=None, clipped=None, factors=None):
        self.xp = xp
        self.X = X
        self.n, self.p = X.shape
        self.n_classes = n_classes
        self.n_groups = n_groups
        self.k = 1 if n_classes <= 2 else n_classes
        self.intercept_scale = float(intercept_scale)
        self.feature_bound = float(feature_bound)
        self.y_codes, self.group_codes = y_codes, group_codes
        self.center = center
        self._row_norm = self._targets = self._onehot = self._codes = None
        self._code_tables = {}
        self._made_factors = factors if clipped else None
        self._lazy = clipped is not None
        if self._lazy:  # norms and scale are made when read (__getattr__)
            if norms is not None:
                self.norms = norms
            self.clipped = bool(clipped)
            return
        self.norms = row_norms(X, xp) if norms is None else norms
        self.scale = clip_factors(self.norms, self.feature_bound, xp)
        # no row beyond the bound: every factor is exactly 1, so the products may skip it
        self.clipped = bool(xp.any(self.scale < 1))

    def __getattr__(self, name):
        """``norms`` and ``scale`` of a lazy design (``clipped`` given), made when first read:
        the numbers the eager constructor makes (``row_norms`` of ``X``; the factors
        ``clip_factors`` of them, in blocks on NumPy, or exactly 1 when no row is clipped)."""
        if name not in ("norms", "scale") or "X" not in self.__dict__:
            raise AttributeError(name)
        value = row_norms(self.X, self.xp) if name == "norms" else self._factors()
        setattr(self, name, value)
        return value

    def _factors(self):
        """The rows' clip factors, not kept (a lazy design's ``scale`` before it is read)."""
        if "scale" in self.__dict__:
            return self.__dict__["scale"]
        if not self.clipped:
            return self._ones(self.n)
        if self._made_factors is not None:  # the caller's, read once
            factors, self._made_factors = self._made_factors, None
            return factors
        if "norms" in self.__dict__:
            return clip_factors(self.norms, self.feature_bound, self.xp)
        return row_clip_factors(self.X, self.feature_bound, self.xp)[1]

    def _ones(self, n):
        return self.xp.ones(n, dtype=self.dtype, device=array_api_compat.device(self.X))

    # the per-row arrays below are derived when first read (a solver that reads a sample of
    # the rows only, as dpsgd_poisson, derives them for its samples: no (n,) array of each)
    @property
    def row_norm(self):
        """l2 norm of the augmented clipped row ``(s_i x_i - center, c)``, shape (n,)."""
        if self._row_norm is None:
            if self._blockwise():
                self._row_norm = self._row_norm_blocks(np.empty(self.n, dtype=self.dtype))
            else:
                self._row_norm = row_norm_block({"X": self.X, "norms": self.norms,
                                                 "scale": self.scale}, self.center,
                                                self.intercept_scale, self.xp)
        return self._row_norm

    def _blockwise(self):
        """Whether the row norms are computed in blocks (a lazy design on NumPy)."""
        return isinstance(self.X, np.ndarray) and self._lazy

    def _row_norm_blocks(self, out):
        """:func:`row_norm_block` over blocks of rows, written into ``out`` (an (n,) array or a
        column view): the same numbers as over all rows (each row's norm, ``einsum``'s, and
        its factor are computed alone; ``X @ center`` is taken over all rows, as there, since
        a BLAS product's last digit may depend on the blocking), without the (n,)
        temporaries."""
        X, xp, known = self.X, self.xp, self.__dict__
        Xc = None if self.center is None else X @ self.center
        for start in range(0, self.n, NORM_BLOCK):
            rows = slice(start, min(start + NORM_BLOCK, self.n))
            norms = known["norms"][rows] if "norms" in known else row_norms(X[rows], xp)
            if "scale" in known:
                scale = known["scale"][rows]
            elif self.clipped:
                scale = clip_factors(norms, self.feature_bound, xp)
            else:
                scale = self._ones(rows.stop - rows.start)
            part = {"X": X[rows], "norms": norms, "scale": scale,
                    "Xc": None if Xc is None else Xc[rows]}
            out[rows] = row_norm_block(part, self.center, self.intercept_scale, xp)
        return out

    @property
    def targets(self):
        """``+-1`` labels (binary, shape (n, 1)) or one-hot classes (n, n_classes)."""
        if self._targets is None:
            self._targets = class_targets(self.y_codes, self.n_classes, self.dtype, self.xp)
        return self._targets

    @property
    def onehot(self):
        """Group indicator matrix, shape (n, n_groups)."""
        if self._onehot is None:
            self._onehot = group_indicators(self.group_codes, self.n_groups, self.dtype,
                                            self.xp)
        return self._onehot

    @property
    def group_counts(self):
        """Rows per group, shape (n_groups,) (in the rows' dtype)."""
        return self.xp.sum(self.onehot, axis=0)

    @property
    def dtype(self):
        """Float dtype of the rows."""
        return self.X.dtype

    def _copy(self):
        out = object.__new__(LinearData)
        out.__dict__.update(self.__dict__)
        return out

    def with_center(self, center):
        """A copy whose rows are ``s_i x_i - center``."""
        out = self._copy()
        out.center, out._row_norm = center, None
        return out

    def with_intercept_scale(self, intercept_scale):
        """A copy whose constant intercept feature is ``intercept_scale``."""
        out = self._copy()
        out.intercept_scale, out._row_norm = float(intercept_scale), None
        return out

    def clipped_sum(self):
        """``sum_i s_i x_i``, shape (p,): one pass over ``X`` (a lazy design: the factors made
        for this product only)."""
        return clipped_sum_block({"X": self.X, "scale": self._factors()}, self.xp)

    @property
    def augmented_bound(self):
        """Public bound on ``||a_i||``: ``sqrt(feature_bound**2 + c**2)``."""
        return math.sqrt(self.feature_bound**2 + self.intercept_scale**2)

    def subset(self, idx):
        """The same data restricted to rows ``idx`` (an integer index array)."""
        xp = self.xp
        out = self._copy()
        out.X = xp.take(self.X, idx, axis=0)
        for name in ("norms", "scale", "row_norm", "y_codes", "group_codes"):
            setattr(out, name if name != "row_norm" else "_row_norm",
                    xp.take(getattr(self, name), idx, axis=0))
        if self.group_codes is self.y_codes:
            out.group_codes = out.y_codes
        out._targets = out._onehot = out._codes = None
        out.n = int(idx.shape[0])
        return out

    def margins(self, W, b):
        """``Z = s * (X @ W.T) - center @ W.T + c * b``, shape (n, k)."""
        part = {"X": self.X, "scale": self.scale if self.clipped else None}
        return margins_block(part, W, b, self.center, self.intercept_scale)

    def gradient(self, weights):
        """``sum_i weights_i r_i a_i^T`` given ``weights[:, None] * r`` of shape (n, k).

        Returns the parts for ``W`` (k, p) and ``b`` (k,).
        """
        return self._finish((weights * self.scale[:, None]).T @ self.X,
                            self.xp.sum(weights, axis=0))

    def _finish(self, gw, total):
        return finish_gradient((gw, total, None), self.center, self.intercept_scale)[:2]

    def _rows(self, names, idx=None):
        """The per-row arrays ``names`` (of the rows ``idx`` if given) for the block kernels.

        ``scale`` is None when no row is clipped (every factor is 1: the products skip
        it, the same numbers). A sample's arrays come from its gathered rows
        (:meth:`_sample`).
        """
        if idx is not None:
            return self._sample(names, idx)
        return {name: None if name == "scale" and not self.clipped else getattr(self, name)
                for name in names}

    def _sample(self, names, idx):
        """The arrays ``names`` (of :data:`BLOCK_NAMES`) of the rows ``idx``, from two gathers.

        Only ``X`` and the codes are gathered; the rows' norms (``row_norms``: einsum's
        per-row sums, the full array's rows exactly, or the known norms' rows), their
        factors and the augmented row norms (:func:`row_norm_block`) are computed from
        them, the ``targets`` and ``onehot`` from the codes. The same numbers as the full
        arrays' rows, but for ``X @ center``, a BLAS product over the sample's rows (its
        last digit may differ from the product over all rows). Issue 31 (third part):
        no (n,) array is made for a Poisson step (was an (n, 2) array of row norms and
        codes, 0.67x X at d = 3).
        """
        xp, known = self.xp, self.__dict__
        X = xp.take(self.X, idx, axis=0)
        part = {"X": X}
        norms = scale = None
        if "row_norm" in names or ("scale" in names and self.clipped):
            norms = xp.take(known["norms"], idx, axis=0) if "norms" in known else row_norms(X, xp)
            if self.clipped:
                scale = (xp.take(known["scale"], idx, axis=0) if "scale" in known
                         else clip_factors(norms, self.feature_bound, xp))
        if "scale" in names:
            part["scale"] = scale
        if "row_norm" in names:
            part["row_norm"] = row_norm_block({"X": X, "norms": norms, "scale": scale},
                                              self.center, self.intercept_scale, xp)
        y_codes, group_codes = self._compact_codes()
        if isinstance(y_codes, np.ndarray):
            part.update(self._sample_codes(names, idx))
            return {name: part[name] for name in names}
        y = _gather_codes(y_codes, idx, self.y_codes.dtype, xp)
        if "targets" in names:
            part["targets"] = class_targets(y, self.n_classes, self.dtype, xp)
        if "onehot" in names:
            groups = y if group_codes is y_codes else _gather_codes(group_codes, idx,
                                                                    self.group_codes.dtype, xp)
            part["onehot"] = group_indicators(groups, self.n_groups, self.dtype, xp)
        return {name: part[name] for name in names}

    def _sample_codes(self, names, idx):
        """On NumPy, a sample's ``targets`` and ``onehot`` looked up by its compact codes:
        row ``c`` of :func:`class_targets` / :func:`group_indicators` of every code, taken
        at each sampled code. The same numbers as those functions of the sample's codes,
        in one ``take`` each instead of a widening, comparisons, a stack and casts (issue
        31: about 0.03 ms less a step of 16,000 rows)."""
        y_codes, group_codes = self._compact_codes()
        y = np.take(y_codes, idx)
        out = {}
        if "targets" in names:
            out["targets"] = np.take(self._code_rows("targets"), y, axis=0)
        if "onehot" in names:
            groups = y if group_codes is y_codes else np.take(group_codes, idx)
            out["onehot"] = np.take(self._code_rows("onehot"), groups, axis=0)
        return out

    def _code_rows(self, name):
        """:func:`class_targets` (``name='targets'``) or :func:`group_indicators` of every
        code, on NumPy, made once."""
        if name not in self._code_tables:
            if name == "targets":
                table = class_targets(np.arange(self.n_classes), self.n_classes, self.dtype)
            else:
                table = group_indicators(np.arange(self.n_groups), self.n_groups, self.dtype)
            self._code_tables[name] = np.ascontiguousarray(table)
        return self._code_tables[name]

    def _compact_codes(self):
        """The label and group codes as a sample gathers them: on NumPy, copies in the
        smallest signed integer type holding every code (one byte each up to 127 classes and
        groups), made once; elsewhere the codes themselves.

        Issue 31 (third part): a Poisson step's gather of the codes misses the cache once per
        sampled row from an (n,) array of 8-byte codes (8 MB at 1e6 rows); from n bytes it
        mostly hits (0.1-0.15 ms less per step of 16,000 rows, 1e6 x 3). Memory: n bytes
        (n / 12 of X in float32 at d = 3).
        """
        if self._codes is None:
            codes = (self.y_codes, self.group_codes)
            if isinstance(self.y_codes, np.ndarray):
                small = np.min_scalar_type(-max(self.n_classes, self.n_groups))
                y = self.y_codes.astype(small)
                codes = (y, y if self.group_codes is self.y_codes
                         else self.group_codes.astype(small))
            self._codes = codes
        return self._codes

    def gradient_sums(self, W, b, q, clip, loss_clip=None, rows=None, errors=False):
        """Clipped, group-weighted gradient sums (and group-loss sums) at ``(W, b)``.

        :func:`gradient_sums_block` over row blocks of about :data:`BLOCK_BYTES`
        (of the rows ``rows``, an integer index array, if given): a block's
        margins and its share of the gradient are computed while it is in
        cache, so ``X`` is read from memory once per gradient. Returns the
        parts for ``W`` (k, p) and ``b`` (k,) of ``sum_i R_i a_i^T`` and,
        with ``loss_clip``, the per-group sums of the losses clipped at it
        (else None); with ``errors`` as well, the per-group counts of the rows
        the model misclassifies instead (:func:`gradient_sums_block`).

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
                         self.intercept_scale, q, clip, loss_clip, errors, xp=self.xp)
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

    def gradient_sums(self, W, b, q, clip, loss_clip=None, rows=None, errors=False):
        """As :meth:`LinearData.gradient_sums`: one pass (over the rows ``rows`` if given)."""
        args = (blockwise, gradient_sums_block, W, b, self.center, self.intercept_scale, q, clip,
                loss_clip, errors)
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
    X, dtype = part["X"], part["X"].dtype
    return {"X": X, "norms": part["norms"], "scale": clip_factors(part["norms"], feature_bound, xp),
            "targets": class_targets(part["y"], n_classes, dtype, xp),
            "onehot": group_indicators(part["group"], n_groups, dtype, xp)}


def _gather_codes(codes, idx, dtype, xp):
    """``codes[idx]`` in ``dtype`` (the codes' own: a compact copy's rows widened back)."""
    rows = xp.take(codes, idx, axis=0)
    return rows if rows.dtype == dtype else xp.astype(rows, dtype)


def class_targets(y, n_classes, dtype, xp=np):
    """``+-1`` labels, shape (rows, 1), of class codes ``y`` (two classes), else one-hot.

    Examples
    --------
    >>> class_targets(np.array([0, 1]), 2, np.float64).tolist()
    [[-1.0], [1.0]]
    """
    if n_classes <= 2:
        return xp.astype(2 * y - 1, dtype)[:, None]
    return group_indicators(y, n_classes, dtype, xp)


def group_indicators(group, n_groups, dtype, xp=np):
    """Indicator matrix, shape (rows, n_groups), of group codes ``group``.

    Examples
    --------
    >>> group_indicators(np.array([1, 0]), 2, np.float64).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    # one comparison per column (three times faster than broadcasting against arange)
    return xp.astype(xp.stack([group == j for j in range(n_groups)], axis=1), dtype)


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
    Z = part["X"] @ W.T
    scale = part.get("scale")
    if scale is not None:  # None: no row clipped (every factor 1)
        Z = scale[:, None] * Z
    Z = Z + intercept_scale * b[None, :]
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

    ``part`` holds ``X``, ``norms`` (the l2 norms of its rows) and ``scale`` (None: every
    factor 1, the same numbers without the products by 1).

    Examples
    --------
    >>> part = {"X": np.array([[3.0, 4.0]]), "norms": np.array([5.0]), "scale": np.array([0.2])}
    >>> row_norm_block(part, None, 0.0).tolist()
    [1.0]
    """
    scale = part["scale"]
    sq = (part["norms"] if scale is None else part["norms"] * scale) ** 2
    if center is not None:
        Xc = part.get("Xc")  # ``X @ center`` if already computed
        Xc = part["X"] @ center if Xc is None else Xc
        sq = sq - (2.0 * Xc if scale is None else 2.0 * scale * Xc) + xp.sum(center**2)
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
    R = r if part.get("scale") is None else r * part["scale"][:, None]
    G, t = [], []
    for g in range(onehot.shape[1]):
        rows = xp.nonzero(onehot[:, g])[0]
        G.append(xp.take(R, rows, axis=0).T @ xp.take(X, rows, axis=0))
        t.append(xp.sum(xp.take(r, rows, axis=0), axis=0))
    return onehot.T @ loss, xp.stack(G), xp.stack(t)


def gradient_sums_block(part, W, b, center, intercept_scale, q, clip, loss_clip=None, errors=False,
                        xp=np):
    """Sums over the rows of ``part`` of the clipped, group-weighted gradients.

    With ``r_i`` the loss residual of row ``i`` at ``(W, b)`` and ``g_i`` its
    group, ``R_i = q_{g_i} min(1, clip / (||r_i|| ||a_i||)) r_i`` (the
    per-sample gradient ``r_i a_i^T`` clipped to norm ``clip``, weighted);
    returns ``(sum_i R_i s_i x_i^T, sum_i R_i)`` of shapes (k, p) and (k,)
    (:func:`finish_gradient` turns them into the gradient's parts for the
    centred, augmented rows) and, with ``loss_clip``, the per-group sums of
    the losses clipped at it, shape (n_groups,); with ``errors`` too, the
    per-group counts of the misclassified rows instead (the 0-1 loss, which
    ``loss_clip >= 1`` bounds; binary: ``z > 0`` predicts the second class,
    as ``predict`` does; else the arg max). ``part`` holds the
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
    Z = margins_block(part, W, b, center, intercept_scale)
    loss, r = loss_and_residual(Z, part["targets"], xp)
    gnorm = _residual_norms(r, xp) * part["row_norm"]
    R = r * ((part["onehot"] @ q) * clip_factors(gnorm, clip, xp))[:, None]
    scale = part.get("scale")
    sums = ((R if scale is None else R * scale[:, None]).T @ part["X"], xp.sum(R, axis=0))
    if loss_clip is None:
        return sums + (None,)
    if errors:
        return sums + (part["onehot"].T @ _misclassified(Z, part["targets"], xp),)
    clipped = xp.minimum(loss, xp.full_like(loss, loss_clip))
    return sums + (part["onehot"].T @ clipped,)


def _misclassified(Z, targets, xp):
    """1.0 where the margins ``Z`` predict another class than ``targets``, else 0.0."""
    if targets.shape[1] == 1:
        wrong = (Z[:, 0] > 0) != (targets[:, 0] > 0)
    else:
        wrong = xp.argmax(Z, axis=1) != xp.argmax(targets, axis=1)
    return xp.astype(wrong, Z.dtype)


def _residual_norms(r, xp):
    """``||r_i||``: ``|r_i|`` for one output (``sqrt(r**2)`` is ``|r|`` exactly in binary
    floating point, underflow aside, where both are far below any clip), else
    ``sqrt(sum_j r_ij**2)``."""
    if r.shape[1] == 1:
        return xp.abs(r[:, 0])
    return xp.sqrt(xp.sum(r * r, axis=1))


def row_blocks(part, xp=np):
    """Row slices of ``part`` (a dict of per-row arrays), about :data:`BLOCK_BYTES` of ``X`` each.

    At least one (empty if ``part`` has no rows).

    Examples
    --------
    >>> [b["X"].shape for b in row_blocks({"X": np.zeros((3, 2))})]
    [(3, 2)]
    """
    n, p = part["X"].shape
    step = _block_rows(p, part["X"].dtype, xp)
    for start in range(0, n, step) if n else [0]:
        rows = slice(start, min(start + step, n))
        yield {name: a if a is None else a[rows] if a.ndim == 1 else a[rows, :]
               for name, a in part.items()}


@functools.lru_cache(maxsize=256)
def _block_rows(p, dtype, xp):
    return max(1, BLOCK_BYTES // (max(p, 1) * (xp.finfo(dtype).bits // 8)))


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
    n, p = part["X"].shape
    if n <= _block_rows(p, part["X"].dtype, xp):  # one block: the rows themselves
        return fn(part, *args, xp=xp)
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
