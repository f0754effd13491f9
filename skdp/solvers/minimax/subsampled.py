"""Poisson-subsampled DP-SGD for the worst-group (minimax) linear classifier.

``dpsgd_poisson`` is DP-SGD (Abadi et al. 2016, "Deep learning with
differential privacy", CCS, Alg. 1) with Poisson sampling, run as a
stochastic gradient descent-ascent on the worst-group risk of a linear model
(the game of :func:`~skdp.solvers.minimax.euclidean.sgda`): public group
sizes ``N_g``, replace-one neighbours, ``n`` public. Each of its ``T`` steps

1. keeps each row independently with probability ``q`` (the sample is drawn
   from the fit's private generator: it is part of the mechanism);
2. releases, as ONE Gaussian mechanism, the SUM over the kept rows of the
   per-row vectors ``u_i = (a_G v_i / C, a_L l_i / c_L)`` plus
   ``N(0, z**2 I)``, where ``v_i = (w_{g_i} / w_max) clip_C(r_i a_i)`` is the
   row's logistic gradient clipped to norm ``C`` and weighted by the group
   player's ``w_g = y_g / N_g`` (``w_max = max_g w_g``), ``l_i = min(loss_i,
   c_L) (N_min / N_{g_i}) e_{g_i}`` its clipped loss in its group's
   coordinate, and ``a_G**2 = 1 - LOSS_SHARE``, ``a_L**2 = LOSS_SHARE``
   (``a_L = 0`` with one group): one record's contribution has norm at most 1;
3. the model player steps along ``w_max C / (a_G q)`` times the gradient
   part, an unbiased estimate of ``sum_i w_{g_i} clip_C(r_i a_i)`` (for one
   group, the gradient sum divided by the expected batch size ``q n``); the
   group player takes an exponentiated-gradient ascent step (as ``sgda``) on
   the loss estimate ``c_L / (a_L q N_min)`` times the loss part, unbiased
   for the clipped group risks.

Privacy: each step is the Poisson-subsampled Gaussian mechanism with noise
multiplier ``z`` and one record's contribution of norm at most 1, whose
privacy is amplified by the sampling (Abadi et al. 2016, Thm 1; Balle,
Barthe and Gaboardi 2018, "Privacy amplification by subsampling", for the
replace-one relation). The weights ``w_g`` follow released values only. With
an intercept the mean clipped row is first released by the Gaussian
mechanism (centring, GDP share ``CENTER_SHARE`` of the solver's ``mu``, as
``noisy_gd``). The fit's releases are composed by privacy loss distributions
in its ledger (Koskela, Jälkö and Honkela 2020; Doroshenko et al. 2022,
"Connect the dots"); ``z`` is the smallest noise multiplier for which the
whole ledger spends at most the fit's epsilon at its delta
(:func:`~skdp.privacy.ledger.subsampled_noise_within`, a root search on the ledger's own
composition), so the fit spends its epsilon exactly; the ``T`` steps are declared to the
budget's filter before the first (:meth:`Budget.plan_subsampled
<skdp.privacy.budget.Budget.plan_subsampled>`: one composition verifies them).

Compute: about ``q T`` passes over the rows (``SAMPLING_PASSES`` by
default, fewer beyond 1e6 rows: :func:`auto_passes`), against ``T`` passes
for ``noisy_gd``. Only the sampled rows are gathered (``X[idx]``); ``X``
is never copied. Each step's sums are
:func:`~skdp.solvers.minimax.data.gradient_sums_block` over the sampled
rows, in memory or per partition on Dask (the sample drawn on the client).
"""

import math

import numpy as np

from ..losses.classification import lipschitz
from ..shared.subsampling import SAMPLING_PASSES, planned_noise_multiplier, sampling_rate
from ..spec import SolverResult
from .common import softmax_np
from .euclidean import auto_iterations, reference_logits
from .steps import (LOSS_SHARE, STEP_SCALE, TailAverager, centre_rows, intercept_of,
                    loss_clip_bound, project_ball, step_sizes, to_host)

__all__ = ["dpsgd_poisson", "auto_poisson_steps", "auto_passes"]

_LABEL = "subsampled gradient and group-loss sums"
SGD_CLIP_RATIO = 0.25  # per-sample clip / Lipschitz bound (noisy_gd's is smaller: full batches)
POISSON_MAX_ITER = 250  # n_iter='auto': at most this many steps (issue 31; RESULTS.md)
POISSON_MAX_BATCH = 16_000  # n_iter='auto': at most this many rows a step, expected (issue 31)


