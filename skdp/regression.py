"""Differentially private regression that adapts to the KL geometry (paper 004)."""

from numbers import Integral, Real
import math
import warnings

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _num_features, _num_samples, check_is_fitted, validate_data

from ._backend import Backend, array_api_compat, get_namespace, is_numpy
from ._base import BudgetPlan, PrivateEstimator, Rows
from ._dask import (check_dask_solver, check_dask_X, check_dask_y, check_finite, known_rows,
                    rows_unknown)
from ._partitions import Partitions, is_dask_collection
from ._partial_fit import STREAM_CHUNKS, StreamingMixin, has_streaming_solver
from ._validation import (ACCOUNTANT_CONSTRAINT, BOUND_CONSTRAINT, DELTA_CONSTRAINT,
                          EPSILON_CONSTRAINT, check_bound, warn_large_delta,
                          warn_privacy_leak)
from .privacy.clipping import (clip_factors, clip_overflowing_rows, clip_rows,
                               row_clip_factors, row_norms)
from .solvers.losses.regression import LOSSES, ROBUST_LOSSES, make_loss
from .privacy.quantile import HISTOGRAM_SENSITIVITY, private_quantile_of_counts
from .solvers.spec import (AutoFrom, Option, SolverSpec, auto_by_size, choices_with,
                           deprecated_names, solvers_with)
from .solvers.kl.gd import (ADAPTIVE_GD_RELEASE_OPTIONS, NOISY_GD_OPTIONS, STATIONARY_GD_OPTIONS,
                            adaptive_gd, noisy_gd, stationary_gd)
from .solvers.kl.subsampled import DPSGD_POISSON_OPTIONS, dpsgd_poisson
from .solvers.shared.subsampling import AUTO_ROWS_REGRESSOR, AUTO_SUBSAMPLE
from .solvers.kl.models import Design, LinearModel, MLPModel
from .solvers.kl.preconditioner import private_preconditioner
from .solvers.kl.problem import KLProblem, Objective, SolverConfig
from .solvers.kl.partitioned import PartitionedDesign, PartitionedObjective
from .solvers.kl.ppm import PPM_OPTIONS, ppm
from .solvers.kl.spider import SPIDER_OPTIONS, spider
from .solvers.goldstein import GOLDSTEIN_OPTIONS, goldstein_gap
from .solvers.goldstein.config import RADIUS_OPTION
from .solvers.goldstein.regressor import goldstein_solver, regression_glm
from .solvers.streaming.regressor import stream_solver
from .solvers.suffstats import ADASSP_OPTIONS, SSP_OPTIONS, adassp, ssp, ssp_applies
from .solvers.streaming.srgd import STREAM_OPTIONS

__all__ = ["KLAdaptiveRegressor", "SOLVER_SPECS"]

MODELS = ("linear", "mlp")
CLIP_QUANTILE = 0.8   # default clip: this private quantile of the gradient norms at w0
CLIP_SHARE = 0.05     # share of the budget its release takes
CLIP_GRID = 9         # candidates: the bound rule's clip times 2**(-k/2), k < CLIP_GRID
CLIP_NOISE_TOL = 0.1  # released only if the noisy cumulative fraction's sd is at most this
CLIP_ROWS = 100_000   # the quantile reads at most this many rows (a public random subset)
GDP_SLACK = 1e-9  # mu is shrunk by this relative amount so round-off never overspends
STREAM_SLACK = 1e-9  # the stream's GDP filter, sqrt(2 rho), shrunk by this relative amount


def budget_plan(solver):
    """The calibration of the fit's budget for ``solver`` (a :class:`~skdp._base.BudgetPlan`).

    A fit made only of Gaussian releases (the preconditioner, the private clip's
    histogram, and the solvers whose spec says ``gaussian``) is calibrated on
    Gaussian DP: ``mu = approx_dp_to_gdp(epsilon, delta)`` (Dong–Roth–Su 2022,
    Cor. 2.13 inverted), and its filter runs on ``sum_t mu_t**2 <= mu**2``, which
    for Gaussian releases (``mu_t = Delta_t / sigma_t = sqrt(2 rho_t)``) is the
    zCDP filter ``sum_t rho_t <= rho = mu**2 / 2``. A Gaussian-DP filter is valid
    when each ``mu_t`` is chosen from earlier outputs (fully adaptive composition:
    Smith & Thakurta 2022, "Fully adaptive composition for Gaussian differential
    privacy", arXiv:2210.17520: such a filter has the parameters of non-adaptive
    composition, Dong–Roth–Su Cor. 3.3), so the fit is ``mu``-GDP, i.e. exactly
    ``(epsilon, delta)``-DP, and the ledger (its ``'gdp'`` rule) reports
    ``epsilon`` when the filter is emptied. Other batch solvers (exponential
    mechanisms, trees, Poisson-subsampled steps) keep the zCDP calibration of
    Canonne–Kamath–Steinke 2020. Both share the budget (``exclusive=False``)
    with the releases before the solver's. A streaming solver owns the whole
    budget, ``rho``-zCDP, its one Gaussian mechanism also filtered as
    ``sqrt(2 rho)``-GDP (Bun–Steinke 2016 Prop. 1.6; Dong–Roth–Su Thm 2.7).

    Examples
    --------
    >>> plan = budget_plan("adaptive_gd")
    >>> plan.currency, plan.slack, plan.exclusive
    ('gdp', 1e-09, False)
    >>> budget_plan("srgd").gdp_filter
    'of_rho'
    """
    spec = SOLVER_SPECS[solver]
    if spec.streaming:
        return BudgetPlan("zcdp", gdp_filter="of_rho", slack=STREAM_SLACK)
    if spec.gaussian:
        return BudgetPlan("gdp", slack=GDP_SLACK, exclusive=False)
    return BudgetPlan("zcdp", exclusive=False)


def fit_budget(epsilon, delta, solver):
    """The filter total ``rho`` of a fit: :func:`budget_plan`'s (exact GDP where every
    release is Gaussian, ``mu**2 / 2``; else zCDP).

    Examples
    --------
    >>> round(fit_budget(1.0, 1e-6, "adaptive_gd"), 4)  # mu**2 / 2
    0.028
    >>> round(fit_budget(1.0, 1e-6, "stationary_gd"), 4)  # zCDP (an exponential mechanism)
    0.0244
    """
    return budget_plan(solver).rho(epsilon, delta)


def resolve_solver(solver, kl_gamma, kl_kappa, smooth, robust=False, size=0, rows=0,
                   features=0, mu=0.0):
    """The ``'auto'`` rule: a solver from public facts of the loss and of ``X``'s shape.

    Robust (truncated, nonconvex) losses: ``fo_single_pass`` (paper 001 Alg. 2
    + Alg. 5). Otherwise, unknown (gamma, kappa): ``adaptive_gd`` (Alg. 3) for
    smooth losses, ``ppm`` otherwise; known: ``spider`` (Alg. 1) when
    ``kappa <= 2`` and the loss is smooth, else ``ppm`` (Alg. 2). Where
    ``adaptive_gd`` would run on a private fit of ``rows = n_samples`` and
    ``size = n_samples * n_features`` (public: the shape of ``X``; 0 where the
    rule does not look at it), ``dpsgd_poisson`` (about 4 passes over the rows
    instead of up to 2000 full-batch steps) from the shape its spec's
    ``auto_from`` gives: ``rows >= 5e4`` (issue 31: from there it matched
    ``adaptive_gd``'s R^2 on the real-table suite's validation split at a
    fraction of the passes) or ``size >= AUTO_SUBSAMPLE = 1e7`` (issue 18:
    the cost of the full passes whatever ``n``). There, ``ssp`` (one pass on noisy
    sufficient statistics, :func:`~skdp.solvers.suffstats.ssp`) instead where the caller
    passes ``features = n_features`` and the fit's ``mu`` (a private, in-memory fit of the
    squared loss and the linear model; 0 otherwise) and
    :func:`~skdp.solvers.suffstats.ssp_applies` holds: ``rows >= 5e4`` and ``rows * mu >=
    100 * features**1.5`` (issue 31: there it matched ``dpsgd_poisson``'s R^2 at a fraction
    of its time).

    Examples
    --------
    >>> resolve_solver("auto", None, None, True)
    'adaptive_gd'
    >>> resolve_solver("auto", 0.7, 2.0, True)
    'spider'
    >>> resolve_solver("auto", None, None, False, robust=True)
    'fo_single_pass'
    >>> resolve_solver("auto", None, None, True, size=10**6 * 100)
    'dpsgd_poisson'
    >>> resolve_solver("auto", None, None, True, size=3 * 10**6, rows=10**6)
    'dpsgd_poisson'
    >>> resolve_solver("auto", None, None, True, size=3 * 10**6, rows=10**6, features=3, mu=0.24)
    'ssp'
    """
    if solver != "auto":
        return solver
    if robust:
        return "fo_single_pass"
    if kl_gamma is None or kl_kappa is None:
        by_size = auto_by_size(SOLVER_SPECS, rows, size) if smooth else None
        if by_size == "dpsgd_poisson" and features and ssp_applies(rows, features, mu):
            return "ssp"
        return by_size or ("adaptive_gd" if smooth else "ppm")
    return "spider" if kl_kappa <= 2 and smooth else "ppm"


