"""The private games of paper 002 on the marginal workload (§1.4 eq. (3), §3.1).

The game: a histogram player ``x`` on the simplex over the data domain ``Z``
against a query player ``y`` over the workload ``Q`` (closed under negation),
``min_x max_y <y, q(D) - Q x>``. Unlike ``smd`` (measure, then estimate), these
solvers read the data at every step, through exponential mechanisms:

``smd_private_game`` (paper 002 Thm 1.1's "variant of Algorithm 1",
which the paper does not spell out: reconstructed to give the stated rate)
    Only the query player's vertex samples touch the data: each step's query
    is drawn by the exponential mechanism from ``softmax(tau_y G_y)``, where
    ``G_y`` accumulates the batch answers minus ``Q x^t`` over disjoint
    batches; the histogram player follows ``-Q^T e_j`` (data independent), so
    its iterates and their average are post-processing and are released.

``smd_vertex`` (paper 002 Algorithm 1, with the y-update sign corrected to
ascent: the printed descent is a typo)
    Both players sample one vertex per step (K = 1, bilinear so unbiased)
    plus one output vertex each; the synthetic histogram is the average of
    the ``T`` output x-vertices. All ``2 T (K + 1)`` draws are charged, as in
    Prop. 3.3.

Exponential-mechanism steps are charged the largest per-step epsilon that one
of these valid rules allows for the step count: paper 002 Cor. 3.6,
fully adaptive composition (Thm 3.5) and bounded-range zCDP (Cesar–Rogers
2021, ``eps**2/8`` per draw); the rule used is returned in ``info``. The draws
of a run are one batch of the release path
(:meth:`~skdp.privacy.budget.Budget.exponential_batch`), recorded once; the
disjoint batches come from a data-independent permutation (public randomness).
"""

import math

import numpy as np

from ...privacy.ledger import (advanced_composition_step_epsilon,
                               bounded_range_step_epsilon, fully_adaptive_step_epsilon)
from ..spec import SolverResult
from .marginals import _device, softmax

__all__ = ["solve_private_game", "solve_vertex", "step_epsilon", "private_game_schedule",
           "vertex_schedule"]


def step_epsilon(budget, n_steps):
    """Largest per-step epsilon of ``n_steps`` exponential mechanisms, and the rule.

    Candidates: bounded-range zCDP, ``sqrt(8 rho / N)`` (Cesar–Rogers 2021);
    and, when the solver owns the whole (epsilon, delta), paper 002 Cor. 3.6,
    ``eps / (2 sqrt(2 N log(1/delta)))``, and fully adaptive composition
    (Thm 3.5) solved for equal steps. All are valid; the
    largest is the tightest accounting.

    Examples
    --------
    >>> from skdp.privacy.budget import Budget
    >>> eps, rule = step_epsilon(Budget(1.0, 1e-6, rho=0.1, release=None), 100)
    >>> rule
    'bounded_range_zcdp'
    """
    if math.isinf(budget.rho):
        return math.inf, "no_privacy"
    rules = {"bounded_range_zcdp": bounded_range_step_epsilon(budget.rho, n_steps)}
    if budget.exclusive and budget.delta > 0:
        if budget.epsilon <= 8.0 * math.log(1.0 / budget.delta):
            rules["advanced_cor3.6"] = advanced_composition_step_epsilon(
                budget.epsilon, budget.delta, n_steps)
        rules["fully_adaptive_thm3.5"] = fully_adaptive_step_epsilon(
            budget.epsilon, budget.delta, n_steps)
    rule = max(rules, key=rules.get)
    return rules[rule], rule


def _check_relation(problem, name):
    if problem.relation != "replace_one":
        raise ValueError(f"solver {name!r} follows paper 002's replace-one adjacency (fixed n, "
                         "disjoint batches); use neighbouring='replace_one'.")


def _batches(problem, n_steps, backend):
    """Disjoint batches of a data-independent permutation (public); B = floor(n / T)."""
    n = problem.n
    batch = n // n_steps
    perm = backend.public_rng.permutation(n)
    return [problem.records[perm[t * batch:(t + 1) * batch]] for t in range(n_steps)]


