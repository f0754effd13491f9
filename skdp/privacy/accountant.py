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
  mechanisms, their :class:`~skdp.privacy.ledger.PrivacyLedger` merged and
  converted at the same total delta (zCDP / GDP composition).

Fits that share their noise break composition: two fits seeded with the
same ``random_state`` (``GridSearchCV`` over an estimator with an integer
seed gives every fold the same one) draw the same noise, which cancels when
their outputs are compared, so the composed total no longer bounds what they
release. The accountant remembers each spend's seed and warns
(:class:`~skdp.exceptions.PrivacyLeakWarning`) when one repeats on the same
dataset. A fixed seed is for tests and reproducible figures; a release is
differentially private only if its noise is fresh (``random_state=None``) or
its seed is secret and never reused. Seeds are compared among the fits of one
dataset: every fit charged to an accountant with a ``dataset`` name (a budget
store's, or an in-memory one's), else, on an accountant without one (the
process-wide default), the fits on tables with the same columns (their number,
and their names where the table has them): tables with other columns are
neither the same dataset nor a neighbour of it. Nothing taken from the values
decides it (the warning would then depend on the private data). Reusing a
seed on another table with the same columns but charged to another accountant,
e.g. the next version of the same table, is not detected and leaks the rows
that changed.

Every estimator's default ``delta='auto'`` asks the accountant for its delta
(:meth:`BudgetAccountant.default_delta`): a share of the accountant's delta cap
that matches the fit's share of its epsilon cap, so that the fits a budget holds
by epsilon also fit by delta.

An accountant lives in one process's memory unless it is given a budget
store (``store='budget.sqlite', dataset='patients-2026'``): then every spend is
a row of that SQLite file (:mod:`skdp.privacy.store`), every process
that opens it sees and charges the same budget, a fit reserves its claim in one
transaction before it reads the data, and pickling keeps the path (workers of
``GridSearchCV(n_jobs=-1)`` charge the file) and the file's identity: an accountant
unpickled where that file is not (a Dask worker of another machine, a file moved or
replaced) raises :class:`~skdp.privacy.store.StoreError` instead of charging a
new, empty store. Fits of an in-memory accountant
run in other processes (``n_jobs > 1`` with a process-based joblib backend)
spend on a copy that the parent never sees: a
:class:`~skdp.exceptions.PrivacyLeakWarning` says so when it happens.
"""

import dataclasses
import math
import os
import socket
import threading
import warnings
from typing import Optional

from ..exceptions import BudgetExceededError, PrivacyLeakWarning
from .ledger import (ApproxEvent, ExponentialEvent, GaussianEvent, PrivacyLedger, PureEvent,
                     SubsampledGaussianEvent, ZCDPEvent)
from .store import (BudgetStore, StoreError, StoreLockedError, decode_parts, encode_parts,
                    is_url, scrub_params, store_name)

__all__ = ["BudgetAccountant", "StoreError", "StoreLockedError", "DEFAULT_DELTA",
           "DELTA_SHARE_WITHOUT_EPSILON_CAP", "NEIGHBOURING", "add_remove_as_replace_one",
           "convert_spend", "open_store"]

NEIGHBOURING = ("replace_one", "add_remove")
"""The neighbouring relations a spend or a budget is stated under."""

DEFAULT_DELTA = 1e-6
"""``delta='auto'`` on an accountant without a delta limit (delta cap 1, as the
process-wide default accountant): every estimator's default delta before issue 27."""

DELTA_SHARE_WITHOUT_EPSILON_CAP = 1e-3
"""``delta='auto'`` on an accountant with a delta cap but no epsilon cap: this share of
the delta cap, so that it holds 1000 fits."""



