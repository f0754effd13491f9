"""KL-Spider (paper 004 Alg. 1, Thm 1) with an explicit budget split.

Rounds ``k = 1..K`` target the excess-risk levels ``Phi_k = max(F0 c**-k,
Phi_floor)``. Each round releases one noisy clipped full gradient, then takes
at most ``T_k = ceil((F0/Phi_k)**((2-kappa)/kappa))`` normalised steps of length
``Phi_k**(1/kappa)/(4 gamma L1)``, tracking the gradient with noisy clipped
gradient *differences* (SPIDER/SARAH); a round ends early when the estimate
falls below ``(7/(8 gamma)) Phi_k**(1/kappa)`` (post-processing, no privacy
cost).

Privacy (replacing Lemma 8's constants, which prove 2 rho, not Thm 1's rho):
the schedule (``K``, ``Phi_k``, ``T_k``) depends on public quantities only.
Full gradients have sensitivity ``2C/n`` and share ``frac_full * rho`` evenly
(``sigma_full = (2C/n) sqrt(K/(2 rho_full))``); a difference over a step of
length ``s_k`` is clipped per sample to ``C1 s_k`` (``C1`` the per-sample
smoothness, default ``L1``; sensitivity ``2 C1 s_k/n``)
and all ``D = sum_k (T_k - 1)`` differences share the rest evenly. Releases
that a round skips are not made (the filter only charges what ran).

Constants: ``theory=True`` uses the paper's (64, 32); the practical default
``spider_constants=(4, 2)`` is from a first prototype (the paper has no experiments). When the
schedule needs more than ``max_iter`` queries (default 1000), it is truncated
after the last round that fits (as if the floor were the level reached
there); noise is set after this capping.
"""

import math
from numbers import Real

from ..spec import Option, SolverResult

__all__ = ["spider", "spider_schedule", "SPIDER_OPTIONS"]

SPIDER_MAX_QUERIES = 1000
SPIDER_CONSTANTS = (4.0, 2.0)  # practical (c_desc, c_floor); theory (Alg. 1): (64, 32)


class _PairOption(Option):
    """An option whose value is a pair of positive reals."""

    def check(self, value, solver):
        if not (isinstance(value, (tuple, list)) and len(value) == 2
                and all(isinstance(v, Real) and not isinstance(v, bool) and 0 < v < math.inf
                        for v in value)):
            raise ValueError(f"solver_options[{self.name!r}] of solver={solver!r} must be a "
                             f"pair of positive real numbers, got {value!r}.")
        return value

    def describe(self):
        return f"pair of positive floats, default {self.default!r}"


SPIDER_OPTIONS = (
    _PairOption("spider_constants", "pair", SPIDER_CONSTANTS,
                doc="(c_desc, c_floor) of the round schedule (ignored with theory=True)"),
    Option("frac_full", "float", 0.5, low=0, high=1, low_open=True, high_open=True,
           doc="share of rho for the full gradients"),
)


def _rounds(n, d, rho, cfg, c_desc, c_floor, cap):
    gamma, kappa, F0, C, L1 = (cfg.kl_gamma, cfg.kl_kappa, cfg.loss_bound, cfg.clip,
                               cfg.smoothness)
    scale = gamma * C * math.sqrt(d) / (n * math.sqrt(rho))
    log_ratio = max(math.log(F0 / scale**kappa), 1.0)
    K = max(math.ceil((1 + c_desc * F0 ** ((kappa - 2) / kappa) * gamma**2 * L1) * log_ratio), 1)
    c = 1 + F0 ** ((2 - kappa) / kappa) / (c_desc * gamma**2 * L1)
    beta_p = cfg.beta / K * min(scale * math.sqrt(K) / F0 ** (1 / kappa), 1.0) ** (2 - kappa)
    beta_p = min(max(beta_p, 1e-300), 0.5)
    floor = min((c_floor * scale * math.sqrt(K * math.log(1 / beta_p))) ** kappa, F0)
    phis, lengths, total = [], [], 0  # T_k updates: 1 full gradient + (T_k - 1) differences
    for k in range(1, K + 1):
        phi = max(F0 * c ** (-k), floor)
        length = min(max(math.ceil((F0 / phi) ** ((2 - kappa) / kappa) - 1e-9), 1), cap)
        if phis and total + length > cap:
            break  # truncate: as if the floor were the level reached
        phis.append(phi)
        lengths.append(length)
        total += length
    return phis, lengths


