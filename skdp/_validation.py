"""Validation helpers shared by the estimators."""

from numbers import Real
import math
import warnings

import numpy as np
from sklearn.utils._param_validation import Interval, InvalidParameterError, Options

from .exceptions import PrivacyLeakWarning
from .privacy.accountant import BudgetAccountant

__all__ = ["EPSILON_CONSTRAINT", "DELTA_CONSTRAINT", "ACCOUNTANT_CONSTRAINT", "check_epsilon_delta", "check_bound",
           "clip_factors", "clip_overflowing_rows", "clip_rows", "row_norms", "warn_large_delta",
           "warn_privacy_leak"]


class RealInterval(Interval):
    """An interval of real numbers that excludes booleans.

    sklearn's ``Interval(Real, ...)`` accepts ``True`` as 1 and ``False`` as 0
    (``bool`` is an ``int``); a privacy budget given as a boolean is a mistake.

    Examples
    --------
    >>> RealInterval(0, 1, closed="right").is_satisfied_by(True)
    False
    >>> RealInterval(0, 1, closed="right").is_satisfied_by(1)
    True
    """

    def __init__(self, left, right, *, closed):
        super().__init__(Real, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)

    def __str__(self):
        return f"{super().__str__()} (not a bool)"


# epsilon in (0, 1e10] or inf (inf: no privacy, for reference fits; finite values
# beyond 1e10 mean no privacy either and overflow the conversions); delta in [0, 1).
MAX_FINITE_EPSILON = 1e10
EPSILON_CONSTRAINT = [RealInterval(0, MAX_FINITE_EPSILON, closed="right"),
                      Options(Real, {math.inf})]
DELTA_CONSTRAINT = [RealInterval(0, 1, closed="left")]
# public bounds: squared and inverted by the solvers, so kept well inside float range
BOUND_CONSTRAINT = [Interval(Real, 1e-100, 1e100, closed="both")]
ACCOUNTANT_CONSTRAINT = [None, BudgetAccountant]


def check_epsilon_delta(epsilon, delta, *, need_delta=False):
    """Check a privacy budget; return it as floats.

    Parameters
    ----------
    epsilon : float
        Must be > 0 (``inf`` allowed: no privacy); not a bool.
    delta : float
        Must be in [0, 1); > 0 when ``need_delta`` (Gaussian mechanisms);
        not a bool.
    need_delta : bool, default=False
        The mechanism has no pure-DP guarantee.

    Examples
    --------
    >>> check_epsilon_delta(1, 1e-6)
    (1.0, 1e-06)
    """
    for name, value in (("epsilon", epsilon), ("delta", delta)):
        if isinstance(value, (bool, np.bool_)):
            raise InvalidParameterError(
                f"The {name!r} parameter must be a real number, not a bool. Got {value!r} instead.")
    try:
        epsilon, delta = float(epsilon), float(delta)
    except (TypeError, ValueError):
        raise TypeError(f"epsilon and delta must be real numbers, got {epsilon!r}, {delta!r}.")
    if math.isnan(epsilon) or not epsilon > 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
    if MAX_FINITE_EPSILON < epsilon < math.inf:
        raise ValueError(f"epsilon must be at most {MAX_FINITE_EPSILON:g} or inf (no privacy), "
                         f"got {epsilon!r}.")
    if math.isnan(delta) or not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}.")
    if need_delta and delta == 0 and not math.isinf(epsilon):
        raise ValueError("delta must be > 0: this solver uses the Gaussian mechanism, "
                         "which has no pure (delta = 0) guarantee.")
    return epsilon, delta


def check_bound(value, name):
    """Check a public bound is finite and > 0; return it as a float.

    Examples
    --------
    >>> check_bound(2, "feature_bound")
    2.0
    """
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {value!r}.")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be finite and > 0, got {value!r}.")
    if not 1e-100 <= value <= 1e100:
        raise ValueError(f"{name} must be in [1e-100, 1e100], got {value!r}.")
    return value


def clip_factors(norms, bound, xp=np):
    """Per-row factors ``min(1, bound / norm)`` that scale rows of these norms into the ball.

    ``bound / max(norm, bound)``: a norm within the bound (zero included) gives
    exactly 1, and nothing divides by zero or overflows, in any float dtype (a
    bound beyond the dtype's range is taken as its largest value).

    Examples
    --------
    >>> clip_factors(np.array([5.0, 0.5, 0.0]), 1.0).tolist()
    [0.2, 1.0, 1.0]
    """
    limit = xp.full_like(norms, min(float(bound), float(xp.finfo(norms.dtype).max)))
    return limit / xp.maximum(norms, limit)


