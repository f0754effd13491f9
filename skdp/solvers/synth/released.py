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
"""

import numpy as np

from .graphical import Measurement

__all__ = ["combine", "combine_oneways"]


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
