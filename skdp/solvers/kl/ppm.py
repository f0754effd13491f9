"""Private proximal point method (paper 004 Alg. 2, Thm 2) with Alg. 4 inside.

Outer step ``t = 1..T``: approximately minimise the prox subproblem
``F(w) + L~1 ||w - w_{t-1}||**2`` (``L~1`` the prox strength, at least the
weak-convexity constant) with noisy projected gradient descent (Alg. 4, Thm
9): ``T_in`` steps on the ball of radius ``C/(2 L~1)`` around ``w_{t-1}``,
weighted average ``sum_s s w_s / sum_s s``.

Privacy: ``T`` calls at ``rho/T`` each (composition); inside, ``T_in``
releases of the clipped mean gradient (sensitivity ``2C/n``; the prox term is
data-independent) at ``sigma = (2C/n) sqrt(T_in/(2 rho/T))``, i.e. exactly
``rho/T`` per call (the paper's sigma, Thm 9, gives ``rho_in/2``: a factor-2 margin).

Practical defaults: ``T = max_outer`` (10) unless the theory count with known
(gamma, kappa) is smaller, ``T_in = min(n**2 rho_in log(2/beta')**2/d,
max_inner)`` (10), prox strength ``0.5 L1`` (a first prototype
used 20 x 100 and 0.05 L1 without preconditioning; these are what
benchmarks/regression.py showed work on a validation set with the default
private preconditioning), and steps
``min(2/(mu (s + 1)), 1/L)`` with ``mu = 2 L~1 + alpha`` (Lacoste-Julien,
Schmidt, Bach 2012, whose weighting by ``s`` Alg. 4 uses) and
``L = L1 + 2 L~1``. ``theory=True`` uses the paper's ``1/(L~1 s)`` steps and
``L~1 = L1``.
"""

import math

from ..spec import Option, SolverResult

__all__ = ["ppm", "ppm_schedule", "PPM_OPTIONS"]

MAX_OUTER = 10
MAX_INNER = 10

PPM_OPTIONS = (
    Option("prox_strength", "float", None, low=0, low_open=True,
           doc="prox strength L~1 (None: 0.5 L1, or L1 with theory=True)"),
    Option("max_outer", "int", MAX_OUTER, low=1, doc="cap on the outer steps T"),
    Option("max_inner", "int", MAX_INNER, low=1, doc="cap on the inner steps T_in"),
)


def ppm_schedule(n, d, rho, cfg, options):
    """Public (outer steps T, inner steps T_in, prox strength L~1).

    ``options``: resolved ``PPM_OPTIONS``.

    Examples
    --------
    >>> from skdp.solvers.kl.problem import SolverConfig
    >>> cfg = SolverConfig(clip=1.0, smoothness=2.0, n_params=3)
    >>> ppm_schedule(1000, 3, 0.5, cfg, dict(prox_strength=None, max_outer=10, max_inner=10))
    (10, 10, 1.0)
    """
    strength = options["prox_strength"]
    if strength is None:
        strength = cfg.smoothness if cfg.theory else 0.5 * cfg.smoothness
    outer = int(options["max_outer"])
    inner = int(options["max_inner"])
    private = math.isfinite(rho)
    if cfg.kl_gamma is not None and cfg.kl_kappa is not None and private:
        gamma, kappa, F0 = cfg.kl_gamma, cfg.kl_kappa, cfg.loss_bound
        target = (gamma * cfg.clip * math.sqrt(d) / (n * math.sqrt(rho))) ** kappa
        theory = (1 + 32 * F0 ** ((kappa - 2) / kappa) * gamma**2 * strength) * max(
            math.log(F0 / target), 1.0)
        outer = max(min(outer, math.ceil(theory)), 1)
    if private:
        rho_in, beta_in = rho / outer, cfg.beta / outer
        inner = max(min(inner, math.ceil(n**2 * rho_in * math.log(2 / beta_in) ** 2 / d)), 1)
    if cfg.max_iter:
        inner = max(min(inner, cfg.max_iter // outer), 1)
    return outer, inner, strength


def ppm(problem, budget, options):
    """Private proximal point method, paper 004 Alg. 2: kappa >= 2, weakly convex.

    Utility (Thm 2): ``O~((gamma L0 sqrt(d (1 + F0**((kappa-2)/kappa) gamma**2
    L~1))/(n sqrt(rho)))**kappa)``; needs no smoothness (subgradients of the
    ``'lp'`` loss are fine). Returns the last outer iterate. Options:
    ``PPM_OPTIONS``.
    """
    obj, w, cfg = problem.objective, problem.w0, problem.config
    xp, n = budget.backend.xp, obj.n
    outer, inner, strength = ppm_schedule(n, cfg.n_params, budget.rho, cfg, options)
    sens = 2 * cfg.clip / n
    sigma = budget.sigma(sens, budget.rho / (outer * inner)) if budget.private else 0.0
    radius = cfg.clip / (2 * strength)
    mu, lip = 2 * strength + obj.alpha, cfg.smoothness + 2 * strength
    history = []
    for t in range(outer):
        anchor, v = w, w
        total, weight = xp.zeros_like(w), 0.0
        for s in range(1, inner + 1):
            g = budget.gaussian(obj.clipped_grad(v, cfg.clip), sens, sigma, label="gradient")
            g = g + 2 * strength * (v - anchor)
            eta = 1 / (strength * s) if cfg.theory else min(2 / (mu * (s + 1)), 1 / lip)
            v = _project(v - eta * g, anchor, radius, xp)
            total, weight = total + s * v, weight + s
        w = total / weight
        history.append(dict(outer=t, inner=inner, sigma=sigma, spent=budget.spent))
        if cfg.verbose:
            print(f"ppm outer step {t + 1}/{outer} ({inner} inner steps)", flush=True)
    return SolverResult(solution=w, n_iter=outer * inner, history=history)


def _project(v, centre, radius, xp):
    """Euclidean projection onto the ball of ``radius`` around ``centre``."""
    gap = v - centre
    norm = float(xp.sqrt(xp.sum(gap * gap)))
    return v if norm <= radius else centre + gap * (radius / norm)
