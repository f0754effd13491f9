"""The private domain mechanisms of the synthesizer, each one Gaussian release through
:class:`~skdp.privacy.budget.Budget` (:meth:`Budget.gaussian_gdp
<skdp.privacy.budget.Budget.gaussian_gdp>`; Bun–Steinke 2016 Prop. 1.6), then post-processing.

- :func:`find_domains`: categories (above a stability threshold) and numeric
  ranges of the columns whose kind alone is public (:func:`private_domains`);
- :func:`measure_domains`: large public domains shrunk from 1-way counts:
  :func:`compress_columns` merges the rare categories of a column with many
  public categories into one cell (MST, McKenna, Miklau, Sheldon 2021, §4),
  :func:`quantile_bins` puts a numeric column's bin edges at the quantiles of
  noisy counts on a fine public grid. Which columns are treated
  (:func:`to_compress`, :func:`to_quantile`) is public;
- :func:`fine_grids`: every numeric column's counts on its fine public grid
  (:mod:`skdp._domain.fine`), which place the decoded values within the
  model's coarse bins (:func:`to_fine`: which columns, public), and, in the
  same Gaussian mechanism, the spikes of the grids of equal cells: a
  stability-based histogram of their exact values, or an integer column's counts of
  every integer inside its bounds (public candidates; :func:`fine_release`).

The thresholded (stability-based) histograms of :func:`find_domains` and
:func:`fine_release` share :func:`stability_threshold`.
"""

import math

import numpy as np
from scipy import special

from ..privacy.ledger import gaussian_sigma
from ..solvers.synth.marginals import replace_one_sensitivity
from .fine import (auto_cells, even_edges, fine_grid, has_fine_grid, project_nonnegative,
                   public_threshold, refine_splits)
from .fine_bins import CELLS_PER_BIN
from .values import OTHER, _as_float, _canonical, _counts, missing_mask

__all__ = ["QUANTILE_GRID", "auto_share", "compress_columns", "compress_counts", "find_domains",
           "fine_counts", "fine_grids", "fine_noise", "fine_release", "gaussian_share",
           "grid_cells", "key_delta", "measure_domains", "merge_spike_keys", "private_domains",
           "quantile_bins", "quantile_counts", "quantile_grid", "refine_release",
           "spike_keys", "stability_threshold", "sub_counts", "to_compress", "to_fine",
           "to_quantile"]


def gaussian_share(fit, rho):
    """The share of ``fit`` spent by one Gaussian release of ``rho``-zCDP: ``sqrt(2 rho)``-GDP.

    A Gaussian mechanism is ``rho``-zCDP exactly when it is ``sqrt(2 rho)``-GDP
    (Bun–Steinke 2016 Prop. 1.6; Dong–Roth–Su 2022 Thm 2.7), so the share's GDP
    filter admits that release and nothing more; it is recorded even when not
    private (``rho = inf``: no noise, an infinite cost).
    """
    return fit.share(rho, mu=math.sqrt(2.0 * rho))


def _count_noise(n_columns, rho, neighbouring):
    """l2-sensitivity, noise and replace-one sensitivity of ``n_columns`` stacked 1-way counts
    released at ``rho``-zCDP: a row moves at most two counts of each column (replace-one; one
    under add/remove), so ``sqrt(2 d)`` (``sqrt(d)``, recording ``sqrt(2 d)`` as its
    replace-one sensitivity); ``sigma = sensitivity / sqrt(2 rho)`` (Bun–Steinke 2016
    Prop. 1.6)."""
    sens = math.sqrt((2.0 if neighbouring == "replace_one" else 1.0) * n_columns)
    sigma = gaussian_sigma(sens, rho) if not math.isinf(rho) else 0.0
    return sens, sigma, replace_one_sensitivity(sens, neighbouring)


def find_domains(columns, values, rho, delta_thr, fit, neighbouring):
    """DP domains of ``columns`` (budget ``rho``-zCDP plus ``delta_thr`` for thresholding).

    One Gaussian histogram per column (Bun–Steinke 2016 Prop. 1.6): a row
    moves at most two counts of each (replace-one; one under add/remove),
    so the stacked histograms have l2-sensitivity ``sqrt(2 d)`` (``sqrt(d)``; the
    release then records ``sqrt(2 d)`` as its replace-one sensitivity, for a
    replace-one budget's conversion); a missing value counts in no histogram.
    Categories are released above a threshold (stability-based histogram): a
    category held by one row passes with probability ``delta_thr / #categorical
    columns`` (an ``approx`` part: a replace-one budget converts it by group
    privacy, ``(0, 2 delta_thr)``), charged to ``fit`` through
    :meth:`~skdp.privacy.budget.Budget.approx_dp`.

    Parameters
    ----------
    columns : list of Column
    values : list of arrays
        Each column's values (missing ones included).
    rho : float
        zCDP share of the release.
    delta_thr : float
        The thresholding's delta.
    fit : Budget
        The fit's budget; the release spends :func:`gaussian_share` of it.
    neighbouring : {'replace_one', 'add_remove'}

    Returns
    -------
    empty : dict
        Column name -> the noisy count (rows, public) that a category or range bin of the
        column had to pass, for the columns whose release kept none (post-processing: no
        category but :data:`OTHER`; no range bin, so the bounds ``[0, 1]``).
    """
    sens, sigma, replace_sens = _count_noise(len(columns), rho, neighbouring)
    n_thr = sum(c.categorical for c in columns)
    threshold = 0.0
    if n_thr:
        # a category held by one record is released w.p. P[1 + N(0, s^2) > threshold]
        threshold = stability_threshold(sigma, delta_thr / n_thr)
    empty = private_domains(columns, [v[~missing_mask(v)] for v in values],
                            gaussian_share(fit, rho), sens, sigma, threshold,
                            replace_sensitivity=replace_sens)
    if n_thr:
        fit.approx_dp(0.0, delta_thr, label="category thresholding")
    return empty