_STREAM_PAPER = {"srgd": "003 Alg. 1 (Accelerated-DP-SRGD), Thm 4.10",
                 "srg_memf": "003 Alg. 3 (DP-SRG-MEMF, corrected); Denisov et al. 2022 Thm 2.1",
                 "memf": "003 Alg. 2 (DP-MEMF / DP-FTRL); Denisov et al. 2022 Thm 2.1",
                 "dpsgd": "DP-SGD without amplification (003's baseline)"}
_STREAM_BUDGET = {"srgd": "the whole stream: one binary-tree Gaussian mechanism, "
                          "mu = sqrt(2 rho)-GDP (003 Lemma 4.3)",
                  "dpsgd": "the whole stream: independent Gaussian noise per batch, "
                           "mu = sqrt(2 rho)-GDP in all"}
_MF_BUDGET = ("the whole stream: one matrix-factorisation Gaussian mechanism, "
              "mu = sqrt(2 rho)-GDP (Denisov et al. 2022, Thm 2.1)")
_CERTIFICATE = (("goldstein_certificate_", "certificate"), ("goldstein_config_", "config"))
_RADIUS = Option("radius", "float", None, low=0, low_open=True,
                 doc="srgd: radius R of the l2 ball (None: 10)")
# options the estimator reads (its SolverConfig and its budget split), issue 29 item 3
_SMOOTHNESS = Option("smoothness", "float", None, low=0, low_open=True,
                     doc="L1: steps 1/L1 (None: sup|loss''| times the squared row-norm bound)")
_PRECONDITION = Option("precondition", "float", 0.2, low=0, high=1, high_open=True,
                       doc="share of rho to the private preconditioner (0: none)")
_SNR = Option("snr", "float", 1.0, low=0, low_open=True,
              doc="signal-to-noise factor of the noisy gradient norm (cost times snr**2)")
_BETA = Option("beta", "float", 0.1, low=0, high=1, low_open=True, high_open=True,
               doc="failure probability in the solvers' log terms")
_KL = (_SMOOTHNESS, _PRECONDITION)
_DEPRECATED = Hidden(StrOptions({"deprecated"}))  # the default of a parameter moved to options
_ESTIMATOR_KEYS = {"smoothness": None, "precondition": 0.2, "snr": 1.0, "beta": 0.1}
_GOLDSTEIN_PAPER = {"fo_single_pass": "001 Alg. 2 + Alg. 5, Thm 6.1",
                    "zo_single_pass": "001 Alg. 2 + Alg. 3, Thm 3.1",
                    "zo_multi_pass": "001 Alg. 2 + Alg. 4, Thm 4.1"}
_SINGLE_PASS_BUDGET = ("one pass: a fresh tree mechanism per period on disjoint samples, "
                       "rho in all (001 Prop. 2.5)")
_GOLDSTEIN_BUDGET = {"fo_single_pass": _SINGLE_PASS_BUDGET, "zo_single_pass": _SINGLE_PASS_BUDGET,
                     "zo_multi_pass": "Gaussian anchors and differences composed to rho, "
                                      "noise split minimising the variance (001 Lemma 4.3, 4.4)"}

SOLVER_SPECS = {spec.name: spec for spec in (
    SolverSpec("noisy_gd", noisy_gd, "kl", "004 Alg. 4 without projection (the baseline)",
               "T = max_iter (10) equal Gaussian gradient steps of rho/T", NOISY_GD_OPTIONS + _KL,
               dask=True, gaussian=True),
    SolverSpec("adaptive_gd", adaptive_gd, "kl", "004 Alg. 3, Thm 3 (privacy), Thm 4 (utility)",
               "per step a noisy gradient norm (norm_cost_scale sqrt(rho)/n), then the gradient "
               "at the noise it sets; a zCDP filter stops at rho",
               ADAPTIVE_GD_RELEASE_OPTIONS + _KL + (_SNR, _BETA),
               dask=True, auto=True, gaussian=True),
    SolverSpec("stationary_gd", stationary_gd, "kl", "004 Alg. 3, Thm 5",
               "(1 - select_frac) rho to adaptive_gd's path, select_frac rho to the "
               "exponential-mechanism choice of the iterate",
               STATIONARY_GD_OPTIONS + _KL + (_SNR, _BETA), dask=True),
    SolverSpec("dpsgd_poisson", dpsgd_poisson, "kl",
               "DP-SGD with Poisson sampling (Abadi et al. 2016, Alg. 1); PLD accounting",
               "T = max_iter (100) Poisson-subsampled Gaussian gradient sums at the noise "
               "multiplier that makes the ledger's PLD composition spend exactly epsilon",
               DPSGD_POISSON_OPTIONS + _KL, dask=True, auto=True,
               auto_from=AutoFrom(rows=AUTO_ROWS_REGRESSOR, size=AUTO_SUBSAMPLE)),
    SolverSpec("spider", spider, "kl", "004 Alg. 1, Thm 1",
               "frac_full rho over the K full gradients, the rest over the gradient "
               "differences, evenly", SPIDER_OPTIONS + _KL + (_BETA,), dask=True, auto=True,
               gaussian=True),
    SolverSpec("ppm", ppm, "kl", "004 Alg. 2 with Alg. 4, Thm 2",
               "rho/T per outer step, shared evenly by its T_in gradient steps",
               PPM_OPTIONS + _KL + (_BETA,),
               dask=True, auto=True, gaussian=True),
    *(SolverSpec(name, stream_solver(name), "streaming", paper,
                 _STREAM_BUDGET.get(name, _MF_BUDGET), STREAM_OPTIONS + (_RADIUS, _SMOOTHNESS),
                 streaming=True, dask=True)
      for name, paper in _STREAM_PAPER.items()),
    *(SolverSpec(name, goldstein_solver(name), "goldstein", paper,
                 _GOLDSTEIN_BUDGET[name],
                 GOLDSTEIN_OPTIONS + (RADIUS_OPTION, _PRECONDITION),
                 auto=name == "fo_single_pass", models=("linear",),
                 info_attributes=_CERTIFICATE)
      for name, paper in _GOLDSTEIN_PAPER.items()),
    SolverSpec("adassp", adassp, "suffstats",
               "AdaSSP: Wang 2018, Alg. 2, Thm 3 (one pass on noisy sufficient statistics)",
               "rho/2 each to the Gaussian releases of X^T X and X^T y (theory=True: rho/3 "
               "each, with lambda_min(X^T X)); no preconditioner", ADASSP_OPTIONS, gaussian=True,
               losses=("squared",), models=("linear",)),
    SolverSpec("ssp", ssp, "suffstats",
               "AdaSSP's releases (Wang 2018, Alg. 2) with an eigenvalue floor, then private "
               "refinement steps on the clipped residuals (issue 31)",
               "quantile_share rho to the residuals' quantile; of the rest, xtx_share to "
               "X^T X, the remainder evenly to X^T y and each X^T r; no preconditioner",
               SSP_OPTIONS, gaussian=True, auto=True, losses=("squared",), models=("linear",)),
)}
"""Every solver of :class:`KLAdaptiveRegressor`: name -> :class:`~skdp.solvers.spec.SolverSpec`.

Each runs on the budget left after the private preconditioner
(``solver_options["precondition"]`` of ``rho``).
The facts the regressor decides by: ``auto`` (what :func:`resolve_solver` may pick),
``gaussian`` (calibrated on Gaussian DP: :func:`fit_budget`), ``dask`` (it fits a Dask
collection: each data pass one reduction over partitions; the streaming solvers chunk after
chunk of ``STREAM_ROWS`` rows, with ``partial_fit`` semantics, calibrated from the row count:
:func:`skdp._dask.stream_blocks`), ``models``, ``streaming`` and ``info_attributes``."""

__getattr__ = deprecated_names(__name__, {
    "GAUSSIAN_SOLVERS": (lambda: solvers_with(SOLVER_SPECS, gaussian=True),
                         "solvers_with(SOLVER_SPECS, gaussian=True)"),
    "DASK_SOLVERS": (lambda: solvers_with(SOLVER_SPECS, dask=True, streaming=False),
                     "solvers_with(SOLVER_SPECS, dask=True)"),
})

"""The solvers as ``fit`` calls them, ``fn(problem, budget, options)``, by name."""


