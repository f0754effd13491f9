"""Private quantiles of per-example values (issue 18: the clip from the gradient norms).

Adaptive clipping (Andrew, Thakkar, McMahan, Ramaswamy 2021, "Differentially
private learning with adaptive clipping", NeurIPS) sets the clip from a
private estimate of a quantile of the per-example gradient norms, released as
a noisy count of the norms below a threshold. Two releases are offered here,
both Gaussian mechanisms drawn and recorded through a
:class:`~skdp.privacy.budget.Budget` (so they compose with the rest of a fit,
in zCDP or, when every release of the fit is Gaussian, in Gaussian DP):

* :func:`noisy_fraction_below`: Andrew et al.'s query, ``#{i : v_i <= C}``
  plus ``N(0, sigma**2)``, divided by ``n``. Under replace-one adjacency (``n``
  public) one row moves the count by at most 1: l2-sensitivity 1 (their
  Section 3 uses add/remove adjacency, also 1).
* :func:`private_quantile`: a one-shot release on a public grid ``g_1 < ... <
  g_K``: the histogram of the values over the ``K + 1`` cells ``(-inf, g_1],
  (g_1, g_2], ..., (g_K, inf)`` plus ``N(0, sigma**2 I)``. Replacing one row
  takes 1 from one cell and adds 1 to another: l2-sensitivity ``sqrt(2)``
  whatever ``K`` (the vector of ``K`` threshold counts would have ``sqrt(K)``).
  The quantile is read from the noisy cumulative counts (post-processing):
  the smallest grid point whose noisy fraction at or below it reaches ``q``.
  This departs from Andrew et al.'s geometric update (one count per step,
  along the run) by spending one release before the run, at the start point.

This module knows nothing of solvers: it takes an array of values and a
budget.
"""

import math

__all__ = ["noisy_fraction_below", "private_quantile", "private_quantile_of_counts",
           "cell_counts", "FRACTION_SENSITIVITY", "HISTOGRAM_SENSITIVITY"]

FRACTION_SENSITIVITY = 1.0               # a count below a threshold, replace-one
HISTOGRAM_SENSITIVITY = math.sqrt(2.0)   # a histogram, replace-one: one cell -1, another +1


def noisy_fraction_below(values, threshold, budget, rho, *, label="fraction below threshold"):
    """``(#{i : values_i <= threshold} + N(0, sigma**2)) / n`` at a cost of ``rho``.

    Andrew et al. 2021, Alg. 1 (the noisy count ``b_t``); l2-sensitivity
    ``FRACTION_SENSITIVITY = 1`` (replace-one), ``sigma = 1 / sqrt(2 rho)``
    (Bun–Steinke 2016, Prop. 1.6; ``1/sigma``-GDP).

    Parameters
    ----------
    values : array of shape (n,)
        Per-example values (e.g. gradient norms), in the budget's namespace.
    threshold : float
        Public threshold.
    budget : Budget
        Draws and records the release (a filter: the cost must fit).
    rho : float
        zCDP cost of the release (ignored when the budget is not private).
    label : str, default="fraction below threshold"

    Returns
    -------
    fraction : float
        The noisy fraction (exact when the budget is not private).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> from skdp.privacy.budget import Budget
    >>> from skdp.privacy.release import Release
    >>> release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    >>> budget = Budget(1.0, 1e-6, rho=0.5, release=release)
    >>> f = noisy_fraction_below(np.arange(1000.0), 499.5, budget, 0.5)
    >>> round(abs(f - 0.5), 2) <= 0.01, budget.remaining
    (True, 0.0)
    """
    xp = budget.backend.xp
    n = int(values.shape[0])
    count = xp.sum(xp.astype(values <= threshold, values.dtype))
    sigma = budget.sigma(FRACTION_SENSITIVITY, rho)
    noisy = budget.gaussian(xp.reshape(count, (1,)), FRACTION_SENSITIVITY, sigma, label=label)
    return float(noisy[0]) / n