def stability_threshold(sigma, key_delta):
    """The threshold of a stability-based Gaussian histogram: a key held by one record
    (count 1) is released, ``1 + N(0, sigma**2)`` above it, with probability exactly
    ``key_delta``: ``1 + sigma * Phi^-1(1 - key_delta)``.

    A key absent from one of two neighbouring tables and held by one record of the other
    is released from that one with probability at most ``key_delta`` and never from the
    first: alone, a ``(0, key_delta)``-DP mechanism; the noisy counts of the keys both
    tables hold are a Gaussian mechanism. Composed (basic composition, Dwork–Roth 2014
    Thm 3.16), a release whose Gaussian part is ``(epsilon, delta_g)``-DP is ``(epsilon,
    delta_g + sum of the key_delta of the keys that can appear or vanish)``-DP: the
    standard stability-histogram argument (Korolova et al. 2009; Bun, Nissim, Stemmer
    2016), for Gaussian noise the bound that Wilkins, Kifer, Zhang, Karrer 2024 ("Exact
    privacy analysis of the Gaussian sparse histogram mechanism") analyse exactly.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> t = stability_threshold(10.0, 1e-7)
    >>> round(float(norm.sf(t - 1.0, scale=10.0)) / 1e-7, 6)
    1.0
    """
    return 1.0 + sigma * float(special.ndtri(1.0 - key_delta))


def key_delta(delta_thr, n_columns, neighbouring):
    """The probability ``key_delta`` at which a key held by one record may cross the
    threshold (:func:`stability_threshold`) so that ``n_columns`` thresholded histograms
    together cost ``delta_thr``: a record holds one key per column; under add/remove one
    key per column can appear (``delta_thr / d``), under replace-one one can vanish and
    another appear (``delta_thr / (2 d)``).

    Examples
    --------
    >>> key_delta(1e-7, 4, "add_remove"), key_delta(1e-7, 4, "replace_one")
    (2.5e-08, 1.25e-08)
    """
    return delta_thr / ((2.0 if neighbouring == "replace_one" else 1.0) * n_columns)


def measure_domains(columns, values, rho, measure, fit, neighbouring, *args, counts=None):
    """One Gaussian release (``rho``-zCDP) of the 1-way counts of ``columns`` by ``measure``
    (:func:`compress_columns` or :func:`quantile_bins`), on :func:`gaussian_share` of
    ``fit``: l2-sensitivity ``sqrt(2 d)`` (replace-one) or ``sqrt(d)`` (add/remove,
    recording ``sqrt(2 d)`` as its replace-one sensitivity) for ``d`` columns
    (Bun–Steinke 2016 Prop. 1.6). ``counts``: already summed (a Dask table), then
    ``values`` is not read."""
    sens, sigma, replace_sens = _count_noise(len(columns), rho, neighbouring)
    measure(columns, values, gaussian_share(fit, rho), sens, sigma, *args, counts=counts,
            replace_sensitivity=replace_sens)

_POW_MIN, _POW_MAX = -10, 40  # log-scale grid of the private range finder: +-2**k
QUANTILE_GRID = 16  # cells of the fine public grid per quantile bin
_KEEP_SIGMAS = 3.0  # MST (McKenna, Miklau, Sheldon 2021, §4): a value is kept above 3 sigma


def private_domains(columns, values, budget, sensitivity, sigma, threshold,
                    replace_sensitivity=None):
    """Domains of ``columns`` from one Gaussian release of their stacked counts.

    Each column's counts (per distinct value for a categorical column, on a
    fixed grid of +-2**k bins for a numeric one; missing values count in
    none) are stacked and released at once, ``counts + N(0, sigma**2 I)``,
    through ``budget`` (:meth:`Budget.gaussian_gdp
    <skdp.privacy.budget.Budget.gaussian_gdp>`: charged, drawn and recorded in
    one call, as one Gaussian mechanism of l2-sensitivity ``sensitivity``,
    Bun–Steinke 2016 Prop. 1.6, ``sensitivity / sigma``-GDP). Then, post-processing:
    categories whose noisy count exceeds ``threshold`` (plus
    :data:`OTHER`), and bounds from the noisy grid counts.

    Parameters
    ----------
    columns : list of Column
    values : list of arrays
        The present (non-missing) values of each column.
    budget : Budget
        The share of the fit's budget this release spends (its GDP filter).
    sensitivity, sigma : float
        l2-sensitivity of the stacked counts and the noise.
    threshold : float
        Categories' release threshold.
    replace_sensitivity : float, default=None
        Under add/remove: the counts' replace-one l2-sensitivity, recorded
        with the release (:meth:`~skdp.privacy.release.Release.gaussian`).

    Returns
    -------
    empty : dict
        Column name -> the level a category's or range bin's noisy count had to pass, for
        the columns that kept none (:func:`find_domains`).
    """
    counts = [_counts(v) if col.categorical else _range_counts(v, col.name)
              for col, v in zip(columns, values)]
    stacked = np.concatenate([c for _, c in counts]) if counts else np.zeros(0)
    noisy = budget.gaussian_gdp(stacked, sensitivity, sigma,
                                 label=f"domain counts of {len(columns)} columns",
                                 replace_sensitivity=replace_sensitivity)
    ends = np.cumsum([c.shape[0] for _, c in counts])
    empty = {}
    for col, (keys, _), part in zip(columns, counts, np.split(noisy, ends[:-1])):
        level = _keep_categories(col, keys, part, threshold) if col.categorical \
            else _keep_range(col, part, sigma)
        if level is not None:
            empty[col.name] = level
    return empty


