"""Poisson subsampling facts shared by the solver families that run DP-SGD.

``dpsgd_poisson`` exists for the classifier (:mod:`skdp.solvers.minimax.subsampled`)
and for the regressor (:mod:`skdp.solvers.kl.subsampled`); both take the same
option, the same default sampling rate and the same size rule of the estimators'
``'auto'`` (in their specs' ``auto_from``: from ``AUTO_SUBSAMPLE`` cells or from
``AUTO_ROWS_*`` rows). They live here, below the families, so that neither imports the other.
"""

from ...privacy.ledger import subsampled_noise_within
from ..spec import Option

__all__ = ["AUTO_SUBSAMPLE", "AUTO_ROWS_REGRESSOR", "AUTO_ROWS_CLASSIFIER", "SAMPLING_PASSES",
           "DPSGD_POISSON_OPTIONS", "sampling_rate", "planned_noise_multiplier"]

AUTO_SUBSAMPLE = 1e7  # n_samples * n_features from which the estimators' 'auto' runs it
# rows from which the estimators' 'auto' runs it whatever n_features (issue 31): measured on
# the real-table suite's validation split (benchmarks/auto_rows.py, benchmarks/RESULTS.md)
AUTO_ROWS_REGRESSOR = 50_000
AUTO_ROWS_CLASSIFIER = 100_000
SAMPLING_PASSES = 4.0  # default q T: the expected number of passes over the rows

DPSGD_POISSON_OPTIONS = (
    Option("sampling_rate", "float", None, low=0, high=1, low_open=True,
           doc=f"Poisson sampling rate q (None: min(1, {SAMPLING_PASSES:g} / T), about "
               f"{SAMPLING_PASSES:g} passes over the rows; 1 at epsilon = inf)"),
)


def sampling_rate(option, steps, private=True, passes=SAMPLING_PASSES):
    """The Poisson sampling rate: ``option``, or ``min(1, passes / steps)``; 1 when not private.

    A non-private fit (epsilon = inf) has no noise to amplify: its default is
    the full batch (exact gradient steps).

    Examples
    --------
    >>> sampling_rate(None, 200), sampling_rate(0.5, 200), sampling_rate(None, 2)
    (0.02, 0.5, 1.0)
    >>> sampling_rate(None, 200, private=False)
    1.0
    """
    if option is not None:
        return float(option)
    return min(1.0, passes / steps) if private else 1.0


def planned_noise_multiplier(budget, sampling_rate, steps, clip, *, label):
    """The steps' noise multiplier ``z``, calibrated on the ledger, and the plan declared.

    ``z`` is the smallest noise multiplier for which the fit's ledger (what
    ``budget`` has recorded) with ``steps`` Poisson-subsampled Gaussian steps
    at rate ``sampling_rate`` spends at most ``budget.epsilon`` at
    ``budget.delta`` (:func:`~skdp.privacy.ledger.subsampled_noise_within`,
    PLD composition); the ``steps`` releases of sensitivity ``clip`` at noise
    ``z clip`` are then declared to the budget's filter
    (:meth:`Budget.plan_subsampled <skdp.privacy.budget.Budget.plan_subsampled>`:
    verified once, refused if they would overspend), so that the steps
    themselves run no further composition. The solver must release exactly
    ``budget.subsampled_gaussian(value, clip, z * clip, sampling_rate, ...)``.
    Returns 0 when the budget is not private (no plan).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.budget import Budget
    >>> budget = Budget.for_fit(Backend.from_arrays(np.zeros(1), random_state=0), 1.0, 1e-6,
    ...                         rho=0.1)
    >>> z = planned_noise_multiplier(budget, 0.04, 100, 1.0, label="step")
    >>> for _ in range(100):
    ...     _ = budget.subsampled_gaussian(np.zeros(2), 1.0, z, 0.04, label="step")
    >>> 1.0 - 1e-6 < budget.recorded().spent(1e-6)[0] <= 1.0
    True
    """
    if not budget.private:
        return 0.0
    z = subsampled_noise_within(budget.recorded().entries, [], sampling_rate, steps,
                                budget.epsilon, budget.delta)
    budget.plan_subsampled(clip, z * clip, sampling_rate, steps, label=label)
    return z