def _store_argument(store, ledger, where):
    """``store``, or the deprecated ``ledger=`` spelling of it (with a FutureWarning)."""
    if ledger is None:
        return store
    if store is not None:
        raise TypeError("give the budget store as store=; ledger= is its deprecated name, "
                        "and both were given.")
    warnings.warn(f"{where}(ledger=...) is deprecated: the budget store's path is now "
                  "store=...; ledger= will be removed in the next release.", FutureWarning,
                  stacklevel=3)
    return ledger

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
    store : str or path-like, default=None
        The budget store: a SQLite file that keeps the spends (created if
        absent): every process that opens it charges and sees the same budget,
        across restarts. Or a ``postgresql://`` URL: the same store in a
        PostgreSQL database, shared by every machine that reaches it
        (:mod:`skdp.privacy.store_postgres`, the ``skdp[postgres]`` extra; a
        password in the URL is used here, never kept in ``store`` nor pickled).
        None: the spends live in this process's memory.
    dataset : str, default=None
        The dataset whose budget this is (required with ``store``): a file
        holds one budget per dataset. Its cap (epsilon, delta) is stored by
        the first accountant that opens it; a different cap is refused
        (:meth:`open` reads the stored one). Without a store it names
        the dataset of an in-memory accountant: every fit charged to it is then
        on that dataset, and a seed reused by any two of them warns (without a
        name, only fits on tables with the same columns are compared).
    purpose : str, default=None
        Free text stored with every spend of a store (who, why).
    timeout : float, default=30.0
        Seconds to wait for another process's lock on the store (and to
        connect to a server) before
        :class:`~skdp.privacy.store.StoreLockedError`.
    neighbouring : {'replace_one', 'add_remove'}, default='replace_one'
        The neighbouring relation the budget is stated under (the privacy
        guide's: skdp's estimators default to replace-one). Each spend records
        its own relation (an estimator's ``neighbouring`` parameter, where it
        has one; else ``'replace_one'``; a direct :meth:`spend` the
        accountant's) and is counted in the accountant's: an add/remove spend
        on a replace-one budget is converted by group privacy for groups of two
        (:func:`add_remove_as_replace_one`); a replace-one spend on an
        add/remove budget is refused (a guarantee between tables of one size
        says nothing about tables of different sizes). A store keeps
        the relation with the dataset's budget, set once like the cap.
    ledger : str or path-like, default=None
        Deprecated alias of ``store`` (FutureWarning); removed in the next release.

    Attributes
    ----------
    spends : list of dict
        One record per reported spend: ``epsilon``, ``delta``, ``label``,
        ``ledger`` (a :class:`~skdp.privacy.ledger.PrivacyLedger` or None)
        and ``seed`` (what made its noise reproducible, or None), and what
        the fit passed besides (``params``, ``solver``, ``data``: its table's
        columns). With a store, read from it (reservations of running fits included, with
        ``ledger`` None) and with the row's ``id``, ``status``, ``time``,
        ``params``, ``solver`` and ``purpose``.

    Examples
    --------
    >>> from skdp import BudgetAccountant
    >>> acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    >>> acc.spend(1.0, 1e-6, label="first fit")
    >>> acc.total()
    (1.0, 1e-06)
    >>> acc.remaining()
    (1.0, 9e-06)

    A budget kept in a file, shared by processes and sessions:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "budget.sqlite")
    >>> shared = BudgetAccountant(2.0, 1e-5, store=path, dataset="patients-2026")
    >>> shared.spend(1.0, 1e-6, label="first fit")
    >>> BudgetAccountant.open(path, "patients-2026").total()
    (1.0, 1e-06)
    """

    _default = None
    _default_stack: list = []
    _lock = threading.RLock()

    def __init__(self, epsilon=math.inf, delta=1.0, store=None, dataset=None, purpose=None,
                 timeout=30.0, neighbouring="replace_one", ledger=None):
        store = _store_argument(store, ledger, "BudgetAccountant")
        if isinstance(epsilon, bool) or isinstance(delta, bool):
            raise TypeError(f"epsilon and delta must be real numbers, not bools; got "
                            f"{epsilon!r}, {delta!r}.")
        if not epsilon > 0:
            raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
        if not 0 <= delta <= 1:
            raise ValueError(f"delta must be in [0, 1], got {delta!r}.")
        if store is not None and dataset is None:
            raise ValueError("a budget store needs a dataset name (store and dataset go "
                             "together: a store holds one budget per dataset); got "
                             f"store={store!r}, dataset=None.")
        if dataset is not None and not (isinstance(dataset, str) and dataset):
            raise ValueError(f"dataset must be a non-empty string, got {dataset!r}.")
        if neighbouring not in NEIGHBOURING:
            raise ValueError(f"neighbouring must be one of {NEIGHBOURING}, got {neighbouring!r}.")
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.neighbouring = neighbouring
        self.store = None if store is None else store_name(store)
        self._url = store if is_url(store) else None  # with its password: never pickled
        self.dataset = dataset
        self.purpose = purpose
        self.timeout = float(timeout)
        self._spends = []
        self._next_token = 1
        self._pid = os.getpid()
        self._store = None
        if store is not None:
            self._open_store()

    @property
    def ledger(self):
        """Deprecated name of :attr:`store` (FutureWarning); removed in the next release."""
        warnings.warn("BudgetAccountant.ledger is deprecated: the budget store's path is "
                      "BudgetAccountant.store; .ledger will be removed in the next release.",
                      FutureWarning, stacklevel=2)
        return self.store

    def _open_store(self, identity=None):
        """Open the budget store; ``identity``: the stamp of the store it must be (unpickling)."""
        path = self.store
        if path is None:
            raise RuntimeError("internal error: an accountant without a budget store opened one.")
        if identity is not None and not is_url(path) and not os.path.exists(path):
            raise StoreError(
                f"the budget store {self.store} is not on this machine ({socket.gethostname()})"
                ": an accountant unpickled here (on a worker of another machine, or after the "
                "file was moved) would charge a new, empty store; nothing was charged. Keep "
                "the file on a disk that every worker reaches as a local disk, or run the "
                "fits where it is.")
        self._store = open_store(self.__dict__.get("_url") or path, self.timeout)
        self._identity = self._store.identity()
        if identity is not None and self._identity != identity:
            raise StoreError(
                f"the file {self.store} on this machine ({socket.gethostname()}) is not the "
                "budget store this accountant was pickled with (another machine's file at "
                "the same path, or a file replaced since); nothing was charged.")
        stored = self._store.set_budget(self.dataset, self.epsilon, self.delta,
                                        self.neighbouring)
        relation = self._store.relation(self.dataset)
        if relation != self.neighbouring:
            raise ValueError(
                f"the budget store {self.store} holds the budget of dataset {self.dataset!r} under "
                f"neighbouring={relation!r}, not {self.neighbouring!r}: a dataset's relation "
                "is set once with its budget. Pass the stored one, or use "
                "BudgetAccountant.open(store, dataset).")
        if not all(math.isclose(a, b, rel_tol=1e-12) or a == b
                   for a, b in zip(stored, (self.epsilon, self.delta))):
            raise ValueError(
                f"the budget store {self.store} holds the budget (epsilon={stored[0]}, "
                f"delta={stored[1]}) for dataset {self.dataset!r}, not (epsilon={self.epsilon}, "
                f"delta={self.delta}): a dataset's budget is set once. Pass the stored one, "
                "or use BudgetAccountant.open(store, dataset).")

    @classmethod
    def open(cls, store=None, dataset=None, purpose=None, timeout=30.0, ledger=None):
        """The accountant of ``dataset`` in an existing budget store, with its stored budget.

        Parameters
        ----------
        store : str or path-like
            The budget store: a SQLite file, or a ``postgresql://`` URL.
        dataset : str
            A dataset whose budget was set in it.
        purpose : str, default=None
            Stored with every spend.
        timeout : float, default=30.0
            Seconds to wait for a lock.
        ledger : str or path-like, default=None
            Deprecated alias of ``store`` (FutureWarning); removed in the next release.

        Returns
        -------
        accountant : BudgetAccountant
            Bound to the file.

        Examples
        --------
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "budget.sqlite")
        >>> _ = BudgetAccountant(3.0, 1e-6, store=path, dataset="d")
        >>> BudgetAccountant.open(path, "d").epsilon
        3.0
        """
        store = _store_argument(store, ledger, "BudgetAccountant.open")
        if store is None or dataset is None:
            raise TypeError("BudgetAccountant.open needs the budget store and the dataset: "
                            "BudgetAccountant.open(store, dataset).")
        path = store if is_url(store) else os.fspath(store)
        if not is_url(path) and not os.path.exists(path):
            raise ValueError(f"no budget store {path}: create it with "
                             "BudgetAccountant(epsilon, delta, store=..., dataset=...).")
        opened = open_store(path, timeout)
        cap = opened.budget(dataset)
        if cap is None:
            raise ValueError(f"the budget store {store_name(path)} has no budget for dataset "
                             f"{dataset!r}: set it with BudgetAccountant(epsilon, delta, "
                             "store=..., dataset=...).")
        epsilon, delta = cap
        return cls(epsilon, delta, store=path, dataset=dataset, purpose=purpose,
                   timeout=timeout, neighbouring=opened.relation(dataset))

    def default_delta(self, epsilon):
        """A fit's delta at ``epsilon`` when its ``delta`` is ``'auto'`` (the estimators' default).

        Taken from public things only, the accountant's caps and ``epsilon``,
        before the fit reads any data:

        * a delta cap below 1 and a finite epsilon cap:
          ``delta_cap * min(1, epsilon / epsilon_cap) ** 2``. A fit that takes
          a share ``s`` of the epsilon budget takes ``s**2`` of the delta
          budget. Fits that fit the epsilon cap by basic composition (their
          shares sum to at most 1) then fit the delta cap too (``sum s_i**2 <=
          (sum s_i)**2 <= 1``), and so do the further fits that the tighter
          composition of Gaussian noise admits (Gaussian DP and zCDP add the
          fits' privacy losses in squares, ``mu**2`` and ``rho``);
        * a delta cap below 1 and no epsilon cap:
          :data:`DELTA_SHARE_WITHOUT_EPSILON_CAP` (1/1000) of the delta cap;
        * no delta cap (``delta=1``, as the process-wide default accountant):
          :data:`DEFAULT_DELTA` (``1e-6``).

        Parameters
        ----------
        epsilon : float
            The fit's epsilon (> 0; ``inf`` takes the whole delta cap).

        Returns
        -------
        delta : float
            The fit's delta.

        Examples
        --------
        >>> BudgetAccountant(epsilon=2.0, delta=1e-6).default_delta(0.5)
        6.25e-08
        >>> BudgetAccountant(delta=1e-5).default_delta(1.0)
        1e-08
        >>> BudgetAccountant().default_delta(1.0)
        1e-06
        """
        if isinstance(epsilon, bool):
            raise TypeError(f"epsilon must be a real number, not a bool; got {epsilon!r}.")
        epsilon = float(epsilon)
        if not epsilon > 0:
            raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
        if self.delta >= 1:
            return DEFAULT_DELTA
        if math.isinf(self.epsilon):
            return self.delta * DELTA_SHARE_WITHOUT_EPSILON_CAP
        return self.delta * min(1.0, epsilon / self.epsilon) ** 2

    @property
    def spends(self):
        """Every spend counted (see the class's Attributes)."""
        if self._store is None:
            return self._spends
        return [_spend_of_row(r) for r in self._store.rows(self.dataset)]

    @spends.setter
    def spends(self, value):
        if self._store is not None:
            raise AttributeError("the spends of a budget store cannot be replaced.")
        self._spends = value

    # a shared accountant: copies are the same accountant --------------------
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __getstate__(self):
        """A file-backed accountant pickles as its path and the file's identity: the unpickled
        one charges that file, and refuses any other (a Dask worker of another machine)."""
        if self._store is None:
            return dict(self.__dict__)
        return {k: getattr(self, k) for k in ("epsilon", "delta", "store", "dataset",
                                                "purpose", "timeout", "neighbouring",
                                                "_identity")}

    def __setstate__(self, state):
        state = dict(state)
        if "ledger" in state:  # pickled before the store's path was renamed store
            state.setdefault("store", state.pop("ledger"))
        if state.get("store") is None:
            state.setdefault("_spends", state.pop("spends", []))  # pickled by skdp < 0.x
            self.__dict__.update(dict(store=None, dataset=None, purpose=None, timeout=30.0,
                                      _store=None, _next_token=1, neighbouring="replace_one"),
                                 **state)
            return
        state = dict(state)
        state.setdefault("neighbouring", "replace_one")
        identity = state.pop("_identity", None)
        self.__dict__.update(state, _spends=[], _pid=os.getpid(), _store=None)
        self._open_store(identity)

    def __repr__(self):
        eps, delta = self.total()
        where = "" if self._store is None else f", store={self.store!r}"
        where += "" if self.dataset is None else f", dataset={self.dataset!r}"
        return (f"BudgetAccountant(epsilon={self.epsilon}, delta={self.delta}{where}); "
                f"spent=({eps:.6g}, {delta:.3g}) in {len(self.spends)} spends")

    # composition --------------------------------------------------------------
    # Every check and spend composes all spends so far. Re-merging every fit's
    # ledger each time made a long process quadratic (the per-fit time grew
    # from milliseconds to seconds over ~800 fits), so the spends composed so
    # far are folded once into running sums and one compacted ledger that
    # gives the same epsilon (see _compact); a check folds in only the new spend.
    def _folded(self, exclude=None):
        """(count, basic epsilon, delta, compacted ledger) of ``self.spends``.

        The cache covers the longest prefix of the list that holds no
        reservation (a reservation is replaced by its charge, or dropped, in
        place); the reservations and what follows them are folded on top each
        time, but the one whose token is ``exclude``.
        """
        spends = self.spends
        count, eps_basic, delta, merged, last = getattr(self, "_fold_cache",
                                                        (0, 0.0, 0.0, PrivacyLedger(), None))
        if count > len(spends) or (count and spends[count - 1] is not last):
            count, eps_basic, delta, merged = 0, 0.0, 0.0, PrivacyLedger()  # list was edited
        end = count
        while end < len(spends) and spends[end].get("status") != "reserved":
            end += 1
        if end > count:
            eps_basic, delta, merged = self._fold(eps_basic, delta, merged, spends[count:end])
            count = end
            self._fold_cache = (count, eps_basic, delta, merged, spends[end - 1])
        rest = [s for s in spends[end:] if exclude is None or s.get("id") != exclude]
        if not rest:
            return count, eps_basic, delta, merged
        return (count + len(rest), *self._fold(eps_basic, delta, merged, rest))

    def _fold(self, eps_basic, delta, merged, spends):
        merged = PrivacyLedger(list(merged.entries))
        target = self.__dict__.get("neighbouring", "replace_one")
        for s in spends:
            epsilon, dlt, ledger = convert_spend(
                s["epsilon"], s["delta"], s["ledger"],
                s.get("neighbouring") or "replace_one", target)
            eps_basic += epsilon
            delta += dlt
            if ledger is not None and math.isfinite(epsilon):
                merged.extend(ledger)
            else:  # mechanisms unknown, or no privacy claimed: the claim, composed basically
                merged.approx(epsilon, dlt)
        return eps_basic, delta, _compact(merged)

    def _compose(self, new=(), folded=None, method=False):
        """Composed (epsilon, delta) of the spends recorded (or ``folded``) plus ``new``.

        ``folded`` is a ``(count, basic epsilon, delta, compacted ledger)`` of
        some spends (:meth:`_folded`'s, or a file's, :meth:`_file_folded`).
        With ``method=True`` also the rule that gave epsilon (``'basic'`` or
        the ledger's, see :meth:`PrivacyLedger.spent`).
        """
        count, eps_basic, delta, merged = self._folded() if folded is None else folded
        if new:
            eps_basic, delta, merged = self._fold(eps_basic, delta, merged, new)
        out, rule = ((0.0, 0.0), "none") if count + len(new) == 0 else \
            ((eps_basic, min(delta, 1.0)), "basic") if delta >= 1 else \
            _tightest(eps_basic, delta, merged)
        return (*out, rule) if method else out

    def _opened(self):
        """The open budget store (its methods run only where one is: an internal error else)."""
        if self._store is None:
            raise RuntimeError("internal error: a budget store method ran without a store.")
        return self._store

    def _recorded(self):
        """The spends counted, folded: from memory (None), or read from the file."""
        return None if self._store is None else self._store.read(self._file_folded)

    def _file_folded(self, con, exclude=None):
        """``(count, basic epsilon, delta, compacted ledger)`` of the file's counted rows.

        The charged rows never change (only a reservation is updated), so each
        process folds them once (cached by row id) and reads only the new
        ones; the reservations (but ``exclude``) are folded on top each time.
        """
        ids = self._opened().counted(con, self.dataset)
        charged = {i for i, status in ids if status == "charged"}
        cache = self.__dict__.get("_file_cache")
        if cache is None or cache[0] != os.getpid() or not cache[1] <= charged:
            cache = (os.getpid(), frozenset(), (0, 0.0, 0.0, PrivacyLedger()))
        new = sorted(charged - cache[1])
        if new:
            count, eps_basic, delta, merged = cache[2]
            folded = (count + len(new),
                      *self._fold(eps_basic, delta, merged, self._read_spends(con, new)))
            cache = (os.getpid(), cache[1] | frozenset(new), folded)
            self._file_cache = cache
        held = [i for i, status in ids if status == "reserved" and i != exclude]
        if not held:
            return cache[2]
        count, eps_basic, delta, merged = cache[2]
        return (count + len(held),
                *self._fold(eps_basic, delta, merged, self._read_spends(con, held)))

    def _read_spends(self, con, ids):
        out = []
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            out += [_spend_of_row(r) for r in self._opened().select_ids(con, chunk)]
        return out

    def total(self):
        """Composed (epsilon, delta) spent so far.

        delta is the sum of the spends' deltas; epsilon the smaller of the
        sum of their epsilons (basic composition) and the epsilon, at that
        delta, of one ledger holding every spend's mechanisms (a spend that
        reported none enters it as its claimed (epsilon, delta), composed
        basically with the rest). With a store, the spends are read from
        it: those of every process, and the reservations of fits still running
        (at their claimed (epsilon, delta)).

        Returns
        -------
        epsilon : float
            Composed epsilon.
        delta : float
            Sum of the spends' deltas.
        """
        with self._lock:
            return self._compose(folded=self._recorded())

    def composition(self):
        """:meth:`total` and the rule that gave its epsilon.

        Returns
        -------
        epsilon, delta : float
            As :meth:`total`.
        method : str
            ``'basic'`` (the claims summed), a rule of
            :meth:`~skdp.privacy.ledger.PrivacyLedger.spent`, or ``'none'``;
            :func:`~skdp.privacy.ledger.describe_composition` says it in words.

        Examples
        --------
        >>> acc = BudgetAccountant()
        >>> acc.spend(1.0, 0.0)
        >>> acc.composition()
        (1.0, 0.0, 'basic')
        """
        with self._lock:
            return self._compose(folded=self._recorded(), method=True)

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

    def check(self, epsilon, delta, ledger=None, neighbouring=None):
        """Raise :class:`~skdp.exceptions.BudgetExceededError` if a spend would overspend.

        Parameters
        ----------
        epsilon, delta : float
            The spend's claimed guarantee.
        ledger : PrivacyLedger, default=None
            Its mechanisms, when known in advance (tighter composition).
        neighbouring : {'replace_one', 'add_remove'}, default=None
            The relation of its guarantee (None: the accountant's).

        Returns
        -------
        ok : bool
            True (raises otherwise).
        """
        with self._lock:
            self._admit(self._recorded(), epsilon, delta, ledger, neighbouring)
        return True

    def _admit(self, folded, epsilon, delta, ledger, neighbouring=None):
        """Raise BudgetExceededError unless ``folded`` (None: memory's) plus a spend fit.

        A spend under a relation that cannot be counted in the accountant's is
        refused (ValueError) even without a limit.
        """
        neighbouring = neighbouring or self.neighbouring
        convert_spend(epsilon, delta, None, neighbouring, self.neighbouring)  # or refuse
        if math.isinf(self.epsilon) and self.delta >= 1:
            return  # no limit: every spend fits (and composing them all costs time)
        eps, dlt = self._compose([dict(epsilon=epsilon, delta=delta, ledger=ledger,
                                       neighbouring=neighbouring)], folded)
        tol = 1e-12
        over = (eps > self.epsilon * (1 + tol), dlt > self.delta * (1 + tol) + tol)
        if any(over):
            raise BudgetExceededError(self._refusal(epsilon, delta, self._compose(folded=folded),
                                                    (eps, dlt), *over))

    def _refusal(self, epsilon, delta, spent, composed, over_epsilon, over_delta):
        """A refusal's message: the totals, what ran out (epsilon, delta or both), what fits.

        What is left, ``cap - spent``, is what fits: a spend whose mechanisms are
        not known (a reservation) composes with the others by adding its
        epsilon and delta (:meth:`PrivacyLedger.spent` adds an ``'approx'`` part
        to the rest's epsilon at the rest's delta), and one with mechanisms
        composes to no more.
        """
        where = "" if self.dataset is None else f" (dataset {self.dataset!r}" + (
            ")" if self._store is None else f" of the budget store {self.store})")
        left_eps = max(self.epsilon - spent[0], 0.0)
        left_delta = max(self.delta - spent[1], 0.0)
        text = (f"Privacy budget exceeded{where}: spending (epsilon={epsilon:.6g}, "
                f"delta={delta:.3g}) on top of the (epsilon={spent[0]:.6g}, "
                f"delta={spent[1]:.3g}) already spent would compose to (epsilon={composed[0]:.6g}"
                f", delta={composed[1]:.3g}), over this accountant's total "
                f"(epsilon={self.epsilon:g}, delta={self.delta:g}). ")
        if math.isinf(epsilon) and over_epsilon:
            return text + ("This fit claims no privacy (epsilon=inf): only an accountant "
                           "without an epsilon limit admits it.")
        if over_epsilon and over_delta:
            if left_eps == 0 and left_delta == 0:
                return text + "Both epsilon and delta ran out: nothing is left of this budget."
            return text + (f"Both epsilon and delta ran out: epsilon={left_eps:.6g} and "
                           f"delta={left_delta:.3g} are left. A fit with epsilon <= "
                           f"{left_eps:.6g} and delta <= {left_delta:.3g} fits.")
        if over_delta:
            text += (f"Delta ran out, not epsilon: delta={spent[1]:.3g} of the "
                     f"{self.delta:g} allowed is spent, ")
            text += ("none is left" if left_delta == 0 else
                     f"{left_delta:.3g} is left, less than this fit's {delta:.3g}")
            text += f" (epsilon={left_eps:.6g} is still left). "
            text += ("Only a fit with delta=0 would fit." if left_delta == 0 else
                     f"A fit with delta <= {left_delta:.3g} and epsilon <= {left_eps:.6g} "
                     "fits.")
            return text + (" With delta='auto' (the estimators' default) a fit takes a "
                           "share of the delta budget no larger than its share of the "
                           "epsilon budget (BudgetAccountant.default_delta).")
        if left_eps == 0:
            return text + (f"Epsilon ran out, not delta: epsilon={spent[0]:.6g} of the "
                           f"{self.epsilon:g} allowed is spent and none is left.")
        return text + (f"Epsilon ran out, not delta: epsilon={spent[0]:.6g} of the "
                       f"{self.epsilon:g} allowed is spent and {left_eps:.6g} is left, less "
                       f"than this fit's {epsilon:.6g}. The largest epsilon that fits at "
                       f"delta={delta:.3g} is {left_eps:.6g}.")

    def spend(self, epsilon, delta, ledger=None, label="", seed=None, **record):
        """Record a spend; raise :class:`~skdp.exceptions.BudgetExceededError` if it overspends.

        With a budget store the check and the record are one transaction.

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
            recorded here (by a finite spend on the same dataset) warns
            :class:`~skdp.exceptions.PrivacyLeakWarning`: the two spends share
            their noise, and the composed total does not bound them.
        **record
            ``params`` (text: the estimator's parameters), ``solver`` and
            ``purpose`` (default: the accountant's), kept with the spend, and
            ``data``: public text that tells the fit's table, which the
            estimators take from its columns (:func:`skdp._base.table_signature`).
            On an accountant without a ``dataset`` name only the spends with
            the same ``data`` (or with none) are compared for a shared seed;
            a store keeps no ``data`` (a store's budget is one dataset's).

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
        record = self._with_relation(record)
        store = self._store
        if store is not None:
            stored = store.fingerprint(seed)  # never the seed itself (issue 28)

            def work(con):
                self._admit(self._file_folded(con), epsilon, delta, ledger,
                            record["neighbouring"])
                row_id = store.add(con, self.dataset, self._row(
                    "charged", epsilon, delta, ledger, label, stored, record))
                return self._earlier_seed(con, stored, epsilon, row_id)
            earlier = store.transaction(work, lock=self.dataset)
        else:
            earlier = self._spend_in_memory(epsilon, delta, ledger, label, seed, record)
        if earlier is not None:
            _warn_shared_noise(seed, label, earlier["label"], self._dataset_words(record))

    def _spend_in_memory(self, epsilon, delta, ledger, label, seed, record):
        self._warn_if_worker()
        with self._lock:
            self.check(epsilon, delta, ledger, record["neighbouring"])
            earlier = _noise_shared_with(self._spends, seed, epsilon,
                                         None if self.dataset is not None else record.get("data"))
            self._spends.append(self._record("charged", epsilon, delta, ledger, label, seed,
                                             record))
        return earlier

    def _with_relation(self, record):
        """``record`` with its ``neighbouring`` relation (the accountant's by default)."""
        record = dict(record)
        record["neighbouring"] = record.get("neighbouring") or self.neighbouring
        if record["neighbouring"] not in NEIGHBOURING:
            raise ValueError(f"neighbouring must be one of {NEIGHBOURING}, got "
                             f"{record['neighbouring']!r}.")
        return record

    def _warn_if_worker(self):
        if os.getpid() != self._pid:
            warnings.warn(
                "A privacy spend was recorded in a worker process: the parent's "
                "BudgetAccountant will not see it. Use n_jobs=1, a thread-based "
                "joblib backend, or a budget store (BudgetAccountant(..., store=...)) "
                "to keep the accounting complete.",
                PrivacyLeakWarning, stacklevel=4)

    def _record(self, status, epsilon, delta, ledger, label, seed, record, token=None):
        """An in-memory spend record (the fields of a file's row that memory keeps)."""
        if token is None:
            token = self._take_token()
        return dict(epsilon=float(epsilon), delta=float(delta), ledger=ledger, label=str(label),
                    seed=seed, status=status, id=token, **record)

    def _take_token(self):
        with self._lock:
            token = self.__dict__.get("_next_token", 1)
            self._next_token = token + 1
        return token

    def _held(self, token):
        """The index of the in-memory reservation ``token`` (None if it is not held)."""
        return next((i for i, s in enumerate(self._spends)
                     if s.get("id") == token and s.get("status") == "reserved"), None)

    def _row(self, status, epsilon, delta, ledger, label, seed, record):
        """A file row; ``seed`` is already the file's fingerprint of the seed."""
        parts = None if ledger is None else encode_parts(_compact(ledger).entries)
        return dict(status=status, label=str(label), epsilon=float(epsilon), delta=float(delta),
                    parts=parts, seed=seed, params=scrub_params(record.get("params")),
                    neighbouring=record.get("neighbouring", self.neighbouring),
                    solver=record.get("solver"), purpose=record.get("purpose", self.purpose))

    def _dataset_words(self, record):
        """How the fits that share a seed were found to be on one dataset (for the warning)."""
        if self._store is not None:
            return f"on dataset {self.dataset!r} of the budget store {self.store}"
        if self.dataset is not None:
            return f"on this accountant's dataset {self.dataset!r}"
        data = record.get("data")
        if data is None:
            return "charged to this accountant"
        data = data if len(data) <= 80 else data[:77] + "..."
        return (f"on a table with the same columns ({data}) charged to this accountant (it has "
                "no dataset name: fits on tables with the same columns are taken as one dataset)")

    def _earlier_seed(self, con, seed, epsilon, row_id):
        """The file's earlier counted spend with this seed (see :func:`_noise_shared_with`)."""
        if seed is None or math.isinf(epsilon):
            return None
        rows = self._opened().select_seed(con, self.dataset, seed, row_id)
        return _noise_shared_with(rows, seed, epsilon)

    # reserve, then charge or cancel -------------------------------------------------
    def reserve(self, epsilon, delta, label="", seed=None, **record):
        """Check a fit's claim and hold it until :meth:`charge` or :meth:`cancel`.

        The reservation is a counted spend at the claimed (epsilon, delta)
        from here on, in memory as in a file: a record (a row of the file)
        with status ``'reserved'``. :meth:`charge` replaces it by the fit's
        spend, :meth:`cancel` drops it (the fit failed before it read any
        data); a fit that failed after reading the data leaves it counted, at
        its claim (an error may depend on the data: one rule for memory and
        files). With a store the check and the ``'reserved'`` row are
        one ``BEGIN IMMEDIATE`` transaction: concurrent processes never admit
        fits that together overspend, and a process that dies leaves its
        reservation counted.

        Parameters
        ----------
        epsilon, delta : float
            The fit's claimed guarantee.
        label : str, default=''
            What spends it, as :meth:`spend`.
        seed : str, default=None
            Its noise seed's fingerprint, as :meth:`spend`.
        **record
            As :meth:`spend`.

        Returns
        -------
        token : int
            The reservation's id (the file's row id), for :meth:`charge` or
            :meth:`cancel`.

        Examples
        --------
        >>> acc = BudgetAccountant(epsilon=1.0)
        >>> token = acc.reserve(0.5, 0.0, label="fit")
        >>> acc.total(), acc.spends[0]["status"]  # counted while the fit runs
        ((0.5, 0.0), 'reserved')
        >>> acc.charge(token, 0.5, 0.0, label="fit")
        >>> acc.total(), acc.spends[0]["status"]
        ((0.5, 0.0), 'charged')
        """
        record = self._with_relation(record)
        store = self._store
        if store is None:
            with self._lock:
                self._admit(None, epsilon, delta, None, record["neighbouring"])
                row = self._record("reserved", epsilon, delta, None, label, seed, record)
                self._spends.append(row)
            return row["id"]

        stored = store.fingerprint(seed)

        def work(con):
            self._admit(self._file_folded(con), epsilon, delta, None, record["neighbouring"])
            return store.add(con, self.dataset, self._row(
                "reserved", epsilon, delta, None, label, stored, record))
        return store.transaction(work, lock=self.dataset)

    def charge(self, token, epsilon, delta, ledger=None, label="", seed=None, **record):
        """Turn a reservation into the fit's spend, with the mechanisms it ran.

        The accountant keeps the fit's (compacted) ledger, or its reserved
        claim where the ledger would compose over the cap (both are valid
        bounds; the claim was admitted), and never refuses: the fit has run.
        Without a reservation (``token`` None) it is :meth:`spend`.

        Parameters
        ----------
        token : int or None
            What :meth:`reserve` returned (None: no reservation, :meth:`spend`).
        epsilon, delta : float
            The fit's claimed guarantee (as reserved).
        ledger : PrivacyLedger, default=None
            The mechanisms the fit ran.
        label : str, default=''
            What spent it.
        seed : str, default=None
            Its noise seed's fingerprint (warns if one recorded repeats).
        **record
            As :meth:`spend`.
        """
        if self._store is None and token is None:
            self.spend(epsilon, delta, ledger, label, seed, **record)
            return
        record = self._with_relation(record)
        store = self._store
        if store is None:
            earlier = self._charge_in_memory(token, epsilon, delta, ledger, label, seed, record)
            if earlier is not None:
                _warn_shared_noise(seed, label, earlier["label"], self._dataset_words(record))
            return

        stored = store.fingerprint(seed)

        def work(con):
            others = self._file_folded(con, exclude=token)
            try:  # the fit's mechanisms, as in memory, unless they compose over the cap
                self._admit(others, epsilon, delta, ledger, record["neighbouring"])
            except BudgetExceededError:
                ledger_kept = None  # its admitted claim then: a valid bound within the cap
            else:
                ledger_kept = ledger
            row = self._row("charged", epsilon, delta, ledger_kept, label, stored, record)
            kept = {k: row[k] for k in ("status", "parts", "solver", "neighbouring")}
            if not store.update(con, token, **kept):
                raise RuntimeError(f"internal error: reservation {token} of {self.store} "
                                   "was not reserved.")
            return self._earlier_seed(con, stored, epsilon, token)
        earlier = store.transaction(work, lock=self.dataset)
        if earlier is not None:
            _warn_shared_noise(seed, label, earlier["label"], self._dataset_words(record))

    def _charge_in_memory(self, token, epsilon, delta, ledger, label, seed, record):
        self._warn_if_worker()
        with self._lock:
            index = self._held(token)
            if index is None:
                raise RuntimeError(f"internal error: reservation {token} is not held by this "
                                   "accountant.")
            try:  # the fit's mechanisms, unless they compose over the cap (as in a file)
                self._admit(self._folded(exclude=token), epsilon, delta, ledger,
                            record["neighbouring"])
            except BudgetExceededError:
                ledger = None
            others = [s for i, s in enumerate(self._spends) if i != index]
            earlier = _noise_shared_with(others, seed, epsilon,
                                         None if self.dataset is not None else record.get("data"))
            self._spends[index] = self._record("charged", epsilon, delta, ledger, label, seed,
                                               record, token=token)
        return earlier

    def release(self, token):
        """Deprecated name of :meth:`cancel` (FutureWarning); removed in the next release.

        Parameters
        ----------
        token : int or None
            What :meth:`reserve` returned (None: nothing to do).
        """
        warnings.warn("BudgetAccountant.release(token) is deprecated: a reservation is "
                      "cancelled with BudgetAccountant.cancel(token); release() will be "
                      "removed in the next release.", FutureWarning, stacklevel=2)
        self.cancel(token)

    def cancel(self, token):
        """Cancel a reservation whose fit failed before it read any data.

        In memory the reservation is dropped; a store keeps its row, with the
        status ``'released'`` (not counted; the stored word is kept so that
        existing stores read the same). Only a fit that failed before reading
        the data cancels: one that failed after leaves its reservation counted.

        Parameters
        ----------
        token : int or None
            What :meth:`reserve` returned (None: nothing to do).

        Examples
        --------
        >>> acc = BudgetAccountant(epsilon=1.0)
        >>> acc.cancel(acc.reserve(0.5, 0.0))
        >>> acc.total(), acc.spends
        ((0.0, 0.0), [])
        """
        if token is None:
            return
        if self._store is None:
            with self._lock:
                index = self._held(token)
                if index is not None:
                    del self._spends[index]
            return
        if self._store is not None and token is not None:
            self._store.transaction(lambda con: self._store.update(con, token,
                                                                    status="released"))

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


def add_remove_as_replace_one(ledger):
    """An add/remove ledger as a replace-one ledger: group privacy for groups of two.

    Replacing a row is removing it and adding another: two add/remove steps.
    Each part converts by its own group-privacy rule, for groups of ``k = 2``:

    * Gaussian DP ``mu`` -> ``2 mu`` (Dong, Roth and Su 2022, "Gaussian
      Differential Privacy", JRSS B, Theorem 2.14: mu-GDP gives k mu-GDP for
      groups of k), and its zCDP ``rho`` -> ``4 rho`` (Bun and Steinke 2016,
      "Concentrated Differential Privacy", Proposition 27 (1.9): rho-zCDP gives
      k**2 rho-zCDP for groups of k). For a Gaussian release of a query this is
      the factor 2 on the sensitivity that replacing one row can cost (a sum
      of values in [-1, 1]: add/remove sensitivity 1, replace-one 2);
    * a Gaussian part that records its ``replace_ratio`` ``r`` (the query's
      replace-one l2-sensitivity over its add/remove one, in [1, 2]:
      :func:`~skdp.privacy.ledger.replace_ratio`): ``mu`` -> ``r mu`` and
      ``rho`` -> ``r**2 rho``, exact, not a bound: the Gaussian mechanism is
      ``Delta / sigma``-GDP under the relation ``Delta`` is stated in (Dong,
      Roth and Su 2022, Thm 2.7; its (epsilon, delta) curve is Balle and Wang
      2018, Thm 8). A histogram or stacked marginal counts: ``r = sqrt 2``;
    * pure and bounded-range epsilon -> ``2 epsilon`` (tight for pure DP). An
      exponential mechanism keeps group privacy's factor even where its score
      is a count: its epsilon is ``2 Delta`` times its logits' scale, and the
      L1 error of a marginal that the synthesizer's selections score moves by
      1 under add/remove and by 2 under replace-one (one count down, one up),
      so ``2 epsilon`` is what the generic bound of the mechanism gives
      (McSherry and Talwar 2007; Dwork and Roth 2014, Thm 3.10);
    * approximate ``(epsilon, delta)`` -> ``(2 epsilon, (1 + e^epsilon) delta)``
      (Dwork and Roth 2014, Theorem 2.2's chaining argument for k = 2: applying
      the guarantee twice gives ``e^(2 eps) P + e^eps delta + delta``);
    * a Poisson-subsampled Gaussian step: refused (its amplification is stated
      per relation; no estimator records one under add/remove).

    Parameters
    ----------
    ledger : PrivacyLedger
        Parts stated under add/remove.

    Returns
    -------
    ledger : PrivacyLedger
        The same parts stated under replace-one.

    Examples
    --------
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> ledger = PrivacyLedger()
    >>> ledger.pure(0.5)
    >>> add_remove_as_replace_one(ledger).entries[0].epsilon
    1.0
    """
    out = PrivacyLedger()
    for e in ledger.entries:
        if isinstance(e, GaussianEvent):
            r = 2.0 if e.replace_ratio is None else e.replace_ratio  # None: not recorded
            e = dataclasses.replace(e, mu=r * e.mu, rho=r * r * e.rho, replace_ratio=None)
        elif isinstance(e, ZCDPEvent):
            e = dataclasses.replace(e, rho=4.0 * e.rho)
        elif isinstance(e, (PureEvent, ExponentialEvent)):  # rho = c epsilon**2: 4 rho
            e = dataclasses.replace(e, epsilon=2.0 * e.epsilon)
        elif isinstance(e, ApproxEvent):
            e = dataclasses.replace(e, epsilon=2.0 * e.epsilon,
                                    delta=min(1.0, (1.0 + math.exp(e.epsilon)) * e.delta))
        else:
            raise ValueError(f"a {e.kind!r} part stated under add_remove cannot be converted "
                             "to replace_one: count it on an add_remove accountant.")
        out.entries.append(e)
    return out


def convert_spend(epsilon, delta, ledger, source, target):
    """A spend stated under the ``source`` relation, as a spend under ``target``.

    Under the same relation it is returned as is. An add/remove spend as a
    replace-one spend: its ledger by :func:`add_remove_as_replace_one`, and its
    claim the converted ledger's epsilon at the same delta where that is finite
    (the delta budget is not inflated; each Gaussian part by its recorded
    ``replace_ratio`` where it has one), else group privacy's ``(2 epsilon,
    (1 + e^epsilon) delta)``. A replace-one spend cannot be counted under add/remove
    (ValueError): replace-one neighbours have the same size, so its guarantee
    says nothing about adding or removing a row.

    Parameters
    ----------
    epsilon, delta : float
        The spend's claim under ``source``.
    ledger : PrivacyLedger or None
        Its mechanisms.
    source, target : {'replace_one', 'add_remove'}
        The relations.

    Returns
    -------
    epsilon, delta : float
        The claim under ``target``.
    ledger : PrivacyLedger or None
        The mechanisms under ``target``.

    Examples
    --------
    >>> convert_spend(1.0, 0.0, None, "add_remove", "replace_one")
    (2.0, 0.0, None)
    >>> eps, delta, _ = convert_spend(1.0, 1e-6, None, "add_remove", "replace_one")
    >>> round(eps, 3), round(delta / 1e-6, 3)
    (2.0, 3.718)
    """
    if source == target:
        return epsilon, delta, ledger
    if source != "add_remove" or target != "replace_one":
        raise ValueError(
            f"a spend stated under neighbouring={source!r} cannot be counted on a budget "
            f"stated under {target!r}: replace-one neighbours have the same number of rows, "
            "so a replace-one guarantee says nothing about adding or removing a row. Fit "
            "with neighbouring='add_remove', or count it on a replace_one accountant.")
    converted = None if ledger is None else add_remove_as_replace_one(ledger)
    if math.isinf(epsilon):
        return epsilon, delta, converted
    grouped = (2.0 * epsilon, min(1.0, (1.0 + math.exp(epsilon)) * delta))
    if converted is not None:
        eps_ledger = converted.epsilon(delta)
        if math.isfinite(eps_ledger):  # at the claimed delta: the delta budget is not inflated
            return eps_ledger, delta, converted
    return (*grouped, converted)


def _noise_shared_with(spends, seed, epsilon, data=None):
    """The earlier spend whose noise a spend with this seed repeats, or None.

    Infinite spends claim no bound, so they neither warn nor are warned about.
    ``data`` (the spend's public table description, or None: any table): only
    the spends on that table, or of an unknown one, are compared.
    """
    if seed is None or math.isinf(epsilon):
        return None
    return next((s for s in spends
                 if s.get("seed") == seed and math.isfinite(s["epsilon"])
                 and (data is None or s.get("data") is None or s.get("data") == data)), None)


def _tightest(eps_basic, delta, merged):
    """((epsilon, delta), rule): basic composition or the merged ledger's, whichever is less."""
    eps_ledger, rule = merged.spent(delta)
    return ((eps_basic, delta), "basic") if eps_basic <= eps_ledger else ((eps_ledger, delta), rule)


def _spend_of_row(row):
    """A file row as a spend record (its ledger rebuilt from the stored parts)."""
    ledger = None if row["parts"] is None else PrivacyLedger(decode_parts(row["parts"]))
    out = dict(row, ledger=ledger, time=row["created"])
    del out["parts"]
    return out


def _warn_shared_noise(seed, label, earlier_label, where):
    warnings.warn(
        f"{label or 'A spend'} used {seed}, as did an earlier fit "
        f"({earlier_label or 'unlabelled'}) {where}: the two drew the same noise, which "
        "cancels when their outputs are compared, so the accountant's composed total does not "
        "bound what they release. A fixed seed is for tests and reproducible figures only: "
        "for a release use random_state=None (fresh noise), or a secret seed used once.",
        PrivacyLeakWarning, stacklevel=3)


_COMPACTED_KINDS = ("gaussian", "subsampled_gaussian", "zcdp", "exponential", "pure", "approx")


def _compact(ledger):
    """A ledger with the same composed epsilon at every delta, and few entries.

    :meth:`PrivacyLedger.spent` depends on the Gaussian parts only through
    ``sum count mu**2`` and ``sum count rho`` (kept per ``replace_ratio``, which
    an add/remove spend needs to convert: one entry per distinct ratio, the
    parts without one together), on the subsampled Gaussian
    parts through their multiset of ``(mu, q, count)``, on the zCDP parts
    through ``sum count rho``, on the pure parts through their multiset of epsilons
    and on the approximate parts through ``sum count epsilon`` and
    ``sum count delta``: one entry per Gaussian / zCDP / approx kind and one
    per distinct pure epsilon keep all of it.
    """
    out = PrivacyLedger()
    by_kind: dict[str, list] = {}
    for e in ledger.entries:
        by_kind.setdefault(e.kind, []).append(e)
    unknown = set(by_kind) - set(_COMPACTED_KINDS)
    if unknown:  # never drop a spend: an unknown kind would be undercounted
        raise ValueError(f"cannot compact ledger entries of kind {sorted(unknown)}")
    by_ratio: dict[Optional[float], list] = {}
    for e in by_kind.get("gaussian", []):
        by_ratio.setdefault(e.replace_ratio, []).append(e)
    for ratio, gauss in sorted(by_ratio.items(), key=lambda kv: -1.0 if kv[0] is None else kv[0]):
        rho = sum(e.count * e.rho for e in gauss)
        mu = math.sqrt(sum(e.count * e.mu**2 for e in gauss))
        out.entries.append(GaussianEvent(mu, rho, ratio, label="gaussian parts"))
    steps: dict[tuple[float, float], int] = {}
    for e in by_kind.get("subsampled_gaussian", []):
        steps[(e.mu, e.q)] = steps.get((e.mu, e.q), 0) + e.count
    for (mu, q), count in steps.items():  # rho: the unamplified bound the ledger records
        out.entries.append(SubsampledGaussianEvent(mu, q, 2.0 * mu**2, count=count,
                                                   label="subsampled gaussian parts"))
    if "zcdp" in by_kind:
        out.zcdp(sum(e.count * e.rho for e in by_kind["zcdp"]), label="zcdp parts")
    for kind in ("exponential", "pure"):
        counts: dict[float, int] = {}
        for e in by_kind.get(kind, []):
            counts[e.epsilon] = counts.get(e.epsilon, 0) + e.count
        for eps, count in counts.items():
            getattr(out, kind)(eps, count=count, label=f"{kind} parts")
    if "approx" in by_kind:
        parts = by_kind["approx"]
        out.approx(sum(e.count * e.epsilon for e in parts),
                   sum(e.count * e.delta for e in parts), label="approx parts")
    return out


def open_store(store, timeout=30.0):
    """The budget store a path or URL names: a file or a PostgreSQL server.

    Parameters
    ----------
    store : str or path-like
        A path, or a ``postgresql://`` URL.
    timeout : float, default=30.0
        Seconds to wait for a lock (and, for a server, to connect).

    Returns
    -------
    store : BudgetStore or PostgresBudgetStore

    Examples
    --------
    >>> import os, tempfile
    >>> type(open_store(os.path.join(tempfile.mkdtemp(), "b.sqlite"))).__name__
    'BudgetStore'
    """
    if is_url(store):
        from .store_postgres import PostgresBudgetStore

        return PostgresBudgetStore(store, timeout)
    return BudgetStore(store, timeout)


def __getattr__(name):
    """``LedgerError`` and ``LedgerLockedError``: the deprecated names of :class:`StoreError`
    and :class:`StoreLockedError` (FutureWarning), for one release."""
    if name in ("LedgerError", "LedgerLockedError"):
        from . import ledger_store
        return ledger_store.__getattr__(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
