"""Poisson-subsampled DP-SGD for the regressor's clipped objective.

``dpsgd_poisson`` is DP-SGD (Abadi et al. 2016, "Deep learning with
differential privacy", CCS, Alg. 1) with Poisson sampling, on the clipped
empirical objective of :class:`~skdp.solvers.kl.problem.Objective` (squared,
Huber or any smooth loss; linear or MLP model). Each of its ``T`` steps keeps
each row with probability ``q`` (a draw from the fit's private generator,
part of the mechanism), releases the SUM over the kept rows of the per-row
gradients clipped to norm ``C`` plus ``N(0, (z C)**2 I)``, divides it by the
expected batch size ``q n`` (public), adds the ridge term ``alpha w``
(data-independent) and steps by ``1 / L1`` as ``noisy_gd``. The released
point is the mean of the last half of the iterates (suffix averaging,
Shamir & Zhang 2013, as ``adaptive_gd``; post-processing) for runs of at
least ``AVERAGE_MIN_STEPS`` steps.

Privacy: each step is the Poisson-subsampled Gaussian mechanism with noise
multiplier ``z`` and one record's contribution bounded by ``C`` (Abadi et
al. 2016, Thm 1; Balle, Barthe and Gaboardi 2018 for replace-one
neighbours); the ``T`` steps and the fit's other releases (the private
preconditioner, a Gaussian mechanism) are composed by privacy loss
distributions in the fit's ledger, and ``z`` is the smallest noise
multiplier for which the ledger spends at most the fit's epsilon at its
delta (:func:`~skdp.privacy.ledger.subsampled_noise_within`),
so the fit spends its epsilon exactly; the ``T`` steps are declared to the
budget's filter before the first (:meth:`Budget.plan_subsampled
<skdp.privacy.budget.Budget.plan_subsampled>`: one composition verifies them).
The zCDP share ``budget.rho`` is not used: the subsampled Gaussian is
calibrated on the ledger's PLD total.

Compute: about ``q T`` passes over the rows (``SAMPLING_PASSES``); only the
sampled rows are read, ``X`` is never copied (a linear model on NumPy input reads a
batch in cache-sized blocks, :meth:`Objective.clipped_sum
<skdp.solvers.kl.problem.Objective.clipped_sum>`; elsewhere the batch is gathered,
``X[idx]``). With the private
preconditioner ``P``, the clip reads each batch row's norm ``||[x, c] P||`` from
an upper bound (the preconditioner's
:class:`~skdp.solvers.kl.preconditioner.NormBound`, ``p (k + 1)`` per row) and
computes the exact norm only for the rows that bound does not keep within the
clip (:meth:`Objective.clip_sq_norms
<skdp.solvers.kl.problem.Objective.clip_sq_norms>`: the clipped sums are those
of the exact norms), not the product with ``P`` over all rows (issue 31).
"""

from ..shared.subsampling import DPSGD_POISSON_OPTIONS, planned_noise_multiplier, sampling_rate
from ..spec import SolverResult
from .gd import AVERAGE_MIN_STEPS, suffix_start
from .problem import Objective

__all__ = ["dpsgd_poisson", "DPSGD_POISSON_STEPS", "DPSGD_POISSON_OPTIONS"]

DPSGD_POISSON_STEPS = 100  # default T (max_iter None): benchmarks/RESULTS.md
_LABEL = "subsampled gradient sum"


def dpsgd_poisson(problem, budget, options):
    """Poisson-subsampled DP-SGD with suffix averaging (see module doc).

    Parameters
    ----------
    problem : KLProblem
        ``config.max_iter`` is ``T`` (None: ``DPSGD_POISSON_STEPS``);
        ``config.clip`` is ``C``; ``config.smoothness`` sets the step ``1/L1``.
    budget : Budget
        The fit's (epsilon, delta), its release path and ledger (which holds
        the preconditioner's release).
    options : dict
        ``sampling_rate`` (None: ``min(1, SAMPLING_PASSES / T)``, 1 at epsilon = inf).

    Returns
    -------
    SolverResult
        ``history``: one entry per step (public: ``q``, ``z``, ``sigma``).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp import KLAdaptiveRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 3)) / 2
    >>> y = np.clip(X @ np.array([1.0, -1.0, 0.5]), -1, 1)
    >>> reg = KLAdaptiveRegressor(solver="dpsgd_poisson", random_state=0).fit(X, y)
    >>> reg.n_iter_, reg.privacy_ledger_.spent(1e-6)[1]
    (100, 'pld')
    """
    obj, w, cfg = problem.objective, problem.w0, problem.config
    T = int(cfg.max_iter or DPSGD_POISSON_STEPS)
    q = sampling_rate(options["sampling_rate"], T, budget.private)
    z = planned_noise_multiplier(budget, q, T, cfg.clip, label=_LABEL)  # 0 when not private
    eta = 1.0 / (2.0 * cfg.smoothness) if cfg.theory else 1.0 / cfg.smoothness
    iterates, history = [w], []
    for t in range(T):
        total = _clipped_sum(obj, w, budget.poisson_sample(obj.n, q), cfg.clip)
        noisy = budget.subsampled_gaussian(total, cfg.clip, z * cfg.clip, q, label=_LABEL)
        w = w - eta * (noisy / (q * obj.n) + obj.alpha * w)
        iterates.append(w)
        history.append(dict(step=t, sampling_rate=q, noise_multiplier=z, sigma=z * cfg.clip))
        if cfg.verbose and t % max(T // 10, 1) == 0:
            print(f"dpsgd_poisson step {t}/{T}, q={q:.3g}, noise multiplier={z:.3g}",
                  flush=True)
    if budget.private and T >= AVERAGE_MIN_STEPS:
        tail = iterates[suffix_start(T):]
        w = sum(tail[1:], tail[0]) / len(tail)
    return SolverResult(solution=w, n_iter=T, history=history,
                        info=dict(sampling_rate=q, noise_multiplier=z))


def _clipped_sum(obj, w, idx, clip):
    """Sum over the rows ``idx`` of the per-row gradients clipped to norm ``clip``."""
    xp = obj.xp
    if idx.shape[0] == 0:  # an empty Poisson sample: the sum is zero (only noise is released)
        return xp.zeros_like(w)
    if isinstance(obj, Objective) and obj.blockwise():
        return obj.clipped_sum(w, idx, clip)
    batch = obj.rows(idx, alpha=0.0)
    return batch.clipped_grad(w, clip) * batch.n
