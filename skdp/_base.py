"""Privacy plumbing shared by the estimators."""

import hashlib
import json
import math
from numbers import Integral, Real
import pickle

from .privacy.accountant import BudgetAccountant

__all__ = ["PrivacyMixin", "noise_seed", "resolve_delta", "table_signature"]


def resolve_delta(delta, epsilon, accountant=None):
    """An estimator's ``delta`` parameter as the number its fit uses.

    ``'auto'`` (every estimator's default) is the accountant's
    :meth:`~skdp.BudgetAccountant.default_delta` at ``epsilon``: public
    things only (the accountant's caps and the fit's epsilon), read before
    the fit reads the data. A number is returned as given (the fit checks
    it).

    Parameters
    ----------
    delta : float or 'auto'
        The ``delta`` parameter.
    epsilon : float
        The fit's ``epsilon``.
    accountant : BudgetAccountant or None, default=None
        The estimator's ``accountant`` parameter (None: the default one).

    Returns
    -------
    delta : float
        The fit's delta.

    Examples
    --------
    >>> from skdp import BudgetAccountant
    >>> resolve_delta("auto", 0.5, BudgetAccountant(epsilon=2.0, delta=1e-6))
    6.25e-08
    >>> resolve_delta("auto", 0.5), resolve_delta(1e-7, 0.5)
    (1e-06, 1e-07)
    """
    if isinstance(delta, str) and delta == "auto":
        return BudgetAccountant.resolve(accountant).default_delta(epsilon)
    return delta


def table_signature(estimator):
    """Public text that tells a fitted estimator's table from tables with other columns.

    The number of input columns and, where the table has them, their names
    (``n_features_in_``, ``feature_names_in_``, or the keys of the
    synthesizer's ``domain_``): no value of the data. The
    accountant compares the seeds of fits with the same signature only, when
    it has no ``dataset`` name: a table with other columns is neither the
    same dataset nor a neighbour of it.

    Parameters
    ----------
    estimator : fitted estimator
        Has ``n_features_in_`` (None is returned without it).

    Returns
    -------
    signature : str or None
        ``'3 columns'``, ``"2 columns ['age', 'income']"`` or None.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyRegressor
    >>> table_signature(DummyRegressor().fit(np.zeros((4, 3)), np.zeros(4)))
    '3 columns'
    """
    n = getattr(estimator, "n_features_in_", None)
    if not isinstance(n, Integral):
        return None
    names = getattr(estimator, "feature_names_in_", None)
    domain = getattr(estimator, "domain_", None)  # the synthesizer's columns, named publicly
    if names is None and isinstance(domain, dict) and len(domain) == n:
        names = list(domain)
    if names is None:
        return f"{int(n)} columns"
    return f"{int(n)} columns {[str(c) for c in names]!r}"


def noise_seed(random_state):
    """What makes a fit's noise reproducible, as a string; None for fresh noise.

    An int seeds the same noise on every fit. A ``RandomState`` or a NumPy
    ``Generator`` gives the noise of its current state: a shared instance
    advances from fit to fit (fresh noise), but copies of one instance made
    before either is drawn from (:func:`sklearn.base.clone` deep-copies
    ``random_state``) draw the same noise, so its state is what identifies
    the noise. None is fresh entropy.

    Parameters
    ----------
    random_state : int, Generator, RandomState instance or None
        An estimator's (validated) ``random_state``, read before the fit
        draws from it.

    Returns
    -------
    seed : str or None
        ``'random_state=<int>'``, ``'random_state=<RandomState in state
        <digest>>'``, ``'random_state=<Generator in state <digest>>'``, or None.

    Examples
    --------
    >>> noise_seed(0), noise_seed(None)
    ('random_state=0', None)
    >>> import numpy as np
    >>> noise_seed(np.random.RandomState(0)) == noise_seed(np.random.RandomState(0))
    True
    >>> g = np.random.default_rng(0)
    >>> noise_seed(g) == noise_seed(np.random.default_rng(0))
    True
    """
    if random_state is None:
        return None
    if isinstance(random_state, Integral):
        return f"random_state={int(random_state)}"
    import numpy as np  # local: this module does not otherwise need NumPy

    if isinstance(random_state, np.random.Generator):
        # the bit generator's name and state (a dict of ints): copies share it until drawn from
        state = random_state.bit_generator.state
        digest = hashlib.sha256(pickle.dumps(state)).hexdigest()[:12]
        return f"random_state=<Generator in state {digest}>"
    digest = hashlib.sha256(pickle.dumps(random_state.get_state())).hexdigest()[:12]
    return f"random_state=<RandomState in state {digest}>"


