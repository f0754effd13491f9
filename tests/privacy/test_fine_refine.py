"""The fine grids' second level (``resolution_refine``; issue 30, the fine grid's own
resolution): an adaptive hierarchical histogram (:func:`skdp._domain.private.refine_release`).

Closed forms: the plan of each cell (:func:`refine_splits`), the second release's
sensitivity (one histogram per candidate column), its sigma and ledger entry beside the
first's (the two compose to ``resolution_share``), the least-squares combination of the two
levels and its sd; a value counts in at most one sub-cell; statistically: the released
sub-cell counts carry the recorded noise and a halved noise is caught; the audit case
holds its claim and catches a noise divided by 10. With ``resolution_refine=0`` nothing
changes.
"""

import math

import numpy as np
import pandas as pd
import pytest

from skdp import audit
from skdp._domain import Column
from skdp._domain.fine import AUTO_NOISE_RATIO, MAX_SPLIT, FineGrid, refine_splits
from skdp._domain.private import to_fine
from skdp.privacy.ledger import approx_dp_to_gdp, approx_dp_to_zcdp, gaussian_sigma
from skdp.synthesizer import SPIKE_DELTA_SHARE
from _toy import fit_synthesizer as _fit


def _table(n=6000, seed=0):
    """A float column with most rows in a few cells (refined), a flat float column, an
    integer column with a per-integer grid (never refined) and a category."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"linc": np.clip(rng.normal(9.0, 0.5, n), 0, 12),
                         "flat": rng.uniform(0, 10, n),
                         "age": rng.integers(0, 90, n),
                         "c": rng.choice(["a", "b"], n)})


DOMAIN = {"linc": {"low": 0, "high": 12}, "flat": {"low": 0, "high": 10},
          "age": {"low": 0, "high": 90, "integer": True}, "c": ["a", "b"]}


# ----------------------------------------------------------------- closed forms
def test_refine_splits_closed_form():
    sigma = 10.0
    counts = np.array([7.0, -5.0, 79.0, 80.0, 159.0, 160.0, 1e9, 3.0])
    # a cell of count y: y / (4 sigma) rounded down to a power of two, 1 below 2, at most 32
    assert refine_splits(counts, sigma).tolist() == [1, 1, 2, 2, 4, 32]
    assert AUTO_NOISE_RATIO == 4.0 and MAX_SPLIT == 32
    assert refine_splits(counts, 0.0).tolist() == [32] * 6  # not private: the finest


@pytest.mark.parametrize("solver, currency", [("smd", "gdp"), ("mst", "zcdp")])
@pytest.mark.parametrize("neighbouring, k", [("replace_one", 2.0), ("add_remove", 1.0)])
def test_second_release_sensitivity_sigma_and_ledger(releases, solver, currency,
                                                     neighbouring, k):
    """Two Gaussian releases: the first on (1 - r) of resolution_share, the second on r,
    of l2-sensitivity sqrt(k d_r) for the d_r of the d_c = 2 grids of equal cells (linc,
    flat: a value in one sub-cell per column) with a cell to split, its sigma from its
    share; the fit still spends exactly (epsilon, delta)."""
    if neighbouring == "add_remove" and solver != "smd":
        pytest.skip("add/remove: smd only")
    r, share = 0.4, 0.2
    synth = _fit(_table(), domain=DOMAIN, neighbouring=neighbouring, solver=solver,
                 resolution_share=share, resolution_refine=r)
    (l1, s1, sig1), (l2, s2, sig2) = releases[:2]
    assert l1 == "fine grid counts of 3 columns and exact values of 2"
    assert l2.startswith("fine grid refinement of ") and l2.endswith(" of 2 columns")
    d_r = int(l2.split()[4])
    assert s1 == pytest.approx(math.sqrt(k * (3 + 2)))
    assert s2 == pytest.approx(math.sqrt(k * d_r)) and d_r >= 1
    delta_g = 1e-6 - SPIKE_DELTA_SHARE * 1e-6
    if currency == "gdp":
        mu = approx_dp_to_gdp(1.0, delta_g)
        rho = mu * mu / 2
    else:
        rho = approx_dp_to_zcdp(1.0, delta_g)
    assert sig1 == pytest.approx(gaussian_sigma(s1, (1 - r) * share * rho))
    assert sig2 == pytest.approx(gaussian_sigma(s2, r * share * rho))
    entries = {e.label: e for e in synth.privacy_ledger_.entries}
    assert entries[l1].rho + entries[l2].rho == pytest.approx(share * rho)
    eps, delta = synth.privacy_spent_
    assert delta == 1e-6 and eps == pytest.approx(1.0, rel=1e-6) and eps <= 1.0 + 1e-9
    # published: the first level's counts and sigma, the refined cells, the second level's
    # counts and sigma; the per-integer grid is not refined
    # the plans drawn at the noise of the d_c = 2 candidates, released at d_r's
    planned = gaussian_sigma(math.sqrt(k * 2), r * share * rho)
    ref = synth.resolution_["linc"]["refinement"]
    assert ref["sigma"] == pytest.approx(sig2) and ref["first"]["sigma"] == pytest.approx(sig1)
    assert ref["splits"] == refine_splits(np.array(ref["first"]["counts"]), planned)[
        ref["cells"]].tolist()
    assert len(ref["counts"]) == sum(ref["splits"])
    # one sd per cell of the refined grid: the first level's where not refined, smaller
    sd = np.asarray(synth.resolution_["linc"]["sigma"])
    assert len(sd) == len(synth.resolution_["linc"]["counts"]) and sd.max() == pytest.approx(sig1)
    assert sd.min() < sig1
    assert "refinement" not in synth.resolution_["age"]


@pytest.mark.parametrize("neighbouring, k", [("replace_one", 2.0), ("add_remove", 1.0)])
def test_a_candidate_with_nothing_to_split_is_not_in_the_sensitivity(releases, neighbouring,
                                                                      k):
    """At 2,000 rows the flat column's cells are too light to split at the noise of d_c = 2
    histograms: the release covers linc alone, at the sensitivity of d_r = 1 histogram
    (sqrt(k)), with linc's plan drawn at the noise of d_c = 2."""
    r, share = 0.4, 0.2
    synth = _fit(_table(2000), domain=DOMAIN, neighbouring=neighbouring, solver="smd",
                 resolution_share=share, resolution_refine=r)
    (l2, s2, sig2), = [x for x in releases if x[0].startswith("fine grid refinement")]
    assert l2 == "fine grid refinement of 1 of 2 columns"
    assert s2 == pytest.approx(math.sqrt(k))
    rho = approx_dp_to_gdp(1.0, 1e-6 - SPIKE_DELTA_SHARE * 1e-6) ** 2 / 2
    assert sig2 == pytest.approx(gaussian_sigma(s2, r * share * rho))
    planned = gaussian_sigma(math.sqrt(2 * k), r * share * rho)  # d_c = 2
    ref = synth.resolution_["linc"]["refinement"]
    assert ref["sigma"] == pytest.approx(sig2)
    assert ref["splits"] == refine_splits(np.array(ref["first"]["counts"]), planned)[
        ref["cells"]].tolist()
    assert "refinement" not in synth.resolution_["flat"]
    first = np.array(synth.resolution_["flat"]["counts"])
    assert refine_splits(first, planned).max() == 1  # nothing to split: not released


