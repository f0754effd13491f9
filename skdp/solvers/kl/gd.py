"""Noisy gradient descent solvers of paper 004: noisy_gd, adaptive_gd, stationary_gd.

* ``noisy_gd``: the standard baseline (paper 004 Alg. 4 without projection):
  ``T`` full-batch steps, the budget split evenly, ``sigma = (2C/n) sqrt(T/(2 rho))``.
* ``adaptive_gd``: paper 004 Alg. 3 (Thm 3 privacy, Thm 4 utility), with the
  constants re-derived from the true replace-one sensitivity ``2C/n`` (the
  paper's constants are off by factors of 2, e.g. Thm 1 claims ``rho`` where
  Lemma 8 proves ``2 rho``) and a strict privacy filter: a step is taken only if its
  cost fits in what is left, and the last step spends what is left. One
  departure (issue 18): a noisy norm below twice its noise sd is "unknown",
  not "converged" (see ``_adaptive_path``); a second (issue 31): on tables of
  ``TAIL_MIN_ROWS`` rows or more, the first "unknown" norm ends the norm
  queries and what is left is spent on plain noisy steps (see ``_noisy_tail``), with
  Nesterov momentum when the run is averaged (``tail_momentum``).
* ``stationary_gd``: paper 004 Thm 5: ``adaptive_gd`` on part of the budget,
  then the exponential mechanism picks the iterate with the smallest gradient
  norm.

All three are called ``fn(problem, budget, options)`` (a
:class:`~skdp.solvers.kl.problem.KLProblem`, a
:class:`~skdp.privacy.budget.Budget`, the resolved ``solver_options``) and
return a :class:`~skdp.solvers.spec.SolverResult` whose ``solution`` is the
released iterate; the per-step log says what each step cost.
"""

import math

from ..spec import Option, SolverResult

__all__ = ["noisy_gd", "adaptive_gd", "stationary_gd", "suffix_start", "tail_steps",
           "NOISY_GD_OPTIONS",
           "ADAPTIVE_GD_OPTIONS", "ADAPTIVE_GD_RELEASE_OPTIONS", "STATIONARY_GD_OPTIONS"]

NOISY_GD_STEPS = 10           # default T of noisy_gd (validated with preconditioning)
ADAPTIVE_GD_MAX_ITER = 2000   # cap on adaptive_gd steps (the last step spends the rest)
NORM_NOISE_K = 2.0            # adaptive_gd: a noisy norm below k * its noise sd is "unknown"
AVERAGE_MIN_STEPS = 10        # adaptive_gd: suffix-average only runs of at least this many steps
TAIL_FACTOR = 2.5             # adaptive_gd: default `tail` (issue 31)
TAIL_MIN_ROWS = 1000          # adaptive_gd: the tail runs on tables of at least this many rows
TAIL_MOMENTUM = 0.5           # adaptive_gd: default `tail_momentum` (issue 31)

NOISY_GD_OPTIONS = ()
ADAPTIVE_GD_OPTIONS = (
    Option("norm_cost_scale", "float", 1.0, low=0, low_open=True,
           doc="cost of a noisy gradient norm: norm_cost_scale * sqrt(rho) / n"),
    Option("floor_frac", "float", 0.5, low=0, high=1, low_open=True,
           doc="noise floor: a step costs at most floor_frac * rho"),
)
_AVERAGE = Option("average", "str", "suffix", choices=("suffix", "last"),
                  doc="released point: 'suffix', the mean of the last half of the iterates "
                      "(runs of at least 10 steps; post-processing), or the 'last' iterate")
_TAIL = Option("tail", "float", TAIL_FACTOR, low=0,
               doc="after the first noisy norm below its noise level (n >= 1000), what is left "
                   "buys tail x as many equal plain noisy steps as Alg. 3's steps; 0: off")
_TAIL_MOMENTUM = Option("tail_momentum", "float", TAIL_MOMENTUM, low=0, high=1, high_open=True,
                        doc="Nesterov momentum of the tail's steps when the released point is "
                            "the suffix mean, which then covers the tail's iterates; 0: off")
ADAPTIVE_GD_RELEASE_OPTIONS = ADAPTIVE_GD_OPTIONS + (_AVERAGE, _TAIL, _TAIL_MOMENTUM)
STATIONARY_GD_OPTIONS = ADAPTIVE_GD_OPTIONS + (
    Option("select_frac", "float", 0.2, low=0, high=1, low_open=True, high_open=True,
           doc="share of rho spent on selecting the released iterate"),
)


def _norm(v, xp):
    return float(xp.sqrt(xp.sum(v * v)))


