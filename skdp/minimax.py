"""Differentially private worst-group (minimax) linear classifier.

Papers: 002 (González, Guzmán, Paquette: private stochastic mirror descent for
saddle points, the max-loss problem of its §1.4) and 000 (Asi, Carmon,
Jambulapati, Jin, Sidford: bias-reduced estimators; its Alg. 6 and a
clipped, deterministic-sensitivity variant of it give the Euclidean solvers). See
``docs/user_guide/minimax.rst``.
"""

import math
from numbers import Integral, Real
from types import SimpleNamespace

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ._backend import Backend, array_api_compat, get_namespace, is_numpy, make_rng, to_numpy
from ._base import BudgetPlan, PrivateEstimator, Rows
from ._dask import check_dask_solver, check_finite
from ._partitions import is_dask_collection
from ._partial_fit import STREAM_CHUNKS, StreamingMixin, has_streaming_solver
from ._validation import (ACCOUNTANT_CONSTRAINT, BOUND_CONSTRAINT, DELTA_CONSTRAINT,
                          EPSILON_CONSTRAINT, warn_large_delta,
                          warn_privacy_leak)
from .privacy.ledger import approx_dp_to_gdp
from .privacy.clipping import (clip_factors, clip_overflowing_rows, row_bound_status,
                               row_clip_factors)
from .solvers.losses.classification import LOSSES
from .solvers.minimax.data import LinearData, PartitionedLinearData
from .solvers.minimax.common import MinimaxProblem, remaining_gdp
from .solvers.minimax.euclidean import NOISY_GD_OPTIONS, noisy_gd, sgda
from .solvers.goldstein.config import RADIUS_OPTION
from .solvers.goldstein.classifier import CLASSIFIER_GOLDSTEIN_OPTIONS, GOLDSTEIN_CLASSIFIERS
from .solvers.minimax.mirror import smd, smd_bias_reduced
from .solvers.minimax.mlmc import mlmc
from .solvers.minimax.subsampled import dpsgd_poisson
from .solvers.minimax.steps import CENTER_SHARE, LOSS_SHARE
from .solvers.shared.subsampling import (AUTO_ROWS_CLASSIFIER, AUTO_SUBSAMPLE,
                                         DPSGD_POISSON_OPTIONS)
from .solvers.streaming.classifier import STREAM_CLASSIFIERS
from .solvers.spec import (AutoFrom, SolverResult, SolverSpec, auto_by_size, auto_solvers,
                           choices_with, deprecated_names, solvers_with)
from .solvers.streaming.srgd import STREAM_OPTIONS

__all__ = ["FIT_BUDGET", "PrivateMinimaxClassifier", "SOLVER_SPECS", "GROUP_SIZE_SHARE",
           "SIZE_FLOOR_SDS", "UNKNOWN_LABEL_MESSAGE", "resolve_solver"]


_LEFT = "what the group sizes leave "  # of (epsilon, delta), when they are released
_GDP = _LEFT + "as mu-GDP (exact composition, Dong–Roth–Su Cor. 3.3, 2.13): "
_SHARES = (f"{CENTER_SHARE:.0%} of mu**2 to the feature mean (with an intercept), "
           f"{LOSS_SHARE:.0%} of the rest to the group losses (m > 1)")
_EXP = _LEFT + "on exponential-mechanism vertex draws (002 Thm 3.4), "
_STREAM = _LEFT + "as mu-GDP: the whole stream one Gaussian mechanism (Denisov et al. 2022 Thm 2.1"
_RAMP = _LEFT + "as rho = mu**2 / 2 zCDP: "
_STREAM_PAPERS = {"srgd": "paper 003 Alg. 1, Lemma 4.3, Thm 4.10",
                  "srg_memf": "paper 003 Alg. 3 (noise added once per step, not twice)",
                  "memf": "paper 003 Alg. 2 (DP-FTRL / matrix factorisation)",
                  "dpsgd": "DP-SGD, independent noise, one pass (paper 003 baseline)"}
_CERTIFICATE = (("goldstein_certificate_", "certificate"), ("goldstein_config_", "config"))

_LOGISTIC = ("logistic",)  # the loss of every solver but paper 001's (ramp)
_RAMP_LOSS = ("ramp",)

_GOLDSTEIN_OPTIONS = CLASSIFIER_GOLDSTEIN_OPTIONS + (RADIUS_OPTION,)

SOLVER_SPECS = {
    "noisy_gd": SolverSpec(
        "noisy_gd", noisy_gd, "minimax",
        "noisy GD on the smoothed worst-group loss (skdp; paper 000 has no private Sec. 4.2)",
        _GDP + _SHARES + " (one release per step), the rest to T equal gradient steps",
        options=NOISY_GD_OPTIONS, dask=True, auto=True, losses=_LOGISTIC),
    "sgda": SolverSpec(
        "sgda", sgda, "minimax",
        "DP stochastic gradient descent-ascent (Euclidean analogue of paper 002 Alg. 1)",
        _GDP + _SHARES + ", the rest to the gradients; per epoch one release of each "
        "(disjoint batches: parallel composition)", losses=_LOGISTIC),
    "dpsgd_poisson": SolverSpec(
        "dpsgd_poisson", dpsgd_poisson, "minimax",
        "DP-SGD with Poisson sampling (Abadi et al. 2016, Alg. 1); PLD accounting",
        "centring as noisy_gd (Gaussian, GDP share of mu); T Poisson-subsampled Gaussian "
        "releases of the gradient and group-loss sums (one mechanism per step) at the noise "
        "multiplier that makes the ledger's PLD composition spend exactly epsilon",
        options=DPSGD_POISSON_OPTIONS, dask=True, auto=True, losses=_LOGISTIC,
        auto_from=AutoFrom(rows=AUTO_ROWS_CLASSIFIER, size=AUTO_SUBSAMPLE)),
    "smd": SolverSpec(
        "smd", smd, "minimax", "paper 002 Alg. 1, Prop. 3.3 (theory=True: Thm 3.1)",
        _EXP + "all at the largest per-draw epsilon that composes within it "
        "(002 Cor. 3.6, Thm 3.5, bounded-range zCDP)", losses=_LOGISTIC),
    "smd_bias_reduced": SolverSpec(
        "smd_bias_reduced", smd_bias_reduced, "minimax",
        "paper 002 Alg. 2-3, Prop. 3.17 (constant corrected) (theory=True: Thm 3.14)",
        _EXP + "per-step epsilon 2 Delta_t, stopped by the fully adaptive filter (002 Thm 3.5)",
        losses=_LOGISTIC),
    "mlmc": SolverSpec(
        "mlmc", mlmc, "minimax", "paper 000 eq. (1), Alg. 6 (copies clipped: exact sensitivity)",
        _GDP + _SHARES + ", the rest to the models (phases in parallel: one release each)",
        losses=_LOGISTIC),
    **{name: SolverSpec(name, STREAM_CLASSIFIERS[name], "streaming", paper,
                        _STREAM + ("; tree: 003 Lemma 4.3)" if name == "srgd" else ")"),
                        options=STREAM_OPTIONS, streaming=True, dask=True, losses=_LOGISTIC)
       for name, paper in _STREAM_PAPERS.items()},
    "fo_single_pass": SolverSpec(
        "fo_single_pass", GOLDSTEIN_CLASSIFIERS["fo_single_pass"], "goldstein",
        "paper 001 Alg. 2 + 5, Thm 6.1", _RAMP + "one tree mechanism (001 Prop. 2.5)",
        options=_GOLDSTEIN_OPTIONS, auto=True, losses=_RAMP_LOSS,
        info_attributes=_CERTIFICATE),
    "zo_single_pass": SolverSpec(
        "zo_single_pass", GOLDSTEIN_CLASSIFIERS["zo_single_pass"], "goldstein",
        "paper 001 Alg. 2 + 3, Thm 3.1", _RAMP + "one tree mechanism (001 Prop. 2.5)",
        options=_GOLDSTEIN_OPTIONS, losses=_RAMP_LOSS,
        info_attributes=_CERTIFICATE),
    "zo_multi_pass": SolverSpec(
        "zo_multi_pass", GOLDSTEIN_CLASSIFIERS["zo_multi_pass"], "goldstein",
        "paper 001 Alg. 2 + 4, Thm 4.1",
        _RAMP + "K_a anchor and K_d difference Gaussian releases (001 Lemma 4.3)",
        options=_GOLDSTEIN_OPTIONS, losses=_RAMP_LOSS,
        info_attributes=_CERTIFICATE),
}
"""Every solver of :class:`PrivateMinimaxClassifier`: ``{name: SolverSpec}``.

Each is called as ``spec.fn(problem, budget, options)`` with a
:class:`~skdp.solvers.minimax.common.MinimaxProblem`, a
:class:`~skdp.privacy.budget.Budget` and ``spec.resolve_options(solver_options)``,
and returns a :class:`~skdp.solvers.spec.SolverResult` with ``solution = (coef,
intercept)`` and ``info['group_weights']``.

The facts the classifier decides by: ``losses`` (the paper-001 solvers alone fit
``loss='ramp'``), ``auto`` (what ``solver='auto'`` may run: :func:`resolve_solver`, and
``fo_single_pass`` for the ramp loss), ``dask`` (:meth:`PrivateMinimaxClassifier.fit` runs
them on Dask arrays; the streaming ones chunk by chunk of fixed size, as ``fit`` on the first
and ``partial_fit`` on each next one, calibrated from the row count:
:func:`skdp._dask.stream_blocks`), ``streaming`` and ``info_attributes``.
"""

