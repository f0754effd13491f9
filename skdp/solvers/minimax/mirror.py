"""Private entropic mirror descent with vertex sampling (paper 002, Alg. 1-3).

The max-loss saddle point of 002 §1.4 (b), cast on the simplex: the model
``theta`` (``k x D``, ``D = p + 1`` with an intercept) lives in the l1 ball
of radius ``R``, written as the simplex over its ``2kD`` vertices ``+-R e_j``
(``theta = R (lam_+ - lam_-)``), and the group player on the simplex of the
``m`` groups::

    min_{lam in simplex(2kD)} max_{y in simplex(m)}  (1/n) sum_i y_{g_i} loss_i(theta) / pi_{g_i}

with public group proportions ``pi_g = N_g / n``. Per sample, the gradient in
``lam`` has l_inf norm at most ``L0x = R A / pi_min`` (``A`` the public l_inf
bound of the augmented rows, at most ``feature_bound``) and the one in ``y``
at most ``L0y = loss_max / pi_min`` with ``loss_max`` the loss bound on the
ball; ``L0 = max(L0x, L0y)`` (002 §1.6(b)).

``smd`` (002 Alg. 1)
    Each step samples ``K_x`` (``K_y``) vertices of the current iterates, takes
    one gradient on a fresh disjoint batch of ``B = n // T`` records at their
    averages, and moves both players by multiplicative weights -- **ascent**
    for ``y`` (the paper's Alg. 1 prints a descent sign for ``y``: a typo). One extra
    vertex per player per step is the output; ``coef`` is their average.
    Privacy (002 Prop. 3.3): every vertex draw is an exponential mechanism
    with score ``-tau * cumulative gradient``, whose sensitivity is
    ``2 L0 tau / B`` (the record sits in one batch), so each draw is
    ``eps' = 4 L0 tau / B``-DP (002 Thm 3.4). The ``T (K_x + K_y + 2)`` draws
    are composed by the tightest of advanced/fully adaptive composition (002
    Cor. 3.6, Thm 3.5) and bounded-range zCDP (``eps'**2/8`` each, Cesar–Rogers
    2021), the step size being the largest such that the composed budget is
    within epsilon. ``theory=True`` uses 002 Thm 3.1's (6) parameters (second
    order smooth; constants 1) and Prop. 3.3's step cap
    ``tau <= B eps / (16 L0 sqrt(T (K + 1) log(1/delta)))``.
``smd_bias_reduced`` (002 Alg. 2-3)
    Multilevel Monte-Carlo gradients: level ``N ~ TG(1/2, M)``, coupled fine
    (``2^(N+1)`` vertices) and coarse (first ``2^N``) averages, weight
    ``C_M 2^N``, batch ``ceil(2^N / alpha)``. Per-step sensitivity, with the
    constant of 002 Prop. 3.17 corrected (its proof drops a factor 2 on the
    last term and the ``C_M`` weight):
    ``Delta_t = tau L0 (4 C_M 2^N + 2) / |B_t|``; each draw is
    ``2 Delta_t``-DP and a step makes ``2^(N+1) + 1`` draws per player. An
    exact privacy filter (002 Thm 3.5, fully adaptive composition) stops
    before the budget would be exceeded, besides the paper's ``U`` rule.
    ``theory=True`` uses Thm 3.14's ``U, M, tau, alpha``.

Utility: the paper's bounds are vacuous below ``n ~ 1e5 - 1e6``; the outputs
(averages of ``T`` sampled vertices) are sparse and noisy at the sizes of
``benchmarks/minimax.py``. Privacy holds for any parameters.
"""

import math

import numpy as np

from ...privacy.ledger import fully_adaptive_step_epsilon, zcdp_to_approx_dp
from ...privacy.composite import exponential_trial
from ..losses.classification import loss_and_residual, loss_bound, smoothness
from ..spec import SolverResult
from .common import largest_within

__all__ = ["smd", "smd_bias_reduced", "prop33_step_cap", "thm31_parameters",
           "thm314_parameters", "problem_constants", "bias_reduced_sensitivity"]