def auto_poisson_steps(n, mu):
    """``n_iter='auto'`` of ``dpsgd_poisson``: the steps ``T`` and the step scale.

    ``T = min(auto_iterations(n, mu), POISSON_MAX_ITER)`` on a private fit; the step
    scale is ``STEP_SCALE * auto_iterations(n, mu) / T``, so that ``T`` steps travel
    as far as the ``auto_iterations`` steps they replace (their product is the same).
    At the default rate ``q = SAMPLING_PASSES / T`` the fit reads the same number of
    rows (fewer, larger Poisson batches). Public parameters only (``n``, ``mu``):
    nothing here reads a row; the accounting is unchanged in form (``T``
    Poisson-subsampled Gaussian steps at rate ``q``, the noise multiplier
    calibrated for that ``(q, T)`` by PLD composition). Issue 31 (``benchmarks/RESULTS.md``,
    "the classifier's step count at small d"): at 1e6 rows and ``d = 3`` the cap
    halves the per-step fixed costs (10-20% less CPU); halving ``T`` at the old step
    lost .02 of Fertility's worst-class accuracy, the same with the step doubled did not.
    A non-private fit (``mu = inf``, full batches) keeps ``auto_iterations`` and
    ``STEP_SCALE``.

    Examples
    --------
    >>> auto_poisson_steps(1000, 0.2), auto_poisson_steps(10**6, 1.0)
    ((100, 4.0), (250, 8.0))
    >>> auto_poisson_steps(10**6, float("inf"))
    (500, 4.0)
    """
    planned = auto_iterations(n, mu)
    if math.isinf(mu):
        return planned, STEP_SCALE
    steps = min(planned, POISSON_MAX_ITER)
    return steps, STEP_SCALE * planned / steps


def auto_passes(n, steps):
    """Expected passes over the rows of ``n_iter='auto'``: at most ``POISSON_MAX_BATCH`` a step.

    ``min(SAMPLING_PASSES, POISSON_MAX_BATCH * steps / n)``, which ``sampling_rate`` turns
    into the default rate ``q = min(1, SAMPLING_PASSES / T, POISSON_MAX_BATCH / n)``: the
    expected batch ``q n`` stops growing at ``POISSON_MAX_BATCH`` rows, the batch of
    the default fit at ``n = 1e6`` (``T = 250``, ``q = 0.016``); below ``POISSON_MAX_BATCH
    / (SAMPLING_PASSES / T)`` rows (1e6 at ``T = 250``) nothing changes. Public
    quantities only (``n`` is public under replace-one; ``steps`` from
    :func:`auto_poisson_steps`); the accounting is unchanged in form (``T`` Poisson-subsampled
    Gaussian steps at rate ``q``, the noise multiplier calibrated for that ``(q, T)``).
    Why: the noise of a step's mean gradient is ``z C / (q n)``, and in the amplified
    regime ``z`` itself scales with ``q``, so past 1e6 rows a larger batch buys little
    privacy noise and costs every row it reads; issue 31 (``benchmarks/RESULTS.md``,
    "the classifier's batch cap at 1e7 rows"): at 1e7 x 3 the default fit reads 4e6
    rows instead of 4e7, about 8x less CPU, the same loss on generated data.

    Examples
    --------
    >>> auto_passes(10**5, 250), auto_passes(10**6, 250), auto_passes(10**7, 250)
    (4.0, 4.0, 0.4)
    """
    return min(SAMPLING_PASSES, POISSON_MAX_BATCH * steps / n)


