"""Regression losses for the KL-adaptive regressor (paper 004).

Every loss has the generalised-linear form ``phi(z, y)`` of a prediction ``z``
and a target ``y``; a model's per-sample gradient is ``phi'(z_i, y_i) J_i`` with
``J_i = dz_i/dw`` (for the linear model ``J_i = x_i``). The constants below are
bounds under the *public* target bound ``R_y`` (``|y| <= R_y``):

======== ============================== ============================== ==========
loss     ``phi(z, y)``                  ``sup |phi''|`` (smoothness)   smooth
======== ============================== ============================== ==========
squared  ``(z - y)**2 / 2``             1                              yes
huber    ``r**2/2`` if ``|r| <= h``,    1                              yes
         else ``h |r| - h**2/2``
lp       ``|z - y|**p``, 1 < p < 2      unbounded at ``r = 0``         no
sigmoid  ``(s(z) - y)**2 / 2``          ``1/16 + (1 + R_y)/(6 sqrt 3)`` yes
======== ============================== ============================== ==========

Robust losses (Lipschitz, nonsmooth and nonconvex; paper 001 §1.2's assumptions),
fitted by the Goldstein-stationarity solvers of
:mod:`skdp.solvers.goldstein`. ``tau`` is the cap on the loss value
(``truncation``), ``h`` the Huber threshold:

================== ============================== ============ ==========================
loss               ``phi(z, y)``                  ``sup|phi'|`` ``Phi`` (bound at ``z = 0``)
================== ============================== ============ ==========================
truncated_absolute ``min(|z - y|, tau)``          1            ``min(R_y, tau)``
capped_huber       ``min(huber_h(z - y), tau)``   ``h``        ``min(huber_h(R_y), tau)``
================== ============================== ============ ==========================

A residual beyond the cap has zero gradient: a gross outlier stops pulling
the fit. With rows of norm at most ``R_x`` the per-sample loss is
``sup|phi'| R_x``-Lipschitz in the weights (the public Lipschitz constant),
and ``Phi`` bounds ``F(0) - inf F`` (the losses are >= 0).

``s`` is the logistic function; the sigmoid loss is the nonconvex squared-loss
GLM for targets in [0, 1] (KL near a realizable ``w*``; not in paper 004). The ridge penalty
``alpha/2 ||w||**2`` is added by the objective (its gradient ``alpha w`` is
data-independent, so it costs no privacy).

The functions take the array namespace ``xp`` so that they run on any
array-API backend.
"""

import math

__all__ = ["LOSSES", "ROBUST_LOSSES", "SquaredLoss", "HuberLoss", "LpLoss", "SigmoidLoss",
           "TruncatedAbsoluteLoss", "CappedHuberLoss", "make_loss"]


class SquaredLoss:
    """``phi(z, y) = (z - y)**2 / 2``: least squares.

    PL (kappa = 2) with ``gamma = 1/sqrt(2 lambda_min^+(X^T X/n))`` (a standard
    fact, not from paper 004), a private quantity: hence the adaptive solver by default.

    Examples
    --------
    >>> import numpy as np
    >>> SquaredLoss().derivative(np.array([2.0]), np.array([0.5]), np).tolist()
    [1.5]
    """

    smooth = True

    def value(self, z, y, xp):
        r = z - y
        return 0.5 * r * r

    def derivative(self, z, y, xp):
        return z - y

    def curvature(self, target_bound):
        """Upper bound on ``|phi''|``."""
        return 1.0

    def value_bound(self, target_bound):
        """Bound on the loss at ``z = 0`` (a public F0 for ``w0 = 0``; F* >= 0)."""
        return 0.5 * target_bound**2

    def residual_bound(self, target_bound):
        """Default clip of ``|phi'|``: the residual at ``z = 0`` is at most ``R_y``."""
        return target_bound


class HuberLoss(SquaredLoss):
    """Huber loss with threshold ``delta``: globally ``delta``-Lipschitz in ``z``.

    Its per-sample gradient norm is at most ``delta ||x||``, so clipping at
    ``delta R_x`` is a no-op.

    Examples
    --------
    >>> import numpy as np
    >>> HuberLoss(0.5).derivative(np.array([2.0, 0.1]), np.array([0.0, 0.0]), np).tolist()
    [0.5, 0.1]
    """

    def __init__(self, delta=0.5):
        self.delta = float(delta)

    def value(self, z, y, xp):
        a = xp.abs(z - y)
        quad = xp.minimum(a, xp.full_like(a, self.delta))
        return 0.5 * quad * quad + self.delta * (a - quad)

    def derivative(self, z, y, xp):
        return xp.clip(z - y, -self.delta, self.delta)

    def value_bound(self, target_bound):
        a = min(target_bound, self.delta)
        return 0.5 * a * a + self.delta * (target_bound - a)

    def residual_bound(self, target_bound):
        return self.delta


class LpLoss(SquaredLoss):
    """``phi(z, y) = |z - y|**p`` with ``1 < p < 2``: KL with kappa = p/(p-1) > 2.

    Convex, so weakly convex with any constant, but not smooth at ``z = y``:
    use ``solver='ppm'`` (paper 004 Alg. 2, Thm 2). ``curvature`` returns the
    curvature at unit residual, used only as a step-size scale.

    Examples
    --------
    >>> import numpy as np
    >>> LpLoss(1.5).derivative(np.array([4.0]), np.array([0.0]), np).tolist()
    [3.0]
    """

    smooth = False

    def __init__(self, p=1.5):
        if not 1.0 < p < 2.0:
            raise ValueError(f"the lp loss needs 1 < p < 2, got p={p!r}.")
        self.p = float(p)

    def value(self, z, y, xp):
        return xp.abs(z - y) ** self.p

    def derivative(self, z, y, xp):
        r = z - y
        return self.p * xp.sign(r) * xp.abs(r) ** (self.p - 1.0)

    def curvature(self, target_bound):
        return self.p * (self.p - 1.0)

    def value_bound(self, target_bound):
        return target_bound**self.p

    def residual_bound(self, target_bound):
        return self.p * target_bound ** (self.p - 1.0)


