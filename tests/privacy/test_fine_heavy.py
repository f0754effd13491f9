"""``resolution_refine='auto'`` (issue 30: small tables and heavy tails): a second level of the
fine grids of the columns whose cells holding ``SPLIT_CELL`` of the mass they spread (first-level
noisy counts less released spikes', over the column's noisy total less all its spikes') hold
``HEAVY_CELL`` of it together, those cells split, on ``REFINE_SHARE`` of the budget taken from
the solver's share, and only when such a column exists
(:func:`skdp._domain.private.refine_release` with ``heavy``); then a third level on the
refined grids' cells holding ``SPLIT_CELL`` of what they spread, on ``THIRD_SHARE``.

Closed forms: the second release's sensitivity (one histogram per candidate column), its
sigma and ledger entry, the solver's share; without a candidate the fit is the one without a
second level (the same ledger and rows); statistically, the released sub-cell counts carry
the recorded noise and a halved noise is caught."""

import math

import numpy as np
import pandas as pd
import pytest

from skdp import audit
from skdp._domain.fine import MAX_SPLIT, refine_splits
from skdp.privacy.ledger import approx_dp_to_gdp, approx_dp_to_zcdp, gaussian_sigma
from skdp.synthesizer import (HEAVY_CELL, REFINE_SHARE, SPIKE_DELTA_SHARE, SPLIT_CELL,
                              THIRD_SHARE)
from _toy import fit_synthesizer as _fit

DELTA_G = 1e-6 - SPIKE_DELTA_SHARE * 1e-6