def _keep_categories(col, keys, noisy, threshold):
    """The released categories: canonical values of the comparison keys
    (:func:`value_key`), so they do not depend on how the data spells them. Returns
    ``threshold`` when none is kept, else None."""
    col.categories = [_canonical(k) for k, s in zip(keys, noisy) if s > threshold] + [OTHER]
    col.source = "private"
    return threshold if len(col.categories) == 1 else None


def _grid():
    return np.concatenate([-(2.0 ** np.arange(_POW_MAX, _POW_MIN - 1, -1)), [0.0],
                           2.0 ** np.arange(_POW_MIN, _POW_MAX + 1)])


def _range_counts(values, name):
    edges = _grid()
    v = np.clip(_as_float(values, name), edges[0], edges[-1])
    return None, np.histogram(v, bins=edges)[0].astype(np.float64)


def _keep_range(col, noisy, sigma):
    """The released bounds: the ends of the grid bins kept (for an integer column the first
    and last integer they hold: ``[0, 1]`` for a 0/1 column, not ``[0, 2]``, whose 2 no row
    takes); ``[0, 1]`` when none is, and then the level a bin had to pass is returned (else
    None). Post-processing of the noisy counts."""
    edges = _grid()
    # a bin is kept when its noisy count clears the noise: a false positive
    # among the empty bins has probability about 1% in all
    level = sigma * float(special.ndtri(1.0 - 0.01 / noisy.size)) + 0.5
    kept = np.flatnonzero(noisy > level)
    col.source = "private"
    if kept.size == 0:
        col.low, col.high = 0.0, 1.0
        return level
    low, high = float(edges[kept[0]]), float(edges[kept[-1] + 1])
    if col.integer and math.ceil(low) < math.ceil(high):  # the bins hold an integer
        low, high = float(math.ceil(low)), float(math.ceil(high) - 1)
    col.low, col.high = low, high
    return None


# ---------------------------------------------------------------------------
# Measured domains of public columns: compression and quantile bins
# ---------------------------------------------------------------------------
def to_compress(columns, how, max_categories):
    """Indices of the columns to compress: public categories, more than ``max_categories``.

    Decided from public cardinalities and a public threshold only: the same
    for every table (categories found privately or derived are not compressed).
    """
    if max_categories is None:
        return []
    return [j for j, (c, h) in enumerate(zip(columns, how))
            if h == "public" and c.categorical and len(c.categories) > max_categories]


def to_quantile(columns, how, strategy):
    """Indices of the columns binned at private quantiles: numeric, public finite bounds,
    more than one bin (``strategy='quantile'``); public."""
    if strategy != "quantile":
        return []
    return [j for j, (c, h) in enumerate(zip(columns, how))
            if h == "public" and not c.categorical and c.n_bins > 1 and c.high > c.low
            and math.isfinite(c.high - c.low)]


def compress_columns(columns, values, budget, sensitivity, sigma, max_categories,
                     counts=None, replace_sensitivity=None):
    """Compress ``columns`` from one Gaussian release of their 1-way counts (MST's domain
    compression: McKenna, Miklau, Sheldon 2021, §4).

    The counts of every public category (missing values count in none) are
    stacked and released at once, ``counts + N(0, sigma**2 I)``, through
    ``budget`` (one Gaussian mechanism of l2-sensitivity ``sensitivity``:
    Bun–Steinke 2016 Prop. 1.6). Then, post-processing: the categories whose
    noisy count is positive and at least ``3 sigma`` keep a cell of their own (the
    ``max_categories - 1`` largest at most), the others share one merged cell,
    sampled back in proportion to their noisy counts clipped at 0.

    Parameters
    ----------
    columns : list of Column
        Categorical columns with public categories.
    values : list of arrays
        Each column's values (missing ones included).
    budget : Budget
        The share of the fit's budget this release spends (its GDP filter).
    sensitivity, sigma : float
        l2-sensitivity of the stacked counts and the noise.
    max_categories : int
        Most cells of a compressed column (the merged one included).
    counts : list of arrays, default=None
        The counts, when already summed (over the partitions of a Dask table,
        by :func:`compress_counts`); ``values`` is then not read.
    replace_sensitivity : float, default=None
        Under add/remove: the counts' replace-one l2-sensitivity, recorded
        with the release (:meth:`~skdp.privacy.release.Release.gaussian`).
    """
    counts = compress_counts(columns, [c.prepare(v) for c, v in zip(columns, values)]) \
        if counts is None else counts
    parts = _stacked_release(counts, budget, sensitivity, sigma, replace_sensitivity,
                             label=f"compression counts of {len(columns)} columns")
    for col, part in zip(columns, parts):
        above = np.flatnonzero((part >= _KEEP_SIGMAS * sigma) & (part > 0))
        top = np.argsort(-part[above], kind="stable")[:max_categories - 1]
        col.compress(above[top], part)


