"""An integer column's value drawn within an equal cell is never a bound: the bounds' values
are their point cells' (issue 30: an empty bound came back as rows at exactly the bound)."""
import numpy as np

from skdp._domain import Column
from skdp._domain.fine import FineGrid


def test_integer_draws_within_the_end_cells_are_not_the_bounds():
    col = Column("x", int, kind="numeric", low=0.0, high=100.0, n_bins=1, integer=True)
    grid = FineGrid(0.0, 100.0, integer=True, points=np.array([0.0, 100.0]),
                    edges=np.linspace(0, 100, 21), counts=np.r_[0.0, np.full(20, 50.0), 0.0],
                    sigma=10.0)
    grid.set_bin_totals(np.array([1000.0]))
    x = grid.decode(col, np.zeros(20_000, dtype=np.int64), np.random.default_rng(0),
                    lambda c, r: np.full(len(c), -1.0))
    assert np.all(x == np.round(x))
    assert x.min() == 1.0 and x.max() == 99.0
    # every integer of a cell is drawn, evenly: [95, 100) holds 95 ... 99, a fifth of its 50
    top = np.bincount(x[x >= 95].astype(int) - 95, minlength=5) / len(x)
    assert np.allclose(top, 0.01, atol=0.003)