def _table(n=6000, seed=0):
    """``w``: a survey weight under wide public bounds (0-60,000, most rows below 500: one
    equal cell holds them); ``flat``: no heavy cell; a category."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"w": np.minimum(rng.lognormal(4.5, 1.2, n), 60000.0),
                         "flat": rng.uniform(0, 10, n),
                         "c": rng.choice(["a", "b"], n)})


DOMAIN = {"w": {"low": 0, "high": 60000}, "flat": {"low": 0, "high": 10}, "c": ["a", "b"]}


@pytest.mark.parametrize("solver, currency", [("smd", "gdp"), ("mst", "zcdp")])
def test_a_heavy_cell_is_refined_on_the_solvers_share(releases, solver, currency):
    """The second release: l2-sensitivity sqrt(2 d_c) for the d_c = 1 grid with a heavy
    cell (``flat`` has none: not a candidate), on ``REFINE_SHARE`` of the budget; the first
    keeps its whole share; the solver gets the rest; the fit spends exactly (epsilon,
    delta)."""
    synth = _fit(_table(), domain=DOMAIN, solver=solver, resolution_share=0.2)
    (l1, s1, sig1), (l2, s2, sig2) = releases[:2]
    assert l1 == "fine grid counts of 2 columns and exact values of 2"
    assert l2 == "fine grid refinement of 1 of 1 columns"
    assert s2 == pytest.approx(math.sqrt(2 * 1))
    if currency == "gdp":
        rho = approx_dp_to_gdp(1.0, DELTA_G) ** 2 / 2
    else:
        rho = approx_dp_to_zcdp(1.0, DELTA_G)
    assert sig1 == pytest.approx(gaussian_sigma(s1, 0.2 * rho))
    assert sig2 == pytest.approx(gaussian_sigma(s2, REFINE_SHARE * rho))
    levels = [e.rho for e in synth.privacy_ledger_.entries if e.label == l2]  # second, third
    assert levels == pytest.approx([REFINE_SHARE * rho, THIRD_SHARE * rho][:len(levels)])
    solver_rho = sum(e.rho * e.count for e in synth.privacy_ledger_.entries
                     if e.kind == "gaussian" and not e.label.startswith("fine grid"))
    third = THIRD_SHARE if synth.resolution_["w"]["refinement"].get("more") else 0.0
    if currency == "gdp":  # mst's selection is not Gaussian: checked by the spend only
        assert solver_rho == pytest.approx((1 - 0.2 - REFINE_SHARE - third) * rho)
    eps, delta = synth.privacy_spent_
    assert delta == 1e-6 and eps == pytest.approx(1.0, rel=1e-6) and eps <= 1.0 + 1e-9
    ref = synth.resolution_["w"]["refinement"]
    first = np.asarray(ref["first"]["counts"])
    share = _spread_shares(synth.resolution_["w"])
    assert share.max() >= HEAVY_CELL
    split = (share >= SPLIT_CELL) & (refine_splits(first, ref["sigma"]) >= 2)
    assert ref["cells"] == np.flatnonzero(split).tolist()
    assert "refinement" not in synth.resolution_["flat"]


def _spread_shares(res):
    """Each equal cell's first-level count less its released spikes', over the column's
    total less all its spikes' (the rule's released values, recomputed from ``resolution_``)."""
    first = np.asarray(res["refinement"]["first"]["counts"], dtype=float)
    cells = res["refinement"]["first"]["cells"]
    inner, total = first[1:-1].copy(), first.sum()
    spikes = res.get("spikes") or {"values": [], "counts": []}
    edges = np.linspace(res["low"], res["high"], cells + 1)
    for v, c in zip(spikes["values"], spikes["counts"]):
        k = min(int(np.searchsorted(edges, v, side="right")) - 1, cells - 1)
        inner[k] -= max(c, 0.0)
        total -= max(c, 0.0)
    return np.clip(inner, 0.0, None) / total


def test_a_candidate_column_has_every_cell_that_holds_a_fifth_of_its_mass_split():
    """Film lengths: 60% of the rows spread over the first of 16 cells (heavy: the column is
    a candidate) and 30% over the second (under ``HEAVY_CELL``, above ``SPLIT_CELL``): both
    are split by the one second release, whose sensitivity stays one histogram per candidate
    column (ggplot2movies at epsilon 0.5, issue 30)."""
    rng = np.random.default_rng(3)
    n = 20000
    part = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    length = np.where(part == 0, rng.uniform(0, 375, n),
                      np.where(part == 1, rng.uniform(375, 750, n), rng.uniform(0, 6000, n)))
    X = pd.DataFrame({"length": length, "c": rng.choice(["a", "b"], n)})
    est = _fit(X, domain={"length": {"low": 0, "high": 6000}, "c": ["a", "b"]}, solver="mst",
               epsilon=2.0, resolution=16)
    res = est.resolution_["length"]
    share = _spread_shares(res)
    assert share[0] >= HEAVY_CELL > share[1] >= SPLIT_CELL
    assert res["refinement"]["cells"] == [0, 1]
    assert [e.label for e in est.privacy_ledger_.entries if "refinement" in e.label] == [
        "fine grid refinement of 1 of 1 columns"]


def test_a_column_with_its_spread_rows_in_three_busy_cells_is_a_candidate():
    """Film lengths at epsilon 1: no cell holds half the spread rows, but three of 32 hold
    40%, 30% and 25% (each above ``SPLIT_CELL``, together above ``HEAVY_CELL``): the column
    is a candidate and those three cells are split, one histogram for the column; a column
    whose rows spread over many cells is not."""
    rng = np.random.default_rng(5)
    n = 20000
    part = rng.choice(4, n, p=[0.4, 0.3, 0.25, 0.05])
    length = np.where(part < 3, (part + rng.uniform(0, 1, n)) * 187.5, rng.uniform(0, 6000, n))
    X = pd.DataFrame({"length": length, "flat": rng.uniform(0, 10, n),
                      "c": rng.choice(["a", "b"], n)})
    est = _fit(X, domain={"length": {"low": 0, "high": 6000}, "flat": {"low": 0, "high": 10},
                          "c": ["a", "b"]}, solver="mst", epsilon=2.0, resolution=32)
    share = _spread_shares(est.resolution_["length"])
    busy = share >= SPLIT_CELL
    assert share.max() < HEAVY_CELL <= share[busy].sum()
    assert est.resolution_["length"]["refinement"]["cells"] == np.flatnonzero(busy).tolist()
    assert "refinement" not in est.resolution_["flat"]
    assert [e.label for e in est.privacy_ledger_.entries if "refinement" in e.label][0] == (
        "fine grid refinement of 1 of 1 columns")


def test_without_a_heavy_cell_auto_is_the_fit_without_a_second_level(releases):
    """No cell holds half its column: nothing released, nothing charged, the solver's share
    unchanged: the same ledger and rows as ``resolution_refine=0``."""
    X = _table().drop(columns="w")
    domain = {k: v for k, v in DOMAIN.items() if k != "w"}
    auto = _fit(X, domain=domain, solver="mst")
    off = _fit(X, domain=domain, solver="mst", resolution_refine=0.0)
    assert not any(label.startswith("fine grid refinement") for label, _, _ in releases)
    assert list(auto.privacy_ledger_.entries) == list(off.privacy_ledger_.entries)
    pd.testing.assert_frame_equal(auto.sample(100), off.sample(100))


def _noise_ratio(third=False):
    """The released sub-cell counts against their true counts: the residuals' sd over the
    recorded sigma. Four columns with all their rows in the first of 8 cells (``MAX_SPLIT``
    sub-cells each: the second level), or with ``third`` in its first sub-cell too (the third
    level, :func:`_deep`)."""
    n, width = 64000, 1 / 32 if third else 1.0
    X = pd.DataFrame({f"x{i}": (np.arange(n) + 0.5) / n * width for i in range(4)})
    synth = _fit(X, domain={f"x{i}": {"low": 0, "high": 8} for i in range(4)}, solver="smd",
                 resolution=8, epsilon=4.0)
    resid = []
    for i in range(4):
        ref = synth.resolution_[f"x{i}"]["refinement"]
        level = ref["more"][0] if third else ref
        assert level["cells"] == [0] and level["splits"] == [MAX_SPLIT]
        true = np.histogram(X[f"x{i}"], np.linspace(0, width, MAX_SPLIT + 1))[0]
        resid.append((np.asarray(level["counts"]) - true) / level["sigma"])
    return np.std(np.concatenate(resid))


def test_the_released_sub_cells_carry_the_recorded_noise_and_a_halved_noise_is_caught():
    assert abs(_noise_ratio() - 1) < 0.25
    with audit.weakened_noise(2.0):
        assert abs(_noise_ratio() - 1) > 0.35


def test_a_cell_heavy_only_through_a_released_spike_is_not_refined():
    """Years of schooling on a float grid: 60% of the rows at exactly 12 make 12's cell heavy,
    but 12 is released as a spike (an exact value), so no second level is released; the same
    cell heavy without the spike (a smooth bump) is refined."""
    rng = np.random.default_rng(1)
    n = 6000
    spiky = np.where(rng.random(n) < 0.6, 12.0, rng.uniform(3, 24, n))
    bump = np.where(rng.random(n) < 0.6, rng.uniform(11.0, 12.1, n), rng.uniform(3, 24, n))
    dom = {"educ": {"low": 3, "high": 24}, "c": ["a", "b"]}
    labels = []
    for x in (spiky, bump):
        X = pd.DataFrame({"educ": x, "c": rng.choice(["a", "b"], n)})
        est = _fit(X, domain=dom, solver="mst", epsilon=2.0, resolution=16)
        labels.append([e.label for e in est.privacy_ledger_.entries if "refinement" in e.label])
    assert labels[0] == [] and est.resolution_["educ"].get("refinement") is not None
    assert labels[1] == ["fine grid refinement of 1 of 1 columns"]


def test_a_cell_heavy_in_the_mass_beside_the_spikes_is_refined():
    """Votes on a film: half the rows on a few small counts (released spikes), 40% spread
    over the rest of the first cell, 10% over the whole range. The cell holds 40% of the
    column beyond its spikes (under ``HEAVY_CELL`` of the column's total) but 80% of what the
    cells spread (the column less its spikes), so it is refined (issue 30: ggplot2movies)."""
    rng = np.random.default_rng(2)
    n = 6000
    part = rng.choice(3, n, p=[0.5, 0.4, 0.1])
    votes = np.where(part == 0, rng.choice([2.0, 3.0, 4.0], n),
                     np.where(part == 1, rng.uniform(5, 60, n), rng.uniform(0, 1000, n)))
    X = pd.DataFrame({"votes": votes, "c": rng.choice(["a", "b"], n)})
    est = _fit(X, domain={"votes": {"low": 0, "high": 1000}, "c": ["a", "b"]}, solver="mst",
               epsilon=2.0, resolution=16)
    res = est.resolution_["votes"]
    assert sorted(res["spikes"]["values"]) == [2.0, 3.0, 4.0]
    assert res.get("refinement") is not None
    first = np.asarray(res["refinement"]["first"]["counts"])  # the first level's release
    spikes = sum(res["spikes"]["counts"])
    beside = first[1] - spikes  # the first equal cell (after the low bound's) less its spikes
    assert HEAVY_CELL * (first.sum() - spikes) <= beside < HEAVY_CELL * first.sum()
    assert [e.label for e in est.privacy_ledger_.entries if "refinement" in e.label] == [
        "fine grid refinement of 1 of 1 columns"]
    assert res["refinement"]["cells"] == [0]


def _deep(n=64000):
    """Four columns whose rows all lie in [0, 1/32) of 0-8 (8 first-level cells): the first
    cell is split 32 ways and its first sub-cell, still holding every row, 32 ways again."""
    x = (np.arange(n) + 0.5) / n / 32
    return pd.DataFrame({f"x{i}": x for i in range(4)})


def test_a_heavy_sub_cell_gets_a_third_level_on_another_share(releases):
    """The third release: the refined grids with a sub-cell holding ``SPLIT_CELL`` of
    their spread mass are its candidates, one histogram per column again (l2-sensitivity
    sqrt(2 d_c)), on ``THIRD_SHARE`` taken from the solver; the fit still spends
    exactly its budget."""
    synth = _fit(_deep(), domain={f"x{i}": {"low": 0, "high": 8} for i in range(4)},
                 solver="smd", resolution=8, epsilon=4.0)
    third = [r for r in releases if r[0].startswith("fine grid refinement")]
    assert [label for label, _, _ in third] == ["fine grid refinement of 4 of 4 columns"] * 2
    rho = approx_dp_to_gdp(4.0, DELTA_G) ** 2 / 2
    for (_, sens, sigma), share in zip(third, (REFINE_SHARE, THIRD_SHARE)):
        assert sens == pytest.approx(math.sqrt(2 * 4))
        assert sigma == pytest.approx(gaussian_sigma(sens, share * rho))
    solver_rho = sum(e.rho * e.count for e in synth.privacy_ledger_.entries
                     if e.kind == "gaussian" and not e.label.startswith("fine grid"))
    assert solver_rho == pytest.approx((1 - 0.2 - REFINE_SHARE - THIRD_SHARE) * rho)
    eps, delta = synth.privacy_spent_
    assert eps == pytest.approx(4.0, rel=1e-6) and eps <= 4.0 + 1e-9 and delta == 1e-6
    more = synth.resolution_["x0"]["refinement"]["more"]
    assert len(more) == 1 and more[0]["cells"] == [0] and more[0]["splits"] == [MAX_SPLIT]


def test_the_third_level_carries_the_recorded_noise_and_a_halved_noise_is_caught():
    assert abs(_noise_ratio(third=True) - 1) < 0.25
    with audit.weakened_noise(2.0):
        assert abs(_noise_ratio(third=True) - 1) > 0.35


def test_a_refined_grid_with_a_sub_cell_holding_a_fifth_of_its_mass_gets_a_third_level():
    """Votes on a film under 0-8 (thousands): every row in the first of 8 cells, refined;
    its first two sub-cells hold 30% of the rows each (under ``HEAVY_CELL``, above
    ``SPLIT_CELL``), the rest spread over the cell. A refined grid is already a heavy tail,
    so its sub-cells at ``SPLIT_CELL`` are split by a third release (ggplot2movies' ``votes``
    at epsilon 1, issue 30); one histogram per column, one ledger entry each level."""
    rng = np.random.default_rng(4)
    n = 64000
    part = rng.choice(3, n, p=[0.3, 0.3, 0.4])
    x = np.where(part == 0, rng.uniform(0, 1 / 32, n),
                 np.where(part == 1, rng.uniform(1 / 32, 2 / 32, n), rng.uniform(2 / 32, 1, n)))
    est = _fit(pd.DataFrame({"x": x, "c": rng.choice(["a", "b"], n)}),
               domain={"x": {"low": 0, "high": 8}, "c": ["a", "b"]}, solver="mst",
               resolution=8, epsilon=4.0)
    ref = est.resolution_["x"]["refinement"]
    assert ref["cells"] == [0] and ref["splits"] == [MAX_SPLIT]
    sub = np.asarray(ref["counts"]) / n
    assert HEAVY_CELL > sub[0] >= SPLIT_CELL and HEAVY_CELL > sub[1] >= SPLIT_CELL
    assert len(ref["more"]) == 1 and ref["more"][0]["cells"] == [0, 1]
    assert [e.label for e in est.privacy_ledger_.entries if "refinement" in e.label] == [
        "fine grid refinement of 1 of 1 columns"] * 2
