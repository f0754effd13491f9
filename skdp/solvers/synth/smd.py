"""Saddle-point solvers for marginal query release (paper 002, §1.4 and §3.1).

The game of paper 002 §1.4 eq. (3): a histogram player ``x`` on the simplex
over the data domain ``Z`` against a query player ``y`` over the workload
``Q`` (closed under negation),

    min_x max_y  < y, q(D) - Q x >,

so that the value at ``x`` is the worst query error of ``x``. Three solvers:

``smd`` (select-measure-solve; the default)
    Measure every workload marginal once with the Gaussian mechanism under
    zCDP (Bun–Steinke 2016, Prop. 1.6; sensitivity in
    :func:`~skdp.solvers.synth.marginals.marginal_sensitivity`), then solve
    the *same game on the noisy answers* ``q~`` by entropic mirror-prox on both
    players (Nemirovski 2004) until the duality gap is below ``tol``. The
    solve never reads the data: its privacy is the measurement's
    (post-processing). Two query sets:

    * ``query_set='box'`` (default): one query player per marginal cell with
      ``y_j`` in ``[-1, 1]`` (the product of the 2-simplices ``{q_j, -q_j}``,
      a polytope, paper 002 footnote 1). The value is the mean l1 error of the
      marginals, twice their mean total-variation error.
    * ``query_set='simplex'``: the paper's ``y`` on the simplex over
      ``Q u -Q``; the value is the max cell error.

``smd_private_game`` (paper 002 Thm 1.1's "variant of Algorithm 1",
reconstructed in notes 002 §6.7 option 2)
    Only the query player's vertex samples touch the data: each step's query
    is drawn by the exponential mechanism from ``softmax(tau_y G_y)``, where
    ``G_y`` accumulates the batch answers minus ``Q x^t`` over disjoint
    batches; the histogram player follows ``-Q^T e_j`` (data independent), so
    its iterates and their average are post-processing and are released.

``smd_vertex`` (paper 002 Algorithm 1, with the y-update sign corrected to
ascent, notes 002 §3.1)
    Both players sample one vertex per step (K = 1, bilinear so unbiased)
    plus one output vertex each; the synthetic histogram is the average of
    the ``T`` output x-vertices. All ``2 T (K + 1)`` draws are charged, as in
    Prop. 3.3.

Exponential-mechanism steps are charged the largest per-step epsilon that one
of these valid rules allows for the step count: paper 002 Cor. 3.6,
fully adaptive composition (Thm 3.5) and bounded-range zCDP (Cesar–Rogers
2021, ``eps**2/8`` per draw); the rule used is returned in ``info``.
"""

from dataclasses import dataclass, field
import math

import numpy as np

from ...privacy.accounting import (advanced_composition_step_epsilon,
                                  bounded_range_step_epsilon, fully_adaptive_step_epsilon)
from ...privacy.mechanisms import gaussian_mechanism
from .marginals import _device, marginal_sensitivity, softmax

__all__ = ["Budget", "SolverResult", "solve_smd", "solve_private_game", "solve_vertex",
           "step_epsilon", "mirror_prox"]


@dataclass
class Budget:
    """What a solver may spend.

    Parameters
    ----------
    rho : float
        zCDP budget of the solver.
    epsilon, delta : float
        The fit's (epsilon, delta); used by the advanced-composition rules
        only when ``exclusive`` (the solver is the fit's only mechanism).
    exclusive : bool
        No other mechanism shares the fit's budget.
    mu : float or None
        Gaussian-DP budget (Dong–Roth–Su 2022), given when the solver owns the
        whole (epsilon, delta): a solver whose only mechanism is one Gaussian
        release calibrates on it exactly (Cor. 2.13), which needs about 7%
        less noise than the zCDP conversion at epsilon = 1.
    """

    rho: float
    epsilon: float
    delta: float
    exclusive: bool = True
    mu: float = None


@dataclass
class SolverResult:
    """A solver's output: the synthetic distribution and diagnostics."""

    histogram: object  # flat probability vector in the backend namespace
    n_iter: int
    gap: float = math.nan
    n_estimate: float = math.nan
    info: dict = field(default_factory=dict)


