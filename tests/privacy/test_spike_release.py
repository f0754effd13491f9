"""The spike release of the synthesizer's fine grids (issue 30, item 1, second part): a
stability-based Gaussian histogram of a numeric column's exact values, in the fine grid's
Gaussian mechanism (:func:`skdp._domain.private.fine_release`).

Closed forms: the threshold, the per-key delta under each relation, the sensitivity
``sqrt(k (d + d_s))`` and the ledger's ``(0, delta_t)`` entry; statistically: a value held
by one record crosses at the rate ``key_delta`` and never at a tiny delta; a halved noise
is caught; the audit of the release holds its claim and catches a noise divided by 10.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from skdp import audit
from skdp._backend import Backend
from skdp._domain import Column
from skdp._domain.private import (fine_release, key_delta, merge_spike_keys, spike_keys,
                                  stability_threshold, to_fine)
from skdp.privacy.budget import Budget
from skdp.privacy.ledger import approx_dp_to_gdp, approx_dp_to_zcdp, gaussian_sigma
from skdp.synthesizer import RESOLUTION_SHARE, SPIKE_DELTA_SHARE
from _toy import fit_synthesizer as _fit


def _table(n=4000, seed=0):
    """Two float columns of public bounds (equal cells: spikes released), an integer column
    with a per-integer grid (no spikes) and a category."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "educ": np.where(rng.random(n) < 0.4, 12.0, rng.uniform(0, 25, n)),
        "lc": rng.choice([0.0, 2.3025851, 3.2580965, 4.6051702], n, p=[.4, .3, .2, .1]),
        "age": rng.integers(0, 90, n),
        "c": rng.choice(["a", "b"], n)})


DOMAIN = {"educ": {"low": 0, "high": 25}, "lc": {"low": 0, "high": 5},
          "age": {"low": 0, "high": 90, "integer": True}, "c": ["a", "b"]}


# ----------------------------------------------------------------- closed forms
def test_threshold_and_key_delta_closed_forms():
    for sigma, kd in [(1.0, 1e-3), (61.0, 5e-9), (3.0, 0.2)]:
        t = stability_threshold(sigma, kd)
        assert stats.norm.sf(t - 1.0, scale=sigma) == pytest.approx(kd, rel=1e-6)
        assert t == 1.0 + sigma * float(special.ndtri(1.0 - kd))
    # a record holds one key per column: one key can appear (add/remove), or one vanish
    # and one appear (replace-one)
    assert key_delta(1e-7, 5, "add_remove") == pytest.approx(2e-8)
    assert key_delta(1e-7, 5, "replace_one") == pytest.approx(1e-8)


@pytest.mark.parametrize("neighbouring, k", [("replace_one", 2.0), ("add_remove", 1.0)])
def test_spike_release_sensitivity_and_ledger_entry(releases, neighbouring, k):
    """One Gaussian mechanism: 3 grids (d) of which 2 of equal cells (d_s): l2-sensitivity
    sqrt(k (d + d_s)); smd's fit is Gaussian only, planned in GDP: resolution_share of
    mu**2, mu at delta (1 - SPIKE_DELTA_SHARE) (issue 30: one GDP plan); the threshold's
    (0, SPIKE_DELTA_SHARE delta) entry in the ledger, composed by the ledger to the fit's
    (epsilon, delta)."""
    X = _table(2000)
    synth = _fit(X, domain=DOMAIN, neighbouring=neighbouring, solver="smd", resolution=128,
                 resolution_share=0.2)
    label, sens, sigma = releases[0]
    assert label == "fine grid counts of 3 columns and exact values of 2"
    assert sens == pytest.approx(math.sqrt(k * (3 + 2)))
    delta_t = SPIKE_DELTA_SHARE * 1e-6
    mu = approx_dp_to_gdp(1.0, 1e-6 - delta_t)
    rho = mu * mu / 2
    assert sigma == pytest.approx(gaussian_sigma(sens, 0.2 * rho))
    approx, gauss = synth.privacy_ledger_.entries[:2]
    assert approx.kind == "approx" and approx.label == "spike thresholding of 2 columns"
    assert (approx.epsilon, approx.delta) == (0.0, pytest.approx(delta_t))
    assert gauss.label == label and gauss.rho == pytest.approx(0.2 * rho)
    # smd: the spikes' Gaussian part and smd's compose in GDP at delta - delta_t, exactly
    label2, sens2, sigma2 = releases[1]
    assert sens2 / sigma2 == pytest.approx(mu * math.sqrt(0.8))
    eps, delta = synth.privacy_spent_
    assert delta == 1e-6 and eps == pytest.approx(1.0, rel=1e-6) and eps <= 1.0 + 1e-9
    # the released spikes: each value above the threshold, with the release's sigma
    threshold = stability_threshold(sigma, key_delta(delta_t, 2, neighbouring))
    for name in ("educ", "lc"):
        spikes = synth.resolution_[name]["spikes"]
        assert all(c > threshold for c in spikes["counts"])
    assert "spikes" not in synth.resolution_["age"]  # one cell per integer: no spikes


