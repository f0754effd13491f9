"""Privacy plumbing shared by the estimators."""

import math

from .privacy.accountant import BudgetAccountant

__all__ = ["PrivacyMixin"]


class PrivacyMixin:
    """Budget check before the data are touched, and the spend recorded after.

    Estimators with ``epsilon``, ``delta`` and ``accountant`` parameters call
    :meth:`_check_budget` at the top of ``fit`` (before reading ``X``) and
    :meth:`_record_spend` once the fit has succeeded. The fitted attributes it
    sets are ``privacy_spent_`` (the composed (epsilon, delta) of what the fit
    released, never above the parameters), ``privacy_method_`` (the
    composition rule that gave it) and ``privacy_ledger_`` (every mechanism,
    for the per-step log). The accountant is charged the parameters
    (epsilon, delta) with the ledger attached, so that it can compose several
    fits tightly.
    """

    def _fit_atomically(self, *args, **kwargs):
        """Run ``self._fit``; on any error or interrupt restore the estimator.

        A fit is all or nothing (issue 8): an exception, KeyboardInterrupt
        included, leaves the estimator exactly as it was, and nothing was
        charged to the accountant, which :meth:`_record_spend` charges last.
        """
        state = dict(self.__dict__)
        try:
            return self._fit(*args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(state)
            raise

    def _check_budget(self):
        accountant = BudgetAccountant.resolve(getattr(self, "accountant", None))
        accountant.check(self.epsilon, self.delta)
        return accountant

    def _record_spend(self, accountant, ledger):
        eps_used, method = ledger.spent(self.delta)
        if eps_used > self.epsilon * (1 + 1e-9) and not math.isinf(self.epsilon):
            raise RuntimeError(  # a bug: the solver overspent its budget
                f"internal error: the fit composed to epsilon={eps_used} > {self.epsilon}.")
        accountant.spend(self.epsilon, self.delta, ledger=ledger, label=type(self).__name__)
        self.privacy_spent_ = (float(eps_used), float(self.delta))
        self.privacy_method_ = method
        self.privacy_ledger_ = ledger