def private_game_schedule(problem, budget, n_iter=None):
    """T, tau_x, tau_y and the per-step epsilon of the private game (Thm 1.1's variant).

    ``T ~ min(n, n eps sqrt(log|Z|) / (log|Q| sqrt(log(1/delta))))``,
    ``tau_x = sqrt(log|Z| / T)``, ``tau_y = min(sqrt(log|Q| / T) / 2,
    eps' B / 2)`` where ``eps'`` is the per-draw epsilon (the draw ``~
    exp(tau_y G_y)`` has score sensitivity ``tau_y r_Q / B`` with ``r_Q = 1``,
    so it is ``2 tau_y / B``-DP, Thm 3.4).
    """
    n = problem.n
    log_z = math.log(problem.size) if problem.size > 1 else 1.0
    log_q = math.log(2 * problem.n_cells)
    eps = budget.epsilon if not math.isinf(budget.epsilon) else 1e6
    log_d = math.log(1.0 / budget.delta) if budget.delta > 0 else 1.0
    if n_iter is None:
        n_iter = int(min(n, max(1.0, n * eps * math.sqrt(log_z) / (log_q * math.sqrt(log_d)))))
    T = max(1, min(int(n_iter), n))
    B = n // T
    eps_step, rule = step_epsilon(budget, T)
    tau_x = math.sqrt(log_z / T)
    tau_y = min(math.sqrt(log_q / T) / 2.0, eps_step * B / 2.0)
    return T, B, tau_x, tau_y, eps_step, rule


