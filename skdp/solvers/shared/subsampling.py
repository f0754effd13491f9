"""Poisson subsampling facts shared by the solver families that run DP-SGD.

``dpsgd_poisson`` exists for the classifier (:mod:`skdp.solvers.minimax.subsampled`)
and for the regressor (:mod:`skdp.solvers.kl.subsampled`); both take the same
option, the same default sampling rate and the same size rule of the estimators'
``'auto'`` (in their specs' ``auto_from``: from ``AUTO_SUBSAMPLE`` cells or from
``AUTO_ROWS_*`` rows). They live here, below the families, so that neither imports the other.
"""

from ..spec import Option

__all__ = ["AUTO_SUBSAMPLE", "AUTO_ROWS_REGRESSOR", "AUTO_ROWS_CLASSIFIER", "SAMPLING_PASSES",
           "DPSGD_POISSON_OPTIONS", "sampling_rate"]

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
