"""Constants of the paper-001 solvers: options, the practical defaults and their calibration.

Everything here is computed from public quantities (``n``, ``d``, the
budget, the bounds ``L`` and ``Phi``) before any data is read: the schedule
``(T, D, M, Sigma)``, batch sizes, clips and the noise scales that spend the
solver's zCDP budget exactly (clipped per-sample estimates, Lagrange-optimal noise split, theory
constants set to 1; the module doc of
:mod:`skdp.solvers.goldstein.o2nc` gives the algorithms and their privacy).
"""

from dataclasses import dataclass, field
import math

from ...privacy.tree import max_nodes_per_leaf, tree_sigma
from ..spec import Option

__all__ = ["PRACTICAL", "GOLDSTEIN_OPTIONS", "RADIUS_OPTION", "GoldsteinConfig", "goldstein_config",
           "multi_pass_sigmas", "single_pass_steps", "theory_max_step"]

PRACTICAL = dict(
    radius_scale=0.1,   # alpha = radius_scale * Phi / L (the paper needs alpha <= Phi / L)
    step_scale=0.5,     # single pass: D = step_scale * D_theory
    period_fraction=0.05,  # single pass: Sigma = period_fraction * n (B1 = Sigma)
    travel=2.0,         # multi pass: D T = travel * Phi / L
    multi_directions=4,  # multi pass: shared difference directions per sample
    multi_iter=200,     # multi pass: T
    fo_directions=16,   # FO difference perturbations per sample (shared)
    zo_directions=16,   # ZO difference directions per sample (shared)
    zo_anchor_factor=4,  # ZO anchor directions m1 = factor * d
    multi_anchor_factor=1,  # ... in the multi-pass solver (full batches average anyway)
    diff_clip_scale=1.0,  # c2 in C2 = c2 * 4 C1 sqrt(d) D / alpha (single pass: C1 B2 / B1)
    tail=0.5,           # practical window: M >= tail * T (tail averaging)
)


OPTION_KEYS = ("max_step", "window", "period", "anchor_batch", "diff_batch", "anchor_directions",
               "diff_directions", "diff_clip", "target_beta", "output")


RADIUS_OPTION = Option("radius", "float", None, low=0, low_open=True,
                       doc="smoothing radius alpha (guarantee at 2 alpha; "
                           "None: radius_scale Phi / L)")
"""The estimators' ``solver_options['radius']`` of the Goldstein solvers (read by the estimator,
which passes it to :func:`goldstein_config` as ``radius``; issue 29 item 3)."""

GOLDSTEIN_OPTIONS = (
    Option("radius_scale", "float", PRACTICAL["radius_scale"], low=0, low_open=True,
           doc="alpha = radius_scale * Phi / L"),
    Option("step_scale", "float", PRACTICAL["step_scale"], low=0, low_open=True,
           doc="single pass: D = step_scale * D_theory"),
    Option("period_fraction", "float", PRACTICAL["period_fraction"], low=0, high=1, low_open=True,
           doc="single pass: period = period_fraction * n"),
    Option("travel", "float", PRACTICAL["travel"], low=0, low_open=True,
           doc="multi pass: D T = travel Phi / L"),
    Option("multi_directions", "int", PRACTICAL["multi_directions"], low=1,
           doc="multi pass: shared difference directions per sample"),
    Option("multi_iter", "int", PRACTICAL["multi_iter"], low=1, doc="multi pass: T"),
    Option("fo_directions", "int", PRACTICAL["fo_directions"], low=1,
           doc="first order: difference perturbations per sample"),
    Option("zo_directions", "int", PRACTICAL["zo_directions"], low=1,
           doc="zero order: difference directions per sample"),
    Option("zo_anchor_factor", "int", PRACTICAL["zo_anchor_factor"], low=1,
           doc="zero order: anchor directions m1 = factor * d"),
    Option("multi_anchor_factor", "int", PRACTICAL["multi_anchor_factor"], low=1,
           doc="multi pass: anchor directions factor"),
    Option("diff_clip_scale", "float", PRACTICAL["diff_clip_scale"], low=0, low_open=True,
           doc="c2 of the difference clip"),
    Option("tail", "float", PRACTICAL["tail"], low=0, high=1, low_open=True,
           doc="tail-averaging share"),
    Option("max_step", "float", None, low=0, low_open=True, doc="D (overrides the schedule)"),
    Option("window", "int", None, low=1, doc="M, the averaging window"),
    Option("period", "int", None, low=1, doc="steps between anchors"),
    Option("anchor_batch", "int", None, low=1, doc="B1"),
    Option("diff_batch", "int", None, low=1, doc="B2"),
    Option("anchor_directions", "int", None, low=1, doc="m1"),
    Option("diff_directions", "int", None, low=1, doc="m2"),
    Option("diff_clip", "float", None, low=0, low_open=True, doc="C2"),
    Option("target_beta", "float", None, low=0, low_open=True, doc="stop at this certificate"),
    Option("output", "str", "last", choices=("last", "random"), doc="released iterate"),
)
"""Accepted ``solver_options`` of the paper-001 solvers, as a solver-spec tuple."""


