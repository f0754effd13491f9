"""Models, the clipped empirical objective and the problem the solvers see (paper 004).

The solvers of :mod:`skdp.solvers.kl.gd`, :mod:`skdp.solvers.kl.spider` and
:mod:`skdp.solvers.kl.ppm` are called ``fn(problem, budget, options)`` with a
:class:`KLProblem` (an :class:`Objective`, the start ``w0`` and the public
:class:`SolverConfig`) and a :class:`~skdp.privacy.budget.Budget`, the zCDP
filter through which every release is drawn and recorded; they return a
:class:`~skdp.solvers.spec.SolverResult`. The :class:`Objective` returns the mean
of *clipped* per-sample gradients (and of clipped per-sample gradient
differences, for Spider), which is what bounds the sensitivity whatever the
data (notes 004 §5.4 item 1). Per-sample gradients are never materialised:
a model's per-sample gradient is ``phi'(z_i, y_i) J_i`` with ``J_i = dz_i/dw``,
and the models give ``||J_i||**2``, ``<J_i(w1), J_i(w0)>`` and ``sum_i u_i J_i``
in closed form (ghost clipping, notes 004 §5.3).

Neighbouring datasets differ in one row (replace-one, paper 004 Def. 2). The
mean of n vectors of norm at most ``C`` then has l2-sensitivity ``2C/n`` (notes
004 §5.1), and so has its norm (reverse triangle inequality).
"""

from dataclasses import dataclass
import math

from ...privacy.clipping import clip_factors

__all__ = ["LinearModel", "MLPModel", "Objective", "SolverConfig", "KLProblem",
           "private_preconditioner"]


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
        return u @ X