__getattr__ = deprecated_names(__name__, {
    "RAMP_SOLVERS": (lambda: solvers_with(SOLVER_SPECS, loss="ramp"),
                     "solvers_with(SOLVER_SPECS, loss='ramp')"),
    "DASK_SOLVERS": (lambda: choices_with(SOLVER_SPECS, {"loss": "logistic"}, dask=True),
                     "choices_with(SOLVER_SPECS, {'loss': 'logistic'}, dask=True)"),
})


FIT_BUDGET = BudgetPlan("gdp", gdp_filter="exact", gdp_only=True)
"""The classifier's calibration (every solver): ``mu``-GDP with ``mu = approx_dp_to_gdp(epsilon,
delta)``, exactly (epsilon, delta)-DP (Dong–Roth–Su 2022, Cor. 2.13), with the zCDP image
``rho = mu**2 / 2``; a non-Gaussian zCDP release is refused (``gdp_only``). Every release is
Gaussian (GDP), an exponential-mechanism draw or a Poisson-subsampled step checked against the
ledger's (epsilon, delta), or a tree / matrix mechanism in GDP, so no zCDP conversion is
needed (:class:`~skdp._base.BudgetPlan`)."""

GROUP_SIZE_SHARE = 0.05
"""Share of the fit's ``mu**2`` (GDP) spent on the group sizes when they are not public.

Chosen on the real-table suite's validation splits (``benchmarks/minimax_diagnose.py``):
0.02 / 0.05 / 0.15 / 0.3 gave mean worst-class accuracy .576 / .607 / .603 / .585 over
seven tables at epsilon 0.5, 1, 5; the sizes only need to be good to a few percent.
"""

SIZE_FLOOR_SDS = 3.0
"""Released group sizes are floored at this many noise sds (post-processing)."""

UNKNOWN_LABEL_MESSAGE = ("y contains a label that is not in classes_ (the public classes). "
                         "Every label must be one of them; this message shows neither which "
                         "labels nor how many (they are private data).")
"""The one error a label outside the public classes gets, whatever the data."""
UNKNOWN_GROUP_MESSAGE = ("groups contains a label that is not in group_sizes. Every group must "
                         "be a key of group_sizes; this message shows neither which labels nor "
                         "how many (they are private data).")


def resolve_solver(n_samples, n_features, epsilon):
    """The solver ``solver="auto"`` runs.

    Rule (issues 18 and 31; measured in ``benchmarks/RESULTS.md``): ``"noisy_gd"``
    at ``epsilon = inf`` (its exact L-BFGS fit) and on a private fit below the
    shape of ``dpsgd_poisson``'s ``auto_from`` in ``SOLVER_SPECS``
    (:class:`~skdp.solvers.spec.AutoFrom`: ``n_samples >= AUTO_ROWS_CLASSIFIER =
    1e5`` or ``n_samples * n_features >= AUTO_SUBSAMPLE = 1e7``), else
    ``"dpsgd_poisson"``. On generated data (d = 100,
    n = 1e5 to 1e6, epsilon 1) ``dpsgd_poisson`` matched ``noisy_gd``'s
    accuracy with one group and ``sgda``'s worst-class accuracy with the
    classes as groups, 3 to 30 times faster than ``noisy_gd`` and up to 3
    times faster than ``sgda``; on the real-table suite's validation split it
    matched or beat ``noisy_gd`` from 1e5 rows (Fertility subsamples) and lost
    clearly on the small tables (HMDA, Default, Caravan). The l1 mirror-descent
    solvers of paper 002 and the MLMC solver of paper 000 are never chosen: at
    the sizes and budgets benchmarked they lose to the Euclidean ones.

    Scale path: ``noisy_gd`` reads all rows at each of its ``T`` (up to 200)
    steps; ``dpsgd_poisson`` about ``SAMPLING_PASSES = 4`` passes in all, beyond
    1e6 rows Poisson batches of 16,000 rows expected (``n_iter='auto'``:
    :func:`~skdp.solvers.minimax.subsampled.auto_passes`; Poisson batches gathered
    by index, ``X`` not copied), ``sgda`` one pass
    per epoch (5); all three hold ``X`` in memory. For data that do not fit,
    the streaming solvers (``partial_fit``, one pass over chunks) are the
    path.

    Examples
    --------
    >>> resolve_solver(1000, 30, 1.0), resolve_solver(10**6, 1000, 1.0)
    ('noisy_gd', 'dpsgd_poisson')
    >>> resolve_solver(10**6, 3, 1.0), resolve_solver(10**6, 3, float("inf"))
    ('dpsgd_poisson', 'noisy_gd')
    """
    if math.isinf(epsilon):
        return "noisy_gd"
    return auto_by_size(SOLVER_SPECS, n_samples, n_samples * n_features,
                        loss="logistic") or "noisy_gd"


