"""DP solvers for Lipschitz, nonsmooth, nonconvex losses: Goldstein-stationary points (paper 001).

Kornowski, Liu, Talwar, "Improved sample complexity for private nonsmooth
nonconvex optimization" (paper 001; notes ``papers/notes/001.md``). All three
solvers share the O2NC outer loop (paper 001 Alg. 2, Cutkosky–Mehta–Orabona
2023): online projected gradient descent on the *increment* ``Delta`` inside
the ball of radius ``D``, the gradient queried at a uniformly random point
``z_t`` of each segment ``[x_{t-1}, x_t]``, and the ``z_t`` averaged over
windows of ``M`` steps. The gradient oracle is for the randomized smoothing
``F_alpha(x) = E_{u ~ U(B_alpha)} F(x + u)`` (Fact 2.3), variance-reduced in
SPIDER style: an *anchor* minibatch gradient every ``Sigma`` steps, then
*differences* ``grad f(z_t) - grad f(z_{t-1})`` on fresh samples.

================== ================ ============================== =========================
solver             oracle           privacy                        paper
================== ================ ============================== =========================
``fo_single_pass`` gradients        tree mechanism, one pass       Alg. 2 + Alg. 5, Thm 6.1
``zo_single_pass`` loss values      tree mechanism, one pass       Alg. 2 + Alg. 3, Thm 3.1
``zo_multi_pass``  loss values      Gaussian per step, zCDP        Alg. 2 + Alg. 4, Thm 4.1
================== ================ ============================== =========================

Privacy is deterministic (notes 001 §5.4), not "with high probability" as in
the paper's Lemmas 3.4/3.5/6.3/6.4: every per-sample anchor estimate is
clipped to norm ``C1`` and every per-sample difference to ``C2`` (a
projection, so the bound holds whatever the concentration event), giving the
replace-one sensitivities ``s_a = 2 C1 / B1`` and ``s_d = 2 C2 / B2`` (the
paper's Lemma 6.3 writes ``L/B1``; the replace-one constant is 2, erratum
E4). Difference steps use *shared* perturbations at ``z_t`` and ``z_{t-1}``
(notes §5.3): still unbiased for ``grad F_alpha(z_t) - grad F_alpha(z_{t-1})``
and of far smaller variance.

* Single pass (Prop. 2.5): each sample is used once, in one increment of one
  period's tree; a fresh tree per period (``idx = ((t-1) mod Sigma) + 1``,
  erratum E3). The record is in at most ``h = floor(log2 Sigma) + 1`` noisy
  node sums (:func:`~skdp.privacy.tree.max_nodes_per_leaf`), so the whole run
  is one Gaussian mechanism of l2-sensitivity ``s sqrt(h)``,
  ``s = max(s_a, s_d)``: ``rho = s**2 h / (2 sigma**2)``
  (:func:`~skdp.privacy.tree.tree_sigma`). Periods touch disjoint samples
  (parallel composition), and the output is post-processing.
* Multi pass (Lemma 4.3): ``K_a`` anchors of sensitivity ``2 C1 / n`` and
  ``K_d`` differences of sensitivity ``2 C2 / n``, each a Gaussian mechanism,
  composed in zCDP (Bun–Steinke 2016): ``rho = K_a s1**2/(2 sigma1**2) + K_d
  s2**2/(2 sigma2**2)``, with ``sigma1, sigma2`` minimising the injected
  variance ``d (sigma1**2 + Sigma sigma2**2)`` (Lemma 4.4; notes §5.4).

Output (notes §5.8): the average ``x_bar_K`` of the *last* window. The theory
draws a window uniformly (``output='random'``, kept for theory-faithful
runs); both are post-processing of the released gradients, so equally
private, but early windows are far from a stationary point (notes §5.8: loss
1.17 for the random window vs 0.375 for the last, optimum 0.373).
``certificate`` is ``||(1/M) sum g~_t||`` over that window, a free (private)
proxy for ``||grad-bar_alpha F_alpha(x_bar)||``.

Constants (erratum E10: the paper gives none): ``theory=True`` uses the
Thm 3.1/6.1 (single pass) and Thm 4.1 with the dimensionally corrected
``D = alpha beta**2 / (64 L**2)``, ``T = Phi/(D beta)`` (erratum E6) with
constants 1 (notes §5.8); the practical defaults (``PRACTICAL``) are those
``benchmarks/robust.py --tune`` picked on a validation split.
"""

