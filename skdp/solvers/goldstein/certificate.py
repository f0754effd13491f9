"""A certified, non-private bound on the Goldstein gap of a point (paper 001 Def. 2.1)."""

import numpy as np
from scipy.optimize import nnls

from ..._backend import Backend, to_numpy
from .oracles import _ball

__all__ = ["goldstein_gap", "min_norm_in_hull"]


def min_norm_in_hull(G):
    """Minimum-norm point of the convex hull of the rows of ``G`` (a small QP).

    Solved as non-negative least squares on ``[G^T; c 1^T] lam ~ [0; c]``
    (``c`` large enforces ``sum lam = 1``), then ``lam`` renormalised onto the
    simplex, so the returned norm is that of a point *in* the hull: an upper
    bound on the minimum, exact up to the NNLS tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> round(min_norm_in_hull(np.array([[1.0, 1.0], [-1.0, 1.0]])), 6)
    1.0
    """
    G = np.asarray(G, dtype=float)
    scale = max(float(np.abs(G).max()), 1e-300)
    Gs = G / scale
    c = 1e3
    lhs = np.vstack([Gs.T, c * np.ones((1, Gs.shape[0]))])
    rhs = np.zeros(Gs.shape[1] + 1)
    rhs[-1] = c
    lam, _ = nnls(lhs, rhs, maxiter=50 * lhs.shape[1])
    if lam.sum() <= 0:
        return float(np.linalg.norm(G, axis=1).min())
    lam = lam / lam.sum()
    return float(np.linalg.norm(lam @ G))


def goldstein_gap(problem, w, radius, n_points=200, random_state=None):
    """Upper bound on ``||grad-bar_radius F(w)||``: min-norm point of sampled gradients.

    ``F`` is the problem's empirical objective. Gradients at ``w`` and at
    ``n_points`` uniform points of the ball ``B(w, radius)`` all lie in the
    Goldstein subdifferential ``partial_radius F(w)`` (paper 001 Def. 2.1;
    ``F`` is differentiable almost everywhere), so the min-norm point of their
    convex hull (:func:`min_norm_in_hull`) bounds the min-norm element of
    ``partial_radius F(w)`` from above. NOT private: it reads the data.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.solvers.goldstein import GLMProblem
    >>> def absolute(Z, T, xp):
    ...     return xp.abs(Z - T)[..., 0], xp.sign(Z - T)
    >>> prob = GLMProblem(np.eye(2), np.zeros((2, 1)), absolute, 1, np)
    >>> goldstein_gap(prob, np.zeros(2), 0.1, random_state=0) < 1e-6
    True
    >>> round(goldstein_gap(prob, np.array([1.0, 1.0]), 0.1, random_state=0), 4)
    0.7071
    """
    backend = Backend.from_arrays(w, random_state=random_state)
    pts = _ball(backend, (n_points,), problem.d, float(radius), w.dtype) + w[None, :]
    pts = backend.xp.concat([w[None, :], pts], axis=0)
    G = to_numpy(problem.full_gradient(None, pts))
    return min_norm_in_hull(G)
