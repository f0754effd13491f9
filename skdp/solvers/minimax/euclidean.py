"""Euclidean DP solvers for the worst-group (minimax) linear classifier.

Both minimise over a linear model ``theta = (W, b)`` (an l2 ball of radius
``radius``, or all of R^d) the worst of ``m`` group risks
``L_g(theta) = (1/N_g) sum_{i in g} loss_i(theta)`` with *public* group sizes
``N_g`` (the estimator passes them in). Neighbouring datasets differ by
replacing one record (features, label, group), so ``n`` is public.

``noisy_gd`` (skdp's design; paper 000 has no private version of its Sec. 4.2)
    Full-batch noisy gradient descent on the worst-group loss. At every step
    it releases the clipped gradient of ``sum_g p_g L_g``, ``p`` the weights
    set by the earlier releases, with Gaussian noise (l2-sensitivity ``2 C
    max_g p_g / N_g``: the removed and the added record each contribute at
    most ``C p_g / N_g``), and the clipped group losses at the same point
    (computed in the same pass over ``X``) with Gaussian noise
    (l2-sensitivity ``c_L sqrt(1/N_(1)**2 + 1/N_(2)**2)``, the two smallest
    groups: a replaced record leaves one group and joins another; with
    ``solver_options={'group_signal': 'error'}`` the groups' 0-1 error rates
    of the current model instead, the same bound with ``c_L = 1``); it then
    updates ``p`` by one damped exponentiated-gradient (entropic mirror)
    ascent step on them (group DRO, Sagawa et al. 2020, Alg. 1, on the
    KL-regularised objective ``sum_g p_g L_g - tau KL(p || p_ref)``; see
    :class:`_GroupPlayer`), a post-processing. With one
    group (average risk) no loss is released: this is DP full-batch gradient
    descent.
``sgda``
    DP stochastic gradient descent-ascent: a shuffled pass of disjoint
    mini-batches per epoch; the model player takes noisy clipped gradient
    steps, the group player exponentiated-gradient ascent steps on the noisy
    batch group losses. A record sits in one batch per epoch, so each epoch
    costs one loss release and one gradient release (parallel composition over
    a data-independent partition); epochs compose.

With an intercept, both first release the mean clipped row (Gaussian,
l2-sensitivity ``2 feature_bound / n``) and centre the rows on it, which
conditions the problem (the intercept absorbs the shift). Their intercept
feature is ``INTERCEPT_RATIO * feature_bound``, not ``feature_bound``: at the
latter the constant feature dominated every per-sample gradient norm
``|r_i| sqrt(||x_i - centre||**2 + c**2)`` (centred rows are far shorter than
the bound), so the clip scaled the gradients by the intercept's share, not by
how well each row is fit; the intercept's own step ``1 / (h0 c**2)`` keeps its
Newton scale (:func:`~skdp.solvers.minimax.steps.step_sizes`).

Every release is a Gaussian mechanism with a fixed per-release GDP parameter
``mu_t = Delta_t / sigma_t`` (the noise follows the released, hence public,
weights), so the whole fit is ``sqrt(sum mu_t**2)``-GDP (Dong–Roth–Su 2022,
Cor. 3.3), calibrated to (epsilon, delta) exactly (Cor. 2.13) and recorded in
the ledger. Only noisy quantities and their post-processing (iterates and
their averages) are released.
"""

import math

import numpy as np

from ...privacy.clipping import clip_factors
from ..losses.classification import lipschitz, loss_and_residual
from ..spec import Option, SolverResult
from .common import softmax_np
from .data import finish_gradient
from .steps import (CENTER_SHARE, LOSS_CLIP_FACTOR, LOSS_SHARE, STEP_SCALE,  # noqa: F401
                    TailAverager, centre_rows, intercept_of, loss_clip_bound, loss_sensitivity,
                    project_ball, step_sizes, to_host)

__all__ = ["noisy_gd", "sgda", "auto_iterations", "reference_logits", "NOISY_GD_OPTIONS"]

