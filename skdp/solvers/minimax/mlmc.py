"""Phased localization with the MLMC optimum estimator (paper 000, Alg. 6).

**Utility is heuristic; privacy is unconditional.** Paper 000's DP result
(Thm 6, Alg. 6) needs a *bounded* low-bias optimum estimator that does not
exist (000 App. F.3); this solver follows a rigorous variant with a deterministic
sensitivity (each copy clipped, steps 1-5 below), applied to the softmax-smoothed worst-group loss:

1. A data-independent permutation splits the rows into ``k`` disjoint phase
   batches of ``n_bar = n // k`` rows.
2. Phase ``i`` releases the group losses of the batch at the current centre
   ``theta_{i-1}`` with Gaussian noise (as in ``noisy_gd``) and fixes the group
   weights ``p = softmax(L~ / temperature)`` (post-processing; the smoothed
   max-loss is linearised at the centre -- a heuristic).
3. It runs ``m`` independent copies of the MLMC optimum estimator (000
   eq. (1): ``J ~ Geom(1/2)``, output ``x_0 + 2^J (x_J - x_{J-1})``, zero
   correction when ``2^J > T_max``) with EpochSGD (000 Alg. 8: ``eta_1 =
   1/(4 mu)``, ``T_1 = 16``, epochs doubling) as the ODC base, on
   ``F_i(theta) = sum_g p_g L_g(theta) + mu_i ||theta - theta_{i-1}||^2``,
   ``mu_i = 1 / (eta_i n_bar)``, over the ball ``B(theta_{i-1}, G / mu_i)``.
   Stochastic gradients use rows drawn uniformly from the batch (indices from
   the fit's generator, never from the data) with importance weight
   ``p_g n / N_g`` and per-sample clipping to ``C``, so ``G = C max_g p_g n / N_g``.
4. Each copy is clipped to the ball of radius ``C_i = kappa G / mu_i``
   around ``theta_{i-1}`` (per-copy clipping). A replaced
   record changes at most ``B_i`` copies (``B_i`` = the largest number of copies
   that drew any one batch position: internal randomness only), so the mean
   of the copies has l2-sensitivity ``2 C_i B_i / m`` and is released with the
   Gaussian mechanism (Bun–Steinke Prop. 1.6; GDP-calibrated). The result is
   projected onto the l2 ball of radius ``radius``.

Every record lies in one phase; later phases only post-process earlier
outputs, so the phases compose in parallel: the fit is the composition of one
loss release and one model release (each mu-GDP), recorded as such.
"""

import math

import numpy as np

from ..._backend import array_api_compat
from ...privacy.clipping import clip_factors
from ..losses.classification import curvature_at_zero, lipschitz, loss_and_residual
from ..spec import SolverResult
from .common import softmax_np
from .euclidean import reference_logits
from .steps import LOSS_SHARE, centre_rows, loss_clip_bound, loss_sensitivity

__all__ = ["mlmc", "epochs_for_budget", "mlmc_weights"]

DEFAULT_RADIUS = 10.0  # theory=True
# Practical defaults, chosen at epsilon = inf on validation splits carved from the
# training data (benchmarks/minimax.py); at finite epsilon no setting learned at these n.
PRACTICAL_RADIUS = 100.0  # l2 radius: the phase regulariser mu_i scales as 1 / radius
PRACTICAL_PHASES = 3
PRACTICAL_COPIES = 2000   # not capped at n_bar: the sensitivity uses the actual participation
PRACTICAL_MAX_LEVEL = 8
CLIP_RATIO = 1.0
TEMPERATURE = 0.1         # nats, at least (theory: always)
SPREAD_FACTOR = 1.0       # temperature >= SPREAD_FACTOR x spread of the noisy group losses
SGD_BATCH = 8             # rows per EpochSGD gradient (1 in theory)
STEP_CAP = 2.0            # EpochSGD step capped at STEP_CAP / (curvature at 0 x A**2 x max weight)


def epochs_for_budget(level):
    """EpochSGD epochs completed with budget ``2^level`` (paper 000 Alg. 8: epochs of 16, 32, ...).

    ``e(j) = max{k >= 0 : 16 (2^k - 1) <= 2^j}``.

    Examples
    --------
    >>> [epochs_for_budget(j) for j in range(11)]
    [0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6]
    """
    k = 0
    while 16 * (2 ** (k + 1) - 1) <= 2**level:
        k += 1
    return k