def test_no_spike_release_without_grids_of_equal_cells(releases):
    """Per-integer grids only (or resolution=None): no thresholding, the whole delta to the
    Gaussian releases, the old sensitivity sqrt(2 d)."""
    X = _table(1000)[["age", "c"]]
    synth = _fit(X, domain={"age": DOMAIN["age"], "c": DOMAIN["c"]}, solver="smd")
    assert releases[0][0] == "fine grid counts of 1 columns"
    assert releases[0][1] == pytest.approx(math.sqrt(2))
    assert not any(e.kind == "approx" for e in synth.privacy_ledger_.entries)
    none = _fit(_table(500), domain=DOMAIN, resolution=None)
    assert none.resolution_ == {}
    assert not any(e.kind == "approx" for e in none.privacy_ledger_.entries)


# ----------------------------------------------------------------- the threshold, measured
def _budget(seed):
    """A fit's budget with room for the releases below (rho 1, delta 0.1, epsilon 50)."""
    backend = Backend.from_arrays(np.zeros(1), random_state=seed)
    return Budget.for_fit(backend, 50.0, 0.1, rho=1.0, exclusive=False)


def _singletons(n):
    col = Column("x", np.dtype(float), kind="numeric", low=0.0, high=1.0, n_bins=1)
    to_fine([col], 16)
    return col, np.linspace(0.0, 1.0, n + 2)[1:-1]  # n distinct values inside the bounds


def test_a_singleton_crosses_at_the_rate_key_delta():
    """A value held by one record is released with probability key_delta: 100,000
    singletons at key_delta 1e-3 (replace-one: delta_t / 2) cross about 100 times."""
    col, values = _singletons(100_000)
    fine_release([col], [values], 0.5, 2e-3, _budget(0), "replace_one", spiky=[0])
    crossed = len(col.fine.spikes)
    assert stats.binom(100_000, 1e-3).cdf(crossed) > 1e-4
    assert stats.binom(100_000, 1e-3).sf(crossed - 1) > 1e-4, crossed


def test_a_singleton_is_never_released_at_a_tiny_delta():
    """20 trials of 100,000 singletons at delta_t = 1e-9 (key_delta 5e-10: 0.001 crossings
    expected in all): none released; a value held by 30% of the rows always is."""
    for seed in range(20):
        col, values = _singletons(100_000)
        values = np.concatenate([values, np.full(45_000, 0.25)])
        fine_release([col], [values], 0.05, 1e-9, _budget(seed), "replace_one", spiky=[0])
        assert col.fine.spikes.tolist() == [0.25], seed
        assert abs(col.fine.spike_counts[0] - 45_000) < 10 * gaussian_sigma(2.0, 0.05)


def test_spike_keys_and_their_merge_over_blocks():
    col, _ = _singletons(1)
    values = np.array([0.5, 0.5, np.nan, 0.0, 1.0, 0.25, 0.5, 2.0])
    (keys, counts), = spike_keys([col], [values])
    assert keys.tolist() == [0.25, 0.5] and counts.tolist() == [1.0, 3.0]  # bounds: cells
    merged, = merge_spike_keys([spike_keys([col], [values[:3]]),
                                spike_keys([col], [values[3:]])])
    assert merged[0].tolist() == keys.tolist() and merged[1].tolist() == counts.tolist()


# ----------------------------------------------------------------- a weakened noise
def _spike_noise_ratio(X):
    """The released spike counts against their true counts: the residuals' standard
    deviation over the recorded sigma (200 spikes, each held by 50 rows)."""
    synth = _fit(X, domain={"x": {"low": 0, "high": 1000}}, solver="smd", epsilon=8.0,
                 resolution=16)
    sens = math.sqrt(2 * 2)
    sigma = gaussian_sigma(sens, RESOLUTION_SHARE * approx_dp_to_zcdp(8.0, 0.9e-6))
    spikes = synth.resolution_["x"]["spikes"]
    true = X["x"].value_counts()
    resid = np.array([c - true[v] for v, c in zip(spikes["values"], spikes["counts"])])
    assert len(resid) == 200
    return np.std(resid) / sigma


def test_spike_noise_is_the_recorded_noise_and_a_halved_noise_is_caught():
    X = pd.DataFrame({"x": np.repeat(np.arange(1, 201) * 4.5 + 0.25, 50)})
    assert abs(_spike_noise_ratio(X) - 1) < 0.2  # 200 residuals: sd within ~10%
    with audit.weakened_noise(2.0):
        assert abs(_spike_noise_ratio(X) - 1) > 0.3
