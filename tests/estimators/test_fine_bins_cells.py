"""``bin_strategy='fine'`` where the fine grid is coarse (issue 30): a grid of equal cells with
fewer than ``CELLS_PER_BIN`` cells per model bin keeps the equal bins (within a cell the rule
knows only the cell's total); a grid of one cell per integer keeps the rule. Post-processing
of the same release: the ledger and the released fine counts do not change."""

import numpy as np
import pytest

from skdp._domain import fine_bins
from skdp._domain.fine import FineGrid
from skdp._domain.fine_bins import CELLS_PER_BIN, fine_edges
from _toy import fit_synthesizer as _fit

DOMAIN = {"visits": {"low": 0, "high": 15, "integer": True},
          "income": {"low": 0.0, "high": 12.0},
          "c": ["a", "b"]}


def _table(n=6000, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    visits = np.minimum(rng.geometric(0.45, n) - 1, 15)
    income = np.clip(rng.normal(9.2, 0.35, n) + 0.08 * np.minimum(visits, 4), 0, 12)
    return pd.DataFrame({"visits": visits, "income": income, "c": rng.choice(["a", "b"], n)})


def _heavy(cells):
    grid = FineGrid(0.0, 12.0, integer=False, points=np.array([0.0, 12.0]),
                    edges=np.linspace(0, 12, cells + 1))
    grid.counts = np.concatenate([[0.0], 3000 * 0.6 ** np.arange(cells), [0.0]])
    return grid


@pytest.mark.parametrize("n_bins", [8, 10])
def test_the_guard_is_the_number_of_cells_per_bin(n_bins, monkeypatch):
    assert CELLS_PER_BIN == 2
    assert fine_edges(_heavy(2 * n_bins - 1), n_bins) is None
    for cells in (2 * n_bins, 4 * n_bins):
        assert fine_edges(_heavy(cells), n_bins) is not None, cells
    monkeypatch.setattr(fine_bins, "CELLS_PER_BIN", 0)  # the rule alone would move them
    assert fine_edges(_heavy(2 * n_bins - 1), n_bins) is not None


def test_a_per_integer_grid_keeps_the_rule_with_few_integers_per_bin():
    grid = FineGrid(0.0, 20.0, integer=True, points=np.arange(21.0))
    grid.counts = np.array([60.0, 20, 10, 5, 3, 1, 1] + [0] * 14)
    assert fine_edges(grid, 8) is not None  # 21 integers, 8 bins: fewer than 2 a bin


def test_a_coarse_grid_keeps_equal_bins_through_the_estimator(monkeypatch):
    X = _table()
    # no second level ('auto' splits income's heavy cell, and a refined grid is not coarse)
    coarse = _fit(X, domain=DOMAIN, bin_strategy="fine", resolution=16,  # 16 < 2 * 10
                  resolution_refine=0.0)
    fine = _fit(X, domain=DOMAIN, bin_strategy="fine", resolution=64, resolution_refine=0.0)
    assert "income" not in coarse.bin_edges_ and "income" in fine.bin_edges_
    assert "visits" in coarse.bin_edges_  # 16 integers, one cell each: the rule applies
    uniform = _fit(X, domain=DOMAIN, bin_strategy="uniform", resolution=16,
                   resolution_refine=0.0)
    np.testing.assert_array_equal(coarse.resolution_["income"]["counts"],
                                  uniform.resolution_["income"]["counts"])
    assert coarse.privacy_spent_ == pytest.approx(uniform.privacy_spent_, rel=1e-12)
    # without the guard the coarse grid's bins would have moved: the guard is what keeps them
    monkeypatch.setattr(fine_bins, "CELLS_PER_BIN", 0)
    assert "income" in _fit(X, domain=DOMAIN, bin_strategy="fine", resolution=16,
                            resolution_refine=0.0).bin_edges_
    out = coarse.sample(2000, random_state=1)
    assert out["income"].dropna().between(0, 12).all()