class SigmoidLoss(SquaredLoss):
    """``phi(z, y) = (s(z) - y)**2 / 2`` with the logistic ``s``: nonconvex GLM.

    For targets in [0, 1]; ``|phi'| <= (1 + R_y)/4`` and
    ``|phi''| <= 1/16 + (1 + R_y)/(6 sqrt 3)``.
    Predictions of the fitted model are ``s(z)``.

    Examples
    --------
    >>> import numpy as np
    >>> SigmoidLoss().derivative(np.array([0.0]), np.array([1.0]), np).tolist()
    [-0.125]
    """

    def link(self, z, xp):
        return 1.0 / (1.0 + xp.exp(-z))

    def value(self, z, y, xp):
        r = self.link(z, xp) - y
        return 0.5 * r * r

    def derivative(self, z, y, xp):
        s = self.link(z, xp)
        return (s - y) * s * (1.0 - s)

    def curvature(self, target_bound):
        return 1.0 / 16.0 + (1.0 + target_bound) / (6.0 * math.sqrt(3.0))

    def value_bound(self, target_bound):
        return 0.5 * max(0.5, target_bound - 0.5) ** 2

    def residual_bound(self, target_bound):
        return (1.0 + target_bound) / 4.0


class TruncatedAbsoluteLoss(SquaredLoss):
    """``phi(z, y) = min(|z - y|, tau)``: the absolute error truncated at ``tau``.

    1-Lipschitz in ``z``, bounded by ``tau``; neither smooth (kinks at
    ``r = 0`` and ``|r| = tau``) nor convex. Residuals
    beyond ``tau`` have zero gradient, so gross outliers are ignored.

    Examples
    --------
    >>> import numpy as np
    >>> loss = TruncatedAbsoluteLoss(1.0)
    >>> loss.value(np.array([0.5, 3.0]), np.zeros(2), np).tolist()
    [0.5, 1.0]
    >>> loss.derivative(np.array([0.5, 3.0]), np.zeros(2), np).tolist()
    [1.0, 0.0]
    """

    smooth = False
    robust = True

    def __init__(self, truncation=1.0):
        if not truncation > 0:
            raise ValueError(f"truncation must be > 0, got {truncation!r}.")
        self.truncation = float(truncation)

    def value(self, z, y, xp):
        return xp.minimum(xp.abs(z - y), xp.full_like(z - y, self.truncation))

    def derivative(self, z, y, xp):
        r = z - y
        return xp.sign(r) * xp.astype(xp.abs(r) < self.truncation, r.dtype)

    def curvature(self, target_bound):
        """Step-size scale for the smooth-loss solvers (the loss has no curvature bound)."""
        return 1.0

    def value_bound(self, target_bound):
        """``Phi``: the loss at ``z = 0`` is at most ``min(R_y, tau)``, and the loss is >= 0."""
        return min(target_bound, self.truncation)

    def residual_bound(self, target_bound):
        """``sup |phi'| = 1``: the Lipschitz constant in ``z``."""
        return 1.0


class CappedHuberLoss(TruncatedAbsoluteLoss):
    """``phi(z, y) = min(huber_h(z - y), tau)``: the Huber loss capped at ``tau``.

    ``h``-Lipschitz in ``z``; nonconvex and nonsmooth where the cap binds.

    Examples
    --------
    >>> import numpy as np
    >>> loss = CappedHuberLoss(0.5, truncation=0.5)
    >>> loss.value(np.array([0.2, 0.8, 5.0]), np.zeros(3), np).round(3).tolist()
    [0.02, 0.275, 0.5]
    """

    def __init__(self, delta=0.5, truncation=1.0):
        super().__init__(truncation)
        self.huber = HuberLoss(delta)

    def value(self, z, y, xp):
        v = self.huber.value(z, y, xp)
        return xp.minimum(v, xp.full_like(v, self.truncation))

    def derivative(self, z, y, xp):
        g = self.huber.derivative(z, y, xp)
        return g * xp.astype(self.huber.value(z, y, xp) < self.truncation, g.dtype)

    def value_bound(self, target_bound):
        return min(self.huber.value_bound(target_bound), self.truncation)

    def residual_bound(self, target_bound):
        return self.huber.delta


LOSSES = {"squared": SquaredLoss, "huber": HuberLoss, "lp": LpLoss, "sigmoid": SigmoidLoss,
          "truncated_absolute": TruncatedAbsoluteLoss, "capped_huber": CappedHuberLoss}
ROBUST_LOSSES = ("truncated_absolute", "capped_huber")


def make_loss(name, *, huber_delta=0.5, p=1.5, truncation=1.0):
    """The loss object for a registry name.

    Examples
    --------
    >>> type(make_loss("huber")).__name__
    'HuberLoss'
    >>> make_loss("truncated_absolute", truncation=2.0).value_bound(1.0)
    1.0
    """
    if name == "huber":
        return HuberLoss(huber_delta)
    if name == "truncated_absolute":
        return TruncatedAbsoluteLoss(truncation)
    if name == "capped_huber":
        return CappedHuberLoss(huber_delta, truncation)
    if name == "lp":
        return LpLoss(p)
    if name not in LOSSES:
        raise ValueError(f"unknown loss {name!r}; choose one of {sorted(LOSSES)}.")
    return LOSSES[name]()