class PrivateMinimaxClassifier(StreamingMixin, PrivateEstimator, ClassifierMixin,
                               BaseEstimator):
    """Linear classifier minimising the worst group's risk under differential privacy.

    Solves ``min_theta max_g L_g(theta)``, where ``L_g`` is the mean logistic
    (binary) or multinomial (``K > 2``) loss of group ``g``: by default the
    groups are the classes (worst-class risk, robust to unknown class priors);
    ``groups`` given to :meth:`fit` (demographic groups, say) override them;
    ``group_by=None`` gives one group, i.e. a plain DP logistic / multinomial
    classifier minimising the average risk.

    Read more in the :ref:`User Guide <minimax>`.

    **Privacy.** (epsilon, delta)-DP with respect to replacing one record
    ``(x, y, group)`` (so ``n`` is public). Rows of ``X`` are scaled to l2
    norm at most the public ``feature_bound`` (in ``fit`` and in ``predict``).
    The set of classes is public: pass it to ``fit(X, y, classes=...)`` (as to
    :meth:`partial_fit`); read from ``y`` instead, it depends on the data (a
    row alone in its class adds a class and a row of ``coef_``) and a
    :class:`~skdp.exceptions.PrivacyLeakWarning` says so. A label of ``y``
    outside ``classes`` is refused before any noise is drawn, with one fixed
    message that shows neither the label nor how many there are (the
    guarantee is over data whose labels are in ``classes``). The set of groups
    is public when ``group_sizes`` is a dict (a group outside it is refused
    the same way), and a :class:`~skdp.exceptions.PrivacyLeakWarning` says so
    when it is read from the ``groups`` passed to ``fit``. The shapes of the
    fitted attributes depend only on ``classes``, the groups and ``X``'s
    width. The group *sizes* are not public: pass them in ``group_sizes``, or, with more than
    one group, they are released with the Gaussian mechanism (l2-sensitivity ``sqrt 2``) at a
    ``GROUP_SIZE_SHARE = 5%`` share of the fit's ``mu**2`` (Dong–Roth–Su 2022, Thm 2.7: the
    whole default fit is one GDP composition, spending exactly ``epsilon``) and floored at
    ``SIZE_FLOOR_SDS = 3`` noise sds (post-processing); one group (``group_by=None``) needs
    no size (``n`` is public). Each solver's docstring names the theorems behind its
    accounting; the spend is composed by the tightest valid rule of
    :class:`~skdp.privacy.ledger.PrivacyLedger` and reported in
    ``privacy_spent_`` / ``privacy_method_``.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget; ``inf`` gives a non-private fit (no noise).
    delta : float or 'auto', default='auto'
        Must be in (0, 1) (every solver needs it); well below ``1/n``
        (``PrivacyLeakWarning`` otherwise).
        ``'auto'``: the accountant's share, resolved at the start of :meth:`fit`
        into ``delta_`` by :meth:`BudgetAccountant.default_delta
        <skdp.BudgetAccountant.default_delta>` at ``epsilon``: ``delta_cap *
        min(1, epsilon / epsilon_cap) ** 2`` on an accountant with both caps
        (the fits that fit its epsilon then fit its delta), 1e-6 on one
        without a delta limit (the default accountant). A number is used as
        given.
    solver : {'auto', 'noisy_gd', 'sgda', 'dpsgd_poisson', 'smd', 'smd_bias_reduced', 'mlmc', \
            'srgd', 'srg_memf', 'memf', 'dpsgd', 'fo_single_pass', 'zo_single_pass', \
            'zo_multi_pass'}, default='auto'

        ===================== ============= ================= ======================================
        solver                geometry      accounting        source
        ===================== ============= ================= ======================================
        ``noisy_gd``          l2 ball       Gaussian, GDP     noisy GD, smoothed max (skdp)
        ``sgda``              l2 ball       Gaussian, GDP     DP stochastic gradient descent-ascent
        ``dpsgd_poisson``     l2 ball       subsampled, PLD   DP-SGD, Poisson sampling (Abadi 2016)
        ``smd``               l1 ball       exp. mechanism    paper 002 Alg. 1, Prop. 3.3
        ``smd_bias_reduced``  l1 ball       exp. mechanism    paper 002 Alg. 2-3, Thm 3.5 filter
        ``mlmc``              l2 ball       Gaussian          paper 000 eq. (1), Alg. 6, clipped
        ``srgd``              l2 ball       tree, GDP         paper 003 Alg. 1, Lemma 4.3, Thm 4.10
        ``srg_memf``          R^d           MF noise, GDP     paper 003 Alg. 3 (corrected)
        ``memf``              R^d           MF noise, GDP     paper 003 Alg. 2 (DP-FTRL / MF)
        ``dpsgd``             R^d           Gaussian, GDP     independent noise, one pass
        ``fo_single_pass``    R^d           tree mechanism    paper 001 Alg. 2 + 5, Thm 6.1
        ``zo_single_pass``    R^d           tree mechanism    paper 001 Alg. 2 + 3, Thm 3.1
        ``zo_multi_pass``     R^d           Gaussian, zCDP    paper 001 Alg. 2 + 4, Thm 4.1
        ===================== ============= ================= ======================================

        ``srgd`` to ``dpsgd`` are single-pass streaming solvers (each example
        used once; :meth:`partial_fit`; see :mod:`skdp.solvers.streaming.srgd` and the
        :ref:`streaming <streaming>` user guide); they need one group
        (``group_by=None``). ``'auto'`` applies :func:`resolve_solver`
        (``fo_single_pass`` for ``loss='ramp'``); ``solver_`` says which ran.
        The paper-001 solvers take ``loss='ramp'`` only, the others
        ``loss='logistic'`` only.
    loss : {'logistic', 'ramp'}, default='logistic'
        Logistic loss (binary) or its multinomial form (more than 2 classes);
        or the ramp loss ``min(1, max(0, 1 - margin))`` (a capped
        Crammer–Singer hinge for more than 2 classes): bounded, hence robust
        to mislabelled points, but nonconvex. With ``'ramp'`` the model
        minimises the group-balanced risk ``(1/m) sum_g L_g`` (fixed uniform
        group weights, see :mod:`skdp.solvers.goldstein.classifier`) and returns
        an approximate Goldstein-stationary point (paper 001).
    radius : float, default=None
        Radius of the model's ball: l2 for the Euclidean solvers (None:
        unconstrained; ``mlmc`` uses 100, 10 with ``theory=True``), l1 for
        ``smd`` / ``smd_bias_reduced`` (None: 20 / 5 per output column, i.e.
        times ``n_classes`` for the multinomial model; 5 with ``theory=True``).
        Public; it bounds the l1 solvers' loss and gradients.
    feature_bound : float, default=1.0
        Public l2 bound on the rows of ``X``; larger rows are scaled down.
    fit_intercept : bool, default=True
        Fit an intercept (through a constant feature equal to ``feature_bound``).
    group_by : {'class'} or None, default='class'
        Groups when ``fit`` gets no ``groups``: the classes, or one group.
    group_sizes : dict or array-like of shape (n_groups,), default=None
        Public group sizes (a dict ``{group: size}``, or sizes in the order of
        the sorted group labels). None: estimated privately (see above).
        Checked before the budget is reserved (a mistake costs nothing):
        counts in ``[1, 1e100]``, and their match with the group labels where
        these are public (``classes`` given to ``fit`` with ``group_by='class'``,
        a dict with ``groups``, one group); against labels read from the data,
        once the data are read.
    n_iter : int or 'auto', default='auto'
        Iterations (steps for ``noisy_gd``/``smd``, epochs for ``sgda``,
        phases for ``mlmc``, the budget ``U`` for ``smd_bias_reduced``;
        ignored by the streaming solvers, which make one pass).
    theory : bool, default=False
        Use the papers' theorem parameters (002 Thm 3.1 / 3.14, 000 Alg. 6,
        003 Thm 4.10, 001 Thm 6.1 / 3.1 / 4.1) instead of the benchmarked
        practical defaults (l1, MLMC, ``srgd`` and Goldstein solvers).
    solver_options : dict, default=None
        Options of the solver, checked against its spec in
        :data:`SOLVER_SPECS` before any data is read: an unknown key, or a
        value of the wrong type or range, raises ``ValueError`` naming the
        valid keys. The streaming solvers take ``batch_size``
        (``ceil(2 sqrt(n))``), ``learning_rate``, ``momentum`` (0.9),
        ``decay`` (``exp(-2.5)``), ``clip``, ``band`` (64), ``workload``
        (``'true'`` or ``'ones'``), ``beta_scale`` (see
        :mod:`skdp.solvers.streaming.srgd`); the Goldstein solvers any key of
        :data:`skdp.solvers.goldstein.GOLDSTEIN_OPTIONS` (as for
        :class:`KLAdaptiveRegressor`) and ``radius`` (None), the smoothing radius
        ``alpha`` (guarantee at ``2 alpha``; None: ``0.1 Phi / L``); ``noisy_gd``
        takes ``clip_ratio`` (0.1: the per-sample gradient clip over the
        Lipschitz bound) and ``step_scale`` (4.0), public constants;
        ``dpsgd_poisson`` ``sampling_rate`` (None: ``min(1, 4 / T)``, with
        ``n_iter='auto'`` at most ``16,000 / n``). The other solvers take none.
    goldstein_radius : float or None
        Deprecated: moved into ``solver_options`` (see there).

        .. deprecated:: 0.1.0
           Use ``solver_options={"radius": ...}`` (paper-001 solvers); removed
           in the next release.
    stream_chunks : {'repeated', 'disjoint'}, default='repeated'
        What the streaming solvers' :meth:`partial_fit` calls hold.
        ``'repeated'`` (the safe default): each call may read records read
        before (epochs, ``for epoch in range(E): clf.partial_fit(X, y)``), so
        each call is a new pass, charged ``(epsilon, delta)`` on the
        accountant (reserved before the chunk is read) and recorded in
        ``privacy_ledger_`` as a new mechanism with fresh noise; the model
        continues, and ``privacy_spent_`` is the composition of the passes
        (above one pass's epsilon). ``'disjoint'``: your declaration that
        every record is in at most one call (and not in :meth:`fit`'s data
        before them); the calls are then one stream, charged once, by the
        call that starts it. A wrong declaration voids the guarantee. The
        chunks a Dask fit cuts from one collection are one pass either way.
    search : dict or None, default=None
        Spend the budget on a private search of ``noisy_gd``'s step and clip
        (for small tables, where the defaults fit badly; measured in
        ``benchmarks/RESULTS.md``). None: no search. A dict (``{}`` for the
        defaults of :data:`~skdp.model_selection.SEARCH_DEFAULTS`) with keys
        ``grid`` (``{key: list}``, keys among ``noisy_gd``'s ``solver_options``
        and ``n_iter``; default
        :data:`~skdp.model_selection.SEARCH_GRID`: ``clip_ratio`` x
        ``step_scale``, 9 candidates), ``mean_runs`` (3), ``eta`` (0),
        ``validation_fraction`` (0.2) and ``scoring`` (``'worst_group'``,
        ``'balanced'`` or ``'accuracy'``). ``fit`` then splits the rows at
        random (independently of their values) into a training and a
        validation part, draws ``K`` from the truncated negative binomial of
        mean ``mean_runs`` (Papernot–Steinke 2022, Def. 1; ``eta = 0``
        logarithmic, 1 geometric as Liu–Talwar 2019), and runs ``K`` times: a
        grid point drawn uniformly, a ``noisy_gd`` fit on the training part at
        zCDP ``rho``, its validation score plus Gaussian noise (GDP
        ``sqrt(2 rho)``; sensitivity ``1 / min_g s_g`` for the worst group,
        ``s_g`` the run's released group size scaled to the validation part).
        Only the best-scoring run is released (``coef_`` ..., its grid point as
        ``search_params_``, its noisy score as ``search_score_``). **Privacy**:
        a run is ``rho``-zCDP (fit and score read disjoint rows), so the
        release is ``(lam, eps'(lam))``-RDP with ``eps'(lam) = rho lam +
        (1 + eta)(2 sqrt(rho L) - rho) + log(E[K]) / (lam - 1)``, ``L =
        log(1 / gamma)`` (**Papernot–Steinke 2022, Theorem 2**, its free order
        optimised in closed form: :mod:`skdp.privacy.repeat_and_select`),
        converted to ``(epsilon, delta)`` by Canonne–Kamath–Steinke 2020 Prop.
        12; ``rho`` is the largest whose total is ``epsilon``
        (:func:`~skdp.model_selection.search_run_rho`), e.g. 42% of a plain
        fit's ``mu**2 / 2`` at epsilon 1, delta 1e-6, ``mean_runs=3``. The
        ledger holds the search as one ``(epsilon, delta)`` entry; the runs'
        own ledgers (checked against ``rho``), seeds, scores and ``K`` are
        discarded. ``fit`` only (not ``partial_fit`` or Dask), finite
        epsilon, logistic loss, ``solver`` 'auto' or 'noisy_gd'.
    accountant : BudgetAccountant, default=None
        Accountant charged by ``fit``; None: the default one.
    random_state : int, Generator, RandomState instance or None, default=None
        Seed of all the noise. See :term:`Glossary <random_state>`. Use None
        in deployment: a known seed voids the guarantee.
    verbose : int, default=0
        Print progress per step.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : array of shape (1, n_features) or (n_classes, n_features)
    intercept_ : array of shape (1,) or (n_classes,)
    group_labels_ : ndarray of shape (n_groups,)
        The groups, in the order of ``group_weights_``.
    group_weights_ : ndarray of shape (n_groups,)
        The private max-player: weight on each group (large: a worst group).
        Uniform for ``loss='ramp'`` (balanced risk).
    goldstein_certificate_ : float
        Paper-001 solvers only: norm of the mean noisy gradient over the
        released window (a private proxy for the Goldstein gap).
    goldstein_config_ : dict
        Paper-001 solvers only: the resolved public constants.
    group_sizes_ : ndarray of shape (n_groups,)
        Group sizes used (public or privately estimated).
    solver_ : str
        The solver that ran.
    n_iter_ : int
        Iterations run (streaming solvers: steps over the whole stream).
    search_params_ : dict
        With ``search``: the grid point of the released (best) run.
    search_score_ : float
        With ``search``: the released run's noisy validation score.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of ``X``; defined when ``X`` has string column names.
    delta_ : float
        The delta of the fit: ``delta``, or what ``'auto'`` resolved to.
    privacy_spent_ : tuple of float
        (epsilon, delta) composed over the fit. After :meth:`partial_fit`
        passes with ``stream_chunks='repeated'``: the composition of the
        passes (every pass's mechanism, at the sum of their deltas, as the
        accountant composes them), above one pass's epsilon.
    privacy_method_ : str
        Composition rule that gave ``privacy_spent_``.
    privacy_ledger_ : PrivacyLedger
        Every mechanism the fit ran.

    See Also
    --------
    sklearn.linear_model.LogisticRegression : The non-private model.

    Notes
    -----
    The streaming solvers' live stream (what :meth:`partial_fit` continues:
    the noise generator and the last noise vectors) is secret and is not a
    fitted attribute: it stays in the process, out of pickles and copies of
    the model. :meth:`checkpoint` returns it as a secret
    :class:`~skdp._partial_fit.StreamCheckpoint`, and :meth:`resume` restores
    it; a model without it refuses :meth:`partial_fit` (call
    :meth:`resume` or :meth:`fit`).

    References
    ----------
    .. [1] T. González, C. Guzmán, C. Paquette. Mirror descent algorithms with
       nearly dimension-independent rates for differentially-private stochastic
       saddle-point problems (paper 002).
    .. [2] H. Asi, Y. Carmon, A. Jambulapati, Y. Jin, A. Sidford. Stochastic
       bias-reduced gradient methods. NeurIPS 2021 (paper 000).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from skdp.minimax import PrivateMinimaxClassifier
    >>> X, y = make_classification(n_samples=2000, n_features=5, random_state=0)
    >>> clf = PrivateMinimaxClassifier(epsilon=1.0, group_sizes=[1000, 1000],
    ...                                random_state=0).fit(X / 5, y, classes=[0, 1])
    >>> clf.solver_
    'noisy_gd'
    >>> clf.score(X / 5, y) > 0.8
    True
    """

    _solver_specs = SOLVER_SPECS  # the registry the mixins read (partial_fit's solvers)

    _moved_to_options = {"goldstein_radius": "radius"}

    _published = {
        "classes_": "public",          # the classes parameter ('None': y's labels, warned)
        "coef_": "release",            # the solver's noisy iterate
        "intercept_": "release",
        "group_labels_": "public",     # public groups, or their labels read from the data (warned)
        "group_weights_": "release",   # the private max-player
        "group_sizes_": "post",        # public sizes, or their noisy counts
        "goldstein_certificate_": "post",  # the norm of the mean of noisy gradients
        "goldstein_config_": "public",     # constants from public bounds
        "solver_": "public",           # 'auto' on the public shape and epsilon
        "n_iter_": "public",
        "search_params_": "release",   # the best run's candidate (PS22: part of its output)
        "search_score_": "release",    # its noisy validation score
    }

    _parameter_constraints = {
        "epsilon": EPSILON_CONSTRAINT,
        "delta": DELTA_CONSTRAINT,
        "solver": [StrOptions({"auto", *SOLVER_SPECS})],
        "loss": [StrOptions(set(LOSSES))],
        "radius": BOUND_CONSTRAINT + [None],
        "feature_bound": BOUND_CONSTRAINT,
        "fit_intercept": ["boolean"],
        "group_by": [StrOptions({"class"}), None],
        "group_sizes": [dict, "array-like", None],
        "n_iter": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "theory": ["boolean"],
        "solver_options": [dict, None],
        "goldstein_radius": [Interval(Real, 0, None, closed="neither"), None,
                             Hidden(StrOptions({"deprecated"}))],
        "stream_chunks": [StrOptions(set(STREAM_CHUNKS))],
        "search": [dict, None],
        "accountant": ACCOUNTANT_CONSTRAINT,
        "random_state": ["random_state", np.random.Generator],
        "verbose": ["verbose"],
    }

    def __init__(self, epsilon=1.0, delta="auto", solver="auto", loss="logistic", radius=None,
                 feature_bound=1.0, fit_intercept=True, group_by="class", group_sizes=None,
                 n_iter="auto", theory=False, solver_options=None, goldstein_radius="deprecated",
                 stream_chunks="repeated", search=None, accountant=None, random_state=None,
                 verbose=0):
        self.epsilon = epsilon
        self.delta = delta
        self.solver = solver
        self.loss = loss
        self.radius = radius
        self.feature_bound = feature_bound
        self.fit_intercept = fit_intercept
        self.group_by = group_by
        self.group_sizes = group_sizes
        self.n_iter = n_iter
        self.theory = theory
        self.solver_options = solver_options
        self.goldstein_radius = goldstein_radius
        self.stream_chunks = stream_chunks
        self.search = search
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, groups=None, classes=None):
        """Fit the private worst-group classifier.

        Parameters
        ----------
        X : array-like or dask.array.Array of shape (n_samples, n_features)
            Training data (any array-API namespace when
            ``sklearn.set_config(array_api_dispatch=True)``), or a Dask array:
            each data pass is then one reduction over its partitions, the
            noise drawn on the client (the solvers whose spec says ``dask``; see the
            user guide, "On Dask").
        y : array-like or dask.array.Array of shape (n_samples,)
            Class labels.
        groups : array-like or dask.array.Array of shape (n_samples,), default=None
            Group of each sample; overrides ``group_by``. Routed by sklearn
            metadata routing (``set_fit_request(groups=True)``).
        classes : array-like of shape (n_classes,), default=None
            All the classes (public labels, at least 2), which fix
            ``classes_`` and the shape of ``coef_`` whatever the data. A
            label of ``y`` not in ``classes`` raises ``ValueError`` with a
            fixed message (:data:`UNKNOWN_LABEL_MESSAGE`). None: the classes
            of ``y``, with a :class:`~skdp.exceptions.PrivacyLeakWarning`.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        return self._fit_atomically(X, y, groups, classes=classes)

    @available_if(has_streaming_solver)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, groups=None):
        """Continue the private stream with a chunk of records.

        Only for the streaming solvers (``'srgd'``, ``'srg_memf'``, ``'memf'``,
        ``'dpsgd'``). Each call runs one pass over the chunk (each record used
        once in it), continuing the model of the previous calls (or of
        :meth:`fit`, which starts a new stream); the first call starts the
        stream. The batch size and noise are calibrated when the stream
        starts, from ``solver_options['n_rows']`` or the first chunk's size.

        **Privacy.** With ``stream_chunks='repeated'`` (the default) each call
        is a new pass, which may read records read before (epochs): it is
        charged ``(epsilon, delta)`` on the accountant, reserved before the
        chunk is read, and recorded as a new mechanism with fresh noise, and
        ``privacy_spent_`` becomes the composition of the passes (``k``
        passes: ``mu sqrt(k)``-GDP). With ``stream_chunks='disjoint'`` you
        declare that the chunks hold different records (a record in at most
        one call): the calls are then one (epsilon, delta)-DP stream, charged
        once, by the call that starts it (the MF noise continues, the tree
        restarts per chunk at the same GDP level: parallel composition over
        disjoint chunks; see :mod:`skdp.solvers.streaming.srgd`).

        The live stream is secret and stays in this process: a pickle or a
        copy of the model does not carry it, and such a model refuses
        ``partial_fit`` until :meth:`resume` gets a :meth:`checkpoint`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New records.
        y : array-like of shape (n_samples,)
            Their class labels.
        classes : array-like of shape (n_classes,), default=None
            All the classes (public), read on the call that starts the
            stream (ignored on the next ones). None there: the classes of
            the first chunk, with a :class:`~skdp.exceptions.PrivacyLeakWarning`.
            A label not in ``classes_`` raises ``ValueError`` with a fixed
            message (:data:`UNKNOWN_LABEL_MESSAGE`).
        groups : array-like of shape (n_samples,), default=None
            Must be None or a single group (the streaming solvers need one).

        Returns
        -------
        self : object
            The classifier, updated.
        """
        return self._fit_atomically(X, y, groups, classes=classes, partial=True)

    # -- the fit template's hooks (PrivateEstimator._fit runs the sequence) ----------------
    def _prepare(self, run):
        """Step 1: the stream to continue, the solver, its options and the public groups,
        checked before any row is read; a streaming solver on Dask streams chunk by chunk."""
        X, (y, groups), classes = run.X, run.args, run.kwargs.get("classes")
        if not math.isinf(run.epsilon) and run.delta == 0:
            raise ValueError("delta must be > 0.")
        state, run.charged = self._stream_to_continue(run.partial)
        solver = self._resolve_loss_solver()
        picks = auto_solvers(SOLVER_SPECS, loss=self.loss) if solver == "auto" else (solver,)
        for name in picks:  # before any data is read
            SOLVER_SPECS[name].check_options(self._solver_options(SOLVER_SPECS[name]))
        self._check_public_groups(groups, classes, state, solver)  # before any data is read
        run.search = None
        if self.search is not None:  # the private search of issue 31 (model_selection)
            self._prepare_search(run, solver)
            return
        if is_dask_collection(X):  # before any data are read
            check_dask_solver(type(self).__name__, solver,
                              choices_with(SOLVER_SPECS, {"loss": self.loss}, dask=True))
            if SOLVER_SPECS.get(solver) and SOLVER_SPECS[solver].streaming:
                run.stream_dask = True
                return
        run.solver, run.state, run.groups = solver, state, groups
        run.read_args = (y, groups, classes, state, run.delta)

    def _budget_plan(self, run):
        """Step 4: ``mu``-GDP with ``mu`` exactly (epsilon, delta) (Dong–Roth–Su Cor. 2.13),
        its zCDP image ``rho = mu**2 / 2`` refusing non-Gaussian zCDP releases: the group
        sizes (when released) are its first GDP release; the solver gets what they leave
        (:func:`_solver_budget`)."""
        return FIT_BUDGET

    def _build_problem(self, run):
        """Step 4: the group sizes (public, or released on a share of the fit's budget), the
        ``'auto'`` rule on the public shape, the problem and the solver's share."""
        if run.search is not None:
            return self._build_search(run)
        data, labels, fit = run.rows.data, run.rows.labels, run.budget
        n, solver = data.n, run.solver
        if solver != "auto" and SOLVER_SPECS[solver].streaming and labels.shape[0] > 1:
            raise ValueError(_one_group_message(self.solver, labels.shape[0]))
        sizes = self._group_sizes(run.rows.counts, labels, n, run.epsilon, run.delta, fit)
        solver = resolve_solver(n, data.p, run.epsilon) if solver == "auto" else solver
        spec = SOLVER_SPECS[solver]
        options = spec.resolve_options(self._solver_options(spec))
        # the Goldstein solvers' smoothing radius: the problem's (goldstein_config's radius)
        goldstein_radius = options.pop("radius", None) if spec.family == "goldstein" else None
        run.problem = MinimaxProblem(
            data, sizes, reference="balanced" if run.groups is None else "population",
            radius=self.radius, n_iter=self.n_iter, theory=self.theory, verbose=self.verbose,
            goldstein_radius=goldstein_radius, state=run.state)
        if spec.streaming and options.get("n_rows") is None:
            options["n_rows"] = getattr(self, "_stream_rows", None)  # a Dask stream's length
        run.solver, run.spec, run.options, run.sizes = solver, spec, options, sizes
        run.solver_budget = _solver_budget(fit)

    def _after_dispatch(self, run):
        """Step 6: the coefficients, the groups and their weights; the live stream. With
        ``search``: the best run's fitted attributes, its grid point and noisy score."""
        result = run.result
        if run.search is not None:
            model = result.info["model"]
            self._publish(**{k: v for k, v in vars(model).items()
                             if k in self.published_attributes() and k.endswith("_")
                             and not k.startswith("privacy_") and k != "delta_"},
                          search_params_=result.info["params"],
                          search_score_=result.info["score"])
            return
        coef, intercept = result.solution
        self._publish(coef_=coef, intercept_=intercept, group_labels_=run.rows.labels,
                      group_weights_=np.asarray(result.info["group_weights"], dtype=float),
                      group_sizes_=np.asarray(run.sizes, dtype=float))
        self._keep_stream(result.state if run.spec.streaming else None)

    # -- fit with search: the same template, the search dispatched as the solver ------------
    def _prepare_search(self, run, solver):
        """Step 1 of ``fit`` with ``search`` (see the ``search`` parameter): refuse what the
        search cannot run, check its settings; the rows go to the search's runs, unread."""
        from ._search_in_fit import SEARCH_SOLVER, check_search

        if run.partial or is_dask_collection(run.X) or math.isinf(run.epsilon) \
                or self.loss != "logistic" or solver not in ("auto", SEARCH_SOLVER):
            raise ValueError("search needs fit (not partial_fit) on in-memory data, a finite "
                             "epsilon, loss='logistic' and solver 'auto' or 'noisy_gd'.")
        run.search = check_search(self.search, SOLVER_SPECS[SEARCH_SOLVER], ("n_iter",))
        run.charged, (y, groups), classes = True, run.args, run.kwargs.get("classes")
        run.read_args, run.read_kwargs = (y, groups, classes), {"search": True}

    def _read_rows(self, X, *args, search=False):
        """Step 3; with ``search``, the rows as given (each run of the search reads its part
        through its own fit) and the host backend of the search's draws."""
        if not search:
            return super()._read_rows(X, *args)
        self._reading_data()
        y, groups, classes = args
        return Rows(Backend(np, "cpu", make_rng(self.random_state)), X=X, y=y, groups=groups,
                    classes=classes)

    def _build_search(self, run):
        """Step 4 of ``fit`` with ``search``: the search is the solver, on the whole budget
        (one ``(epsilon, delta)`` entry, PS22 Thm 2: :func:`_search_solver`)."""
        from ._search_in_fit import SEARCH_SOLVER

        rows = run.rows
        run.solver, run.spec, run.options = SEARCH_SOLVER, _SEARCH, run.search
        run.problem = (self, rows.X, rows.y, rows.groups, rows.classes)
        run.solver_budget = run.budget

    def _read_arrays(self, X, y, groups, classes, state, delta):
        """In-memory data: :class:`~skdp._base.Rows` (``data`` a :class:`LinearData`, group
        ``counts`` a callable, group ``labels``, ``backend``)."""
        X, y, xp = self._validate_fit_data(X, y, reset=state is None,
                                           check_y=classes is None and state is None)
        n = X.shape[0]
        if state is None:
            warn_large_delta(delta, n)
            self._publish(classes_=_fit_classes(y, classes))
        y_codes = _label_codes(self.classes_, y, UNKNOWN_LABEL_MESSAGE)
        group_codes, labels = self._group_codes(y_codes, groups, n)
        X, norms, clipped, factors = self._bounded_rows(X, xp, state is None)
        backend = Backend.from_arrays(X, random_state=self.random_state)
        data = LinearData(X, backend.asarray(y_codes), backend.asarray(group_codes),
                          self.classes_.shape[0], labels.shape[0], float(self.feature_bound),
                          self._intercept_feature(), xp, norms=norms, clipped=clipped,
                          factors=factors)
        return Rows(backend, data=data, labels=labels,
                    counts=lambda: _code_counts(group_codes, labels.shape[0]))

    def _bounded_rows(self, X, xp, batch):
        """``X`` (its overflowing rows replaced), its norms if computed, whether a row is
        beyond the bound (None: not checked) and the rows' clip factors if made.

        In blocks (no (n,) array); where no squared norm overflows, the design makes its
        norms and factors only if read (issue 31). A batch fit with an intercept reads the
        factors once, for the centring's clipped sum: they are made in this scan (where a
        row is beyond the bound; the same numbers) and handed to the design instead of a
        second scan of ``X``.
        """
        factors = None
        if batch and self._intercept_feature() != 0:
            status, factors = row_clip_factors(X, self.feature_bound, xp)
        else:
            status = row_bound_status(X, self.feature_bound, xp)
        norms, clipped = None, None if status is None else not status
        if status is None:
            X, norms = clip_overflowing_rows(X, self.feature_bound, xp, return_norms=True)
        return X, norms, clipped, factors

    def _read_dask(self, X, y, groups, classes, state, delta):
        """Dask data: :class:`~skdp._base.Rows` (a :class:`PartitionedLinearData`, group
        counts, group labels, backend).

        The rows are validated (finite) and clipped per partition and kept in
        cluster memory; the label sets read from the data (``classes=None``,
        groups without public sizes) are one pass each, with the NumPy
        path's warnings; the group counts are a pass when they are released.
        """
        from ._dask import check_dask_X, check_dask_y
        from ._partitions import Partitions

        self._reading_data()
        X = _rows_known(check_dask_X(X))
        self._publish(n_features_in_=X.shape[1])
        arrays = {"X": X, "y": check_dask_y(y, X)}
        if groups is not None:
            arrays["groups"] = check_dask_y(groups, X)
        rows = Partitions.from_arrays(arrays, prepare=_clip_part, args=(self.feature_bound,))
        warn_large_delta(delta, rows.n)
        if classes is None:
            found = _distinct(rows, "y")
            check_classification_targets(found)
            self._publish(classes_=_fit_classes(found, None))
        else:
            self._publish(classes_=_fit_classes(None, classes))
        labels = self._group_labels(groups, lambda: _distinct(rows, "groups"))
        rows = rows.with_columns(_encode_part, self.classes_, labels,
                                 groups is None and self.group_by is None,
                                 isinstance(self.group_sizes, dict))
        m = labels.shape[0]
        data = PartitionedLinearData(rows, X.shape[1], X.dtype, self.classes_.shape[0], m,
                                     float(self.feature_bound), self._intercept_feature())
        backend = Backend(np, "cpu", make_rng(self.random_state))
        return Rows(backend, data=data, labels=labels,
                    counts=lambda: rows.reduce(_group_counts, m))

    def _intercept_feature(self):
        return float(self.feature_bound) if self.fit_intercept else 0.0

    # -- streaming -------------------------------------------------------------
    def _stream_params(self):
        return (self.solver, self.loss, float(self.epsilon), self.delta, self.feature_bound,
                self.fit_intercept, self.radius, self.theory, repr(self.solver_options))

    def _resolve_loss_solver(self):
        """``'auto'`` is the one ``auto`` solver of the ramp loss (``fo_single_pass``); check
        that the solver fits the loss (its spec's ``losses``)."""
        ramp = solvers_with(SOLVER_SPECS, loss="ramp")
        if self.loss == "ramp":
            (pick,) = auto_solvers(SOLVER_SPECS, loss="ramp")
            solver = pick if self.solver == "auto" else self.solver
            if solver not in ramp:
                raise ValueError(f"loss='ramp' needs a paper-001 solver "
                                 f"({sorted(ramp)}), got solver={solver!r}.")
            return solver
        spec = SOLVER_SPECS.get(self.solver)
        if spec is not None and not spec.has(loss=self.loss):
            raise ValueError(f"solver={self.solver!r} fits loss="
                             f"{' or '.join(map(repr, spec.losses))} only, got loss={self.loss!r}.")
        return self.solver

    # -- validation ----------------------------------------------------------
    def _validate_fit_data(self, X, y, reset=True, check_y=True):
        """Checked ``X`` and ``y``; ``check_y=False`` (public classes) leaves the labels'
        values to the membership test, whose message is the same whatever they are."""
        self._reading_data()
        xp = get_namespace(X)
        if is_numpy(xp) and check_y:
            X, y = validate_data(self, X, y, dtype=[np.float64, np.float32], reset=reset)
            y = column_or_1d(y, warn=True)
        elif is_numpy(xp):
            X = validate_data(self, X, dtype=[np.float64, np.float32], reset=reset)
            y = _labels_1d(y, X.shape[0])
        else:
            X = _check_array_api_X(X, xp)
            if reset:
                self._publish(n_features_in_=X.shape[1])
            elif X.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                                 f"expecting {self.n_features_in_} features as input.")
            y = _labels_1d(to_numpy(y), X.shape[0]) if check_y else _device_labels(y, X, xp)
        if check_y:
            check_classification_targets(y)
        return X, y, xp

    def _group_codes(self, y_codes, groups, n):
        if groups is not None:
            groups = column_or_1d(to_numpy(groups))
            if groups.shape[0] != n:
                raise ValueError(f"groups has {groups.shape[0]} entries but X has {n} samples.")
        labels = self._group_labels(groups, lambda: groups)
        if groups is not None:
            return _group_label_codes(labels, groups, isinstance(self.group_sizes, dict)), labels
        if self.group_by is None:
            return np.zeros(n, dtype=np.int64), labels
        return y_codes, labels

    def _group_labels(self, groups, distinct):
        """The sorted group labels: public (``group_sizes`` a dict), read from ``groups``
        (``distinct()``, with a PrivacyLeakWarning), one group, or the classes."""
        if groups is not None:
            if isinstance(self.group_sizes, dict):
                return _sorted_labels(list(self.group_sizes), "group_sizes")
            labels = _sorted_labels(distinct(), "groups")
            warn_privacy_leak("The set of group labels",
                              "Pass group_sizes as a dict {group: size} to fix the groups "
                              "publicly.")
            return labels
        if self.group_by is None:
            return np.asarray([0])
        return self.classes_

    def _check_public_groups(self, groups, classes, state, solver):
        """Check what the parameters alone fix, before the budget is reserved (issue 28).

        ``group_sizes`` on its own (dict keys of one sortable type, finite sizes
        in ``[1, 1e100]``), ``classes`` passed to ``fit``, and, where the group
        labels are public (a ``group_sizes`` dict with ``groups``, one group,
        or the classes given to ``fit`` with ``group_by='class'``), the sizes
        against those labels and a streaming solver's single group. A mistake
        there costs nothing; what depends on labels read from the data (no
        ``classes``, ``groups`` without a dict of sizes) is checked after the
        reservation, as before. ``groups`` is looked at only for being given.
        """
        sizes = self.group_sizes
        labels = None
        if sizes is not None:
            if isinstance(sizes, dict):
                _check_size_values(_size_array(list(sizes.values())))
                if groups is not None:  # the keys are the group labels
                    labels = _sorted_labels(list(sizes), "group_sizes")
            else:
                _check_size_values(_size_array(sizes))
        if state is None and classes is not None:
            classes = _fit_classes(None, classes)
        if labels is None and groups is None:
            if self.group_by is None:
                labels = np.asarray([0])
            elif state is not None:
                labels = self.classes_
            elif classes is not None:
                labels = classes
        if labels is None:
            return
        if sizes is not None:
            _public_sizes(sizes, labels)
        if solver != "auto" and SOLVER_SPECS[solver].streaming and labels.shape[0] > 1:
            raise ValueError(_one_group_message(self.solver, labels.shape[0]))

    def _group_sizes(self, counts, labels, n, epsilon, delta, fit):
        m = labels.shape[0]
        if m == 1 and self.group_sizes is None:
            return np.asarray([float(n)])  # n is public under replace-one
        if self.group_sizes is not None:
            return _public_sizes(self.group_sizes, labels)
        counts = np.asarray(counts(), dtype=float)  # a pass over the groups
        if math.isinf(epsilon):
            return counts
        # Gaussian mechanism on the histogram: a replaced record moves one unit
        # between two counts, l2-sensitivity sqrt(2); mu-GDP with mu**2 a
        # GROUP_SIZE_SHARE of the fit's (Dong–Roth–Su 2022, Thm 2.7), so the fit
        # is one GDP composition with the solver's Gaussian releases.
        mu = math.sqrt(GROUP_SIZE_SHARE) * approx_dp_to_gdp(epsilon, delta)
        sigma = math.sqrt(2.0) / mu
        noisy = fit.on_host().gaussian_gdp(counts, math.sqrt(2.0), sigma, label="group sizes")
        # post-processing: floor at SIZE_FLOOR_SDS noise sds, which bounds the
        # gradient's sensitivity (it grows like 1 / N_g) without hiding small groups
        return np.maximum(noisy, max(1.0, SIZE_FLOOR_SDS * sigma))

    # -- prediction ------------------------------------------------------------
    def decision_function(self, X):
        """Compute the linear model's margins on rows clipped to ``feature_bound``.

        Parameters
        ----------
        X : array-like or dask.array.Array of shape (n_samples, n_features)
            Samples (a Dask array gives a Dask array).

        Returns
        -------
        scores : array of shape (n_samples,) or (n_samples, n_classes)
            Margin of the positive class (binary) or of each class.
        """
        check_is_fitted(self)
        if is_dask_collection(X):
            return self._dask_scores(X)
        xp = get_namespace(self.coef_)
        if is_numpy(xp):
            X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        else:
            if get_namespace(X) is not xp:
                raise ValueError(f"Inputs passed to {type(self).__name__}.decision_function() "
                                 "must use the same namespace and the same device as those "
                                 "passed to fit().")
            X = _check_array_api_X(X, xp)
            self._check_n_features(X)
        return _scores(X, self.coef_, self.intercept_, self.feature_bound, xp)

    def _check_n_features(self, X):
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")

    def _dask_scores(self, X, block=None):
        """``decision_function`` (or ``block`` of its margins) on a Dask array: a Dask array."""
        from ._dask import check_dask_X

        X = check_dask_X(X)
        self._check_n_features(X)
        X = X.rechunk({1: -1})
        args = (to_numpy(self.coef_), to_numpy(self.intercept_), self.feature_bound)
        if block is not None:
            return X.map_blocks(block, *args, self.classes_, drop_axis=1,
                                dtype=self.classes_.dtype)
        k = args[0].shape[0]
        if k == 1:
            return X.map_blocks(_block_scores, *args, drop_axis=1, dtype=X.dtype)
        return X.map_blocks(_block_scores, *args, chunks=(X.chunks[0], (k,)), dtype=X.dtype)

    def predict_proba(self, X):
        """Estimate class probabilities (sigmoid or softmax of the margins).

        Parameters
        ----------
        X : array-like or dask.array.Array of shape (n_samples, n_features)
            Samples (a Dask array gives a Dask array).

        Returns
        -------
        proba : array of shape (n_samples, n_classes)
            Probability of each class, in the order of ``classes_``.
        """
        Z = self.decision_function(X)
        if is_dask_collection(Z):
            chunks = (Z.chunks[0], (self.classes_.shape[0],))
            return Z.map_blocks(_proba, chunks=chunks, new_axis=1 if Z.ndim == 1 else None,
                                dtype=Z.dtype)
        return _proba(Z)

    def predict(self, X):
        """Predict the most probable class.

        Parameters
        ----------
        X : array-like or dask.array.Array of shape (n_samples, n_features)
            Samples (a Dask array gives a Dask array).

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Predicted class labels.
        """
        check_is_fitted(self)
        if is_dask_collection(X):
            return self._dask_scores(X, _labels_of_block)
        proba = self.predict_proba(X)
        idx = get_namespace(proba).argmax(proba, axis=1)
        return self.classes_[np.asarray(to_numpy(idx))]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.classifier_tags.multi_class = True
        return tags

    def _expected_failed_checks(self):
        return {}