DEFAULT_RADIUS = 5.0  # theory=True
# Practical defaults for Alg. 1 (chosen on validation splits, benchmarks/minimax.py)
PRACTICAL_RADIUS = 20.0   # l1 radius per output column
PRACTICAL_MAX_STEPS = 2000
PRACTICAL_KX = 5
KX_INF = 200              # gradient vertices per step at epsilon = inf
KY_INF = 50               # group vertices per step at epsilon = inf
PRACTICAL_KY = 1
KOUT_INF = 20             # output vertices per kept step at epsilon = inf
TAIL = 0.5                # share of the last steps whose output vertices are averaged
STEP_X = 8.0              # tau_x = STEP_X sqrt(l / T) / (R A), within the privacy cap
STEP_Y = 0.3              # tau_y = STEP_Y sqrt(l / T) / _loss_scale, within the cap
# Practical defaults for Alg. 3
BR_RADIUS = 5.0  # l1 radius per output column: Alg. 2 evaluates gradients at 1 to 2^(M+1) vertices
BR_BASE_INF = 128  # vertices per Alg. 2 "sample" at epsilon = inf (1 in the paper)
PRACTICAL_M = 3
PRACTICAL_ALPHA = 0.25


# ---------------------------------------------------------------------------
# constants and parameters
# ---------------------------------------------------------------------------
def problem_constants(data, sizes, radius):
    """Lipschitz (l_inf) and smoothness constants of the worst-group loss on the simplex.

    Returns ``dict(L0, L0x, L0y, L1, L2, loss_max, pi_min)``.
    """
    A = max(data.feature_bound, data.intercept_scale)  # l_inf <= l2 bound of each part
    pi_min = float(np.min(sizes)) / data.n
    loss_max = loss_bound(data.k, radius * A)
    L0x = radius * A / pi_min
    L0y = loss_max / pi_min
    third = 1.0 / (6.0 * math.sqrt(3.0)) if data.k == 1 else 0.25
    return dict(L0=max(L0x, L0y), L0x=L0x, L0y=L0y,
                L1=smoothness(data.k) * (radius * A) ** 2 / pi_min,
                L2=third * (radius * A) ** 3 / pi_min, loss_max=loss_max, pi_min=pi_min)


def prop33_step_cap(n, n_steps, n_samples, epsilon, delta, L0):
    """002 Prop. 3.3: ``tau <= B eps / (16 L0 sqrt(T (K + 1) log(1/delta)))``, ``B = n // T``.

    Examples
    --------
    >>> round(prop33_step_cap(10000, 100, 9, 1.0, 1e-5, 1.0), 6)
    0.058249
    """
    B = n // n_steps
    return B * epsilon / (16.0 * L0 * math.sqrt(n_steps * (n_samples + 1) * math.log(1 / delta)))


def thm31_parameters(n, epsilon, delta, d_x, d_y, L0):
    """002 Thm 3.1 (6), second-order smooth regime, constants 1 (Alg. 1's parameters).

    ``T = min(n, (n eps)^(4/5) / (l^(1/5) log(1/delta)^(2/5)))``,
    ``K = sqrt(T / l)``, ``tau = min(sqrt(l / T) / L0, Prop. 3.3 cap)``,
    ``l = log d_x + log d_y``.
    """
    ell = math.log(d_x) + math.log(max(d_y, 1))
    log_inv = math.log(1.0 / delta)
    T = int(max(1, min(n, (n * epsilon) ** 0.8 / (ell**0.2 * log_inv**0.4))))
    K = int(max(1, round(math.sqrt(T / ell))))
    tau = min(math.sqrt(ell / T) / L0, prop33_step_cap(n, T, K, epsilon, delta, L0))
    return T, K, tau


def thm314_parameters(n, epsilon, delta, d_x, d_y, consts):
    """002 Thm 3.14: ``U, M, tau, alpha`` (M by fixed point; log2, as its proof uses).

    ``C = L0^2 + L2^2 + l M L1^2``,
    ``U = min(n eps sqrt(C) / (sqrt(15552 l log(1/delta)) L0), n/2)``,
    ``M = log2(sqrt(U))``, ``tau = sqrt(l / (C U))``,
    ``alpha = (2 eps^2 / (3888 log(1/delta) (tau L0)^2 n))^(1/3)``.
    """
    L0, L1, L2 = consts["L0"], consts["L1"], consts["L2"]
    ell = math.log(d_x) + math.log(max(d_y, 1))
    log_inv = math.log(1.0 / delta)
    M = max(1, int(round(0.5 * math.log2(max(n / 2, 2)))))
    for _ in range(5):
        C = L0**2 + L2**2 + ell * M * L1**2
        U = min(n * epsilon * math.sqrt(C) / (math.sqrt(15552 * ell * log_inv) * L0), n / 2)
        M = max(1, int(round(math.log2(math.sqrt(max(U, 4.0))))))
    tau = math.sqrt(ell / (C * U))
    alpha = (2 * epsilon**2 / (3888 * log_inv * (tau * L0) ** 2 * n)) ** (1 / 3)
    return max(U, 4.0), M, tau, min(alpha, 1.0)


