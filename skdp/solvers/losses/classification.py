"""Logistic, multinomial and ramp losses of a linear model's scores, and their constants.

The scores ``Z`` of a linear model on the clipped design of
:class:`~skdp.solvers.minimax.data.LinearData`; every function works in the array
namespace ``xp`` of its input and has no loop over samples.

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

__all__ = ["loss_and_residual", "lipschitz", "smoothness", "curvature_at_zero", "loss_bound",
           "LOSSES", "ramp_loss"]

LOSSES = ("logistic", "ramp")

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