def _search_solver(problem, budget, options):
    """The private search of ``fit(search=...)`` dispatched as a solver: the best of K
    private ``noisy_gd`` runs, recorded as one ``(epsilon, delta)`` mechanism
    (Papernot–Steinke 2022 Thm 2; :func:`skdp.model_selection.search_in_fit`)."""
    from ._search_in_fit import search_in_fit

    estimator, X, y, groups, classes = problem
    model, params, score, _ = search_in_fit(estimator, X, y, groups, {"classes": classes},
                                            options, budget, budget.backend.rng)
    return SolverResult(model, int(model.n_iter_),
                        info={"model": model, "params": params, "score": score})


_SEARCH = SimpleNamespace(fn=_search_solver, info_attributes=(), streaming=False)
"""What step 5 dispatches for ``fit(search=...)``: ``fn(problem, budget, options)``, like
a solver's spec (not a solver of :data:`SOLVER_SPECS`: the search runs one of them)."""


def _solver_budget(fit):
    """The solver's budget: what the group sizes left of the fit's (epsilon, delta).

    The ledger holds Gaussian mechanisms only (the group sizes, if released),
    so what is left is exactly ``mu``-GDP (:func:`remaining_gdp`), i.e.
    ``mu**2 / 2``-zCDP: a share of the fit's budget with its own filter in
    both currencies; the pure-DP solvers spend the (epsilon, delta) left
    after the recorded releases by the ledger's composition
    (``Budget.exponential_batch``, ``Budget.exponential_filter``).
    """
    mu = remaining_gdp(fit.recorded(), fit.epsilon, fit.delta)
    return fit.share(mu * mu / 2.0, mu=mu, exclusive=True, gdp_only=True)


