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

Fits that share their noise break composition: two fits seeded with the
same ``random_state`` (``GridSearchCV`` over an estimator with an integer
seed gives every fold the same one) draw the same noise, which cancels when
their outputs are compared, so the composed total no longer bounds what they
release. The accountant remembers each spend's seed and warns
(:class:`~skdp.exceptions.PrivacyLeakWarning`) when one repeats. A fixed seed
is for tests and reproducible figures; a release is differentially private
only if its noise is fresh (``random_state=None``) or its seed is secret and
never reused. Seeds are compared within one accountant (one dataset):
reusing a seed on another table, e.g. the next version of the same one, is
not detected and leaks the rows that changed.

Fits run in other processes (``n_jobs > 1`` with a process-based joblib
backend) spend on a copy of the accountant that the parent never sees: a
:class:`~skdp.exceptions.PrivacyLeakWarning` says so when it happens.
"""

import math
import os
import threading
import warnings

from ..exceptions import BudgetExceededError, PrivacyLeakWarning
from .accounting import PrivacyLedger, Spend

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
        One record per reported spend: ``epsilon``, ``delta``, ``label``,
        ``ledger`` (a :class:`~skdp.privacy.accounting.PrivacyLedger` or None)
        and ``seed`` (what made its noise reproducible, or None).

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
        if isinstance(epsilon, bool) or isinstance(delta, bool):
            raise TypeError(f"epsilon and delta must be real numbers, not bools; got "
                            f"{epsilon!r}, {delta!r}.")
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
    # Every check and spend composes all spends so far. Re-merging every fit's
    # ledger each time made a long process quadratic (the per-fit time grew
    # from milliseconds to seconds over ~800 fits), so the spends composed so
    # far are folded once into running sums and one compacted ledger that
    # gives the same epsilon (see _compact); a check folds in only the new spend.
    def _folded(self):
        """(count, basic epsilon, delta, compacted ledger) of ``self.spends``."""
        count, eps_basic, delta, merged, last = getattr(self, "_fold_cache",
                                                        (0, 0.0, 0.0, PrivacyLedger(), None))
        if count > len(self.spends) or (count and self.spends[count - 1] is not last):
            count, eps_basic, delta, merged = 0, 0.0, 0.0, PrivacyLedger()  # list was edited
        if count < len(self.spends):
            eps_basic, delta, merged = self._fold(eps_basic, delta, merged, self.spends[count:])
            count = len(self.spends)
            self._fold_cache = (count, eps_basic, delta, merged, self.spends[-1])
        return count, eps_basic, delta, merged

    @staticmethod
    def _fold(eps_basic, delta, merged, spends):
        merged = PrivacyLedger(list(merged.entries))
        for s in spends:
            eps_basic += s["epsilon"]
            delta += s["delta"]
            if s["ledger"] is not None and math.isfinite(s["epsilon"]):
                merged.extend(s["ledger"])
            else:  # mechanisms unknown, or no privacy claimed: the claim, composed basically
                merged.approx(s["epsilon"], s["delta"])
        return eps_basic, delta, _compact(merged)

    def _compose(self, new=()):
        """Composed (epsilon, delta) of the spends recorded plus ``new``."""
        count, eps_basic, delta, merged = self._folded()
        if new:
            eps_basic, delta, merged = self._fold(eps_basic, delta, merged, new)
        if count + len(new) == 0:
            return 0.0, 0.0
        if delta >= 1:
            return eps_basic, min(delta, 1.0)
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
            return self._compose()

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
            eps, dlt = self._compose([dict(epsilon=epsilon, delta=delta, ledger=ledger)])
        tol = 1e-12
        if eps > self.epsilon * (1 + tol) or dlt > self.delta * (1 + tol) + tol:
            spent = self.total()
            raise BudgetExceededError(
                f"Privacy budget exceeded: spending (epsilon={epsilon}, delta={delta}) "
                f"on top of the (epsilon={spent[0]:.6g}, delta={spent[1]:.3g}) already "
                f"spent would compose to (epsilon={eps:.6g}, delta={dlt:.3g}), over this "
                f"accountant's total (epsilon={self.epsilon}, delta={self.delta}).")
        return True

    def spend(self, epsilon, delta, ledger=None, label="", seed=None):
        """Record a spend; raise :class:`~skdp.exceptions.BudgetExceededError` if it overspends.

        Parameters
        ----------
        epsilon, delta : float
            The spend's claimed guarantee (``epsilon = inf`` is recorded as
            infinite whatever the ledger says).
        ledger : PrivacyLedger, default=None
            The mechanisms behind it, for tighter composition.
        label : str, default=''
            What spent it (the estimator's name).
        seed : str, default=None
            What makes the spend's noise reproducible (the estimators pass
            ``'random_state=<int>'`` for an int seed, or a digest of a
            ``RandomState``'s state); None for fresh noise. A seed already
            recorded here (by a finite spend) warns
            :class:`~skdp.exceptions.PrivacyLeakWarning`: the two spends share
            their noise, and the composed total does not bound them.

        Examples
        --------
        >>> import warnings
        >>> acc = BudgetAccountant()
        >>> acc.spend(1.0, 1e-6, label="fold 1", seed="random_state=0")
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     acc.spend(1.0, 1e-6, label="fold 2", seed="random_state=0")
        >>> caught[0].category.__name__
        'PrivacyLeakWarning'
        """
        if os.getpid() != self._pid:
            warnings.warn(
                "A privacy spend was recorded in a worker process: the parent's "
                "BudgetAccountant will not see it. Use n_jobs=1 (or a thread-based "
                "joblib backend) to keep the accounting complete.",
                PrivacyLeakWarning, stacklevel=2)
        with self._lock:
            self.check(epsilon, delta, ledger)
            earlier = self._noise_shared_with(seed, epsilon)
            self.spends.append(dict(epsilon=float(epsilon), delta=float(delta),
                                    ledger=ledger, label=str(label), seed=seed))
        if earlier is not None:
            _warn_shared_noise(seed, label, earlier["label"])

    def _noise_shared_with(self, seed, epsilon):
        """The earlier spend whose noise a spend with this seed repeats, or None.

        Infinite spends claim no bound, so they neither warn nor are warned about.
        """
        if seed is None or math.isinf(epsilon):
            return None
        return next((s for s in self.spends
                     if s.get("seed") == seed and math.isfinite(s["epsilon"])), None)

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


def _warn_shared_noise(seed, label, earlier_label):
    warnings.warn(
        f"{label or 'A spend'} used {seed}, as did an earlier fit "
        f"({earlier_label or 'unlabelled'}) charged to this accountant: the two drew the same noise, which cancels when their "
        "outputs are compared, so the accountant's composed total does not bound what they "
        "release. A fixed seed is for tests and reproducible figures only: for a release use "
        "random_state=None (fresh noise), or a secret seed used once.",
        PrivacyLeakWarning, stacklevel=3)


def _compact(ledger):
    """A ledger with the same composed epsilon at every delta, and few entries.

    :meth:`PrivacyLedger.spent` depends on the Gaussian parts only through
    ``sum count mu**2`` and ``sum count rho``, on the zCDP parts through
    ``sum count rho``, on the pure parts through their multiset of epsilons
    and on the approximate parts through ``sum count epsilon`` and
    ``sum count delta``: one entry per Gaussian / zCDP / approx kind and one
    per distinct pure epsilon keep all of it.
    """
    out = PrivacyLedger()
    by_kind = {}
    for e in ledger.entries:
        by_kind.setdefault(e.kind, []).append(e)
    gauss = by_kind.get("gaussian", [])
    if gauss:
        rho = sum(e.count * e.rho for e in gauss)
        mu = math.sqrt(sum(e.count * e.mu**2 for e in gauss))
        out.entries.append(Spend("gaussian", 1, rho=rho, mu=mu, label="gaussian parts"))
    if "zcdp" in by_kind:
        out.zcdp(sum(e.count * e.rho for e in by_kind["zcdp"]), label="zcdp parts")
    for kind in ("exponential", "pure"):
        counts = {}
        for e in by_kind.get(kind, []):
            counts[e.epsilon] = counts.get(e.epsilon, 0) + e.count
        for eps, count in counts.items():
            getattr(out, kind)(eps, count=count, label=f"{kind} parts")
    if "approx" in by_kind:
        parts = by_kind["approx"]
        out.approx(sum(e.count * e.epsilon for e in parts),
                   sum(e.count * e.delta for e in parts), label="approx parts")
    return out