# Practical defaults (benchmarks/minimax.py; cross-validated on training folds only). Issue 18
# re-chose CLIP_RATIO, ITER_RATE, MIN_ITER, MAX_ITER, INTERCEPT_RATIO and WEIGHT_MEMORY on the
# validation splits of benchmarks/real_tables.py (benchmarks/minimax_diagnose.py).
CLIP_RATIO = 0.1      # per-sample gradient clip, relative to the Lipschitz bound
TEMPERATURE = 0.05    # softmax temperature of the worst-group smoothing (nats)
TEMPERATURE_NOISE = 4.0  # ... raised to this multiple of the noise left in the averaged loss
WEIGHT_MEMORY = 0.25  # noisy_gd's group weights average the losses of this share of the steps
ITER_RATE = 0.3      # auto_iterations: ITER_RATE * n * mu steps ...
MIN_ITER = 100       # ... at least
MAX_ITER = 500       # ... at most
INTERCEPT_RATIO = 0.25  # intercept feature = INTERCEPT_RATIO * feature_bound
INF_RIDGE = 0.1       # epsilon = inf: L2 penalty INF_RIDGE ||W||^2 / (2 n) (sklearn C = 10)
INF_TOL = 1e-5        # ... L-BFGS gradient tolerance
INF_MAX_ITER = 500

NOISY_GD_OPTIONS = (
    Option("clip_ratio", "float", CLIP_RATIO, low=0, high=1, low_open=True,
           doc="per-sample gradient clip, relative to the Lipschitz bound of the augmented rows"),
    Option("step_scale", "float", STEP_SCALE, low=0, high=1e3, low_open=True,
           doc="step = step_scale / (loss curvature at 0 x augmented row bound**2)"),
    Option("group_signal", "str", "loss", choices=("loss", "error"),
           doc="what the group player reads: the groups' clipped losses, or their 0-1 error "
               "rates (bounded by 1: less noise)"),
)
"""``solver_options`` of ``noisy_gd``: public constants, read before any row (the clip sets
the sensitivity, the step is post-processing). The defaults are the module's constants."""


def auto_iterations(n, mu):
    """Number of full-batch steps: grows with the signal-to-noise ``n mu``.

    ``ITER_RATE n mu`` clamped to ``[MIN_ITER, MAX_ITER]``.

    Examples
    --------
    >>> auto_iterations(1000, 0.2), auto_iterations(10**6, float("inf"))
    (100, 500)
    """
    if math.isinf(mu):
        return 500
    return int(min(MAX_ITER, max(MIN_ITER, round(ITER_RATE * n * mu))))


def _clipped_residual(data, r, clip):
    """``r`` with each per-sample gradient ``r_i a_i^T`` scaled to norm <= clip."""
    xp = data.xp
    gnorm = xp.sqrt(xp.sum(r * r, axis=1)) * data.row_norm
    return r * clip_factors(gnorm, clip, xp)[:, None]


def _group_losses(data, loss, loss_clip, sizes):
    xp = data.xp
    clipped = xp.minimum(loss, xp.full_like(loss, loss_clip))
    sums = np.asarray(to_host(xp, data.onehot.T @ clipped), dtype=float)
    return sums / sizes