def _scores(X, coef, intercept, bound, xp=np):
    """Margins of the rows of ``X`` clipped to ``bound``: (n,) binary, else (n, n_classes)."""
    X, norms = clip_overflowing_rows(X, bound, xp, return_norms=True)
    scale = clip_factors(norms, bound, xp)
    Z = scale[:, None] * (X @ xp.astype(coef, X.dtype).T) + xp.astype(intercept, X.dtype)
    return Z[:, 0] if Z.shape[1] == 1 else Z


def _proba(Z):
    """Class probabilities from the margins (sigmoid or softmax)."""
    xp = get_namespace(Z)
    if Z.ndim == 1:
        Z = xp.stack([-Z / 2, Z / 2], axis=1)
    Z = Z - xp.max(Z, axis=1, keepdims=True)
    E = xp.exp(Z)
    return E / xp.sum(E, axis=1, keepdims=True)


def _block_scores(X, coef, intercept, bound):
    """:func:`_scores` of one block of a Dask array (checked finite, as ``validate_data``)."""
    return _scores(check_finite(X), coef, intercept, bound)


def _labels_of_block(X, coef, intercept, bound, classes):
    return classes[np.argmax(_proba(_block_scores(X, coef, intercept, bound)), axis=1)]


def _check_array_api_X(X, xp):
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array, got {X.ndim}D.")
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"Found array with shape {tuple(X.shape)}: need at least 1 sample "
                         "and 1 feature.")
    if not bool(xp.all(xp.isfinite(X))):
        raise ValueError("Input X contains NaN or infinity.")
    return X


