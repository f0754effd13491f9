"""The two problems the streaming solvers of :mod:`skdp.solvers.streaming.srgd` run on.

Both compute the clipped sum ``sum_i clip(a g_i(theta1) - c g_i(theta0), G)``
of per-example gradient differences without materialising per-example
gradients. For a linear model the per-example gradient is
rank one, ``g_i(theta) = r_i(theta) x_i^T`` (``r_i = dloss/dz_i``, the
softmax residual ``p_i - y_i`` for the multinomial loss), so the difference
``(a r_i(theta1) - c r_i(theta0)) x_i^T`` is rank one too and its Frobenius
norm is ``||a r_i1 - c r_i0|| ||x_i||``: a batch costs two forward products
and one backward product, memory ``O(B d)``. For the regressor's mlp the
norm uses the Jacobians' closed-form inner products (ghost clipping, see
:class:`~skdp.solvers.kl.problem.Objective`).

``residuals(batch, theta)`` is the only place a gradient (a residual) of an
example is evaluated: tests count its calls.
"""

from ..._backend import array_api_compat
from ...privacy.clipping import clip_factors
from ..losses.classification import (curvature_at_zero, lipschitz, loss_and_residual,
                                     smoothness)

__all__ = ["ClassificationProblem", "RegressionProblem"]


class ClassificationProblem:
    """Logistic / multinomial loss of ``theta = [W | b]`` (shape ``(k, p + 1)``).

    Parameters
    ----------
    data : LinearData
        Clipped design and targets (:class:`~skdp.solvers.minimax.data.LinearData`).

    Attributes
    ----------
    lipschitz, smoothness : float
        Per-example bounds ``sqrt(2) A`` / ``A`` and ``A**2 / 2`` / ``A**2 / 4``
        (multinomial / binary, ``A`` the augmented row bound).
    curvature : float
        Curvature at ``theta = 0`` times ``A**2`` (the practical step scale).
    """

    def __init__(self, data):
        self.data = data
        self.xp = data.xp
        self.n = data.n
        self.shape = (data.k, data.p + 1)
        self.n_params = data.k * (data.p + 1)
        self.dtype = data.X.dtype
        self.device = array_api_compat.device(data.X)
        A = data.augmented_bound
        self.lipschitz = lipschitz(data.k) * A
        self.smoothness = smoothness(data.k) * A**2
        self.curvature = curvature_at_zero(data.k, data.n_classes) * A**2

    def initial(self):
        return self.xp.zeros(self.shape, dtype=self.dtype, device=self.device)

    def batch(self, idx):
        return self.data.subset(self.xp.asarray(idx, device=self.device))

    def residuals(self, batch, theta):
        """Per-example ``dloss/dz`` at ``theta``, shape (B, k)."""
        p = self.data.p
        return loss_and_residual(batch.margins(theta[:, :p], theta[:, p]), batch.targets,
                                 self.xp)[1]

    def clipped_sum(self, batch, a, res1, c, res0, clip):
        """``sum_i clip(a g_i(theta1) - c g_i(theta0), clip)`` by the rank-1 norms."""
        xp = self.xp
        U = a * res1 if res0 is None or c == 0 else a * res1 - c * res0
        norms = xp.sqrt(xp.sum(U * U, axis=1)) * batch.row_norm
        gw, gb = batch.gradient(U * clip_factors(norms, clip, xp)[:, None])
        return xp.concat([gw, gb[:, None]], axis=1)

    def penalty(self, theta):
        return 0.0

    def coef(self, theta):
        """``(coef, intercept)`` of the estimator (intercept in data units)."""
        p = self.data.p
        return theta[:, :p], self.data.intercept_scale * theta[:, p]


class RegressionProblem:
    """``phi(z(w), y)`` of :mod:`skdp.solvers.losses.regression` for a linear or mlp model, plus
    ridge.

    Parameters
    ----------
    X, y : arrays
        Clipped design (intercept column included) and clipped targets.
    loss : loss object
    model : LinearModel or MLPModel
    alpha : float
        Ridge strength: its gradient ``alpha w`` is added outside the clipped
        sum at the current iterate (post-processing).
    xp : namespace
    clip, smoothness, curvature : float
        Per-example gradient bound (the clip's scale), per-example smoothness
        and the practical curvature (step ``1 / curvature``).
    w0 : array, default=None
        Start (the mlp's random initialisation); None: zeros.
    """

    def __init__(self, X, y, loss, model, alpha, xp, *, clip, smoothness, curvature, w0=None):
        self.X, self.y, self.loss, self.model, self.alpha, self.xp = X, y, loss, model, alpha, xp
        self.n = int(X.shape[0])
        self.shape = (model.n_params,)
        self.n_params = model.n_params
        self.dtype = X.dtype
        self.device = array_api_compat.device(X)
        self.lipschitz = float(clip)
        self.smoothness = float(smoothness)
        self.curvature = float(curvature)
        self.x_sq_norms = xp.sum(X * X, axis=1)
        self.w0 = w0

    def initial(self):
        """``w0`` (the model's data-independent start), or zeros."""
        if self.w0 is not None:
            return self.w0
        return self.xp.zeros(self.shape, dtype=self.dtype, device=self.device)

    def batch(self, idx):
        xp = self.xp
        idx = xp.asarray(idx, device=self.device)
        return (xp.take(self.X, idx, axis=0), xp.take(self.y, idx, axis=0),
                xp.take(self.x_sq_norms, idx, axis=0))

    def residuals(self, batch, w):
        """``(phi'(z_i, y_i), model cache)`` at ``w``."""
        X, y, _ = batch
        z, cache = self.model.forward(w, X, self.xp)
        return self.loss.derivative(z, y, self.xp), cache

    def clipped_sum(self, batch, a, res1, c, res0, clip):
        """``sum_i clip(a g_i(w1) - c g_i(w0), clip)``: rank one for the linear model."""
        xp, m = self.xp, self.model
        X, _, sq = batch
        r1, c1 = res1
        if res0 is None or c == 0:
            norms = xp.abs(a * r1) * xp.sqrt(m.jac_sq_norms(c1, sq, xp))
            return m.vjp(c1, a * r1 * clip_factors(norms, clip, xp), X, xp)
        r0, c0 = res0
        u1, u0 = a * r1, c * r0
        sq_norm = (u1 * u1 * m.jac_sq_norms(c1, sq, xp) + u0 * u0 * m.jac_sq_norms(c0, sq, xp)
                   - 2.0 * u1 * u0 * m.jac_inner(c1, c0, sq, xp))
        f = clip_factors(xp.sqrt(xp.maximum(sq_norm, xp.zeros_like(sq_norm))), clip, xp)
        return m.vjp(c1, u1 * f, X, xp) - m.vjp(c0, u0 * f, X, xp)

    def penalty(self, w):
        return self.alpha * w if self.alpha else 0.0