def noisy_gd(problem, budget, options):
    """Noisy full-batch GD on the softmax-smoothed worst-group loss (see module doc).

    Parameters
    ----------
    problem : MinimaxProblem
        ``data``; ``sizes`` (public group sizes ``N_g``); ``radius`` (l2
        radius of ``(W, b)``, None: unconstrained); ``n_iter``; ``verbose``;
        ``reference`` (``'balanced'`` or ``'population'``: the group weights
        the softmax falls back to when the loss noise swamps the group
        differences, uniform (class-balanced risk) or proportional to the
        group sizes (the average risk), see :func:`reference_logits`).
        ``theory`` is ignored (no paper parameters for this solver).
    budget : Budget
        ``budget.mu``: the GDP parameter of the solver (what the ledger left
        of the fit's (epsilon, delta)); every release goes through the
        budget's GDP filter (``gaussian_gdp``, ``gaussian_gdp_blocks``).
    options : dict
        :data:`NOISY_GD_OPTIONS`: ``clip_ratio`` (default ``CLIP_RATIO``),
        ``step_scale`` (default ``STEP_SCALE``) and ``group_signal`` (``'loss'``:
        the clipped group losses; ``'error'``: the group error rates, whose
        per-row value lies in [0, 1], so the bound ``c_L`` of the losses' sensitivity
        is 1, :func:`~skdp.solvers.minimax.steps.loss_sensitivity`); public, so the
        accounting is the same for every value (the sensitivities scale with the clip
        and ``c_L``).

    Returns
    -------
    SolverResult
    """
    data, sizes, radius, n_iter = problem.data, problem.sizes, problem.radius, problem.n_iter
    clip_ratio = float(options.get("clip_ratio") or CLIP_RATIO)
    step_scale = float(options.get("step_scale") or STEP_SCALE)
    backend = budget.backend
    xp = backend.xp
    m, k = data.n_groups, data.k
    mu = budget.mu
    if math.isinf(mu) and n_iter == "auto" and radius is None:
        data, _ = centre_rows(data, mu, budget)
        return _exact_fit(data, sizes, budget)
    T = auto_iterations(data.n, mu) if n_iter == "auto" else int(n_iter)
    data, mu = centre_rows(_scale_intercept(data), mu, budget)
    share = LOSS_SHARE if m > 1 else 0.0
    mu_loss, mu_grad = mu * math.sqrt(share / T), mu * math.sqrt((1 - share) / T)
    clip = clip_ratio * lipschitz(k) * data.augmented_bound
    step, step_b = step_sizes(data, step_scale)
    errors = options.get("group_signal") == "error"
    loss_clip = 1.0 if errors else loss_clip_bound(k, data.n_classes)
    loss_sens = loss_sensitivity(loss_clip, sizes)
    W = xp.zeros((k, data.p), dtype=data.dtype, device=backend.device)
    b = xp.zeros((k,), dtype=data.dtype, device=backend.device)
    sigma_loss = 0.0 if m == 1 or math.isinf(mu_loss) else loss_sens / mu_loss
    player = _GroupPlayer(reference_logits(sizes, problem.reference), T, sigma_loss)
    avg = TailAverager(T)
    for t in range(T):
        p = player.weights  # set by the losses released before this step
        q = p / sizes
        # one pass over X: the gradient and (m > 1) the group losses at (W, b)
        gw, gb, loss_sums = data.gradient_sums(W, b, backend.asarray(q, dtype=data.dtype),
                                               clip, loss_clip if m > 1 else None, errors=errors)
        sens = 2.0 * clip * float(q.max())
        sigma = 0.0 if math.isinf(mu_grad) else sens / mu_grad
        gw, gb = budget.gaussian_gdp_blocks([gw, gb], sens, sigma, label="worst-group gradient")
        if m > 1:
            player.update(_release_losses(xp, loss_sums, loss_sens, sigma_loss, sizes, budget,
                                          "group error rates" if errors else "group losses"))
        W, b = project_ball(W - step * gw, b - step_b * gb, radius, xp)
        avg.add(t, W, b, backend.asarray(p))
        if problem.verbose:
            print(f"[noisy_gd] step {t + 1}/{T} noise sigma={sigma:.3g} weights={np.round(p, 3)}")
    W, b, p_avg = avg.mean()
    return SolverResult(solution=(W, intercept_of(data, W, b)), n_iter=T,
                        info=dict(group_weights=np.asarray(to_host(xp, p_avg))))


def _exact_fit(data, sizes, budget):
    """epsilon = inf: L-BFGS on the same smoothed objective, no noise, no clipping.

    Minimises ``TEMPERATURE log sum_g exp(L_g / TEMPERATURE) +
    INF_RIDGE ||W||**2 / (2 n)`` (the penalty of sklearn's
    ``LogisticRegression(C=1 / INF_RIDGE)``; noisy GD's implicit
    regularisation is its early stop) to a gradient tolerance, which is
    several times faster than ``auto_iterations`` full-batch steps. Nothing is
    private here: the ledger records one noiseless release.
    """
    from scipy.optimize import minimize

    backend = budget.backend
    xp, k, p, n = data.xp, data.k, data.p, data.n
    sizes = np.asarray(sizes, dtype=float)
    state = {}

    def objective(flat):
        theta = backend.asarray(flat, dtype=data.dtype)
        W, b = xp.reshape(theta[:k * p], (k, p)), theta[k * p:]
        loss_sums, G, t = data.group_sums(W, b)
        host = np.asarray(to_host(xp, loss_sums), dtype=float) / sizes
        weights = softmax_np(host / TEMPERATURE)
        value = TEMPERATURE * (np.log(np.sum(np.exp(host / TEMPERATURE - host.max() / TEMPERATURE)))
                               + host.max() / TEMPERATURE)
        v = backend.asarray(weights / sizes, dtype=data.dtype)
        gw, gb, _ = finish_gradient((xp.sum(v[:, None, None] * G, axis=0), v @ t, None),
                                    data.center, data.intercept_scale)
        gw = gw + (INF_RIDGE / n) * W
        value += 0.5 * INF_RIDGE / n * float(xp.sum(W * W))
        state["weights"] = weights
        grad = np.concatenate([np.asarray(to_host(xp, gw), dtype=float).ravel(),
                               np.asarray(to_host(xp, gb), dtype=float).ravel()])
        return value, grad

    res = minimize(objective, np.zeros(k * (p + 1)), jac=True, method="L-BFGS-B",
                   options={"maxiter": INF_MAX_ITER, "gtol": INF_TOL})
    objective(res.x)
    theta = backend.asarray(res.x, dtype=data.dtype)
    W, b = xp.reshape(theta[:k * p], (k, p)), theta[k * p:]
    W, b = budget.gaussian_gdp_blocks([W, b], 1.0, 0.0, label="exact fit (epsilon = inf)")
    return SolverResult(solution=(W, intercept_of(data, W, b)), n_iter=max(1, int(res.nit)),
                        info=dict(group_weights=state["weights"]))