from dataclasses import dataclass, field
import math

import numpy as np
from scipy.optimize import nnls

from ..._backend import Backend, to_numpy
from ...privacy.clipping import clip_factors
from ...privacy.streams import drawing_from
from ...privacy.tree import TreeMechanism, max_nodes_per_leaf, tree_sigma
from ..spec import Option, SolverResult

__all__ = ["GLMProblem", "GoldsteinConfig", "goldstein_config", "o2nc", "fo_single_pass",
           "zo_single_pass", "zo_multi_pass", "GOLDSTEIN_SOLVERS", "goldstein_gap",
           "min_norm_in_hull", "multi_pass_sigmas", "PRACTICAL"]

PRACTICAL = dict(
    radius_scale=0.1,   # alpha = radius_scale * Phi / L (the paper needs alpha <= Phi / L)
    step_scale=0.5,     # single pass: D = step_scale * D_theory
    period_fraction=0.05,  # single pass: Sigma = period_fraction * n (B1 = Sigma)
    travel=2.0,         # multi pass: D T = travel * Phi / L
    multi_directions=4,  # multi pass: shared difference directions per sample
    multi_iter=200,     # multi pass: T
    fo_directions=16,   # FO difference perturbations per sample (shared)
    zo_directions=16,   # ZO difference directions per sample (shared)
    zo_anchor_factor=4,  # ZO anchor directions m1 = factor * d (notes §5.4)
    multi_anchor_factor=1,  # ... in the multi-pass solver (full batches average anyway)
    diff_clip_scale=1.0,  # c2 in C2 = c2 * 4 C1 sqrt(d) D / alpha (single pass: C1 B2 / B1)
    tail=0.5,           # practical window: M >= tail * T (tail averaging)
)


OPTION_KEYS = ("max_step", "window", "period", "anchor_batch", "diff_batch", "anchor_directions",
               "diff_directions", "diff_clip", "target_beta", "output")


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


class GLMProblem:
    """Per-sample losses ``f_i(w) = c_i phi(W a_i, t_i)`` of a linear model with k outputs.

    ``w`` is the flat ``(k, p)`` matrix ``W``; ``A`` the (clipped) design whose
    rows are ``a_i``; ``loss(Z, T, xp)`` returns ``(values, dvalues/dZ)`` for
    margins ``Z`` of shape ``(..., k)`` and targets ``T`` broadcastable to it.
    The per-sample gradient is ``c_i phi'(z_i) a_i^T``; its norm is
    ``c_i ||phi'|| ||a_i||``, so the Lipschitz constant is ``sup c_i ||phi'|| ||a||``.

    Examples
    --------
    >>> import numpy as np
    >>> def absolute(Z, T, xp):
    ...     return xp.abs(Z - T)[..., 0], xp.sign(Z - T)
    >>> prob = GLMProblem(np.eye(2), np.array([[1.0], [0.0]]), absolute, 1, np)
    >>> prob.full_gradient(np.zeros(2)).tolist()
    [-0.5, 0.0]
    """

    def __init__(self, A, targets, loss, k, xp, weights=None, ridge=0.0):
        self.A, self.targets, self.loss, self.k, self.xp = A, targets, loss, int(k), xp
        self.n, self.p = int(A.shape[0]), int(A.shape[1])
        self.d = self.k * self.p
        self.weights = weights
        self.ridge = float(ridge)

    def _take(self, arr, idx):
        return arr if idx is None else self.xp.take(arr, idx, axis=0)

    def _margins(self, w, Y, idx):
        """Margins at ``w + Y[b, j]`` for the rows ``idx``: shape (B, m, k)."""
        xp = self.xp
        a = self._take(self.A, idx)
        W = xp.reshape(w, (self.k, self.p))
        base = a @ W.T
        if Y is None:
            return base[:, None, :]
        B, m = Y.shape[0], Y.shape[1]
        Yk = xp.reshape(Y, (B, m, self.k, self.p))
        return base[:, None, :] + xp.sum(Yk * a[:, None, None, :], axis=-1)

    def _weighted(self, v, idx):
        if self.weights is None:
            return v
        c = self._take(self.weights, idx)
        return v * xp_expand(c, v.ndim, self.xp)

    def values(self, w, Y, idx):
        """Per-sample losses at ``w + Y[b, j]``: shape (B, m)."""
        targets = self._take(self.targets, idx)[:, None, :]
        val, _ = self.loss(self._margins(w, Y, idx), targets, self.xp)
        return self._weighted(val, idx)

    def residuals(self, w, Y, idx):
        """``c_i dphi/dz`` at ``w + Y[b, j]``: shape (B, m, k)."""
        targets = self._take(self.targets, idx)[:, None, :]
        _, der = self.loss(self._margins(w, Y, idx), targets, self.xp)
        return self._weighted(der, idx)

    def expand(self, R, idx):
        """Per-sample gradients ``r_b a_b^T`` flattened: (B, k) -> (B, d)."""
        a = self._take(self.A, idx)
        B = R.shape[0]
        return self.xp.reshape(R[:, :, None] * a[:, None, :], (B, self.d))

    def full_gradient(self, w, points=None):
        """Exact gradient of the empirical loss (plus ridge) at ``w`` or at each of ``points``.

        Not private: for :func:`goldstein_gap` and tests.
        """
        xp = self.xp
        if points is None:
            return self.full_gradient(None, xp.reshape(w, (1, self.d)))[0]
        out = []
        for q in range(points.shape[0]):
            r = self.residuals(points[q], None, None)[:, 0, :]
            g = xp.reshape(r.T @ self.A, (self.d,)) / self.n
            out.append(g + self.ridge * points[q])
        return xp.stack(out)

    def objective(self, w):
        """Exact empirical loss (plus ridge); diagnostics only."""
        xp = self.xp
        return float(xp.mean(self.values(w, None, None))) + 0.5 * self.ridge * float(
            xp.sum(w * w))