def solve_private_game(problem, budget, options):
    """Paper 002 Thm 1.1's variant (reconstructed), exactly accounted.

    ``T`` draws of the query player, each ``2 tau_y / B``-DP (Thm 3.4), recorded
    as one batch; the histogram player is post-processing. ``options``: none.
    Returns the average of the histogram iterates as ``solution``.
    """
    _check_relation(problem, "smd_private_game")
    backend, progress = budget.backend, problem.progress
    xp = backend.xp
    T, B, tau_x, tau_y, eps_step, rule = private_game_schedule(problem, budget, problem.n_iter)
    batches = _batches(problem, T, backend)
    eps_draw = 2.0 * tau_y / B  # <= eps_step; the draw ~ exp(tau_y G_y) is 2 tau_y / B-DP
    draws = budget.exponential_batch(
        eps_draw, T, label="query-player vertex (exponential mechanism)")
    like = problem.counts(backend, problem.records[:0])
    g_x = xp.zeros_like(like)
    g_y = [xp.zeros((problem.cells(k),), dtype=like.dtype, device=_device(like))
           for k in range(len(problem.marginals))]
    x_sum = xp.zeros_like(like)
    sizes = [problem.cells(k) for k in range(len(problem.marginals))]
    prior = problem.log_prior(xp, like)  # structural zeros: the player never plays them
    for t in range(T):
        x = softmax(-tau_x * g_x + prior, xp)
        x_sum = x_sum + x
        # the query player's release: j ~ softmax(tau_y G), G over Q u -Q
        scores = xp.concat(g_y + [-g for g in g_y])
        j = draws.argmax(tau_y * scores)
        k, cell, sign = _locate(j, sizes)
        g_x = g_x - sign * problem.cell_indicator(k, cell, xp, like)
        # data-dependent update of the query player's scores (never released)
        batch = problem.record_marginals(batches[t])
        qx = problem.answer(x, xp)
        g_y = [g + backend.asarray(b / B) - q for g, b, q in zip(g_y, batch, qx)]
        if progress is not None and (t + 1) % max(1, T // 20) == 0:
            progress(t + 1, T, math.nan)
    return SolverResult(x_sum / T, T, info=dict(step_epsilon=eps_draw, step_rule=rule,
                                                tau_x=tau_x, tau_y=tau_y, batch_size=B,
                                                n_estimate=float(problem.n)))


def _locate(j, sizes):
    """(marginal, cell, sign) of index ``j`` of the negation-closed workload."""
    half = sum(sizes)
    sign = 1.0 if j < half else -1.0
    j = j % half
    for k, c in enumerate(sizes):
        if j < c:
            return k, j, sign
        j -= c
    raise IndexError(j)  # pragma: no cover


def vertex_schedule(problem, budget, n_iter=None, L0=1.0):
    """T and tau of paper 002 Alg. 1 for bilinear games (K = 1, §3.1 quadratic case).

    ``T ~ min(n, n eps / sqrt(l log(1/delta)))`` with ``l = log d_x + log d_y``;
    ``tau = min(sqrt(l / T) / L0, eps' B / (4 L0))`` where ``eps' = 4 L0 tau / B`` is
    the per-draw epsilon of Prop. 3.3's proof (step 3) and ``N = 2 T (K + 1)``
    draws are charged. ``L0 = 1`` bounds ``|q_j(z) - (Q x)_j|`` for counting
    queries.
    """
    n = problem.n
    ell = math.log(problem.size) + math.log(2 * problem.n_cells)
    eps = budget.epsilon if not math.isinf(budget.epsilon) else 1e6
    log_d = math.log(1.0 / budget.delta) if budget.delta > 0 else 1.0
    if n_iter is None:
        n_iter = int(min(n, max(1.0, n * eps / math.sqrt(ell * log_d))))
    T = max(1, min(int(n_iter), n))
    B = n // T
    eps_step, rule = step_epsilon(budget, 4 * T)
    tau = min(math.sqrt(ell / T) / L0, eps_step * B / (4.0 * L0))
    return T, B, tau, eps_step, rule


def solve_vertex(problem, budget, options):
    """Paper 002 Algorithm 1 as printed (K = 1, y-update as ascent), exactly accounted.

    ``4 T`` vertex draws, each ``4 tau / B``-DP (Prop. 3.3, proof step 3),
    recorded as one batch. ``options``: none. Returns the average of the
    output x-vertices as ``solution``.
    """
    _check_relation(problem, "smd_vertex")
    backend, progress = budget.backend, problem.progress
    xp = backend.xp
    T, B, tau, eps_step, rule = vertex_schedule(problem, budget, problem.n_iter)
    batches = _batches(problem, T, backend)
    eps_draw = 4.0 * tau / B  # Prop. 3.3 proof, step 3 (L0 = 1): <= eps_step
    draws = budget.exponential_batch(
        eps_draw, 4 * T, label="vertex samples (2 players x (K+1), K=1)")
    like = problem.counts(backend, problem.records[:0])
    sizes = [problem.cells(k) for k in range(len(problem.marginals))]
    g_x = xp.zeros_like(like)
    g_y = [xp.zeros((c,), dtype=like.dtype, device=_device(like)) for c in sizes]
    out = np.zeros(problem.size)
    prior = problem.log_prior(xp, like)  # structural zeros: never a vertex of the x player
    for t in range(T):
        # vertex samples of both players (exponential mechanisms, Prop. 3.3)
        x_hat = draws.argmax(-tau * g_x + prior)
        scores = xp.concat(g_y + [-g for g in g_y])
        j_hat = draws.argmax(tau * scores)
        out[draws.argmax(-tau * g_x + prior)] += 1.0    # output sample x~^t
        draws.argmax(tau * scores)                       # output sample y~^t (charged, unused)
        k, cell, sign = _locate(j_hat, sizes)
        g_x = g_x - sign * problem.cell_indicator(k, cell, xp, like)    # grad_x f = -Q^T y^
        batch = problem.record_marginals(batches[t])
        cells = problem.record_cells(x_hat)
        g_y = [g + backend.asarray(b / B - _onehot(c, n_c)) for g, b, c, n_c
               in zip(g_y, batch, cells, sizes)]                        # ascent: q(B) - Q x^
        if progress is not None and (t + 1) % max(1, T // 20) == 0:
            progress(t + 1, T, math.nan)
    return SolverResult(backend.asarray(out / T), T,
                        info=dict(step_epsilon=eps_draw, step_rule=rule, tau=tau,
                                  batch_size=B, n_estimate=float(problem.n)))


def _onehot(c, n):
    v = np.zeros(n)
    v[c] = 1.0
    return v
