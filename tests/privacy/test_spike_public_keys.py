"""Spikes of integer columns from public candidates (issue 30): an integer column whose fine
grid has equal cells releases the noisy count of *every* integer strictly inside its public
bounds in the fine grid's Gaussian mechanism (:func:`skdp._domain.private.fine_release`), so
the candidates are public and no stability threshold, and no delta, is needed; a candidate is
kept as a spike above :func:`skdp._domain.fine.public_threshold` (post-processing).

Closed forms: the candidates, the threshold's false-spike rate, the sensitivity and the
ledger (no ``(0, delta_t)`` entry when every spiky column is an integer one); statistically:
empty candidates cross about ``SPIKE_FALSE`` times a column, a value held by fewer rows than
the stability threshold needs is released, a halved noise is caught.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skdp.audit import audit_scores, weakened_noise
from skdp._backend import Backend
from skdp._domain import Column
from skdp._domain.fine import SPIKE_FALSE, FineGrid, public_threshold
from skdp._domain.fine_bins import _starts
from skdp._domain.private import (_on_public_keys, _shares, fine_release, key_delta,
                                  spike_keys, stability_threshold, to_fine)
from skdp.privacy.budget import Budget
from skdp.privacy.ledger import approx_dp_to_gdp, gaussian_sigma
from skdp.synthesizer import SPIKE_DELTA_SHARE
from _toy import fit_synthesizer as _fit


def _budget(seed):
    backend = Backend.from_arrays(np.zeros(1), random_state=seed)
    return Budget.for_fit(backend, 50.0, 0.1, rho=1.0, exclusive=False)


def _integer_column(low=0.0, high=360.0, cells=16):
    col = Column("x", np.dtype(np.int64), kind="numeric", low=low, high=high, n_bins=1,
                 integer=True)
    to_fine([col], cells)
    return col


# ----------------------------------------------------------------- closed forms
def test_the_candidates_are_the_integers_strictly_inside_the_bounds():
    assert _integer_column().fine.public_keys().tolist() == list(range(1, 360))
    assert _integer_column(-2.5, 300.5).fine.public_keys().tolist() == list(range(-2, 301))
    assert _integer_column(0.0, 10.0).fine.public_keys() is None  # one cell per integer
    floats = FineGrid(0.0, 10.0, integer=False, points=np.array([0.0, 10.0]),
                      edges=np.linspace(0, 10, 5))
    assert floats.public_keys() is None  # a float column's candidates are the data's
    wide = _integer_column(0.0, 1e9)
    assert wide.fine.public_keys() is None  # too many: the stability threshold


@pytest.mark.parametrize("sigma, n_keys", [(60.0, 359), (5.0, 20), (1.0, 65536)])
def test_the_threshold_lets_spike_false_empty_candidates_through(sigma, n_keys):
    t = public_threshold(sigma, n_keys)
    assert n_keys * stats.norm.sf(t, scale=sigma) == pytest.approx(SPIKE_FALSE, rel=1e-9)
    # below the stability threshold of the same noise at any delta the fits use
    assert t < stability_threshold(sigma, key_delta(1e-7, 1, "replace_one"))


@pytest.mark.parametrize("neighbouring, k", [("replace_one", 2.0), ("add_remove", 1.0)])
def test_integer_spikes_cost_no_delta_and_keep_the_sensitivity(releases, neighbouring, k):
    """A float column and an integer one, both of equal cells: one Gaussian mechanism of
    l2-sensitivity sqrt(k (d + d_s)) (a record moves one candidate's count per column, as
    before), the integer column's 99 candidates all in it, and the thresholding's
    (0, delta_t) entry for the float column alone (key_delta over 1 column)."""
    rng = np.random.default_rng(0)
    n = 3000
    X = pd.DataFrame({"f": np.where(rng.random(n) < 0.3, 2.5, rng.uniform(0, 10, n)),
                      "i": rng.choice([7, 40, 41, 85], n, p=[0.4, 0.3, 0.2, 0.1])})
    dom = {"f": {"low": 0, "high": 10}, "i": {"low": 0, "high": 100, "integer": True}}
    synth = _fit(X, domain=dom, neighbouring=neighbouring, solver="smd", resolution=16,
                 resolution_share=0.2)
    label, sens, sigma = releases[0]
    assert label == "fine grid counts of 2 columns and exact values of 2"
    assert sens == pytest.approx(math.sqrt(k * (2 + 2)))
    approx = [e for e in synth.privacy_ledger_.entries if e.kind == "approx"]
    assert [e.label for e in approx] == ["spike thresholding of 1 columns"]
    assert approx[0].delta == pytest.approx(SPIKE_DELTA_SHARE * 1e-6)
    assert synth.resolution_["f"]["spike_threshold"] == pytest.approx(
        stability_threshold(sigma, key_delta(SPIKE_DELTA_SHARE * 1e-6, 1, neighbouring)))
    assert synth.resolution_["i"]["spike_threshold"] == pytest.approx(
        public_threshold(sigma, 99))
    assert {7.0, 40.0, 41.0, 85.0} <= set(synth.resolution_["i"]["spikes"]["values"])
    assert synth.resolution_["i"]["spike_candidates"] == "public"
    assert synth.resolution_["f"]["spike_candidates"] == "data"
    page = synth.report()
    assert "every other integer of the bounds was measured and dropped" in page
    assert "every other value was dropped unseen" in page
    eps, delta = synth.privacy_spent_
    assert eps <= 1.0 + 1e-9 and delta <= 1e-6


def test_integer_spikes_alone_charge_no_thresholding(releases):
    X = pd.DataFrame({"i": np.repeat([3, 50, 51], 400)})
    synth = _fit(X, domain={"i": {"low": 0, "high": 100, "integer": True}}, solver="smd",
                 resolution=16)
    assert releases[0][0] == "fine grid counts of 1 columns and exact values of 1"
    assert not any(e.kind == "approx" for e in synth.privacy_ledger_.entries)
    assert {3.0, 50.0, 51.0} <= set(synth.resolution_["i"]["spikes"]["values"])


# ----------------------------------------------------------------- measured
def test_empty_candidates_cross_about_spike_false_times_a_column():
    """No row inside the bounds: every spike released is noise. Over 60 releases of 359
    empty candidates the count of false spikes has mean SPIKE_FALSE (Poisson-like)."""
    crossed = []
    for seed in range(60):
        col = _integer_column()
        fine_release([col], [np.zeros(100)], 0.5, 0.0, _budget(seed), "replace_one",
                     spiky=[0])
        crossed.append(len(col.fine.spikes))
    total = sum(crossed)
    assert stats.poisson(60 * SPIKE_FALSE).cdf(total) > 1e-4, total
    assert stats.poisson(60 * SPIKE_FALSE).sf(total - 1) > 1e-4, total


def test_a_value_under_the_stability_threshold_is_released():
    """Held by 5 sigma of rows: under the stability threshold (6 sigma at key_delta 1e-9),
    over the public one (2.8 sigma for 359 candidates) by 2.2 sigma: released in 18 of 20
    releases at least (0.987 each)."""
    sigma = gaussian_sigma(2.0, 0.005)
    rows = int(5 * sigma)
    assert stability_threshold(sigma, 1e-9) > rows > public_threshold(sigma, 359) + 2 * sigma
    hits = 0
    for seed in range(20):
        col = _integer_column()
        fine_release([col], [np.full(rows, 200.0)], 0.005, 0.0, _budget(seed), "replace_one",
                     spiky=[0])
        hits += 200.0 in col.fine.spikes.tolist()
    assert hits >= 18


def test_public_keys_count_the_data_once_and_nothing_off_the_integers():
    col = _integer_column(0.0, 100.0)
    (keys, counts), = spike_keys([col], [np.array([0.0, 3.0, 3.0, 2.5, 99.0, 100.0, np.nan])])
    public, on = _on_public_keys(col.fine.public_keys(), (keys, counts))
    assert public.tolist() == list(range(1, 100))
    assert on[2] == 2 and on[98] == 1 and on.sum() == 3  # 2.5 is no candidate: counted nowhere


# ----------------------------------------------------------------- a weakened noise
def _residual_ratio():
    """200 integer spikes of 50 rows each, at epsilon 8: their released counts' residuals
    over the recorded sigma."""
    X = pd.DataFrame({"x": np.repeat(np.arange(1, 201) * 5, 50)})
    synth = _fit(X, domain={"x": {"low": 0, "high": 1005, "integer": True}}, solver="smd",
                 epsilon=8.0, resolution=16)
    mu = approx_dp_to_gdp(8.0, 1e-6)
    sigma = math.sqrt(2 * 2) / (mu * math.sqrt(0.2))
    spikes = synth.resolution_["x"]["spikes"]
    resid = np.array([c - 50 for v, c in zip(spikes["values"], spikes["counts"])
                      if v % 5 == 0])
    assert len(resid) == 200
    return np.std(resid) / sigma


def test_integer_spike_noise_is_the_recorded_noise_and_a_halved_noise_is_caught():
    assert abs(_residual_ratio() - 1) < 0.2
    with weakened_noise(2.0):
        assert abs(_residual_ratio() - 1) > 0.3


# ----------------------------------------------------------------- the audit
def _released_count(values, seed):
    col = _integer_column()
    fine_release([col], [values], AUDIT_RHO, 0.0, _budget(seed), "add_remove", spiky=[0])
    return float(col.fine.spike_counts[col.fine.spikes.tolist().index(200.0)])


AUDIT_RHO = 0.1


def test_the_audit_holds_the_claim_and_catches_a_noise_divided_by_10():
    """Neighbours under add/remove: 300 rows at 200, and one more. The released count of
    the public candidate 200 (a Gaussian mechanism of l2-sensitivity sqrt(2): its count and
    its cell's move) audited over 1,500 releases each: the lower bound stays under the
    claim (rho 0.1 zCDP, Bun-Steinke 2016 Prop. 1.3 at delta 1e-5), and a noise divided by
    10 breaks it."""
    delta = 1e-5
    claim = AUDIT_RHO + 2 * math.sqrt(AUDIT_RHO * math.log(1 / delta))
    out_rows, in_rows = np.full(300, 200.0), np.full(301, 200.0)

    def scores():
        return ([_released_count(out_rows, s) for s in range(1500)],
                [_released_count(in_rows, 10_000 + s) for s in range(1500)])

    assert audit_scores(*scores(), delta=delta).epsilon_lower_bound < claim
    with weakened_noise(10.0):
        assert audit_scores(*scores(), delta=delta).epsilon_lower_bound > claim


# ----------------------------------------------------------------- the rules that read spikes
def test_a_run_of_integer_spikes_is_spread_mass_an_isolated_one_is_not():
    """``_shares`` (the refinement's spread mass): public candidates' spikes one integer apart
    are a quantity over many values, kept in their cell's mass; an isolated one is an exact
    value, taken out as before; the data's values are all taken out."""
    g = FineGrid(0.0, 400.0, integer=True, points=np.array([0.0, 400.0]),
                 edges=np.linspace(0, 400, 9))
    g.counts = np.array([0.0, 1000.0, 100, 100, 100, 100, 100, 100, 100, 0.0])
    g.spikes = np.array([10.0, 11.0, 12.0, 13.0, 30.0])
    g.spike_counts = np.array([200.0, 200.0, 200.0, 200.0, 300.0])
    g.spike_candidates = "public"
    assert _shares(g)[0] == pytest.approx(700 / 1400)  # only 30's count taken out
    g.spike_candidates = "data"
    assert _shares(g)[0] == 0.0  # 1000 - 1100 clipped


def test_a_run_of_integer_spikes_with_a_few_beyond_it_starts_no_bins():
    """``_starts`` with an integer column's public candidates: 94 ... 115 and 120, 123 in one
    heavy bin are a unit's steps (most gaps are 1), not 24 subpopulations; irregular values
    still start bins; the data's candidates keep the exact-grid test."""
    run = np.concatenate([np.arange(94.0, 116.0), [120.0, 123.0]])
    counts = np.full(len(run), 300.0)
    mine = np.ones(len(run), dtype=bool)
    assert len(_starts(run, counts, mine, steps=True)) == 0
    assert len(_starts(run, counts, mine, steps=False)) == len(run)
    odd = np.array([7.0, 19.0, 40.0, 44.0])
    assert len(_starts(odd, np.full(4, 300.0), np.ones(4, dtype=bool), steps=True)) == 4
