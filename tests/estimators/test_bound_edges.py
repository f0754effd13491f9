"""A bound's point cell gets a model bin of its own (issue 30, :func:`skdp._domain.fine_bins.
bound_edges`): where the bin holding it is heavy and the point cell holds more than an average
bin's share (and clearly more than noise), an edge at the next float after ``low`` (before
``high``), the lightest pair of bins merged where it is near-empty (else no change).
Post-processing of the fine release: the ledger is unchanged, and on a grid too
coarse for ``fine_edges`` a zero-inflated column's zeros are then modelled with the other
columns instead of placed within their bin independently of them."""

import numpy as np
import pandas as pd
import pytest

from skdp._domain import Column, fine_bins
from skdp._domain.fine import FineGrid
from skdp._domain.fine_bins import bound_edges, set_fine_edges
from _toy import fit_synthesizer as _fit


def _column(low_count, high_count=0.0, rest=100.0, first=1200.0, cells=16, sigma=20.0,
            empty=8):
    """A float column on 0-3000 (10 equal bins) whose fine grid of ``cells`` equal cells
    holds ``first`` in its first cell, ``rest`` in each other but the last ``empty`` (an
    empty tail), and the bounds' point cells."""
    g = FineGrid(0.0, 3000.0, integer=False, points=np.array([0.0, 3000.0]),
                 edges=np.linspace(0, 3000, cells + 1), sigma=sigma)
    g.counts = np.concatenate([[low_count, first], np.full(cells - 1 - empty, rest),
                               np.zeros(empty), [high_count]])
    return Column("x", float, kind="numeric", low=0.0, high=3000.0, n_bins=10, fine=g)


def test_a_heavy_zero_mass_gets_a_bin_of_its_own_and_an_empty_pair_is_merged():
    col = _column(1500.0)
    set_fine_edges([col])  # 16 cells: too coarse for fine_edges, the equal bins stay
    assert col.n_bins == 10 and len(col.edges) == 11
    assert col.edges[0] == 0.0 and col.edges[1] == np.nextafter(0.0, 1.0)
    equal = np.linspace(0, 3000, 11)
    assert set(col.edges[2:]) < set(equal) and 1500.0 in col.edges  # one edge of the tail gone


def test_without_a_near_empty_pair_the_bins_stay():
    col = _column(1500.0, empty=0)
    bound_edges(col)
    assert col.edges is None and col.n_bins == 10


def test_the_high_bound_too():
    col = _column(0.0, high_count=1500.0, first=0.0, rest=0.0, empty=0)
    col.fine.counts[-2] = 1200.0  # the last cell heavy, as the first was
    col.fine.counts[-5:-2] = 200.0
    bound_edges(col)
    assert col.n_bins == 10 and col.edges[-2] == np.nextafter(3000.0, 0.0)


@pytest.mark.parametrize("low_count, first, rest, sigma", [
    (150.0, 1200.0, 100.0, 20.0),  # under an average bin's share (205 of 2,050 rows)
    (1500.0, 1200.0, 100.0, 600.0),  # under 3 noise sds
    (1200.0, 1000.0, 1100.0, 20.0),  # its bin (2,860 of 9,900 rows) under SPIKE_HEAVY / 10
    (1500.0, 0.0, 100.0, 20.0),  # the rest of its bin (60 rows) under a bin's share: it
])                               # would leave an empty bin
def test_a_light_point_cell_or_bin_keeps_the_equal_bins(low_count, first, rest, sigma):
    col = _column(low_count, first=first, rest=rest, sigma=sigma)
    bound_edges(col)
    assert col.edges is None and col.n_bins == 10


def test_a_bound_already_alone_in_its_bin_is_left_as_it_is():
    col = _column(1500.0)
    col.edges = np.concatenate([[0.0, np.nextafter(0.0, 1.0)], np.linspace(0, 3000, 10)[1:]])
    col.n_bins = 10
    bound_edges(col)
    assert col.n_bins == 10


def _table(n=3000, seed=0):
    """``inlf``: 60% work; ``earns``: 0 for those who do not, 1-280 for those who do (all in
    the first of 10 equal bins of 0-3000)."""
    rng = np.random.default_rng(seed)
    inlf = rng.random(n) < 0.6
    return pd.DataFrame({"inlf": np.where(inlf, "yes", "no"),
                         "earns": np.where(inlf, rng.uniform(1, 280, n), 0.0)})


DOMAIN = {"inlf": ["no", "yes"], "earns": {"low": 0.0, "high": 3000.0}}


def _ledger(synth):
    return [(type(e).__name__, e.label, getattr(e, "rho", None))
            for e in synth.privacy_ledger_.entries]


def test_the_zeros_follow_the_other_columns_at_no_charge(monkeypatch):
    """At epsilon 8 on 3,000 rows and an unrefined grid of 16 cells (too coarse for
    ``fine_edges``): with the zeros' own bin, few synthetic workers earn 0; without it
    (``BOUND_SD`` infinite), the zeros are drawn within the first bin for workers and others
    alike. The ledger is the same entry by entry."""
    X = _table()
    on = _fit(X, domain=DOMAIN, solver="mst", epsilon=8.0, resolution=16, resolution_refine=0)
    assert on.bin_edges_["earns"][1] == np.nextafter(0.0, 1.0)
    monkeypatch.setattr(fine_bins, "BOUND_SD", np.inf)
    off = _fit(X, domain=DOMAIN, solver="mst", epsilon=8.0, resolution=16, resolution_refine=0)
    assert "earns" not in off.bin_edges_
    assert _ledger(on) == _ledger(off)

    def zero_workers(synth):
        s = synth.sample(random_state=1)
        return float((s["earns"][s["inlf"] == "yes"] == 0).mean())

    assert zero_workers(on) < 0.1 < 0.3 < zero_workers(off)


def test_both_bounds_get_a_bin_and_n_bins_is_still_kept():
    col = _column(1500.0, high_count=1500.0, empty=8)
    col.fine.counts[-2] = 1200.0  # the last cell heavy too; the middle of the range empty
    bound_edges(col)
    assert col.n_bins == 10 and len(col.edges) == 11
    assert col.edges[1] == np.nextafter(0.0, 1.0) and col.edges[-2] == np.nextafter(3000.0, 0.0)
