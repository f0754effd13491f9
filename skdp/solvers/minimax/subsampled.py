"""Poisson-subsampled DP-SGD for the worst-group (minimax) linear classifier.

``dpsgd_poisson`` is DP-SGD (Abadi et al. 2016, "Deep learning with
differential privacy", CCS, Alg. 1) with Poisson sampling, on the same
problem as :func:`~skdp.solvers.minimax.euclidean.noisy_gd`: the
softmax-smoothed worst-group loss of a linear model, with public group sizes
``N_g``, replace-one neighbours and ``n`` public. Each of its ``T`` steps

1. keeps each row independently with probability ``q`` (the sample is drawn
   from the fit's private generator: it is part of the mechanism);
2. releases the SUM over the kept rows of the per-row vectors
   ``u_i = (w_{g_i} / w_max) clip_C(r_i a_i)`` plus ``N(0, (z C)**2 I)``,
   where ``clip_C`` scales the row's logistic gradient to norm at most
   ``C``, ``w_g = p_g / N_g`` are the group weights of the smoothed max and
   ``w_max = max_g w_g`` (public: ``p`` is post-processing of released
   losses), so one record's contribution has norm at most ``C``;
3. steps along ``w_max / q`` times the released sum, an unbiased estimate
   of the weighted gradient ``sum_i w_{g_i} clip_C(r_i a_i)`` (for one group,
   the sum divided by the expected batch size ``q n``).

Privacy: each step is the Poisson-subsampled Gaussian mechanism with noise
multiplier ``z`` (sensitivity ``C`` of one record's contribution), whose
privacy is amplified by the sampling (Abadi et al. 2016, Thm 1; Balle,
Barthe and Gaboardi 2018, "Privacy amplification by subsampling", for the
replace-one relation; Zhu, Dong and Wang 2022, "Optimal accounting of
differential privacy via characteristic function", for the PLD composition).
The other releases of the fit are plain Gaussian mechanisms, as in
``noisy_gd``: the mean clipped row (centring, with an intercept) and, with
``m > 1`` groups, the clipped group losses on the FULL data, ``LOSS_RELEASES``
times (their GDP shares ``CENTER_SHARE`` and ``LOSS_SHARE`` of the solver's
``mu``). All of them and the ``T`` subsampled steps are composed by privacy
loss distributions in the fit's ledger (Koskela, Jälkö and Honkela 2020;
Doroshenko et al. 2022, "Connect the dots"); ``z`` is the smallest noise
multiplier for which the whole ledger spends at most the fit's epsilon at
its delta (:func:`noise_multiplier_within`, a root search on the ledger's
own composition), so the fit spends its epsilon exactly.

Compute: about ``q T`` passes over the rows (``SAMPLING_PASSES`` by default)
plus one pass per group-loss release, against ``T`` passes for
``noisy_gd``. Only the sampled rows are gathered (``X[idx]``); ``X`` is
never copied.
"""

from functools import lru_cache
import math

import numpy as np

from ...privacy.accounting import PrivacyLedger, approx_dp_to_gdp
from ..losses.classification import lipschitz, loss_and_residual
from ..spec import Option, SolverResult
from .common import softmax_np
from .euclidean import (CLIP_RATIO, LOSS_RELEASES, LOSS_SHARE, _Averager, _centre,
                        _clipped_residual, _intercept, _loss_clip, _loss_sensitivity, _project,
                        _release_losses, _steps, _temperature, _to_host, auto_iterations,
                        reference_logits)

__all__ = ["dpsgd_poisson", "noise_multiplier_within", "sampling_rate", "DPSGD_POISSON_OPTIONS"]

SAMPLING_PASSES = 4.0  # default q T: the expected number of passes over the rows
ROOT_TOL = 1e-8        # the calibrated ledger spends within this of the fit's epsilon

DPSGD_POISSON_OPTIONS = (
    Option("sampling_rate", "float", None, low=0, high=1, low_open=True,
           doc=f"Poisson sampling rate q (None: min(1, {SAMPLING_PASSES:g} / T), "
               f"about {SAMPLING_PASSES:g} passes over the rows)"),
)


def sampling_rate(option, steps, passes=SAMPLING_PASSES):
    """The Poisson sampling rate: ``option``, or ``min(1, passes / steps)``.

    Examples
    --------
    >>> sampling_rate(None, 200), sampling_rate(0.5, 200), sampling_rate(None, 2)
    (0.02, 0.5, 1.0)
    """
    return float(option) if option is not None else min(1.0, passes / steps)