def private_quantile(values, q, grid, budget, rho, *, label="quantile histogram"):
    """The smallest point of a public grid whose noisy fraction of values up to it is ``>= q``.

    One Gaussian release of the histogram of ``values`` over the cells cut
    by ``grid`` (l2-sensitivity ``HISTOGRAM_SENSITIVITY = sqrt(2)`` under
    replace-one, ``sigma = sqrt(2) / sqrt(2 rho)``: ``rho``-zCDP, Bun–Steinke
    Prop. 1.6), then post-processing: the noisy cumulative fractions ``F_k``
    (the noisy counts of the cells up to ``grid[k]``, over ``n``) and the
    first ``grid[k]`` with ``F_k >= q`` (the last grid point if none). See
    the module docstring for the departure from Andrew et al. 2021.

    Parameters
    ----------
    values : array of shape (n,)
        Per-example values, in the budget's namespace.
    q : float
        Target quantile, in (0, 1).
    grid : sequence of float
        Public, increasing candidates.
    budget : Budget
        Draws and records the release.
    rho : float
        zCDP cost of the release (ignored when the budget is not private).
    label : str, default="quantile histogram"

    Returns
    -------
    value : float
        The chosen grid point.
    fractions : list of float
        The noisy cumulative fractions ``F_k`` (public: post-processing).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> from skdp.privacy.budget import Budget
    >>> from skdp.privacy.release import Release
    >>> release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    >>> budget = Budget(1.0, 1e-6, rho=1.0, release=release)
    >>> values = np.linspace(0.0, 1.0, 10001)
    >>> private_quantile(values, 0.8, [0.2, 0.4, 0.6, 0.8, 1.0], budget, 1.0)[0]
    0.8
    """
    xp = budget.backend.xp
    grid = _check_grid(grid)
    return private_quantile_of_counts(cell_counts(values, grid, xp), int(values.shape[0]), q,
                                      grid, budget, rho, label=label)


def cell_counts(values, grid, xp):
    """Counts of ``values`` in the cells ``(-inf, g_1], (g_1, g_2], ..., (g_K, inf)``.

    An array of ``K + 1`` counts in the dtype of ``values``: a sum over the
    values, so the counts of blocks of values add up to the counts of all
    (the histogram of a partitioned table is a reduction).

    Examples
    --------
    >>> import numpy as np
    >>> cell_counts(np.array([0.1, 0.5, 0.5, 2.0]), [0.2, 1.0], np).tolist()
    [1.0, 2.0, 1.0]
    """
    n = int(values.shape[0])
    below = [xp.sum(xp.astype(values <= g, values.dtype)) for g in grid]
    cells = xp.stack(below + [xp.ones_like(below[0]) * n])
    return xp.concat([cells[:1], cells[1:] - cells[:-1]])


def private_quantile_of_counts(counts, n, q, grid, budget, rho, *, label="quantile histogram"):
    """:func:`private_quantile` from the histogram :func:`cell_counts` of ``n`` values.

    For values held in blocks (partitions of a table): their counts are
    summed first; the release and what follows are those of
    :func:`private_quantile`, which calls this.

    Parameters
    ----------
    counts : array of shape (len(grid) + 1,)
        Exact counts of the values in the cells cut by ``grid``.
    n : int
        Number of values (public).
    q, grid, budget, rho, label
        As in :func:`private_quantile`.

    Returns
    -------
    value : float
    fractions : list of float

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> from skdp.privacy.budget import Budget
    >>> from skdp.privacy.release import Release
    >>> release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    >>> budget = Budget(1.0, 1e-6, rho=1.0, release=release)
    >>> counts = np.array([100.0, 9000.0, 900.0])
    >>> private_quantile_of_counts(counts, 10000, 0.5, [0.1, 0.9], budget, 1.0)[0]
    0.9
    """
    xp = budget.backend.xp
    grid = _check_grid(grid)
    sigma = budget.sigma(HISTOGRAM_SENSITIVITY, rho)
    noisy = budget.gaussian(counts, HISTOGRAM_SENSITIVITY, sigma, label=label)
    fractions = [float(v) / n for v in xp.cumulative_sum(noisy)[:-1]]
    chosen = next((g for g, f in zip(grid, fractions) if f >= q), grid[-1])
    return chosen, fractions


def _check_grid(grid):
    grid = [float(g) for g in grid]
    if any(b <= a for a, b in zip(grid, grid[1:])):
        raise ValueError("grid must be increasing.")
    return grid
