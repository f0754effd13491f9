"""Model bins read from the fine release (issue 30, ``bin_strategy='fine'``).

With equal bins of the public bounds, a heavy-tailed column (visits 0-80 with 91% of
the rows below 8, a log income with 76% in one bin) has nearly all its rows in one or
two of the model's bins, and the 2-way structure inside them is not modelled. The fine
grid's counts (:func:`skdp._domain.private.fine_release`) are released before the
model's measurements, so bin edges read from them are post-processing: they cost no
budget and depend on the released counts and public parameters only.

The rule (:func:`fine_edges`) starts from the ``n_bins`` equal bins and, while a bin
holds more than :data:`HEAVY` ``/ n_bins`` of the column's noisy mass, splits the
heaviest such bin at its noisy median and merges the lightest pair of neighbouring bins,
as long as that pair holds at most :data:`NEAR_EMPTY` ``/ n_bins`` (by its cells' noisy
counts summed, an unbiased estimate, not by their projection onto non-negative counts,
which leaves the noise of empty cells as mass): the number of bins stays ``n_bins``. A
near-uniform column keeps its equal bins exactly; a heavy one gets narrow bins where its
rows are and wide ones over its empty tail. The equal edges a column keeps stay where they
were; a split is at a cell boundary of the fine grid (a half-integer, where the grid has
one cell per integer; a bound's point cell can be a bin of its own).

Then (:func:`spike_edges`) a bin still above :data:`SPIKE_HEAVY` ``/ n_bins`` starts a
bin at each released spike inside it, unless its spikes are a unit's grid
(:data:`GRID_TOL`; one or two spikes judged with their neighbours, where a mode of the grid,
:data:`MODE_RATIO`, still starts a bin), on a coarse grid too (a spike is an exact value,
not a guess within a cell); the column then has more than ``n_bins`` bins, and the fine release's
1-way measurement of the model gives the noisy count of each spike at an edge this rule
added (``Column.spike_starts``) to that bin (:meth:`~skdp._domain.fine.FineGrid.bin_counts`;
other spikes stay spread with their cell, a spike that happens to sit on an edge the rule
did not add too, so a column no spike splits is measured as before). Post-processing of
the released spikes.

A grid of equal cells with fewer than :data:`CELLS_PER_BIN` cells per bin keeps the equal
bins: within a cell the rule knows no more than the cell's total (spread evenly), so its
splits there are guesses and the merges they call for cost bins that were right.

Last (:func:`bound_edges`), on any grid of equal cells, a bound's point cell with more than an
average bin's share of the noisy mass, in a bin still above :data:`SPIKE_HEAVY` ``/ n_bins``,
gets a bin of its own (the lightest near-empty pair merged, ``n_bins`` kept): an exact value,
as a spike is, and no guess within a cell.
"""

import numpy as np

from .fine import even_edges, project_nonnegative

__all__ = ["BOUND_SD", "CELLS_PER_BIN", "GRID_TOL", "HEAVY", "MODE_RATIO", "NEAR_EMPTY",
           "SPIKE_HEAVY", "bound_edges", "fine_edges", "set_fine_edges", "spike_edges"]

HEAVY = 2.0
"""A bin is split while it holds more than ``HEAVY / n_bins`` of the column's noisy mass."""
NEAR_EMPTY = 0.1
"""Two neighbouring bins are merged (to keep ``n_bins`` bins after a split) only while
they hold at most ``NEAR_EMPTY / n_bins`` together: merging bins that hold rows places
them from the noisy fine counts, which costs the 1-way and 2-way errors at a user's equal
bins. Tried: 0.1, 0.5, 1 and 2 (``benchmarks/RESULTS.md``, issue 30: model bins read from
the fine release, where ``HEAVY`` was chosen too, from 1, 1.5 and 2). 0.1: the one with no
table worse than equal bins at either of the user's binnings (10 equal, 10 quantile bins;
weather level, DoctorContacts and nassCDS better, yrbss level over 8 seeds); 0.5 and 1
gain more on DoctorContacts and nassCDS but lose about 0.01 on weather. A pair's mass here is
its cells' noisy counts summed (unbiased), not their projection onto non-negative counts: the
projection keeps a positive part of the noise of every empty cell, so a column with few rows
under wide bounds never had a pair light enough (ggplot2movies' ``budget``, 9% of 50,000
films in 0-3e8 dollars at epsilon 1: an empty tail of 4-6 projected rows a cell, 20-90 a
pair against a bar of 36, kept 83% of its rows in the first of 10 equal bins;
``benchmarks/RESULTS.md``, issue 30: "empty tails merged by their noisy sums")."""


