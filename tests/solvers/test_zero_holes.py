"""The zero cut by tails and holes (issue 30, ``aim``'s default: ``zero_below=1``, the size gate
``zero_spread=12``).

Of a column's cells below ``k`` noise sds (Base-Cut), a run reaching an end of the column (a
tail) is cut; an interior run only between two cells of at least ``HOLE_WALL`` noise sds and
with its noisy total below ``k`` times the total's sd. The decision reads the released
measurements and their sds only, so the cut is post-processing: the ledger and
``measurements_`` equal those of the fit without it, and the sampler never draws a cut or a
structural-zero cell.
"""

import numpy as np
import pytest

from skdp.solvers.synth.graphical import Measurement
from skdp.solvers.synth.registry import SOLVER_SPECS
from skdp.solvers.synth.released import HOLE_WALL, near_zero, tails_and_holes
from _toy import fit_synthesizer
from test_zero_cut import DOMAIN, N_BINS, _cut, _events, _table


def _fit(**params):
    return fit_synthesizer(_table(), domain=DOMAIN, solver="aim", bin_strategy="uniform",
                           n_bins=N_BINS, epsilon=10.0, **params)


def test_tails_are_cut_and_interior_runs_only_as_clear_holes():
    sd = np.full(9, 50.0)
    values = np.array([-20.0, 10.0, 900.0, 30.0, 20.0, 600.0, 100.0, 5.0, 120.0])
    out = tails_and_holes(values < 50.0, values, sd, 1.0)
    # [0, 1] a tail; [3, 4] between 900 and 600 (>= 3 sds), total 50 < 50 * sqrt 2: a hole;
    # [7] between 100 and 120 (under 3 sds): a real bin in a weak stretch, kept
    assert out.tolist() == [True, True, False, True, True, False, False, False, False]
    assert HOLE_WALL == 3.0


def test_a_run_whose_total_is_signal_is_kept():
    values = np.array([900.0, 45.0, 45.0, 45.0, 800.0])  # each under 1 sd, the total 135
    assert not tails_and_holes(values < 50.0, values, np.full(5, 50.0), 1.0).any()
    assert tails_and_holes(values < 50.0, values, np.full(5, 50.0), 2.0)[1:4].all()


def test_nassCDS_weight_at_epsilon_half_is_left_alone():
    # seed 0 of the CLI benchmark at 12,000 rows, epsilon 0.5: the column passes the size gate
    # (mean 13.8 sds a cell), and its one cell below 1 sd (16, true count 111) lies between
    # cells of 1.4 and 6.4 sds: not a hole, so the ungated cut's loss there is gone
    values = np.array([7806.0, 1494, 727, 348, 162, 336, 149, 119, 16, 547])
    m = Measurement((0,), values, 85.0)
    assert near_zero([m], {0}, 1.0, spread=12.0) == {}
    assert near_zero([Measurement((0,), values[:9], 85.0)], {0}, 1.0)[(0,)][8]  # as a tail


def test_the_decision_reads_released_values_only():
    # the same measurements give the same cut, whatever table they came from
    values = np.array([2400.0, 800.0, 12.0, 700.0, -30.0, -5.0])  # 646 a cell
    a = near_zero([Measurement((3,), values, 40.0)], {3}, 1.0, spread=12.0)
    b = near_zero([Measurement((3,), values.copy(), np.full(6, 40.0))], {3}, 1.0, spread=12.0)
    assert a[(3,)].tolist() == b[(3,)].tolist() == [False, False, True, False, True, True]


def test_the_defaults():
    aim, mst = (SOLVER_SPECS[s].resolve_options(None) for s in ("aim", "mst"))
    assert (aim["zero_below"], aim["zero_spread"]) == (1.0, 12.0)
    assert mst["zero_below"] == 0.0  # the gate not measured with mst


@pytest.mark.parametrize("neighbouring", ["replace_one", "add_remove"])
def test_the_default_cut_leaves_the_ledger_as_it_is(neighbouring):
    on, off = _fit(neighbouring=neighbouring), _fit(neighbouring=neighbouring,
                                                     solver_options={"zero_below": 0.0})
    assert _events(on) == _events(off) and on.privacy_spent_ == off.privacy_spent_
    for a, b in zip(on.measurements_, off.measurements_):
        assert a["marginal"] == b["marginal"]
        np.testing.assert_array_equal(a["counts"], b["counts"])
    x = [c.name for c in on._columns].index("x")
    assert _cut(on)[x][N_BINS - 1] and not _cut(off)  # [90, 100] of x: a tail, cut


def test_cut_and_structural_cells_are_never_sampled():
    domain = {**DOMAIN, "forbid": [{"c": "a", "x": {"<": 10}}]}
    est = fit_synthesizer(_table(), domain=domain, solver="aim", bin_strategy="uniform",
                          n_bins=N_BINS, epsilon=10.0)
    names = [c.name for c in est._columns]
    x = names.index("x")
    cut = _cut(est)[x]
    assert cut[N_BINS - 1]
    syn = est.sample(20_000, random_state=2)
    codes = np.clip((syn["x"].to_numpy(dtype=float) // 10).astype(int), 0, N_BINS - 1)
    assert not np.isin(codes, np.flatnonzero(cut)).any()
    assert not ((syn["c"] == "a") & (syn["x"] < 10)).any()
