"""Private hyperparameter tuning: random search with a random number of runs.

:class:`~sklearn.model_selection.GridSearchCV` over skdp estimators is private
only at the composed cost of all its fits (``k`` candidates times ``c`` folds
fits, each charged to the :class:`~skdp.BudgetAccountant`), and its
``cv_results_`` release every candidate's non-private score.
:class:`PrivateHyperparameterSearch` releases only the best of a *random*
number of private runs, whose total cost Papernot and Steinke 2022 bound by
little more than one run's (see :mod:`skdp.privacy.repeat_and_select`).
"""

from copy import deepcopy
import functools
import math
from numbers import Real
import warnings

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import ParameterGrid, ParameterSampler
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils import _safe_indexing, get_tags, indexable
from sklearn.utils.validation import _num_features, _num_samples, check_is_fitted

from ._backend import Backend, make_rng, to_numpy
from ._base import PrivacyMixin, noise_seed, resolve_delta
from ._validation import ACCOUNTANT_CONSTRAINT, BOUND_CONSTRAINT
from ._validation import warn_large_delta
from .exceptions import PrivacyLeakWarning
from .privacy.accountant import BudgetAccountant
from .privacy.ledger import (approx_dp_to_gdp, approx_dp_to_zcdp, pure_rho,
                             subsampled_noise_within)
from .privacy.budget import Budget
from .privacy.rdp import RDP_ORDERS, ledger_rdp, subsampled_gaussian_rdp
from .privacy.repeat_and_select import (repeat_and_select_epsilon, repeat_and_select_epsilon_curve,
                                        sample_repetitions)
from ._search_in_fit import (SEARCH_DEFAULTS, SEARCH_GRID, SEARCH_SCORINGS, SEARCH_SOLVER,  # noqa: F401
                             _runs_warnings, check_search, gdp_epsilon, search_in_fit,
                             search_run_rho)

__all__ = ["PrivateHyperparameterSearch", "fit_rho_bound", "fit_rdp_bound", "subsampled_steps"]

SCORINGS = ("accuracy", "neg_mean_squared_error", "neg_mean_absolute_error")
_PRIVACY_PARAMS = ("epsilon", "delta")
# parameters that set how many Poisson-subsampled steps a run takes, at which rate
_PLAN_PARAMS = ("solver", "max_iter", "n_iter", "solver_options", "model")
_ORDERS = np.array(RDP_ORDERS)


def _estimator_has(attr):
    def check(self):
        if getattr(self, "best_estimator_", None) is not None:
            return hasattr(self.best_estimator_, attr)
        return hasattr(self.estimator, attr)
    return check


def fit_rho_bound(estimator):
    """The zCDP budget that a fit of a private estimator stays within, from its parameters.

    An skdp fit with parameters (epsilon, delta) releases mechanisms recorded
    in its ledger, composed to at most (epsilon, delta) by either zCDP (then
    ``rho <= approx_dp_to_zcdp(epsilon, delta)``) or, when all are Gaussian,
    Gaussian DP (then ``mu <= approx_dp_to_gdp(epsilon, delta)`` and
    ``rho = mu**2 / 2``, Dong–Roth–Su 2022 Cor. 3.3 and Bun–Steinke Prop. 1.6).
    The larger of the two bounds both. With ``delta = 0`` the fit is
    epsilon-DP, hence ``epsilon**2/2``-zCDP (Bun–Steinke 2016, Prop. 1.4).
    :class:`PrivateHyperparameterSearch` checks every fit's ledger against it.

    ``delta='auto'`` is what a fit would resolve it to with the estimator's
    ``accountant`` (:func:`skdp._base.resolve_delta`).

    Parameters
    ----------
    estimator : skdp estimator
        Has ``epsilon`` and ``delta`` parameters.

    Returns
    -------
    rho : float
        The zCDP bound (``inf`` for ``epsilon = inf``).

    Examples
    --------
    >>> from skdp import KLAdaptiveRegressor
    >>> round(fit_rho_bound(KLAdaptiveRegressor(epsilon=1.0, delta=1e-6)), 5)
    0.02801
    """
    eps = float(estimator.epsilon)
    if math.isinf(eps):
        return math.inf
    delta = float(resolve_delta(estimator.delta, eps, getattr(estimator, "accountant", None)))
    if delta == 0:
        return pure_rho(eps)
    return max(approx_dp_to_zcdp(eps, delta), approx_dp_to_gdp(eps, delta) ** 2 / 2)