CELLS_PER_BIN = 2
"""The rule moves the bins of a grid of equal cells only where it has at least this many
cells per bin (a grid of one cell per integer: always, its cells are exact values).
Measured (``benchmarks/RESULTS.md``, issue 30: fine bins where the grid is coarse; 8
seeds, epsilon 1): at ``n_bins=20`` on 12,000 rows (32 cells) the rule cost DoctorContacts
0.08 of the baseline at quantile bins on every seed; at 6,000 rows (16 cells, the default
10 bins) it cost weather 0.011 / 0.015; with this guard both are at the equal bins' figures
or better, and nothing changes where the grid has 2 cells a bin or more."""


SPIKE_HEAVY = 3.0
"""After the rule, a bin that still holds more than ``SPIKE_HEAVY / n_bins`` of the column's
noisy mass starts a bin at each released spike inside it (:func:`spike_edges`). Measured
(``benchmarks/RESULTS.md``, issue 30: spike-start bins off a unit's grid; CLI split, 16
seeds, against the baseline at 10 equal / 10 quantile bins): DoctorContacts at epsilon 1
-0.013 / -0.041 (0.5: -0.026 / -0.051, 8 seeds), nassCDS at 5 -0.001 / -0.008, weather,
yrbss and the rest level (weather at 1 the same rows as without the rule, once only the
added edges' spikes are counted: RESULTS, "spike counts only at the edges spike_edges
added"). 2 lost on yrbss and weather (issue 30's spike section); 4 kept less than half of
DoctorContacts' gain at quantile bins."""
GRID_TOL = 0.01
"""The spikes of a heavy bin are a unit's grid (a continuous quantity recorded in steps,
weather's gusts in 1.15-mph steps) when there are 3 or more and their gaps differ by at
most this share of the smallest gap; such a bin is not split at its spikes: each extra bin
adds noise to every pair of its column and there is no subpopulation behind a step
(weather at epsilon 5 lost 0.004 of the baseline without this guard). One or two spikes in
a bin are judged with their neighbours (:func:`_starts`)."""
BOUND_SD = 3.0
"""A bound's point cell gets a bin of its own (:func:`bound_edges`) only where its released
count is above this many noise sds (clearly not empty)."""
MODE_RATIO = 2.0
"""A spike of a unit's grid still starts a bin (where it is one of one or two spikes in a heavy
bin) when its noisy count is above this many times each of its neighbours' on the grid: a
subpopulation at one step (a school-leaving year), not a smooth quantity recorded in steps."""


def set_fine_edges(columns):
    """Set the bin edges of ``columns`` (numeric, with released fine counts) read from
    their fine release (:func:`fine_edges`); a column whose rule keeps the equal bins keeps
    ``edges`` None. Post-processing of released counts."""
    for col in columns:
        if col.n_bins > 1 and col.fine is not None and col.fine.counts is not None:
            col.edges = fine_edges(col.fine, col.n_bins)
            spike_edges(col)
            bound_edges(col)


def spike_edges(col):
    """Add an edge at each released spike inside a bin that still holds more than
    :data:`SPIKE_HEAVY` ``/ n_bins`` of the column's noisy fine mass, unless that bin's
    spikes are a unit's grid (:func:`_starts`: a grid's mode still starts one); ``n_bins``
    follows the edges and the added edges are recorded in ``col.spike_starts`` (only their
    spikes' noisy counts go to their own bins in
    :meth:`~skdp._domain.fine.FineGrid.bin_counts`). A bin ``[s, next edge)`` starts at
    each such spike ``s``: several exact values that a user's quantile edges separate (a
    count of diseases, years of schooling) are no longer drawn independently of the other
    columns within one model bin. Post-processing of the
    released fine counts and spikes (their values and noisy counts) and the public bounds:
    no budget, no private data."""
    col.spike_starts = np.zeros(0)
    spikes = col.fine.spikes
    if spikes is None or not len(spikes):
        return
    before = col.edges
    edges = before if before is not None else even_edges(col.low, col.high, col.n_bins)
    col.edges = edges
    mass = col.fine.bin_matrix(col) @ project_nonnegative(np.asarray(col.fine.counts, float))
    keep = (spikes > col.low) & (spikes < col.high)
    order = np.argsort(spikes[keep])
    inside, counts = spikes[keep][order], np.asarray(col.fine.spike_counts, float)[keep][order]
    bins = col._encode_bins(inside)
    heavy = np.flatnonzero(mass > SPIKE_HEAVY * mass.sum() / col.n_bins)
    steps = col.fine.spike_candidates == "public"
    starts = [_starts(inside, counts, bins == j, steps) for j in heavy]
    new = np.union1d(edges, np.concatenate([edges[:0]] + starts))
    if len(new) > len(edges):
        col.edges, col.n_bins = new, len(new) - 1
        col.spike_starts = np.setdiff1d(new, edges)
    else:
        col.edges = before


