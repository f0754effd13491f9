"""skdp: scikit-learn compatible estimators with differential privacy."""

from .exceptions import BudgetExceededError, PrivacyLeakWarning
from .minimax import PrivateMinimaxClassifier
from .privacy.accountant import BudgetAccountant
from .privacy.ledger_store import LedgerError, LedgerLockedError
from .regression import KLAdaptiveRegressor
from .synthesizer import SaddlePointSynthesizer

__version__ = "0.1.0.dev0"

__all__ = [
    "BudgetAccountant",
    "BudgetExceededError",
    "KLAdaptiveRegressor",
    "LedgerError",
    "LedgerLockedError",
    "PrivacyLeakWarning",
    "PrivateMinimaxClassifier",
    "SaddlePointSynthesizer",
    "__version__",
]