class PrivacyMixin:
    """Budget check before the data are touched, and the spend recorded after.

    Estimators with ``epsilon``, ``delta`` and ``accountant`` parameters call
    :meth:`_check_budget` at the top of ``fit`` (before reading ``X`` or
    drawing from ``random_state``) and :meth:`_record_spend` once the fit has
    succeeded. The fitted attributes it sets are ``privacy_spent_`` (the
    composed (epsilon, delta) of what the fit released, never above the
    parameters; ``inf`` for ``epsilon=inf``), ``privacy_method_`` (the
    composition rule that gave it) and ``privacy_ledger_`` (every mechanism,
    for the per-step log). The accountant is charged the parameters
    (epsilon, delta) with the ledger attached, so that it can compose several
    fits tightly, and the fit's :func:`noise_seed` and :func:`table_signature`,
    so that it can warn when two fits on one dataset share their noise.

    ``delta='auto'`` is resolved by :meth:`_resolve_delta` (by
    :meth:`_check_budget` at the latest) to the fitted attribute ``delta_``,
    which the reservation, the charge and ``privacy_spent_`` use.
    """

    def _resolve_delta(self, partial=False):
        """The fit's delta, kept in ``delta_``: :func:`resolve_delta` of the ``delta`` parameter.

        ``partial=True`` continues a stream (``stream_state_``): the delta its
        start resolved is kept.
        """
        if partial and getattr(self, "stream_state_", None) is not None \
                and "delta_" in self.__dict__:
            return self.delta_
        delta = resolve_delta(self.delta, self.epsilon, getattr(self, "accountant", None))
        if delta == 0 and isinstance(self.delta, str) and not math.isinf(float(self.epsilon)):
            raise ValueError("delta='auto' gives 0 on this accountant (its delta cap is 0), but "
                             f"{type(self).__name__} releases Gaussian noise, which has no pure "
                             "(delta = 0) guarantee: give the accountant a delta budget.")
        is_real = isinstance(delta, Real) and not isinstance(delta, bool)
        self.delta_ = float(delta) if is_real else delta
        return self.delta_

    def _fit_atomically(self, *args, **kwargs):
        """Run ``self._fit``; on any error or interrupt restore the estimator.

        A fit is all or nothing (issue 8): an exception, KeyboardInterrupt
        included, leaves the estimator exactly as it was, and nothing was
        charged to the accountant, which :meth:`_record_spend` charges last.
        With a ledger file the fit's reservation (:meth:`_check_budget`) is
        released when the fit raised an ``Exception`` before it read the data
        (:meth:`_reading_data`: a refused parameter, a budget refusal), and
        stays charged when it failed after (an error may depend on the
        data), was interrupted (``KeyboardInterrupt``, ``SystemExit``) or its
        process died.
        """
        self.__dict__.pop("_data_read", None)
        state = dict(self.__dict__)
        try:
            result = self._fit(*args, **kwargs)
        except BaseException as exc:
            reservation = self.__dict__.get("_reservation")
            data_read = self.__dict__.get("_data_read", False)
            self.__dict__.clear()
            self.__dict__.update(state)
            if reservation is not None and isinstance(exc, Exception) and not data_read:
                reservation[0].release(reservation[1])
            raise
        self.__dict__.pop("_data_read", None)
        return result

    def _reading_data(self):
        """Mark that the fit is about to read ``X`` / ``y`` (right before validating them).

        From here on a failed fit keeps its ledger-file reservation charged
        (issue 19: the data may have been touched, e.g. by an error that
        depends on them); before it, the reservation is released.
        """
        self._data_read = True

    def _check_budget(self):
        """Reserve the fit's (epsilon, delta) on its accountant, before the data are read."""
        accountant = BudgetAccountant.resolve(getattr(self, "accountant", None))
        self._resolve_delta()
        self._noise_seed = noise_seed(getattr(self, "random_state", None))
        token = accountant.reserve(self.epsilon, self.delta_, **self._spend_record())
        self._reservation = (accountant, token)
        return accountant

    def _spend_record(self):
        """What the accountant keeps of the fit besides its spend: label, seed, params, solver."""
        params = {k: v for k, v in self.get_params(deep=False).items() if k != "accountant"}
        solver = getattr(self, "solver_", getattr(self, "solver", None))
        try:
            text = json.dumps(params, default=repr)
        except (TypeError, ValueError):  # keys JSON cannot hold
            text = repr(params)
        return dict(label=type(self).__name__, seed=self._noise_seed, params=text,
                    solver=None if solver is None else str(solver))

    def _record_spend(self, accountant, ledger):
        delta = self.delta_ if "delta_" in self.__dict__ else self._resolve_delta()
        if math.isinf(self.epsilon) and math.isfinite(ledger.epsilon(delta)):
            ledger.zcdp(math.inf, label="exact fit (epsilon = inf): no privacy")
        eps_used, method = ledger.spent(delta)
        if eps_used > self.epsilon * (1 + 1e-9) and not math.isinf(self.epsilon):
            raise RuntimeError(  # a bug: the solver overspent its budget
                f"internal error: the fit composed to epsilon={eps_used} > {self.epsilon}.")
        _, token = self.__dict__.pop("_reservation", (None, None))
        accountant.charge(token, self.epsilon, delta, ledger=ledger, data=table_signature(self),
                          **self._spend_record())
        self.privacy_spent_ = (float(eps_used), float(delta))
        self.privacy_method_ = method
        self.privacy_ledger_ = ledger
