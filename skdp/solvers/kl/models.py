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

from ..._backend import array_api_compat
from ...privacy.clipping import clip_factors

__all__ = ["Design", "LinearModel", "MLPModel", "Objective", "SolverConfig", "KLProblem",
           "private_preconditioner"]

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

    def __init__(self, X, intercept, P, xp):
        self.X, self.intercept, self.P, self.xp = X, intercept, P, xp
        self.d = int(X.shape[1])
        self.shape = (int(X.shape[0]), self.d + (intercept is not None))
        self.dtype = X.dtype

    def _rows(self, X, V):
        out = X @ V[:self.d, ...]
        if self.intercept is not None:
            out = out + self.intercept * V[self.d, ...]
        return out

    def __matmul__(self, W):
        """``[X, c 1] P W`` for ``W`` of shape (p,) or (p, k)."""
        return self._rows(self.X, W if self.P is None else self.P @ W)

    def rmatmul(self, U):
        """``U [X, c 1] P`` for ``U`` of shape (n,) or (m, n)."""
        xp = self.xp
        A = U @ self.X
        if self.intercept is not None:
            last = self.intercept * xp.sum(U, axis=-1)
            A = xp.concat([A, xp.reshape(last, (*A.shape[:-1], 1))], axis=-1)
        return A if self.P is None else A @ self.P

    def row_sq_norms(self):
        """Squared norms of the rows of ``[X, c 1] P``, in blocks of ``ROW_CHUNK`` rows."""
        xp, n = self.xp, self.shape[0]
        if self.P is None:
            sq = xp.sum(self.X * self.X, axis=1)
            return sq if self.intercept is None else sq + self.intercept**2
        blocks = []
        for start in range(0, n, ROW_CHUNK):
            Z = self._rows(self.X[start:min(start + ROW_CHUNK, n), ...], self.P)
            blocks.append(xp.sum(Z * Z, axis=1))
        return blocks[0] if len(blocks) == 1 else xp.concat(blocks)

    def second_moment(self):
        """``[X, c 1]^T [X, c 1] / n`` (without ``P``), with no (n, p) temporary."""
        xp, n = self.xp, self.shape[0]
        S = self.X.T @ self.X / n
        if self.intercept is None:
            return S
        c = self.intercept
        col = xp.reshape(c * xp.sum(self.X, axis=0) / n, (-1, 1))
        corner = xp.full((1, 1), c * c, dtype=S.dtype, device=_device(S))
        return xp.concat([xp.concat([S, col], axis=1),
                          xp.concat([col.T, corner], axis=1)], axis=0)

    def take(self, idx):
        """The rows ``idx`` (a subsample) as a :class:`Design` with the same ``c`` and ``P``."""
        return Design(self.xp.take(self.X, idx, axis=0), self.intercept, self.P, self.xp)

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
        gW = rmatmul(G.T, X)
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
        self._x_sq_norms = None

    @property
    def x_sq_norms(self):
        """Squared row norms of the design, computed on first use (a pass over ``X``; a
        subsampled solver that builds its own batches never needs the full ones)."""
        if self._x_sq_norms is None:
            self._x_sq_norms = row_sq_norms(self.X, self.xp)
        return self._x_sq_norms

    def rows(self, idx, alpha=None):
        """The objective restricted to the rows ``idx`` (an integer index array), with the
        ridge ``alpha`` (None: this one's); its row norms are taken from this one's, computed
        once (a batch's own would cost a product with ``P`` per batch)."""
        xp = self.xp
        X = self.X.take(idx) if isinstance(self.X, Design) else xp.take(self.X, idx, axis=0)
        out = Objective(X, xp.take(self.y, idx, axis=0), self.loss, self.model,
                        self.alpha if alpha is None else alpha, xp)
        out._x_sq_norms = xp.take(self.x_sq_norms, idx, axis=0)
        return out

    def _residuals(self, w):
        z, cache = self.model.forward(w, self.X, self.xp)
        return self.loss.derivative(z, self.y, self.xp), cache

    def _scale(self, norms, bound):
        xp = self.xp
        if math.isinf(bound):
            return xp.ones_like(norms)
        return clip_factors(norms, bound, xp)

    def grad_norms(self, w):
        """Per-sample gradient norms ``|phi'(z_i, y_i)| ||J_i||`` at ``w`` (not a release)."""
        xp = self.xp
        r, cache = self._residuals(w)
        return xp.abs(r) * xp.sqrt(self.model.jac_sq_norms(cache, self.x_sq_norms, xp))

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
    shifted by ``lambda = 1.5 sqrt(2 p) sigma`` plus ``1e-6 B**2``. The
    symmetrised noise ``(G + G^T)/2`` has off-diagonal sd ``sigma/sqrt(2)``,
    so its spectrum's edge is about ``sqrt(2 p) sigma`` (GOE), and
    ``||(G + G^T)/2|| <= ||G|| <= (2 sqrt(p) + t) sigma`` with probability
    ``1 - exp(-t**2/2)`` (Davidson–Szarek ``E||G|| <= 2 sqrt(p) sigma`` and
    Gaussian concentration of the 1-Lipschitz norm): ``1.5 sqrt(2 p) =
    2.12 sqrt(p)`` is about that bound. Smaller shifts (``1.0`` and ``0.5
    sqrt(2 p) sigma``) and flooring the eigenvalues at the shift instead of
    adding it were mixed on the validation tables (issue 18). Everything after the release is
    post-processing, so ``P`` and any bound computed from ``S_hat`` are public.
    Gradient descent on the reparametrised model ``z = (X P) w'`` then sees a
    Hessian close to the identity (a far smaller ``gamma`` in the KL condition,
    so far fewer steps), while the solvers' privacy is unchanged: their
    sensitivity comes from clipping in the new coordinates.

    Parameters
    ----------
    X : array of shape (n, p) or Design
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

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.accounting import PrivacyLedger
    >>> from skdp.privacy.budget import Budget
    >>> from skdp.privacy.release import Release
    >>> release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    >>> X = np.random.default_rng(0).normal(size=(1000, 3)) / 4
    >>> P, spectrum = private_preconditioner(X, 1.0, Budget(1.0, 1e-6, 0.1, release=release))
    >>> P.shape, bool(np.all((0 <= spectrum) & (spectrum < 1)))
    ((3, 3), True)
    """
    xp = budget.backend.xp
    n, p = X.shape
    sens = math.sqrt(2.0) * row_bound**2 / n
    sigma = budget.sigma(sens, budget.rho)
    moment = X.second_moment() if isinstance(X, Design) else X.T @ X / n
    S = budget.gaussian(moment, sens, sigma, label="second-moment matrix")
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