class KLAdaptiveRegressor(StreamingMixin, PrivateEstimator, RegressorMixin, BaseEstimator):
    """Differentially private regression by noisy gradient methods under the KL condition.

    Minimises ``(1/n) sum_i loss(z_i, y_i) + alpha/2 ||w||**2`` with the
    private optimisers of Menart et al. (paper 004), which reach the optimal
    excess risk ``(sqrt(d)/(n sqrt(rho)))**kappa`` when the objective satisfies
    the (gamma, kappa)-Kurdyka–Lojasiewicz condition ``F - F* <= gamma**kappa
    ||grad F||**kappa``. The default solver adapts to unknown (gamma, kappa).

    Read more in the :ref:`User Guide <kl_regression>`.

    **Privacy model.** (epsilon, delta)-DP under replace-one adjacency (two
    datasets of the same public size n differing in one row). Every release
    is a Gaussian mechanism on a mean of per-sample gradients clipped to norm
    ``clip_norm`` (l2-sensitivity ``2 clip_norm / n``), or an exponential
    mechanism (``'stationary_gd'``). Where every release is Gaussian (the
    default path) the budget is converted exactly to ``mu``-GDP
    (Dong–Roth–Su 2022; adaptive filter: Smith–Thakurta 2022, see
    :func:`fit_budget`) and spent in full; otherwise to rho-zCDP
    (Canonne–Kamath–Steinke 2020,
    :func:`~skdp.privacy.ledger.approx_dp_to_zcdp`), composed in zCDP.
    The solvers' noise levels are derived from that explicit budget, not
    from the paper's
    constants (which are off by factors of 2: Thm 1 claims ``rho`` where Lemma 8
    proves ``2 rho``). What is public:
    n, the number of features, ``feature_bound``, ``target_bound`` and all
    parameters. Rows of ``X`` are scaled to l2 norm at most ``feature_bound``
    and targets clipped to ``[-target_bound, target_bound]`` (``[0, 1]`` for
    ``loss='sigmoid'``), in ``fit`` and in ``predict``.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy parameter; ``inf`` gives the non-private fit (no noise),
        recorded as an infinite spend (``privacy_spent_[0] = inf``, and in the
        accountant).
    delta : float or 'auto', default='auto'
        Privacy parameter, in (0, 1); should be well below ``1/n``
        (``PrivacyLeakWarning`` otherwise).
        ``'auto'``: the accountant's share, resolved at the start of :meth:`fit`
        into ``delta_`` by :meth:`BudgetAccountant.default_delta
        <skdp.BudgetAccountant.default_delta>` at ``epsilon``: ``delta_cap *
        min(1, epsilon / epsilon_cap) ** 2`` on an accountant with both caps
        (the fits that fit its epsilon then fit its delta), 1e-6 on one
        without a delta limit (the default accountant). A number is used as
        given.
    solver : {'auto', 'adaptive_gd', 'noisy_gd', 'stationary_gd', 'dpsgd_poisson', 'spider', \
            'ppm', 'srgd', 'srg_memf', 'memf', 'dpsgd', 'fo_single_pass', 'zo_single_pass', \
            'zo_multi_pass', 'adassp', 'ssp'}, default='auto'
        - ``'adaptive_gd'``: paper 004 Alg. 3 (Thm 3, 4); unknown gamma, kappa;
          a privacy filter stops it when the budget is spent.
        - ``'noisy_gd'``: ``max_iter`` (default 10) noisy gradient steps, the
          standard baseline.
        - ``'stationary_gd'``: Alg. 3 then exponential-mechanism choice of the
          iterate with the smallest gradient norm (Thm 5); for nonconvex
          losses without a KL guarantee.
        - ``'dpsgd_poisson'``: DP-SGD with Poisson sampling (Abadi et al.
          2016), ``max_iter`` (100) steps touching a few passes' worth of
          rows, accounted by PLD; for large ``n`` (see
          :mod:`skdp.solvers.kl.subsampled`).
        - ``'spider'``: Alg. 1 (Thm 1), kappa in [1, 2], smooth losses; needs
          ``kl_gamma`` and ``kl_kappa`` (or ``alpha > 0``).
        - ``'ppm'``: Alg. 2 with Alg. 4 inside (Thm 2), kappa >= 2, weakly
          convex losses (``'lp'``).
        - ``'srgd'``, ``'srg_memf'``, ``'memf'``, ``'dpsgd'``: single-pass
          streaming solvers of paper 003 (Alg. 1, Alg. 3 corrected, Alg. 2,
          DP-SGD), each example used once, with :meth:`partial_fit`; they
          ignore the preconditioner and ``max_iter`` (see
          :mod:`skdp.solvers.streaming.srgd` and the :ref:`streaming <streaming>` user
          guide). Privacy: the stream is one Gaussian mechanism of
          ``rho_``-zCDP (Bun–Steinke Prop. 1.6), like the other solvers.
        - ``'fo_single_pass'``, ``'zo_single_pass'``, ``'zo_multi_pass'``:
          paper 001 (Alg. 2 with Alg. 5, 3, 4; Thm 6.1, 3.1, 4.1): an
          (alpha, beta)-Goldstein-stationary point of a Lipschitz, nonsmooth,
          nonconvex loss (the robust losses); linear model only. See
          :mod:`skdp.solvers.goldstein` and the :ref:`User Guide
          <robust_regression>`.
        - ``'adassp'``: AdaSSP (Wang 2018, Alg. 2, Thm 3): one pass on the
          Gaussian releases of ``X^T X`` and ``X^T y`` (``rho_/2`` each), then
          ridge ``2 sigma sqrt(p)`` (plus ``n alpha``; ``theory=True``: Wang's
          adaptive ``lambda`` from a third release, ``lambda_min(X^T X)``);
          ``loss='squared'``, linear model, no preconditioner, in memory only
          (see :mod:`skdp.solvers.suffstats`). Not chosen by ``'auto'``.
        - ``'ssp'``: AdaSSP's two releases with ``X^T X``'s eigenvalues floored
          at ``3 sigma sqrt(p)`` instead of a ridge, then two refinement steps:
          the residuals' 0.95 quantile released privately, and ``X^T r`` of
          the residuals clipped there, twice (five Gaussian releases, see
          :func:`skdp.solvers.suffstats.ssp`); same restrictions as
          ``'adassp'``. ``'auto'`` runs it on private in-memory fits of the
          squared loss and the linear model from 5e4 rows where ``n_samples *
          mu >= 100 * n_features**1.5`` (``mu`` the fit's Gaussian-DP budget:
          :func:`skdp.solvers.suffstats.ssp_applies`).
        - ``'auto'``: ``fo_single_pass`` for the robust losses; else
          ``adaptive_gd`` when (gamma, kappa) are unknown (``ppm`` for
          ``'lp'``), on a private linear fit ``dpsgd_poisson`` instead from
          5e4 rows or 1e7 cells, and there ``ssp`` for the squared loss on an
          in-memory ``X`` where ``n_samples * mu >= 100 * n_features**1.5``
          (:func:`resolve_solver`); ``spider`` for known kappa <= 2, else
          ``ppm``.
    loss : {'squared', 'huber', 'lp', 'sigmoid', 'truncated_absolute', \
            'capped_huber'}, default='squared'
        See :mod:`skdp.solvers.losses.regression`. ``'truncated_absolute'`` (``min(|r|,
        truncation)``) and ``'capped_huber'`` (``min(huber(r), truncation)``)
        are robust to gross outliers (Lipschitz, nonconvex).
    model : {'linear', 'mlp'}, default='linear'
        ``'mlp'``: one tanh hidden layer of ``hidden_units`` units.
    feature_bound : float or 'data', default=1.0
        Public bound on the l2 norm of a row of ``X``. ``'data'`` takes it
        from ``X`` (not private: warns ``PrivacyLeakWarning``).
    target_bound : float or 'data', default=1.0
        Public bound on ``|y|``. ``'data'`` takes it from ``y`` (warns).
    alpha : float, default=0.0
        Ridge strength. ``alpha > 0`` makes kappa = 2 and gamma =
        ``1/sqrt(2 alpha)`` public (the intercept is penalised too).
    fit_intercept : bool, default=True
        Add a constant feature equal to ``feature_bound``.
    kl_gamma, kl_kappa : float, default=None
        Known KL constants (for ``'spider'``/``'ppm'`` and ``'auto'``).
    max_iter : int, default=None
        Cap on gradient steps: ``noisy_gd`` runs exactly this many (10);
        ``adaptive_gd``/``stationary_gd`` stop there (2000), the last step
        spending the rest of the budget; ``spider``/``ppm`` size their noise
        for at most this many queries.
    clip_norm : float, default=None
        Per-sample gradient clip ``C`` (the Lipschitz constant's role). The
        bound rule: ``(bound on |loss'| at z = 0) * sqrt(feature_bound**2 +
        intercept**2)`` (linear; with the preconditioner, the root of the
        released mean squared row norm in the new coordinates), the same times
        ``sqrt(1 + feature_bound**2)`` for the mlp. Default (None): for the
        paper-004 solvers of a private fit with ``theory=False``, the
        ``CLIP_QUANTILE = 0.8`` quantile of the per-sample gradient norms at
        the start point, released privately on the grid ``bound rule *
        2**(-k/2)``, ``k < 9`` (:func:`~skdp.privacy.quantile.private_quantile`,
        adaptive clipping after Andrew et al. 2021) at ``CLIP_SHARE = 5%`` of
        the budget, when that release is informative (the sd of its noisy
        cumulative fraction at most ``CLIP_NOISE_TOL = 0.1``, a public rule
        in ``n`` and epsilon); otherwise, and with ``theory=True``, the bound
        rule. ``clip_norm_`` is the clip used.
    smoothness : float or None
        Deprecated: moved into ``solver_options`` (see there).

        .. deprecated:: 0.1.0
           Use ``solver_options={"smoothness": ...}``; removed in the next release.
    huber_delta : float, default=0.5
        Threshold of the Huber loss (and of ``'capped_huber'``).
    truncation : float, default=1.0
        Cap ``tau`` on the value of the robust losses (``'truncated_absolute'``:
        residuals beyond ``tau`` are ignored). Public; with the target bound
        it gives the loss bound ``Phi = min(target_bound, tau)``.
    goldstein_radius : float or None
        Deprecated: moved into ``solver_options`` (see there).

        .. deprecated:: 0.1.0
           Use ``solver_options={"radius": ...}`` (Goldstein solvers); removed in
           the next release.
    p : float, default=1.5
        Exponent of the ``'lp'`` loss, in (1, 2).
    hidden_units : int, default=16
        Width of the mlp.
    precondition : float
        Deprecated: moved into ``solver_options`` (see there).

        .. deprecated:: 0.1.0
           Use ``solver_options={"precondition": ...}``; removed in the next release.
    snr : float
        Deprecated: moved into ``solver_options`` (see there).

        .. deprecated:: 0.1.0
           Use ``solver_options={"snr": ...}``; removed in the next release.
    beta : float
        Deprecated: moved into ``solver_options`` (see there).

        .. deprecated:: 0.1.0
           Use ``solver_options={"beta": ...}``; removed in the next release.
    theory : bool, default=False
        Use paper 004's constants (step ``1/(2 L1)``, Spider (64, 32), theory
        round counts), or paper 001's (Thm 3.1/6.1/4.1 with constants 1) for
        the Goldstein solvers, or Wang 2018's adaptive ridge for ``'adassp'``;
        privacy is the same either way.
    solver_options : dict, default=None
        Expert knobs of the solver, checked against its spec
        (``SOLVER_SPECS[solver].options``) before any data is read or any
        budget charged: a key the solver does not read, or a value of the
        wrong type or range, raises ``ValueError``.

        - every paper-004 solver (``noisy_gd``, ``adaptive_gd``,
          ``stationary_gd``, ``dpsgd_poisson``, ``spider``, ``ppm``) and the
          Goldstein solvers: ``precondition`` (0.2), the share of the budget
          spent on a private second-moment matrix ``S_hat`` of the (clipped)
          design, used to reparametrise the model in the coordinates ``x P``
          with ``P = (S_hat + lambda I)**(-1/2)`` (see
          :func:`~skdp.solvers.kl.preconditioner.private_preconditioner`): the solvers
          then need far fewer steps on ill-conditioned data; 0 disables it,
          and with it ``alpha`` penalises the preconditioned coefficients;
        - every paper-004 solver and the streaming ones: ``smoothness``
          (None), ``L1``: steps are ``1/L1`` (``1/(2 L1)`` with
          ``theory=True``); None: ``sup|loss''| * (row-norm bound)**2``;
        - ``adaptive_gd`` and ``stationary_gd``: ``snr`` (1.0), the
          signal-to-noise factor (Alg. 3's descent lemma is loose: noise the
          size of the gradient guarantees no decrease): noise ``N_t / (snr
          sqrt(d log(n sqrt(rho)/beta)))``, cost times ``snr**2``;
          ``norm_cost_scale`` (1), ``floor_frac`` (0.5); ``stationary_gd``
          also ``select_frac`` (0.2); ``adaptive_gd`` also ``average``
          ('suffix') and ``tail`` (2.5; issue 31): on tables of 1,000 rows
          or more, after the first noisy norm below its noise level, the
          norm queries stop and what is left is spent on ``tail`` times as
          many equal plain noisy steps as Alg. 3 would take (0: Alg. 3's
          steps throughout; see :func:`~skdp.solvers.kl.gd.adaptive_gd`),
          and ``tail_momentum`` (0.5): Nesterov momentum on those steps when
          the run is averaged, the mean then over all of the tail's iterates
          (0: plain steps, the last half averaged);
        - ``adaptive_gd``, ``stationary_gd``, ``spider``, ``ppm``: ``beta``
          (0.1), the failure probability in the solvers' log terms;
        - ``spider``: ``spider_constants`` (4, 2), ``frac_full`` (0.5);
          ``ppm``: ``prox_strength`` (0.5 L1), ``max_outer`` (10),
          ``max_inner`` (10); ``dpsgd_poisson``: ``sampling_rate`` (None:
          about 4 passes);
        - the streaming solvers: ``batch_size``, ``learning_rate``,
          ``momentum``, ``decay``, ``clip``, ``band``, ``workload``,
          ``beta_scale``, ``radius`` (the l2 ball's; see
          :mod:`skdp.solvers.streaming.srgd`);
        - the Goldstein solvers: ``radius`` (None), the smoothing radius
          ``alpha`` (the guarantee is at radius ``2 alpha``), in the solver's
          (preconditioned) coordinates, None: ``0.1 Phi / L`` (``L`` the
          per-sample gradient clip), inside the paper's range ``alpha <= Phi
          / L``; any key of :data:`skdp.solvers.goldstein.PRACTICAL` or
          ``max_step``, ``window``, ``period``, ``anchor_batch``,
          ``diff_batch``, ``anchor_directions``, ``diff_directions``,
          ``diff_clip``, ``target_beta``, ``output`` (``'last'`` or
          ``'random'``).
    stream_chunks : {'repeated', 'disjoint'}, default='repeated'
        What the streaming solvers' :meth:`partial_fit` calls hold.
        ``'repeated'`` (the safe default): each call may read records read
        before (epochs, ``for epoch in range(E): est.partial_fit(X, y)``), so
        each call is a new pass, charged ``(epsilon, delta)`` on the
        accountant (reserved before the chunk is read) and recorded in
        ``privacy_ledger_`` as a new mechanism with fresh noise; the model
        continues, and ``privacy_spent_`` is the composition of the passes
        (above one pass's epsilon). ``'disjoint'``: your declaration that
        every record is in at most one call (and not in :meth:`fit`'s data
        before them); the calls are then one stream, charged once, by the
        call that starts it. A wrong declaration voids the guarantee. The
        chunks a Dask fit cuts from one collection are one pass either way.
    accountant : BudgetAccountant, default=None
        Charged ``(epsilon, delta)``; None uses the default accountant.
    random_state : int, Generator, RandomState instance or None, default=None
        Seeds all noise. See :term:`Glossary <random_state>`. A fixed seed is
        for tests and reproducible figures: a release is differentially
        private only if its seed is secret and never reused, so leave it None
        for a release. Fits charged to one accountant with the same seed
        share their noise and warn ``PrivacyLeakWarning``.
    verbose : int, default=0
        Print solver progress.

    Attributes
    ----------
    coef_ : array of shape (n_features,)
        Weights (linear); for the mlp, the flat parameter vector.
    intercept_ : float
        Intercept (linear); for the mlp, the output bias.
    coefs_, intercepts_ : list of arrays
        Layer weights and biases (mlp only).
    n_iter_ : int
        Gradient steps (queries) run.
    solver_ : str
        The solver that ran (resolves ``'auto'``).
    clip_norm_ : float
        The per-sample gradient clip used (batch solvers).
    rho_ : float
        Total of the fit's privacy filter (sum of the releases'
        ``Delta**2 / (2 sigma**2)``): ``mu**2 / 2`` with ``mu =
        approx_dp_to_gdp(epsilon, delta)`` for the solvers made of Gaussian
        releases only (``'adaptive_gd'``, ``'noisy_gd'``, ``'spider'``,
        ``'ppm'``; exact Gaussian-DP calibration, see :func:`fit_budget`),
        else the zCDP budget ``approx_dp_to_zcdp(epsilon, delta)``.
    history_ : list of dict
        Per-step log (noise scale, cost, ...); empty for the streaming solvers.
    goldstein_certificate_ : float
        Goldstein solvers only: ``||mean of the noisy gradients||`` over the
        released window, a private proxy for the Goldstein gap.
    goldstein_config_ : dict
        Goldstein solvers only: the resolved public constants (``D``, ``M``,
        ``Sigma``, noise, ...).
    delta_ : float
        The delta of the fit: ``delta``, or what ``'auto'`` resolved to.
    privacy_spent_ : tuple of float
        (epsilon, delta) of what the fit released, from its ledger. After
        :meth:`partial_fit` passes with ``stream_chunks='repeated'``: the
        composition of the passes (every pass's mechanism, at the sum of their
        deltas, as the accountant composes them), above one pass's epsilon.
    privacy_method_ : str
        Composition rule of ``privacy_spent_``.
    privacy_ledger_ : PrivacyLedger
        Every release (``privacy_ledger_.log()`` is the per-step log).
    feature_bound_, target_bound_ : float
        Bounds used.
    n_features_in_ : int
        Number of features.
    feature_names_in_ : ndarray of str
        Column names of ``X``; defined when ``X`` has string column names.

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
    M. Menart, E. Ullah, R. Arora, R. Bassily, C. Guzman. Differentially
    private non-convex optimization under the KL condition with optimal
    rates (paper 004).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.regression import KLAdaptiveRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20000, 5)) / 3
    >>> y = np.clip(X @ np.array([1.0, -1.0, 0.5, 0.0, 0.2]), -1, 1)
    >>> reg = KLAdaptiveRegressor(epsilon=1.0, random_state=0).fit(X, y)
    >>> reg.solver_
    'adaptive_gd'
    >>> bool(reg.score(X, y) > 0.9)
    True
    """

    _solver_specs = SOLVER_SPECS  # the registry the mixins read (partial_fit's solvers)

    _moved_to_options = {"smoothness": "smoothness", "goldstein_radius": "radius",
                         "precondition": "precondition", "snr": "snr", "beta": "beta"}

    _published = {
        "coef_": "release",            # the solver's noisy iterate (times the released P)
        "intercept_": "release",
        "coefs_": "release",           # the mlp's layers, from the same iterate
        "intercepts_": "release",
        "n_iter_": "post",             # adaptive solvers stop on released norms
        "solver_": "public",           # 'auto' on public things (the KL constants, X's shape)
        "clip_norm_": "post",          # the parameter, the bound rule, or the released quantile
        "rho_": "public",              # the filter's total, from epsilon and delta
        "history_": "post",            # per-step noise scales and costs
        "goldstein_certificate_": "post",  # the norm of the mean of noisy gradients
        "goldstein_config_": "public",     # constants from public bounds
        "feature_bound_": "public",    # the parameter ('data': a leak, warned)
        "target_bound_": "public",
    }

    _parameter_constraints = {
        "epsilon": EPSILON_CONSTRAINT,
        "delta": DELTA_CONSTRAINT,
        "solver": [StrOptions({"auto"} | set(SOLVER_SPECS))],
        "loss": [StrOptions(set(LOSSES))],
        "model": [StrOptions(set(MODELS))],
        "feature_bound": BOUND_CONSTRAINT + [StrOptions({"data"})],
        "target_bound": BOUND_CONSTRAINT + [StrOptions({"data"})],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "kl_gamma": [Interval(Real, 0, None, closed="neither"), None],
        "kl_kappa": [Interval(Real, 1, None, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "clip_norm": [Interval(Real, 0, None, closed="neither"), None],
        "smoothness": [Interval(Real, 0, None, closed="neither"), None, _DEPRECATED],
        "huber_delta": [Interval(Real, 0, None, closed="neither")],
        "truncation": [Interval(Real, 0, None, closed="neither")],
        "goldstein_radius": [Interval(Real, 0, None, closed="neither"), None, _DEPRECATED],
        "p": [Interval(Real, 1, 2, closed="neither")],
        "hidden_units": [Interval(Integral, 1, None, closed="left")],
        "precondition": [Interval(Real, 0, 1, closed="left"), _DEPRECATED],
        "snr": [Interval(Real, 0, None, closed="neither"), _DEPRECATED],
        "beta": [Interval(Real, 0, 1, closed="neither"), _DEPRECATED],
        "theory": ["boolean"],
        "solver_options": [dict, None],
        "stream_chunks": [StrOptions(set(STREAM_CHUNKS))],
        "accountant": ACCOUNTANT_CONSTRAINT,
        "random_state": ["random_state", np.random.Generator],
        "verbose": ["verbose"],
    }

    def __init__(self, epsilon=1.0, delta="auto", solver="auto", loss="squared", model="linear",
                 feature_bound=1.0, target_bound=1.0, alpha=0.0, fit_intercept=True,
                 kl_gamma=None, kl_kappa=None, max_iter=None, clip_norm=None,
                 smoothness="deprecated", huber_delta=0.5, truncation=1.0,
                 goldstein_radius="deprecated", p=1.5, hidden_units=16,
                 precondition="deprecated", snr="deprecated", beta="deprecated",
                 theory=False, solver_options=None, stream_chunks="repeated", accountant=None,
                 random_state=None, verbose=0):
        self.epsilon = epsilon
        self.delta = delta
        self.solver = solver
        self.loss = loss
        self.model = model
        self.feature_bound = feature_bound
        self.target_bound = target_bound
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.kl_gamma = kl_gamma
        self.kl_kappa = kl_kappa
        self.max_iter = max_iter
        self.clip_norm = clip_norm
        self.smoothness = smoothness
        self.huber_delta = huber_delta
        self.truncation = truncation
        self.goldstein_radius = goldstein_radius
        self.p = p
        self.hidden_units = hidden_units
        self.precondition = precondition
        self.snr = snr
        self.beta = beta
        self.theory = theory
        self.solver_options = solver_options
        self.stream_chunks = stream_chunks
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ fit
    def _kl_constants(self, loss):
        """(gamma, kappa): given, or public through ridge (``alpha``-strongly convex: PL with
        ``gamma = 1/sqrt(2 alpha)``).

        A convex loss plus ``alpha/2 ||w||**2`` is alpha-strongly convex, hence
        PL: kappa = 2, gamma = 1/sqrt(2 alpha) (Karimi–Nutini–Schmidt 2016).
        """
        gamma, kappa = self.kl_gamma, self.kl_kappa
        if self.alpha > 0 and self.loss in ("squared", "huber") and self.model == "linear":
            gamma = gamma if gamma is not None else 1.0 / math.sqrt(2.0 * self.alpha)
            kappa = kappa if kappa is not None else 2.0
        return gamma, kappa

    def goldstein_gap(self, X, y, radius=None, n_points=200, random_state=None):
        """Certified upper bound on the Goldstein gap of the fitted model on ``(X, y)``.

        The minimum norm of the convex hull of exact gradients of the
        empirical loss at the fitted weights and at ``n_points`` uniform
        points of the ball of ``radius`` around them, in the solver's
        (clipped, preconditioned) coordinates: an upper bound on
        ``||grad-bar_radius F(w)||`` (paper 001 Def. 2.1;
        :func:`~skdp.solvers.goldstein.goldstein_gap`). **Not private**: it
        reads ``X`` and ``y``; use it on data you may look at.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.
        y : array-like of shape (n_samples,)
            Targets (clipped to the target bound, as in ``fit``).
        radius : float, default=None
            Ball radius; None: ``2 alpha`` of the fit (the radius of paper
            001's guarantee), or 0.1 for the other solvers.
        n_points : int, default=200
            Sampled points.
        random_state : int, RandomState instance or None, default=None
            Seeds the sampled points.

        Returns
        -------
        gap : float
            Norm of the minimum-norm point of the sampled gradients' convex hull.
        """
        check_is_fitted(self)
        if self.model != "linear":
            raise ValueError("goldstein_gap needs model='linear'.")
        X, y = validate_data(self, X, y, reset=False, y_numeric=True, dtype=[np.float64])
        xp = get_namespace(X)
        low = 0.0 if self.loss == "sigmoid" else -self.target_bound_
        y = xp.clip(xp.astype(y, X.dtype), low, self.target_bound_)
        Xd = self._design(X, xp)
        if self._precond is not None:
            Xd = Xd @ self._precond
        loss = make_loss(self.loss, huber_delta=self.huber_delta, p=self.p,
                         truncation=self.truncation)
        problem = regression_glm(Objective(Xd, y, loss, LinearModel(int(Xd.shape[1])),
                                          float(self.alpha), xp))
        if radius is None:
            radius = 2 * self.goldstein_config_["radius"] if hasattr(
                self, "goldstein_config_") else 0.1
        return goldstein_gap(problem, self._w, float(radius), int(n_points), random_state)

    def _check_solver(self, solver, loss, gamma, kappa):
        models = SOLVER_SPECS[solver].models
        if not SOLVER_SPECS[solver].has(model=self.model):
            raise ValueError(f"solver={solver!r} supports model="
                             f"{' or '.join(map(repr, models))} only.")
        if not SOLVER_SPECS[solver].has(loss=self.loss):
            raise ValueError(f"solver={solver!r} supports loss="
                             f"{' or '.join(map(repr, SOLVER_SPECS[solver].losses))} only.")
        if solver == "spider" and (gamma is None or kappa is None):
            raise ValueError("solver='spider' needs the KL constants: give kl_gamma and "
                             "kl_kappa, or alpha > 0 (then gamma = 1/sqrt(2 alpha), kappa = 2).")
        if solver == "spider" and kappa > 2:
            raise ValueError(f"solver='spider' needs kl_kappa <= 2, got {kappa}; use 'ppm'.")
        if not loss.smooth and solver in ("spider", "adaptive_gd", "stationary_gd"):
            warnings.warn(f"loss={self.loss!r} is not smooth: solver={solver!r} keeps its "
                          "privacy (clipping) but loses its utility guarantee; "
                          "solver='ppm' suits it.", UserWarning, stacklevel=3)

    @staticmethod
    def _float_dtypes(X):
        xp = get_namespace(X)
        if is_numpy(xp):
            return [np.float64, np.float32]
        return [xp.float64, xp.float32]

    def _publish_bounds(self, max_row_norm, max_abs_target):
        """Publish ``feature_bound_`` and ``target_bound_`` (:meth:`_bounds`)."""
        feature_bound, target_bound = self._bounds(max_row_norm, max_abs_target)
        self._publish(feature_bound_=feature_bound, target_bound_=target_bound)

    def _bounds(self, max_row_norm, max_abs_target):
        """(feature_bound_, target_bound_): the parameters, or for ``'data'`` the maxima
        ``max_row_norm()`` / ``max_abs_target()`` of the data (warns ``PrivacyLeakWarning``)."""
        if self.feature_bound == "data":
            warn_privacy_leak("feature_bound", "Pass a public feature_bound (a float).")
            fb = max_row_norm()
            fb = (check_bound(fb, "feature_bound='data' (the largest row norm of X)") if fb > 0
                  else 1.0)
        else:
            fb = float(self.feature_bound)
        if self.loss == "sigmoid":
            return fb, 1.0
        if self.target_bound == "data":
            warn_privacy_leak("target_bound", "Pass a public target_bound (a float).")
            tb = max_abs_target()
            tb = check_bound(tb, "target_bound='data' (the largest |y|)") if tb > 0 else 1.0
        else:
            tb = float(self.target_bound)
        return fb, tb

    def _design(self, X, xp):
        """Clipped features, plus the constant column for a linear intercept."""
        X = clip_rows(X, self.feature_bound_, xp)
        if self.fit_intercept and self.model == "linear":
            ones = xp.full((X.shape[0], 1), self.feature_bound_, dtype=X.dtype,
                           device=array_api_compat.device(X))
            X = xp.concat([X, ones], axis=1)
        return X

    def _design_operator(self, X, xp):
        """Clipped features as a :class:`~skdp.solvers.kl.models.Design` on the user's ``X``,
        not a copy (issue 31): the rows' clip factors ``min(1, B / ||x_i||)`` are applied on
        the fly (None when no row is beyond the bound: the design is then ``X`` itself, and
        every product is the one on a clipped copy, bit for bit), as are the intercept
        column and ``P``. Rows whose squared norm overflows are replaced first (a copy only
        then, :func:`~skdp.privacy.clipping.clip_overflowing_rows`). Where every row is within
        the bound (:func:`~skdp.privacy.clipping.row_bound_status`, checked in blocks), no
        norm or factor array is made at all (the same design: every factor would be exactly
        1); where none overflows, the factors are the only (n,) array made."""
        linear_intercept = self.fit_intercept and self.model == "linear"
        # one pass in blocks: within the bound (no factor array), or the factors (the only
        # (n,) array), or None: a squared norm overflows
        status, scale = row_clip_factors(X, self.feature_bound_, xp)
        if status is None:
            X, norms = clip_overflowing_rows(X, self.feature_bound_, xp, return_norms=True)
            factors = clip_factors(norms, self.feature_bound_, xp)
            scale = None if bool(xp.all(factors == 1)) else factors
        return Design(X, self.feature_bound_ if linear_intercept else None, None, xp, scale)

    @staticmethod
    def _settings(spec, options):
        """The options the estimator reads (its :class:`SolverConfig` and its budget split),
        taken out of the solver's ``options``: ``smoothness``, ``precondition``, ``snr``,
        ``beta`` (their defaults where the solver does not read them) and the Goldstein
        solvers' smoothing ``radius`` (left in ``options``; srgd's ``radius`` is srgd's)."""
        settings = {key: options.pop(key, default) for key, default in _ESTIMATOR_KEYS.items()}
        settings["radius"] = options.get("radius") if spec.family == "goldstein" else None
        return settings

    def _config(self, loss, model, row_sq, top_eig, gamma, kappa, settings):
        """Solver constants from public bounds (and the released ``S_hat``)."""
        clip = self.clip_norm or loss.residual_bound(self.target_bound_) * math.sqrt(row_sq)
        curvature = loss.curvature(self.target_bound_)
        smoothness = settings["smoothness"]
        return SolverConfig(
            clip=float(clip), smoothness=float(smoothness or curvature * top_eig),
            diff_clip=float(smoothness or curvature * row_sq), n_params=model.n_params,
            beta=settings["beta"], snr=settings["snr"], max_iter=self.max_iter, kl_gamma=gamma,
            kl_kappa=kappa, loss_bound=loss.value_bound(self.target_bound_),
            theory=self.theory, smooth=loss.smooth, radius=settings["radius"],
            verbose=self.verbose)

    def _precondition(self, Xd, budget, share):
        """Private whitening: (design in new coordinates, P, row_sq, top eigenvalue).

        Without it: ``row_sq`` is the public squared row-norm bound, which
        bounds the top eigenvalue too. With it, both come from the released
        ``S_hat`` (post-processing): ``row_sq = tr(P S_hat P)`` (mean squared
        row norm in the new coordinates) and the top eigenvalue of
        ``P S_hat P`` (``S_hat``'s eigenvalues floored at 0).
        """
        xp = budget.backend.xp
        row_sq = self.feature_bound_**2 * (2.0 if Xd.shape[1] > self.n_features_in_ else 1.0)
        if share == 0:
            return Xd, None, row_sq, row_sq
        P, spectrum, bound = private_preconditioner(Xd, math.sqrt(row_sq), budget)
        floor = 1e-3  # only reached when S_hat is all noise
        return (Xd.preconditioned(P, bound), P,
                max(float(xp.sum(spectrum)), floor * int(Xd.shape[1])),
                max(float(xp.max(spectrum)), floor))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the model privately.

        Parameters
        ----------
        X : array-like or Dask array of shape (n_samples, n_features)
            Training data (rows scaled to norm ``feature_bound``). A Dask array
            (or Dask DataFrame of numbers) is fitted where its partitions live:
            each data pass is one reduction over them, the noise is drawn on
            the client, and the fit equals the in-memory one of the same seed
            up to floating-point round-off (the solvers whose spec says ``dask``; the
            streaming solvers run chunk after chunk of fixed size, as ``fit`` then
            ``partial_fit``, calibrated from the row count; any other raises
            ``ValueError``). See the
            :ref:`User Guide <kl_regression_dask>`.
        y : array-like or Dask array of shape (n_samples,)
            Targets (clipped to the target bound). With a Dask ``X``: a Dask
            array or Series, or a NumPy array split like the rows of ``X``.

        Returns
        -------
        self : KLAdaptiveRegressor
            Fitted estimator.
        """
        return self._fit_atomically(X, y)

    @available_if(has_streaming_solver)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y):
        """Continue the private stream with a chunk of records.

        Only for the streaming solvers (``'srgd'``, ``'srg_memf'``, ``'memf'``,
        ``'dpsgd'``): one pass over the chunk (each record used once in it),
        continuing the model of the earlier calls (or of :meth:`fit`, which
        starts a new stream); the first call starts the stream. The noise and
        batch size are calibrated when the stream starts, from
        ``solver_options['n_rows']`` or the first chunk's size
        (``feature_bound='data'`` and ``target_bound='data'`` are read from the
        first chunk only).

        **Privacy.** With ``stream_chunks='repeated'`` (the default) each call
        is a new pass, which may read records read before (epochs): it is
        charged ``(epsilon, delta)`` on the accountant, reserved before the
        chunk is read, and recorded as a new mechanism with fresh noise, and
        ``privacy_spent_`` becomes the composition of the passes (``k``
        passes: ``mu sqrt(k)``-GDP). With ``stream_chunks='disjoint'`` you
        declare that the chunks hold different records: the calls are then
        one (epsilon, delta)-DP stream, charged once, by the call that starts
        it (the noise runs on; see :mod:`skdp.solvers.streaming.srgd`).

        The live stream is secret and stays in this process: a pickle or a
        copy of the model does not carry it, and such a model refuses
        ``partial_fit`` until :meth:`resume` gets a :meth:`checkpoint`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New records.
        y : array-like of shape (n_samples,)
            Their targets.

        Returns
        -------
        self : KLAdaptiveRegressor
            The regressor, updated.
        """
        return self._fit_atomically(X, y, partial=True)

    def _auto_shape(self, X, run):
        """``{"rows": n_samples, "size": n_samples * n_features}`` for the ``'auto'`` rule:
        the public shape of ``X`` (0 where the rule does not look at it: a non-private fit,
        an MLP, ``partial_fit``), with ``features`` and the fit's ``mu`` (from ``epsilon``
        and ``delta``: public) for the squared loss on an in-memory ``X`` (the rule's
        ``ssp``)."""
        if self.solver != "auto" or math.isinf(self.epsilon) or self.model != "linear":
            return {"rows": 0, "size": 0}
        try:
            rows, features = _num_samples(X), _num_features(X)
        except TypeError:  # not array-like: validate_data names the problem
            return {"rows": 0, "size": 0}
        shape = {"rows": rows, "size": rows * features}
        if self.loss == "squared" and not is_dask_collection(X):
            mu = math.sqrt(2.0 * fit_budget(run.epsilon, run.delta, "ssp"))
            shape.update(features=features, mu=mu)
        return shape

    def _stream_params(self):
        return (self.solver, float(self.epsilon), self.delta, self.loss, self.model,
                self.feature_bound, self.target_bound, self.alpha, self.fit_intercept,
                self.clip_norm, self.theory, repr(self.solver_options), self.hidden_units)

    # -- the fit template's hooks (PrivateEstimator._fit runs the sequence) ----------------
    def _prepare(self, run):
        """Step 1: the loss, the KL constants, the solver and its options (no row read).
        A streaming solver on a Dask collection streams chunk by chunk; a Dask collection
        whose row counts are unknown reserves before they are computed."""
        X, partial = run.X, run.partial
        on_dask = is_dask_collection(X)
        if on_dask and self.solver in solvers_with(SOLVER_SPECS, streaming=True):
            spec = SOLVER_SPECS[self.solver]
            spec.resolve_options(self._solver_options(spec))  # before any read
            run.stream_dask = True
            return
        loss = make_loss(self.loss, huber_delta=self.huber_delta, p=self.p,
                         truncation=self.truncation)
        gamma, kappa = self._kl_constants(loss)
        if on_dask:
            X = check_dask_X(X, compute_rows=False)  # its metadata: no partition computed
            if rows_unknown(X):  # the row counts are computed from the rows: reserve first
                self._check_before_rows(loss, gamma, kappa)
                self._reserve_ahead()
                X = known_rows(X)
        solver = resolve_solver(self.solver, gamma, kappa, loss.smooth,
                                robust=self.loss in ROBUST_LOSSES, **self._auto_shape(X, run))
        if on_dask:
            check_dask_solver(type(self).__name__, solver, choices_with(SOLVER_SPECS, dask=True))
        spec = SOLVER_SPECS[solver]
        options = spec.resolve_options(self._solver_options(spec))  # before any data or charge
        settings = self._settings(spec, options)
        if spec.streaming and options.get("n_rows") is None:
            options["n_rows"] = getattr(self, "_stream_rows", None)  # a Dask stream's length
        run.X, run.solver, run.spec, run.options = X, solver, spec, options
        run.loss, run.gamma, run.kappa, run.settings = loss, gamma, kappa, settings
        if spec.streaming:  # fit starts a stream; partial_fit continues it (a pass or a chunk)
            state, run.charged = self._stream_to_continue(partial)
            run.state, run.read_kwargs = state, {"stream": (state,)}
            run.stream_ledger = None if run.charged else self.privacy_ledger_
            if options["clip"] is None and self.clip_norm is not None:
                options["clip"] = float(self.clip_norm)
        else:
            self._check_solver(solver, loss, gamma, kappa)

    def _budget_plan(self, run):
        """Step 4: :func:`budget_plan` of the solver."""
        return budget_plan(run.solver)

    def _build_problem(self, run):
        """Step 4: the batch problem (private preconditioner and clip first, on shares of the
        fit's budget) or the streaming one (the whole budget to the stream)."""
        self._publish(rho_=run.budget.rho)
        build = self._stream_problem if run.spec.streaming else self._batch_problem
        run.problem, run.solver_budget, run.P = build(run)

    def _after_dispatch(self, run):
        """Step 6: ``history_``, the coefficients (in the original coordinates), the stream."""
        result = run.result
        self._publish(history_=result.history)
        self._set_coef(result.solution, run.problem.objective.model, run.P,
                       run.budget.backend.xp)
        self._keep_stream(result.state)

    @staticmethod
    def _dask_column(column):
        """A Dask Series target as a Dask array (:func:`_dask_target`)."""
        return _dask_target(column)

    def _check_before_rows(self, loss, gamma, kappa):
        """The solver checks of a Dask fit whose row count is not known yet (a Dask
        DataFrame), run before its budget is reserved: ``'auto'`` may give either solver
        of its size rule, and a mistake is refused here when it is one for both (it is
        checked again, on the solver the row count gives, once the budget is reserved)."""
        robust = self.loss in ROBUST_LOSSES
        names = dict.fromkeys(resolve_solver(self.solver, gamma, kappa, loss.smooth,
                                             robust=robust, size=size)
                              for size in (0, AUTO_SUBSAMPLE))
        errors = []
        for name in names:
            try:
                check_dask_solver(type(self).__name__, name, choices_with(SOLVER_SPECS, dask=True))
                SOLVER_SPECS[name].resolve_options(self._solver_options(SOLVER_SPECS[name]))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    self._check_solver(name, loss, gamma, kappa)
            except (ValueError, TypeError) as exc:
                errors.append(exc)
        if len(errors) == len(names):
            raise errors[0]

    def _batch_problem(self, run):
        """(problem, solver budget, P) of a fit that reads the data as often as it likes:
        ``settings['precondition']`` of ``rho`` goes to the private preconditioner, a
        ``CLIP_SHARE`` to the private clip (where it is informative), the rest to the
        solver."""
        Xd, y, backend = run.rows.X, run.rows.y, run.rows.backend
        xp = backend.xp
        loss, solver, settings, fit = run.loss, run.solver, run.settings, run.budget
        # a solver on sufficient statistics reads the design once and is not preconditioned
        share = (0.0 if SOLVER_SPECS[solver].family == "suffstats"
                 else float(settings["precondition"]))
        Xd, P, row_sq, top_eig = self._precondition(
            Xd, fit.share(share * self.rho_, exclusive=True), share)
        model = (MLPModel(int(Xd.shape[1]), self.hidden_units) if self.model == "mlp"
                 else LinearModel(int(Xd.shape[1])))
        objective = (PartitionedObjective(Xd, loss, model, float(self.alpha))
                     if isinstance(Xd, PartitionedDesign)
                     else Objective(Xd, y, loss, model, float(self.alpha), xp))
        config = self._config(loss, model, row_sq, top_eig, run.gamma, run.kappa, settings)
        config.row_sq, config.target_bound = row_sq, self.target_bound_
        w0 = model.init(backend, Xd.dtype)
        config.loss_bound += 0.5 * self.alpha * float(xp.sum(w0 * w0))
        rest = (1.0 - share) * self.rho_
        if self._adaptive_clip(solver, objective.n):
            clip_budget = fit.share(CLIP_SHARE * self.rho_, exclusive=True)
            config.clip = self._private_clip(objective, w0, config.clip, clip_budget)
            rest -= clip_budget.rho
        self._publish(clip_norm_=config.clip)
        budget = fit.share(rest, exclusive=True)
        return KLProblem(objective, w0, config), budget, P

    def _read_rows(self, X, y, stream=None):
        """Step 3: the rows are read from here on (a failure keeps the reservation)."""
        self._reading_data()
        return super()._read_rows(X, y, **({} if stream is None else {"stream": stream}))

    def _read_arrays(self, X, y, stream=None):
        """:class:`~skdp._base.Rows` (design ``X``, clipped ``y``, backend) of in-memory
        arrays: validated, bounded, clipped. ``stream=(state,)``: a streaming call's chunk
        (:meth:`_read_chunk`)."""
        if stream is not None:
            return self._read_chunk(X, y, *stream)
        X, y = validate_data(self, X, y, y_numeric=True, dtype=self._float_dtypes(X))
        warn_large_delta(self.delta_, X.shape[0])
        backend = Backend.from_arrays(X, random_state=self.random_state)
        xp = backend.xp
        y = backend.move(y)  # y of another namespace or device follows X, in X's dtype
        y = y if y.dtype == X.dtype else xp.astype(y, X.dtype)
        self._publish_bounds(lambda: float(xp.max(row_norms(X, xp))),
                             lambda: float(xp.max(xp.abs(y))))
        low = 0.0 if self.loss == "sigmoid" else -self.target_bound_
        return Rows(backend, X=self._design_operator(X, xp),
                    y=_clipped_targets(y, low, self.target_bound_, xp))

    def _read_chunk(self, X, y, state):
        """:class:`~skdp._base.Rows` (dense clipped design, clipped y, backend) of a streaming
        call's chunk; ``state``:
        the stream it continues (None: a new stream, whose bounds the chunk sets)."""
        X, y = validate_data(self, X, y, y_numeric=True, dtype=self._float_dtypes(X),
                             reset=state is None)
        if state is None:
            warn_large_delta(self.delta_, X.shape[0])
        backend = Backend.from_arrays(X, random_state=self.random_state if state is None
                                      else state.rng)
        xp = backend.xp
        y = xp.astype(y, X.dtype)
        if state is None:
            self._publish_bounds(lambda: float(xp.max(row_norms(X, xp))),
                                 lambda: float(xp.max(xp.abs(y))))
        low = 0.0 if self.loss == "sigmoid" else -self.target_bound_
        return Rows(backend, X=self._design(X, xp), y=xp.clip(y, low, self.target_bound_))

    def _read_dask(self, X, y):
        """:class:`~skdp._base.Rows` (partitioned design, no ``y``, backend) of Dask input:
        each partition validated
        (the NumPy path's messages), bounded and clipped where it lives, then persisted;
        ``'data'`` bounds are maxima over the partitions (one pass each)."""
        y = check_dask_y(_dask_target(y), X)
        n, d = int(X.shape[0]), int(X.shape[1])
        if n < 1:
            raise ValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a minimum "
                             f"of 1 is required by {type(self).__name__}.")
        self._publish(n_features_in_=d)
        self.__dict__.pop("feature_names_in_", None)
        warn_large_delta(self.delta_, n)
        backend = Backend.from_arrays(np.zeros(0, X.dtype), random_state=self.random_state)
        raw = Partitions.from_arrays({"X": X, "y": y}, prepare=_checked_rows, persist=False)
        self._publish_bounds(lambda: max(raw.map(_max_row_norm)),
                             lambda: max(raw.map(_max_abs_target)))
        low = 0.0 if self.loss == "sigmoid" else -self.target_bound_
        parts = raw.with_parts(_clipped_rows, self.feature_bound_, low, self.target_bound_)
        intercept = self.feature_bound_ if self.fit_intercept and self.model == "linear" else None
        return Rows(backend, X=PartitionedDesign(parts, d, intercept, None, X.dtype), y=None)

    def _adaptive_clip(self, solver, n):
        """The clip comes from a private quantile: no ``clip_norm``, private, a paper-004 solver,
        not ``theory`` (which keeps the Lipschitz bound of the paper)."""
        return (self.clip_norm is None and not self.theory and math.isfinite(self.rho_)
                and SOLVER_SPECS[solver].family == "kl"
                and _quantile_noise(min(n, CLIP_ROWS), CLIP_SHARE * self.rho_) <= CLIP_NOISE_TOL)

    @staticmethod
    def _private_clip(objective, w0, bound, budget):
        """The ``CLIP_QUANTILE`` quantile of the per-sample gradient norms at ``w0``, released on
        the grid ``bound * 2**(-k/2)`` (:func:`~skdp.privacy.quantile.private_quantile`: one
        Gaussian histogram, all of ``budget``). Above ``CLIP_ROWS`` rows it reads a random
        subset of ``CLIP_ROWS`` of them, drawn from the public generator (data-independent):
        replacing one record changes at most one row of the subset, so the histogram's
        sensitivity is unchanged, and its fractions are over the subset's public size."""
        grid = [bound * 2.0 ** (-k / 2.0) for k in reversed(range(CLIP_GRID))]
        if objective.n <= CLIP_ROWS:
            counts, n = objective.grad_norm_counts(w0, grid), objective.n
        else:
            rng = budget.backend.public_rng
            idx = np.sort(rng.choice(objective.n, CLIP_ROWS, replace=False))
            counts = objective.grad_norm_counts(w0, grid, budget.backend.asarray(idx))
            n = CLIP_ROWS
        return private_quantile_of_counts(counts, n, CLIP_QUANTILE, grid, budget,
                                          budget.rho, label="gradient-norm histogram")[0]

    def _stream_problem(self, run):
        """(problem, budget, P) of a streaming call: ``fit`` starts a stream, ``partial_fit``
        continues it, as a new pass (charged: a fresh ledger) or as a disjoint chunk of the
        stream (uncharged, ``stream_chunks='disjoint'``: its stream's ledger);
        :meth:`~skdp._partial_fit.StreamingMixin._stream_to_continue`."""
        Xd, y, backend = run.rows.X, run.rows.y, run.rows.backend
        xp = backend.xp
        row_sq = self.feature_bound_**2 * (2.0 if Xd.shape[1] > self.n_features_in_ else 1.0)
        model = (MLPModel(int(Xd.shape[1]), self.hidden_units) if self.model == "mlp"
                 else LinearModel(int(Xd.shape[1])))
        config = self._config(run.loss, model, row_sq, row_sq, None, None, run.settings)
        w0 = model.init(backend, Xd.dtype) if run.state is None else None
        objective = Objective(Xd, y, run.loss, model, float(self.alpha), xp)
        return KLProblem(objective, w0, config, state=run.state), run.budget, None

    def _set_coef(self, w, model, P, xp):
        self._w, self._model, self._precond = w, model, P
        if self.model == "mlp":
            W, b, v, c = model.unpack(w, xp)
            W = W if P is None else W @ P.T
            self._publish(coefs_=[W.T, v[:, None]], intercepts_=[b, c], coef_=w,
                          intercept_=float(c))
            return
        w = w if P is None else P @ w
        if self.fit_intercept:
            self._publish(coef_=w[:-1], intercept_=float(w[-1]) * self.feature_bound_)
        else:
            self._publish(coef_=w, intercept_=0.0)

    # -------------------------------------------------------------- predict
    def predict(self, X):
        """Predict targets.

        Parameters
        ----------
        X : array-like or Dask array of shape (n_samples, n_features)
            Samples (rows scaled to norm ``feature_bound_``, as in ``fit``).

        Returns
        -------
        y : array or Dask array of shape (n_samples,)
            Predictions (in [0, 1] for ``loss='sigmoid'``); for a Dask ``X``, a
            Dask array computed partition by partition.
        """
        check_is_fitted(self)
        if sklearn.get_config().get("array_api_dispatch", False):
            if get_namespace(X) is not get_namespace(self._w):
                raise ValueError(f"Inputs passed to {type(self).__name__}.predict() must use "
                                 "the same namespace and the same device as those passed "
                                 "to fit().")
        if is_dask_collection(X):
            return self._predict_partitions(X)
        X = validate_data(self, X, reset=False, dtype=self._float_dtypes(X))
        return _Predictor(self)(X)

    def _predict_partitions(self, X):
        """Predictions of a Dask array, partition by partition (``map_blocks``): a Dask array."""
        X = check_dask_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")
        X = X.rechunk({1: -1})
        return X.map_blocks(_predict_block, _Predictor(self), drop_axis=1, dtype=X.dtype,
                            meta=np.zeros(0, dtype=X.dtype))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.array_api_support = True
        tags.regressor_tags.poor_score = True  # DP noise at the default epsilon on tiny data
        return tags

    def _expected_failed_checks(self):
        return {}


class _Predictor:
    """The fitted model's prediction of validated rows (public attributes only: it is what
    :meth:`KLAdaptiveRegressor.predict` sends to the partitions of a Dask array)."""

    def __init__(self, est):
        self.bound, self.model, self.loss = est.feature_bound_, est._model, est.loss
        self.mlp = est.model == "mlp"
        self.w, self.P = est._w, est._precond
        self.coef, self.intercept = est.coef_, est.intercept_

    def __call__(self, X):
        xp = get_namespace(X)
        X = clip_rows(X, self.bound, xp)
        if self.mlp:
            if self.P is not None:
                X = X @ xp.astype(self.P, X.dtype)
            z = self.model.forward(xp.astype(self.w, X.dtype), X, xp)[0]
        else:
            z = X @ xp.astype(self.coef, X.dtype) + self.intercept
        if self.loss == "sigmoid":
            z = make_loss("sigmoid").link(z, xp)
        return z


def _predict_block(X, predictor):
    return predictor(check_finite(X))


# Per-partition steps of a fit on a Dask collection (module-level: sent to the workers).

def _clipped_targets(y, low, high, xp):
    """``xp.clip(y, low, high)``, without a copy where no target is beyond the bounds (two
    reductions: the clip would return the same numbers, -0.0 included); a NumPy ``y``
    kept is a read-only view, so no step can write into the caller's array."""
    if bool(xp.min(y) >= low) and bool(xp.max(y) <= high):  # in y's dtype, as the clip
        if isinstance(y, np.ndarray):
            y = y.view()
            y.flags.writeable = False
        return y
    return xp.clip(y, low, high)


def _dask_target(y):
    """A Dask Series or DataFrame column as a Dask array (its values stay where they are)."""
    if is_dask_collection(y) and hasattr(y, "to_dask_array"):
        return y.to_dask_array(lengths=True)
    return y


def _checked_rows(part):
    """A partition validated as ``validate_data`` does (finite values), ``y`` in ``X``'s dtype."""
    X = check_finite(part["X"])
    return {"X": X, "y": check_finite(part["y"], "y").astype(X.dtype)}


def _max_row_norm(part):
    X = part["X"]
    return float(np.max(row_norms(X))) if X.shape[0] else 0.0


def _max_abs_target(part):
    y = part["y"]
    return float(np.max(np.abs(y))) if y.shape[0] else 0.0


def _clipped_rows(part, feature_bound, low, target_bound):
    """Rows scaled to norm ``feature_bound``, targets clipped to ``[low, target_bound]``."""
    return {"X": clip_rows(part["X"], feature_bound), "y": np.clip(part["y"], low, target_bound)}


def _quantile_noise(n, rho):
    """sd of the clip histogram's noisy cumulative fraction at the top of the grid (public):
    ``sqrt(CLIP_GRID) sigma / n``, ``sigma = sqrt(2) / sqrt(2 rho)``."""
    return math.sqrt(CLIP_GRID) * HISTOGRAM_SENSITIVITY / math.sqrt(2.0 * rho) / n