def xp_expand(c, ndim, xp):
    """``c`` of shape (B,) reshaped to broadcast against an array of ``ndim`` dims."""
    return xp.reshape(c, (c.shape[0],) + (1,) * (ndim - 1))


# ----------------------------------------------------------------- sampling
def _sphere(backend, shape, d, dtype):
    """Uniform directions on the unit sphere S^{d-1} (Gaussian, normalised)."""
    xp = backend.xp
    G = backend.public_normal(tuple(shape) + (d,), dtype=dtype)
    norms = xp.sqrt(xp.sum(G * G, axis=-1, keepdims=True))
    return G / xp.maximum(norms, xp.full_like(norms, float(xp.finfo(G.dtype).tiny)))


def _ball(backend, shape, d, radius, dtype):
    """Uniform points of the ball B_radius: ``radius U**(1/d) * direction`` (errata E1, E2)."""
    U = backend.public_uniform(tuple(shape) + (1,), dtype=dtype)
    return radius * U ** (1.0 / d) * _sphere(backend, shape, d, dtype)


def _clip(V, bound, xp):
    """Rows of ``V`` projected onto the ball of radius ``bound``.

    How many rows moved is not counted: that count depends on the private
    rows with no noise, so it must not leave the fit (issue 15).
    """
    norms = xp.sqrt(xp.sum(V * V, axis=1))
    return V * clip_factors(norms, bound, xp)[:, None]