def step_epsilon(budget, n_steps):
    """Largest per-step epsilon of ``n_steps`` exponential mechanisms, and the rule.

    Candidates: bounded-range zCDP, ``sqrt(8 rho / N)`` (Cesar–Rogers 2021);
    and, when the solver owns the whole (epsilon, delta), paper 002 Cor. 3.6,
    ``eps / (2 sqrt(2 N log(1/delta)))``, and fully adaptive composition
    (Thm 3.5) solved for equal steps (notes 002 §6.6). All are valid; the
    largest is the tightest accounting.

    Examples
    --------
    >>> eps, rule = step_epsilon(Budget(rho=0.1, epsilon=1.0, delta=1e-6), 100)
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


# ---------------------------------------------------------------------------
# smd: measure, then solve the game on the noisy answers
# ---------------------------------------------------------------------------
def measure(problem, rho, backend, ledger, mu=None):
    """Gaussian measurement of every workload marginal (counts).

    Calibrated to ``rho``-zCDP (``sigma = Delta / sqrt(2 rho)``, Bun–Steinke
    Prop. 1.6), or to ``mu``-GDP when given (``sigma = Delta / mu``,
    Dong–Roth–Su 2022 Thm 2.7).

    Returns the noisy answers as probabilities (per marginal), the noise
    standard deviation in counts, and the estimate of ``n`` used to
    normalise (public ``n`` under replace-one; the mean noisy total under
    add/remove, post-processing).
    """
    xp = backend.xp
    counts = problem.counts(backend)
    exact = xp.concat(problem.answer(counts, xp))
    sens = marginal_sensitivity(len(problem.marginals), problem.relation)
    calib = dict(rho=rho) if mu is None or math.isinf(mu) else dict(sigma=sens / mu)
    noisy, sigma = gaussian_mechanism(exact, sens, backend, ledger=ledger,
                                      label=f"{len(problem.marginals)} workload marginals",
                                      **calib)
    parts, start = [], 0
    for k in range(len(problem.marginals)):
        c = problem.cells(k)
        parts.append(noisy[start:start + c])
        start += c
    if problem.relation == "replace_one":
        n_est = float(problem.n)
    else:
        n_est = max(1.0, float(sum(float(xp.sum(p)) for p in parts)) / len(parts))
    return [p / n_est for p in parts], sigma, n_est


def mirror_prox(problem, answers, xp, *, query_set="box", band=0.0, n_iter=1000, tol=1e-3,
                target=None, check_every=10, progress=None, step=1.0):
    """Entropic mirror-prox for ``min_x max_y <y, a - Q x> - band ||y||_1`` (Nemirovski 2004).

    ``answers`` are per-marginal target vectors ``a`` (probability scale). The
    value is normalised by the number of marginals ``M``:

    * ``'box'``: ``y = p+ - p-`` with ``p+, p-`` in ``[0, 1]^cells`` (each
      coordinate a 2-simplex), ``F = (1/M) sum_k <p+_k - p-_k, a_k - Q_k x>
      - (band/M) sum_k <p+_k + p-_k, 1>``, so ``max_y F = (1/M) sum_k
      sum_j (|a_kj - (Q_k x)_j| - band)_+``: with ``band = 0`` the mean l1
      error of the marginals, twice their mean total-variation error; with a
      band of the order of the measurement noise, errors inside the noise are
      free and the entropic start (the uniform histogram) is kept where the
      answers do not contradict it (a dead-zone variant of the game);
    * ``'simplex'`` (the paper's eq. (3)): ``y`` on the simplex over
      ``Q u -Q``, ``max_y F = max_j |a_j - (Q x)_j|``.

    Both players take entropic steps (multiplicative weights on ``x``,
    sigmoid/softmax of cumulative gradients on ``y``) of size ``step``; the
    ergodic averages of the extrapolated points are returned with their
    duality gap, computed exactly every ``check_every`` iterations. Stops at
    gap ``<= tol``, or when the value ``max_y F(x_bar, y)`` (the residual of
    ``x_bar``) is ``<= target`` when a target is given (the discrepancy
    principle, Morozov 1966: a residual below the noise's own size only fits
    the noise).

    Returns
    -------
    x_bar : array, the averaged histogram
    gap : float
    n_iter : int, iterations run
    """
    tol = -math.inf if tol is None else tol
    M = len(problem.marginals)
    like = answers[0]
    size = problem.size
    box = query_set == "box"
    scale = 1.0 / M if box else 1.0
    log_x = xp.zeros((size,), dtype=like.dtype, device=_device(like)) - math.log(size)
    init = -math.log(2.0) if box else 0.0
    lam_p = [xp.zeros_like(a) + init for a in answers]
    lam_n = [xp.zeros_like(a) + init for a in answers]
    eta = float(step)
    x_sum = xp.zeros_like(log_x)
    y_sum = [xp.zeros_like(a) for a in answers]
    half = problem.n_cells

    def y_of(lp, ln):
        if box:
            return [_sigmoid(p, xp) - _sigmoid(n, xp) for p, n in zip(lp, ln)]
        w = softmax(xp.concat(lp + ln), xp)
        out, start = [], 0
        for k in range(M):
            c = problem.cells(k)
            out.append(w[start:start + c] - w[half + start:half + start + c])
            start += c
        return out

    def grads(x, y):
        gx = problem.adjoint(y, xp, log_x) * scale  # -grad_x F (x descends)
        r = [a - q for a, q in zip(answers, problem.answer(x, xp))]
        return gx, r

    def step_y(lp, ln, r, h):
        if box:
            return ([p + h * (g - band) for p, g in zip(lp, r)],
                    [n + h * (-g - band) for n, g in zip(ln, r)])
        return [p + h * g for p, g in zip(lp, r)], [n - h * g for n, g in zip(ln, r)]

    gap, t = math.inf, 0
    for t in range(1, n_iter + 1):
        x, y = softmax(log_x, xp), y_of(lam_p, lam_n)
        gx, r = grads(x, y)
        lw = log_x + eta * gx
        wp, wn = step_y(lam_p, lam_n, r, eta)
        xw, yw = softmax(lw, xp), y_of(wp, wn)
        gxw, rw = grads(xw, yw)
        log_x = log_x + eta * gxw
        log_x = log_x - xp.max(log_x)
        lam_p, lam_n = step_y(lam_p, lam_n, rw, eta)
        x_sum = x_sum + xw
        y_sum = [s + v for s, v in zip(y_sum, yw)]
        if t % check_every == 0 or t == n_iter:
            gap, value = duality_gap(problem, answers, x_sum / t, [s / t for s in y_sum], xp,
                                     query_set=query_set, band=band)
            if progress is not None:
                progress(t, n_iter, gap)
            if gap <= tol or (target is not None and value <= target):
                break
    return x_sum / t, gap, t


def _sigmoid(v, xp):
    return 0.5 * (xp.tanh(0.5 * v) + 1.0)


def duality_gap(problem, answers, x, y, xp, *, query_set="box", band=0.0):
    """``max_y' F(x, y') - min_x' F(x', y)`` of the game of :func:`mirror_prox`.

    ``min_x' F(x', y) = <y, a> - band ||y||_1 - max_z (Q^T y)_z`` (a linear
    function on the simplex is minimised at a vertex; for the box, ``y`` is read
    as the feasible point ``p+ = max(y, 0)``, ``p- = max(-y, 0)``, so the gap
    is that of a feasible pair and bounds the suboptimality of ``x``);
    ``max_y' F(x, y')`` is the mean dead-zone l1 error (box) or the max
    absolute error (simplex).

    Returns
    -------
    gap : float
    value : float
        ``max_y' F(x, y')``, the residual of ``x``.
    """
    M = len(problem.marginals)
    resid = [a - q for a, q in zip(answers, problem.answer(x, xp))]
    if query_set == "box":
        scale = 1.0 / M
        upper = sum(float(xp.sum(xp.clip(xp.abs(r) - band, min=0.0))) for r in resid) * scale
        pen = band * sum(float(xp.sum(xp.abs(v))) for v in y)
    else:
        scale, pen = 1.0, 0.0
        upper = max(float(xp.max(xp.abs(r))) for r in resid)
    ya = sum(float(xp.sum(v * a)) for v, a in zip(y, answers))
    lower = (ya - pen - float(xp.max(problem.adjoint(y, xp, x)))) * scale
    return upper - lower, upper


DISCREPANCY = 0.9
"""Stop when the residual is this fraction of the noise's expected size.