@dataclass
class GoldsteinConfig:
    """Public constants of one run (all from public bounds and parameters)."""

    first_order: bool
    multi_pass: bool
    radius: float          # alpha: smoothing radius; the guarantee is at 2 alpha
    max_step: float        # D
    window: int            # M
    period: int            # Sigma
    n_iter: int            # T
    anchor_batch: int      # B1 (single pass; n in multi pass)
    diff_batch: int        # B2
    anchor_directions: int  # FO: perturbations per anchor sample; ZO: m1
    diff_directions: int   # m2 (shared)
    clip: float            # C1
    diff_clip: float       # C2
    lipschitz: float       # L
    loss_bound: float      # Phi
    output: str = "last"
    dtype: object = None
    verbose: int = 0
    sigma: float = 0.0     # tree node noise (single pass)
    sigmas: tuple = (0.0, 0.0)  # (sigma1, sigma2) (multi pass)
    learning_rate: float = 0.0  # eta
    extra: dict = field(default_factory=dict)


def theory_max_step(n_iter, d, epsilon, radius, lipschitz, loss_bound):
    """``D`` of paper 001 Thm 3.1 / 6.1 (constants 1, logs dropped).

    Examples
    --------
    >>> round(theory_max_step(5000, 10, 1.0, 0.1, 1.0, 1.0), 6)
    0.001081
    """
    T, a, L, P, e = n_iter, radius, lipschitz, loss_bound, epsilon
    terms = [(P**2 * a / (L**2 * T**2)) ** (1 / 3),
             (P**2 * a / (L**2 * T**2 * math.sqrt(d))) ** (1 / 3)]
    if math.isfinite(e):
        terms += [(P * a * e / (d * L * T)) ** 0.5,
                  (P**3 * a**2 * e / (d**1.5 * L**3 * T**3)) ** 0.2]
    return min(terms)


def single_pass_steps(n, period, anchor_batch, diff_batch):
    """Steps a single pass over ``n`` samples affords (each sample used once), partial period.

    Examples
    --------
    >>> single_pass_steps(100, 10, 10, 1)
    50
    """
    per_period = anchor_batch + (period - 1) * diff_batch
    full, rest = divmod(n, per_period)
    steps = full * period
    if rest >= anchor_batch:
        steps += 1 + (rest - anchor_batch) // diff_batch
    return steps


def multi_pass_sigmas(n_anchor, n_diff, s1, s2, rho, period):
    """Noise ``(sigma1, sigma2)`` making ``n_anchor`` + ``n_diff`` Gaussian releases ``rho``-zCDP.

    Minimises ``sigma1**2 + period sigma2**2`` (the variance of the noisy
    estimate over a period, paper 001 Lemma 4.4) subject to
    ``A/sigma1**2 + B/sigma2**2 = rho`` with ``A = n_anchor s1**2/2`` and
    ``B = n_diff s2**2/2`` (Lagrange).

    Examples
    --------
    >>> s1, s2 = multi_pass_sigmas(3, 6, 1.0, 1.0, 2.0, 3)
    >>> round(3 * 1.0 / (2 * s1**2) + 6 * 1.0 / (2 * s2**2), 12)
    2.0
    """
    if math.isinf(rho):
        return 0.0, 0.0
    A, B = n_anchor * s1**2 / 2.0, n_diff * s2**2 / 2.0
    root = math.sqrt(A) + math.sqrt(B * period)
    sigma1 = math.sqrt(math.sqrt(A) * root / rho) if A > 0 else 0.0
    sigma2 = math.sqrt(math.sqrt(B / period) * root / rho) if B > 0 else 0.0
    return sigma1, sigma2