class MLPModel:
    """One hidden layer: ``z = v . tanh(W x + b) + c``, parameters flattened.

    With ``h_i = W x_i + b``, ``A_i = tanh(h_i)`` and ``a_i = v * tanh'(h_i)``
    the Jacobian blocks are ``(a_i x_i^T, a_i, A_i, 1)``, so
    ``||J_i||**2 = ||A_i||**2 + 1 + ||a_i||**2 (||x_i||**2 + 1)`` and inner
    products of two Jacobians factor the same way (notes 004 §5.3).

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
        gW = G.T @ X
        return xp.concat([xp.reshape(gW, (-1,)), xp.sum(G, axis=0), u @ A,
                          xp.reshape(xp.sum(u), (1,))])

    def jacobians(self, w, X, xp):
        """Explicit per-sample Jacobians, shape (n, n_params): tests only."""
        W, b, v, c = self.unpack(w, xp)
        A, a = self.forward(w, X, xp)[1]
        n = X.shape[0]
        gW = xp.reshape(a[:, :, None] * X[:, None, :], (n, -1))
        return xp.concat([gW, a, A, xp.ones((n, 1), dtype=X.dtype)], axis=1)


class Objective:
    """``F(w) = (1/n) sum_i phi(z_i(w), y_i) + alpha/2 ||w||**2`` with clipped gradients.

    Parameters
    ----------
    X, y : arrays
        Public-bound-clipped data in the backend namespace.
    loss : loss object from :mod:`skdp.solvers.losses.regression`
    model : LinearModel or MLPModel
    alpha : float
        Ridge strength (data-independent gradient ``alpha w``: no privacy cost).
    xp : namespace
    """

    def __init__(self, X, y, loss, model, alpha, xp):
        self.X, self.y, self.loss, self.model, self.alpha, self.xp = X, y, loss, model, alpha, xp
        self.n = int(X.shape[0])
        self.x_sq_norms = xp.sum(X * X, axis=1)

    def _residuals(self, w):
        z, cache = self.model.forward(w, self.X, self.xp)
        return self.loss.derivative(z, self.y, self.xp), cache

    def _scale(self, norms, bound):
        xp = self.xp
        if math.isinf(bound):
            return xp.ones_like(norms)
        return clip_factors(norms, bound, xp)

    def clipped_grad(self, w, clip):
        """Mean of per-sample gradients clipped to norm ``clip``, plus ``alpha w``."""
        xp = self.xp
        r, cache = self._residuals(w)
        norms = xp.abs(r) * xp.sqrt(self.model.jac_sq_norms(cache, self.x_sq_norms, xp))
        u = self._scale(norms, clip) * r / self.n
        return self.model.vjp(cache, u, self.X, xp) + self.alpha * w

    def clipped_diff(self, w1, w0, clip):
        """Mean of per-sample ``grad f(w1) - grad f(w0)`` clipped to norm ``clip``.

        Plus ``alpha (w1 - w0)``. Norms use ``||r1 J1 - r0 J0||**2 =
        r1**2 ||J1||**2 + r0**2 ||J0||**2 - 2 r1 r0 <J1, J0>``.
        """
        xp, m = self.xp, self.model
        r1, c1 = self._residuals(w1)
        r0, c0 = self._residuals(w0)
        sq = (r1 * r1 * m.jac_sq_norms(c1, self.x_sq_norms, xp)
              + r0 * r0 * m.jac_sq_norms(c0, self.x_sq_norms, xp)
              - 2.0 * r1 * r0 * m.jac_inner(c1, c0, self.x_sq_norms, xp))
        s = self._scale(xp.sqrt(xp.maximum(sq, xp.zeros_like(sq))), clip) / self.n
        return (m.vjp(c1, s * r1, self.X, xp) - m.vjp(c0, s * r0, self.X, xp)
                + self.alpha * (w1 - w0))

    def value(self, w):
        """Exact objective (diagnostics and tests only: never released)."""
        xp = self.xp
        z = self.model.forward(w, self.X, xp)[0]
        return float(xp.mean(self.loss.value(z, self.y, xp))) + 0.5 * self.alpha * float(
            xp.sum(w * w))


def private_preconditioner(X, row_bound, budget):
    """``P = (S_hat + lambda I)**(-1/2)`` from a noisy second-moment matrix ``S = X^T X / n``.

    ``S`` is released with the Gaussian mechanism: for rows of norm at most
    ``B`` the replace-one Frobenius sensitivity is ``||x x^T - x' x'^T||_F <=
    sqrt(2) B**2`` (expand the norm: the cross term ``(x . x')**2`` is >= 0),
    so ``Delta = sqrt(2) B**2 / n``, at the whole of ``budget``. The noisy
    matrix is symmetrised (post-processing), its eigenvalues floored at 0 and
    shifted by ``lambda = 1.5 sqrt(2 p) sigma`` (about the spectral norm of
    the noise) plus ``1e-6 B**2``. Everything after the release is
    post-processing, so ``P`` and any bound computed from ``S_hat`` are public.
    Gradient descent on the reparametrised model ``z = (X P) w'`` then sees a
    Hessian close to the identity (a far smaller ``gamma`` in the KL condition,
    so far fewer steps), while the solvers' privacy is unchanged: their
    sensitivity comes from clipping in the new coordinates.

    Parameters
    ----------
    X : array of shape (n, p)
        Clipped design, rows of norm at most ``row_bound``.
    row_bound : float
    budget : Budget
        The :class:`~skdp.privacy.budget.Budget` the release draws through.

    Returns
    -------
    P : array of shape (p, p)
    spectrum : array of shape (p,)
        Eigenvalues of ``P S_hat P`` with ``S_hat``'s eigenvalues floored at 0:
        ``lambda_i / (lambda_i + shift)``, all in [0, 1).
    """
    xp = budget.backend.xp
    n, p = X.shape
    sens = math.sqrt(2.0) * row_bound**2 / n
    sigma = budget.sigma(sens, budget.rho)
    S = budget.gaussian(X.T @ X / n, sens, sigma, label="second-moment matrix")
    S = 0.5 * (S + S.T)
    evals, evecs = xp.linalg.eigh(S)
    shift = 1.5 * math.sqrt(2.0 * p) * sigma + 1e-6 * row_bound**2
    evals = xp.maximum(evals, xp.zeros_like(evals))
    return (evecs / xp.sqrt(evals + shift)) @ evecs.T, evals / (evals + shift)


@dataclass
class SolverConfig:
    """Public constants a solver needs (all from public bounds and parameters)."""

    clip: float            # per-sample gradient clip C (the L0 role)
    smoothness: float      # L1: step sizes
    n_params: int
    diff_clip: float = None  # per-sample smoothness: Spider's difference clip (default L1)
    beta: float = 0.1
    snr: float = 1.0
    max_iter: int = None
    kl_gamma: float = None
    kl_kappa: float = None
    loss_bound: float = 1.0
    theory: bool = False
    smooth: bool = True
    radius: float = None   # Goldstein solvers: smoothing radius alpha (None: their rule)
    verbose: int = 0


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
