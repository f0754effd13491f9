"""The classifier solvers' problem type, budget calibration and small shared helpers.

Every solver of :class:`~skdp.minimax.PrivateMinimaxClassifier` is called as
``fn(problem, budget, options)``: ``problem`` a :class:`MinimaxProblem`,
``budget`` a :class:`~skdp.privacy.budget.Budget` (its release path draws and
records every private release) and ``options`` the resolved
``solver_options`` of the solver's spec; it returns a
:class:`~skdp.solvers.spec.SolverResult` whose ``solution`` is ``(coef,
intercept)`` and whose ``info`` holds the ``group_weights``.
"""

from dataclasses import dataclass
import math

from ...privacy.ledger import approx_dp_to_gdp

__all__ = ["MinimaxProblem", "remaining_gdp", "largest_within", "softmax_np"]


@dataclass
class MinimaxProblem:
    """The data and public settings of one classifier fit.

    Parameters
    ----------
    data : LinearData
        Clipped rows, label and group codes.
    sizes : ndarray of shape (n_groups,)
        Group sizes, public or privately released (so public to the solver).
    reference : {'balanced', 'population'}, default='balanced'
        Fallback group weights of the smoothed max
        (:func:`~skdp.solvers.minimax.euclidean.reference_logits`).
    radius : float, default=None
        Radius of the model's ball (the estimator's ``radius``).
    n_iter : int or 'auto', default='auto'
    theory : bool, default=False
        The papers' theorem parameters.
    verbose : int, default=0
    goldstein_radius : float, default=None
        Smoothing radius of the paper-001 solvers.
    state : StreamState, default=None
        Streaming solvers: the stream ``partial_fit`` continues.
    """

    data: object
    sizes: object
    reference: str = "balanced"
    radius: float | None = None
    n_iter: object = "auto"
    theory: bool = False
    verbose: int = 0
    goldstein_radius: float | None = None
    state: object = None

_SAFETY = 1.0 - 1e-9  # keep float round-off from composing a hair above the target


def remaining_gdp(ledger, epsilon, delta):
    """mu of the Gaussian mechanisms that still fit in (epsilon, delta).

    For a ledger holding only Gaussian mechanisms the composition is exactly
    mu-GDP with ``mu**2 = sum mu_i**2`` (Dong–Roth–Su 2022, Cor. 3.3), and
    mu-GDP is (epsilon, delta)-DP iff ``delta >= delta_mu(epsilon)`` (Cor.
    2.13). So the remaining mu is ``sqrt(mu(eps, delta)**2 - sum mu_i**2)``.
    ``epsilon = inf`` gives ``inf`` (no noise).

    Examples
    --------
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> round(remaining_gdp(PrivacyLedger(), 1.0, 1e-6), 4)
    0.2367
    """
    if math.isinf(epsilon):
        return math.inf
    if any(e.kind != "gaussian" for e in ledger.entries):
        raise ValueError("remaining_gdp needs a ledger of Gaussian mechanisms only.")
    used = sum(e.count * e.mu**2 for e in ledger.entries)
    left = approx_dp_to_gdp(epsilon, delta) ** 2 * _SAFETY - used
    if left <= 0:
        raise ValueError("no privacy budget left for the solver.")
    return math.sqrt(left)


def largest_within(record, ledger, epsilon, delta, hi=10.0, iters=60):
    """Largest ``x`` such that ``ledger`` plus ``record(x)`` spends at most epsilon.

    ``record(x)`` returns a new :class:`~skdp.privacy.ledger.PrivacyLedger`
    holding the solver's mechanisms for parameter ``x`` (spend increasing in
    ``x``). Bisection in log scale on the ledger's tightest composition rule.
    """
    def fits(x):
        trial = type(ledger)(list(ledger.entries))
        trial.extend(record(x))
        return trial.spent(delta)[0] <= epsilon * _SAFETY

    lo = hi
    while not fits(lo):
        lo /= 2.0
        if lo < 1e-300:
            raise ValueError("no privacy budget left for the solver.")
    if lo == hi:
        while fits(hi * 2.0) and hi < 1e12:
            hi *= 2.0
        lo = hi
        hi = lo * 2.0
    else:
        hi = lo * 2.0
    for _ in range(iters):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def softmax_np(v):
    """Softmax of a 1-D NumPy array (max-subtracted)."""
    import numpy as np

    v = np.asarray(v, dtype=float)
    e = np.exp(v - v.max())
    return e / e.sum()