def mlmc_weights(levels, max_level):
    """``2^J`` where the correction applies (``J <= max_level``), else 0 (000 eq. (1)).

    Examples
    --------
    >>> mlmc_weights(np.array([1, 3, 9]), 8).tolist()
    [2.0, 8.0, 0.0]
    """
    return np.where(levels <= max_level, np.ldexp(1.0, np.minimum(levels, max_level)), 0.0)


class _Phase:
    """Host arrays of one phase batch and its gradient oracle."""

    def __init__(self, data, idx, weights_per_group, clip):
        from ..._backend import to_numpy

        take = data.subset(idx if isinstance(data.X, np.ndarray) else _on_device(data, idx))
        scale = np.asarray(to_numpy(take.scale), dtype=float)
        self.A = np.asarray(to_numpy(take.X), dtype=float) * scale[:, None]
        if data.center is not None:  # rows centred on the private feature mean
            self.A = self.A - np.asarray(to_numpy(data.center), dtype=float)[None, :]
        if data.intercept_scale > 0:
            self.A = np.hstack([self.A, np.full((self.A.shape[0], 1), data.intercept_scale)])
        self.targets = np.asarray(to_numpy(take.targets), dtype=float)
        codes = np.asarray(to_numpy(take.onehot), dtype=float).argmax(1)
        self.weight = weights_per_group[codes]
        self.clip = clip

    def grad(self, theta, idx):
        """Mean clipped, importance-weighted gradient at ``theta[c]`` of rows ``idx[c, :]``."""
        c, b = idx.shape
        A = self.A[idx.ravel()]
        Z = np.einsum("cbp,ckp->cbk", A.reshape(c, b, -1), theta).reshape(c * b, -1)
        _, r = loss_and_residual(Z, self.targets[idx.ravel()], np)
        norm = np.linalg.norm(r, axis=1) * np.linalg.norm(A, axis=1)
        factor = clip_factors(norm, self.clip) * self.weight[idx.ravel()]
        R = (factor[:, None] * r).reshape(c, b, -1)
        return np.einsum("cbk,cbp->ckp", R, A.reshape(c, b, -1)) / b


def _project_ball(theta, centre, radius):
    diff = theta - centre
    norm = np.sqrt(np.sum(diff**2, axis=tuple(range(1, diff.ndim)), keepdims=True))
    return centre + diff * clip_factors(norm, radius)


def _mlmc_copies(phase, centre, mu, radius, levels, max_level, rng, eta_cap=math.inf, batch=1):
    """Run the copies' EpochSGD (vectorised over copies); return outputs and draw counts."""
    m = levels.shape[0]
    e_hi = np.array([epochs_for_budget(j) if j <= max_level else 0 for j in levels])
    e_lo = np.array([epochs_for_budget(j - 1) if j <= max_level else 0 for j in levels])
    x0 = np.broadcast_to(centre, (m,) + centre.shape).copy()
    avg = {0: x0.copy()}  # epoch averages, epoch 0 = argmin psi = centre
    counts = np.zeros(phase.A.shape[0])
    for epoch in range(1, int(e_hi.max(initial=0)) + 1):
        active = np.flatnonzero(e_hi >= epoch)
        eta = min(1.0 / (2 ** (epoch + 1) * mu), eta_cap)
        length = 2 ** (epoch + 3)
        xa = _project_ball((avg[epoch - 1][active] + mu * eta * centre) / (1 + mu * eta),
                           centre, radius)
        total = xa.copy()
        for _ in range(length - 1):
            idx = rng.integers(phase.A.shape[0], size=(active.shape[0], batch))
            np.add.at(counts, idx.ravel(), 1)
            g = phase.grad(xa, idx)
            xa = _project_ball((xa + mu * eta * centre - eta * g) / (1 + mu * eta), centre, radius)
            total += xa
        avg[epoch] = avg[epoch - 1].copy()
        avg[epoch][active] = total / length
    hi = np.stack([avg[e][c] for c, e in enumerate(e_hi)])
    lo = np.stack([avg[e][c] for c, e in enumerate(e_lo)])
    w = mlmc_weights(levels, max_level)
    return x0 + w[:, None, None] * (hi - lo), counts


