"""Warnings and errors raised by skdp."""

__all__ = ["PrivacyLeakWarning", "BudgetExceededError"]


class PrivacyLeakWarning(RuntimeWarning):
    """Something that should be public was taken from the private data.

    Raised when, for example, feature bounds, a domain or group sizes are
    derived from the data passed to ``fit`` instead of being given as public
    parameters. The release is then *not* differentially private with the
    stated budget: pass the public quantity as a parameter to silence it.

    Examples
    --------
    >>> import warnings
    >>> from skdp import PrivacyLeakWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("bounds taken from the data", PrivacyLeakWarning)
    >>> caught[0].category.__name__
    'PrivacyLeakWarning'
    """


class BudgetExceededError(ValueError):
    """A fit would spend more privacy budget than the accountant allows.

    Raised before the estimator touches the data, so nothing is spent.

    Examples
    --------
    >>> from skdp import BudgetAccountant, BudgetExceededError
    >>> acc = BudgetAccountant(epsilon=1.0)
    >>> try:
    ...     acc.spend(2.0, 0.0)
    ... except BudgetExceededError:
    ...     print("refused")
    refused
    """
