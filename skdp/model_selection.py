"""Private hyperparameter tuning: random search with a random number of runs.

:class:`~sklearn.model_selection.GridSearchCV` over skdp estimators is private
only at the composed cost of all its fits (``k`` candidates times ``c`` folds
fits, each charged to the :class:`~skdp.BudgetAccountant`), and its
``cv_results_`` release every candidate's non-private score.
:class:`PrivateHyperparameterSearch` releases only the best of a *random*
number of private runs, whose total cost Papernot and Steinke 2022 bound by
little more than one run's (see :mod:`skdp.privacy.selection`).
"""

from contextlib import contextmanager
from copy import deepcopy
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
from sklearn.utils.validation import _num_samples, check_is_fitted

from ._backend import Backend, make_rng, to_numpy
from ._base import PrivacyMixin, noise_seed, resolve_delta
from ._validation import ACCOUNTANT_CONSTRAINT, BOUND_CONSTRAINT
from ._validation import warn_large_delta
from .exceptions import PrivacyLeakWarning
from .privacy.accountant import BudgetAccountant
from .privacy.accounting import PrivacyLedger, approx_dp_to_gdp, approx_dp_to_zcdp, pure_rho
from .privacy.release import Release
from .privacy.selection import repeat_and_select_epsilon, sample_repetitions

__all__ = ["PrivateHyperparameterSearch", "fit_rho_bound"]

SCORINGS = ("accuracy", "neg_mean_squared_error", "neg_mean_absolute_error")
_PRIVACY_PARAMS = ("epsilon", "delta")


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
    :mod:`skdp.privacy.selection`; ``refit=True`` composes one more
    ``rho_fit``-zCDP fit on all rows. The curve is converted to
    ``(epsilon, delta)`` with ``delta`` the ``delta`` parameter
    (Canonne–Kamath–Steinke 2020, Prop. 12). That total is computed and checked
    against the accountant **before the data are touched**, charged to it as
    one spend after the search, and stated in ``privacy_spent_``.

    **What is released.** PS22's bounds are for the best run's output alone,
    with ``K`` hidden and the other runs discarded, so the search exposes
    nothing else: ``best_estimator_``, ``best_params_`` and ``best_score_``
    (the best run), and ``run_rho_``, ``score_sigma_``, ``privacy_spent_``,
    ``privacy_method_`` (functions of the public parameters and ``n``). Each
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
        zCDP of one run (fit and score).
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

    def _fit_rho(self, spaces):
        """Largest zCDP of one fit over the candidate privacy parameters."""
        worst = 0.0
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
        return worst

    def _privacy_plan(self):
        spaces = self._candidate_list()
        fit_rho = self._fit_rho(spaces)
        score_rho = fit_rho if self.score_rho is None else float(self.score_rho)
        if score_rho == 0 or math.isinf(score_rho):
            raise ValueError("score_rho must be finite and > 0 (with score_rho=None it is the "
                             f"fit's rho, here {fit_rho}): give score_rho.")
        run_rho = max(fit_rho, score_rho)
        eta = 0.0 if self.distribution == "poisson" else float(self.eta)

        def epsilon_at(delta):
            return repeat_and_select_epsilon(run_rho, delta, float(self.mean_runs), eta,
                                             self.distribution, fit_rho if self.refit else 0.0)

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
        if self.refit:
            theorem += " + zCDP composition of the refit"
        return spaces, fit_rho, score_rho, run_rho, float(eps), theorem

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
        spaces, fit_rho, score_rho, run_rho, eps, theorem = self._privacy_plan()
        seed = noise_seed(self.random_state)  # before rng draws from a RandomState
        # before the data are touched: with a ledger file, check and hold in one transaction
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
        n = _num_samples(X)
        warn_large_delta(self.delta_, n)
        n_val = int(round(self.validation_fraction * n))
        if n_val < 1 or n - n_val < 1:
            raise ValueError(f"validation_fraction={self.validation_fraction} of n={n} samples "
                             "leaves no training or no validation rows.")
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
        # leaves the search (its length is K); the search's privacy is the theorem's (above)
        scores = Release(Backend(np, None, rng), PrivacyLedger())
        train_params = _split_params(fit_params, train, n)
        with _runs_warnings(hidden=not self.reveal_n_runs):
            best = (None, None, None)
            for run in range(n_runs):
                params = _sample(spaces, rng)
                est = self._run_fit(params, rng, X, y, train, train_params, fit_rho)
                raw = _score(est, _safe_indexing(X, val), _safe_indexing(y, val), scoring,
                             float(self.score_bound))
                noisy = scores.gaussian(raw, sensitivity, sigma, label="validation score")
                if self.verbose and self.reveal_n_runs:
                    print(f"[PrivateHyperparameterSearch] run {run + 1}: noisy score {noisy:.4g}")
                if best[0] is None or noisy > best[0]:
                    best = (noisy, params, est)
            score, params, est = best
            if self.refit and est is not None:
                est = self._run_fit(params, rng, X, y, np.arange(n), fit_params, fit_rho)
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

    def _run_fit(self, params, rng, X, y, rows, fit_params, fit_rho):
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
        used = 0.0
        for _, part in _private_parts(est):
            ledger = part.privacy_ledger_
            if not ledger.is_zcdp:
                raise RuntimeError(f"{type(part).__name__} released a mechanism without a zCDP "
                                   "guarantee: PrivateHyperparameterSearch cannot account it.")
            used += ledger.rho
        if used > fit_rho * (1 + 1e-9):
            raise RuntimeError(f"internal error: a fit spent rho={used} > the planned {fit_rho}.")
        return est

    def _drop_run_traces(self, est, params):
        """Give the released model the user's accountant, seeds and verbosity back: the
        run's accountant and seed must not leave the search (they reveal K, and the seed
        the fit's noise)."""
        user = clone(self.estimator).set_params(**params).get_params(deep=True)
        autos = [prefix + "delta" for prefix, _ in _private_parts(est)
                 if isinstance(user.get(prefix + "delta"), str)]  # back to 'auto'
        est.set_params(**{key: user.get(key) for key in self._run_keys(est) + autos})

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


@contextmanager
def _runs_warnings(hidden):
    """While the runs fit: with K hidden, collect their warnings and re-emit each
    distinct one once at the end (how many there are would count the runs)."""
    if not hidden:
        yield
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    seen = set()
    for w in caught:
        key = (w.category, str(w.message))
        if key not in seen:
            seen.add(key)
            warnings.warn(w.message, stacklevel=5)


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