def reference_logits(sizes, reference):
    """Log-weights of the reference group distribution of the smoothed max.

    The weights ``softmax(log q + L / t)`` maximise ``sum_g p_g L_g - t KL(p || q)``
    (KL-regularised group DRO): with a small temperature ``t`` the worst
    group, with a large one (noisy losses) the reference ``q``. ``'balanced'``:
    ``q`` uniform (the class-balanced risk, the natural fallback for the
    worst *class*); ``'population'``: ``q_g = N_g / n`` (the average risk,
    whose gradient has the smallest sensitivity, ``2 C / n``; the fallback for
    groups passed to ``fit``). ``sizes`` are public or privately released, so
    this is post-processing.

    Examples
    --------
    >>> reference_logits(np.array([30.0, 10.0]), "population").round(3).tolist()
    [-0.288, -1.386]
    """
    sizes = np.asarray(sizes, dtype=float)
    if reference == "population":
        return np.log(sizes / sizes.sum())
    return np.zeros(sizes.shape[0])


def _scale_intercept(data):
    """The data with its intercept feature at ``INTERCEPT_RATIO * feature_bound``."""
    if data.intercept_scale == 0:
        return data
    return data.with_intercept_scale(INTERCEPT_RATIO * data.feature_bound)


def _release_losses(xp, loss_sums, sens, sigma, sizes, budget, label="group losses"):
    """The clipped group losses (or error rates; from their sums) plus N(0, sigma**2) noise
    (host)."""
    values = np.asarray(to_host(xp, loss_sums), dtype=float) / sizes
    return budget.on_host().gaussian_gdp(values, sens, sigma, label=label)


class _GroupPlayer:
    """The worst-group weights: damped exponentiated-gradient ascent on noisy group losses.

    Group DRO's online update (Sagawa et al. 2020, "Distributionally robust
    neural networks", Alg. 1: ``q_g <- q_g exp(eta L_g)``, normalised) on the
    KL-regularised objective ``sum_g p_g L_g - tau KL(p || p_ref)``
    (:func:`reference_logits`): one entropic mirror-ascent step is
    ``log p <- (1 - eta tau) log p + eta tau log p_ref + eta L~`` (normalised),
    whose fixed point is the smoothed max ``softmax(log p_ref + L / tau)``.
    With ``eta tau = 1 / memory``, ``memory = WEIGHT_MEMORY * T`` steps, the
    log-weights are ``log p_ref`` plus an exponential average of the released
    losses over about ``memory`` steps, divided by ``tau``: one release moves
    them by ``1 / memory`` of its way, so they cannot swing with the model as
    a softmax of a few rare releases did. A release's noise ``sigma`` leaves
    an sd of about ``sigma / sqrt(2 memory)`` in that average; ``tau`` is at
    least TEMPERATURE_NOISE times it (and at least TEMPERATURE), so the noise
    moves the log-weights by about ``1 / TEMPERATURE_NOISE`` nat and, where it
    swamps the differences between groups, the weights stay near the
    reference. Post-processing of the released losses.
    """

    def __init__(self, prior, T, sigma):
        self.prior = np.asarray(prior, dtype=float)
        memory = max(1.0, WEIGHT_MEMORY * T)
        self.tau = max(TEMPERATURE, TEMPERATURE_NOISE * sigma / math.sqrt(2.0 * memory))
        self.decay = 1.0 / memory
        self.logits = self.prior.copy()

    @property
    def weights(self):
        return softmax_np(self.logits)

    def update(self, losses):
        self.logits = ((1.0 - self.decay) * self.logits + self.decay * self.prior
                       + (self.decay / self.tau) * np.asarray(losses, dtype=float))