def subsampled_steps(estimator, n_rows, n_features=None):
    """The Poisson-subsampled Gaussian steps a fit will take, from its public parameters.

    For :class:`~skdp.KLAdaptiveRegressor` and
    :class:`~skdp.PrivateMinimaxClassifier`: their ``'dpsgd_poisson'``
    solver, given or chosen by ``solver='auto'`` at the shape of its spec's ``auto_from``
    (``n_rows * n_features >= AUTO_SUBSAMPLE`` or ``n_rows >= AUTO_ROWS_*``; an
    unknown ``n_features`` counts as large), takes ``T``
    steps at rate ``q`` (``max_iter`` or 100, resp. ``n_iter`` or
    :func:`~skdp.solvers.minimax.subsampled.auto_poisson_steps` at the whole
    budget's ``mu``; ``q`` the ``sampling_rate`` option or ``min(1, 4 / T)``,
    as :func:`~skdp.solvers.shared.subsampling.sampling_rate`, for the classifier's
    ``n_iter='auto'`` at most ``16,000 / n_rows``,
    :func:`~skdp.solvers.minimax.subsampled.auto_passes`). Other
    estimators: none. When the classifier releases its group sizes (neither
    ``group_sizes`` nor ``group_by=None``), its ``n_iter='auto'`` is computed
    at the ``mu`` they leave, so it may take a few steps fewer than planned
    (at a slightly higher rate): the search's check of each run's ledger then
    decides, and refuses a run above the plan.

    Parameters
    ----------
    estimator : skdp estimator
        With its parameters set (``delta`` may be ``'auto'``).
    n_rows : int
        Rows it will be fitted on (public).
    n_features : int or None, default=None
        Columns (public); None: unknown.

    Returns
    -------
    steps : tuple of (float, int) or None
        ``(q, T)``, or None when the fit takes no subsampled step.
    only : bool
        False when the fit may also run a solver without subsampling (its
        plan then covers both).

    Examples
    --------
    >>> from skdp import KLAdaptiveRegressor
    >>> subsampled_steps(KLAdaptiveRegressor(solver="dpsgd_poisson"), 1000, 5)
    ((0.04, 100), True)
    >>> subsampled_steps(KLAdaptiveRegressor(), 1000, 5)
    (None, True)
    """
    from .minimax import PrivateMinimaxClassifier
    from .regression import KLAdaptiveRegressor
    from .solvers.kl.subsampled import DPSGD_POISSON_STEPS
    from .solvers.minimax.subsampled import auto_passes, auto_poisson_steps
    from . import minimax, regression
    from .solvers.shared.subsampling import SAMPLING_PASSES, sampling_rate

    if not isinstance(estimator, (KLAdaptiveRegressor, PrivateMinimaxClassifier)):
        return None, True
    eps = float(estimator.epsilon)
    if math.isinf(eps):
        return None, True
    solver = estimator.solver
    specs = (regression.SOLVER_SPECS if isinstance(estimator, KLAdaptiveRegressor)
             else minimax.SOLVER_SPECS)
    rule = specs["dpsgd_poisson"].auto_from  # 'auto''s shape rule (None: never by shape)
    large = n_features is None or (rule is not None and rule.applies(n_rows,
                                                                     n_rows * n_features))
    if isinstance(estimator, KLAdaptiveRegressor):
        auto = solver == "auto" and estimator.model == "linear" and large
    else:
        auto = solver == "auto" and large
    if solver != "dpsgd_poisson" and not auto:
        return None, True
    option = (estimator.solver_options or {}).get("sampling_rate")
    passes = SAMPLING_PASSES
    if isinstance(estimator, KLAdaptiveRegressor):
        steps = int(estimator.max_iter or DPSGD_POISSON_STEPS)
    elif estimator.n_iter == "auto":
        delta = float(resolve_delta(estimator.delta, eps, estimator.accountant))
        steps = auto_poisson_steps(n_rows, approx_dp_to_gdp(eps, delta))[0]
        passes = auto_passes(n_rows, steps)
    else:
        steps = int(estimator.n_iter)
    return (sampling_rate(option, steps, passes=passes), steps), solver == "dpsgd_poisson"


def fit_rdp_bound(estimator, n_rows, n_features=None, orders=RDP_ORDERS):
    """The RDP curve that a fit of a private estimator stays within, from its parameters.

    A fit without Poisson-subsampled steps: ``fit_rho_bound(estimator) * lam``
    (zCDP). A fit with ``T`` subsampled steps at rate ``q``
    (:func:`subsampled_steps`) spends its ``(epsilon, delta)`` on a ledger of
    Gaussian-type releases and the steps, whose noise multiplier ``z`` is the
    smallest that keeps the whole ledger within ``(epsilon, delta)``
    (:func:`~skdp.privacy.ledger.subsampled_noise_within`). The other
    releases of these solvers are Gaussian, ``mu_g``-GDP together with
    ``mu_g <= approx_dp_to_gdp(epsilon, delta)``, and ``z`` grows with
    ``mu_g``; the curve is the largest of
    ``lam m_{i+1}**2 / 2 + T eps_step(lam; z(m_i), q)`` over a grid of
    ``m_i`` (``eps_step`` the replace-one curve of
    :func:`~skdp.privacy.rdp.subsampled_gaussian_rdp`), which bounds every
    split of the budget between them.
    :class:`PrivateHyperparameterSearch` checks every run's ledger against it
    (:func:`~skdp.privacy.rdp.ledger_rdp`).

    Parameters
    ----------
    estimator : skdp estimator
        Has ``epsilon`` and ``delta`` parameters.
    n_rows : int
        Rows it will be fitted on (public).
    n_features : int or None, default=None
        Columns (public); None: unknown.
    orders : array-like of float, default=RDP_ORDERS
        Renyi orders ``> 1``.

    Returns
    -------
    rdp : ndarray
        ``eps(lam)`` at each order.

    Examples
    --------
    >>> from skdp import KLAdaptiveRegressor
    >>> plain = fit_rdp_bound(KLAdaptiveRegressor(delta=1e-6), 1000, 5, orders=[2.0])
    >>> sub = fit_rdp_bound(KLAdaptiveRegressor(delta=1e-6, solver="dpsgd_poisson"), 1000, 5,
    ...                     orders=[2.0])
    >>> round(float(plain[0]), 4), bool(sub[0] > plain[0])
    (0.056, True)
    """
    lam = np.asarray(orders, dtype=float)
    rho = fit_rho_bound(estimator)
    zcdp = rho * lam
    plan, only = subsampled_steps(estimator, n_rows, n_features)
    if plan is None:
        return zcdp
    q, steps = plan
    eps = float(estimator.epsilon)
    delta = float(resolve_delta(estimator.delta, eps, getattr(estimator, "accountant", None)))
    curve = _subsampled_envelope(eps, delta, q, steps, tuple(lam.tolist()))
    return curve if only else np.maximum(curve, zcdp)