def quantile_bins(columns, values, budget, sensitivity, sigma, counts=None,
                  replace_sensitivity=None):
    """Bin edges of ``columns`` at the quantiles of one Gaussian release of their counts on a
    fine public grid.

    Each column's non-missing values, clipped to its public bounds, are counted
    on ``QUANTILE_GRID * n_bins`` equal cells; the stacked counts are released
    at once through ``budget`` (one Gaussian mechanism of l2-sensitivity
    ``sensitivity``: Bun–Steinke 2016 Prop. 1.6). Then, post-processing: the
    noisy counts projected onto the non-negative vectors of their total
    (:func:`~skdp._domain.fine.project_nonnegative`), spread uniformly within their cells, give a
    distribution whose ``k / n_bins`` quantiles are the inner edges (strictly
    increasing; equal bins when no noisy count is positive).

    Parameters
    ----------
    columns : list of Column
        Numeric columns with public finite bounds and ``n_bins > 1``.
    values : list of arrays
        Each column's values (missing ones included).
    budget : Budget
        The share of the fit's budget this release spends (its GDP filter).
    sensitivity, sigma : float
        l2-sensitivity of the stacked counts and the noise.
    counts : list of arrays, default=None
        The counts, when already summed (by :func:`quantile_counts`).
    replace_sensitivity : float, default=None
        Under add/remove: the counts' replace-one l2-sensitivity, recorded
        with the release (:meth:`~skdp.privacy.release.Release.gaussian`).
    """
    grids = [quantile_grid(c) for c in columns]
    counts = quantile_counts(columns, [c.prepare(v) for c, v in zip(columns, values)]) \
        if counts is None else counts
    parts = _stacked_release(counts, budget, sensitivity, sigma, replace_sensitivity,
                             label=f"quantile grid counts of {len(columns)} columns")
    for col, grid, part in zip(columns, grids, parts):
        col.edges = _quantile_edges(grid, project_nonnegative(part), col.n_bins)


def _stacked_release(counts, budget, sensitivity, sigma, replace_sensitivity, *, label):
    """Per-column counts stacked into one Gaussian release (one mechanism of l2-sensitivity
    ``sensitivity``: Bun–Steinke 2016 Prop. 1.6) through ``budget``, split back per column."""
    noisy = budget.gaussian_gdp(np.concatenate(counts), sensitivity, sigma, label=label,
                                replace_sensitivity=replace_sensitivity)
    return np.split(noisy, np.cumsum([len(c) for c in counts])[:-1])


def compress_counts(columns, prepared):
    """Per column, the count of each public category (missing values in none), of values
    given as :meth:`Column.prepare` returns them: additive over row blocks.

    Examples
    --------
    >>> from skdp._domain import Column
    >>> col = Column("c", object, categories=["a", "b"])
    >>> compress_counts([col], [col.prepare(np.array(["b", "b"], dtype=object))])[0].tolist()
    [0.0, 2.0]
    """
    return [np.bincount(p, minlength=len(c.categories) + 1)[:len(c.categories)]
            .astype(np.float64) for c, p in zip(columns, prepared)]


def quantile_grid(col):
    """The fine public grid of a column binned at quantiles: ``QUANTILE_GRID n_bins`` cells."""
    return even_edges(col.low, col.high, QUANTILE_GRID * col.n_bins)


def quantile_counts(columns, prepared):
    """Per column, the counts of its non-missing values (clipped to the bounds) on its fine
    grid, given as :meth:`Column.prepare` returns them: additive over row blocks.

    Examples
    --------
    >>> from skdp._domain import Column
    >>> col = Column("x", float, kind="numeric", low=0.0, high=1.0, n_bins=1)
    >>> counts = quantile_counts([col], [np.array([0.0, 0.99, np.nan, 2.0])])[0]
    >>> len(counts), counts[[0, -1]].tolist()
    (16, [1.0, 2.0])
    """
    return [np.histogram(np.clip(p[~np.isnan(p)], c.low, c.high), bins=quantile_grid(c))[0]
            .astype(np.float64) for c, p in zip(columns, prepared)]


def _quantile_edges(grid, mass, n_bins):
    """Edges at the ``k / n_bins`` quantiles of ``mass`` spread uniformly on its grid cells."""
    if not mass.sum() > 0:
        return even_edges(grid[0], grid[-1], n_bins)
    cum = np.concatenate([[0.0], np.cumsum(mass)])
    targets = cum[-1] * np.arange(1, n_bins) / n_bins
    cell = np.clip(np.searchsorted(cum, targets, side="left") - 1, 0, len(mass) - 1)
    frac = (targets - cum[cell]) / np.where(mass[cell] > 0, mass[cell], 1.0)
    inner = grid[cell] + np.clip(frac, 0.0, 1.0) * (grid[cell + 1] - grid[cell])
    return np.concatenate([[grid[0]], inner, [grid[-1]]])