def test_no_second_release_when_no_cell_is_heavy(releases):
    """A plan refining no cell (a few rows, much noise): nothing released, nothing charged."""
    synth = _fit(_table(200), domain=DOMAIN, solver="smd", resolution_refine=0.3)
    assert not any(label.startswith("fine grid refinement") for label, _, _ in releases)
    assert not any(e.label.startswith("fine grid refinement")
                   for e in synth.privacy_ledger_.entries)
    assert all("refinement" not in g for g in synth.resolution_.values())


def test_a_value_counts_in_at_most_one_sub_cell():
    col = Column("x", float, kind="numeric", low=0.0, high=4.0, n_bins=2)
    to_fine([col], 4)
    splits = np.array([1, 4, 1, 2])
    v = np.array([0.0, 0.5, 1.0, 1.24, 1.26, 1.999, 2.5, 3.0, 3.5, 3.99, 4.0, 9.0, np.nan])
    counts = col.fine.sub_counts_of(v, splits)
    # cell [1, 2) in 4 sub-cells of width 0.25, cell [3, 4) in 2; the bounds, [0, 1),
    # [2, 3), the clipped 9 and the missing value count nowhere
    assert counts.tolist() == [2.0, 1.0, 0.0, 1.0, 1.0, 2.0]
    # replace-one: moving one value changes at most two counts by one each
    for a, b in [(1.1, 3.7), (1.1, 0.2), (0.0, 2.5), (1.1, 1.9)]:
        diff = col.fine.sub_counts_of(np.array([b]), splits) - \
            col.fine.sub_counts_of(np.array([a]), splits)
        assert np.abs(diff).sum() <= 2 and np.abs(diff).max() <= 1


