"""Releases made before the solver's, used as measurements of the model: no privacy cost.

The synthesizer releases each numeric column's counts on a fine public grid before the
solver runs (:func:`skdp._domain.private.fine_release`, ``resolution_share`` of the budget).
Summed to the model's bins (:meth:`skdp._domain.fine.FineGrid.bin_counts`) those counts are
a 1-way measurement of the model's column with known Gaussian noise: per bin, the sum of
independent ``N(0, sigma_f**2)`` draws weighted by the shares of the fine cells in the bin.
The graphical-model solvers (``mst``, ``aim``) measure every 1-way marginal themselves
first; :func:`combine_oneways` merges each with the column's fine-release measurement by
inverse-variance weighting, cell by cell (the minimum-variance unbiased combination of two
independent unbiased Gaussian estimates), before the domain compression, the first model
and AIM's selection scores read them.

Privacy: a function of released values and public facts only (the grids, the bins, the
release's ``sigma``), so post-processing (Dwork–Roth 2014 Prop. 2.1): the ledger of a fit
is that of the same fit without it. The released values change (the model's 1-way
marginals use both releases).

Cells within noise of zero (:func:`near_zero`; the solvers' option ``zero_below``): a
numeric column's bins that the real table leaves empty come back from the model with about the
positive part of their measurement noise (issue 30, DoctorContacts: ``mdu``'s bins above 56
with 7 training rows, the model's 99). A cell of a numeric column whose combined noisy 1-way
count is below ``k`` of its noise sds (never the column's largest) is set to 0: the "Base-Cut"
correction of Wang, Lopuhaä-Zwakenberg, Li, Škorić, Li (NDSS 2020, "Locally Differentially
Private Frequency Estimation with Consistency", §IV: estimates below a threshold set by the
noise's sd set to 0, the mass given to the others), applied to the central model's 1-way
measurements. The solver's final estimation then holds those cells as fixed zeros, as it holds
the domain's structural zeros (the measured marginals' noisy counts on them set to 0,
:func:`~.graphical.estimate`): the model puts their mass where its other measurements say, and
the sampler never draws them. Which cells are cut is a function of the released measurements
and their (public) sds only, and the estimation reads nothing else: post-processing, the
ledger is that of the same fit without the cut (only ``model_`` and the sampled rows change).
A cut at ``k`` sds also takes a real bin holding fewer rows than that, and the sd a cell does
not shrink with the row count: at 1,000-3,000 rows the cut lost (issue 30). So a column is cut
only when its noisy total spread evenly over its cells is at least ``spread`` noise sds a cell
(the solvers' ``zero_spread``; a function of the same released values, so usable under either
neighbouring relation, where ``n`` may be private): there a bin with a tenth of an even share
is still above the noise. Within such a column a real bin can still measure below ``k`` sds
(issue 30, nassCDS ``weight`` at epsilon 0.5: a bin of 111 rows measured at 16, between bins
near the noise, cut at a cost at quantile bins), while the bins a public bound leaves empty lie
at the column's ends or in gaps between clear signals. So only those runs of low cells are cut
(:func:`tails_and_holes`: a run reaching an end of the column; an interior run between two cells
of at least ``HOLE_WALL`` sds whose noisy total is below ``k`` times its sd), again from the
released values only. Chosen by measurement (``benchmarks/RESULTS.md``, issue 30, "tails and
holes"): ``zero_below=1`` with ``zero_spread=12`` and this rule is better at equal bins at
12,000 rows at epsilon 1 and 5 and level elsewhere (epsilon 0.5 to 5, 1,000 to 13,583 rows):
``aim``'s default; ``mst``'s default stays 0 (not measured with the gate).
"""

import numpy as np

from .graphical import Measurement

__all__ = ["combine", "combine_oneways", "near_zero", "tails_and_holes", "with_cut"]

# an interior run of low cells is cut only between two cells at least this many noise sds
HOLE_WALL = 3.0


def combine(a, b):
    """The inverse-variance combination of two measurements of the same marginal.

    ``values = (a / sa**2 + b / sb**2) / (1 / sa**2 + 1 / sb**2)`` and ``sigma = (1 / sa**2
    + 1 / sb**2) ** -0.5``, cell by cell; a cell with an infinite sd in one of them keeps
    the other's value and sd.

    Examples
    --------
    >>> a = Measurement((0,), np.array([10.0, 20.0, 5.0]), 2.0)
    >>> b = Measurement((0,), np.array([12.0, 20.0, 0.0]), np.array([2.0, 1.0, np.inf]))
    >>> m = combine(a, b)
    >>> m.values.tolist(), np.round(m.sigma, 4).tolist()
    ([11.0, 20.0, 5.0], [1.4142, 0.8944, 2.0])
    """
    if a.cols != b.cols:
        raise ValueError(f"measurements of different marginals: {a.cols} and {b.cols}.")
    wa = np.broadcast_to(np.square(np.asarray(a.sigma, dtype=np.float64)) ** -1.0,
                         a.values.shape)
    wb = np.broadcast_to(np.square(np.asarray(b.sigma, dtype=np.float64)) ** -1.0,
                         b.values.shape)
    w = wa + wb
    values = (wa * a.values + np.where(wb > 0, wb * b.values, 0.0)) / w
    return Measurement(a.cols, values, w ** -0.5)


