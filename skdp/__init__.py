"""skdp: scikit-learn compatible estimators with differential privacy.

The estimators and the accountant are imported on first use (PEP 562), so that
``import skdp`` (and ``python -m skdp --help``) does not load scikit-learn and
SciPy; ``from skdp import X``, ``skdp.X`` and ``dir(skdp)`` work as usual.
"""

import importlib

from .exceptions import BudgetExceededError, PrivacyLeakWarning

__version__ = "0.1.0.dev0"

__all__ = [
    "BudgetAccountant",
    "BudgetExceededError",
    "KLAdaptiveRegressor",
    "StoreError",
    "StoreLockedError",
    "PrivacyLeakWarning",
    "PrivateMinimaxClassifier",
    "SaddlePointSynthesizer",
    "StreamCheckpoint",
    "__version__",
]

_LAZY = {
    "BudgetAccountant": ".privacy.accountant",
    "KLAdaptiveRegressor": ".regression",
    "StoreError": ".privacy.store",
    "StoreLockedError": ".privacy.store",
    "PrivateMinimaxClassifier": ".minimax",
    "SaddlePointSynthesizer": ".synthesizer",
    "StreamCheckpoint": "._partial_fit",
}


_RENAMED = {"LedgerError": "StoreError", "LedgerLockedError": "StoreLockedError"}
"""Deprecated names (FutureWarning on each use; removed in the next release)."""


def __getattr__(name):
    """Import an exported class, or a submodule (``skdp.privacy``), on first access."""
    if name in _RENAMED:
        import warnings

        warnings.warn(f"skdp.{name} is deprecated: the budget store's error is "
                      f"skdp.{_RENAMED[name]}; {name} will be removed in the next release.",
                      FutureWarning, stacklevel=2)
        return getattr(importlib.import_module(".privacy.store", __name__), _RENAMED[name])
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value  # later lookups skip this function
        return value
    if not name.startswith("__"):
        try:
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
