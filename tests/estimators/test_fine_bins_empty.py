"""Model bins read from the fine release: empty neighbouring bins merged, with
``fine_bins.MERGE_EMPTY`` (off by default; issue 30, the fine grid's own resolution).
The model's estimate of a bin that holds no row is its noise kept where positive, so
every empty bin comes back with rows; the rule then merges the neighbouring pairs whose
noisy fine counts sum to at most ``NEAR_EMPTY / n_bins`` of the mass, read from the plain
sums (the projected counts give an empty cell the positive part of its noise, and a long
empty tail looked full). Post-processing: no charge (the ledger tests of
tests/estimators/test_fine_bins.py hold)."""

import numpy as np
import pandas as pd

from skdp._domain.fine import FineGrid, project_nonnegative
from skdp._domain import fine_bins
from skdp._domain.fine_bins import NEAR_EMPTY, fine_edges
from _toy import fit_synthesizer as _fit


def _noisy_tail_grid(seed=0):
    """81 integers, 1,000 rows on 0-3, an empty tail 4-80 with noise of sd 20 per integer."""
    rng = np.random.default_rng(seed)
    counts = np.zeros(81)
    counts[:4] = [400.0, 300.0, 200.0, 100.0]
    return FineGrid(0.0, 80.0, integer=True, points=np.arange(81.0),
                    counts=counts + rng.normal(0, 20.0, 81), sigma=20.0)


def test_an_empty_noisy_tail_becomes_one_bin():
    g = _noisy_tail_grid(1)
    # projected, the tail's noise looks like mass: far above NEAR_EMPTY / n_bins
    tail = project_nonnegative(g.counts)[8:].sum() / project_nonnegative(g.counts).sum()
    assert g.counts[8:].sum() / g.counts.sum() < NEAR_EMPTY / 10 < tail  # plain sums: not
    assert fine_edges(g, 10, merge_empty=True).tolist() == [0.0, 0.5, 1.5, 2.5, 80.0]
    assert len(fine_edges(g, 10)) == 11  # off: n_bins bins
    # the merge stops where a pair's noisy sum is above the threshold: some seeds keep a
    # few tail bins, never more than the equal bins
    for seed in range(6):
        edges = fine_edges(_noisy_tail_grid(seed), 10, merge_empty=True)
        assert edges[1:4].tolist() == [0.5, 1.5, 2.5] and len(edges) <= 10


def test_fit_with_merged_bins_keeps_its_columns_consistent(monkeypatch):
    monkeypatch.setattr(fine_bins, "MERGE_EMPTY", True)
    rng = np.random.default_rng(1)
    n = 6000
    visits = np.minimum(rng.geometric(0.5, n) - 1, 6)  # 0-6 of bounds 0-80
    X = pd.DataFrame({"visits": visits, "c": np.where(visits > 1, "a", rng.choice(["a", "b"], n))})
    domain = {"visits": {"low": 0, "high": 80, "integer": True, "missing": False},
              "c": ["a", "b"]}
    synth = _fit(X, domain=domain, solver="mst")
    edges = synth.bin_edges_["visits"]
    assert len(edges) < 11 and edges[-1] == 80
    col = synth._columns[0]
    assert col.n_bins == len(edges) - 1 and col.cardinality == col.n_bins  # no missing cell
    S = synth.sample(20000, random_state=0)
    assert S["visits"].between(0, 80).all()
    # the empty tail gets few rows back (equal bins gave each empty bin its noise's rows)
    assert (S["visits"] > 8).mean() < 0.01
