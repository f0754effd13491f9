"""``resolution_share='auto'`` (issue 30: small tables and heavy tails): the fine release takes
``SMALL_TABLE_SHARE`` of the budget where, at ``RESOLUTION_SHARE``, a grid of equal cells would
have fewer than ``CELLS_PER_BIN`` cells per model bin, else ``RESOLUTION_SHARE``. The choice is
public (``n``, epsilon, delta, the columns, the parameters); the release, its sensitivity and its
ledger entry are those of the explicit share, and a halved noise is refused."""

import math

import numpy as np
import pandas as pd
import pytest

from skdp import SaddlePointSynthesizer
from skdp._domain import private as domain_private
from skdp._domain.fine import auto_cells
from skdp._domain.fine_bins import CELLS_PER_BIN
from skdp.privacy.ledger import approx_dp_to_zcdp, gaussian_sigma
from skdp.synthesizer import RESOLUTION_SHARE, SMALL_TABLE_SHARE, SPIKE_DELTA_SHARE

DELTA = 1e-6
N = 300
DOMAIN = {"x": (-5.0, 5.0), "k": ["x", "y"]}


def _table():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"x": np.clip(rng.normal(size=N), -4.9, 4.9),
                         "k": rng.choice(["x", "y"], size=N)})


def _fit(share, solver="aim", **params):
    return SaddlePointSynthesizer(epsilon=1.0, delta=DELTA, solver=solver, domain=DOMAIN,
                                  random_state=0, n_iter=30, resolution_share=share,
                                  **params).fit(_table())


def _entries(est):
    return list(est.privacy_ledger_.entries)  # frozen dataclasses: compared field by field


def _fine(est):
    return next(c for c in est._columns if c.fine is not None).fine


@pytest.mark.parametrize("solver", ["aim", "smd"])
def test_auto_takes_the_small_table_share_where_the_grid_is_coarser_than_the_bins(solver):
    """300 rows: 16 equal cells at the base share, fewer than 2 per bin of 10; 'auto' is then
    the fit with ``resolution_share=SMALL_TABLE_SHARE``: the same ledger, counts and rows."""
    auto, small = _fit("auto", solver), _fit(SMALL_TABLE_SHARE, solver)
    rho = RESOLUTION_SHARE * approx_dp_to_zcdp(1.0, (1 - SPIKE_DELTA_SHARE) * DELTA)
    assert auto_cells(N, gaussian_sigma(2.0, rho)) < CELLS_PER_BIN * 10
    assert _entries(auto) == _entries(small)
    assert np.array_equal(_fine(auto).counts, _fine(small).counts)
    pd.testing.assert_frame_equal(auto.sample(50), small.sample(50))


@pytest.mark.parametrize("params", [{"n_bins": 5}, {"neighbouring": "add_remove"},
                                    {"resolution": 64}])
def test_auto_keeps_the_base_share_otherwise(params):
    """Five model bins (16 cells are 2 a bin or more), add/remove (64 cells: ``n`` is
    private) or an explicit ``resolution``: 'auto' is ``RESOLUTION_SHARE``."""
    auto, base = _fit("auto", **params), _fit(RESOLUTION_SHARE, **params)
    assert _entries(auto) == _entries(base)
    assert np.array_equal(_fine(auto).counts, _fine(base).counts)


def test_the_small_table_share_is_the_fine_releases_sensitivity_and_ledger_entry():
    """The release's entry: ``SMALL_TABLE_SHARE`` of the fit's zCDP (aim's plan), with the
    noise of l2-sensitivity ``sqrt(2 (d + d_s))`` = 2 (one grid of equal cells with spikes,
    replace-one) at that rho (Bun–Steinke 2016 Prop. 1.6); the solver gets the rest."""
    est = _fit("auto")
    rho = approx_dp_to_zcdp(1.0, (1 - SPIKE_DELTA_SHARE) * DELTA)
    fine = next(e for e in est.privacy_ledger_.entries if e.label.startswith("fine grid"))
    assert fine.rho == pytest.approx(SMALL_TABLE_SHARE * rho, rel=1e-9)
    assert _fine(est).sigma == pytest.approx(gaussian_sigma(2.0, SMALL_TABLE_SHARE * rho),
                                             rel=1e-9)
    assert math.isclose(gaussian_sigma(2.0, SMALL_TABLE_SHARE * rho) ** 2 * SMALL_TABLE_SHARE,
                        gaussian_sigma(2.0, RESOLUTION_SHARE * rho) ** 2 * RESOLUTION_SHARE)
    assert est.privacy_spent_[0] <= 1.0 * (1 + 1e-9)
    # published beside the counts: a curator reads the noise without the ledger
    assert est.resolution_["x"]["sigma"] == pytest.approx(
        gaussian_sigma(2.0, SMALL_TABLE_SHARE * rho), rel=1e-9)


def test_a_halved_noise_at_the_small_table_share_is_refused(monkeypatch):
    """The release's own noise halved (its third call of ``fine_noise``: after the share's
    rule and the grid's size, which see the true noise): four times its share of ``mu**2``,
    refused by its filter before the draw (smd: the fit's GDP plan)."""
    real, calls = domain_private.fine_noise, [0]

    def halved(*args, **kwargs):
        sens, sigma, replace = real(*args, **kwargs)
        calls[0] += 1
        return (sens, 0.5 * sigma if calls[0] == 3 else sigma, replace)

    monkeypatch.setattr(domain_private, "fine_noise", halved)
    with pytest.raises(RuntimeError, match="overspend"):
        _fit("auto", "smd")
    assert calls[0] == 3


def test_auto_is_refused_where_the_small_table_share_leaves_the_solver_nothing():
    """The check before the budget: ``domain_share`` plus the largest share 'auto' may take
    (with ``resolution_refine='auto'``, its second level's too)."""
    with pytest.raises(ValueError, match="at most 0.35"):
        _fit("auto", domain_share=0.7, resolution_refine=0.0)
    with pytest.raises(ValueError, match="at most 0.4"):
        _fit("auto", domain_share=0.6)