# --------------------------------------------------------------- estimators
class _Estimator:
    """Per-sample estimates of ``grad f_alpha`` (anchor) and of its differences.

    ``first_order=True``: paper 001 Alg. 5 (anchor: one ball perturbation per
    sample, eq. (10) with the ball of Fact 2.3(iv), erratum E2; difference:
    ``m2`` perturbations shared by ``z_t`` and ``z_{t-1}``). ``False``: the
    two-point zero-order estimator (4), ``(d/(2 alpha)) (f(x + alpha u) -
    f(x - alpha u)) u`` with ``u`` on the sphere (erratum E1), ``m1``
    directions at anchors, ``m2`` shared ones in differences.
    """

    def __init__(self, problem, cfg, backend):
        self.problem, self.cfg, self.backend = problem, cfg, backend
        self.first_order = cfg.first_order

    def anchor(self, w, idx):
        prob, cfg, b = self.problem, self.cfg, self.backend
        B = int(idx.shape[0])
        if self.first_order:
            Y = _ball(b, (B, cfg.anchor_directions), prob.d, cfg.radius, cfg.dtype)
            R = prob.residuals(w, Y, idx)
            return prob.expand(b.xp.mean(R, axis=1), idx)
        U = _sphere(b, (B, cfg.anchor_directions), prob.d, cfg.dtype)
        return self._zo(w, None, U, idx)

    def difference(self, w1, w0, idx):
        prob, cfg, b = self.problem, self.cfg, self.backend
        B = int(idx.shape[0])
        if self.first_order:
            Y = _ball(b, (B, cfg.diff_directions), prob.d, cfg.radius, cfg.dtype)
            R = prob.residuals(w1, Y, idx) - prob.residuals(w0, Y, idx)
            return prob.expand(b.xp.mean(R, axis=1), idx)
        U = _sphere(b, (B, cfg.diff_directions), prob.d, cfg.dtype)
        return self._zo(w1, w0, U, idx)

    def _zo(self, w1, w0, U, idx):
        xp, prob, a = self.backend.xp, self.problem, self.cfg.radius
        h = a * U
        spread = prob.values(w1, h, idx) - prob.values(w1, -h, idx)
        if w0 is not None:
            spread = spread - (prob.values(w0, h, idx) - prob.values(w0, -h, idx))
        scale = prob.d / (2.0 * a * U.shape[1])
        return scale * xp.sum(spread[:, :, None] * U, axis=1)