def noise_multiplier_within(entries, planned, q, steps, epsilon, delta):
    """Smallest noise multiplier ``z`` that keeps a ledger within (epsilon, delta).

    The ledger is ``entries`` (what the fit has released), the Gaussian
    mechanisms ``planned`` (``(sensitivity, sigma, count)`` triples, released
    later) and ``steps`` Poisson-subsampled Gaussian releases at rate ``q``
    and noise multiplier ``z``; its epsilon at ``delta`` is the ledger's own
    composition (PLD when a subsampled part is present) and decreases in
    ``z``. A root search in ``log z`` (Illinois regula falsi, from a
    bracket around the central-limit guess :func:`_clt_guess`) returns the ``z`` whose ledger spends between ``epsilon - ROOT_TOL``
    and ``epsilon``; it raises ``ValueError`` when the other parts alone
    leave nothing. Everything it reads is public, so it is
    cached.

    Examples
    --------
    >>> z = noise_multiplier_within([], [], 0.1, 20, 1.0, 1e-6)
    >>> ledger = PrivacyLedger()
    >>> ledger.subsampled_gaussian(1.0, z, 0.1, count=20)
    >>> 1.0 - 1e-6 < ledger.spent(1e-6)[0] <= 1.0
    True
    """
    return _calibrate(tuple(entries), tuple(tuple(float(v) for v in p) for p in planned),
                      float(q), int(steps), float(epsilon), float(delta))


@lru_cache(maxsize=128)
def _calibrate(entries, planned, q, steps, epsilon, delta):
    others = PrivacyLedger(list(entries))
    for sens, sigma, count in planned:
        others.gaussian(sens, sigma, count=int(count))
    if others.entries and others.spent(delta)[0] >= epsilon:
        raise ValueError("no privacy budget left for the subsampled gradient steps.")

    def excess(log_z):
        ledger = PrivacyLedger(list(others.entries))
        ledger.subsampled_gaussian(1.0, math.exp(log_z), q, count=steps)
        return ledger.spent(delta)[0] - epsilon

    lo = hi = math.log(_clt_guess(q, steps, epsilon, delta))
    f_lo = f_hi = excess(lo)
    while f_hi > 0:
        if hi > math.log(1e6):
            raise ValueError("no privacy budget left for the subsampled gradient steps.")
        lo, f_lo = hi, f_hi
        hi, f_hi = hi + math.log(2.0), excess(hi + math.log(2.0))
    while f_lo <= 0:
        hi, f_hi = lo, f_lo
        lo, f_lo = lo - math.log(2.0), excess(lo - math.log(2.0))
    side = 0
    for _ in range(100):
        if -ROOT_TOL <= f_hi or hi - lo < 1e-12:
            break
        mid = hi - f_hi * (hi - lo) / (f_hi - f_lo)
        f_mid = excess(mid)
        if f_mid > 0:
            lo, f_lo = mid, f_mid
            f_hi, side = (f_hi / 2, side) if side == 1 else (f_hi, 1)
        else:
            hi, f_hi = mid, f_mid
            f_lo, side = (f_lo / 2, side) if side == -1 else (f_lo, -1)
    return math.exp(hi)


def _clt_guess(q, steps, epsilon, delta):
    """Start of the search: ``z`` with ``q sqrt(T (exp(1/z**2) - 1)) = mu(epsilon, delta)``.

    The central-limit GDP approximation of ``T`` subsampled Gaussian steps
    (Bu, Dong, Long and Su 2020, "Deep learning with Gaussian differential
    privacy", Thm 5); only a starting point, never a privacy claim.
    """
    mu = approx_dp_to_gdp(epsilon, delta)
    return 1.0 / math.sqrt(math.log1p(mu * mu / (q * q * steps)))


