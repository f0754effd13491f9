"""Models, the clipped empirical objective and the problem the solvers see (paper 004).

The solvers of :mod:`skdp.solvers.kl.gd`, :mod:`skdp.solvers.kl.spider` and
:mod:`skdp.solvers.kl.ppm` are called ``fn(problem, budget, options)`` with a
:class:`KLProblem` (an :class:`Objective`, the start ``w0`` and the public
:class:`SolverConfig`) and a :class:`~skdp.privacy.budget.Budget`, the zCDP
filter through which every release is drawn and recorded; they return a
:class:`~skdp.solvers.spec.SolverResult`. The :class:`Objective` returns the mean
of *clipped* per-sample gradients (and of clipped per-sample gradient
differences, for Spider), which is what bounds the sensitivity whatever the
data (the paper's privacy assumes Lipschitz and smoothness along the
trajectory; clipping makes the bounds hold). Per-sample gradients are never materialised:
a model's per-sample gradient is ``phi'(z_i, y_i) J_i`` with ``J_i = dz_i/dw``,
and the models give ``||J_i||**2``, ``<J_i(w1), J_i(w0)>`` and ``sum_i u_i J_i``
in closed form (ghost clipping).

Neighbouring datasets differ in one row (replace-one, paper 004 Def. 2). The
mean of n vectors of norm at most ``C`` then has l2-sensitivity ``2C/n``, and
so has its norm (reverse triangle inequality).
"""

from dataclasses import dataclass
import math

from ..._backend import array_api_compat
from ...privacy.clipping import clip_factors
from ...privacy.quantile import cell_counts

__all__ = ["Design", "LinearModel", "MLPModel", "Objective", "RowModel", "SolverConfig",
           "KLProblem", "private_preconditioner", "clipped_grad_block", "clipped_diff_block",
           "grad_norms_block", "grad_norm_counts_block", "second_moment_block"]

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
        for start in range(0, max(n, 1), ROW_CHUNK):  # one (empty) block when n = 0
            Z = self._rows(self.X[start:min(start + ROW_CHUNK, n), ...], self.P)
            blocks.append(xp.sum(Z * Z, axis=1))
        return blocks[0] if len(blocks) == 1 else xp.concat(blocks)

    def second_moment(self):
        """``[X, c 1]^T [X, c 1] / n`` (without ``P``), with no (n, p) temporary."""
        return second_moment_block({"X": self.X}, self.intercept, self.shape[0])

    def preconditioned(self, P):
        """The same rows in the coordinates of the preconditioner ``P``."""
        return Design(self.X, self.intercept, P, self.xp)

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
        return xp.concat([gW, a, A, xp.ones((n, 1), dtype=X.dtype)], axis=1)


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
    X = Design(part["X"], rows.intercept, rows.P, xp)
    z, cache = rows.model.forward(w, X, xp)
    return xp, X, rows.loss.derivative(z, part["y"], xp), cache


def _clip_scale(norms, bound, xp):
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
    u = _clip_scale(_grad_norms(part, r, cache, rows, xp), clip, xp) * r / n
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
    s = _clip_scale(xp.sqrt(xp.maximum(sq, xp.zeros_like(sq))), clip, xp) / n
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
    col = xp.reshape(c * xp.sum(X, axis=0) / n, (-1, 1))
    corner = xp.full((1, 1), c * c * (int(X.shape[0]) / n), dtype=S.dtype, device=_device(S))
    return xp.concat([xp.concat([S, col], axis=1), xp.concat([col.T, corner], axis=1)], axis=0)


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
        self._x_sq_norms = None
        D = X if isinstance(X, Design) else Design(X, None, None, xp)
        self._features = D.X
        self._rows = RowModel(loss, model, D.intercept, D.P)

    @property
    def x_sq_norms(self):
        """Squared row norms of the design, computed on first use (a pass over ``X``; a
        subsampled solver that builds its own batches never needs the full ones)."""
        if self._x_sq_norms is None:
            self._x_sq_norms = row_sq_norms(self.X, self.xp)
        return self._x_sq_norms

    def _part(self):
        return {"X": self._features, "y": self.y, "sq": self.x_sq_norms}

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

    def grad_norms(self, w):
        """Per-sample gradient norms ``|phi'(z_i, y_i)| ||J_i||`` at ``w`` (not a release)."""
        return grad_norms_block(self._part(), w, self._rows)

    def grad_norm_counts(self, w, grid):
        """Counts of the per-sample gradient norms at ``w`` in the cells cut by ``grid``."""
        return grad_norm_counts_block(self._part(), w, grid, self._rows)

    def clipped_grad(self, w, clip):
        """Mean of per-sample gradients clipped to norm ``clip``, plus ``alpha w``."""
        return clipped_grad_block(self._part(), w, clip, self.n, self._rows) + self.alpha * w

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
    X : array of shape (n, p), Design or PartitionedDesign
        Clipped design, rows of norm at most ``row_bound`` (a design's
        ``second_moment()`` is used: one pass, summed over partitions).
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
    moment = X.second_moment() if hasattr(X, "second_moment") else X.T @ X / n
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