def _labels_1d(y, n):
    y = column_or_1d(y, warn=True)
    if y.shape[0] != n:
        raise ValueError(f"X has {n} samples but y has {y.shape[0]}.")
    return y


def _fit_classes(y, classes):
    """The public ``classes`` (sorted), or those of ``y`` with a PrivacyLeakWarning."""
    if classes is None:
        warn_privacy_leak("The set of classes",
                          "Pass the public classes to fit: fit(X, y, classes=[...]).")
        found = _sorted_labels(y, "y")
        if found.shape[0] < 2:
            raise ValueError("PrivateMinimaxClassifier needs samples of at least 2 classes; "
                             "y has 1 class. Pass the public classes to fit (classes=[...]).")
        return found
    found = _sorted_labels(classes, "classes")
    check_classification_targets(found)
    if found.shape[0] < 2:
        raise ValueError(f"classes must hold at least 2 classes, got {found!r}.")
    return found


def _device_labels(y, X, xp):
    """Labels checked against public classes stay in ``X``'s namespace (no copy to the
    host) when they are a numeric 1-D array of it; anything else is copied to NumPy."""
    if isinstance(y, np.ndarray) or getattr(y, "ndim", 0) != 1 \
            or not xp.isdtype(y.dtype, ("integral", "real floating", "bool")):
        return _labels_1d(to_numpy(y), X.shape[0])
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} samples but y has {y.shape[0]}.")
    return y