# ---------------------------------------------------------------------------
# Fine grids: numeric columns at the resolution of the data (issue 30, item 1)
# ---------------------------------------------------------------------------
def to_fine(columns, resolution, n=None, rho=None, neighbouring="replace_one", spikes=True):
    """Indices of the columns that get a fine grid (:func:`skdp._domain.fine.has_fine_grid`:
    numeric, finite bounds ``low < high``; public), their grids set on them.

    ``resolution='auto'``: the equal cells from :func:`skdp._domain.fine.auto_cells` at the
    noise of the fine release (:func:`fine_noise`) of ``rho``-zCDP over these columns (and
    their spikes when ``spikes``) and the public row count ``n`` (None under add/remove).
    Everything here is public: kinds, bounds, parameters, ``n`` under replace-one."""
    index, cells = grid_cells(columns, resolution, n, rho, neighbouring, spikes)
    for j in index:
        columns[j].fine = fine_grid(columns[j], resolution, cells)
    return index


def grid_cells(columns, resolution, n=None, rho=None, neighbouring="replace_one", spikes=True):
    """The indices of the columns that get a fine grid and, with ``resolution='auto'``, the
    number of equal cells of :func:`to_fine` (None otherwise); nothing is set. Public."""
    index = [j for j, c in enumerate(columns) if has_fine_grid(c, resolution)]
    cells = None
    if resolution == "auto" and index:
        n_spiky = sum(fine_grid(columns[j], "auto").edges is not None for j in index) \
            if spikes else 0
        sigma = fine_noise(len(index), n_spiky, rho, neighbouring)[1]
        cells = auto_cells(n if neighbouring == "replace_one" else None, sigma)
    return index, cells


def auto_share(columns, resolution, shares, rho_of, n=None, neighbouring="replace_one",
               spikes=True):
    """``resolution_share='auto'``: the share of the budget for the fine release, ``base``
    or ``small`` of ``shares = (base, small)``.

    ``small`` where, at ``base``, some grid of equal cells would be coarser than its
    column's model bins, with fewer than :data:`~skdp._domain.fine_bins.CELLS_PER_BIN`
    cells a bin (``auto_cells(n, sigma(base)) < CELLS_PER_BIN * n_bins``: small tables or
    small epsilon, where ``n / (4 sigma)`` puts the grid at or near its floor of 16 cells);
    else ``base``. There the fine release limits the placement of values more than the model
    does (``benchmarks/RESULTS.md``, issue 30: small tables and heavy tails), and a less noisy
    release (``sigma`` times ``sqrt(base / small)``) or a finer grid is worth the model's
    lost share. ``rho_of(share)``: the zCDP of the release at ``share`` of the plan. A
    function of public quantities only (``n`` under replace-one, epsilon, delta, the
    columns' kinds, bounds and ``n_bins``, the parameters), so the share is public."""
    base, small = shares
    if resolution != "auto":
        return base
    index, cells = grid_cells(columns, resolution, n, rho_of(base), neighbouring, spikes)
    coarse = any(fine_grid(columns[j], resolution, cells).edges is not None
                 and cells < CELLS_PER_BIN * columns[j].n_bins for j in index)
    return small if coarse else base


def fine_noise(n_columns, n_spiky, rho, neighbouring):
    """l2-sensitivity, noise and replace-one sensitivity of the fine release
    (:func:`fine_release`): a record moves one cell count of each of ``n_columns`` grids
    and one exact-value count of each of the ``n_spiky`` with spikes (add/remove; twice as
    many under replace-one), so ``sqrt(d + d_s)`` (``sqrt(2 (d + d_s))``), released at
    ``rho``-zCDP (Bun–Steinke 2016 Prop. 1.6)."""
    return _count_noise(n_columns + n_spiky, rho, neighbouring)