def sgda(problem, budget, options):
    """DP stochastic gradient descent-ascent (see module doc).

    ``problem.n_iter`` counts epochs ('auto': 5). Each epoch shuffles the
    rows with the fit's generator (data-independent) and takes
    ``n // batch_size`` steps on disjoint batches of ``max(64, n // 32)``
    rows. The group player's step is ``sqrt(2 log m / steps) / c_L``
    (exponentiated gradient on losses bounded by ``c_L``). ``budget`` and
    ``options`` as for :func:`noisy_gd`.

    Returns
    -------
    SolverResult
    """
    data, sizes, n_iter = problem.data, problem.sizes, problem.n_iter
    backend = budget.backend
    xp = backend.xp
    m, k, n = data.n_groups, data.k, data.n
    data, mu = centre_rows(_scale_intercept(data), budget.mu, budget)
    epochs = 5 if n_iter == "auto" else int(n_iter)
    bsz = min(max(64, n // 32), n)
    n_batches = n // bsz
    share = LOSS_SHARE if m > 1 else 0.0
    mu_loss = mu * math.sqrt(share / epochs)
    mu_grad = mu * math.sqrt((1 - share) / epochs)
    clip = CLIP_RATIO * lipschitz(k) * data.augmented_bound
    step, step_b = step_sizes(data)
    loss_clip = loss_clip_bound(k, data.n_classes)
    batch_sizes = np.asarray(sizes, dtype=float) * bsz / n  # public expected group sizes per batch
    loss_sens = loss_sensitivity(loss_clip, batch_sizes)
    eta_y = math.sqrt(2 * math.log(max(m, 2)) / max(1, epochs * n_batches)) / loss_clip
    W = xp.zeros((k, data.p), dtype=data.X.dtype, device=backend.device)
    b = xp.zeros((k,), dtype=data.X.dtype, device=backend.device)
    log_y = reference_logits(sizes, problem.reference)  # the group player starts there
    total = epochs * n_batches
    avg = TailAverager(total, tail_fraction=min(1.0, 1.0 / epochs))
    t = 0
    for epoch in range(epochs):
        perm = backend.public_rng.permutation(n)
        # one release of each kind per record per epoch: the batches are disjoint
        losses = budget.on_host().disjoint_gdp(mu_loss, label="batch group losses (epoch)")
        grads = budget.disjoint_gdp(mu_grad, label="batch gradients (epoch)")
        for j in range(n_batches):
            idx = backend.asarray(perm[j * bsz:(j + 1) * bsz])
            batch = data.subset(idx)
            y = softmax_np(log_y)
            loss, r = loss_and_residual(batch.margins(W, b), batch.targets, xp)
            if m > 1:
                values = losses(_group_losses(batch, loss, loss_clip, batch_sizes), loss_sens)
                log_y = log_y + eta_y * values  # ascent (002 Alg. 1 prints descent: a typo)
            q = y / batch_sizes
            v = batch.onehot @ backend.asarray(q, dtype=data.X.dtype)
            gw, gb = batch.gradient(v[:, None] * _clipped_residual(batch, r, clip))
            gw, gb = grads([gw, gb], 2.0 * clip * float(q.max()))
            W, b = project_ball(W - step * gw, b - step_b * gb, problem.radius, xp)
            avg.add(t, W, b, backend.asarray(y))
            t += 1
        if m > 1:
            losses.close()
        grads.close()
        if problem.verbose:
            print(f"[sgda] epoch {epoch + 1}/{epochs} weights={np.round(softmax_np(log_y), 3)}")
    W, b, y_avg = avg.mean()
    return SolverResult(solution=(W, intercept_of(data, W, b)), n_iter=epochs,
                        info=dict(group_weights=np.asarray(to_host(xp, y_avg))))