_COUNT_BLOCK = 1 << 16  # rows per np.bincount in _code_counts


def _code_counts(codes, k):
    """``np.bincount(codes, minlength=k)`` for codes of any namespace (``k`` sums back).

    NumPy's codes are counted ``_COUNT_BLOCK`` rows at a time: ``np.bincount`` copies a
    read-only input (the codes are often a read-only view of ``y``, :func:`_label_codes`),
    and a fresh (n,) copy's page faults cost 0.2 s of system time at 1e7 rows (issue 31);
    a block's copy stays in cache. The counts are the same integers.
    """
    if isinstance(codes, np.ndarray):
        counts = np.zeros(k, dtype=np.intp)
        for start in range(0, codes.shape[0], _COUNT_BLOCK):
            counts += np.bincount(codes[start:start + _COUNT_BLOCK], minlength=k)
        return counts
    xp = array_api_compat.array_namespace(codes)
    return np.asarray([int(xp.sum(xp.astype(codes == j, xp.int64))) for j in range(k)])


def _namespace_label_codes(labels, values, message):
    """:func:`_label_codes` in the namespace and on the device of ``values``."""
    xp = array_api_compat.array_namespace(values)
    if labels.dtype.kind not in "biuf":  # numeric labels match no text class
        raise ValueError(message)
    device = array_api_compat.device(values)
    codes = xp.zeros(values.shape, dtype=xp.int64, device=device)
    known = xp.zeros(values.shape, dtype=xp.bool, device=device)
    for k, label in enumerate(labels.tolist()):
        hit = values == label
        codes = xp.where(hit, xp.asarray(k, dtype=xp.int64, device=device), codes)
        known = known | hit
    if not bool(xp.all(known)):
        raise ValueError(message)
    return codes