def fine_release(columns, values, rho, delta_thr, fit, neighbouring, spiky=(), counts=None,
                 keys=None):
    """The fine grids' counts and the spikes of ``columns[spiky]``: one Gaussian mechanism on
    :func:`gaussian_share` of ``fit`` (``rho``-zCDP), thresholded at ``delta_thr``.

    Released at once, ``N(0, sigma**2)`` added to each, ``sigma`` from
    :func:`fine_noise`:

    - every column's counts on its fine grid (:func:`fine_grids`: one cell per record);
    - for each column of ``spiky`` (grids of equal cells: public), the count of each
      key strictly inside its bounds (one per record at most): its distinct values, or
      for an integer column with public candidates
      (:meth:`~skdp._domain.fine.FineGrid.public_keys`) every integer inside the bounds,
      0 where the data hold none.

    So one record moves ``d + d_s`` counts by one under add/remove (l2-sensitivity
    ``sqrt(d + d_s)``) and ``2 (d + d_s)`` under replace-one (``sqrt(2 (d + d_s))``;
    recorded as the replace-one sensitivity under add/remove): a Gaussian mechanism,
    Bun–Steinke 2016 Prop. 1.6. A column of public candidates keeps those above
    :func:`~skdp._domain.fine.public_threshold` as spikes (post-processing of a
    released histogram on a public domain). Of the other ``d_t`` columns, the keys whose
    noisy count exceeds :func:`stability_threshold` at :func:`key_delta` (``delta_thr``
    over the ``d_t`` columns) are released as spikes with their noisy counts; the
    others, and their number, are dropped unseen. A value held by one record is released
    with probability at most ``key_delta``: the thresholding is charged ``(0,
    delta_thr)`` through :meth:`~skdp.privacy.budget.Budget.approx_dp` (before the
    draw; only where ``d_t > 0``), composed with the Gaussian part by the ledger (basic
    composition: the stability-histogram argument of :func:`stability_threshold`).

    Parameters
    ----------
    columns : list of Column
        Numeric columns with a fine grid (``Column.fine``).
    values : list of arrays
        Each column's values (missing ones included); not read when ``counts`` and
        ``keys`` are given.
    rho : float
        zCDP share of the release.
    delta_thr : float
        The thresholding's delta (unused without ``spiky``).
    fit : Budget
        The fit's budget.
    neighbouring : {'replace_one', 'add_remove'}
    spiky : sequence of int
        Indices (into ``columns``) of the columns whose spikes are released.
    counts, keys : lists, default=None
        Already summed (a Dask table): :func:`fine_counts` and :func:`merge_spike_keys`.
    """
    spiky = list(spiky)
    sens, sigma, replace_sens = fine_noise(len(columns), len(spiky), rho, neighbouring)
    prepared = None
    if counts is None or (spiky and keys is None):
        prepared = [c.prepare(v) for c, v in zip(columns, values)]
    counts = fine_counts(columns, prepared) if counts is None else counts
    if spiky and keys is None:
        keys = spike_keys([columns[k] for k in spiky], [prepared[k] for k in spiky])
    public = [columns[k].fine.public_keys() for k in spiky]
    keys = [_on_public_keys(p, vc) for p, vc in zip(public, keys or [])]
    n_private = sum(p is None for p in public)
    label = f"fine grid counts of {len(columns)} columns"
    thresholds = [public_threshold(sigma, len(p)) if p is not None else None for p in public]
    if n_private:
        threshold = stability_threshold(sigma, key_delta(delta_thr, n_private, neighbouring))
        thresholds = [threshold if t is None else t for t in thresholds]
        fit.approx_dp(0.0, delta_thr, label=f"spike thresholding of {n_private} columns")
    if spiky:
        label += f" and exact values of {len(spiky)}"
    parts = _stacked_release(list(counts) + [c for _, c in keys], gaussian_share(fit, rho),
                             sens, sigma, replace_sens, label=label)
    for col, part in zip(columns, parts):
        col.fine.counts = np.asarray(part, dtype=np.float64)
        col.fine.sigma = sigma  # public: rho and the sensitivity
    for k, (vals, _), part, threshold in zip(spiky, keys, parts[len(columns):], thresholds):
        keep = np.asarray(part) > threshold
        columns[k].fine.spikes = np.asarray(vals, dtype=np.float64)[keep]
        columns[k].fine.spike_counts = np.asarray(part, dtype=np.float64)[keep]
        columns[k].fine.spike_threshold = threshold  # public: sigma, delta_thr, the keys
    for k, p in zip(spiky, public):
        columns[k].fine.spike_candidates = "data" if p is None else "public"


def _on_public_keys(public, keys):
    """A column's spike keys ``(values, counts)`` on its public candidates (every one, count 0
    where the data hold none; a value that is not one of them counts for none), or as they are
    when ``public`` is None."""
    if public is None:
        return keys
    values, counts = keys
    at = np.minimum(np.searchsorted(public, values), len(public) - 1)
    hit = public[at] == values
    return public, np.bincount(at[hit], weights=counts[hit], minlength=len(public))