def bias_reduced_sensitivity(tau, L0, level, batch, c_M):
    """Score sensitivity of one Alg. 3 step (002 Prop. 3.17, constant corrected).

    ``Delta = tau L0 (4 C_M 2^N + 2) / |B|``: the MLMC difference has weight
    ``C_M 2^N`` on two gradients (``2 L0`` each per replaced record) and the
    base gradient ``2 L0``.

    Examples
    --------
    >>> bias_reduced_sensitivity(1.0, 1.0, 0, 1, 1.0)
    6.0
    """
    return tau * L0 * (4.0 * c_M * 2.0**level + 2.0) / batch


# ---------------------------------------------------------------------------
# the game's gradients at sampled points
# ---------------------------------------------------------------------------
class _Game:
    """Batch gradients of the max-loss game in (lam, y) at given points."""

    def __init__(self, data, sizes, radius, backend):
        self.data, self.backend, self.radius = data, backend, radius
        self.intercept = data.intercept_scale > 0
        self.k, self.D = data.k, data.p + int(self.intercept)
        self.d_x = 2 * self.k * self.D
        self.pi = np.asarray(sizes, dtype=float) / data.n

    def theta(self, lam):
        half = lam.shape[0] // 2
        t = (self.radius * (lam[:half] - lam[half:])).reshape(self.k, self.D)
        if not self.intercept:
            return t, np.zeros(self.k)
        return t[:, :-1], t[:, -1]

    def grads(self, batch, lam, y):
        """Batch-mean (grad_lam f, grad_y f) at (lam, y) (numpy, host)."""
        be, xp = self.backend, batch.xp
        W, b = self.theta(lam)
        Z = batch.margins(be.asarray(W, dtype=batch.X.dtype), be.asarray(b, dtype=batch.X.dtype))
        loss, r = loss_and_residual(Z, batch.targets, xp)
        wg = y / self.pi / batch.n
        v = batch.onehot @ be.asarray(wg, dtype=batch.X.dtype)
        gw, gb = batch.gradient(v[:, None] * r)
        parts = [_host(gw), _host(gb)[:, None]] if self.intercept else [_host(gw)]
        g_theta = np.concatenate(parts, axis=1).ravel()
        g_lam = self.radius * np.concatenate([g_theta, -g_theta])
        g_y = _host(batch.onehot.T @ loss) / self.pi / batch.n
        return g_lam, g_y


def _host(a):
    from ..._backend import to_numpy

    return np.asarray(to_numpy(a), dtype=float)


def _softmax(logits):
    e = np.exp(logits - logits.max())
    return e / e.sum()


def _draw(draws, count, p):
    """Maurey average of ``count`` iid vertices of the simplex point ``p`` (``count`` samples
    of the exponential mechanisms ``draws``)."""
    return draws.counts(count, p) / count


def _split_budget(ledger, epsilon, delta):
    """(epsilon, delta) left for pure-DP draws after the ledger's Gaussian parts.

    Basic composition: the Gaussian parts get delta/2 and their CKS epsilon.
    """
    if not ledger.entries:
        return epsilon, delta
    eps_g = zcdp_to_approx_dp(ledger.rho, delta / 2)
    return epsilon - eps_g, delta / 2