def dpsgd_poisson(problem, budget, options):
    """Poisson-subsampled DP-SGD on the smoothed worst-group loss (see module doc).

    Parameters
    ----------
    problem : MinimaxProblem
        As for :func:`~skdp.solvers.minimax.euclidean.noisy_gd`; ``n_iter``
        counts steps (``'auto'``: :func:`auto_iterations`, as ``noisy_gd``).
    budget : Budget
        ``budget.mu``: the GDP share of the Gaussian parts (centring and
        group losses, as in ``noisy_gd``); the gradient steps get what the
        ledger leaves of ``(budget.epsilon, budget.delta)``.
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
    data, sizes = problem.data, problem.sizes
    backend = budget.release.backend
    xp = backend.xp
    m = data.n_groups
    T = auto_iterations(data.n, budget.mu) if problem.n_iter == "auto" else int(problem.n_iter)
    q = sampling_rate(options["sampling_rate"], T)
    data, mu = _centre(data, budget.mu, budget.release)
    every = max(1, math.ceil(T / LOSS_RELEASES))
    releases = math.ceil(T / every) if m > 1 else 0
    mu_loss = mu * math.sqrt(LOSS_SHARE / max(releases, 1))
    loss_clip = _loss_clip(data.k, data.n_classes)
    loss_sens = _loss_sensitivity(loss_clip, sizes)
    z = _noise_multiplier(budget, loss_sens, mu_loss, releases, q, T)
    W, b, p_avg = _run(problem, budget, data, (T, q, z, every, loss_clip, loss_sens, mu_loss))
    return SolverResult(solution=(W, _intercept(data, W, b)), n_iter=T,
                        info=dict(group_weights=np.asarray(_to_host(xp, p_avg)),
                                  sampling_rate=q, noise_multiplier=z))


def _noise_multiplier(budget, loss_sens, mu_loss, releases, q, T):
    if math.isinf(budget.mu):
        return 0.0
    planned = [(loss_sens, loss_sens / mu_loss, releases)] if releases else []
    return noise_multiplier_within(budget.ledger.entries, planned, q, T, budget.epsilon,
                                   budget.delta)


def _run(problem, budget, data, plan):
    """The ``T`` steps; returns the averaged ``(W, b, p)`` of the last half."""
    T, q, z, every, loss_clip, loss_sens, mu_loss = plan
    backend = budget.release.backend
    xp, sizes = backend.xp, np.asarray(problem.sizes, dtype=float)
    clip = CLIP_RATIO * lipschitz(data.k) * data.augmented_bound
    step, step_b = _steps(data)
    W = xp.zeros((data.k, data.p), dtype=data.X.dtype)
    b = xp.zeros((data.k,), dtype=data.X.dtype)
    prior = reference_logits(sizes, problem.reference)
    p, total, n_released = softmax_np(prior), None, 0
    avg = _Averager(T)
    for t in range(T):
        if data.n_groups > 1 and t % every == 0:
            loss, _ = loss_and_residual(data.margins(W, b), data.targets, xp)
            noisy, sigma_loss = _release_losses(data, loss, loss_clip, loss_sens, mu_loss, sizes,
                                                budget.release)
            total = noisy if total is None else total + noisy
            n_released += 1
            p = softmax_np(prior + total / n_released / _temperature(sigma_loss, n_released))
        weights = p / sizes
        gw, gb = _noisy_step(budget, data, W, b, weights, (q, z, clip))
        W, b = _project(W - step * gw, b - step_b * gb, problem.radius, xp)
        avg.add(t, W, b, backend.asarray(p))
        if problem.verbose:
            print(f"[dpsgd_poisson] step {t + 1}/{T} q={q:.3g} noise multiplier={z:.3g} "
                  f"weights={np.round(p, 3)}")
    return avg.mean()


def _noisy_step(budget, data, W, b, weights, plan):
    """The released gradient estimate ``(w_max / q) (sum_{i in S} u_i + N(0, (z C)**2 I))``."""
    q, z, clip = plan
    backend = budget.release.backend
    xp = backend.xp
    batch = data.subset(budget.poisson_sample(data.n, q))
    top = float(weights.max())
    _, r = loss_and_residual(batch.margins(W, b), batch.targets, xp)
    v = batch.onehot @ backend.asarray(weights / top, dtype=data.X.dtype)
    gw, gb = batch.gradient(v[:, None] * _clipped_residual(batch, r, clip))
    flat = xp.concat([xp.reshape(gw, (-1,)), gb])
    flat = budget.subsampled_gaussian(flat, clip, z * clip, q, label="subsampled gradient sum")
    flat = flat * (top / q)
    k, p = gw.shape
    return xp.reshape(flat[:k * p], (k, p)), flat[k * p:]