def goldstein_config(solver, n, d, epsilon, rho, lipschitz, loss_bound, *, radius=None,
                     max_iter=None, theory=False, options=None, dtype=None, verbose=0):
    """Resolve every constant of a run from public quantities (the paper's O~ with constants 1).

    Parameters
    ----------
    solver : {'fo_single_pass', 'zo_single_pass', 'zo_multi_pass'}
    n, d : int
        Number of samples (public under replace-one) and of parameters.
    epsilon : float
        Target epsilon (used only in the theory formulas for ``D`` and ``Sigma``).
    rho : float
        zCDP budget of the solver (``inf``: no noise).
    lipschitz, loss_bound : float
        Public ``L`` (per-sample gradient bound, the clip ``C1``) and ``Phi``.
    radius : float, default=None
        ``alpha``; default ``radius_scale * Phi / L``.
    max_iter : int, default=None
        Cap on ``T`` (single pass: at most what one pass affords).
    theory : bool
        Paper constants instead of :data:`PRACTICAL`.
    options : dict
        Overrides: any key of :data:`PRACTICAL`, or ``max_step``, ``window``,
        ``period``, ``anchor_batch``, ``diff_batch``, ``anchor_directions``,
        ``diff_directions``, ``diff_clip``, ``target_beta``, ``output``.

    Returns
    -------
    GoldsteinConfig

    Examples
    --------
    >>> cfg = goldstein_config("fo_single_pass", 10000, 5, 1.0, 0.1, 1.0, 1.0)
    >>> cfg.n_iter <= 5000, cfg.window >= 1, cfg.clip
    (True, True, 1.0)
    """
    opts = dict(options or {})
    unknown = set(opts) - set(PRACTICAL) - set(OPTION_KEYS)
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} for solver {solver!r}; "
                         f"choose from {sorted(set(PRACTICAL) | set(OPTION_KEYS))}.")
    if opts.get("output", "last") not in ("last", "random"):
        raise ValueError(f"output must be 'last' or 'random', got {opts['output']!r}.")
    prac = {k: opts.get(k, v) for k, v in PRACTICAL.items()}
    first_order = solver.startswith("fo")
    multi = solver.endswith("multi_pass")
    L, P = float(lipschitz), float(loss_bound)
    alpha = float(radius) if radius is not None else prac["radius_scale"] * P / L
    if multi:
        T, D, period, beta = _multi_schedule(n, d, alpha, L, P, max_iter, theory, prac, opts)
        B1, B2 = n, n
    else:
        T = max(n // 2, 1)
        D = theory_max_step(T, d, epsilon, alpha, L, P) * (1.0 if theory else prac["step_scale"])
        D = float(opts.get("max_step", D))
        e = epsilon if math.isfinite(epsilon) else math.inf
        period = (alpha / (e * D)) ** (2 / 3) + alpha / (D * math.sqrt(d))
        if not theory:
            period = prac["period_fraction"] * n
        period = int(opts.get("period", min(max(round(period), 1), T)))
        B1 = int(opts.get("anchor_batch", period))
        B2 = int(opts.get("diff_batch", 1))
        period = _fit_period(n, period, B1, B2)
        B1 = min(B1, n)
        T = single_pass_steps(n, period, B1, B2)
        if max_iter is not None:
            T = min(T, int(max_iter))
        beta = None
    M = max(1, int(alpha / (4 * D)))
    if not theory:
        M = max(M, int(math.ceil(prac["tail"] * T)))
    M = int(min(opts.get("window", M), T))
    factor = prac["multi_anchor_factor"] if multi and not theory else prac["zo_anchor_factor"]
    m1 = 1 if first_order else max(int(factor * d), 1)
    m1 = int(opts.get("anchor_directions", m1))
    m2 = prac["fo_directions"] if first_order else prac["zo_directions"]
    if multi and not theory:
        m2 = prac["multi_directions"]
    if theory and first_order:  # Thm 6.1: m = alpha**2 / (D**2 d) (B2 = 1), capped
        m2 = min(max(math.ceil(alpha**2 / (D**2 * d)), 1), 256)
    m2 = int(opts.get("diff_directions", m2))
    C1 = L if first_order else L * math.sqrt(1.0 + (d - 1.0) / m1)
    C2 = 4.0 * C1 * math.sqrt(d) * D / alpha  # smoothness of f_alpha times 2D
    if not theory and not multi:  # equalise s_d = 2 C2 / B2 with s_a = 2 C1 / B1
        C2 = C1 * B2 / B1
    C2 = float(opts.get("diff_clip", prac["diff_clip_scale"] * C2))
    cfg = GoldsteinConfig(first_order=first_order, multi_pass=multi, radius=alpha, max_step=D,
                          window=M, period=period, n_iter=T, anchor_batch=B1, diff_batch=B2,
                          anchor_directions=m1, diff_directions=m2, clip=C1, diff_clip=C2,
                          lipschitz=L, loss_bound=P, output=opts.get("output", "last"),
                          dtype=dtype, verbose=verbose)
    _calibrate(cfg, n, d, rho)
    if beta is not None:
        cfg.extra["target_beta"] = beta
    return cfg


def _fit_period(n, period, B1, B2):
    """Largest period (at most ``period``) of which one fits in ``n`` samples."""
    while period > 1 and B1 + (period - 1) * B2 > n:
        period = max(1, period // 2)
    return period


def _multi_schedule(n, d, alpha, L, P, max_iter, theory, prac, opts):
    """``(T, D, Sigma, beta)`` of the multi-pass solver.

    Theory (Thm 4.1, its ``D`` and ``T`` made dimensionally
    consistent): ``D = alpha beta**2/(64 L**2)``,
    ``T = Phi/(D beta)``, ``Sigma = alpha/(D sqrt d)``; ``beta`` is
    ``target_beta`` or, given ``max_iter``, solved from ``T``. Practical:
    ``T = multi_iter`` and ``D T = travel Phi / L``.
    """
    if theory:
        c_D = 1.0 / 64.0
        if max_iter is not None and "target_beta" not in opts:
            beta = (P * L**2 / (c_D * alpha * int(max_iter))) ** (1 / 3)
        else:
            beta = float(opts.get("target_beta", 0.1 * L))
        D = c_D * alpha * beta**2 / L**2
        T = max(int(math.ceil(P / (D * beta))), 1)
        if max_iter is not None:
            T = min(T, int(max_iter))
    else:
        T = int(max_iter or prac["multi_iter"])
        D = prac["travel"] * P / (L * T)
        beta = None
    D = float(opts.get("max_step", D))
    period = int(opts.get("period", min(max(round(alpha / (D * math.sqrt(d))), 1), T)))
    return T, D, period, beta


def _calibrate(cfg, n, d, rho):
    """Noise scales and the step size from the public sensitivities."""
    if cfg.multi_pass:
        n_anchor = -(-cfg.n_iter // cfg.period)
        n_diff = cfg.n_iter - n_anchor
        cfg.extra.update(s_anchor=2.0 * cfg.clip / n, s_diff=2.0 * cfg.diff_clip / n,
                         n_anchor=n_anchor, n_diff=n_diff)
        cfg.sigmas = multi_pass_sigmas(n_anchor, n_diff, 2.0 * cfg.clip / n,
                                       2.0 * cfg.diff_clip / n, rho, cfg.period)
        noise_sq = d * (cfg.sigmas[0] ** 2 + (cfg.period - 1) * cfg.sigmas[1] ** 2)
    else:
        s = max(2.0 * cfg.clip / cfg.anchor_batch, 2.0 * cfg.diff_clip / cfg.diff_batch)
        cfg.extra.update(sensitivity=s)
        cfg.sigma = tree_sigma(s, rho, cfg.period) if math.isfinite(rho) else 0.0
        noise_sq = d * cfg.sigma**2 * max_nodes_per_leaf(cfg.period)
    g1 = math.sqrt(cfg.clip**2 + noise_sq)  # public G1 (Prop. 2.6)
    cfg.learning_rate = cfg.max_step / (g1 * math.sqrt(cfg.window))
