"""Fine counts shrunk toward flat within a model bin (issue 30, item 1; ``resolution_shrink``,
on by default): the positive-part James-Stein rules of :mod:`skdp._domain.fine` applied at
decoding, toward equal counts on a grid of one cell per integer
(:func:`~skdp._domain.fine.shrink_to_flat`), toward a linear density on the pieces of equal or
refined cells (:func:`~skdp._domain.fine.shrink_to_line`; released spikes and the bounds'
point cells kept). Post-processing: the released values and the ledger are those of a fit
without it; only the sampled values within a bin change."""

import numpy as np
import pandas as pd
import pytest

from skdp._domain import Column, fine
from skdp._domain.fine import FineGrid, shrink_to_flat
from _toy import fit_synthesizer as _fit


def _integer_grid(high, n_bins, sigma, seed=0):
    """A per-integer grid on ``0..high`` with noisy counts of a jagged shape, its column of
    ``n_bins`` equal bins, the bins' totals set."""
    rng = np.random.default_rng(seed)
    col = Column("k", int, kind="numeric", low=0, high=high, n_bins=n_bins, integer=True,
                 missing=True)
    points = np.arange(high + 1.0)
    counts = rng.integers(0, 40, len(points)) + rng.normal(0, sigma, len(points))
    grid = FineGrid(0.0, float(high), integer=True, points=points, counts=counts, sigma=sigma)
    grid.set_bin_totals(np.full(n_bins, 200.0), shrink=True)
    return col, grid


def _bin_weights(col, grid, shrink=True):
    grid.shrink, grid._pieces = shrink, None
    starts, _, _, weight = grid.pieces(col)
    return [weight[s:e] for s, e in zip(starts[:-1], starts[1:])]


def test_the_formula_on_a_hand_case():
    p = np.array([12.0, 2.0, 6.0, 4.0, 6.0])  # mean 6, squared spread 36 + 16 + 4 = 56
    c = 1 - (5 - 3) * 2.0 ** 2 / 56
    assert np.allclose(shrink_to_flat(p, 2.0), 6.0 + c * (p - 6.0))
    # unequal sds: their mean variance stands for sigma**2
    sd = np.array([1.0, 1.0, 3.0, 1.0, 2.0])
    c = 1 - 2 * np.mean(sd ** 2) / 56
    assert np.allclose(shrink_to_flat(p, sd), 6.0 + c * (p - 6.0))


def test_flat_at_noise_level_and_as_released_where_the_signal_dominates():
    rng = np.random.default_rng(1)
    noise = 50.0 + rng.normal(0, 1.0, 12)  # a spread of about sigma per cell: flat
    assert np.allclose(shrink_to_flat(noise, 3.0), noise.mean())
    signal = np.array([1000.0, 0.0, 0.0, 500.0, 2000.0, 10.0])
    out = shrink_to_flat(signal, 1.0)
    assert np.allclose(out, signal, rtol=0, atol=0.01)
    assert not np.allclose(out, signal, rtol=0, atol=0)  # but still shrunk (c < 1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_bin_keeps_its_total_and_stays_non_negative(seed):
    col, grid = _integer_grid(39, 4, sigma=15.0, seed=seed)
    for w in _bin_weights(col, grid):
        assert w.sum() == pytest.approx(200.0)
        assert np.all(w >= 0)


def test_the_shape_within_a_bin_moves_toward_flat():
    col, grid = _integer_grid(39, 4, sigma=15.0)
    shrunk, raw = _bin_weights(col, grid), _bin_weights(col, grid, shrink=False)
    for a, b in zip(shrunk, raw):
        assert np.square(a - a.mean()).sum() <= np.square(b - b.mean()).sum() + 1e-9
    assert any(not np.allclose(a, b) for a, b in zip(shrunk, raw))


def test_bins_of_fewer_than_four_integers_and_a_zero_sigma_are_untouched():
    small, grid_small = _integer_grid(5, 2, sigma=15.0)  # 3 integers a bin
    big, grid_exact = _integer_grid(39, 4, sigma=0.0)  # not private
    shrunk = _bin_weights(small, grid_small) + _bin_weights(big, grid_exact)
    raw = (_bin_weights(small, grid_small, shrink=False) +
           _bin_weights(big, grid_exact, shrink=False))
    assert all(np.array_equal(a, b) for a, b in zip(shrunk, raw))
    assert np.array_equal(shrink_to_flat(np.array([3.0, 0.0, 9.0, 1.0]), 0.0), [3, 0, 9, 1])


def _cells_grid(sigma, spikes=False):
    """A grid of 20 equal cells on [0, 10] with bound cells, noisy counts around 20, its column of
    two equal bins, the bins' totals set (and a released spike at 2.25 holding 60)."""
    col = Column("x", float, kind="numeric", low=0.0, high=10.0, n_bins=2)
    rng = np.random.default_rng(0)
    grid = FineGrid(0.0, 10.0, integer=False, points=np.array([0.0, 10.0]),
                    edges=np.linspace(0, 10, 21), counts=rng.normal(20, sigma, 22),
                    sigma=sigma)
    if spikes:
        grid.counts[5] += 60.0
        grid.spikes, grid.spike_counts = np.array([2.25]), np.array([60.0])
    grid.set_bin_totals(np.array([300.0, 200.0]), shrink=True)
    return col, grid