def test_the_least_squares_combination_and_its_sd():
    """Hay et al. 2010 for two levels: the cell's total the inverse-variance mean of its
    count and its sub-cells' sum, the difference spread evenly; sd sigma sqrt(1 - w / s),
    checked by simulation."""
    g = FineGrid(0.0, 4.0, integer=False, points=np.array([0.0, 4.0]),
                 edges=np.linspace(0, 4, 3), counts=np.array([1.0, 100.0, 20.0, 2.0]),
                 sigma=3.0)
    g.refine(np.array([4, 1]), np.array([30.0, 20.0, 40.0, 20.0]), 2.0)
    a, b = 9.0, 4 * 4.0
    total = (100.0 / a + 110.0 / b) / (1 / a + 1 / b)
    assert g.counts[1:5].sum() == pytest.approx(total)
    assert g.counts[1:5] - np.array([30.0, 20.0, 40.0, 20.0]) == pytest.approx(
        np.full(4, (total - 110.0) / 4))
    assert g.counts[[0, 5, 6]].tolist() == [1.0, 20.0, 2.0]
    w = b / (a + b)
    assert g.sigma.tolist() == pytest.approx([3.0] + [2.0 * math.sqrt(1 - w / 4)] * 4 +
                                             [3.0, 3.0])
    assert g.edges.tolist() == [0.0, 0.5, 1.0, 1.5, 2.0, 4.0]
    assert g.cell(np.array([0.0, 0.7, 1.9, 2.0, 3.9, 4.0])).tolist() == [0, 2, 4, 5, 5, 6]
    # the sd by simulation: true counts (100; 30, 20, 30, 20), noise of the two levels
    rng = np.random.default_rng(0)
    est = []
    for _ in range(4000):
        h = FineGrid(0.0, 4.0, integer=False, points=np.array([0.0, 4.0]),
                     edges=np.linspace(0, 4, 3), sigma=3.0,
                     counts=np.array([0.0, 100.0 + rng.normal(0, 3.0), 0.0, 0.0]))
        h.refine(np.array([4, 1]), np.array([30.0, 20, 30, 20]) + rng.normal(0, 2.0, 4), 2.0)
        est.append(h.counts[1:5])
    est = np.array(est)
    assert est.mean(axis=0) == pytest.approx([30, 20, 30, 20], abs=0.2)
    assert est.std(axis=0) == pytest.approx(g.sigma[1:5], rel=0.05)
    # the per-cell sds bound a sum's sd from above (negative correlation within a cell)
    assert est.sum(axis=1).std() <= math.sqrt(np.square(g.sigma[1:5]).sum())


# ----------------------------------------------------------------- a weakened noise
def _second_level_noise_ratio():
    """The released sub-cell counts against their true counts: the residuals' sd over the
    recorded sigma (rows spread evenly over [0, 8): every cell refined)."""
    n = 64000
    X = pd.DataFrame({"x": (np.arange(n) + 0.5) * 8.0 / n})
    synth = _fit(X, domain={"x": {"low": 0, "high": 8}}, solver="smd", resolution=8,
                 epsilon=4.0, resolution_refine=0.5)
    ref = synth.resolution_["x"]["refinement"]
    assert ref["cells"] == list(range(8))
    edges = np.concatenate([np.linspace(c, c + 1, s + 1)[:-1] for c, s in
                            zip(ref["cells"], ref["splits"])] + [[8.0]])
    true = np.histogram(X["x"], edges)[0]
    resid = np.asarray(ref["counts"]) - true
    assert len(resid) >= 64
    return np.std(resid) / ref["sigma"]


def test_second_level_noise_is_the_recorded_noise_and_a_halved_noise_is_caught():
    assert abs(_second_level_noise_ratio() - 1) < 0.25
    with audit.weakened_noise(2.0):
        assert abs(_second_level_noise_ratio() - 1) > 0.35
