"""Synthetic numeric columns at user-side bins (issue 30, item 1, second part): the spikes
of a float column survive sampling, and ``resolution='auto'`` sizes the fine grids from
public quantities only."""

import math

import numpy as np
import pandas as pd
import pytest

from skdp._domain import fine as fine_mod
from skdp._domain.private import fine_noise
from skdp.privacy.ledger import approx_dp_to_zcdp
from skdp.synthesizer import RESOLUTION_SHARE
from _toy import fit_synthesizer as _fit


def _doctor(n=6000, seed=0):
    """Years of schooling 40% at exactly 12 (else uniform), a log rate on 4 exact values,
    a float column 30% at its lower bound, a category."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "educ": np.where(rng.random(n) < 0.4, 12.0, rng.uniform(0, 25, n)),
        "lc": rng.choice([0.0, 2.3025851, 3.2580965, 4.6051702], n, p=[.4, .3, .2, .1]),
        "gain": np.where(rng.random(n) < 0.3, 0.0, rng.uniform(0, 50, n)),
        "c": rng.choice(["a", "b"], n)})


DOMAIN = {"educ": {"low": 0, "high": 25}, "lc": {"low": 0, "high": 5},
          "gain": {"low": 0, "high": 50}, "c": ["a", "b"]}


def _q10_tv(real, fake):
    """1-way TV at 10 quantile bins of the real column (distinct edges): a user's bins."""
    edges = np.unique(np.quantile(real, np.linspace(0, 1, 11)[1:-1]))
    a = np.bincount(np.searchsorted(edges, real, side="right"), minlength=len(edges) + 1)
    b = np.bincount(np.searchsorted(edges, fake, side="right"), minlength=len(edges) + 1)
    return 0.5 * np.abs(a / a.sum() - b / b.sum()).sum()


def test_spikes_survive_at_large_epsilon():
    X = _doctor()
    synth = _fit(X, domain=DOMAIN, epsilon=20.0)
    out = synth.sample(20000, random_state=1)
    assert abs((out["educ"] == 12.0).mean() - 0.4) < 0.03
    for v, p in zip([0.0, 2.3025851, 3.2580965, 4.6051702], [.4, .3, .2, .1]):
        assert abs((out["lc"] == v).mean() - (X["lc"] == v).mean()) < 0.03, v
    assert (out["lc"].isin([0.0, 2.3025851, 3.2580965, 4.6051702])).mean() > 0.97
    # the point mass at a bound keeps working (the bound's own cell, not a spike)
    assert abs((out["gain"] == 0.0).mean() - (X["gain"] == 0.0).mean()) < 0.03
    assert 0.0 not in synth.resolution_["gain"]["spikes"]["values"]
    # values uniform elsewhere: the rest of educ is not on a few values
    rest = out["educ"][out["educ"] != 12.0]
    assert rest.nunique() > 0.9 * len(rest)
    # at the user's quantile bins, whose edges sit on the spikes
    for name in ("educ", "lc"):
        assert _q10_tv(X[name].to_numpy(), out[name].to_numpy()) < 0.05, name


def test_spikes_fix_the_quantile_bins_that_the_fine_grid_alone_misses():
    """Without spikes (resolution=None, or a per-cell draw) a spike is smeared over its
    cell, and a quantile edge on it is off by about half its mass."""
    X = _doctor(4000)
    with_spikes = _fit(X, domain=DOMAIN, epsilon=5.0).sample(20000, random_state=1)
    smeared = _fit(X, domain=DOMAIN, epsilon=5.0, resolution=None).sample(20000,
                                                                         random_state=1)
    good = _q10_tv(X["educ"].to_numpy(), with_spikes["educ"].to_numpy())
    bad = _q10_tv(X["educ"].to_numpy(), smeared["educ"].to_numpy())
    assert good < 0.06 and bad > 0.15, (good, bad)


def test_released_shapes_do_not_depend_on_the_number_of_distinct_values():
    """Nothing about the data leaves the fit outside the accounted release: two tables of
    the same size, one with every value distinct, one on 200 values each below the
    threshold, give fitted attributes and ledgers of the same shapes (no spike released)."""
    rng = np.random.default_rng(3)
    n = 1000
    a = pd.DataFrame({"x": rng.uniform(0, 25, n), "c": rng.choice(["a", "b"], n)})
    b = a.assign(x=np.round(a["x"] / 0.125) * 0.125)  # 200 values, about 5 rows each
    fits = [_fit(t, domain={"x": {"low": 0, "high": 25}, "c": ["a", "b"]}, epsilon=1.0,
                 solver="smd")  # its measurements are fixed (aim's rounds are released)
            for t in (a, b)]
    for fit in fits:
        assert fit.resolution_["x"]["spikes"] == {"values": [], "counts": []}
    grids = [f.resolution_["x"] for f in fits]
    assert len(grids[0]["counts"]) == len(grids[1]["counts"])
    assert grids[0]["cells"] == grids[1]["cells"]
    assert [(e.kind, e.label) for e in fits[0].privacy_ledger_.entries] == \
        [(e.kind, e.label) for e in fits[1].privacy_ledger_.entries]
    for name in ("domain_", "domain_shape_", "bin_edges_", "compression_", "marginals_"):
        assert getattr(fits[0], name) == getattr(fits[1], name), name
    assert [m["counts"].shape for m in fits[0].measurements_] == \
        [m["counts"].shape for m in fits[1].measurements_]