def refine_release(columns, values, rho, fit, neighbouring, counter=None, heavy=None,
                   split=None, again=False):
    """The second level of the fine grids of equal cells of ``columns`` (with ``again``, the
    third, on the grids already refined): one Gaussian mechanism on :func:`gaussian_share` of
    ``fit`` (``rho``-zCDP), made after :func:`fine_release` (after the second level).

    An adaptive hierarchical histogram (Hay, Rastogi, Miklau, Suciu 2010; cells split where
    their noisy count is large, as PrivTree splits nodes, Zhang, Xiao, Xie 2016): every
    grid of equal cells is a candidate (``d_c`` of them, public); its cells to split and
    their number of equal sub-cells come from its first-level noisy counts and the second
    release's ``sigma`` (:func:`~skdp._domain.fine.refine_splits`): released values and
    public facts only. The counts of the sub-cells of the ``d_r`` grids with a refined cell
    are then released at once, ``N(0, sigma**2)`` each. A value falls in at most one
    sub-cell of its column (none when its first-level cell is not refined), so one record
    moves at most one count per released column under add/remove and two under
    replace-one: l2-sensitivity at most ``sqrt(d_r)`` (``sqrt(2 d_r)``), the sensitivity of
    one histogram per released column, and ``sigma`` from it (:func:`_count_noise`;
    Bun–Steinke 2016 Prop. 1.6). The plans are drawn at the noise of ``d_c`` histograms;
    where some candidates then have no cell to split (``d_r < d_c``), the ``d_r`` others are
    released at the noise of ``d_r`` (:func:`_refine_plans`: a function of released counts,
    so still a choice made from the first release). The choice of the
    second mechanism from the first's output composes adaptively (zCDP: Bun–Steinke 2016
    Lemma 2.3; GDP: Dong–Roth–Su 2022 Cor. 3.3): ``rho`` of the first release plus this
    ``rho``. No grid refined: nothing released, nothing charged. Each refined grid combines
    its two levels (:meth:`~skdp._domain.fine.FineGrid.refine`: post-processing).

    ``heavy``: each cell's share of the mass the grid's cells spread is its noisy count less
    its released spikes', over the grid's noisy total less all its spikes' (:func:`_shares`);
    only the grids whose cells at or above ``split`` (default ``heavy``) hold at least
    ``heavy`` of that mass together are candidates (``d_c`` counts those;
    ``resolution_refine='auto'``: a heavy tail's rows in one cell, or in two or three busy
    cells of a grid of many), and in those only the cells at or above ``split`` are split
    (the sensitivity is one histogram per candidate grid whichever of its cells are split):
    from the released counts and spikes only.

    ``again``: the candidates are the grids already refined (a third level: their cells are
    then the unrefined cells and the sub-cells, and the same rule, the same sensitivity
    argument and :meth:`~skdp._domain.fine.FineGrid.refine` apply to them); otherwise the grids
    not yet refined.

    ``counter(columns, plans)``: the sub-cells' counts of ``columns`` (:func:`sub_counts`),
    when not read from ``values`` (a Dask table). Returns whether anything was released."""
    cand = [k for k, c in enumerate(columns) if c.fine.edges is not None
            and c.fine.counts is not None and (c.fine.refinement is not None) == again]
    busy = None
    if heavy is not None:
        at = heavy if split is None else split
        busy = {k: _busy(columns[k].fine, at) for k in cand}
        cand = [k for k in cand if busy[k].sum() >= heavy]
    if not cand:
        return False
    chosen, plans, (sens, sigma, replace_sens) = _refine_plans(columns, cand, busy, rho,
                                                               neighbouring)
    if not chosen:
        return False
    cols, chosen_plans = [columns[k] for k in chosen], [plans[k] for k in chosen]
    counts = counter(cols, chosen_plans) if counter is not None else \
        sub_counts(cols, [c.prepare(values[k]) for k, c in zip(chosen, cols)], chosen_plans)
    parts = _stacked_release(counts, gaussian_share(fit, rho), sens, sigma, replace_sens,
                             label=f"fine grid refinement of {len(chosen)} of {len(cand)} "
                                   f"columns")
    for col, plan, part in zip(cols, chosen_plans, parts):
        col.fine.refine(plan, part, sigma)
    return True


def _refine_plans(columns, cand, busy, rho, neighbouring):
    """``(chosen, plans, noise)`` of a second (third) level over the candidate grids ``cand``:
    each grid's sub-cells (:func:`~skdp._domain.fine.refine_splits`, only in its ``busy``
    cells where given) at the noise of a release of ``len(cand)`` histograms; the grids
    with a cell to split are released, and where some candidates have none, at the noise
    of ``len(chosen)`` histograms (one record moves a count of each released grid only:
    the sensitivity of the release made), with the same plans. Released counts and public
    facts only: the choice is post-processing of the first level. (Planning again at the
    smaller noise, which splits finer, cost DoctorContacts at 3,600 rows: ``benchmarks/
    RESULTS.md``, issue 30, "a candidate grid with nothing to split left out of the
    refinement's sensitivity".)"""
    def plan(k, sigma):
        p = refine_splits(columns[k].fine.counts, sigma)
        return p if busy is None else np.where(busy[k] > 0, p, 1)

    noise = _count_noise(len(cand), rho, neighbouring)
    plans = {k: plan(k, noise[1]) for k in cand}
    chosen = [k for k in cand if np.any(plans[k] >= 2)]
    if chosen and len(chosen) < len(cand):
        noise = _count_noise(len(chosen), rho, neighbouring)
    return chosen, plans, noise


def _shares(grid):
    """Each cell's share of the mass a fine ``grid``'s cells (equal, or refined) spread: its
    released count less the released counts of the spikes inside it (clipped at 0), over the
    column's noisy total less all its released spikes' (zeros where that is not positive). A
    released spike is already an exact value that sub-cells would not place better (a 40%
    spike at 12 years of schooling makes its cell heavy, and is no heavy tail), and the rest
    of a column is what its cells place uniformly (ggplot2movies' ``votes`` in 0-200,000 at
    epsilon 1: 49% of the rows on released spikes at 5-32 votes, 45% spread over the rest of
    the first of 128 cells: 88% of the spread mass, refined). An integer column's spikes
    from public candidates (``spike_candidates == "public"``) count so only where isolated
    (no released spike one integer away): a run of consecutive integers among them (film
    lengths of 74 ... 115 minutes) is a quantity spread over many values, which sub-cells
    and the model bins read from them separate. Released values only."""
    counts = np.asarray(grid.counts, dtype=np.float64)
    total = counts.sum()
    inner = counts[1:-1].copy()
    if grid.spikes is not None and len(grid.spikes):
        cells = grid.cell(grid.spikes) - 1
        keep = (cells >= 0) & (cells < len(inner))
        if grid.spike_candidates == "public":
            keep &= ~(np.isin(grid.spikes - 1, grid.spikes) | np.isin(grid.spikes + 1, grid.spikes))
        spikes = np.clip(np.asarray(grid.spike_counts, float)[keep], 0, None)
        inner -= np.bincount(cells[keep], minlength=len(inner), weights=spikes)
        total -= spikes.sum()
    if total <= 0:
        return np.zeros(len(inner))
    return np.clip(inner, 0.0, None) / total


