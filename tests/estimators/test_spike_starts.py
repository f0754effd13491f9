"""Only the spikes at edges that ``spike_edges`` added give their noisy counts to their bins
(issue 30, spike-start bins): a released spike that sits on an edge the rule did not add (an
equal edge, as weather's ``visib`` 8 and 9 on 0-10) stays spread with its cell, so a column
the rule does not split is measured exactly as without the rule."""

import numpy as np

from skdp._domain import Column
from skdp._domain.fine_bins import set_fine_edges, spike_edges
from _toy import spiky_column

SPIKES = [6.9, 9.96733, 10.3, 10.5763, 11.8427]  # irregular exact values in the bin 6-12




def _plain(col):
    """The cells' sums and sds with no spike's count given to its bin."""
    A = col.fine.bin_matrix(col)
    return A @ col.fine.counts, np.sqrt(np.square(A).sum(axis=1)) * col.fine.sigma


def test_a_spike_on_an_edge_the_rule_did_not_add_gives_no_count():
    col = spiky_column([12.0, 30.0], [40.0, 40.0])  # on equal edges, in light bins: no edge added
    col.edges = np.linspace(0, 60, 11)  # as ``fine``'s rule keeps equal edges
    spike_edges(col)
    assert col.n_bins == 10 and len(col.spike_starts) == 0
    assert set([12.0, 30.0]) <= set(col.edges)  # the spikes sit on (equal) edges
    values, sd = col.fine.bin_counts(col)
    want, want_sd = _plain(col)
    np.testing.assert_allclose(values[:10], want)
    np.testing.assert_allclose(sd[:10], want_sd)


def test_the_added_starts_are_recorded_and_only_their_spikes_count():
    col = spiky_column(SPIKES + [30.0], [800.0] * 5 + [40.0])  # 30: an equal edge, not added
    set_fine_edges([col])
    np.testing.assert_array_equal(col.spike_starts, np.setdiff1d(SPIKES, np.linspace(0, 60, 11)))
    assert 30.0 in set(col.edges)
    values, _ = col.fine.bin_counts(col)
    want, _ = _plain(col)
    at = col._encode_bins(np.array(SPIKES + [30.0]))
    assert np.all(values[at[:5]] >= 800.0)  # each added start's bin holds its spike's count
    np.testing.assert_allclose(values[at[5]], want[at[5]])  # 30's bin: its cells' sums
    np.testing.assert_allclose(values[:col.n_bins].sum(), want.sum())  # counts moved, not added


def test_a_column_without_the_rule_records_no_starts():
    col = Column("x", float, kind="numeric", low=0.0, high=1.0, n_bins=2)
    assert len(col.spike_starts) == 0


def test_a_refined_grid_gives_its_added_starts_their_spikes_counts():
    """A second level (``resolution_refine``) keeps one noise sd per cell; the spikes that
    start bins still give their counts, with the first level's noise (issue 30: refined
    ``votes`` of ggplot2movies at epsilon 0.5 measured each spike's bin at its sub-cell's
    width share, 208 +- 0.4 rows against 1,000-2,600, and the model followed it)."""
    col = spiky_column(SPIKES, [800.0] * 5)
    grid = col.fine
    cells = np.unique(grid.cell(np.array(SPIKES))) - 1
    splits = np.ones(64, dtype=np.int64)
    splits[cells] = 4
    noisy = np.full(4 * len(cells), 5.0)  # the flat rest, 20 a cell, and each spike in its sub-cell
    for v, c in zip(SPIKES, grid.spike_counts):
        k = int(np.searchsorted(grid.edges, v, side="right")) - 1
        sub = int((v - grid.edges[k]) / (grid.edges[k + 1] - grid.edges[k]) * 4)
        noisy[4 * int(np.flatnonzero(cells == k)[0]) + sub] += c
    grid.refine(splits, noisy, 5.0)
    assert np.ndim(grid.sigma) == 1
    set_fine_edges([col])
    assert len(col.spike_starts) > 0
    values, sd = grid.bin_counts(col)
    at = col._encode_bins(col.spike_starts)
    assert np.all(values[at] >= 800.0)  # each added start's bin holds its spike's count
    A = grid.bin_matrix(col)
    B = grid.spike_matrix(col, A)[:, np.isin(grid.spikes, col.spike_starts)]
    want = np.sqrt(np.square(A) @ np.square(grid.sigma) + 10.0 ** 2 * np.square(B).sum(axis=1))
    np.testing.assert_allclose(sd[:col.n_bins], want)  # the spikes' sd: the first level's, 10
    np.testing.assert_allclose(values[:col.n_bins].sum(), (A @ grid.counts).sum())