def mlmc(problem, budget, options):
    """Private phased localization with MLMC optimum estimates (module doc).

    ``problem.n_iter`` is the number of phases (``theory=True``: ``ceil(log n)``, step
    decay ``2^(-4 i)``, ``n_bar`` copies and ``T_max = n_bar``, 000 Alg. 6;
    otherwise 3 phases, decay ``4^(-i)``, ``PRACTICAL_COPIES`` copies,
    ``T_max = 2^8``). The practical defaults also (chosen at epsilon = inf on
    validation splits; before them the solver was at chance on digits and
    wine without noise):

    * centre the rows on their private mean (as ``noisy_gd``, a Gaussian
      release of ``CENTER_SHARE`` of the budget): uncentred rows (digits'
      pixels in [0, 1]) make the intercept and the weights nearly collinear,
      which EpochSGD's few hundred steps cannot untangle;
    * take each EpochSGD gradient on ``SGD_BATCH`` rows (000 Alg. 8 uses one;
      the bound ``G`` on the stochastic gradient is unchanged, its variance
      drops) and cap its step ``1 / (2^(e+1) mu)`` at ``STEP_CAP`` over the
      loss curvature (the theory step ignores smoothness; with the weak
      phase regulariser ``mu`` it was a random walk);
    * the l2 radius ``PRACTICAL_RADIUS`` (the regulariser ``mu_i`` scales as
      ``1 / radius``; with 10 its minimiser was nearly constant);
    * group weights ``softmax(L~ / t)`` with the temperature ``t`` at least
      ``SPREAD_FACTOR`` times the spread ``max L~ - min L~`` of the released
      losses (post-processing), so that the worst group weighs at most ``e``
      times the best: a phase best-responds to the weights fixed at its
      centre, and with ``t = 0.1`` nat they swung to one class per phase
      (the last phase's model then predicted that class everywhere).

    ``problem.reference`` is the fallback of the group weights, as in
    ``noisy_gd``; ``budget.mu`` the GDP parameter of the solver; ``options``
    empty (no ``solver_options``). Computes on the host (NumPy).

    Returns
    -------
    SolverResult
    """
    data, sizes, theory, n_iter = problem.data, problem.sizes, problem.theory, problem.n_iter
    rng = budget.backend.public_rng  # batch orders, MLMC levels, row indices
    n, m_groups, k = data.n, data.n_groups, data.k
    radius = problem.radius
    if radius is None:
        radius = DEFAULT_RADIUS if theory else PRACTICAL_RADIUS
    radius = float(radius)
    mu_total = budget.mu
    if not theory:  # centre the rows on their private mean (as noisy_gd; benchmarks/minimax.py)
        data, mu_total = centre_rows(data, mu_total, budget)
    if theory:
        phases = max(1, math.ceil(math.log(n))) if n_iter == "auto" else int(n_iter)
    else:
        phases = PRACTICAL_PHASES if n_iter == "auto" else int(n_iter)
    phases = max(1, min(phases, n))
    n_bar = n // phases
    copies = n_bar if theory else PRACTICAL_COPIES
    max_level = max(1, int(math.log2(n_bar))) if theory else PRACTICAL_MAX_LEVEL
    kappa = 3.0 * math.sqrt(math.log(max(n, 3)))
    decay = 16.0 if theory else 4.0
    share = LOSS_SHARE if m_groups > 1 else 0.0
    mu_loss, mu_model = mu_total * math.sqrt(share), mu_total * math.sqrt(1 - share)
    clip = CLIP_RATIO * lipschitz(k) * data.augmented_bound
    h0 = curvature_at_zero(k, data.n_classes)
    loss_clip = loss_clip_bound(k, data.n_classes)
    batch_sizes = np.asarray(sizes, dtype=float) * n_bar / n
    loss_sens = loss_sensitivity(loss_clip, batch_sizes)
    width = data.p + int(data.intercept_scale > 0)
    theta = np.zeros((k, width))
    perm = rng.permutation(n)
    weights_sum = np.zeros(m_groups)
    eta0 = None
    # one record sits in one phase: parallel composition over phases
    on_host = budget.on_host()
    losses = on_host.disjoint_gdp(mu_loss, label="phase group losses")
    models = on_host.disjoint_gdp(mu_model, label="phase model (MLMC mean of copies)")
    for i in range(phases):
        idx = perm[i * n_bar:(i + 1) * n_bar]
        p = _phase_weights(data, idx, theta, loss_clip, loss_sens, losses, batch_sizes,
                           theory, reference_logits(sizes, problem.reference))
        weights_sum += p
        G = clip * float(np.max(p * n / np.asarray(sizes, dtype=float)))
        phase = _Phase(data, idx, p * n / np.asarray(sizes, dtype=float), clip)
        if eta0 is None:
            eta0 = radius / (G * math.sqrt(n_bar))
        mu_i = 1.0 / (eta0 / decay ** (i + 1) * n_bar)
        levels = rng.geometric(0.5, size=copies)
        weight_max = float(np.max(p * n / np.asarray(sizes, dtype=float)))
        eta_cap = math.inf if theory else STEP_CAP / (h0 * data.augmented_bound**2 * weight_max)
        outs, counts = _mlmc_copies(phase, theta, 2 * mu_i, G / mu_i, levels, max_level, rng,
                                    eta_cap, 1 if theory else SGD_BATCH)
        clip_radius = kappa * G / mu_i
        outs = _project_ball(outs, theta, clip_radius)
        participation = max(1.0, float(counts.max(initial=0)))
        sens_model = 2.0 * clip_radius * participation / copies
        if math.isinf(mu_model):  # no noise: the draws still advance the generator as before
            on_host.backend.public_normal(theta.shape)
        noisy = models(outs.mean(axis=0), sens_model)
        theta = _project_ball(noisy[None], np.zeros_like(noisy)[None], radius)[0]
        if problem.verbose:
            print(f"[mlmc] phase {i + 1}/{phases} copies={copies} participation="
                  f"{participation:.0f} sigma={models.sigma(sens_model):.3g}")
    if m_groups > 1:
        losses.close()
    models.close()
    W, b = (theta[:, :-1], theta[:, -1]) if data.intercept_scale > 0 else (theta, np.zeros(k))
    b = b * data.intercept_scale
    if data.center is not None:
        from ..._backend import to_numpy

        b = b - W @ np.asarray(to_numpy(data.center), dtype=float)
    backend = budget.backend
    return SolverResult(solution=(backend.asarray(W, dtype=data.X.dtype),
                                  backend.asarray(b, dtype=data.X.dtype)),
                        n_iter=phases, info=dict(group_weights=weights_sum / phases))