def bound_edges(col):
    """Give a bound's point cell a bin of its own where the bin holding it is still above
    :data:`SPIKE_HEAVY` ``/ n_bins`` of the column's noisy fine mass and the point cell's
    released count is above :data:`BOUND_SD` noise sds, and the point cell and the rest of
    its bin each hold more than an average bin's share (``1 / n_bins`` of the noisy mass: a
    bin is worth its cost in every pair of the column only for that much; a point mass alone
    in its bin already, DoctorContacts' 40% of zero coinsurance in ``[0, 0.5)``, would
    leave an empty bin), on a grid of equal cells (a grid of one cell per integer has its
    bins moved by :func:`fine_edges` already). A point cell is an exact value, as a spike
    is: its bin ``[low, nextafter(low))`` (``(nextafter(high), high]``) is no guess within a
    cell, and on a grid too coarse for :func:`fine_edges` (:data:`CELLS_PER_BIN`) the model
    then measures a zero-inflated column's zeros with the other columns (the weekly earnings
    of a wife who does not work, 37% of cps91's rows, in one bin with earnings up to 300
    dollars) instead of the fine release placing them within the bin independently of them.
    The number of bins is kept, as :func:`fine_edges` keeps it: for each bin added, the
    lightest pair of neighbouring bins (by its cells' noisy counts summed; not a bound's new
    bin) is merged where it holds at most :data:`NEAR_EMPTY` ``/ n_bins`` (an empty tail),
    else the bins are left as they were (a bin more in every pair of the column cost a
    3,600-row DoctorContacts 0.1 of the baseline on one seed: ``benchmarks/RESULTS.md``,
    issue 30: "a bound's point mass in a bin of its own"). Post-processing of the released
    counts and the public bounds.

    Examples
    --------
    >>> from skdp._domain import Column
    >>> from skdp._domain.fine import FineGrid
    >>> g = FineGrid(0.0, 3000.0, integer=False, points=np.array([0.0, 3000.0]),
    ...              edges=np.linspace(0, 3000, 17), sigma=20.0)
    >>> g.counts = np.concatenate([[1500.0, 1200.0], np.full(7, 200.0), np.zeros(9)])
    >>> col = Column("earns", float, kind="numeric", low=0.0, high=3000.0, n_bins=10, fine=g)
    >>> bound_edges(col)
    >>> col.n_bins, col.edges.tolist()  # the empty 1,500-1,800 and 1,800-2,100 merged
    (10, [0.0, 5e-324, 300.0, 600.0, 900.0, 1200.0, 1500.0, 2100.0, 2400.0, 2700.0, 3000.0])
    """
    grid = col.fine
    if grid.edges is None or not grid.measured:
        return
    before = col.edges
    edges = before if before is not None else even_edges(col.low, col.high, col.n_bins)
    col.edges = edges
    counts = np.asarray(grid.counts, dtype=np.float64)
    sd = np.broadcast_to(np.asarray(grid.sigma, dtype=np.float64), counts.shape)
    cells = project_nonnegative(counts)
    mass = grid.bin_matrix(col) @ cells
    share = mass.sum() / col.n_bins
    low, high = np.nextafter(grid.low, grid.high), np.nextafter(grid.high, grid.low)
    new = [cut for cut, inside, b in ((low, edges[1] > low, 0), (high, edges[-2] < high, -1))
           if inside and mass[b] > SPIKE_HEAVY * share and counts[b] > BOUND_SD * sd[b]
           and min(cells[b], mass[b] - cells[b]) > share]
    if not new:
        col.edges = before
        return
    col.edges = np.union1d(edges, new)
    for _ in new:  # keep n_bins: merge the lightest pair that is not a bound's new bin
        col.n_bins = len(col.edges) - 1
        pair = grid.bin_matrix(col) @ counts
        pair = pair[1:] + pair[:-1]
        k = min((k for k in range(len(pair)) if col.edges[k + 1] not in new),
                key=lambda k: pair[k])
        if pair[k] > NEAR_EMPTY * share:
            col.edges, col.n_bins = before, len(edges) - 1
            return
        col.edges = np.delete(col.edges, k + 1)
    col.n_bins = len(col.edges) - 1