def _busy(grid, at):
    """The shares (:func:`_shares`) of the cells holding at least ``at`` of the spread mass,
    0 for the others."""
    share = _shares(grid)
    return np.where(share >= at, share, 0.0)


def sub_counts(columns, prepared, plans):
    """Per column, the counts of its values on the sub-cells of ``plans`` (:meth:`FineGrid.
    sub_counts_of <skdp._domain.fine.FineGrid.sub_counts_of>`): additive over row blocks."""
    return [c.fine.sub_counts_of(p, plan) for c, p, plan in zip(columns, prepared, plans)]


def spike_keys(columns, prepared):
    """Per column, its distinct non-missing values strictly inside its bounds and their
    counts (:meth:`FineGrid.spike_keys <skdp._domain.fine.FineGrid.spike_keys>`); merged
    over row blocks by :func:`merge_spike_keys`. Private: only the release's thresholded
    part leaves :func:`fine_release`."""
    return [c.fine.spike_keys(p) for c, p in zip(columns, prepared)]


def merge_spike_keys(blocks):
    """The :func:`spike_keys` of several row blocks, merged (keys united, counts summed).

    Examples
    --------
    >>> a = [(np.array([1.0, 2.0]), np.array([3.0, 1.0]))]
    >>> b = [(np.array([2.0, 5.0]), np.array([2.0, 2.0]))]
    >>> [(k.tolist(), c.tolist()) for k, c in merge_spike_keys([a, b])]
    [([1.0, 2.0, 5.0], [3.0, 3.0, 2.0])]
    """
    blocks = list(blocks)
    out = []
    for per_column in zip(*blocks):
        keys = np.concatenate([k for k, _ in per_column])
        counts = np.concatenate([c for _, c in per_column])
        uniq, inverse = np.unique(keys, return_inverse=True)
        out.append((uniq, np.bincount(inverse.ravel(), weights=counts,
                                      minlength=len(uniq)).astype(np.float64)))
    return out


def fine_grids(columns, values, budget, sensitivity, sigma, counts=None,
               replace_sensitivity=None):
    """The counts of ``columns`` on their fine public grids (``Column.fine``, set by
    :func:`to_fine`), released by one Gaussian mechanism.

    Each column's non-missing values, clipped to its public bounds, fall in
    exactly one cell of its grid, so one row moves one count per column: the
    stacked counts of ``d`` columns have l2-sensitivity ``sqrt(d)`` under
    add/remove and ``sqrt(2 d)`` under replace-one (``sensitivity``; the
    replace-one value is recorded as ``replace_sensitivity`` under add/remove).
    Released once through ``budget``, ``counts + N(0, sigma**2 I)``
    (Bun–Steinke 2016 Prop. 1.6: ``sensitivity**2 / (2 sigma**2)``-zCDP, i.e.
    ``sensitivity / sigma``-GDP, Dong–Roth–Su 2022 Thm 2.7). The noisy counts
    are kept on each grid (``fine.counts``); decoding projects them onto the
    non-negative vectors of their total and samples within the coarse bins
    (post-processing, :class:`skdp._domain.fine.FineGrid`).

    Parameters
    ----------
    columns : list of Column
        Numeric columns with a fine grid (``Column.fine``).
    values : list of arrays
        Each column's values (missing ones included).
    budget : Budget
        The share of the fit's budget this release spends (its GDP filter).
    sensitivity, sigma : float
        l2-sensitivity of the stacked counts and the noise.
    counts : list of arrays, default=None
        The counts, when already summed (by :func:`fine_counts`).
    replace_sensitivity : float, default=None
        Under add/remove: the counts' replace-one l2-sensitivity, recorded
        with the release (:meth:`~skdp.privacy.release.Release.gaussian`).
    """
    counts = fine_counts(columns, [c.prepare(v) for c, v in zip(columns, values)]) \
        if counts is None else counts
    parts = _stacked_release(counts, budget, sensitivity, sigma, replace_sensitivity,
                             label=f"fine grid counts of {len(columns)} columns")
    for col, part in zip(columns, parts):
        col.fine.counts = np.asarray(part, dtype=np.float64)


def fine_counts(columns, prepared):
    """Per column, the counts of its non-missing values on its fine grid, given as
    :meth:`Column.prepare` returns them: additive over row blocks.

    Examples
    --------
    >>> from skdp._domain import Column
    >>> col = Column("k", int, kind="numeric", low=0, high=3, n_bins=2, integer=True)
    >>> _ = to_fine([col], 100)
    >>> fine_counts([col], [np.array([0.0, 3.0, 3.0, np.nan])])[0].tolist()
    [1.0, 0.0, 0.0, 2.0]
    """
    return [c.fine.counts_of(p) for c, p in zip(columns, prepared)]
