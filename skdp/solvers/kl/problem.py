"""The problem a paper-004 solver sees: the clipped empirical objective, the public
constants and the start.

The solvers of :mod:`skdp.solvers.kl.gd`, :mod:`skdp.solvers.kl.spider` and
:mod:`skdp.solvers.kl.ppm` are called ``fn(problem, budget, options)`` with a
:class:`KLProblem` (an :class:`Objective`, the start ``w0`` and the public
:class:`SolverConfig`) and a :class:`~skdp.privacy.budget.Budget`, the zCDP
filter through which every release is drawn and recorded; they return a
:class:`~skdp.solvers.spec.SolverResult`. The :class:`Objective` returns the mean
of *clipped* per-sample gradients (and of clipped per-sample gradient
differences, for Spider), which is what bounds the sensitivity whatever the
data (the paper's privacy assumes Lipschitz and smoothness along the trajectory;
clipping makes the bounds hold); its per-row maths are the kernels of
:mod:`skdp.solvers.kl.models`.

Neighbouring datasets differ in one row (replace-one, paper 004 Def. 2). The
mean of n vectors of norm at most ``C`` then has l2-sensitivity ``2C/n``, and so has its
norm (reverse triangle inequality).
"""

from dataclasses import dataclass

import numpy as np

from .models import (Design, LinearModel, RowModel, clip_scale, clipped_diff_block,
                     clipped_grad_block, grad_norm_counts_block, grad_norms_block, row_sq_norms)

__all__ = ["Objective", "SolverConfig", "KLProblem"]

EXACT_SHARE = 0.5  # batches' exact row norms, as a share of n, after which all are computed
BLOCK_BYTES = 1 << 21  # clipped_sum gathers a batch's rows in blocks of about this size (2 MB)