def _starts(spikes, counts, mine, steps=False):
    """The spikes selected by ``mine`` (of the sorted released ``spikes`` of a column, with
    their noisy ``counts``) that start a bin. Three or more: all of them unless they are a
    unit's grid (:func:`_on_grid`; with ``steps``, an integer column's public candidates,
    :func:`_mostly_steps`), then none. One or two (too few to judge the spacing
    alone): judged with the nearest released spike on either side; where those are a unit's
    grid, only a mode of it starts a bin, a spike whose noisy count is above
    :data:`MODE_RATIO` times each of its neighbours' (educdec's 12 years of schooling among
    11 and 13), not a step of a smooth quantity (weather's wind speeds in 1.15-mph steps,
    two to a bin at ``n_bins=32``)."""
    grid = _mostly_steps if steps else _on_grid
    idx = np.flatnonzero(mine)
    if len(idx) >= 3:
        return spikes[:0] if grid(spikes[idx]) else spikes[idx]
    if not len(idx) or not grid(spikes[max(idx[0] - 1, 0):idx[-1] + 2]):
        return spikes[idx]
    padded = np.concatenate([[-np.inf], counts, [-np.inf]])
    return spikes[[i for i in idx if padded[i + 1] > MODE_RATIO * max(padded[i], padded[i + 2])]]


def _on_grid(values):
    """Whether sorted ``values`` (3 or more) are equally spaced to :data:`GRID_TOL`."""
    gaps = np.diff(values)
    return len(gaps) >= 2 and np.ptp(gaps) <= GRID_TOL * gaps.min()


def _mostly_steps(values):
    """Whether at least half the gaps of sorted ``values`` (3 or more) are their most common
    gap: the grid test of an integer column's spikes, whose candidates are public and kept
    at a lower threshold (:func:`~skdp._domain.fine.public_threshold`), so that a run of
    consecutive lengths in minutes with a few values beyond it (94 ... 115, 120, 123), or
    wind directions in 10-degree steps with one spike of noise among them, are still a
    unit's steps, not as many subpopulations.

    Examples
    --------
    >>> _mostly_steps(np.array([94.0, 95, 96, 97, 98, 120, 123]))
    True
    >>> _mostly_steps(np.array([1.0, 4, 9, 16]))
    False
    """
    gaps = np.diff(values)
    if len(gaps) < 2:
        return False
    _, count = np.unique(gaps, return_counts=True)
    return bool(2 * count.max() >= len(gaps))