def test_equal_cells_at_the_noise_level_are_drawn_as_a_linear_density():
    col, grid = _cells_grid(sigma=15.0)
    starts, lo, hi, weight = grid.pieces(col)
    for s, e, total in zip(starts[:-1], starts[1:], (300.0, 200.0)):
        cells = s + np.flatnonzero(hi[s:e] > lo[s:e])
        w = weight[cells] / (hi[cells] - lo[cells])  # density
        assert weight[s:e].sum() == pytest.approx(total) and np.all(weight[s:e] >= 0)
        assert np.allclose(np.diff(w, 2), 0.0, atol=1e-9)  # linear
    grid.shrink, grid._pieces = False, None
    assert not np.allclose(np.diff(grid.pieces(col)[3][1:11], 2), 0.0, atol=1e-3)


def _pieces(col, grid, shrink):
    grid.shrink, grid._pieces = shrink, None
    return grid.pieces(col)


def test_a_grid_with_released_spikes_is_drawn_as_released():
    """Its values sit on repeated values: a cell's count beyond its spikes' is more likely a
    spike under the threshold than noise, so nothing is smoothed."""
    col, grid = _cells_grid(sigma=15.0, spikes=True)
    assert np.array_equal(_pieces(col, grid, True)[3], _pieces(col, grid, False)[3])


def test_the_bounds_point_cells_and_refined_sub_cells_are_kept():
    col, grid = _cells_grid(sigma=15.0)
    splits = np.zeros(20, dtype=np.int64)
    splits[3] = 4  # [1.5, 2) split into four sub-cells
    grid.refine(splits, np.array([30.0, 0.0, 25.0, 5.0]), 10.0)
    grid.set_bin_totals(np.array([300.0, 200.0]), shrink=True)
    shrunk, raw = _pieces(col, grid, True), _pieces(col, grid, False)
    lo, hi = shrunk[1], shrunk[2]
    kept = (hi == lo) | ((lo >= 1.5) & (hi <= 2.0))  # the bounds and the four sub-cells
    assert kept.sum() == 6
    assert np.allclose(shrunk[3][kept], raw[3][kept])
    assert not np.allclose(shrunk[3][~kept], raw[3][~kept])


def test_cells_well_above_the_noise_keep_their_shape():
    col, grid = _cells_grid(sigma=15.0)
    grid.counts = np.r_[0.0, np.tile([10.0, 200.0], 10), 0.0]  # a comb, far above sigma
    grid.set_bin_totals(np.array([1050.0, 1050.0]), shrink=True)
    shrunk = grid.pieces(col)[3]
    grid.shrink, grid._pieces = False, None
    assert np.allclose(shrunk, grid.pieces(col)[3], rtol=0.05, atol=2.0)


def _events(est):
    return [(type(e).__name__, e.label, getattr(e, "rho", None), getattr(e, "mu", None),
             getattr(e, "delta", None)) for e in est.privacy_ledger_.entries]


def _table():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"k": np.minimum(rng.geometric(0.08, 2000), 60) - 1,
                      "c": rng.choice(["a", "b"], 2000)})
    return X, {"k": {"low": 0, "high": 59, "integer": True}, "c": ["a", "b"]}


def test_on_by_default_and_off_on_request(monkeypatch):
    X, domain = _table()
    calls = []
    monkeypatch.setattr(fine, "shrink_to_flat", lambda p, sigma: calls.append(1) or p.copy())
    est = _fit(X, domain=domain)
    assert est.resolution_shrink is True
    est.sample(500)
    assert calls
    calls.clear()
    _fit(X, domain=domain, resolution_shrink=False).sample(500)
    assert not calls


def test_the_release_is_that_of_the_fit_without_the_shrink():
    X, domain = _table()
    est = _fit(X, domain=domain)
    before = _fit(X, domain=domain, resolution_shrink=False)
    rows_before = before.sample(2000)
    assert _events(est) == _events(before)
    assert est.privacy_spent_ == pytest.approx(before.privacy_spent_, rel=1e-12)
    ours, theirs = est.resolution_["k"], before.resolution_["k"]
    assert ours["values"] == theirs["values"]
    assert np.allclose(ours["counts"], theirs["counts"], rtol=1e-12, atol=0)
    rows = est.sample(2000)
    col = est._columns[0]
    # the same model bins sampled; only the values within them change
    assert np.array_equal(col._encode_bins(rows["k"].to_numpy(float)),
                          col._encode_bins(rows_before["k"].to_numpy(float)))
    assert not np.array_equal(rows["k"].to_numpy(), rows_before["k"].to_numpy())


@pytest.mark.parametrize("flag, expected", [([], True), (["--resolution-shrink"], True),
                                             (["--no-resolution-shrink"], False)])
def test_the_cli_flag_reaches_the_estimator(flag, expected):
    from skdp._cli.commands import _estimator
    from skdp._cli.parser import build_parser

    args = build_parser().parse_args(["synthesize", "in.csv", "-o", "out.csv"] + flag)
    args.accountant = None  # no --store (set when the budget flags are read)
    assert _estimator(args, None, 10).resolution_shrink is expected


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("scale", [1.0, 1e-300, 1e300])
def test_the_line_keeps_the_total_and_non_negativity_at_any_scale(seed, scale):
    """Random pieces of unequal widths (a bin cut by a user's edges, refined cells beside
    unrefined ones), centres near 0 or near the float limits: the shrunk counts stay
    finite, non-negative and of the same total."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(4, 40))
    widths = rng.uniform(0.1, 2.0, k)
    edges = np.concatenate([[0.0], np.cumsum(widths)])
    centres = (edges[:-1] + edges[1:]) / 2 * scale + (0.5 * scale if scale > 1 else 0.0)
    p = np.clip(rng.normal(30, 20, k), 0, None)
    out = fine.shrink_to_line(p, rng.uniform(1, 30), widths * scale, centres)
    assert np.all(np.isfinite(out)) and np.all(out >= 0)
    assert out.sum() == pytest.approx(p.sum(), rel=1e-9)