def dpsgd_poisson(problem, budget, options):
    """Poisson-subsampled DP-SGD(A) on the worst-group loss (see module doc).

    Parameters
    ----------
    problem : MinimaxProblem
        As for :func:`~skdp.solvers.minimax.euclidean.noisy_gd`; ``n_iter``
        counts steps (``'auto'``: :func:`auto_poisson_steps`, ``noisy_gd``'s
        :func:`auto_iterations` capped at ``POISSON_MAX_ITER`` with a step as much larger,
        and the default rate's batch capped at ``POISSON_MAX_BATCH`` rows, :func:`auto_passes`).
    budget : Budget
        ``budget.mu``: sets the centring's share (``CENTER_SHARE``, as in
        ``noisy_gd``); the steps get what the ledger leaves of
        ``(budget.epsilon, budget.delta)``.
    options : dict
        ``sampling_rate`` (None: :func:`sampling_rate`).

    Returns
    -------
    SolverResult
        ``info``: ``group_weights`` (averaged), ``sampling_rate`` and
        ``noise_multiplier`` (public).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp import PrivateMinimaxClassifier
    >>> X = np.random.default_rng(0).normal(size=(400, 3))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> clf = PrivateMinimaxClassifier(solver="dpsgd_poisson", random_state=0).fit(X, y)
    >>> clf.privacy_ledger_.spent(1e-6)[1]
    'pld'
    """
    data = problem.data
    xp = budget.backend.xp
    if problem.n_iter == "auto":
        T, step_scale = auto_poisson_steps(data.n, budget.mu)
        passes = auto_passes(data.n, T)
    else:
        T, step_scale, passes = int(problem.n_iter), STEP_SCALE, SAMPLING_PASSES
    q = sampling_rate(options["sampling_rate"], T, not math.isinf(budget.mu), passes)
    data, _ = centre_rows(data, budget.mu, budget)
    z = 0.0
    if not math.isinf(budget.mu):  # calibrated, and the T steps declared to the filter
        z = planned_noise_multiplier(budget, q, T, 1.0, label=_LABEL)
    W, b, y_avg = _run(problem, budget, data, T, q, z, step_scale)
    return SolverResult(solution=(W, intercept_of(data, W, b)), n_iter=T,
                        info=dict(group_weights=np.asarray(to_host(xp, y_avg)),
                                  sampling_rate=q, noise_multiplier=z))


def _run(problem, budget, data, T, q, z, step_scale=STEP_SCALE):
    """The ``T`` steps; returns the averaged ``(W, b, y)`` of the last half."""
    backend = budget.backend
    xp, sizes, m = backend.xp, np.asarray(problem.sizes, dtype=float), data.n_groups
    share = LOSS_SHARE if m > 1 else 0.0
    scales = (math.sqrt(1.0 - share), math.sqrt(share))
    clips = (SGD_CLIP_RATIO * lipschitz(data.k) * data.augmented_bound,
             loss_clip_bound(data.k, data.n_classes))
    step, step_b = step_sizes(data, step_scale)
    eta_y = math.sqrt(2 * math.log(max(m, 2)) / T) / clips[1]
    W = xp.zeros((data.k, data.p), dtype=data.dtype, device=backend.device)
    b = xp.zeros((data.k,), dtype=data.dtype, device=backend.device)
    log_y = reference_logits(sizes, problem.reference)  # the group player starts there
    avg = TailAverager(T)
    for t in range(T):
        y = softmax_np(log_y)
        weights = y / sizes
        gw, gb, losses = _noisy_step(budget, data, (W, b), (weights, sizes),
                                     (q, z, clips, scales))
        if m > 1:
            log_y = log_y + eta_y * losses  # ascent, as sgda
        W, b = project_ball(W - step * gw, b - step_b * gb, problem.radius, xp)
        avg.add(t, W, b, backend.asarray(y))
        if problem.verbose:
            print(f"[dpsgd_poisson] step {t + 1}/{T} q={q:.3g} noise multiplier={z:.3g} "
                  f"weights={np.round(y, 3)}")
    return avg.mean()


def _noisy_step(budget, data, model, groups, plan):
    """One release: the gradient estimate ``(gw, gb)`` and the group-loss estimate (host)."""
    (W, b), (weights, sizes), (q, z, (clip, loss_clip), (a_g, a_l)) = model, groups, plan
    backend = budget.backend
    xp, dtype = backend.xp, data.dtype
    top, n_min = float(weights.max()), float(sizes.min())
    rows = budget.poisson_sample(data.n, q)
    gw, gb, loss_sums = data.gradient_sums(W, b, backend.asarray(weights / top, dtype=dtype),
                                           clip, loss_clip if a_l > 0 else None, rows=rows)
    parts = [xp.reshape(gw, (-1,)), gb]
    if a_l > 0:
        parts.append(loss_sums * backend.asarray(n_min / sizes, dtype=dtype)
                     * (a_l * clip / (a_g * loss_clip)))
    flat = budget.subsampled_gaussian(xp.concat(parts) * (a_g / clip), 1.0, z, q, label=_LABEL)
    flat = flat * (clip / a_g)
    k, p = gw.shape
    g_scale = top / q
    losses = None
    if a_l > 0:
        tail = np.asarray(to_host(xp, flat[k * p + k:]), dtype=float)
        losses = tail * (a_g * loss_clip / (a_l * clip)) / (q * n_min)
    return xp.reshape(flat[:k * p], (k, p)) * g_scale, flat[k * p:k * p + k] * g_scale, losses