Chosen on exploratory runs (other discretisations of the digits and breast
cancer tables, notes in ``benchmarks/RESULTS.md``): the 2-way
error of the iterates was lowest slightly below the noise level (0.75-0.97)."""


def noise_level(problem, sigma, n_est, query_set="box"):
    """Expected value of the game at the data's own histogram: the noise's size.

    ``box``: ``E (1/M) sum_k ||noise_k||_1 = sqrt(2/pi) (sigma/n) * mean cells``;
    ``simplex``: ``E max_j |noise_j| ~ (sigma/n) sqrt(2 log(2 m))``. Public (it
    depends on sigma, n and the domain only).
    """
    scale = sigma / n_est
    if query_set == "box":
        return math.sqrt(2.0 / math.pi) * scale * problem.n_cells / len(problem.marginals)
    return scale * math.sqrt(2.0 * math.log(2.0 * problem.n_cells))


def solve_smd(problem, budget, backend, ledger, *, n_iter=None, tol="auto", query_set="box",
              progress=None):
    """Select-measure-solve: Gaussian measurement of the workload, then the game.

    Privacy: one Gaussian mechanism on the stacked marginal counts with
    l2-sensitivity ``sqrt(2M)`` (replace-one) or ``sqrt(M)`` (add/remove),
    ``rho = Delta**2 / (2 sigma**2)`` (Bun–Steinke Prop. 1.6), or, when it is the
    fit's only mechanism, ``Delta / sigma = mu`` with ``mu`` the exact
    Gaussian-DP budget of (epsilon, delta) (Dong–Roth–Su 2022, Cor. 2.13). The
    game solve is post-processing.

    ``tol='auto'`` stops mirror-prox by the discrepancy principle (the residual
    reaches ``DISCREPANCY`` times :func:`noise_level`); a float stops it at that
    duality gap. ``n_iter`` caps the iterations (default 500).
    """
    xp = backend.xp
    answers, sigma, n_est = measure(problem, budget.rho, backend, ledger, mu=budget.mu)
    n_iter = 500 if n_iter is None else n_iter
    if tol == "auto":
        target = DISCREPANCY * noise_level(problem, sigma, n_est, query_set)
        gap_tol = 1e-4
    else:
        target, gap_tol = None, float(tol)
    x, gap, t = mirror_prox(problem, answers, xp, query_set=query_set, n_iter=n_iter,
                            tol=gap_tol, target=target, progress=progress)
    return SolverResult(x, t, gap, n_est, info=dict(noise_std_counts=sigma, query_set=query_set,
                                                    tol=tol, stop_residual=target))


# ---------------------------------------------------------------------------
# The paper's private games
# ---------------------------------------------------------------------------
def _check_relation(problem, name):
    if problem.relation != "replace_one":
        raise ValueError(f"solver {name!r} follows paper 002's replace-one adjacency (fixed n, "
                         "disjoint batches); use neighbouring='replace_one'.")


def _batches(problem, n_steps, backend):
    """Disjoint batches of a data-independent permutation; B = floor(n / T)."""
    n = problem.n
    batch = n // n_steps
    perm = backend.rng.permutation(n)
    return [problem.records[perm[t * batch:(t + 1) * batch]] for t in range(n_steps)]


def private_game_schedule(problem, budget, n_iter=None):
    """T, tau_x, tau_y and the per-step epsilon of notes 002 §6.7 option 2.

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


