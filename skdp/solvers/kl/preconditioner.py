"""The regressor's private preconditioner (paper 004): one Gaussian release of the
second-moment matrix of the clipped design, the rest post-processing.
"""

import math
from dataclasses import dataclass

__all__ = ["private_preconditioner", "NormBound"]

HEAD_RATIO = 0.5   # head: the directions whose ||P v||**2 is below this share of the largest
HEAD_SHARE = 16    # at most p // HEAD_SHARE head directions (cost: p (k + 1) per row)
BOUND_MIN_P = 64   # no bound below this p: the exact norms cost little more than a read of X


@dataclass
class NormBound:
    """An upper bound on ``||P x||**2`` for every ``x``, cheaper than the product with ``P``.

    With ``S_hat``'s eigenpairs ``(lambda_j, v_j)`` (eigenvalues floored at 0),
    ``P**2 = sum_j m_j v_j v_j^T`` where ``m_j = 1 / (lambda_j + shift)``. Split
    the directions into a head (the ``k`` smallest ``m_j``: the large
    eigenvalues) and the rest, whose largest ``m_j`` is ``top``. Then, for any ``x``
    (``V`` orthonormal: ``sum_j (v_j . x)**2 = ||x||**2``),

    ``||P x||**2 = top ||x||**2 - sum_head (top - m_j) (v_j . x)**2
    - sum_rest (top - m_j) (v_j . x)**2
    <= top ||x||**2 - ||H^T x||**2``

    with ``H`` the head's ``v_j sqrt(top - m_j)`` as columns: the dropped terms are all
    ``>= 0``. It costs ``p (k + 1)`` per row against ``p**2`` for ``||P x||**2``.
    ``margin`` adds ``margin * top * ||x||**2`` for rounding: ``8 p eps (2 + sqrt(k))``
    (``eps`` of ``P``'s dtype), a few times the standard worst-case bounds
    (``gamma_p = p eps / (1 - p eps)`` per dot product) on the defects of the
    computed ``V`` (orthonormal to ``O(p eps)``), of the computed ``P`` and of the
    bound's own products (``sqrt(k)``: the head's dot products, by Cauchy-Schwarz).
    Post-processing of the released ``S_hat``: public.

    Attributes
    ----------
    top : float
    head : array of shape (p, k)
    margin : float
    """

    top: float
    head: object
    margin: float

    @classmethod
    def from_eigh(cls, evals, evecs, shift, xp):
        """From ``S_hat``'s ascending eigenvalues (floored) and eigenvectors, and ``shift``
        (None below ``BOUND_MIN_P`` columns)."""
        p = int(evals.shape[0])
        if p < BOUND_MIN_P:
            return None
        m = 1.0 / (evals + shift)            # descending: m[0] is the largest
        top = float(m[0])
        k = min(int(xp.sum(xp.astype(m < HEAD_RATIO * top, xp.int64))), p // HEAD_SHARE)
        head = evecs[:, p - k:] * xp.sqrt(top - m[p - k:])
        eps = float(xp.finfo(evecs.dtype).eps)
        return cls(top, head, 8.0 * p * eps * (2.0 + math.sqrt(k)))



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
    bound : NormBound or None
        A cheap upper bound on the squared norms ``||P x||**2`` (post-processing; None
        below ``BOUND_MIN_P`` columns).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> from skdp.privacy.budget import Budget
    >>> from skdp.privacy.release import Release
    >>> release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    >>> X = np.random.default_rng(0).normal(size=(1000, 64)) / 32
    >>> P, spectrum, bound = private_preconditioner(X, 1.0, Budget(1.0, 1e-6, 0.1, release=release))
    >>> P.shape, bool(np.all((0 <= spectrum) & (spectrum < 1)))
    ((64, 64), True)
    >>> x = np.ones(64)
    >>> upper = bound.top * (1 + bound.margin) * 64 - np.sum((x @ bound.head) ** 2)
    >>> bool(np.sum((P @ x) ** 2) <= upper)
    True
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
    return ((evecs / xp.sqrt(evals + shift)) @ evecs.T, evals / (evals + shift),
            NormBound.from_eigh(evals, evecs, shift, xp))
