"""Released spikes start model bins (issue 30, spike-start bins): after ``bin_strategy='fine'``'s
rule, a bin still above ``SPIKE_HEAVY / n_bins`` of the noisy mass gets an edge at each
released spike inside it unless those spikes are a unit's grid. Post-processing of the fine
release: the edges are released spikes, the ledger is unchanged, and the model and the
sampler use the same bins."""

import copy

import numpy as np
import pandas as pd
import pytest

from skdp._domain import fine_bins
from skdp._domain.fine_bins import set_fine_edges
from _toy import fit_synthesizer as _fit, spiky_column

SPIKES = [6.9, 9.96733, 10.3, 10.5763, 11.8427]  # irregular exact values, as ndisease's
STEPS = 20.714 + 1.15078 * np.arange(6)  # a unit's grid, as weather's gusts

DOMAIN = {"n": {"low": 0.0, "high": 60.0}, "g": {"low": 0.0, "high": 60.0}, "c": ["a", "b"]}


def _table(n=6000, seed=0):
    """``n``: 70% on five irregular exact values in one equal bin (6-12), each tied to ``c``;
    ``g``: 70% on six equally spaced values; both uniform on 0-60 otherwise."""
    rng = np.random.default_rng(seed)
    k = rng.integers(0, 5, n)
    on = rng.random(n) < 0.7
    c = np.where(rng.random(n) < 0.8, np.where(k % 2 == 0, "a", "b"), rng.choice(["a", "b"], n))
    return pd.DataFrame({"n": np.where(on, np.asarray(SPIKES)[k], rng.uniform(0, 60, n)),
                         "g": np.where(rng.random(n) < 0.7, rng.choice(STEPS, n),
                                       rng.uniform(0, 60, n)),
                         "c": c})




def test_edges_only_at_released_spikes_and_n_bins_follows():
    col = spiky_column(SPIKES, [800.0] * 5)
    set_fine_edges([col])
    assert col.n_bins == len(col.edges) - 1
    equal = np.linspace(0, 60, 11)
    assert set(col.edges) - set(equal) <= set(SPIKES)
    assert set(SPIKES) <= set(col.edges)  # the bin 6-12 held them and 4,000 of ~5,300 rows


def test_a_units_grid_and_a_light_bin_are_not_split():
    col = spiky_column(STEPS, [800.0] * 6)
    set_fine_edges([col])
    assert not set(STEPS) & set(col.edges if col.edges is not None else [])
    col = spiky_column(SPIKES, [40.0] * 5)  # the bin 6-12 under SPIKE_HEAVY / n_bins: no edges
    set_fine_edges([col])
    assert col.n_bins == 10 and not set(SPIKES) & set(col.edges if col.edges is not None
                                                           else [])


def test_deterministic_given_the_released_values():
    a, b = spiky_column(SPIKES, [800.0] * 5), spiky_column(SPIKES, [800.0] * 5)
    b.fine = copy.deepcopy(a.fine)
    set_fine_edges([a])
    set_fine_edges([b])
    np.testing.assert_array_equal(a.edges, b.edges)
    assert a.n_bins == b.n_bins


def _events(synth):
    return [(type(e).__name__, e.label, e.count, getattr(e, "rho", None),
             getattr(e, "epsilon", None), getattr(e, "delta", None))
            for e in synth.privacy_ledger_.entries]


def test_the_fit_starts_bins_at_its_released_spikes_at_no_charge(monkeypatch):
    X = _table()
    synth = _fit(X, domain=DOMAIN, solver="mst", bin_strategy="fine")
    released = synth.resolution_["n"]["spikes"]["values"]
    edges = synth.bin_edges_["n"]
    assert set(SPIKES) <= set(released) and set(SPIKES) <= set(edges)
    assert not set(STEPS) & set(synth.bin_edges_.get("g", []))
    # the same fit without spike-start bins: the same ledger, entry by entry
    monkeypatch.setattr(fine_bins, "SPIKE_HEAVY", np.inf)
    plain = _fit(X, domain=DOMAIN, solver="mst", bin_strategy="fine")
    assert not set(SPIKES) & set(plain.bin_edges_.get("n", []))
    a, b = _events(plain), _events(synth)
    assert [e[:3] for e in a] == [e[:3] for e in b]
    assert [e[3:] for e in a] == [pytest.approx(e[3:], rel=1e-12) for e in b]
    assert synth.privacy_spent_ == pytest.approx(plain.privacy_spent_, rel=1e-12)


def test_the_model_and_the_sampler_use_the_same_bins():
    X = _table()
    synth = _fit(X, domain=DOMAIN, solver="mst", bin_strategy="fine", epsilon=4.0)
    edges = synth.bin_edges_["n"]
    one_way = [m for m in synth.measurements_ if m["marginal"] == ("n",)]
    # the model's cells: the bins (len(edges) - 1) and the missing cell
    assert one_way and len(one_way[0]["counts"]) == len(edges)
    out = synth.sample(20000, random_state=1)
    for v in SPIKES:  # each spike its own bin: its share kept, decoded to the exact value
        assert abs((out["n"] == v).mean() - (X["n"] == v).mean()) < 0.03, v
    # the structure behind the spikes: c's share at each spike follows the training rows
    for v in SPIKES:
        real = (X.loc[X["n"] == v, "c"] == "a").mean()
        fake = (out.loc[out["n"] == v, "c"] == "a").mean()
        assert abs(real - fake) < 0.15, v


def test_the_fine_measurement_gives_a_starting_spike_its_count_and_no_other():
    col = spiky_column(SPIKES, [800.0] * 5)
    set_fine_edges([col])
    values, _ = col.fine.bin_counts(col)
    starts = np.searchsorted(col.edges, SPIKES, side="right") - 1
    assert np.all(values[starts] >= 800.0)  # each spike's bin holds its released count
    col = spiky_column(SPIKES, [40.0] * 5)  # no spike starts a bin: the plain sums of the cells
    set_fine_edges([col])
    values, sd = col.fine.bin_counts(col)
    A = col.fine.bin_matrix(col)
    np.testing.assert_allclose(values[:10], A @ col.fine.counts)
    np.testing.assert_allclose(sd[:10], np.sqrt(np.square(A).sum(axis=1)) * col.fine.sigma)
