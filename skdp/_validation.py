"""Validation helpers shared by the estimators."""

from numbers import Real
import math
import warnings

import numpy as np
from sklearn.utils._param_validation import Interval, InvalidParameterError, Options, StrOptions

from .exceptions import PrivacyLeakWarning
from .privacy.accountant import BudgetAccountant

__all__ = ["EPSILON_CONSTRAINT", "DELTA_CONSTRAINT", "ACCOUNTANT_CONSTRAINT", "check_epsilon_delta",
           "check_bound", "name_list", "warn_large_delta", "warn_privacy_leak"]


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
# beyond 1e10 mean no privacy either and overflow the conversions); delta in [0, 1),
# or 'auto': the accountant's share (BudgetAccountant.default_delta), resolved in fit.
MAX_FINITE_EPSILON = 1e10
EPSILON_CONSTRAINT = [RealInterval(0, MAX_FINITE_EPSILON, closed="right"),
                      Options(Real, {math.inf})]
DELTA_CONSTRAINT = [RealInterval(0, 1, closed="left"), StrOptions({"auto"})]
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


NAMES_SHOWN = 10
"""The most column names a message lists (:func:`name_list`): a wide table's warning stays
readable."""


def name_list(names, most=NAMES_SHOWN):
    """``names`` as a message shows them: the list, or its first ``most`` and how many more.

    Examples
    --------
    >>> name_list(["age", "sex"])
    "['age', 'sex']"
    >>> name_list([f"c{i}" for i in range(200)], most=3)
    "['c0', 'c1', 'c2'] and 197 more (200 in all)"
    """
    names = list(names)
    if len(names) <= most:
        return repr(names)
    return f"{names[:most]!r} and {len(names) - most} more ({len(names)} in all)"


def warn_privacy_leak(what, fix):
    """Warn that ``what`` was taken from the private data; say how to avoid it."""
    warnings.warn(f"{what} was derived from the private data, so the release is not "
                  f"differentially private with the stated budget. {fix}",
                  PrivacyLeakWarning, stacklevel=3)