# ----------------------------------------------------------------- resolution='auto'
def test_auto_cells_follow_n_epsilon_and_the_number_of_columns():
    X = _doctor(6000)
    rho = RESOLUTION_SHARE * approx_dp_to_zcdp(1.0, 0.9e-6)
    sigma = fine_noise(3, 3, rho, "replace_one")[1]  # 3 grids, all of equal cells
    expected = fine_mod.auto_cells(6000, sigma)
    synth = _fit(X, domain=DOMAIN)
    assert synth.resolution == "auto"
    assert {synth.resolution_[c]["cells"] for c in ("educ", "lc", "gain")} == {expected}
    assert expected == 2 ** math.floor(math.log2(6000 / (fine_mod.AUTO_NOISE_RATIO * sigma)))
    # more rows, or more epsilon: finer; the values themselves play no part
    assert _fit(X, domain=DOMAIN, epsilon=8.0).resolution_["educ"]["cells"] > expected
    shuffled = X.assign(educ=np.random.default_rng(1).uniform(0, 25, len(X)))
    assert _fit(shuffled, domain=DOMAIN).resolution_["educ"]["cells"] == expected
    # few rows: the floor
    assert _fit(X.iloc[:300], domain=DOMAIN).resolution_["educ"]["cells"] == \
        fine_mod.AUTO_MIN_CELLS
    # an explicit integer keeps working
    assert _fit(X.iloc[:300], domain=DOMAIN, resolution=100).resolution_["educ"]["cells"] \
        == 100


def test_auto_keeps_one_cell_per_integer_up_to_256_integers():
    X = pd.DataFrame({"age": np.random.default_rng(0).integers(0, 200, 500),
                      "big": np.random.default_rng(1).integers(0, 10_000, 500)})
    synth = _fit(X, domain={"age": {"low": 0, "high": 199, "integer": True},
                            "big": {"low": 0, "high": 9999, "integer": True}})
    assert len(synth.resolution_["age"]["values"]) == 200
    assert "spikes" not in synth.resolution_["age"]
    assert synth.resolution_["big"]["cells"] == fine_mod.AUTO_MIN_CELLS
    out = synth.sample(2000, random_state=0)
    assert out["big"].between(0, 9999).all() and out["big"].dtype == np.int64


def test_auto_under_add_remove_does_not_use_n():
    X = _doctor(3000)
    a = _fit(X, domain=DOMAIN, neighbouring="add_remove", solver="smd")
    b = _fit(X.iloc[:1000], domain=DOMAIN, neighbouring="add_remove", solver="smd")
    assert a.resolution_["educ"]["cells"] == b.resolution_["educ"]["cells"] == 64


def test_resolution_parameter_is_validated():
    with pytest.raises(ValueError, match="resolution"):
        _fit(_doctor(100), domain=DOMAIN, resolution="fine")


def test_spikes_on_a_dask_table_match_the_in_memory_release():
    dd = pytest.importorskip("dask.dataframe")
    X = _doctor(3000)
    mem = _fit(X, domain=DOMAIN, solver="smd", epsilon=5.0)
    ddf = dd.from_pandas(X, npartitions=3)
    dsk = _fit(ddf, domain=DOMAIN, solver="smd", epsilon=5.0)
    for name in ("educ", "lc"):
        a, b = mem.resolution_[name]["spikes"], dsk.resolution_[name]["spikes"]
        assert a["values"] == b["values"], name
        np.testing.assert_allclose(a["counts"], b["counts"], rtol=1e-9)


def test_a_column_found_privately_keeps_its_spikes():
    """Issue 30: with ``domain='private'`` (or a ``"kind"`` entry) no column had spikes, so a
    value held by many rows survived only where the range found privately put a bound on it:
    a bill column with 13% zeros and a few negative credits lost its zeros whenever a small
    negative bin of the range finder passed its threshold. A float column found privately
    now gets its spikes; the threshold's delta (a tenth) is set aside before any row is read
    (public: the kinds), charged with the release."""
    from skdp import SaddlePointSynthesizer
    from skdp.synthesizer import SPIKE_DELTA_SHARE

    rng = np.random.default_rng(0)
    n = 20000
    bill = np.where(rng.random(n) < 0.15, 0.0, rng.gamma(2.0, 30.0, n))
    bill[:300] = -rng.uniform(0.1, 0.2, 300)  # a few small credits: the range reaches below 0
    X = pd.DataFrame({"bill": bill, "k": rng.choice(["a", "b"], n)})
    domain = {"bill": {"kind": "numeric"}, "k": ["a", "b"]}
    est = SaddlePointSynthesizer(domain=domain, epsilon=1.0, random_state=0).fit(X)
    assert est.domain_["bill"]["low"] < 0 < est.domain_["bill"]["high"]
    assert 0.0 in est.resolution_["bill"]["spikes"]["values"]
    out = est.sample(random_state=1)["bill"].astype(float)
    assert abs(np.mean(out == 0.0) - 0.15) < 0.03
    thresholds = [e for e in est.privacy_ledger_.entries if e.label.startswith("spike")]
    assert [e.delta for e in thresholds] == [SPIKE_DELTA_SHARE * 1e-6]