def solve_private_game(problem, budget, backend, ledger, *, n_iter=None, progress=None):
    """Paper 002 Thm 1.1's variant (notes 002 §6.7 option 2), exactly accounted."""
    _check_relation(problem, "smd_private_game")
    xp = backend.xp
    T, B, tau_x, tau_y, eps_step, rule = private_game_schedule(problem, budget, n_iter)
    batches = _batches(problem, T, backend)
    eps_draw = 2.0 * tau_y / B  # <= eps_step; the draw ~ exp(tau_y G_y) is 2 tau_y / B-DP
    ledger.exponential(eps_draw, count=T, label="query-player vertex (exponential mechanism)")
    like = problem.counts(backend, problem.records[:0])
    g_x = xp.zeros_like(like)
    g_y = [xp.zeros((problem.cells(k),), dtype=like.dtype, device=_device(like))
           for k in range(len(problem.marginals))]
    x_sum = xp.zeros_like(like)
    sizes = [problem.cells(k) for k in range(len(problem.marginals))]
    for t in range(T):
        x = softmax(-tau_x * g_x, xp)
        x_sum = x_sum + x
        # the query player's release: j ~ softmax(tau_y G), G over Q u -Q
        scores = xp.concat(g_y + [-g for g in g_y])
        j = _draw(tau_y * scores, backend)
        k, cell, sign = _locate(j, sizes)
        g_x = g_x - sign * problem.cell_indicator(k, cell, xp, like)
        # data-dependent update of the query player's scores (never released)
        batch = problem.record_marginals(batches[t])
        qx = problem.answer(x, xp)
        g_y = [g + backend.asarray(b / B) - q for g, b, q in zip(g_y, batch, qx)]
        if progress is not None and (t + 1) % max(1, T // 20) == 0:
            progress(t + 1, T, math.nan)
    return SolverResult(x_sum / T, T, math.nan, float(problem.n),
                        info=dict(step_epsilon=eps_draw, step_rule=rule, tau_x=tau_x,
                                  tau_y=tau_y, batch_size=B))


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


def solve_vertex(problem, budget, backend, ledger, *, n_iter=None, progress=None):
    """Paper 002 Algorithm 1 as printed (K = 1, y-update as ascent), exactly accounted."""
    _check_relation(problem, "smd_vertex")
    xp = backend.xp
    T, B, tau, eps_step, rule = vertex_schedule(problem, budget, n_iter)
    batches = _batches(problem, T, backend)
    eps_draw = 4.0 * tau / B  # Prop. 3.3 proof, step 3 (L0 = 1): <= eps_step
    ledger.exponential(eps_draw, count=4 * T, label="vertex samples (2 players x (K+1), K=1)")
    like = problem.counts(backend, problem.records[:0])
    sizes = [problem.cells(k) for k in range(len(problem.marginals))]
    g_x = xp.zeros_like(like)
    g_y = [xp.zeros((c,), dtype=like.dtype, device=_device(like)) for c in sizes]
    out = np.zeros(problem.size)
    for t in range(T):
        # vertex samples of both players (exponential mechanisms, Prop. 3.3)
        x_hat = _draw(-tau * g_x, backend)
        scores = xp.concat(g_y + [-g for g in g_y])
        j_hat = _draw(tau * scores, backend)
        out[_draw(-tau * g_x, backend)] += 1.0          # output sample x~^t
        _draw(tau * scores, backend)                     # output sample y~^t (charged, unused)
        k, cell, sign = _locate(j_hat, sizes)
        g_x = g_x - sign * problem.cell_indicator(k, cell, xp, like)    # grad_x f = -Q^T y^
        batch = problem.record_marginals(batches[t])
        cells = problem.record_cells(x_hat)
        g_y = [g + backend.asarray(b / B - _onehot(c, n_c)) for g, b, c, n_c
               in zip(g_y, batch, cells, sizes)]                        # ascent: q(B) - Q x^
        if progress is not None and (t + 1) % max(1, T // 20) == 0:
            progress(t + 1, T, math.nan)
    return SolverResult(backend.asarray(out / T), T, math.nan, float(problem.n),
                        info=dict(step_epsilon=eps_draw, step_rule=rule, tau=tau,
                                  batch_size=B))


def _draw(logits, backend):
    """One draw ``~ softmax(logits)`` by Gumbel-max (the exponential mechanism)."""
    xp = backend.xp
    noise = backend.gumbel((logits.shape[0],), dtype=logits.dtype)
    return int(xp.argmax(logits + noise))


def _onehot(c, n):
    v = np.zeros(n)
    v[c] = 1.0
    return v