# ---------------------------------------------------------------------------
# Algorithm 1
# ---------------------------------------------------------------------------
def smd(problem, budget, options):
    """002 Alg. 1: private stochastic mirror descent with vertex sampling.

    See the module docstring for the privacy argument: the draws spend the
    (epsilon, delta) of ``budget`` left after what its ledger holds (``budget.recorded()``).
    ``problem.reference`` is ignored: the group player starts uniform (002
    Alg. 1); ``options`` is empty (no ``solver_options``). ``theory=True`` runs
    the paper's Alg. 1 with Thm 3.1's parameters. The practical defaults keep
    the algorithm (multiplicative weights on sampled-vertex gradients of
    disjoint batches, exponential-mechanism draws only) and change, each
    chosen on validation splits of the training data (``benchmarks/minimax.py``):

    * per-player constants and steps (skdp's design, not the paper's): the model's
      step uses ``L0x`` and the group player's ``L0y`` (the paper's single
      ``tau`` uses ``max(L0x, L0y)``), both at the same per-draw epsilon;
    * the step ``tau_x = min(STEP_X sqrt(l / T) / (R A), privacy cap)``: the
      optimisation step of Thm 3.1 with the typical gradient scale ``R A``
      in place of the worst-case ``L0x = R A / pi_min`` (at most 1/pi_min
      times larger; the privacy cap still uses ``L0x``);
    * the output (002 Alg. 1 line 8 averages one fresh vertex per step over
      all ``T`` steps, the early ones near the uniform start) averages
      ``K_out`` fresh vertices per step over the last ``TAIL`` of the steps
      (post-processing of exponential-mechanism draws, each one accounted);
    * ``K_x`` gradient vertices: ``KX_INF`` at epsilon = inf, where draws are
      free and the Maurey bias (002 Cor. 2.4, ``2 L2 / K``) dominates, else
      ``PRACTICAL_KX``; ``K_y = 1`` (f is linear in y).

    Returns
    -------
    SolverResult
    """
    data, sizes, theory, n_iter = problem.data, problem.sizes, problem.theory, problem.n_iter
    epsilon, delta, ledger = budget.epsilon, budget.delta, budget.recorded()
    backend = budget.backend
    radius = _radius(data, problem.radius, theory)
    game = _Game(data, sizes, radius, backend)
    consts = problem_constants(data, sizes, radius)
    L0, m, n = consts["L0"], data.n_groups, data.n
    ell = math.log(game.d_x) + math.log(max(m, 1))
    if theory:
        eps_pure, delta_pure = _split_budget(ledger, epsilon, delta)
        T, K, tau = thm31_parameters(n, min(eps_pure, 1e12), delta_pure, game.d_x, m, L0)
        T = T if n_iter == "auto" else int(n_iter)
        Kx = Ky = K
        K_out, tail = 1, 1.0
    else:
        T = _practical_steps(n, epsilon) if n_iter == "auto" else int(n_iter)
        Kx = KX_INF if math.isinf(epsilon) else PRACTICAL_KX
        Ky = KY_INF if math.isinf(epsilon) else PRACTICAL_KY
        K_out, tail = (KOUT_INF if math.isinf(epsilon) else 1), TAIL
    T = max(1, min(T, n))
    B = n // T
    start = T - max(1, int(round(tail * T)))  # first step whose output vertices are kept
    draws = T * (Kx + Ky) + 2 * K_out * (T - start)
    if math.isinf(epsilon):
        step_eps = math.inf
    else:
        step_eps = largest_within(lambda e: exponential_trial(e, draws), ledger, epsilon, delta)
    if theory:  # one step for both players, with L0 = max(L0x, L0y) (002 Alg. 1)
        tau_x = tau_y = min(tau, step_eps * B / (4.0 * L0))
        L0x = L0y = L0
    else:
        L0x, L0y = consts["L0x"], consts["L0y"]
        scale = radius * max(data.feature_bound, data.intercept_scale)
        tau_x = min(STEP_X * math.sqrt(ell / T) / scale, step_eps * B / (4.0 * L0x))
        scale_y = _loss_scale(data, consts, B)
        tau_y = min(STEP_Y * math.sqrt(ell / T) / scale_y, step_eps * B / (4.0 * L0y))
    # each draw is (4 L0 tau / B)-DP (002 Prop. 3.3 / Thm 3.4); both players at step_eps
    step_eps = 4.0 * max(L0x * tau_x, L0y * tau_y) / B
    vertices = budget.exponential_batch(step_eps, draws, label="vertex samples (002 Alg. 1)")
    Gx, Gy = np.zeros(game.d_x), np.zeros(m)
    out_x, out_y = np.zeros(game.d_x), np.zeros(m)
    perm = backend.public_rng.permutation(n)
    for t in range(T):
        px, py = _softmax(-tau_x * Gx), _softmax(tau_y * Gy)
        x_hat, y_hat = _draw(vertices, Kx, px), _draw(vertices, Ky, py)
        if t >= start:
            out_x += vertices.counts(K_out, px)
            out_y += vertices.counts(K_out, py)
        batch = data.subset(backend.asarray(perm[t * B:(t + 1) * B]))
        g_lam, g_y = game.grads(batch, x_hat, y_hat)
        Gx += g_lam
        Gy += g_y  # ascent in y: softmax(+tau Gy) (002 Alg. 1 sign typo fixed)
        if problem.verbose:
            print(f"[smd] step {t + 1}/{T} tau_x={tau_x:.3g} eps'={step_eps:.3g}")
    W, b = game.theta(out_x / out_x.sum())
    return SolverResult(solution=(backend.asarray(W, dtype=data.X.dtype),
                                  backend.asarray(b * data.intercept_scale, dtype=data.X.dtype)),
                        n_iter=T, info=dict(group_weights=out_y / out_y.sum(), step_size=tau_x,
                                            n_vertex_samples=Kx))


