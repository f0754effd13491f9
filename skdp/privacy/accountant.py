"""A budget accountant shared by every skdp estimator.

The vocabulary is diffprivlib's (``BudgetAccountant``, a process-wide default,
``with accountant:`` to make one the default); the behaviour differs where
diffprivlib's loses spends:

* estimators keep ``accountant=None`` as a plain parameter and resolve it in
  ``fit``, so a fit never mutates it;
* copying an accountant (``copy.copy``, ``copy.deepcopy`` and so
  :func:`sklearn.base.clone`) returns the same accountant, so fits made by
  ``GridSearchCV`` and ``cross_validate`` on clones are recorded;
* spends compose by the tightest valid rule: every fit's claimed
  (epsilon_i, delta_i) by basic composition, and, where fits report their
  mechanisms, their :class:`~skdp.privacy.accounting.PrivacyLedger` merged and
  converted at the same total delta (zCDP / GDP composition).

Fits run in other processes (``n_jobs > 1`` with a process-based joblib
backend) spend on a copy of the accountant that the parent never sees: a
:class:`~skdp.exceptions.PrivacyLeakWarning` says so when it happens.
"""

import math
import os
import threading

from ..exceptions import BudgetExceededError, PrivacyLeakWarning
from .accounting import PrivacyLedger

__all__ = ["BudgetAccountant"]


