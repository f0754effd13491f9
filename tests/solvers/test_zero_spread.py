"""The size gate of the zero cut (issue 30, ``zero_spread``; an option of ``'aim'`` and ``'mst'``).

``zero_below=k`` cuts only the numeric columns whose noisy 1-way total, spread evenly over their
cells, is at least ``zero_spread`` noise sds a cell: a function of the released measurements,
so the gated cut is post-processing under either neighbouring relation; ``'aim'`` runs it by
default (``zero_below=1`` with ``zero_spread=12``, test_zero_holes.py), ``'mst'`` by option.
"""

import numpy as np
import pytest

from skdp.solvers.synth.graphical import Measurement
from skdp.solvers.synth.registry import SOLVER_SPECS
from skdp.solvers.synth.released import near_zero
from _toy import fit_synthesizer
from test_zero_cut import DOMAIN, N_BINS, _cut, _events, _table


def _fit(epsilon, **params):
    return fit_synthesizer(_table(), domain=DOMAIN, solver="aim", bin_strategy="uniform",
                           n_bins=N_BINS, epsilon=epsilon, **params)


def test_the_gate_reads_the_mean_count_a_cell_in_noise_sds():
    values = np.array([900.0, 500.0, 20.0, -10.0])  # mean 352.5
    big, small = Measurement((0,), values, 25.0), Measurement((1,), values, 50.0)
    out = near_zero([big, small], {0, 1}, 1.0, spread=10.0)
    assert out[(0,)].tolist() == [False, False, True, True]  # 352.5 >= 10 * 25: cut
    assert (1,) not in out  # 352.5 < 10 * 50: the column left as it is
    assert set(near_zero([big, small], {0, 1}, 1.0)) == {(0,), (1,)}  # spread 0: ungated


def test_the_defaults():
    aim, mst = (SOLVER_SPECS[s].resolve_options(None) for s in ("aim", "mst"))
    assert (aim["zero_below"], aim["zero_spread"]) == (1.0, 12.0)
    assert (mst["zero_below"], mst["zero_spread"]) == (0.0, 12.0)
    with pytest.raises(ValueError, match="zero_spread"):
        SOLVER_SPECS["aim"].resolve_options({"zero_spread": -1.0})


@pytest.mark.parametrize("neighbouring", ["replace_one", "add_remove"])
def test_the_gated_cut_takes_a_large_signal_as_post_processing(neighbouring):
    # 4,000 rows at epsilon 10: about 400 rows a bin against a noise sd of a few rows
    plain = _fit(10.0, neighbouring=neighbouring)
    est = _fit(10.0, neighbouring=neighbouring, solver_options={"zero_below": 1.0})
    assert _events(est) == _events(plain) and est.privacy_spent_ == plain.privacy_spent_
    names = [c.name for c in est._columns]
    masks = _cut(est)
    assert masks[names.index("x")][N_BINS - 1]  # [90, 100] of x, never in the data
    assert not (est.sample(5000, random_state=0)["x"] >= 90).any()


def test_the_gated_cut_leaves_a_small_signal_alone():
    # 4,000 rows at epsilon 0.5: the even share of a bin is within a few noise sds
    est, plain = _fit(0.5), _fit(0.5, solver_options={"zero_below": 0.0})
    assert not _cut(est)
    a, b = est.sample(2000, random_state=3), plain.sample(2000, random_state=3)
    assert a.equals(b)  # the same fit: the same released values and rows
