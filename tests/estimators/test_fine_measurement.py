"""The fine release as a measurement of the model (issue 30): each numeric column's fine grid
counts, summed to the model's bins, are combined with the solver's own 1-way measurement by
inverse-variance weighting, and decoding places values within a bin consistently with the
model's bin total. Both are post-processing: the ledger is that of a fit without them."""

import numpy as np
import pandas as pd
import pytest

import skdp.synthesizer as synth_mod
from skdp._domain import Column
from skdp._domain.fine import FineGrid
from skdp.solvers.synth.compress import compress
from skdp.solvers.synth.graphical import Measurement
from skdp.solvers.synth.released import combine
from _toy import fit_synthesizer as _fit

DOMAIN = {"x": {"low": 0, "high": 10}, "k": {"low": 0, "high": 19, "integer": True},
          "c": ["a", "b"]}


def _table(n=3000, seed=0):
    """A float column spread over all its bins (no bin merged by the compression), an integer
    column, a category."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.uniform(0, 10, n), "k": rng.integers(0, 20, n),
                         "c": rng.choice(["a", "b"], n)})


def _without(monkeypatch):
    """The fit as before the change: no fine measurement given to the solver."""
    monkeypatch.setattr(synth_mod, "_fine_oneways", lambda columns: None)


def _events(est):
    return [(type(e).__name__, e.label, getattr(e, "rho", None), getattr(e, "mu", None),
             getattr(e, "delta", None)) for e in est.privacy_ledger_.entries]


def _oneway(est, name):
    return next(m for m in est.measurements_ if m["marginal"] == (name,))


@pytest.mark.parametrize("solver", ["aim", "mst"])
@pytest.mark.parametrize("neighbouring", ["replace_one", "add_remove"])
def test_the_ledger_is_that_of_the_fit_without_the_fine_measurement(monkeypatch, solver,
                                                                     neighbouring):
    X = _table()
    est = _fit(X, domain=DOMAIN, solver=solver, neighbouring=neighbouring)
    with monkeypatch.context() as m:
        _without(m)
        before = _fit(X, domain=DOMAIN, solver=solver, neighbouring=neighbouring)
    ours, theirs = _events(est), _events(before)
    if solver == "mst":  # no adaptive choice: the same releases at the same noise
        assert ours == theirs
    else:  # AIM's rounds adapt to the model; every release before them is the same, and
        # the rounds spend the same budget (AIM spends all of it)
        first = next(i for i, e in enumerate(theirs) if e[1].startswith("AIM round"))
        assert ours[:first] == theirs[:first]
        assert all(e[1].startswith("AIM round") for e in ours[first:])
        rho = [sum(e[2] for e in events if e[2] is not None) for events in (ours, theirs)]
        assert rho[0] == pytest.approx(rho[1], rel=1e-9)
    assert est.privacy_spent_ == pytest.approx(before.privacy_spent_, rel=1e-9)
    # and it was used: the numeric columns' 1-way measurements carry per-cell sigmas below
    # the solver's own
    for name in ("x", "k"):
        assert np.all(np.asarray(_oneway(est, name)["sigma"])[:-1] <
                      _oneway(before, name)["sigma"])


def test_the_one_way_measurement_is_the_inverse_variance_combination(monkeypatch):
    X = _table()
    est = _fit(X, domain=DOMAIN)
    with monkeypatch.context() as m:
        _without(m)
        raw = _fit(X, domain=DOMAIN)  # the same seed: the same noise draws
    for j, name in enumerate(("x", "k")):
        col = est._columns[j]
        values, sd = col.fine.bin_counts(col)
        a = _oneway(raw, name)
        s1, s2 = a["sigma"], sd
        w1, w2 = 1.0 / s1 ** 2, np.where(np.isinf(s2), 0.0, 1.0 / s2 ** 2)
        expect = (w1 * a["counts"] + w2 * values) / (w1 + w2)
        got = _oneway(est, name)
        np.testing.assert_allclose(got["counts"], expect, rtol=1e-12)
        np.testing.assert_allclose(got["sigma"], (w1 + w2) ** -0.5, rtol=1e-12)
        if col.missing:  # the fine release does not count the missing cell: the solver's
            assert got["counts"][-1] == a["counts"][-1] and got["sigma"][-1] == s1
    assert est._columns[0].missing  # a float column: one missing cell (empty here)


def test_the_model_one_way_error_is_lower_across_seeds(monkeypatch):
    """Over seeds, the model's 1-way counts of the integer column are nearer the truth with
    the fine measurement than without (the combined noise variance is lower)."""
    X = _table(n=2000)
    truth = np.bincount(X["k"].to_numpy() // 2, minlength=10)
    err = {True: [], False: []}
    for seed in range(6):
        for used in (True, False):
            with monkeypatch.context() as m:
                if not used:
                    _without(m)
                est = _fit(X, domain=DOMAIN, random_state=seed)
            model = np.asarray(est.model_.project_counts((1,))).ravel()[:10]
            err[used].append(np.sum((model - truth) ** 2))
    assert np.mean(err[True]) < np.mean(err[False])


def test_bin_counts_sum_the_fine_cells_and_their_noise():
    col = Column("x", float, kind="numeric", low=0.0, high=4.0, n_bins=2, missing=True)
    grid = FineGrid(0.0, 4.0, integer=False, points=np.array([0.0, 4.0]),
                    edges=np.linspace(0, 4, 4), counts=np.array([1.0, 3.0, 4.0, 5.0, 2.0]),
                    sigma=3.0)
    values, sd = grid.bin_counts(col)
    # the middle equal cell [4/3, 8/3) straddles the bin edge 2: half in each bin
    np.testing.assert_allclose(values, [1 + 3 + 2, 2 + 5 + 2, 0.0])
    np.testing.assert_allclose(sd, [3 * np.sqrt(2.25), 3 * np.sqrt(2.25), np.inf])


def test_within_bin_placement_follows_the_bin_totals():
    """With the model's bin totals, each bin's fine counts are projected onto that total:
    a negative noisy cell takes mass from its own bin only, and the pieces of a bin sum to
    its total."""
    col = Column("k", int, kind="numeric", low=0, high=3, n_bins=2, integer=True)
    grid = FineGrid(0.0, 3.0, integer=True, points=np.arange(4.0),
                    counts=np.array([10.0, -4.0, 6.0, 6.0]), sigma=1.0)
    whole = grid.pieces(col)[3]
    np.testing.assert_allclose(whole, [26 / 3, 0.0, 14 / 3, 14 / 3])  # one shift: the grid
    grid.set_bin_totals([12.0, 12.0])
    starts, _, _, weight = grid.pieces(col)
    np.testing.assert_allclose(weight, [12.0, 0.0, 6.0, 6.0])
    np.testing.assert_allclose([weight[starts[b]:starts[b + 1]].sum() for b in range(2)],
                               [12.0, 12.0])


def test_a_fit_gives_each_fine_grid_the_model_bin_totals():
    est = _fit(_table(), domain=DOMAIN)
    for j in (0, 1):
        col = est._columns[j]
        model = np.asarray(est.model_.project_counts((j,))).ravel()[:col.n_bins]
        np.testing.assert_allclose(col.fine.bin_totals, model)
        starts, _, _, weight = col.fine.pieces(col)
        sums = [weight[starts[b]:starts[b + 1]].sum() for b in range(col.n_bins)]
        np.testing.assert_allclose(sums, np.clip(model, 0, None), rtol=1e-9, atol=1e-9)


def test_compression_sums_per_cell_variances():
    ones = [Measurement((0,), np.array([50.0, 1.0, 40.0, 2.0]), np.array([5.0, 3.0, 5.0, 4.0]))]
    shape, merges, out = compress((4,), ones, 3.0)
    assert shape == (3,)
    np.testing.assert_allclose(out[0].values, [50.0, 40.0, 3.0])
    np.testing.assert_allclose(out[0].sigma, [5.0, 5.0, 5.0])


def test_combine_keeps_a_cell_that_one_side_does_not_measure():
    a = Measurement((0,), np.array([4.0, 7.0]), 2.0)
    b = Measurement((0,), np.array([6.0, 0.0]), np.array([2.0, np.inf]))
    m = combine(a, b)
    np.testing.assert_allclose(m.values, [5.0, 7.0])
    np.testing.assert_allclose(m.sigma, [np.sqrt(2.0), 2.0])
    with pytest.raises(ValueError, match="different marginals"):
        combine(a, Measurement((1,), np.array([1.0, 2.0]), 1.0))


def test_rows_of_a_bin_take_its_pieces_in_their_shares_to_within_one_row():
    """Systematic sampling within a bin: no multinomial noise on top of the released shape."""
    col = Column("k", int, kind="numeric", low=0, high=5, n_bins=2, integer=True)
    grid = FineGrid(0.0, 5.0, integer=True, points=np.arange(6.0),
                    counts=np.array([50.0, 30.0, 20.0, 1.0, 1.0, 1.0]), sigma=1.0)
    grid.set_bin_totals([100.0, 3.0])
    rng = np.random.default_rng(0)
    for m in (1000, 37):
        values = grid.decode(col, np.zeros(m, dtype=np.int64), rng, None)
        counts = np.bincount(values.astype(np.int64), minlength=3)
        assert np.all(np.abs(counts - m * np.array([0.5, 0.3, 0.2])) <= 1)