def row_norms(X, xp=np):
    """l2 norm of each row of ``X``, without overflow.

    The squared norms are summed directly (no (n, p) temporary on the host);
    a row whose squared norm overflows (entries near 1e154 and up) is divided
    by its largest ``|entry|`` first, so its norm is finite whenever it is
    representable.

    Examples
    --------
    >>> (row_norms(np.array([[3.0, 4.0], [3e300, 4e300]])) / [1.0, 1e300]).round(12).tolist()
    [5.0, 5.0]
    """
    sq = _squared_row_norms(X, xp)
    huge = xp.isinf(sq)
    norms = xp.sqrt(sq)
    if not bool(xp.any(huge)):
        return norms
    scaled, peak = _peak_scaled(X, huge, xp)
    with np.errstate(over="ignore"):  # a norm beyond the float range is inf
        return xp.where(huge, peak * xp.sqrt(_squared_row_norms(scaled, xp)), norms)


def clip_overflowing_rows(X, bound, xp=np):
    """``X`` with each row whose squared l2 norm overflows replaced by its clipped value.

    Such a row (entries near 1e154 and up) becomes its direction at norm
    ``bound``, as :func:`clip_rows` would make it; other rows are untouched.
    Without this, the clipping factor ``bound / inf = 0`` would zero the row.

    Examples
    --------
    >>> clip_overflowing_rows(np.array([[3e300, 4e300], [3.0, 4.0]]), 1.0).round(3).tolist()
    [[0.6, 0.8], [3.0, 4.0]]
    """
    return _clip_overflowing_rows(X, bound, xp)[0]


def clip_rows(X, bound, xp=np):
    """Scale each row of ``X`` to l2 norm at most ``bound`` (privacy by clipping).

    Rows of any finite magnitude keep their direction (no overflow, see
    :func:`clip_overflowing_rows`).

    Examples
    --------
    >>> clip_rows(np.array([[3.0, 4.0], [0.3, 0.4], [3e300, 4e300]]), 1.0).round(3).tolist()
    [[0.6, 0.8], [0.3, 0.4], [0.6, 0.8]]
    """
    X, norms = _clip_overflowing_rows(X, bound, xp)
    return X * clip_factors(norms, bound, xp)[:, None]


def _squared_row_norms(X, xp):
    """``sum_j X_ij**2`` per row; inf where it overflows (silently)."""
    with np.errstate(over="ignore"):
        if isinstance(X, np.ndarray):  # no (n, p) temporary on the host
            return np.einsum("ij,ij->i", X, X)
        return xp.sum(X * X, axis=1)


def _peak_scaled(X, rows, xp):
    """``X`` with each row in the mask ``rows`` divided by its largest ``|entry|``; the divisors."""
    peak = xp.where(rows, xp.max(xp.abs(X), axis=1), xp.ones_like(rows, dtype=X.dtype))
    return X / peak[:, None], peak


def _clip_overflowing_rows(X, bound, xp):
    """:func:`clip_overflowing_rows`, and the row norms of the result (``bound`` on the rows replaced)."""
    sq = _squared_row_norms(X, xp)
    huge = xp.isinf(sq)
    if not bool(xp.any(huge)):
        return X, xp.sqrt(sq)
    scaled, _ = _peak_scaled(X, huge, xp)
    scaled_norms = xp.sqrt(_squared_row_norms(scaled, xp))  # in [1, sqrt(p)] on those rows
    unit = scaled / xp.where(huge, scaled_norms, xp.ones_like(scaled_norms))[:, None]
    X = xp.where(huge[:, None], unit * bound, X)
    return X, xp.where(huge, xp.full_like(sq, bound), xp.sqrt(sq))
def warn_large_delta(delta, n_samples):
    """Warn (:class:`~skdp.PrivacyLeakWarning`) when ``delta`` is not below ``1 / n_samples``.

    An (epsilon, delta)-DP guarantee with ``delta >= 1/n`` allows publishing
    a row in the clear: the mechanism that outputs each row with probability
    delta is (0, delta)-DP and releases about ``delta * n >= 1`` rows. Every
    estimator calls this once it knows n (public under replace-one adjacency:
    the fit's number of rows; for a stream, its first chunk's).

    Parameters
    ----------
    delta : float
        The fit's delta.
    n_samples : int
        The number of rows (records) the fit is private for.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_large_delta(0.01, 1000)
    ...     warn_large_delta(1e-6, 1000)
    >>> len(caught)
    1
    """
    if n_samples > 0 and float(delta) >= 1.0 / n_samples:
        warnings.warn(f"delta={float(delta):g} is not below 1/n = 1/{n_samples}: the guarantee "
                      "then allows publishing some rows in the clear (outputting each row with "
                      "probability delta is (0, delta)-DP). Use delta well below 1/n, e.g. "
                      f"1/n**2 = {1.0 / n_samples**2:.1g} or smaller.",
                      PrivacyLeakWarning, stacklevel=3)


def warn_privacy_leak(what, fix):
    """Warn that ``what`` was taken from the private data; say how to avoid it."""
    warnings.warn(f"{what} was derived from the private data, so the release is not "
                  f"differentially private with the stated budget. {fix}",
                  PrivacyLeakWarning, stacklevel=3)