class Objective:
    """``F(w) = (1/n) sum_i phi(z_i(w), y_i) + alpha/2 ||w||**2`` with clipped gradients.

    The per-row maths are the block functions above (``clipped_grad_block``,
    ...), called on all the rows at once; a
    :class:`~skdp.solvers.kl.partitioned.PartitionedObjective` calls the same
    ones on each partition of a Dask collection.

    Parameters
    ----------
    X : array or Design
        Public-bound-clipped design in the backend namespace (a
        :class:`Design` applies the intercept column and the preconditioner
        on the fly).
    y : array
        Clipped targets.
    loss : loss object from :mod:`skdp.solvers.losses.regression`
    model : LinearModel or MLPModel
    alpha : float
        Ridge strength (data-independent gradient ``alpha w``: no privacy cost).
    xp : namespace
    """

    def __init__(self, X, y, loss, model, alpha, xp):
        self.X, self.y, self.loss, self.model, self.alpha, self.xp = X, y, loss, model, alpha, xp
        self.n = int(X.shape[0])
        self._x_sq_norms = self._sq_bounds = None
        self._exact_rows = [0]  # rows whose exact norm its batches computed (shared with them)
        D = X if isinstance(X, Design) else Design(X, None, None, xp)
        self._design, self._features, self._scale = D, D.X, D.scale
        self._rows = RowModel(loss, model, D.intercept, D.P)

    @property
    def x_sq_norms(self):
        """Squared row norms of the design, computed on first use (a pass over ``X``; a
        subsampled solver that builds its own batches never needs the full ones)."""
        if self._x_sq_norms is None:
            self._x_sq_norms = row_sq_norms(self.X, self.xp)
        return self._x_sq_norms

    def _part(self, sq=None):
        part = {"X": self._features, "y": self.y, "sq": self.x_sq_norms if sq is None else sq}
        if self._scale is not None:  # the rows' clip factors, applied on the fly
            part["scale"] = self._scale
        return part

    def _bounded(self):
        """Whether the row norms are not known yet, the design bounds them cheaply, and the
        batches have not computed ``EXACT_SHARE`` of ``n`` exact norms yet (past that, where
        the bound settles few clips, all are computed once: at most 1.5 times the pass)."""
        return (self._x_sq_norms is None and isinstance(self.X, Design)
                and self.X.bound is not None and self._exact_rows[0] < EXACT_SHARE * self.n)

    def rows(self, idx, alpha=None):
        """The objective restricted to the rows ``idx`` (an integer index array), with the
        ridge ``alpha`` (None: this one's). Its row norms are taken from this one's,
        computed once (a batch's own would cost a product with ``P`` per batch); where
        those are not known and the design bounds them (a preconditioner's
        :class:`~skdp.solvers.kl.preconditioner.NormBound`), it takes the bounds, computed
        once over all rows at ``p (k + 1)`` per row, and its :meth:`clipped_grad` computes
        the exact norms of the rows whose clip they do not settle (issue 31: the product
        with ``P`` over all rows cost as much as ``X^T X``)."""
        xp = self.xp
        X = self.X.take(idx) if isinstance(self.X, Design) else xp.take(self.X, idx, axis=0)
        out = Objective(X, xp.take(self.y, idx, axis=0), self.loss, self.model,
                        self.alpha if alpha is None else alpha, xp)
        if self._bounded():
            if self._sq_bounds is None:
                self._sq_bounds = self.X.row_sq_bounds()
            out._sq_bounds = xp.take(self._sq_bounds, idx, axis=0)
            out._exact_rows = self._exact_rows
        else:
            out._x_sq_norms = xp.take(self.x_sq_norms, idx, axis=0)
        return out

    def clipped_sum(self, w, idx, clip):
        """Sum over the rows ``idx`` (a Poisson batch) of the per-row gradients clipped to
        norm ``clip`` (no ridge term): ``rows(idx, alpha=0).clipped_grad(w, clip)`` times the
        batch's size, with the same clip factors (:meth:`clip_sq_norms`'s norms: exact, or
        the bound where it keeps a row within the clip, where the factor is 1 with either).

        It reads the batch's rows in blocks of about
        ``BLOCK_BYTES`` gathered into one buffer that stays in cache, each block's residuals
        and its share of the sum computed while there (issue 31: the gather of the whole
        batch and three passes over it were most of a step at d = 1,000); the rows whose
        bound does not settle their clip are gathered again with their exact norms. The
        sum is the same up to rounding (summed by blocks). Only where :meth:`blockwise`."""
        xp, D = self.xp, self._design
        v = w if D.P is None else D.P @ w
        bounded = self._bounded()
        if bounded and self._sq_bounds is None:
            self._sq_bounds = self.X.row_sq_bounds()
        sq_all = self._sq_bounds if bounded else self.x_sq_norms
        total, later = None, []
        for j, rows in self._gathered_blocks(idx, None):
            r = self.loss.derivative(rows @ v, self.y[j], xp)
            factor = clip_scale(np.abs(r) * np.sqrt(sq_all[j]), clip, xp)
            if bounded:  # within the clip under the bound: factor 1; the others: exact norms
                need = factor < 1
                later.append((j[need], r[need]))
                factor = (~need).astype(r.dtype)
            part = rows.rmatmul(factor * r)
            total = part if total is None else total + part
        if bounded and any(j.shape[0] for j, _ in later):
            total = total + self._exact_part(later, clip)
        return total if D.P is None else total @ D.P

    def _gathered_blocks(self, idx, P):
        """The rows ``idx`` of the design in blocks of about ``BLOCK_BYTES``, each gathered into
        one reused buffer (valid until the next block): ``(idx of the block, its Design with
        preconditioner P)``."""
        D = self._design
        block = max(1, min(int(idx.shape[0]), BLOCK_BYTES // (D.d * D.X.itemsize)))
        buf = np.empty((block, D.d), dtype=D.dtype)
        for start in range(0, int(idx.shape[0]), block):
            j = idx[start:start + block]
            yield j, Design(np.take(D.X, j, axis=0, out=buf[:j.shape[0]]), D.intercept, P,
                            self.xp, None if D.scale is None else D.scale[j])

    def blockwise(self):
        """Whether :meth:`clipped_sum` applies: a linear model on a NumPy design and targets
        of one dtype."""
        D = self._design
        return (isinstance(self.model, LinearModel) and isinstance(D.X, np.ndarray)
                and isinstance(self.y, np.ndarray) and D.X.dtype == self.y.dtype)

    def _exact_part(self, later, clip):
        """The clipped sum (without ``P``) over the rows whose bound did not settle their clip:
        ``later`` holds (rows, residuals) per block; their exact norms are computed here
        (counted towards ``EXACT_SHARE``)."""
        D, xp = self.X, self.xp  # a Design: there is a bound
        idx = np.concatenate([j for j, _ in later])
        r = np.concatenate([r for _, r in later])
        self._exact_rows[0] += int(idx.shape[0])
        rows = D.take(idx)
        factor = clip_scale(np.abs(r) * np.sqrt(rows.row_sq_norms()), clip, xp)
        return Design(rows.X, rows.intercept, None, xp, rows.scale).rmatmul(factor * r)

    def clip_sq_norms(self, w, clip):
        """Squared row norms that give :meth:`clipped_grad` at ``(w, clip)`` its exact clip
        factors: the exact norms where known; else the bounds, replaced by the exact norms
        of the rows whose gradient norm under the bound exceeds ``clip``.

        Exactness: the gradient norm ``|phi'(z_i)| ||J_i||`` is nondecreasing in the
        squared row norm (linear model: ``||J_i||**2`` is it; MLP: ``||A_i||**2 + 1 +
        ||a_i||**2 (sq + 1)``), so a row whose norm under the bound is at most ``clip`` has
        a true norm at most ``clip``, and its factor ``min(1, clip / norm)`` is 1 with
        either; every other row gets its exact norm. The clipped gradients, hence the
        sensitivity and the released values, are those of the exact norms (up to the
        rounding of the exact norms' products, taken on fewer rows).
        """
        if self._x_sq_norms is not None or self._sq_bounds is None:
            return self.x_sq_norms
        xp, bound = self.xp, self._sq_bounds
        need = grad_norms_block(self._part(bound), w, self._rows) > clip
        count = int(xp.sum(xp.astype(need, xp.int64)))
        if count == 0:
            return bound
        self._exact_rows[0] += count
        exact = self.X.take(xp.nonzero(need)[0]).row_sq_norms()
        where = xp.cumulative_sum(xp.astype(need, xp.int64)) - 1  # need's rank in exact
        where = xp.clip(where, 0, count - 1)
        return xp.where(need, xp.take(exact, where, axis=0), bound)

    def grad_norms(self, w):
        """Per-sample gradient norms ``|phi'(z_i, y_i)| ||J_i||`` at ``w`` (not a release)."""
        return grad_norms_block(self._part(), w, self._rows)

    def grad_norm_counts(self, w, grid, idx=None):
        """Counts of the per-sample gradient norms at ``w`` in the cells cut by ``grid``, over
        all rows or over the rows ``idx`` (a subset: ``rows(idx)``'s counts; where
        :meth:`blockwise`, its rows gathered in blocks of about ``BLOCK_BYTES`` and their
        exact norms computed there, not gathered all at once: the same products, row by
        row)."""
        if idx is None:
            return grad_norm_counts_block(self._part(), w, grid, self._rows)
        if not self.blockwise():
            return self.rows(idx).grad_norm_counts(w, grid)
        counts = None
        for j, rows in self._gathered_blocks(idx, self._design.P):
            part = {"X": rows.X, "y": self.y[j], "sq": rows.row_sq_norms()}
            if rows.scale is not None:
                part["scale"] = rows.scale
            cells = grad_norm_counts_block(part, w, grid, self._rows)
            counts = cells if counts is None else counts + cells
        return counts

    def clipped_grad(self, w, clip):
        """Mean of per-sample gradients clipped to norm ``clip``, plus ``alpha w``
        (the row norms of :meth:`clip_sq_norms`)."""
        part = self._part(self.clip_sq_norms(w, clip))
        return clipped_grad_block(part, w, clip, self.n, self._rows) + self.alpha * w

    def clipped_diff(self, w1, w0, clip):
        """Mean of per-sample ``grad f(w1) - grad f(w0)`` clipped to norm ``clip``.

        Plus ``alpha (w1 - w0)`` (see :func:`clipped_diff_block`).
        """
        return (clipped_diff_block(self._part(), w1, w0, clip, self.n, self._rows)
                + self.alpha * (w1 - w0))

    def value(self, w):
        """Exact objective (diagnostics and tests only: never released)."""
        xp = self.xp
        z = self.model.forward(w, self.X, xp)[0]
        return float(xp.mean(self.loss.value(z, self.y, xp))) + 0.5 * self.alpha * float(
            xp.sum(w * w))


@dataclass
class SolverConfig:
    """Public constants a solver needs (all from public bounds and parameters)."""

    clip: float            # per-sample gradient clip C (the L0 role)
    smoothness: float      # L1: step sizes
    n_params: int
    diff_clip: float | None = None  # per-sample smoothness: Spider's difference clip (default L1)
    beta: float = 0.1
    snr: float = 1.0
    max_iter: int | None = None
    kl_gamma: float | None = None
    kl_kappa: float | None = None
    loss_bound: float = 1.0
    theory: bool = False
    smooth: bool = True
    radius: float | None = None   # Goldstein solvers: smoothing radius alpha (None: their rule)
    verbose: int = 0
    row_sq: float | None = None   # public bound on the squared row norms of the design (P excluded)
    target_bound: float | None = None  # public bound on |y| (the clipped targets)


@dataclass
class KLProblem:
    """What a paper-004 solver is given besides its budget and options.

    Parameters
    ----------
    objective : Objective
        The clipped empirical objective (the only access to the data).
    w0 : array
        Data-independent start.
    config : SolverConfig
        Public constants.
    state : StreamState, default=None
        Streaming solvers: the stream that ``partial_fit`` continues (None:
        ``fit`` starts one from ``w0``).
    """

    objective: Objective
    w0: object
    config: SolverConfig
    state: object = None