def _on_device(data, host, dtype=None):
    """A host array (indices, the phase's model) in the data's namespace, device and dtype."""
    if isinstance(data.X, np.ndarray):  # NumPy as before (float64 models on float32 rows)
        return np.asarray(host)
    return data.xp.asarray(host, dtype=dtype, device=array_api_compat.device(data.X))


def _phase_weights(data, idx, theta, loss_clip, loss_sens, losses, batch_sizes, theory, prior):
    """Group weights of a phase: softmax of its noisy clipped group losses at ``theta``."""
    if data.n_groups == 1:
        return np.ones(1)
    from ..._backend import to_numpy

    take = data.subset(idx if isinstance(data.X, np.ndarray) else _on_device(data, idx))
    Wt = theta[:, :-1] if data.intercept_scale > 0 else theta
    bt = theta[:, -1] if data.intercept_scale > 0 else np.zeros(theta.shape[0])
    xp = data.xp
    Wt, bt = _on_device(data, Wt, data.X.dtype), _on_device(data, bt, data.X.dtype)
    loss, _ = loss_and_residual(take.margins(Wt, bt), take.targets, xp)
    clipped = np.minimum(np.asarray(to_numpy(loss), dtype=float), loss_clip)
    onehot = np.asarray(to_numpy(take.onehot), dtype=float)
    values = losses(onehot.T @ clipped / batch_sizes, loss_sens)
    spread = 0.0 if theory else float(values.max() - values.min())
    return softmax_np(prior + values / max(TEMPERATURE, SPREAD_FACTOR * spread))