_SHARES = (0.0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.95, 1.0)
"""Grid of the Gaussian releases' share ``mu_g**2 / mu_max**2`` in :func:`_subsampled_envelope`."""


@functools.lru_cache(maxsize=64)
def _subsampled_envelope(eps, delta, q, steps, orders):
    """RDP curve bounding every ledger of Gaussian releases (``mu_g``-GDP together) and
    ``steps`` subsampled steps at rate ``q`` whose noise multiplier ``z(mu_g)`` is
    calibrated to keep it within ``(eps, delta)``.

    ``mu_g <= mu_max = approx_dp_to_gdp(eps, delta)`` (the Gaussian part alone is within
    the budget) and ``z`` grows with ``mu_g``. For ``mu_g`` between grid points
    ``m_i < m_{i+1}``, ``lam mu_g**2 / 2 <= lam m_{i+1}**2 / 2`` and the steps' curve is
    at most the one at ``z(m_i)``; the maximum over the intervals bounds every split. Near
    the Gaussian limit (many steps) every split spends about ``lam mu_max**2 / 2`` and the
    grid's widths (at most 0.15 of ``mu_max**2``) leave the bound about 15% above it."""
    lam = np.asarray(orders)
    mu_max = approx_dp_to_gdp(eps, delta)
    curve = np.zeros(lam.shape)
    for lo, hi in zip(_SHARES[:-1], _SHARES[1:]):
        planned = [] if lo == 0 else [(1.0, 1.0 / (mu_max * math.sqrt(lo)), 1)]
        z = subsampled_noise_within([], planned, q, steps, eps, delta)
        part = lam * hi * mu_max**2 / 2 + subsampled_gaussian_rdp(z, q, lam, steps=steps)
        curve = np.maximum(curve, part)
    return curve


def _public_shape(X):
    """``(n_rows, n_features)`` from the container's shape, without reading a row's values
    (``n_features`` None where the container does not say)."""
    n = _num_samples(X)
    try:
        d = int(_num_features(X))
    except (TypeError, ValueError):
        d = None
    return n, d


def _private_parts(estimator):
    """(parameter prefix, object) of the skdp estimators in ``estimator`` (itself or nested)."""
    if isinstance(estimator, PrivacyMixin):
        return [("", estimator)]
    return [(name + "__", value) for name, value in estimator.get_params(deep=True).items()
            if isinstance(value, PrivacyMixin)]


def _learned_public_parts(estimator):
    """Names of nested estimators that are fit on the data without privacy."""
    if isinstance(estimator, PrivacyMixin):
        return []
    out = []
    for name, value in estimator.get_params(deep=True).items():
        if (isinstance(value, BaseEstimator) and not isinstance(value, PrivacyMixin)
                and not _private_parts(value) and get_tags(value).requires_fit):
            out.append(name)
    return out