# ------------------------------------------------------------------- config
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
    """``D`` of paper 001 Thm 3.1 / 6.1 (constants 1, logs dropped; notes §5.8).

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
    """Steps a single pass over ``n`` samples affords (notes §5.6), partial period included.

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
    ``B = n_diff s2**2/2`` (Lagrange; notes 001 §5.4).

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
    """Resolve every constant of a run from public quantities (notes 001 §5.8).

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
    C2 = 4.0 * C1 * math.sqrt(d) * D / alpha  # smoothness of f_alpha times 2D (notes §5.4)
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

    Theory (Thm 4.1 with erratum E6): ``D = alpha beta**2/(64 L**2)``,
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
    """Noise scales and the step size from the public sensitivities (notes §5.4, §5.7)."""
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
    g1 = math.sqrt(cfg.clip**2 + noise_sq)  # public G1 (Prop. 2.6; notes §5.7)
    cfg.learning_rate = cfg.max_step / (g1 * math.sqrt(cfg.window))


# ------------------------------------------------------------------ oracles
class _SinglePassOracle:
    """Alg. 3 / Alg. 5: anchors on ``B1`` unused samples every ``Sigma`` steps,
    differences on ``B2`` unused samples, noisy prefix sums from a fresh tree
    per period (Prop. 2.5). Each sample is consumed once, in a fixed
    data-independent order.

    ``path`` (a Budget, charged, or a Release) records the whole run when the
    oracle is built: one tree mechanism over the periods
    (:class:`~skdp.privacy.tree.TreeMechanism`), node noise ``cfg.sigma``."""

    def __init__(self, problem, cfg, estimator, order, path, label):
        self.problem, self.cfg, self.est = problem, cfg, estimator
        self.order, self.noise = order, path.backend
        self.used, self.t, self.tree = 0, 0, None
        self.trees = TreeMechanism.open(path, cfg.extra["sensitivity"], cfg.sigma, cfg.period,
                                        label=f"{label} tree")

    def _take(self, size):
        idx = self.order[self.used:self.used + size]
        self.used += size
        return self.noise.asarray(idx)

    def __call__(self, z, z_prev):
        cfg, xp = self.cfg, self.noise.xp
        pos = self.t % cfg.period  # 0: anchor (paper: t mod Sigma = 1)
        self.t += 1
        if pos == 0:
            horizon = min(cfg.period, cfg.n_iter - self.t + 1)
            self.tree = self.trees.aggregator((self.problem.d,), horizon, self.noise)
            idx = self._take(cfg.anchor_batch)
            V = _clip(self.est.anchor(z, idx), cfg.clip, xp)
        else:
            idx = self._take(cfg.diff_batch)
            V = _clip(self.est.difference(z, z_prev, idx), cfg.diff_clip, xp)
        return self.tree.add(xp.mean(V, axis=0))


class _MultiPassOracle:
    """Alg. 4: full-batch anchors every ``Sigma`` steps with ``N(0, sigma1**2)``;
    otherwise ``g~_t = g~_{t-1} + (clipped full-batch difference) + N(0, sigma2**2)``
    (the recursion on the *noisy* estimate, line 15).

    ``path`` (a Budget, charged, or a Release) records the ``K_a`` anchor and
    ``K_d`` difference releases (Lemma 4.3) when the oracle is built, as two
    Gaussian batches."""

    def __init__(self, problem, cfg, estimator, path, label, chunk):
        self.problem, self.cfg, self.est, self.noise = problem, cfg, estimator, path.backend
        self.t, self.g, self.chunk = 0, None, chunk
        e = cfg.extra
        self.anchors = path.gaussian_batch(e["s_anchor"], cfg.sigmas[0], e["n_anchor"],
                                           label=f"{label} anchor")
        self.diffs = (path.gaussian_batch(e["s_diff"], cfg.sigmas[1], e["n_diff"],
                                          label=f"{label} difference") if e["n_diff"] else None)

    def _mean(self, fn, bound):
        xp, n = self.noise.xp, self.problem.n
        total = None
        for start in range(0, n, self.chunk):
            idx = self.noise.asarray(np.arange(start, min(start + self.chunk, n)))
            V = _clip(fn(idx), bound, xp)
            s = xp.sum(V, axis=0)
            total = s if total is None else total + s
        return total / n

    def __call__(self, z, z_prev):
        cfg = self.cfg
        pos = self.t % cfg.period
        self.t += 1
        if pos == 0:
            value = self.anchors(self._mean(lambda idx: self.est.anchor(z, idx), cfg.clip))
        else:
            value = self.g + self._mean(lambda idx: self.est.difference(z, z_prev, idx),
                                        cfg.diff_clip)
            value = self.diffs(value)
        self.g = value
        return value


# ---------------------------------------------------------------- O2NC loop
def o2nc(oracle, w0, cfg, backend):
    """Paper 001 Alg. 2 (O2NC): OGD on increments in the D-ball, random segment points.

    ``x_t = x_{t-1} + Delta_t``, ``z_t = x_{t-1} + s_t Delta_t`` (``s_t ~
    U[0, 1]``), ``Delta_{t+1} = Proj_D(Delta_t - eta g~_t)``; the ``z_t`` are
    averaged over windows of ``M`` steps (the online learner is not reset).
    Returns ``(x_bar, certificate, history)`` for the window chosen by
    ``cfg.output`` (``'last'``, or ``'random'`` as in line 14).
    """
    xp = backend.xp
    T, M, D, eta = cfg.n_iter, cfg.window, cfg.max_step, cfg.learning_rate
    K = T // M
    pick = K - 1 if cfg.output == "last" else int(backend.rng.integers(K))
    x, delta, z_prev = w0, xp.zeros_like(w0), None
    z_sum, g_sum, history = None, None, []
    for t in range(K * M):
        s = float(backend.rng.random())
        z = x + s * delta
        x = x + delta
        g = oracle(z, z_prev)
        if oracle.problem.ridge:
            g = g + oracle.problem.ridge * z  # data-independent: added exactly, no noise
        v = delta - eta * g
        norm = float(xp.sqrt(xp.sum(v * v)))
        delta = v * min(1.0, D / norm) if norm > 0 else v
        z_prev = z
        if t // M == pick:
            z_sum = z if z_sum is None else z_sum + z
            g_sum = g if g_sum is None else g_sum + g
        if (t + 1) % M == 0:
            history.append(dict(step=t + 1, window=t // M))
            if cfg.verbose:
                print(f"[{_name(cfg)}] step {t + 1}/{K * M}, window {t // M + 1}/{K}, "
                      f"|x|={float(xp.sqrt(xp.sum(x * x))):.3g}", flush=True)
    certificate = float(xp.sqrt(xp.sum((g_sum / M) ** 2)))
    return z_sum / M, certificate, history


def _name(cfg):
    passes = "_multi_pass" if cfg.multi_pass else "_single_pass"
    return ("fo" if cfg.first_order else "zo") + passes


# ------------------------------------------------------------------ solvers
def _streams(backend):
    """Independent generators for data order, perturbations, O2NC draws and privacy noise.

    Separate streams (notes §5.6) let tests couple neighbouring datasets: the
    same seed gives both runs the same order, perturbations and noise.
    """
    order, dirs, loop, noise = backend.rng.spawn(4)
    make = lambda g: Backend(backend.xp, backend.device, g)  # noqa: E731
    return order, make(dirs), make(loop), make(noise)


def _result(w, oracle, cert, history, n_used, cfg):
    info = dict(certificate=cert, n_samples_used=n_used, config=cfg)
    return SolverResult(solution=w, n_iter=oracle.t, history=history, info=info)


def _single_pass(problem, w0, cfg, budget, label):
    order_rng, dirs, loop, noise = _streams(budget.backend)
    order = order_rng.permutation(problem.n)
    with drawing_from(budget, noise) as own:
        oracle = _SinglePassOracle(problem, cfg, _Estimator(problem, cfg, dirs), order, own,
                                   label)
        w, cert, history = o2nc(oracle, w0, cfg, loop)
    return _result(w, oracle, cert, history, oracle.used, cfg)


def fo_single_pass(problem, w0, cfg, budget, *, label):
    """First-order single pass: paper 001 Alg. 2 + Alg. 5 (Thm 6.1), tree mechanism.

    Privacy: Prop. 2.5 with the clipped sensitivity ``s = max(2 C1/B1, 2
    C2/B2)`` (module doc); one pass, no composition: one Gaussian release of
    sensitivity ``s sqrt(h)`` at ``cfg.sigma``, charged to ``budget`` and
    recorded as ``'<label> tree'``. Utility (Thm 6.1):
    ``E||grad-bar_{2 alpha} F(x_out)|| <= beta`` once
    ``n = O~(Phi L**2 sqrt(d)/(alpha beta**3) + Phi L d/(eps alpha beta**2))``
    with the theory constants.

    Parameters
    ----------
    problem : GLMProblem
    w0 : array of shape (d,)
        Starting point.
    cfg : GoldsteinConfig
        From :func:`goldstein_config` at ``budget.rho``.
    budget : Budget
        The solver's zCDP share and release path.
    label : str
        Prefix of the ledger's labels.

    Returns
    -------
    SolverResult
        ``solution`` the released point; ``info`` holds ``certificate``,
        ``n_samples_used`` and ``config``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy import Budget, PrivacyLedger, Release
    >>> def absolute(Z, T, xp):
    ...     return xp.abs(Z - T)[..., 0], xp.sign(Z - T)
    >>> rng = np.random.default_rng(0)
    >>> A = rng.normal(size=(4000, 2)) / 2
    >>> prob = GLMProblem(A, (A @ np.array([1.0, -1.0]))[:, None], absolute, 1, np)
    >>> cfg = goldstein_config("fo_single_pass", 4000, 2, np.inf, np.inf, 1.5, 1.0)
    >>> release = Release(Backend.from_arrays(A, random_state=0), PrivacyLedger())
    >>> budget = Budget(np.inf, 0.0, np.inf, release=release)
    >>> res = fo_single_pass(prob, np.zeros(2), cfg, budget, label="fo")
    >>> bool(np.linalg.norm(res.solution - [1.0, -1.0]) < 0.2)
    True
    """
    return _single_pass(problem, w0, cfg, budget, label)


def zo_single_pass(problem, w0, cfg, budget, *, label):
    """Zero-order single pass: paper 001 Alg. 2 + Alg. 3 (Thm 3.1), tree mechanism.

    Needs per-sample loss values only. Privacy and parameters as
    :func:`fo_single_pass` (clipping replaces Lemma 3.4's high-probability
    bound and its huge ``m``, notes §5.4). Utility (Thm 3.1): the same sample
    complexity as Thm 6.1.
    """
    return _single_pass(problem, w0, cfg, budget, label)


def zo_multi_pass(problem, w0, cfg, budget, *, label, chunk=2048):
    """Zero-order multi pass (ERM): paper 001 Alg. 2 + Alg. 4 (Thm 4.1), zCDP composition.

    Privacy (Lemma 4.3): ``K_a`` full-batch anchors of sensitivity ``2 C1/n``
    at ``sigma1`` and ``K_d`` differences of sensitivity ``2 C2/n`` at
    ``sigma2``, composed in zCDP (:func:`multi_pass_sigmas`), charged to
    ``budget`` as two Gaussian batches (``'<label> anchor'``, ``'<label>
    difference'``). Utility (Thm 4.1, with erratum E6's ``D`` and ``T``):
    ``n = O~(sqrt(Phi) L d**(3/4)/(eps alpha**(1/2) beta**(3/2)))`` for the
    empirical objective. Parameters as :func:`fo_single_pass`; ``chunk``
    rows at a time.
    """
    _, dirs, loop, noise = _streams(budget.backend)
    with drawing_from(budget, noise) as own:
        oracle = _MultiPassOracle(problem, cfg, _Estimator(problem, cfg, dirs), own, label,
                                  chunk)
        w, cert, history = o2nc(oracle, w0, cfg, loop)
    return _result(w, oracle, cert, history, problem.n, cfg)


GOLDSTEIN_SOLVERS = {"fo_single_pass": fo_single_pass, "zo_single_pass": zo_single_pass,
                     "zo_multi_pass": zo_multi_pass}


# -------------------------------------------------------------- certificate
def min_norm_in_hull(G):
    """Minimum-norm point of the convex hull of the rows of ``G`` (a small QP).

    Solved as non-negative least squares on ``[G^T; c 1^T] lam ~ [0; c]``
    (``c`` large enforces ``sum lam = 1``), then ``lam`` renormalised onto the
    simplex, so the returned norm is that of a point *in* the hull: an upper
    bound on the minimum, exact up to the NNLS tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> round(min_norm_in_hull(np.array([[1.0, 1.0], [-1.0, 1.0]])), 6)
    1.0
    """
    G = np.asarray(G, dtype=float)
    scale = max(float(np.abs(G).max()), 1e-300)
    Gs = G / scale
    c = 1e3
    lhs = np.vstack([Gs.T, c * np.ones((1, Gs.shape[0]))])
    rhs = np.zeros(Gs.shape[1] + 1)
    rhs[-1] = c
    lam, _ = nnls(lhs, rhs, maxiter=50 * lhs.shape[1])
    if lam.sum() <= 0:
        return float(np.linalg.norm(G, axis=1).min())
    lam = lam / lam.sum()
    return float(np.linalg.norm(lam @ G))


def goldstein_gap(problem, w, radius, n_points=200, random_state=None):
    """Upper bound on ``||grad-bar_radius F(w)||``: min-norm point of sampled gradients.

    ``F`` is the problem's empirical objective. Gradients at ``w`` and at
    ``n_points`` uniform points of the ball ``B(w, radius)`` all lie in the
    Goldstein subdifferential ``partial_radius F(w)`` (paper 001 Def. 2.1;
    ``F`` is differentiable almost everywhere), so the min-norm point of their
    convex hull (:func:`min_norm_in_hull`) bounds the min-norm element of
    ``partial_radius F(w)`` from above. NOT private: it reads the data.

    Examples
    --------
    >>> import numpy as np
    >>> def absolute(Z, T, xp):
    ...     return xp.abs(Z - T)[..., 0], xp.sign(Z - T)
    >>> prob = GLMProblem(np.eye(2), np.zeros((2, 1)), absolute, 1, np)
    >>> goldstein_gap(prob, np.zeros(2), 0.1, random_state=0) < 1e-6
    True
    >>> round(goldstein_gap(prob, np.array([1.0, 1.0]), 0.1, random_state=0), 4)
    0.7071
    """
    backend = Backend.from_arrays(w, random_state=random_state)
    pts = _ball(backend, (n_points,), problem.d, float(radius), w.dtype) + w[None, :]
    pts = backend.xp.concat([w[None, :], pts], axis=0)
    G = to_numpy(problem.full_gradient(None, pts))
    return min_norm_in_hull(G)