def _loss_scale(data, consts, batch):
    """Typical l_inf size of a batch's group gradient ``(loss_g / pi_g)_g``:
    the loss at 0 (log K), times ``1 / (pi_min B)`` when a batch of ``B``
    rows misses most groups."""
    return math.log(max(data.n_classes, 2)) * max(1.0, 1.0 / (consts["pi_min"] * batch))


def _radius(data, radius, theory, per_column=None):
    """The l1 radius: the user's, else DEFAULT_RADIUS (theory) or the
    practical ``PRACTICAL_RADIUS`` per output column (the multinomial model
    has ``k`` columns sharing one l1 ball)."""
    if radius is not None:
        return float(radius)
    return DEFAULT_RADIUS if theory else (per_column or PRACTICAL_RADIUS) * data.k


def _practical_steps(n, epsilon):
    """``T = sqrt(n eps)`` clipped to [20, 2000] (and to n): more steps average
    more output vertices but tighten the per-draw privacy cap."""
    return int(min(n, PRACTICAL_MAX_STEPS, max(20, round(math.sqrt(n * min(epsilon, 1e9))))))


# ---------------------------------------------------------------------------
# Algorithms 2 and 3
# ---------------------------------------------------------------------------
def _coupled_levels(draws, p, level, base=1):
    """Alg. 2's coupled averages: (first sample, coarse 2^N, fine 2^(N+1)), each
    "sample" an average of ``base`` vertices (``base = 1``: the paper)."""
    first = draws.counts(base, p)
    coarse = first + (draws.counts(base * (2**level - 1), p) if level > 0 else 0)
    fine = coarse + draws.counts(base * 2**level, p)
    return first / base, coarse / (base * 2.0**level), fine / (base * 2.0 ** (level + 1))


