"""Privacy plumbing shared by the estimators, and their one fit template."""

from dataclasses import dataclass
import hashlib
import json
import math
from numbers import Integral, Real
import pickle
import warnings

from .privacy.accountant import BudgetAccountant
from .privacy.budget import Budget
from .privacy.gdp_plan import exact_mu
from .privacy.ledger import approx_dp_to_zcdp

__all__ = ["PROVENANCES", "BudgetPlan", "FitRun", "PrivacyMixin", "PrivateEstimator",
           "Reservation", "Rows", "noise_seed", "reserve_fit", "resolve_delta",
           "table_signature"]


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


class Reservation:
    """A fit's budget, reserved on its accountant before any data row is read.

    Made by :meth:`PrivacyMixin._check_budget` at the top of a fit, or ahead of
    the fit by :func:`reserve_fit` (for a caller that reads the rows itself,
    as ``python -m skdp synthesize`` does), in which case the estimator's next
    fit takes it over instead of reserving again. It is counted by the
    accountant from the start (:meth:`~skdp.BudgetAccountant.reserve`) and
    ends in one of two ways: charged with the fit's spend, or released (the
    fit failed before any data row was read). A failure after
    :meth:`reading_data` leaves it counted at its claim.

    Attributes
    ----------
    accountant : BudgetAccountant
        Where it is held.
    token : int
        Its id on the accountant.
    epsilon, delta : float
        The claim.
    data_read : bool
        Whether data rows may have been read since it was made.
    settled : bool
        Charged or released.
    """

    def __init__(self, accountant, token, epsilon, delta):
        self.accountant, self.token = accountant, token
        self.epsilon, self.delta = float(epsilon), float(delta)
        self.data_read = False
        self.settled = False

    def reading_data(self):
        """Mark that data rows are about to be read: from now on a failure keeps it charged."""
        self.data_read = True

    def charge(self, epsilon, delta, **spend):
        """Replace it by the fit's spend (:meth:`~skdp.BudgetAccountant.charge`)."""
        self.settled = True
        self.accountant.charge(self.token, epsilon, delta, **spend)

    def fail(self, exc=None):
        """The fit failed: cancel the reservation if no data row was read and ``exc`` is an
        ``Exception`` (not an interrupt), else leave it counted at its claim."""
        if self.settled:
            return
        self.settled = True
        if not self.data_read and (exc is None or isinstance(exc, Exception)):
            self.accountant.cancel(self.token)


def reserve_fit(estimator):
    """Reserve an estimator's budget now, before any data row is read; its next fit takes it.

    For a caller that reads (or parses) the private rows itself before it
    calls ``fit``: reserving first means that a failure while reading, which
    may depend on the data, is charged like a failure inside the fit. Use it
    as a context manager; call :meth:`Reservation.reading_data` before the
    first row is read. The estimator's next ``fit`` takes the reservation over
    (its ``epsilon``, ``delta`` and ``accountant`` must not change meanwhile)
    and charges it once; if the block ends without that fit having taken it,
    the reservation is cancelled when no row was read and stays charged at its
    claim otherwise.

    Parameters
    ----------
    estimator : PrivacyMixin
        An skdp estimator, with the parameters of the fit to come.

    Returns
    -------
    reservation : context manager of Reservation
        The reservation.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp import BudgetAccountant, SaddlePointSynthesizer
    >>> acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    >>> est = SaddlePointSynthesizer(epsilon=1.0, domain={0: 2}, solver="smd",
    ...                              accountant=acc)
    >>> with reserve_fit(est) as held:
    ...     print(acc.total()[0])  # counted before a row is read
    ...     held.reading_data()
    ...     est = est.fit(np.array([[0], [1], [1]]))
    1.0
    >>> len(acc.spends), acc.total()[0]  # charged once
    (1, 1.0)
    """
    return _Held(estimator)