class BudgetAccountant:
    """Tracks the privacy budget spent by fits on one dataset.

    Every skdp estimator reports each fit's spend to an accountant (its
    ``accountant`` parameter, or the process-wide default when that is None)
    and refuses, before touching the data, a fit that would exceed the
    accountant's total. Copies of an accountant are the accountant itself, so
    the fits that ``GridSearchCV`` makes on clones are all recorded.

    Parameters
    ----------
    epsilon : float, default=inf
        Total epsilon allowed. ``inf``: no limit.
    delta : float, default=1.0
        Total delta allowed, in [0, 1].

    Attributes
    ----------
    spends : list of dict
        One record per reported spend: ``epsilon``, ``delta``, ``label`` and
        ``ledger`` (a :class:`~skdp.privacy.accounting.PrivacyLedger` or None).

    Examples
    --------
    >>> from skdp import BudgetAccountant
    >>> acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    >>> acc.spend(1.0, 1e-6, label="first fit")
    >>> acc.total()
    (1.0, 1e-06)
    >>> acc.remaining()
    (1.0, 9e-06)
    """

    _default = None
    _default_stack = []
    _lock = threading.RLock()

    def __init__(self, epsilon=math.inf, delta=1.0):
        if not epsilon > 0:
            raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
        if not 0 <= delta <= 1:
            raise ValueError(f"delta must be in [0, 1], got {delta!r}.")
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.spends = []
        self._pid = os.getpid()

    # a shared ledger: copies are the same accountant --------------------
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self):
        eps, delta = self.total()
        return (f"BudgetAccountant(epsilon={self.epsilon}, delta={self.delta}); "
                f"spent=({eps:.6g}, {delta:.3g}) in {len(self.spends)} spends")

    # composition --------------------------------------------------------------
    @staticmethod
    def _compose(spends):
        if not spends:
            return 0.0, 0.0
        eps_basic = sum(s["epsilon"] for s in spends)
        delta = sum(s["delta"] for s in spends)
        if delta >= 1:
            return eps_basic, min(delta, 1.0)
        merged = PrivacyLedger()
        for s in spends:
            if s["ledger"] is not None:
                merged.extend(s["ledger"])
            else:  # mechanisms unknown: the claimed guarantee, composed basically
                merged.approx(s["epsilon"], s["delta"])
        return min(eps_basic, merged.epsilon(delta)), delta

    def total(self):
        """Composed (epsilon, delta) spent so far.

        delta is the sum of the spends' deltas; epsilon the smaller of the
        sum of their epsilons (basic composition) and the epsilon, at that
        delta, of one ledger holding every spend's mechanisms (a spend that
        reported none enters it as its claimed (epsilon, delta), composed
        basically with the rest).

        Returns
        -------
        epsilon : float
            Composed epsilon.
        delta : float
            Sum of the spends' deltas.
        """
        with self._lock:
            return self._compose(list(self.spends))

    def remaining(self):
        """Budget left: the totals minus :meth:`total`, floored at 0.

        Returns
        -------
        epsilon : float
            Epsilon left.
        delta : float
            Delta left.
        """
        eps, delta = self.total()
        return max(self.epsilon - eps, 0.0), max(self.delta - delta, 0.0)

    def check(self, epsilon, delta, ledger=None):
        """Raise :class:`~skdp.exceptions.BudgetExceededError` if a spend would overspend.

        Parameters
        ----------
        epsilon, delta : float
            The spend's claimed guarantee.
        ledger : PrivacyLedger, default=None
            Its mechanisms, when known in advance (tighter composition).

        Returns
        -------
        ok : bool
            True (raises otherwise).
        """
        with self._lock:
            new = self.spends + [dict(epsilon=epsilon, delta=delta, ledger=ledger, label="")]
            eps, dlt = self._compose(new)
        tol = 1e-12
        if eps > self.epsilon * (1 + tol) or dlt > self.delta * (1 + tol) + tol:
            spent = self.total()
            raise BudgetExceededError(
                f"Privacy budget exceeded: spending (epsilon={epsilon}, delta={delta}) "
                f"on top of the (epsilon={spent[0]:.6g}, delta={spent[1]:.3g}) already "
                f"spent would compose to (epsilon={eps:.6g}, delta={dlt:.3g}), over this "
                f"accountant's total (epsilon={self.epsilon}, delta={self.delta}).")
        return True

    def spend(self, epsilon, delta, ledger=None, label=""):
        """Record a spend; raise :class:`~skdp.exceptions.BudgetExceededError` if it overspends.

        Parameters
        ----------
        epsilon, delta : float
            The spend's claimed guarantee.
        ledger : PrivacyLedger, default=None
            The mechanisms behind it, for tighter composition.
        label : str, default=''
            What spent it (the estimator's name).
        """
        if os.getpid() != self._pid:
            import warnings
            warnings.warn(
                "A privacy spend was recorded in a worker process: the parent's "
                "BudgetAccountant will not see it. Use n_jobs=1 (or a thread-based "
                "joblib backend) to keep the accounting complete.",
                PrivacyLeakWarning, stacklevel=2)
        with self._lock:
            self.check(epsilon, delta, ledger)
            self.spends.append(dict(epsilon=float(epsilon), delta=float(delta),
                                    ledger=ledger, label=str(label)))

    # the process-wide default -------------------------------------------------
    @classmethod
    def default(cls):
        """The process-wide default accountant (created on first use, unlimited)."""
        with cls._lock:
            if cls._default is None:
                cls._default = cls()
            return cls._default

    def set_default(self):
        """Make this accountant the process-wide default.

        Returns
        -------
        self : BudgetAccountant
            This accountant.
        """
        with self._lock:
            BudgetAccountant._default = self
        return self

    @classmethod
    def resolve(cls, accountant):
        """The accountant to charge: ``accountant``, or the default when it is None.

        Parameters
        ----------
        accountant : BudgetAccountant or None
            An estimator's ``accountant`` parameter.

        Returns
        -------
        accountant : BudgetAccountant
            The accountant to charge.
        """
        if accountant is None:
            return cls.default()
        if not isinstance(accountant, BudgetAccountant):
            raise TypeError("accountant must be a BudgetAccountant or None, got "
                            f"{type(accountant).__name__}.")
        return accountant

    def __enter__(self):
        with self._lock:
            BudgetAccountant._default_stack.append(BudgetAccountant._default)
            BudgetAccountant._default = self
        return self

    def __exit__(self, *exc):
        with self._lock:
            BudgetAccountant._default = BudgetAccountant._default_stack.pop()
        return False