def combine_oneways(ones, released):
    """``ones`` (the solver's 1-way measurements) each combined (:func:`combine`) with the
    measurement of its column in ``released`` (``{column: Measurement}``, from releases
    made before the solver's), where there is one; the others as they are."""
    if not released:
        return list(ones)
    return [combine(m, released[m.cols[0]]) if len(m.cols) == 1 and m.cols[0] in released
            else m for m in ones]


def near_zero(ones, columns, k, spread=0.0):
    """``{(j,): mask}``: for each 1-way measurement of a column ``j`` in ``columns``, the
    cells whose noisy count is below ``k`` times their noise sd (Base-Cut, module
    docstring), never the cell of the largest count; columns with no such cell are left out,
    and so are, when ``spread > 0``, the columns whose noisy total spread evenly over their
    ``m`` cells (``sum(values) / m``) is below ``spread`` times their median noise sd: there a
    real bin holding a small share of the rows is no larger than the noise, and a cut at ``k``
    sds would take it with the empty ones. Of the cells below ``k`` sds only the tails and
    the clear holes are cut (:func:`tails_and_holes`).

    Examples
    --------
    >>> ones = [Measurement((0,), np.array([900.0, 40.0, -30.0, 200.0]), 50.0),
    ...         Measurement((1,), np.array([10.0, 990.0]), 50.0)]
    >>> {c: m.tolist() for c, m in near_zero(ones, [0], 1.0).items()}
    {(0,): [False, True, True, False]}
    """
    out = {}
    for m in ones:
        if len(m.cols) != 1 or m.cols[0] not in columns or k <= 0:
            continue
        sd = np.broadcast_to(m.sigma, m.values.shape)
        if spread > 0 and m.values.mean() < spread * np.median(sd):
            continue
        mask = m.values < k * sd
        mask[np.argmax(m.values)] = False
        mask = tails_and_holes(mask, m.values, sd, k)
        if mask.any():
            out[m.cols] = mask
    return out


def tails_and_holes(mask, values, sd, k):
    """``mask`` (a column's cells below ``k`` noise sds, :func:`near_zero`) less the runs of
    cut cells that are neither a tail nor a clear hole.

    A run of adjacent cut cells that reaches an end of the column (a tail: where a public bound
    lies beyond the data) stays cut. An interior run stays cut only when both cells beside it
    are at least ``HOLE_WALL`` noise sds (a gap between two clear signals) and the run's noisy
    total is below ``k`` times the total's sd (the square root of its cells' variances summed):
    a real bin in a slowly falling tail, its neighbours near the noise too, is kept (issue 30,
    nassCDS ``weight`` at epsilon 0.5). Reads ``values`` and ``sd`` only.

    Examples
    --------
    >>> values = np.array([-10.0, 900.0, 40.0, 500.0, 120.0, 10.0, 130.0, 20.0])
    >>> tails_and_holes(values < 50.0, values, np.full(8, 50.0), 1.0).tolist()
    [True, False, True, False, False, False, False, True]
    """
    out = mask.copy()
    ends = np.flatnonzero(np.diff(np.concatenate(([0], mask.astype(np.int8), [0]))))
    for a, b in zip(ends[::2], ends[1::2]):
        if a == 0 or b == len(mask):
            continue
        walls = values[a - 1] >= HOLE_WALL * sd[a - 1] and values[b] >= HOLE_WALL * sd[b]
        if not (walls and values[a:b].sum() < k * np.sqrt(np.square(sd[a:b]).sum())):
            out[a:b] = False
    return out


def with_cut(zeros, cut):
    """The structural ``zeros`` (``{cols: boolean mask}`` or ``None``) with the cells of
    ``cut`` (:func:`near_zero`) added; ``zeros`` itself when ``cut`` is empty.

    Examples
    --------
    >>> z = with_cut({(0,): np.array([True, False, False])}, {(0,): np.array([False, False, True])})
    >>> z[(0,)].tolist()
    [True, False, True]
    """
    if not cut:
        return zeros
    out = dict(zeros or {})
    for cols, mask in cut.items():
        out[cols] = mask | np.asarray(out[cols], dtype=bool) if cols in out else mask
    return out