def smd_bias_reduced(problem, budget, options):
    """002 Alg. 3 with Alg. 2's MLMC gradients and an exact Thm 3.5 filter.

    ``problem.n_iter`` (if an int) is the stopping parameter ``U``;
    ``problem.reference`` is ignored (uniform start, 002 Alg. 3); the budget
    is spent as by :func:`smd`; ``options`` is empty. ``theory=True``
    uses Thm 3.14's ``U, M, tau, alpha``. The practical defaults keep the
    algorithm and change, chosen on validation splits as for :func:`smd`:

    * per-player steps ``tau_x = STEP_X sqrt(l / S) / (R A)`` and
      ``tau_y = STEP_Y sqrt(l / S) / _loss_scale`` (``S`` the expected
      number of steps), each within the privacy step of :func:`_practical_tau`
      (the paper's ``tau`` is ``sqrt(l / (C U))`` with worst-case constants);
    * ``U = n alpha`` (one pass over the data; Thm 3.14 caps ``U`` at
      ``n alpha / 2``) with ``alpha = 1`` at epsilon = inf, else
      ``PRACTICAL_ALPHA``, lowered to keep about ``PRACTICAL_MAX_STEPS`` steps;
    * the three gradients of Alg. 2 share one average of ``K_y`` group
      vertices (drawn independently of the model's vertices) instead of
      the coupled 1 / ``2^N`` / ``2^(N+1)`` group averages: f is linear in
      y and ``grad_y f`` does not depend on y, so the estimator's expectation
      is unchanged, and the variance that the weight
      ``C_M 2^N`` puts on the difference of two group averages is gone
      (with the classes as groups the paper's estimator did not learn at
      epsilon = inf); the sensitivity ``Delta_t`` is unchanged and a step
      makes ``2^(N+1) + K_y`` draws;
    * at epsilon = inf every "sample" of Alg. 2 is an average of
      ``BR_BASE_INF`` vertices (levels of ``BR_BASE_INF 2^N`` vertices): the
      estimator is then unbiased for the gradient at a
      ``BR_BASE_INF 2^(M+1)``-vertex average, whose Maurey bias (002 Lemma
      3.15, ``2 L2 / 2^M`` with ``L2 ~ (R A)^3``) was what kept the paper's
      16-vertex points from learning on 3- and 10-class tables; at finite
      epsilon the paper's single vertices are kept (each vertex is a draw);
    * the output averages ``K_out`` vertices per step over the last ``TAIL``
      of the steps, as in :func:`smd`.

    Returns
    -------
    SolverResult
    """
    data, sizes, theory, n_iter = problem.data, problem.sizes, problem.theory, problem.n_iter
    epsilon, delta, ledger = budget.epsilon, budget.delta, budget.recorded()
    backend = budget.backend
    rng = backend.public_rng  # data order and MLMC levels
    radius = _radius(data, problem.radius, theory, BR_RADIUS)
    game = _Game(data, sizes, radius, backend)
    consts = problem_constants(data, sizes, radius)
    L0, m, n = consts["L0"], data.n_groups, data.n
    eps_pure, delta_pure = _split_budget(ledger, epsilon, delta)
    ell = math.log(game.d_x) + math.log(max(m, 1))
    if theory:
        U, M, tau, alpha = thm314_parameters(n, min(eps_pure, 1e12), delta_pure, game.d_x, m,
                                             consts)
        tau_x = tau_y = tau
        L0x = L0y = L0
        Ky, K_out, tail, K0 = 1, 1, 1.0, 1
    else:
        inf = math.isinf(epsilon)
        M, alpha = PRACTICAL_M, (1.0 if inf else PRACTICAL_ALPHA)
        # at most about PRACTICAL_MAX_STEPS steps: larger batches beyond that
        alpha = min(alpha, PRACTICAL_MAX_STEPS * (M + 1) / (2.0 - 2.0**-M) / n)
        U = n * alpha
        L0x, L0y = consts["L0x"], consts["L0y"]
        steps = max(1.0, U / ((M + 1) / (2.0 - 2.0**-M)))
        Ky = KY_INF if inf else PRACTICAL_KY
        K0 = BR_BASE_INF if inf else 1
        K_out, tail = (KOUT_INF if inf else 1), TAIL
        scale_y = _loss_scale(data, consts, max(1.0, alpha ** -1 * (M + 1) / (2.0 - 2.0**-M)))
        tau_x = min(STEP_X * math.sqrt(ell / steps) / (radius * max(data.feature_bound,
                                                                      data.intercept_scale)),
                    _practical_tau(n, M, alpha, eps_pure, delta_pure, L0x, Ky, K_out * tail))
        tau_y = min(STEP_Y * math.sqrt(ell / steps) / scale_y,
                    _practical_tau(n, M, alpha, eps_pure, delta_pure, L0y, Ky, K_out * tail))
    if n_iter != "auto":
        U = float(n_iter)
    c_M = 2.0 - 2.0**-M  # TG(1/2, M) normaliser sum_{k<=M} 2^-k (002 Alg. 2)
    levels_p = 2.0 ** -np.arange(M + 1) / c_M
    Gx, Gy = np.zeros(game.d_x), np.zeros(m)
    out_x, out_y = np.zeros(game.d_x), np.zeros(m)
    perm = rng.permutation(n)
    used, spent_levels, steps_done = 0, 0.0, 0
    # the privacy filter of 002 Thm 3.5 on the pure-DP part: in the budget's tally
    vertices = budget.exponential_filter(eps_pure, delta_pure,
                                         label="MLMC vertex samples (002 Alg. 3)")
    level = int(rng.choice(M + 1, p=levels_p))
    history = []  # (px, py) of each step, for the output draws of the tail
    while spent_levels <= U - 2**M:
        batch_size = max(1, math.ceil(2**level / alpha))
        if used + batch_size > n:
            break
        # 2 Delta_t per draw, Delta_t = tau L0 (4 C_M 2^N + 2) / |B| (Prop. 3.17 corrected)
        eps_t = 2.0 * max(bias_reduced_sensitivity(tau_x, L0x, level, batch_size, c_M),
                          bias_reduced_sensitivity(tau_y, L0y, level, batch_size, c_M))
        n_draws = 2 * (2 ** (level + 1) + 1) if theory else K0 * 2 ** (level + 1) + Ky
        if not vertices.fits(eps_t, n_draws):
            break  # privacy filter (002 Thm 3.5): stop before exceeding the budget
        vertices.charge(eps_t, n_draws)
        px, py = _softmax(-tau_x * Gx), _softmax(tau_y * Gy)
        history.append((px, py))
        x1, x_lo, x_hi = _coupled_levels(vertices, px, level, K0)
        if theory:
            y1, y_lo, y_hi = _coupled_levels(vertices, py, level)
        else:  # one K_y-vertex average in all three terms (f is linear in y)
            y1 = y_lo = y_hi = _draw(vertices, Ky, py)
        batch = data.subset(backend.asarray(perm[used:used + batch_size]))
        used += batch_size
        gx_hi, gy_hi = game.grads(batch, x_hi, y_hi)
        gx_lo, gy_lo = game.grads(batch, x_lo, y_lo)
        gx_1, gy_1 = game.grads(batch, x1, y1)
        Gx += c_M * 2**level * (gx_hi - gx_lo) + gx_1
        Gy += c_M * 2**level * (gy_hi - gy_lo) + gy_1  # ascent in y (sign typo fixed)
        spent_levels += 2**level
        steps_done += 1
        level = int(rng.choice(M + 1, p=levels_p))
    out_x, out_y = _tail_output(vertices, history, K_out, tail, game.d_x, m)
    vertices.close()
    W, b = game.theta(out_x / out_x.sum())
    b = b * data.intercept_scale
    if problem.verbose:
        print(f"[smd_bias_reduced] {steps_done} steps, {used} records, tau_x={tau_x:.3g}")
    return SolverResult(solution=(backend.asarray(W, dtype=data.X.dtype),
                                  backend.asarray(b, dtype=data.X.dtype)),
                        n_iter=max(1, steps_done),
                        info=dict(group_weights=out_y / out_y.sum(), step_size=tau_x))


