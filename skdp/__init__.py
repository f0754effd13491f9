"""skdp: scikit-learn compatible estimators with differential privacy."""

from .exceptions import BudgetExceededError, PrivacyLeakWarning
from .privacy.accountant import BudgetAccountant

__version__ = "0.1.0.dev0"

__all__ = [
    "BudgetAccountant",
    "BudgetExceededError",
    "PrivacyLeakWarning",
    "__version__",
]