class _Held:
    def __init__(self, estimator):
        self.estimator = estimator

    def __enter__(self):
        est = self.estimator
        if hasattr(est, "_validate_params"):
            est._validate_params()  # a parameter error before anything is reserved
        accountant, epsilon, delta, seed = est._claim()
        token = accountant.reserve(epsilon, delta, **est._spend_record(seed))
        self.reservation = Reservation(accountant, token, epsilon, delta)
        est._held_reservation = self.reservation
        return self.reservation

    def __exit__(self, kind, exc, tb):
        self.estimator.__dict__.pop("_held_reservation", None)
        self.reservation.fail(exc)
        return False


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

        ``partial`` is for the streaming estimators (:class:`~skdp._partial_fit.StreamingMixin`
        keeps the delta a stream started with); here it is ignored.
        """
        self._publish(delta_=self._fit_delta())
        return self.delta_

    def _fit_delta(self):
        """:func:`resolve_delta` of the ``delta`` parameter, checked (nothing is set)."""
        delta = resolve_delta(self.delta, self.epsilon, getattr(self, "accountant", None))
        if delta == 0 and isinstance(self.delta, str) and not math.isinf(float(self.epsilon)):
            raise ValueError("delta='auto' gives 0 on this accountant (its delta cap is 0), but "
                             f"{type(self).__name__} releases Gaussian noise, which has no pure "
                             "(delta = 0) guarantee: give the accountant a delta budget.")
        is_real = isinstance(delta, Real) and not isinstance(delta, bool)
        return float(delta) if is_real else delta

    def _fit_atomically(self, *args, **kwargs):
        """Run ``self._fit``; on any error or interrupt restore the estimator.

        A fit is all or nothing (issue 8): an exception, KeyboardInterrupt
        included, leaves the estimator exactly as it was. Its reservation
        (:meth:`_check_budget`, a counted spend on the accountant from then on,
        in memory as in a budget store) is cancelled when the fit raised an
        ``Exception`` before it read the data (:meth:`_reading_data`: a refused
        parameter, a budget refusal), and stays charged at its claim when it
        failed after (an error may depend on the data), was interrupted
        (``KeyboardInterrupt``, ``SystemExit``) or its process died (issue 28:
        one rule for memory and files). A fit that returns replaces it by its
        spend (:meth:`_record_spend`).
        """
        self.__dict__.pop("_data_read", None)
        state = dict(self.__dict__)
        try:
            result = self._fit(*args, **kwargs)
            self._after_fit()
        except BaseException as exc:
            reservation = self.__dict__.get("_reservation")
            data_read = self.__dict__.get("_data_read", False)
            self.__dict__.clear()
            self.__dict__.update(state)
            self.__dict__.pop("_held_reservation", None)  # taken (or not: its holder decides)
            if isinstance(reservation, tuple):  # (accountant, token), as a search holds it
                reservation = Reservation(reservation[0], reservation[1], math.nan, math.nan)
            if reservation is not None:
                if data_read:
                    reservation.reading_data()
                reservation.fail(exc)
            raise
        self.__dict__.pop("_data_read", None)
        self.__dict__.pop("_held_reservation", None)
        return result

    def _after_fit(self):
        """Run by :meth:`_fit_atomically` after ``_fit`` returned, inside its all-or-nothing
        block (an error here restores the estimator); nothing here."""

    def _reading_data(self):
        """Mark that the fit is about to read ``X`` / ``y`` (right before validating them).

        From here on a failed fit keeps its reservation charged (issues 19
        and 28: the data may have been touched, e.g. by an error that depends
        on them); before it, the reservation is cancelled.
        """
        self._data_read = True

    def _claim(self):
        """(accountant, epsilon, delta, noise seed) of the fit to come; sets nothing."""
        accountant = BudgetAccountant.resolve(getattr(self, "accountant", None))
        return (accountant, self.epsilon, self._fit_delta(),
                noise_seed(getattr(self, "random_state", None)))

    def _check_budget(self):
        """Reserve the fit's (epsilon, delta) on its accountant, before the data are read.

        A reservation made ahead by :func:`reserve_fit` is taken over instead
        (after checking that it holds this fit's claim on this accountant).
        """
        accountant, epsilon, delta, seed = self._claim()
        self._publish(delta_=delta)
        self._noise_seed = seed
        held = self.__dict__.pop("_held_reservation", None)
        if held is not None and not held.settled:
            if held.accountant is not accountant or (held.epsilon, held.delta) != (
                    float(epsilon), float(delta)):
                raise ValueError(
                    f"the budget reserved ahead of this fit (epsilon={held.epsilon:g}, "
                    f"delta={held.delta:g}) is not this fit's (epsilon={epsilon:g}, "
                    f"delta={delta:g}) on its accountant: keep epsilon, delta and accountant "
                    "unchanged between reserve_fit and fit. The reservation stays charged.")
            self._reservation = held
            if held.data_read:
                self._reading_data()
            return accountant
        token = accountant.reserve(epsilon, delta, **self._spend_record())
        self._reservation = Reservation(accountant, token, epsilon, delta)
        return accountant

    def _reserve_ahead(self):
        """Reserve the fit's budget now, for a pass over the rows that comes before the point
        where the fit reserves (a Dask collection's row counts, computed from its partitions);
        the fit's own :meth:`_check_budget` takes the reservation over (issue 28). From here
        on a failure keeps it charged."""
        self._check_budget()
        self._held_reservation = self._reservation
        self._reading_data()

    def _spend_record(self, seed=None):
        """What the accountant keeps of the fit besides its spend: label, seed, params, solver."""
        if seed is None:
            seed = self.__dict__.get("_noise_seed")
        params = {k: v for k, v in self.get_params(deep=False).items() if k != "accountant"}
        if params.get("random_state") is not None:  # the seed is kept only as `seed`: a
            params["random_state"] = "<withheld>"    # a budget store keeps its fingerprint
        solver = getattr(self, "solver_", getattr(self, "solver", None))
        try:
            text = json.dumps(params, default=repr)
        except (TypeError, ValueError):  # keys JSON cannot hold
            text = repr(params)
        # the relation the fit's guarantee is stated under (issue 28): the accountant counts
        # an add_remove spend on a replace_one budget by group privacy, or refuses the mix
        neighbouring = params.get("neighbouring")
        if neighbouring not in ("replace_one", "add_remove"):
            neighbouring = "replace_one"
        return dict(label=type(self).__name__, seed=seed, params=text,
                    solver=None if solver is None else str(solver), neighbouring=neighbouring)

    def _record_spend(self, accountant, ledger):
        delta = self.delta_ if "delta_" in self.__dict__ else self._resolve_delta()
        if math.isinf(self.epsilon) and math.isfinite(ledger.epsilon(delta)):
            ledger.zcdp(math.inf, label="exact fit (epsilon = inf): no privacy")
        eps_used, method = ledger.spent(delta)
        if eps_used > self.epsilon * (1 + 1e-9) and not math.isinf(self.epsilon):
            raise RuntimeError(  # a bug: the solver overspent its budget
                f"internal error: the fit composed to epsilon={eps_used} > {self.epsilon}.")
        reservation = self.__dict__.pop("_reservation", None)
        record = dict(ledger=ledger, data=table_signature(self), **self._spend_record())
        if isinstance(reservation, Reservation):
            reservation.charge(self.epsilon, delta, **record)
        else:
            token = None if reservation is None else reservation[1]
            accountant.charge(token, self.epsilon, delta, **record)
        self._publish(privacy_spent_=(float(eps_used), float(delta)), privacy_method_=method,
                      privacy_ledger_=ledger)

    def _publish(self, **attributes):
        """Set fitted attributes (:class:`PrivateEstimator` checks each against its declared
        list)."""
        for name, value in attributes.items():
            setattr(self, name, value)


@dataclass(frozen=True)
class BudgetPlan:
    """The calibration of a fit's one :class:`~skdp.privacy.budget.Budget`, as data.

    Every estimator declares its calibration with :meth:`PrivateEstimator._budget_plan`;
    :meth:`PrivateEstimator._open_budget` alone turns it into the fit's ``Budget``
    (``Budget.for_fit``). The fit's ``(epsilon, delta)`` is spent in one of two
    currencies, and the budget may carry a Gaussian-DP filter beside its zCDP one:

    * ``currency='gdp'``: the fit is ``mu``-GDP with ``mu = approx_dp_to_gdp(epsilon,
      delta) * (1 - slack)`` (Dong–Roth–Su 2022, Cor. 2.13 inverted: exactly (epsilon,
      delta)-DP), and the zCDP total is ``rho = mu**2 / 2`` (a Gaussian release is
      ``rho``-zCDP exactly when it is ``sqrt(2 rho)``-GDP, Thm 2.7, and both compose by
      adding ``rho``, Cor. 3.3; adaptively: Smith–Thakurta 2022). For fits made of
      Gaussian releases only: the classifier, the regressor's ``gaussian`` solvers.
    * ``currency='zcdp'``: ``rho = approx_dp_to_zcdp(epsilon, zcdp_delta or delta)``
      (Canonne–Kamath–Steinke 2020; Bun–Steinke 2016 Prop. 1.3): any mechanism
      (exponential, tree, matrix, Poisson-subsampled) composes in zCDP.

    ``zcdp_delta``: where part of ``delta`` goes to mechanisms charged apart (a threshold's
    ``(0, delta_t)``, composed with the rest by the ledger's basic composition), the
    ``delta`` left to the calibrated releases, used by ``rho`` and by the ``'exact'``
    filter alike.

    ``gdp_filter`` gives the budget a GDP filter ``mu`` beside ``rho``: None (none),
    ``'exact'`` (``approx_dp_to_gdp(epsilon, zcdp_delta or delta) * (1 - slack)``, the
    fit's exact GDP budget: its Gaussian releases compose to (epsilon, delta) with no
    conversion loss, any other release closes the filter) or ``'of_rho'`` (``sqrt(2 rho) *
    (1 - slack)``, the GDP image of the zCDP total: a stream calibrated in zCDP whose one
    Gaussian mechanism is accounted as GDP). ``slack`` shrinks ``mu`` by a relative amount so
    that round-off never overspends. ``exclusive``: no other mechanism shares the
    fit's (epsilon, delta) (False where releases before the solver's take shares);
    ``gdp_only``: Budget's flag (a non-Gaussian zCDP release is refused). At
    ``epsilon = inf`` both totals are infinite (the non-private fit: no noise).

    Examples
    --------
    >>> plan = BudgetPlan("gdp", slack=1e-9, exclusive=False)
    >>> round(plan.rho(1.0, 1e-6), 4), plan.mu(1.0, 1e-6)
    (0.028, None)
    >>> round(BudgetPlan("zcdp").rho(1.0, 1e-6), 4)
    0.0244
    """

    currency: str = "zcdp"
    zcdp_delta: float | None = None
    gdp_filter: str | None = None
    slack: float = 0.0
    exclusive: bool = True
    gdp_only: bool = False

    def __post_init__(self):
        if self.currency not in ("gdp", "zcdp"):
            raise ValueError(f"currency must be 'gdp' or 'zcdp', got {self.currency!r}.")
        if self.gdp_filter not in (None, "exact", "of_rho"):
            raise ValueError(f"gdp_filter must be None, 'exact' or 'of_rho', got "
                             f"{self.gdp_filter!r}.")

    def _exact_mu(self, epsilon, delta):
        # the one exact GDP budget (skdp.privacy.gdp_plan.exact_mu: Cor. 2.13 inverted)
        return exact_mu(epsilon, delta, self.slack)

    def rho(self, epsilon, delta):
        """The zCDP total of the fit's budget (``inf`` at ``epsilon = inf``)."""
        if math.isinf(epsilon):
            return math.inf
        if self.currency == "gdp":  # at the delta left to the calibrated releases
            mu = self._exact_mu(epsilon, delta if self.zcdp_delta is None else self.zcdp_delta)
            return mu * mu / 2.0
        return approx_dp_to_zcdp(epsilon, delta if self.zcdp_delta is None else self.zcdp_delta)

    def mu(self, epsilon, delta):
        """The GDP filter of the fit's budget (None: none; ``inf`` at ``epsilon = inf``)."""
        if self.gdp_filter is None:
            return None
        if math.isinf(epsilon):
            return math.inf
        if self.gdp_filter == "exact":  # at the delta left to the calibrated releases
            return self._exact_mu(epsilon, delta if self.zcdp_delta is None else self.zcdp_delta)
        return math.sqrt(2.0 * self.rho(epsilon, delta)) * (1.0 - self.slack)


class Rows:
    """What a fit's ``_read_rows`` returns: the ``backend`` its noise is drawn on and the
    estimator's encoded rows (its own fields, by keyword). Lives in the call only."""

    def __init__(self, backend, **fields):
        self.backend = backend
        self.__dict__.update(fields)


class FitRun:
    """One fit's working state, handed from step to step of the template.

    It lives in the call (never on the estimator, never published). The base sets
    ``X``, ``args`` / ``kwargs`` (the rest of the fit's arguments), ``partial``,
    ``epsilon`` / ``delta`` (step 1), ``rows`` (step 3), ``plan`` and ``budget`` (the
    fit's one budget, step 4) and ``result`` (step 5). The estimator's hooks set the
    rest: ``charged`` (False: a chunk of a stream already charged, nothing reserved),
    ``stream_dask`` (a Dask collection fitted chunk by chunk, each chunk through this
    template), ``read_args`` / ``read_kwargs`` (what ``_read_rows`` gets after ``X``),
    ``ledger`` (a stream's chunk continues its stream's ledger), and ``solver``,
    ``spec``, ``options``, ``problem``, ``solver_budget`` (what step 5 dispatches);
    anything else a hook keeps for a later one is an attribute too.
    """

    def __init__(self, X, args, kwargs, partial):
        self.X, self.args, self.kwargs, self.partial = X, args, kwargs, partial
        self.epsilon = self.delta = None
        self.charged = True
        self.stream_dask = False
        self.read_args, self.read_kwargs = args, {}
        self.stream_ledger = None  # a continued stream's ledger (its budget records into it)
        self.solver = self.spec = self.options = self.problem = self.solver_budget = None
        self.rows = self.plan = self.budget = self.result = None


PROVENANCES = {
    "public": "a public parameter or public fact of the input (its shape, column names), or "
              "a function of them only",
    "release": "a noisy release (a mechanism of the fit's ledger)",
    "post": "post-processing of the releases (and of public things)",
}
"""Where a fitted attribute comes from: the values of ``_published``."""

_PUBLISHED = {
    "n_features_in_": "public",      # the input's width (public, as the row count)
    "feature_names_in_": "public",   # the input's column names (schema, not rows)
    "delta_": "public",              # the delta parameter, or 'auto' resolved on the accountant
    "privacy_spent_": "post",        # the ledger's composition (noise scales may be adaptive)
    "privacy_method_": "post",
    "privacy_ledger_": "post",
}


class PrivateEstimator(PrivacyMixin):
    """The fit template of the skdp estimators (developer guide, "The fit template").

    ``fit`` (and ``partial_fit``) runs :meth:`_fit_atomically` (all or nothing),
    whose :meth:`_fit` is this class's, the one sequence of every estimator. Each
    step is a method of the base; what differs between estimators is a hook
    (marked *hook*), and a :class:`FitRun` carries the fit's state from step to
    step:

    1. parameters: sklearn's ``_fit_context`` validates them against
       ``_parameter_constraints``; :meth:`_check_privacy_params` checks
       ``epsilon`` and resolves ``delta`` into ``delta_``;
       :meth:`_warn_moved_parameters`; *hook* :meth:`_prepare`: the solver
       resolved as far as public things allow, its ``solver_options`` checked
       against its spec, the public schema checked -- no data row read. A
       streaming solver on a Dask collection (``run.stream_dask``) becomes
       here a sequence of chunk fits, each through this template
       (:meth:`~skdp._partial_fit.StreamingMixin._fit_stream_dask`);
    2. reserve: :meth:`_reserve` (:meth:`~PrivacyMixin._check_budget`), the
       fit's claim counted on its accountant before any row is read (a Dask
       collection whose row counts must be computed reserves ahead in step 1,
       :meth:`~PrivacyMixin._reserve_ahead`; an uncharged chunk of a stream
       reserves nothing);
    3. read: :meth:`_read_rows`, the one entry of the rows: a Dask collection
       to the estimator's ``_read_dask``, anything else (arrays of any
       namespace, DataFrames, lists, a stream's chunk) to its
       ``_read_arrays`` (*hooks*, each returning :class:`Rows`); each marks
       :meth:`~PrivacyMixin._reading_data` right before the first row is
       touched;
    4. budget: *hook* :meth:`_budget_plan` declares the calibration as data
       (a :class:`BudgetPlan`), and :meth:`_open_budget` opens the fit's one
       :class:`~skdp.privacy.budget.Budget` from it; *hook*
       :meth:`_build_problem` makes the releases that come before the
       solver's (preconditioner, private clip, group sizes, private domains)
       on shares of it, and the solver's problem and share;
    5. dispatch: :meth:`_dispatch`, ``spec.fn(problem, budget, options)`` of
       the solver's :class:`~skdp.solvers.spec.SolverSpec`;
    6. publish: :meth:`_dispatch` and *hook* :meth:`_after_dispatch` set the
       fitted attributes through :meth:`_publish`, each declared in
       ``_published`` (name -> provenance, a key of :data:`PROVENANCES`);
       :meth:`_check_published` fails the fit on an attribute ending in
       ``_`` that is not declared, before anything leaves;
    7. charge: :meth:`_charge`, the reservation replaced by the ledger's
       spend (the last step: a fit that fails before it leaves the estimator
       as it was).

    An estimator keeps what differs: its parameters, the hooks (its
    encoding, its calibration, its problem, its outputs), and ``predict`` /
    ``sample``.
    """

    _published: dict[str, str] = {}
    """Fitted attributes of the estimator: name -> provenance (``'public'``, ``'release'``,
    ``'post'``); those of every estimator (``privacy_*_``, ``delta_``, ``n_features_in_``,
    ``feature_names_in_``) are added by :meth:`published_attributes`."""

    _moved_to_options: dict[str, str] = {}
    """Constructor parameters deprecated for a key of ``solver_options`` (issue 29 item 3):
    parameter -> key. Their default is the string ``'deprecated'``; a value given still works
    for the solvers whose spec reads the key, with a ``FutureWarning`` naming the new
    spelling."""

    @classmethod
    def published_attributes(cls):
        """Every fitted attribute the estimator may publish: name -> provenance."""
        return {**_PUBLISHED, **cls._published}

    # -- the template -------------------------------------------------------------------
    def _fit(self, X, *args, partial=False, **kwargs):
        """The one fit sequence (the class docstring's steps 1 to 7), run by
        :meth:`_fit_atomically`: ``fit(X, ...)`` and ``partial_fit(X, ..., partial=True)``
        of every estimator, and each chunk of a Dask stream."""
        run = FitRun(X, args, kwargs, partial)
        # 1. parameters, the solver and its options, the public schema: no row read
        run.epsilon, run.delta = self._check_privacy_params(partial)
        self._warn_moved_parameters()
        self._prepare(run)
        if run.stream_dask:  # chunk after chunk, each chunk through this template
            return self._fit_stream_dask(run)
        accountant = self._reserve(run.charged)  # 2. reserve
        run.rows = self._read_rows(run.X, *run.read_args, **run.read_kwargs)  # 3. read
        run.plan = self._budget_plan(run)  # 4. the one budget
        run.budget = self._open_budget(run.plan, run.rows.backend, run.epsilon, run.delta,
                                       ledger=run.stream_ledger)
        self._build_problem(run)  # the releases before the solver's, the solver's share
        run.result = self._dispatch(run.solver, run.spec, run.problem,  # 5. dispatch
                                    run.solver_budget, run.options)
        self._after_dispatch(run)  # 6. publish
        self._check_published()
        self._charge(accountant, run.budget)  # 7. charge (None: a chunk of a charged stream)
        return self

    def _prepare(self, run):
        """Hook of step 1: resolve the solver and its options (``run.solver``,
        ``run.spec``, ``run.options``, or later in :meth:`_build_problem` where the
        rule needs a public fact of the rows), check what the parameters and the schema
        alone fix, and set ``run.charged``, ``run.read_args`` / ``run.read_kwargs``,
        ``run.stream_ledger`` or ``run.stream_dask``. Reads no row."""

    def _budget_plan(self, run):
        """Hook of step 4: the calibration of the fit's budget, a :class:`BudgetPlan`
        (public things only: parameters, the solver, the schema)."""
        return BudgetPlan()

    def _build_problem(self, run):
        """Hook of step 4: the releases before the solver's, on shares of ``run.budget``;
        set ``run.problem``, ``run.solver_budget`` (and the solver, where
        :meth:`_prepare` left it)."""
        raise NotImplementedError

    def _after_dispatch(self, run):
        """Hook of step 6: publish the fitted attributes from ``run.result``
        (:meth:`_publish`); post-processing only."""

    def _open_budget(self, plan, backend, epsilon, delta, ledger=None):
        """Step 4: the fit's one :class:`~skdp.privacy.budget.Budget`, calibrated by
        ``plan`` (:class:`BudgetPlan`) on ``backend``'s generator, recording in a new
        ledger (or ``ledger``: a stream's chunk continues its stream's)."""
        return Budget.for_fit(backend, epsilon, delta, plan.rho(epsilon, delta),
                              mu=plan.mu(epsilon, delta), exclusive=plan.exclusive,
                              ledger=ledger, gdp_only=plan.gdp_only)

    def _check_privacy_params(self, partial=False):
        """Step 1: ``(epsilon, delta)`` of the fit, checked, ``delta='auto'`` resolved into
        ``delta_`` (``partial``: a stream keeps its delta)."""
        from ._validation import check_epsilon_delta

        return check_epsilon_delta(self.epsilon, self._resolve_delta(partial), need_delta=True)

    def _moved_parameters(self):
        """The deprecated parameters given a value: parameter -> (key, value)."""
        return {param: (key, getattr(self, param))
                for param, key in self._moved_to_options.items()
                if not (isinstance(getattr(self, param), str)
                        and getattr(self, param) == "deprecated")}

    def _warn_moved_parameters(self):
        """Step 1: a ``FutureWarning`` for each deprecated parameter given a value."""
        for param, (key, value) in self._moved_parameters().items():
            warnings.warn(f"{type(self).__name__}({param}=...) is deprecated and will be "
                          f"removed in the next release: pass solver_options={{{key!r}: "
                          f"{value!r}}} instead.", FutureWarning, stacklevel=6)

    def _solver_options(self, spec):
        """Step 1: ``solver_options`` with the deprecated parameters given a value merged in
        (those whose key ``spec`` reads: the others were ignored by that solver before
        too); both spellings at once raise ``ValueError``."""
        options = dict(self.solver_options or {})
        for param, (key, value) in self._moved_parameters().items():
            if key in options:
                raise ValueError(f"{param}={value!r} and solver_options[{key!r}] are both "
                                 f"given: pass solver_options[{key!r}] only ({param} is "
                                 "deprecated).")
            if key in spec.option_names:
                options[key] = value
        return options

    def _reserve(self, charged=True):
        """Step 2: the fit's budget reserved on its accountant (None: an uncharged chunk of a
        stream already charged)."""
        return self._check_budget() if charged else None

    def _read_rows(self, X, *args, **kwargs):
        """Step 3, the one entry of the rows: ``_read_dask`` for a Dask collection,
        ``_read_arrays`` for the rest (each marks :meth:`_reading_data` itself, right
        before the first row is touched: what comes before it reads the schema only)."""
        from ._partitions import is_dask_collection

        read = self._read_dask if is_dask_collection(X) else self._read_arrays
        return read(X, *args, **kwargs)

    def _dispatch(self, name, spec, problem, budget, options):
        """Step 5: run the solver through its spec; publish ``solver_``, ``n_iter_`` and the
        spec's ``info_attributes``; return its result."""
        result = spec.fn(problem, budget, options)
        self._publish(solver_=name, n_iter_=int(result.n_iter),
                      **{attr: result.info[key] for attr, key in spec.info_attributes})
        return result

    def _publish(self, **attributes):
        """Step 6: set fitted attributes, each declared in ``_published``; the only way an
        estimator sets one (sklearn's ``validate_data`` sets ``n_features_in_`` and
        ``feature_names_in_`` itself)."""
        declared = self.published_attributes()
        for name, value in attributes.items():
            if name not in declared:
                raise RuntimeError(f"internal error: {type(self).__name__} publishes {name!r}, "
                                   "which its _published list does not declare.")
            setattr(self, name, value)

    def _charge(self, accountant, budget):
        """Step 7: the reservation replaced by the fit's spend, ``budget``'s ledger (a
        stream's pass by :meth:`~skdp._partial_fit.StreamingMixin._record_pass`); nothing
        for ``accountant=None`` (a chunk of a stream charged by the call that started it)."""
        if accountant is None:
            return
        record = getattr(self, "_record_pass", self._record_spend)
        record(accountant, budget.recorded())

    def _check_published(self):
        """Step 6: fail the fit on a public attribute ending in ``_`` that ``_published``
        does not declare (before the charge: nothing leaves)."""
        declared = self.published_attributes()
        undeclared = sorted(name for name in vars(self)
                            if name.endswith("_") and not name.startswith("_")
                            and name not in declared)
        if undeclared:
            raise RuntimeError(f"internal error: {type(self).__name__} has the fitted "
                               f"attributes {undeclared}, which its _published list does not "
                               "declare.")

    def _after_fit(self):
        self._check_published()
