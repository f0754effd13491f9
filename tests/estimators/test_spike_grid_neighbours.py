"""Spike-start bins where a heavy bin holds only one or two released spikes (issue 30,
``fine_bins._starts``): too few to judge their spacing alone, they are judged with the nearest
released spike on either side. A unit's grid (a smooth quantity in steps, two to a bin) starts
no bin; a mode of the grid (a count above ``MODE_RATIO`` times its neighbours') still does; an
irregular pair starts its bins as before. Post-processing of the released spikes only."""

import numpy as np

from skdp._domain import fine_bins
from skdp._domain.fine_bins import set_fine_edges
from _toy import spiky_column

STEPS = 13.5 + 3.0 * np.arange(4)  # 13.5 16.5 | 19.5 22.5: two to each of two heavy bins


def _added(col):
    return set(col.spike_starts.tolist())


def test_a_grid_two_to_a_bin_starts_no_bin():
    col = spiky_column(STEPS, [3000.0] * 4)  # 46% of the mass in each of 12-18 and 18-24
    set_fine_edges([col])
    assert not _added(col)  # (each pair alone, as before: all four started a bin)


def test_a_mode_of_the_grid_starts_its_bin():
    counts = np.full(4, 1000.0)
    counts[1] = 5000.0  # 16.5: five times each neighbour
    col = spiky_column(STEPS, counts)
    set_fine_edges([col])
    assert _added(col) == {16.5}  # 13.5, in the same bin, is a step
    counts[1] = 1.5 * 1000.0  # not above MODE_RATIO times its neighbours: a step
    col = spiky_column(STEPS, counts)
    set_fine_edges([col])
    assert not _added(col) and fine_bins.MODE_RATIO > 1.5


def test_an_irregular_pair_starts_its_bins_and_three_on_a_grid_do_not():
    spikes = [3.2, 7.0, 8.1, 13.9]  # 7.0 and 8.1 share a bin; no equal spacing around them
    col = spiky_column(spikes, [1500.0] * 4)
    set_fine_edges([col])
    assert {7.0, 8.1} <= _added(col)
    grid = [12.5, 13.5, 14.5, 15.5]  # three or more in one bin on a grid: none, mode or not
    col = spiky_column(grid, [500.0, 3000.0, 500.0, 500.0])
    set_fine_edges([col])
    assert not _added(col) & set(grid)