def _step_size(cfg):
    """``1/(2 L1)`` (paper 004 Alg. 3) in theory mode, ``1/L1`` otherwise."""
    return 1.0 / (2.0 * cfg.smoothness) if cfg.theory else 1.0 / cfg.smoothness


def _say(cfg, text):
    if cfg.verbose:
        print(text, flush=True)


def noisy_gd(problem, budget, options):
    """Noisy full-batch gradient descent with a fixed number of steps.

    Each of the ``T = max_iter`` (default 10) steps releases the clipped mean
    gradient with ``sigma = (2C/n) sqrt(T/(2 rho))``, i.e. ``rho/T``-zCDP per
    step (Bun–Steinke Prop. 1.6, composition Lemma 2.3), and steps by
    ``1/L1``. The last iterate is returned. No options.
    """
    obj, w, cfg = problem.objective, problem.w0, problem.config
    steps = int(cfg.max_iter or NOISY_GD_STEPS)
    sens = 2.0 * cfg.clip / obj.n
    sigma = budget.sigma(sens, budget.rho / steps)
    eta = _step_size(cfg)
    history = []
    for t in range(steps):
        g = budget.gaussian(obj.clipped_grad(w, cfg.clip), sens, sigma, label="gradient")
        w = w - eta * g
        history.append(dict(step=t, sigma=sigma, rho=budget.spent))
        if cfg.verbose and t % max(steps // 10, 1) == 0:
            _say(cfg, f"noisy_gd step {t}/{steps}, sigma={sigma:.3g}")
    return SolverResult(solution=w, n_iter=steps, history=history)


def _adaptive_path(problem, budget, options, keep_iterates=False):
    """Alg. 3 of paper 004 with a strict zCDP filter; returns (w, history, iterates).

    Per step (the budget split made explicit): a noisy norm ``N_t = ||g_t|| + N(0, s_hat**2)``
    at cost ``c * sqrt(rho)/n`` (paper: ``c = 1``), then the gradient with
    ``sigma_t = max(max(N_t, k s_hat) / (snr sqrt(d A)), sigma_floor)``, ``A =
    max(log(n sqrt(rho)/beta), 1)``, ``k = NORM_NOISE_K = 2``, ``sigma_floor =
    (2C/n)/sqrt(floor_frac rho)`` (a step of cost at most ``floor_frac rho``),
    at cost ``(2C/n)**2/(2 sigma_t**2)``. The run ends (1) at a step at the
    floor (Lemma 11: the run has converged), (2) at the ``max_iter``-th step,
    or (3) at a step after which less would be left than this step and the
    next norm query cost; that last step spends all that is left, so the
    filter is always emptied exactly.

    **Departure from Alg. 3** (issue 18): a noisy norm below its own noise
    level, ``N_t < k s_hat``, is read as "unknown", not as a small norm: it
    is replaced by ``k s_hat`` in the rule above. In Alg. 3 such an ``N_t``
    (often negative when ``||g_t|| <~ s_hat``, i.e. for ``n`` of a few
    thousand or less) sets ``sigma_t`` to the floor, which ends the run and
    puts the rest of the budget into one step: on real tables Alg. 3 stopped
    after 1-2 steps, far from the optimum. With the clamp, the floor (and
    Lemma 11's stop) is reached only when ``N_t <= snr sqrt(d A) sigma_floor =:
    tau`` *and* ``k s_hat <= tau``, i.e. when the norm is confidently small
    (``||g_t|| <= N_t + k s_hat <= 2 tau`` except with probability about
    ``Phi(-k) = 2.3%``); otherwise the step uses the noise Alg. 3 would use for
    a norm at the query's noise level, ``k s_hat / (snr sqrt(d A))``, and the
    run goes on. ``k = 2`` is the one-sided 97.7% bound on a ``N(0, s_hat**2)``
    draw: below it the query cannot tell the norm from zero; it also makes
    ``sigma_t`` continuous in ``N_t``. Privacy is unchanged: the same two
    releases per step at the same sensitivities, ``sigma_t`` a function of
    released values only, each cost checked by the same filter (Thm 3,
    fully adaptive composition).
    """
    obj, w, cfg = problem.objective, problem.w0, problem.config
    xp, n, d = budget.backend.xp, obj.n, cfg.n_params
    sens = 2.0 * cfg.clip / n
    eta = _step_size(cfg)
    max_iter = int(cfg.max_iter or ADAPTIVE_GD_MAX_ITER)
    tail = options.get("tail", 0.0) if n >= TAIL_MIN_ROWS else 0.0
    rho = budget.rho
    private = budget.private
    if private:
        norm_cost = options["norm_cost_scale"] * math.sqrt(rho) / n
        norm_cost = min(norm_cost, 0.5 * rho)
        sigma_hat = budget.sigma(sens, norm_cost)
        log_term = max(math.log(n * math.sqrt(rho) / cfg.beta), 1.0)
        sigma_floor = budget.sigma(sens, options["floor_frac"] * rho)
        scale = cfg.snr * math.sqrt(d * log_term)
    history, iterates = [], [w]
    for t in range(max_iter):
        if private and budget.remaining < norm_cost * (1.0 + 1e-6):
            break  # not reached: the step before spent what was left (rule 3)
        g = obj.clipped_grad(w, cfg.clip)
        if not private:
            w = w - eta * g
            history.append(dict(step=t, noisy_norm=_norm(g, xp), sigma=0.0, rho=0.0))
            if keep_iterates:
                iterates.append(w)
            continue
        noisy_norm = float(budget.gaussian(xp.reshape(xp.sqrt(xp.sum(g * g)), (1,)), sens,
                                           sigma_hat, label="gradient norm")[0])
        unknown = noisy_norm < NORM_NOISE_K * sigma_hat
        sigma = max(max(noisy_norm, NORM_NOISE_K * sigma_hat) / scale, sigma_floor)
        step_rho = sens**2 / (2 * sigma**2)
        if unknown and tail > 0:
            steps = tail_steps(tail, budget.remaining, norm_cost + step_rho, max_iter - t)
            averaged = options.get("average") == "suffix" and t + steps >= AVERAGE_MIN_STEPS
            first = dict(step=t, noisy_norm=noisy_norm, norm_rho=norm_cost,
                         momentum=options.get("tail_momentum", 0.0) if averaged else 0.0)
            w = _noisy_tail(obj, cfg, budget, w, steps, history,
                            iterates if keep_iterates else None, first)
            return w, history, iterates
        if sigma == sigma_floor:
            stop = "floor"
        elif t == max_iter - 1:
            stop = "max_iter"
        elif budget.spent + step_rho + (norm_cost + step_rho) * (1.0 + 1e-6) > rho:
            stop = "budget"  # the next step would not fit: this one spends the rest
        else:
            stop = None
        if stop is not None:
            sigma = budget.sigma(sens, budget.remaining)
            step_rho = sens**2 / (2 * sigma**2)
        w = w - eta * budget.gaussian(g, sens, sigma, label="gradient")
        entry = dict(step=t, noisy_norm=noisy_norm, unknown=unknown, sigma=sigma,
                     rho=norm_cost + step_rho, spent=budget.spent)
        if stop is not None:
            entry["stop"] = stop
        history.append(entry)
        if keep_iterates:
            iterates.append(w)
        if cfg.verbose and (t % 50 == 0 or stop):
            _say(cfg, f"adaptive_gd step {t}: noisy |grad|={noisy_norm:.3g}"
                      f"{' (below its noise level)' if unknown else ''}, "
                      f"sigma={sigma:.3g}, spent {budget.spent / rho:.1%} of rho"
                      f"{f', stop: {stop}' if stop else ''}")
        if stop is not None:
            break
    return w, history, iterates


def tail_steps(factor, remaining, unknown_rho, left):
    """The tail's public step count: ``min(left, ceil(factor * remaining / unknown_rho))``, >= 1."""
    return int(max(1, min(left, math.ceil(factor * remaining / unknown_rho))))


def _noisy_tail(obj, cfg, budget, w, steps, history, iterates, first):
    """Plain noisy GD on what is left (issue 31's departure from Alg. 3); returns the last ``w``.

    Called at the first step ``t`` whose noisy norm is "unknown" (below ``k s_hat``), its norm
    query already charged. Alg. 3 would take steps at ``sigma_u = k s_hat / (snr sqrt(d A))``,
    each costing ``c_u = norm_cost + (2C/n)**2 / (2 sigma_u**2)``: what is left, ``R``, buys about
    ``R / c_u`` of them, with more "unknown" answers and no step ever cheaper (the noise is set
    by the norm query's noise, not by the norm). Issue 31 diagnosed the cost on txhousing: 6
    steps, far too few for its ill-conditioned preconditioned problem. Here the norm queries
    stop and ``R`` is split evenly over ``K = tail_steps(tail, R, c_u, max_iter - t)`` steps,
    ``sigma = (2C/n) / sqrt(2 R / K)`` (the last spends exactly what is left): the plain
    noisy GD of paper 004 Alg. 4 (``noisy_gd`` here) on the remaining budget, ``tail``
    (default 2.5) times as many steps as Alg. 3 would take. Privacy: ``K`` and ``sigma`` are
    functions of public values and released ones (``R`` is set by the released norms), each
    step is a Gaussian release of sensitivity ``2C/n`` at cost ``(2C/n)**2 / (2 sigma**2)``
    (Bun–Steinke Prop. 1.6) charged to the same filter, so the fully adaptive composition
    of Thm 3 (Whitehouse et al. 2023) still gives ``rho``-zCDP; the sum of the costs is
    ``R``. Lemma 11's early stop and Thm 4's bound do not cover the tail (no KL-adapted
    noise): this trades the adaptivity Alg. 3 could no longer use (its norm was below the
    noise) for more steps. ``TAIL_MIN_ROWS`` = 1000 and ``tail`` = 2.5 were chosen on the
    validation split of benchmarks/real_tables.py's regression tables (issue 31, RESULTS.md):
    below 1,000 rows (the suite's tables of 250-330 rows) the tail's extra noise costs
    more than its steps gain.

    Momentum (``first["momentum"]`` = ``m``, the option ``tail_momentum``, default 0.5, when
    the released point is the suffix mean: ``average='suffix'`` and ``t + K >= 10``; else 0):
    Nesterov's steps, counted from the tail's start ``w_0`` (``w_{-1} = w_0``): ``y_k = w_k +
    m (w_k - w_{k-1})``, ``w_{k+1} = y_k - eta g~(y_k)``, ``g~`` the same release as above,
    taken at ``y_k`` instead of ``w_k``. A direction of small curvature then moves about
    ``1/(1 - m)`` = 2 times as fast per step while the top direction (curvature near
    ``1/eta``) is still contracted (on a quadratic the steps are stable for curvatures below
    ``2(1 + m)/(1 + 2m)`` = 1.5 times ``1/eta``; plain steps: 2 times); ``adaptive_gd`` then
    averages over all of the tail's iterates (``tail_window``), which takes out the noise the
    faster steps add.
    Privacy is unchanged: ``K`` and ``sigma`` do not depend on ``m``, ``y_k`` is a function of
    released values (post-processing, Bun & Steinke 2016 Lemma 1.8), the release at ``y_k``
    has the same sensitivity ``2C/n`` (any point) and cost: the same Gaussian releases and
    the same ledger as ``m = 0`` for the same seed. ``m`` = 0.5 was chosen on the validation
    split (issue 31, RESULTS.md: txhousing at epsilon 1 from 0.89x to 0.92x of its tuned
    reference, Wage and SLID unchanged).
    """
    sens, eta = 2.0 * cfg.clip / obj.n, _step_size(cfg)
    share = budget.remaining / steps
    m, previous = first["momentum"], w
    for k in range(steps):
        last = k == steps - 1
        sigma = budget.sigma(sens, budget.remaining if last else share)
        y = w + m * (w - previous) if m else w
        previous = w
        w = y - eta * budget.gaussian(obj.clipped_grad(y, cfg.clip), sens, sigma, label="gradient")
        entry = dict(step=first["step"] + k, noisy_norm=first["noisy_norm"] if k == 0 else None,
                     unknown=True, tail=steps, momentum=m, sigma=sigma,
                     rho=sens**2 / (2 * sigma**2) + (first["norm_rho"] if k == 0 else 0.0),
                     spent=budget.spent)
        if last:
            entry["stop"] = "budget"
        history.append(entry)
        if iterates is not None:
            iterates.append(w)
    _say(cfg, f"adaptive_gd: norm below its noise level at step {first['step']}, "
              f"then {steps} noisy steps (momentum {m:g}) at sigma={sigma:.3g}")
    return w


def adaptive_gd(problem, budget, options):
    """Adaptive noisy GD (paper 004 Alg. 3): no KL constants needed.

    Privacy: paper 004 Thm 3 (fully adaptive composition, Whitehouse et al.
    2023) with the strict filter of :class:`~skdp.privacy.budget.Budget`;
    the sum of the logged step costs never exceeds ``rho``. Utility: Thm 4,
    ``O~((sqrt(d)/(n sqrt(rho)))**(2 kappa/(4 - kappa)) + (1/(n sqrt(rho)))**(kappa/2))``
    under the (gamma, kappa)-KL* condition. Departs from Alg. 3 where the
    noisy gradient norm is below twice its noise sd: Alg. 3 reads it as
    convergence (Lemma 11) and ends the run; here it is "unknown" and the run
    goes on (``_adaptive_path`` says why and what Lemma 11's stop still
    covers). On tables of ``TAIL_MIN_ROWS`` (1,000) rows or more, with ``tail``
    > 0 (default 2.5; issue 31), the first "unknown" norm also ends the norm
    queries: what is left is spent on ``tail`` times as many equal plain noisy
    steps as Alg. 3 would take (``_noisy_tail``; their entries carry ``tail``,
    the tail's step count, and ``momentum``: ``tail_momentum``, default 0.5, when
    the run is averaged as below, else 0). Each history entry says whether its
    norm was ``unknown``; the last one says why the run ended (``stop``:
    ``'floor'``, ``'budget'`` or ``'max_iter'``). Options: ``ADAPTIVE_GD_RELEASE_OPTIONS``.

    Released point (issue 18): with ``average='suffix'`` (default) and a
    private run of ``T >= AVERAGE_MIN_STEPS = 10`` steps, the mean of the last
    half of the iterates, ``w_s..w_T`` with ``s = suffix_start(T) = T -
    ceil(T/2) + 1`` (``ceil(T/2)`` iterates), or from the tail's first iterate
    ``w_{t+1}`` if the tail took momentum steps and that is earlier
    (``tail_window``: the momentum's extra noise is averaged over the whole
    tail; issue 31); otherwise (``average='last'``,
    shorter runs, non-private fits) the last iterate ``w_T``. This is suffix
    averaging (Shamir & Zhang 2013, "Stochastic gradient descent for
    non-smooth optimization: convergence results and optimal averaging
    schemes", ICML; cf. Polyak & Juditsky 1992): on large tables the run
    ends with many cheap noisy steps near the optimum (the noisy norm is
    "unknown") and their noise sits in ``w_T``; the mean averages it out.
    Short runs are not averaged: their last half still moves towards the
    optimum and their last step, which spends what is left, is the least
    noisy one. Privacy is unchanged: the mean is post-processing of the
    iterates, which are functions of the released noisy gradients (zCDP is
    closed under post-processing, Bun & Steinke 2016, Lemma 1.8), and it
    spends nothing (the ledger is the same as with ``average='last'``).
    The threshold 10 and the half were chosen on the validation split of
    benchmarks/real_tables.py's regression tables (issue 18).
    """
    average = budget.private and options.get("average", "last") == "suffix"
    w, history, iterates = _adaptive_path(problem, budget, options, keep_iterates=average)
    T = len(history)
    if average and T >= AVERAGE_MIN_STEPS:
        tail = iterates[min(suffix_start(T), tail_window(history)):]
        w = sum(tail[1:], tail[0]) / len(tail)
    return SolverResult(solution=w, n_iter=max(T, 1), history=history)


def suffix_start(T):
    """Index ``s`` of the first of the last ``ceil(T/2)`` iterates of ``w_0..w_T``."""
    return T - (T + 1) // 2 + 1


def tail_window(history):
    """Index of the first iterate after a momentum tail's first step (``w_{t+1}``, the tail
    starting at step ``t``); ``len(history)`` (no iterate) without such a tail."""
    return next((h["step"] + 1 for h in history if h.get("momentum")), len(history))


def stationary_gd(problem, budget, options):
    """Adaptive GD then exponential-mechanism selection (paper 004 Thm 5).

    The trajectory ``w_0..w_T`` gets ``(1 - s) rho`` (``s = select_frac``,
    default 0.2); the index of the released iterate is drawn with probability
    ``exp(-eps ||g_t|| / (2 Delta))``, ``g_t`` the clipped mean gradient at
    ``w_t`` (score sensitivity ``Delta = 2C/n``), ``eps = sqrt(8 s rho)`` so that
    the selection is ``s rho``-zCDP (bounded range, Cesar–Rogers 2021). The
    paper's constants (``eps = sqrt(rho)``, "2 rho overall") are replaced by
    this explicit split (Thm 5 composes to ``2 rho`` as stated). Options: ``STATIONARY_GD_OPTIONS``.
    """
    obj, cfg, backend = problem.objective, problem.config, budget.backend
    xp = backend.xp
    frac = options["select_frac"]
    full = budget.rho
    budget.rho = (1.0 - frac) * full if budget.private else full
    _, history, iterates = _adaptive_path(problem, budget, options, keep_iterates=True)
    budget.rho = full
    norms = [_norm(obj.clipped_grad(v, cfg.clip), xp) for v in iterates]
    scores = -backend.asarray(norms, dtype=iterates[0].dtype)
    index = budget.select(scores, 2.0 * cfg.clip / obj.n, frac * full, label="select iterate")
    history.append(dict(step=len(history), selected=index, rho=frac * full))
    _say(cfg, f"stationary_gd: released iterate {index} of {len(iterates) - 1}")
    return SolverResult(solution=iterates[index], n_iter=max(len(history) - 1, 1),
                        history=history)