def spider_schedule(n, d, rho, cfg, constants=SPIDER_CONSTANTS):
    """Public round schedule: (levels Phi_k, round lengths T_k), after capping.

    ``constants``: the practical ``(c_desc, c_floor)``; ``cfg.theory`` uses (64, 32).

    Examples
    --------
    >>> from skdp.solvers.kl.problem import SolverConfig
    >>> cfg = SolverConfig(clip=1.0, smoothness=1.0, n_params=3, kl_gamma=1.0, kl_kappa=2.0)
    >>> phis, lengths = spider_schedule(10000, 3, 0.1, cfg)
    >>> set(lengths)
    {1}
    """
    c_desc, c_floor = (64.0, 32.0) if cfg.theory else constants
    cap = int(cfg.max_iter or SPIDER_MAX_QUERIES)
    rho = rho if math.isfinite(rho) else 1e20  # no noise: aim near machine precision
    return _rounds(n, d, rho, cfg, c_desc, c_floor, cap)


def spider(problem, budget, options):
    """KL-Spider, paper 004 Alg. 1: known (gamma, kappa), kappa in [1, 2], smooth loss.

    Utility (Thm 1): ``O~((gamma L0 sqrt(d)/(n sqrt(rho)))**kappa)`` under
    (gamma, kappa)-KL* with the theory constants. Returns the final iterate.
    Options: ``SPIDER_OPTIONS``.
    """
    obj, w, cfg = problem.objective, problem.w0, problem.config
    xp, n = budget.backend.xp, obj.n
    gamma, kappa, C, L1 = cfg.kl_gamma, cfg.kl_kappa, cfg.clip, cfg.smoothness
    C1 = cfg.diff_clip or L1
    phis, lengths = spider_schedule(n, cfg.n_params, budget.rho, cfg,
                                    tuple(options["spider_constants"]))
    n_diffs = sum(lengths) - len(lengths)
    frac_full = options["frac_full"] if n_diffs else 1.0
    rho_full = frac_full * budget.rho
    sigma_full = budget.sigma(2 * C / n, rho_full / len(phis))
    history, queries = [], 0
    for k, (phi, length) in enumerate(zip(phis, lengths)):
        step = phi ** (1 / kappa) / (4 * gamma * L1)
        sens_diff = 2 * C1 * step / n
        sigma_diff = budget.sigma(sens_diff, (budget.rho - rho_full) / n_diffs) if n_diffs else 0.0
        estimate = budget.gaussian(obj.clipped_grad(w, C), 2 * C / n, sigma_full,
                                   label="full gradient")
        queries += 1
        threshold = 7 / (8 * gamma) * phi ** (1 / kappa)
        updates = 0
        while updates < length:
            norm = float(xp.sqrt(xp.sum(estimate * estimate)))
            if norm < threshold or norm == 0:
                break
            w_next = w - (step / norm) * estimate
            updates += 1
            if updates < length:
                diff = obj.clipped_diff(w_next, w, C1 * step)
                estimate = estimate + budget.gaussian(diff, sens_diff, sigma_diff,
                                                      label="gradient difference")
                queries += 1
            w = w_next
        history.append(dict(round=k, level=phi, updates=updates, sigma_full=sigma_full,
                            sigma_diff=sigma_diff, spent=budget.spent))
        if cfg.verbose and (k % 50 == 0 or k == len(phis) - 1):
            print(f"spider round {k}/{len(phis)}: level {phi:.3g}, {updates} steps",
                  flush=True)
    return SolverResult(solution=w, n_iter=queries, history=history)