def _label_codes(labels, values, message):
    """Index of each value in the sorted public ``labels``.

    A value not among them raises ``ValueError(message)``: one fixed message,
    whatever the values are and however many (they are private). Values of
    another namespace (labels left on the device) are coded there: one
    comparison per public label, one boolean back to the host.
    """
    if not isinstance(values, np.ndarray):
        return _namespace_label_codes(labels, values, message)
    if _consecutive_integers(labels) and values.dtype.kind in "iu" and values.size:
        # labels lo, lo + 1, ..., hi (the classes 0..K-1, say): the code is the value
        # minus lo, checked by the range (two reductions instead of a search and a gather)
        lo, hi = int(labels[0]), int(labels[-1])
        if int(values.min()) < lo or int(values.max()) > hi:
            raise ValueError(message)
        if lo == 0 and values.dtype == np.intp:  # the codes are the values: a read-only
            codes = values.view()               # view, not an (n,) copy (issue 31)
            codes.flags.writeable = False
            return codes
        return np.asarray(values, dtype=np.intp) - lo
    try:
        codes = np.clip(np.searchsorted(labels, values), 0, labels.shape[0] - 1)
        known = np.all(labels[codes] == values)
    except (TypeError, ValueError):
        known = False
    if not known:
        raise ValueError(message)
    return codes


def _consecutive_integers(labels):
    """Whether the sorted ``labels`` are integers ``lo, lo + 1, ..., hi`` (no bool)."""
    return labels.dtype.kind in "iu" and labels.shape[0] > 0 \
        and int(labels[-1]) - int(labels[0]) == labels.shape[0] - 1


def _group_label_codes(labels, groups, public):
    """Codes of ``groups``: checked against public labels, else those read from the groups
    themselves (every value is one of them, NaN included)."""
    if public:
        return _label_codes(labels, groups, UNKNOWN_GROUP_MESSAGE)
    return np.searchsorted(labels, groups)


def _sorted_labels(labels, name):
    """The distinct labels, sorted; labels that cannot be sorted (None among
    strings, mixed types) are a TypeError naming ``name``."""
    try:
        return np.unique(labels)
    except TypeError as e:
        raise TypeError(f"{name} mixes label types that cannot be sorted ({e}); use labels "
                        "of one type, without None.") from e


def _one_group_message(solver, m):
    return (f"solver={solver!r} minimises the average risk (one group): got {m} groups. Set "
            "group_by=None and pass no groups, or use solver='noisy_gd' / 'sgda' for the "
            "worst group.")


def _size_array(sizes):
    try:
        return np.asarray(sizes, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"group_sizes must hold numbers (counts >= 1), got {sizes!r}.") \
            from None


def _check_size_values(sizes):
    """Public group sizes are counts: finite, at least 1, at most 1e100."""
    if not np.all(np.isfinite(sizes)) or np.any(sizes < 1):
        raise ValueError(f"group_sizes must be finite counts >= 1, got {sizes!r}.")
    if np.any(sizes > 1e100):  # public sizes, like public bounds, stay well inside float range
        raise ValueError(f"group_sizes must be at most 1e100 (sensitivities scale as 1/size "
                         f"and their squares underflow beyond), got {sizes!r}.")
    return sizes


def _public_sizes(group_sizes, labels):
    if isinstance(group_sizes, dict):
        missing = [g for g in labels if g not in group_sizes]
        if missing:
            raise ValueError(f"group_sizes has no size for groups {missing[:5]!r}.")
        sizes = _size_array([group_sizes[g] for g in labels])
    else:
        sizes = _size_array(group_sizes)
        if sizes.shape[0] != labels.shape[0]:
            raise ValueError(f"group_sizes has {sizes.shape[0]} entries but there are "
                             f"{labels.shape[0]} groups ({labels[:5]!r}...).")
    return _check_size_values(sizes)


# -- Dask partitions (module level: sent to the workers) ---------------------------------------
def _clip_part(part, bound):
    """One partition's rows checked (finite) and clipped of overflow, with their norms."""
    X, norms = clip_overflowing_rows(check_finite(part["X"]), bound, np, return_norms=True)
    return {**part, "X": X, "norms": norms}


def _rows_known(X):
    """``X`` with its partitions' row counts known (computed if not: the layout, public)."""
    return X.compute_chunk_sizes() if any(np.isnan(c) for c in X.chunks[0]) else X


def _unique(part, name):
    return np.unique(part[name])


def _distinct(rows, name):
    """The distinct values of the per-row array ``name`` (one pass; private: warn first)."""
    return _sorted_labels(np.concatenate(rows.map(_unique, name)), name)


def _encode_part(part, classes, group_labels, one_group, public_groups):
    """The class and group codes of one partition (unknown labels: the fixed messages)."""
    y = _label_codes(classes, part["y"], UNKNOWN_LABEL_MESSAGE)
    if "groups" in part:
        group = _group_label_codes(group_labels, part["groups"], public_groups)
    else:
        group = np.zeros_like(y) if one_group else y
    return {"y": y, "group": group}


def _group_counts(part, m):
    return np.bincount(part["group"], minlength=m)
