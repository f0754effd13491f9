"""Privacy plumbing shared by the estimators."""

import hashlib
import json
import math
from numbers import Integral
import pickle

from .privacy.accountant import BudgetAccountant

__all__ = ["PrivacyMixin", "noise_seed"]


def noise_seed(random_state):
    """What makes a fit's noise reproducible, as a string; None for fresh noise.

    An int seeds the same noise on every fit. A ``RandomState`` gives the
    noise of its current state: a shared instance advances from fit to fit
    (fresh noise), but copies of one instance made before either is drawn
    from (:func:`sklearn.base.clone` deep-copies ``random_state``) draw the
    same noise, so its state is what identifies the noise. None is fresh
    entropy.

    Parameters
    ----------
    random_state : int, RandomState instance or None
        An estimator's (validated) ``random_state``, read before the fit
        draws from it.

    Returns
    -------
    seed : str or None
        ``'random_state=<int>'``, ``'random_state=<RandomState in state
        <digest>>'``, or None.

    Examples
    --------
    >>> noise_seed(0), noise_seed(None)
    ('random_state=0', None)
    >>> import numpy as np
    >>> noise_seed(np.random.RandomState(0)) == noise_seed(np.random.RandomState(0))
    True
    """
    if random_state is None:
        return None
    if isinstance(random_state, Integral):
        return f"random_state={int(random_state)}"
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
    fits tightly, and the fit's :func:`noise_seed`, so that it can warn when
    two fits share their noise.
    """

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
        self._noise_seed = noise_seed(getattr(self, "random_state", None))
        token = accountant.reserve(self.epsilon, self.delta, **self._spend_record())
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
        if math.isinf(self.epsilon) and math.isfinite(ledger.epsilon(self.delta)):
            ledger.zcdp(math.inf, label="exact fit (epsilon = inf): no privacy")
        eps_used, method = ledger.spent(self.delta)
        if eps_used > self.epsilon * (1 + 1e-9) and not math.isinf(self.epsilon):
            raise RuntimeError(  # a bug: the solver overspent its budget
                f"internal error: the fit composed to epsilon={eps_used} > {self.epsilon}.")
        _, token = self.__dict__.pop("_reservation", (None, None))
        accountant.charge(token, self.epsilon, self.delta, ledger=ledger, **self._spend_record())
        self.privacy_spent_ = (float(eps_used), float(self.delta))
        self.privacy_method_ = method
        self.privacy_ledger_ = ledger