def fine_edges(grid, n_bins):
    """The ``n_bins + 1`` bin edges read from the released counts of the fine grid
    ``grid`` (see the module docstring), or None where the equal bins are kept.

    A function of the noisy counts (projected onto the non-negative vectors of their total,
    :func:`~skdp._domain.fine.project_nonnegative`, for the splits; summed as released for
    the merges), the grid and ``n_bins`` only: public.

    Examples
    --------
    >>> from skdp._domain.fine import FineGrid
    >>> g = FineGrid(0.0, 20.0, integer=True, points=np.arange(21.0))
    >>> g.counts = np.array([60.0, 20, 10, 5, 3, 1, 1] + [0] * 14)
    >>> fine_edges(g, 4).tolist()
    [0.0, 0.5, 4.5, 9.5, 20.0]
    >>> g.counts = np.full(21, 5.0)
    >>> fine_edges(g, 4) is None
    True
    >>> e = FineGrid(0.0, 20.0, integer=False, points=np.array([0.0, 20.0]),
    ...              edges=np.linspace(0, 20, 13))  # 12 equal cells
    >>> e.counts = np.concatenate([[0.0], 3000 * 0.5 ** np.arange(12), [0.0]])
    >>> fine_edges(e, 4).tolist()
    [0.0, 1.6666666666666667, 5.0, 10.0, 20.0]
    >>> fine_edges(e, 7) is None  # fewer than CELLS_PER_BIN cells a bin: equal bins
    True
    """
    if grid.edges is not None and len(grid.edges) - 1 < CELLS_PER_BIN * n_bins:
        return None
    bounds, mass = _units(grid)
    cum = np.concatenate([[0.0], np.cumsum(mass)])
    raw = np.concatenate([[0.0], np.cumsum(np.asarray(grid.counts, dtype=np.float64))])
    equal = even_edges(grid.low, grid.high, n_bins)
    if grid.edges is not None:  # the equal edges join the cells' boundaries: kept exactly
        joined = np.union1d(bounds, equal)
        cum, raw = np.interp(joined, bounds, cum), np.interp(joined, bounds, raw)
        bounds = joined  # a cell's mass spread evenly
    if len(bounds) - 1 < n_bins:
        return None
    start = list(_nearest(bounds, equal))
    cuts = _split_and_merge(start, cum, HEAVY * cum[-1] / n_bins,
                            NEAR_EMPTY * cum[-1] / n_bins, raw)
    if cuts == start:
        return None
    return bounds[cuts]


def _units(grid):
    """The fine cells as units of bins: their boundaries (``low``, the boundaries between
    cells, ``high``) and their masses. A grid of one cell per integer: the boundary between
    two integers is the half-integer (a bin ``[a - 1/2, b - 1/2)`` holds the integers ``a ..
    b-1``). A grid of equal cells: its bound cells are units of their own, a bound alone in
    a bin: the boundary after ``low`` is the next float above it, the one before ``high``
    the next float below it."""
    mass = project_nonnegative(np.asarray(grid.counts, dtype=np.float64))
    if grid.edges is None:
        inner = grid.points[1:] - 0.5
    else:
        inner = np.concatenate([[np.nextafter(grid.low, grid.high)], grid.edges[1:-1],
                                [np.nextafter(grid.high, grid.low)]])
    return np.concatenate([[grid.low], inner, [grid.high]]), mass


def _nearest(bounds, edges):
    """Indices of the unit boundaries nearest to ``edges`` (the ends kept), increasing and
    distinct."""
    idx = np.clip(np.searchsorted(bounds, edges), 1, len(bounds) - 1)
    left = bounds[idx - 1]
    idx = np.where(np.abs(edges - left) <= np.abs(bounds[idx] - edges), idx - 1, idx)
    idx[0], idx[-1] = 0, len(bounds) - 1
    return np.unique(idx)


def _split_and_merge(cuts, cum, heavy, near_empty, raw):
    """Split the heaviest splittable bin above ``heavy`` at its median (:func:`_median`)
    and merge the lightest neighbouring pair, while that pair holds at most
    ``near_empty``; stop when no bin is heavy or no pair is that light. ``cuts``: bin
    boundaries as indices of unit boundaries; ``cum``: the mass before each; ``raw``: the
    noisy counts before each, by which pairs are weighed (unbiased near zero)."""
    n = len(cuts) - 1
    for _ in range(4 * len(cum)):
        mass = np.diff(cum[cuts])
        wide = np.diff(cuts) >= 2
        if not np.any(wide & (mass > heavy)):
            break
        b = int(np.argmax(np.where(wide, mass, -np.inf)))
        trial = sorted(cuts + [_median(cum, cuts[b], cuts[b + 1])])
        if len(trial) - 1 > n:
            pair = raw[trial[2:]] - raw[trial[:-2]]
            k = int(np.argmin(pair))
            if pair[k] > near_empty:
                break
            del trial[k + 1]
        cuts = trial
    return cuts


def _median(cum, a, z):
    """The unit boundary strictly between ``a`` and ``z`` nearest to the bin's median mass;
    of boundaries as near (units of no mass between them), the one next to the heavier side,
    so that a heavy unit is cut off from the empty ones beside it."""
    gap = np.abs(cum[a + 1:z] - (cum[a] + cum[z]) / 2)
    best = np.flatnonzero(gap <= gap.min())
    heavier_right = cum[z] - cum[a + 1 + best[0]] > cum[a + 1 + best[0]] - cum[a]
    return a + 1 + int(best[-1] if heavier_right else best[0])