class PrivateHyperparameterSearch(PrivacyMixin, MetaEstimatorMixin, BaseEstimator):
    """Private random search: the best of a random number of private runs.

    Random-stopping private hyperparameter tuning of Papernot and Steinke 2022
    [1]_ (which extends Liu and Talwar 2019 [2]_). The rows are split once,
    at random and independently of their values, into a training part and a
    validation part. Then the number of runs ``K`` is drawn, independently of
    the data, from a truncated negative binomial distribution (PS22 Def. 1;
    ``eta = 0`` logarithmic, ``eta = 1`` geometric as in Liu–Talwar) or a
    Poisson distribution, with mean ``mean_runs``. Each run draws
    hyperparameters from ``param_distributions``, fits a clone of
    ``estimator`` (an skdp estimator, or a pipeline containing them) on the
    training part, and scores it on the validation part with Gaussian noise.
    Only the best-scoring run is released.

    **Privacy.** One run is ``rho``-zCDP with
    ``rho = max(rho_fit, score_rho)``: the fit (``rho_fit``, the largest
    :func:`fit_rho_bound` over the candidate privacy parameters, summed over
    the private steps) touches only training rows and the score only
    validation rows, so a replaced row (skdp's replace-one neighbours) is seen
    by one of them (parallel composition). A ``rho``-zCDP run is
    ``(lam, rho lam)``-RDP at every order. The release is then
    ``(lam, eps'(lam))``-RDP by PS22 **Theorem 2** (truncated negative
    binomial) or **Theorem 6** (Poisson), see
    :mod:`skdp.privacy.repeat_and_select`; ``refit=True`` composes one more
    ``rho_fit``-zCDP fit on all rows. The curve is converted to
    ``(epsilon, delta)`` with ``delta`` the ``delta`` parameter
    (Canonne–Kamath–Steinke 2020, Prop. 12). That total is computed and checked
    against the accountant **before the data are touched**, charged to it as
    one spend after the search, and stated in ``privacy_spent_``.

    **Runs with Poisson-subsampled steps** (``solver='dpsgd_poisson'``, given
    or chosen by ``solver='auto'``: from ``n_samples * n_features >= 1e7`` or from
    ``5e4`` rows for the regressor, ``1e5`` for the classifier) have
    no useful zCDP bound: they are accounted by their RDP curve instead, at
    the orders of :data:`skdp.privacy.rdp.RDP_ORDERS`. Before any row is read
    the search plans each candidate's curve from its public parameters and the
    shape of ``X`` (:func:`fit_rdp_bound`: the replace-one curve of the
    subsampled Gaussian steps, calibrated as the solver calibrates them, plus
    the fit's Gaussian releases); the run's curve is the larger of it and the
    score's ``score_rho lam`` (``score_rho=None``: the largest one under the
    fit's curve), the two theorems are applied order by order, and each run's
    ledger is checked against the plan at every order
    (:func:`~skdp.privacy.rdp.ledger_rdp`). The parameters that set the steps
    (``solver``, ``max_iter``, ``n_iter``, ``solver_options``, ``model``)
    must then be lists, like the privacy parameters.

    **What is released.** PS22's bounds are for the best run's output alone,
    with ``K`` hidden and the other runs discarded, so the search exposes
    nothing else: ``best_estimator_``, ``best_params_`` and ``best_score_``
    (the best run), and ``run_rho_``, ``run_rdp_``, ``score_sigma_``,
    ``privacy_spent_``, ``privacy_method_`` (functions of the public parameters and ``n``). Each
    run (and the refit) is charged to its own throw-away accountant and drawn
    its own seed, both discarded with the run: ``best_estimator_`` has the
    parameters of ``estimator`` with ``best_params_`` set (its ``accountant``,
    ``random_state`` and ``verbose`` are yours, not the run's: a released seed
    would let anyone replay the fit's noise), and its ``privacy_ledger_`` and
    ``privacy_spent_`` are its own fit's. The losing runs' models, scores and
    ledgers are dropped; the inner fits print nothing, and their warnings
    are collected and each distinct one re-emitted once after the search
    (their number would count the runs). Not covered: the search's running
    time (which grows with ``K``), and a warning or error that depends on a
    losing run's data. ``reveal_n_runs=True`` publishes ``K`` as ``n_runs_``
    (with per-run verbose lines and warnings), which voids the guarantee.

    Parameters
    ----------
    estimator : estimator object
        An skdp estimator with ``predict``, or a pipeline whose learned steps
        are skdp estimators (a step learned without privacy, such as
        ``StandardScaler``, voids the guarantee and raises a
        :class:`~skdp.PrivacyLeakWarning`).
    param_distributions : dict or list of dicts
        As in :class:`~sklearn.model_selection.RandomizedSearchCV`: lists are
        sampled uniformly, objects with ``rvs`` by their method; each run
        samples independently (with replacement). Privacy parameters
        (``epsilon``, ``delta``, ``<step>__epsilon``...) must be lists.
    mean_runs : float, default=10.0
        ``E[K]``, the expected number of runs, > 1.
    distribution : {'truncated_negative_binomial', 'poisson'}, default='truncated_negative_binomial'
        Law of ``K``. A Poisson ``K`` is 0 with probability ``exp(-mean_runs)``;
        then nothing is fitted and the search has no best estimator.
    eta : float, default=0.0
        Shape ``eta > -1`` of the truncated negative binomial (0: logarithmic,
        1: geometric). Smaller is cheaper in privacy (the ``(1 + eta)`` factor
        of Theorem 2) but gives a heavier tail of ``K``.
    scoring : {'accuracy', 'neg_mean_squared_error', 'neg_mean_absolute_error'}, default=None
        Validation score (higher is better). None: accuracy for classifiers,
        ``neg_mean_squared_error`` otherwise. Per-row errors are clipped to
        ``[0, score_bound]``, so the mean has replace-one sensitivity
        ``score_bound / n_val`` (``1 / n_val`` for accuracy).
    score_bound : float, default=1.0
        Public bound on one row's error (regression scores).
    score_rho : float, default=None
        The zCDP of the noisy validation score (noise
        ``sensitivity / sqrt(2 score_rho)``). None: ``rho_fit``, which costs
        nothing extra (parallel composition, above).
    validation_fraction : float, default=0.2
        Share of the rows held out for scoring.
    refit : bool, default=False
        Refit the best hyperparameters on all rows (one more fit, accounted).
        If False, ``best_estimator_`` is the model fitted on the training part.
    delta : float or 'auto', default='auto'
        The delta of the stated total ``(epsilon, delta)``; in (0, 1).
        ``'auto'``: the accountant's share (resolved into ``delta_``),
        :meth:`BudgetAccountant.default_delta <skdp.BudgetAccountant.default_delta>`
        at the search's epsilon, that epsilon computed at the accountant's
        whole delta cap (a lower bound on it, so the share of delta taken is
        at most the one that matches the search's epsilon); 1e-6 on an
        accountant without a delta limit. A privacy parameter of the runs'
        estimator left at ``'auto'`` is resolved with that estimator's
        ``accountant`` (as :func:`fit_rho_bound` does), and each run uses it.
    accountant : BudgetAccountant, default=None
        Charged the search's total once; None: the default accountant.
    random_state : int, Generator, RandomState instance or None, default=None
        Seeds the split, ``K``, the sampled hyperparameters, the score noise and
        each run's estimator (its ``random_state`` parameters are overridden so
        that the runs are independent, as the theorems require).
    verbose : int, default=0
        When > 0, print one line after the search (the best noisy score and
        the spend), and nothing per run unless ``reveal_n_runs=True``.
    reveal_n_runs : bool, default=False
        Release the number of runs ``K`` as ``n_runs_``, print one line per
        run (with ``verbose``) and let the inner fits print and warn as they
        go. For studying the search (benchmarks, tests) only: the
        Papernot–Steinke bound needs ``K`` hidden, so with it
        ``privacy_spent_`` no longer bounds what is released, and ``fit``
        warns with a :class:`~skdp.PrivacyLeakWarning`.

    Attributes
    ----------
    best_estimator_ : estimator or None
        The released model (None if ``K = 0``).
    best_params_ : dict or None
        Its hyperparameters.
    best_score_ : float or None
        Its noisy validation score.
    n_runs_ : int
        Only with ``reveal_n_runs=True``: the number ``K`` of runs drawn (not
        covered by the guarantee).
    run_rho_ : float
        zCDP of one run (fit and score); nan when the runs take
        Poisson-subsampled steps (accounted by ``run_rdp_``).
    run_rdp_ : dict
        Renyi order -> the RDP of one run at it (``run_rho_ * order`` for zCDP
        runs), public.
    score_sigma_ : float
        Standard deviation of the score noise.
    delta_ : float
        The delta of the search: ``delta``, or what ``'auto'`` resolved to.
    privacy_spent_ : tuple of (float, float)
        The total ``(epsilon, delta)`` of the search, charged to the accountant.
    privacy_method_ : str
        The theorem that gave it.
    n_features_in_ : int
        From the best estimator.

    See Also
    --------
    sklearn.model_selection.RandomizedSearchCV : The non-private search.

    Notes
    -----
    The total is a worst case over the candidates: a grid over ``epsilon``
    costs as if every run used the largest one.

    References
    ----------
    .. [1] N. Papernot, T. Steinke. Hyperparameter tuning with Renyi
       differential privacy. ICLR 2022 (arXiv:2110.03620), Definition 1,
       Theorems 2 and 6.
    .. [2] J. Liu, K. Talwar. Private selection from private candidates.
       STOC 2019.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from skdp import BudgetAccountant, PrivateMinimaxClassifier
    >>> from skdp.model_selection import PrivateHyperparameterSearch
    >>> X, y = make_classification(n_samples=2000, n_features=5, random_state=0)
    >>> acc = BudgetAccountant(epsilon=5.0, delta=1e-5)
    >>> search = PrivateHyperparameterSearch(
    ...     PrivateMinimaxClassifier(epsilon=0.5, group_sizes=[800, 800]),
    ...     {"solver": ["noisy_gd", "sgda"], "n_iter": [10, 50]}, mean_runs=3,
    ...     accountant=acc, random_state=0).fit(X / 5, y, classes=[0, 1])
    >>> eps, delta = search.privacy_spent_
    >>> round(eps, 3), f"{delta:.2g}"  # delta='auto': the accountant's share
    (0.843, '2.2e-07')
    >>> acc.total() == search.privacy_spent_
    True
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "param_distributions": [dict, list],
        "mean_runs": [Interval(Real, 1, 1e6, closed="neither")],
        "distribution": [StrOptions({"truncated_negative_binomial", "poisson"})],
        "eta": [Interval(Real, -1, 1e6, closed="neither")],
        "scoring": [StrOptions(set(SCORINGS)), None],
        "score_bound": BOUND_CONSTRAINT,
        "score_rho": [Interval(Real, 0, 1e10, closed="neither"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "refit": ["boolean"],
        "delta": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "accountant": ACCOUNTANT_CONSTRAINT,
        "random_state": ["random_state", np.random.Generator],
        "verbose": ["verbose"],
        "reveal_n_runs": ["boolean"],
    }

    def __init__(self, estimator, param_distributions, *, mean_runs=10.0,
                 distribution="truncated_negative_binomial", eta=0.0, scoring=None,
                 score_bound=1.0, score_rho=None, validation_fraction=0.2, refit=False,
                 delta="auto", accountant=None, random_state=None, verbose=0,
                 reveal_n_runs=False):
        self.estimator = estimator
        self.param_distributions = param_distributions
        self.mean_runs = mean_runs
        self.distribution = distribution
        self.eta = eta
        self.scoring = scoring
        self.score_bound = score_bound
        self.score_rho = score_rho
        self.validation_fraction = validation_fraction
        self.refit = refit
        self.delta = delta
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose
        self.reveal_n_runs = reveal_n_runs

    # -- privacy, all before the data ----------------------------------------
    def _candidate_list(self):
        spaces = self.param_distributions
        spaces = [spaces] if isinstance(spaces, dict) else list(spaces)
        if not spaces or not all(isinstance(s, dict) for s in spaces):
            raise ValueError("param_distributions must be a dict or a non-empty list of dicts.")
        valid = self.estimator.get_params(deep=True)
        for space in spaces:
            for key, values in space.items():
                if key not in valid:
                    raise ValueError(f"param_distributions: {key!r} is not a parameter of "
                                     f"{type(self.estimator).__name__}.")
                if not (hasattr(values, "rvs") or
                        (isinstance(values, (list, tuple, np.ndarray)) and len(values))):
                    raise ValueError(f"param_distributions[{key!r}] must be a non-empty list "
                                     f"or have an rvs method, got {values!r}.")
        return spaces

    def _fit_plan(self, spaces, n_train, n_all, n_features):
        """What one fit may spend, over the candidates' privacy parameters (and the
        parameters that set a run's subsampled steps): ``(rho, curve, refit_curve)``,
        ``rho`` the largest zCDP bound (:func:`fit_rho_bound`, summed over the private
        steps), ``curve`` None when no candidate takes Poisson-subsampled steps, else
        the largest RDP curve of a fit on ``n_train`` rows (:func:`fit_rdp_bound`) and
        ``refit_curve`` that of a fit on all ``n_all`` rows."""
        worst, curve, refit_curve, sampled_plan = 0.0, None, None, []
        for space in spaces:
            grid = {}
            for key, values in space.items():
                last = key.rsplit("__", 1)[-1]
                is_estimator = (not hasattr(values, "rvs")
                                and any(isinstance(v, BaseEstimator) for v in values))
                if last in _PRIVACY_PARAMS or is_estimator:
                    if hasattr(values, "rvs"):
                        raise ValueError(f"param_distributions[{key!r}]: privacy parameters "
                                         "must be a list (the total is a maximum over them).")
                    grid[key] = list(values)
                elif last in _PLAN_PARAMS:
                    if hasattr(values, "rvs"):
                        sampled_plan.append(key)
                    else:
                        grid[key] = list(values)
            for point in ParameterGrid(grid):
                est = clone(self.estimator).set_params(**point)
                parts = _private_parts(est)
                if not parts:
                    raise ValueError(f"{type(est).__name__} has no skdp estimator: its fit is "
                                     "not private, so the search cannot be.")
                leaked = _learned_public_parts(est)
                if leaked:
                    warnings.warn(f"steps {leaked} are fit on the private data without privacy: "
                                  "the search is not differentially private. Use stateless "
                                  "or skdp steps.", PrivacyLeakWarning, stacklevel=3)
                worst = max(worst, sum(fit_rho_bound(p) for _, p in parts))
                if any(subsampled_steps(p, n_train, n_features)[0] is not None
                       or subsampled_steps(p, n_all, n_features)[0] is not None
                       for _, p in parts):
                    if sampled_plan:
                        raise ValueError(
                            f"param_distributions{sampled_plan}: a run takes Poisson-subsampled "
                            "steps (dpsgd_poisson), whose privacy depends on these parameters; "
                            "give them as lists (the total is a maximum over them).")
                    one = sum(fit_rdp_bound(p, n_train, n_features, _ORDERS) for _, p in parts)
                    full = sum(fit_rdp_bound(p, n_all, n_features, _ORDERS) for _, p in parts)
                    curve = one if curve is None else np.maximum(curve, one)
                    refit_curve = full if refit_curve is None else np.maximum(refit_curve, full)
        if curve is not None:  # the zCDP candidates too, as curves
            curve = np.maximum(curve, worst * _ORDERS)
            refit_curve = np.maximum(refit_curve, worst * _ORDERS)
        return worst, curve, refit_curve

    def _privacy_plan(self, n_train, n_all, n_features):
        spaces = self._candidate_list()
        fit_rho, fit_curve, refit_curve = self._fit_plan(spaces, n_train, n_all, n_features)
        eta = 0.0 if self.distribution == "poisson" else float(self.eta)
        if fit_curve is None:  # every run is zCDP: the closed forms of Theorems 2 and 6
            score_rho = fit_rho if self.score_rho is None else float(self.score_rho)
            if score_rho == 0 or math.isinf(score_rho):
                raise ValueError("score_rho must be finite and > 0 (with score_rho=None it is "
                                 f"the fit's rho, here {fit_rho}): give score_rho.")
            run_rho = max(fit_rho, score_rho)
            run_curve = run_rho * _ORDERS

            def epsilon_at(delta):
                return repeat_and_select_epsilon(run_rho, delta, float(self.mean_runs), eta,
                                                 self.distribution,
                                                 fit_rho if self.refit else 0.0)
        else:  # a run takes Poisson-subsampled steps: the runs' RDP curves
            # score_rho=None: the largest rho whose curve stays under the fit's (free)
            score_rho = (float(np.min(fit_curve / _ORDERS)) if self.score_rho is None
                         else float(self.score_rho))
            if not (0 < score_rho < math.inf):
                raise ValueError("score_rho must be finite and > 0: give score_rho.")
            run_rho = math.nan
            run_curve = np.maximum(fit_curve, score_rho * _ORDERS)

            def epsilon_at(delta):
                return repeat_and_select_epsilon_curve(
                    _ORDERS, run_curve, delta, float(self.mean_runs), eta, self.distribution,
                    refit_curve if self.refit else None)

        if isinstance(self.delta, str):  # 'auto': its epsilon depends on it, so one step:
            accountant = BudgetAccountant.resolve(self.accountant)  # the share of the epsilon
            whole = accountant.default_delta(math.inf)  # at the whole cap, a lower bound
            self.delta_ = float(accountant.default_delta(epsilon_at(whole)))
            if self.delta_ == 0:
                raise ValueError("delta='auto' gives 0 on this accountant (its delta cap is 0); "
                                 "the search needs delta > 0: give the accountant a delta "
                                 "budget.")
        else:
            self.delta_ = float(self.delta)
        eps = epsilon_at(self.delta_)
        theorem = ("Papernot-Steinke 2022 Thm 6 (Poisson K)" if self.distribution == "poisson"
                   else f"Papernot-Steinke 2022 Thm 2 (truncated negative binomial K, eta={eta:g})")
        if fit_curve is not None:
            theorem += (" on the runs' RDP curves (Poisson-subsampled Gaussian steps, "
                        "replace-one)")
        if self.refit:
            theorem += (" + zCDP composition of the refit" if fit_curve is None
                        else " + RDP composition of the refit")
        fit_plan = ("zcdp", fit_rho) if fit_curve is None else ("rdp", fit_curve)
        refit_plan = ("zcdp", fit_rho) if fit_curve is None else ("rdp", refit_curve)
        return (spaces, fit_plan, refit_plan, score_rho, run_rho, run_curve, float(eps),
                theorem)

    # -- fitting -----------------------------------------------------------------
    def fit(self, X, y, **fit_params):
        """Run the private search and keep the best run.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (split into training and validation rows).
        y : array-like of shape (n_samples,)
            Targets.
        **fit_params : dict
            Passed to every ``fit`` of the estimator (row-indexed ones are split).

        Returns
        -------
        self : object
            The fitted search.
        """
        return self._fit_atomically(X, y, **fit_params)

    def _fit(self, X, y, **fit_params):
        self._validate_params()
        accountant = BudgetAccountant.resolve(self.accountant)
        n, n_features = _public_shape(X)  # public: the container's shape, no row is read
        n_val = int(round(self.validation_fraction * n))
        if n_val < 1 or n - n_val < 1:
            raise ValueError(f"validation_fraction={self.validation_fraction} of n={n} samples "
                             "leaves no training or no validation rows.")
        (spaces, fit_plan, refit_plan, score_rho, run_rho, run_curve, eps,
         theorem) = self._privacy_plan(n - n_val, n, n_features)
        seed = noise_seed(self.random_state)  # before rng draws from a RandomState
        # before the data are touched: with a budget store, check and hold in one transaction
        token = accountant.reserve(eps, self.delta_, label=type(self).__name__, seed=seed)
        self._reservation = (accountant, token)
        if self.reveal_n_runs:
            warnings.warn("reveal_n_runs=True releases the number of runs K (n_runs_, per-run "
                          "output): the Papernot-Steinke bound holds only with K hidden, so "
                          "privacy_spent_ does not bound this release.",
                          PrivacyLeakWarning, stacklevel=3)
        self._reading_data()
        X, y = indexable(X, y)
        if y is None:
            raise ValueError("PrivateHyperparameterSearch requires y to be passed, but the "
                             "target y is None (it scores predictions).")
        warn_large_delta(self.delta_, n)
        rng = make_rng(self.random_state)
        perm = rng.permutation(n)  # independent of the rows' values
        val, train = perm[:n_val], perm[n_val:]
        scoring = self.scoring or ("accuracy" if is_classifier(self.estimator)
                                   else "neg_mean_squared_error")
        sensitivity = (1.0 if scoring == "accuracy" else float(self.score_bound)) / n_val
        sigma = sensitivity / math.sqrt(2.0 * score_rho)
        eta = 0.0 if self.distribution == "poisson" else float(self.eta)
        n_runs = sample_repetitions(rng, float(self.mean_runs), eta, self.distribution)
        # each run's score is a Gaussian release, recorded in a ledger of its own that never
        # leaves the search (its length is K); the search's privacy is the theorem's (above),
        # not a filter's: a budget whose GDP cap (inf) admits any number of runs
        scores = Budget.for_fit(Backend(np, None, rng), math.inf, self.delta_, math.inf,
                                mu=math.inf)
        train_params = _split_params(fit_params, train, n)
        with _runs_warnings(hidden=not self.reveal_n_runs):
            best = (None, None, None)
            for run in range(n_runs):
                params = _sample(spaces, rng)
                est = self._run_fit(params, rng, X, y, train, train_params, fit_plan)
                raw = _score(est, _safe_indexing(X, val), _safe_indexing(y, val), scoring,
                             float(self.score_bound))
                noisy = scores.gaussian_gdp(raw, sensitivity, sigma, label="validation score")
                if self.verbose and self.reveal_n_runs:
                    print(f"[PrivateHyperparameterSearch] run {run + 1}: noisy score {noisy:.4g}")
                if best[0] is None or noisy > best[0]:
                    best = (noisy, params, est)
            score, params, est = best
            if self.refit and est is not None:
                est = self._run_fit(params, rng, X, y, np.arange(n), fit_params,
                                    refit_plan)
        if est is not None:
            self._drop_run_traces(est, params)
        self.__dict__.pop("_reservation", None)
        accountant.charge(token, eps, self.delta_, label=type(self).__name__, seed=seed)
        if n_runs == 0:
            warnings.warn("K = 0 runs were drawn (Poisson): the search released nothing.",
                          UserWarning, stacklevel=3)
        self.best_estimator_ = est
        self.best_params_ = params
        self.best_score_ = None if score is None else float(score)
        self.__dict__.pop("n_runs_", None)
        if self.reveal_n_runs:
            self.n_runs_ = int(n_runs)
        self.run_rho_ = float(run_rho)
        self.run_rdp_ = {float(a): float(v) for a, v in zip(_ORDERS, run_curve)}
        self.score_sigma_ = float(sigma)
        self.privacy_spent_ = (eps, self.delta_)
        self.privacy_method_ = theorem
        if self.verbose:
            print(f"[PrivateHyperparameterSearch] done: best noisy score {self.best_score_}, "
                  f"privacy spent {self.privacy_spent_}")
        return self

    def _run_keys(self, est):
        """The parameters the search sets for each run: every private part's
        accountant, every seed and, with K hidden, every ``verbose``."""
        hidden = () if self.reveal_n_runs else ("verbose",)
        keys = [prefix + "accountant" for prefix, _ in _private_parts(est)]
        return keys + [key for key in est.get_params(deep=True)
                       if key.rsplit("__", 1)[-1] in ("random_state", *hidden)]

    def _run_fit(self, params, rng, X, y, rows, fit_params, plan):
        """Fit one run with its own throw-away accountant and seed (independent runs).

        Estimators among the sampled values are cloned too: a run never fits (nor
        leaves its traces on) an object of ``param_distributions``."""
        est = clone(self.estimator).set_params(**clone(params, safe=False))
        overrides = {prefix + "delta": float(resolve_delta("auto", part.epsilon, part.accountant))
                     for prefix, part in _private_parts(est)  # as fit_rho_bound: the user's
                     if isinstance(part.delta, str)}  # accountant, before the run's replaces it
        for key in self._run_keys(est):
            name = key.rsplit("__", 1)[-1]
            if name == "accountant":
                overrides[key] = BudgetAccountant()  # discarded with the run
            elif name == "random_state":
                overrides[key] = int(rng.integers(2**31 - 1))
            else:
                overrides[key] = False  # verbose: a fit's output per run would count them
        est.set_params(**overrides)
        est.fit(_safe_indexing(X, rows), _safe_indexing(y, rows), **fit_params)
        entries = []
        for _, part in _private_parts(est):
            ledger = part.privacy_ledger_
            if not ledger.is_zcdp:
                raise RuntimeError(f"{type(part).__name__} released a mechanism without a zCDP "
                                   "or RDP guarantee: PrivateHyperparameterSearch cannot "
                                   "account it.")
            entries.extend(ledger.entries)
        _check_within_plan(entries, plan)
        return est

    def _drop_run_traces(self, est, params):
        """Give the released model the user's accountant, seeds and verbosity back: the
        run's accountant and seed must not leave the search (they reveal K, and the seed
        the fit's noise). A streaming part's live stream (its noise generator and past
        noise: secret) is dropped too; its ``partial_fit`` then refuses."""
        user = clone(self.estimator).set_params(**params).get_params(deep=True)
        autos = [prefix + "delta" for prefix, _ in _private_parts(est)
                 if isinstance(user.get(prefix + "delta"), str)]  # back to 'auto'
        est.set_params(**{key: user.get(key) for key in self._run_keys(est) + autos})
        for _, part in _private_parts(est):
            if hasattr(part, "_forget_stream"):
                part._forget_stream()

    # -- the released model --------------------------------------------------------
    def _best(self):
        check_is_fitted(self)
        if self.best_estimator_ is None:
            raise NotFittedError("the search drew K = 0 runs and has no best estimator.")
        return self.best_estimator_

    @available_if(_estimator_has("predict"))
    def predict(self, X):
        """Predict with the best estimator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predictions.
        """
        return self._best().predict(X)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities from the best estimator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities.
        """
        return self._best().predict_proba(X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the best estimator.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray
            Margins.
        """
        return self._best().decision_function(X)

    def score(self, X, y):
        """Score of the best estimator on (public) test data, by its own ``score``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        score : float
            Accuracy for classifiers, R^2 for regressors.
        """
        return self._best().score(X, y)

    @property
    def classes_(self):
        """Class labels of the best estimator."""
        return self._best().classes_

    @property
    def n_features_in_(self):
        """Number of features seen by the best estimator."""
        return self._best().n_features_in_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        sub = get_tags(self.estimator)
        tags.estimator_type = sub.estimator_type
        tags.classifier_tags = deepcopy(sub.classifier_tags)
        tags.regressor_tags = deepcopy(sub.regressor_tags)
        tags.input_tags.sparse = sub.input_tags.sparse
        tags.target_tags.required = True
        return tags

    def _expected_failed_checks(self):
        inner = getattr(self.estimator, "_expected_failed_checks", dict)()
        return dict(inner)


def _check_within_plan(entries, plan):
    """A run's ledger stays within what the search planned before reading the data: its
    zCDP ``rho``, or (runs with Poisson-subsampled steps) its RDP curve at every order."""
    kind, bound = plan
    sampled = any(e.kind == "subsampled_gaussian" for e in entries)
    if kind == "zcdp":
        if sampled:
            raise RuntimeError("a run took Poisson-subsampled steps that the search did not "
                               "plan for (it plans them for the dpsgd_poisson solver of "
                               "KLAdaptiveRegressor and PrivateMinimaxClassifier only).")
        used = float(sum(e.count * e.rho for e in entries))
        if used > bound * (1 + 1e-9):
            raise RuntimeError(f"internal error: a fit spent rho={used} > the planned {bound}.")
        return
    used = ledger_rdp(entries, _ORDERS)
    over = used > bound * (1 + 1e-9) + 1e-12
    if np.any(over):
        i = int(np.argmax(over))
        raise RuntimeError(f"internal error: a fit's RDP at order {_ORDERS[i]:g} is "
                           f"{used[i]:.6g} > the planned {bound[i]:.6g}.")


def _sample(spaces, rng):
    """One candidate, drawn independently of earlier ones (uniform over the dicts)."""
    space = spaces[int(rng.integers(len(spaces)))]
    seed = int(rng.integers(2**31 - 1))
    return next(iter(ParameterSampler(space, n_iter=1, random_state=seed)))


def _split_params(fit_params, rows, n):
    return {k: (_safe_indexing(v, rows) if _num_samples_or_none(v) == n else v)
            for k, v in fit_params.items()}


def _num_samples_or_none(v):
    try:
        return _num_samples(v)
    except TypeError:
        return None


def _score(estimator, X, y, scoring, bound):
    """Exact validation score: mean of per-row scores in [0, 1] or [-bound, 0]."""
    pred = to_numpy(estimator.predict(X))
    y = to_numpy(y)
    if scoring == "accuracy":
        return float(np.mean(pred == y))
    err = np.abs(pred.astype(float) - y.astype(float))
    err = err**2 if scoring == "neg_mean_squared_error" else err
    return -float(np.mean(np.minimum(np.nan_to_num(err, nan=bound, posinf=bound), bound)))