def _tail_output(vertices, history, K_out, tail, d_x, m):
    """Output draws of Alg. 3: ``K_out`` per player from each of the last ``tail``
    share of the iterates, each at that step's per-draw epsilon, within the filter.

    The iterate of step t is sampled with the same score as its gradient
    draws, so each output draw costs the largest per-draw epsilon so far
    (charged to ``vertices``). When none fits, the output is a uniform vertex
    of each player (the data-free start): an exponential mechanism at
    epsilon 0, which releases nothing.
    """
    out_x, out_y = np.zeros(d_x), np.zeros(m)
    eps_out = max(vertices.charged) if vertices.charged else 0.0
    kept = history[len(history) - max(1, int(round(tail * len(history)))):] if history else []
    for px, py in kept:
        if not vertices.fits(eps_out, 2 * K_out):
            break
        vertices.charge(eps_out, 2 * K_out)
        out_x += vertices.counts(K_out, px)
        out_y += vertices.counts(K_out, py)
    if out_y.sum() == 0:  # nothing fitted in the budget: a vertex of the (data-free) start
        vertices.charge(0.0, 2)
        out_x += vertices.counts(1, np.full(d_x, 1.0 / d_x))
        out_y += vertices.counts(1, np.full(m, 1.0 / m))
    return out_x, out_y


def _practical_tau(n, M, alpha, epsilon, delta, L0, Ky=1, out_per_step=1.0):
    """Step size spreading the budget over one pass at the average level.

    With ``E 2^N = (M + 1) / C_M`` records per step, about
    ``n alpha / E 2^N`` steps of ``2 E 2^N + K_y`` draws (plus
    ``2 out_per_step`` output draws) fit in one pass; the per-draw epsilon
    equalising fully adaptive composition at that count fixes ``tau`` through
    ``eps' = 2 tau L0 alpha (4 C_M + 2)`` (an upper bound on ``2 Delta_t``).
    """
    if math.isinf(epsilon):
        return math.inf
    c_M = 2.0 - 2.0**-M
    mean_level = (M + 1) / c_M
    steps = max(1.0, n * alpha / mean_level)
    draws = int(steps * (2 * mean_level + Ky + 2 * out_per_step))
    eps_draw = fully_adaptive_step_epsilon(epsilon, delta, draws)
    return eps_draw / (2.0 * L0 * alpha * (4.0 * c_M + 2.0))

