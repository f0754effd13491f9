"""Model bins read from the fine release (issue 30, ``bin_strategy='fine'``): the edges are
post-processing of the released fine counts (a function of them and of public parameters
only, no extra charge), set before the model measures anything, and put the bins where a
heavy-tailed column's rows are while a near-uniform column keeps its equal bins."""

import json

import numpy as np
import pandas as pd
import pytest

from skdp.__main__ import main
from skdp._cli.parser import build_parser
from skdp._domain.fine import FineGrid
from skdp._domain.fine_bins import fine_edges
from _toy import fit_synthesizer as _fit

DOMAIN = {"visits": {"low": 0, "high": 80, "integer": True},
          "income": {"low": 0.0, "high": 12.0},
          "flat": {"low": 0.0, "high": 1.0},
          "c": ["a", "b"]}


def _table(n=6000, seed=0):
    """A heavy-tailed count (most rows at 0-3 of 0-80), a log income in a narrow range
    (most rows in 8.5-10 of 0-12) that depends on the count, a uniform float, a category."""
    rng = np.random.default_rng(seed)
    visits = np.minimum(rng.geometric(0.45, n) - 1, 80)
    income = np.clip(rng.normal(9.2, 0.35, n) + 0.08 * np.minimum(visits, 4), 0, 12)
    return pd.DataFrame({"visits": visits, "income": income,
                         "flat": rng.uniform(0, 1, n), "c": rng.choice(["a", "b"], n)})


def _grid(entry):
    """The public fine grid of a ``resolution_`` entry with its released counts."""
    if "values" in entry:
        grid = FineGrid(entry["low"], entry["high"], entry["integer"],
                        points=np.asarray(entry["values"], dtype=np.float64))
    else:
        edges = entry.get("edges")  # a refined grid's cells, else equal ones
        grid = FineGrid(entry["low"], entry["high"], entry["integer"],
                        points=np.array([entry["low"], entry["high"]]),
                        edges=np.asarray(edges) if edges is not None else
                        np.linspace(entry["low"], entry["high"], entry["cells"] + 1))
    grid.counts = np.asarray(entry["counts"], dtype=np.float64)
    return grid


def test_edges_are_a_function_of_the_released_counts_and_public_parameters():
    X = _table()
    synth = _fit(X, domain=DOMAIN, bin_strategy="fine")
    assert set(synth.bin_edges_) >= {"visits", "income"}
    for name, edges in synth.bin_edges_.items():
        again = fine_edges(_grid(synth.resolution_[name]), 10)
        np.testing.assert_array_equal(edges, again)
    # another private table whose released counts are the same gives the same edges
    grid = _grid(synth.resolution_["visits"])
    twin = _grid(synth.resolution_["visits"])
    np.testing.assert_array_equal(fine_edges(grid, 10), fine_edges(twin, 10))


def _events(synth):
    return [(type(e).__name__, e.label, e.count, getattr(e, "rho", None),
             getattr(e, "epsilon", None), getattr(e, "delta", None))
            for e in synth.privacy_ledger_.entries]


@pytest.mark.parametrize("solver", ["mst", "aim"])
def test_no_extra_charge_and_the_same_fine_release(solver):
    """The ledger with fine bins is the one with equal bins (``mst``: a fixed plan, entry by
    entry; ``aim``, whose rounds adapt to its measurements: the same spend, the same entries
    up to the fine release)."""
    X = _table()
    uniform = _fit(X, domain=DOMAIN, solver=solver, bin_strategy="uniform")
    fine = _fit(X, domain=DOMAIN, solver=solver, bin_strategy="fine")
    assert fine.privacy_spent_ == pytest.approx(uniform.privacy_spent_, rel=1e-12)
    a, b = _events(uniform), _events(fine)
    if solver == "aim":
        first = next(i for i, e in enumerate(a) if e[1].startswith("fine grid")) + 1
        a, b = a[:first], b[:first]
    assert [e[:3] for e in a] == [e[:3] for e in b]
    assert [e[3:] for e in a] == [pytest.approx(e[3:], rel=1e-12) for e in b]
    for name in DOMAIN:  # the fine release comes first: the same noisy counts
        if name in uniform.resolution_:
            np.testing.assert_array_equal(uniform.resolution_[name]["counts"],
                                          fine.resolution_[name]["counts"])
    assert uniform.bin_edges_ == {}


def test_bins_follow_the_mass_of_a_heavy_column_and_a_flat_one_keeps_equal_bins():
    X = _table()
    synth = _fit(X, domain=DOMAIN, bin_strategy="fine")
    visits, income = synth.bin_edges_["visits"], synth.bin_edges_["income"]
    assert len(visits) == len(income) == 11
    assert np.all(np.diff(visits) > 0) and np.all(np.diff(income) > 0)
    assert visits[0] == 0 and visits[-1] == 80 and income[0] == 0 and income[-1] == 12
    # equal bins put 99% of the visits in [0, 8) and most incomes in [8.4, 9.6), [9.6, 10.8)
    assert np.sum(visits[1:-1] < 8) >= 3
    assert np.sum((income[1:-1] > 8.0) & (income[1:-1] < 10.5)) >= 4
    assert visits[1] == 0.5  # the 45% at 0 visits: a bin of its own
    share = np.bincount(np.searchsorted(income[1:-1], X["income"], side="right"),
                        minlength=10) / len(X)
    equal = np.bincount(np.floor(X["income"] / 1.2).astype(int), minlength=10) / len(X)
    assert share.max() < 0.5 < equal.max()  # the grid's cells (0.375 wide) bound the split
    assert "flat" not in synth.bin_edges_  # near-uniform: its equal bins kept
    # the model measured these bins: its 1-way measurement of visits is spread over them
    measured = [m for m in synth.measurements_ if m["marginal"] == ("visits",)]
    assert measured and np.sort(measured[0]["counts"][:10])[-3] > 0.1 * len(X)


def test_a_uniform_grid_keeps_equal_bins_and_a_spike_gets_its_own_bin():
    grid = FineGrid(0.0, 100.0, integer=False, points=np.array([0.0, 100.0]),
                    edges=np.linspace(0, 100, 65))
    rng = np.random.default_rng(0)
    grid.counts = 200 + rng.normal(0, 10, 66)
    assert fine_edges(grid, 10) is None
    grid.counts[1:-1] = 10.0
    grid.counts[0] = 5000.0  # a point mass at the lower bound, rows in every other bin:
    assert fine_edges(grid, 10) is None  # no pair near-empty (NEAR_EMPTY): nothing merged
    grid.counts[1:-1] = 1.0  # a near-empty rest
    edges = fine_edges(grid, 10)
    assert edges[1] == np.nextafter(0.0, 1.0)  # the bound alone in the first bin
    grid.counts[0], grid.counts[-1] = 10.0, 5000.0  # at the upper bound
    assert fine_edges(grid, 10)[-2] == np.nextafter(100.0, 0.0)


def test_an_empty_tail_is_merged_by_its_noisy_sums_not_its_projected_mass():
    """Few rows under wide bounds (a film budget, 9% of the rows in 0-3e8): all of them in
    the first equal bin, noise alone on the tail's cells. Projected onto non-negative
    counts the tail keeps the positive half of its noise as mass, no pair of its bins looks
    near-empty and the equal bins were kept; summed as released, the tail's pairs are empty
    within the noise, so the heavy bin is split where its rows are."""
    grid = FineGrid(0.0, 100.0, integer=False, points=np.array([0.0, 100.0]),
                    edges=np.linspace(0, 100, 65))
    grid.counts = np.concatenate([[0.0], [120, 80, 50, 30, 20, 10], np.tile([30.0, -30.0], 29),
                                  [0.0]])
    edges = fine_edges(grid, 10)
    assert edges is not None and len(edges) == 11
    assert np.sum(edges < 10.0) >= 4  # the first equal bin [0, 10) cut into several


def test_the_sample_follows_the_heavy_columns_at_user_bins():
    X = _table()
    out = _fit(X, domain=DOMAIN, bin_strategy="fine", epsilon=4.0).sample(len(X),
                                                                          random_state=1)
    for v in range(4):
        assert abs((out["visits"] == v).mean() - (X["visits"] == v).mean()) < 0.03, v
    # the structure within the old first bin of visits: income rises with visits 0-3
    means = out.groupby(np.minimum(out["visits"], 3))["income"].mean()
    assert np.all(np.diff(means.to_numpy()) > 0)


def test_forbid_on_a_numeric_interval_keeps_that_columns_equal_bins():
    """A forbidden interval is checked against the column's public equal bins, which it
    keeps under 'fine' (the fit is not refused); the other numeric columns still get edges
    read from the fine release, and the interval is never sampled. 'quantile' refuses."""
    X = _table()
    X.loc[X.index[:300], "visits"] = 50  # rows that break the rule (never checked)
    domain = {**DOMAIN, "forbid": [{"visits": {">=": 40}, "c": "a"}]}
    synth = _fit(X, domain=domain, bin_strategy="fine", epsilon=4.0)
    assert "visits" not in synth.bin_edges_  # its equal bins kept
    assert "income" in synth.bin_edges_  # heavy: edges read from the fine release
    plain = _fit(X, domain=DOMAIN, bin_strategy="fine", epsilon=4.0)
    assert "visits" in plain.bin_edges_  # without the interval it would have moved
    out = synth.sample(20000, random_state=2)
    assert not ((out["visits"] >= 40) & (out["c"] == "a")).any()
    assert ((out["visits"] >= 40) & (out["c"] == "b")).any()  # allowed there
    with pytest.raises(ValueError, match="visits"):
        _fit(X, domain=domain, bin_strategy="quantile")
    bad = {**DOMAIN, "forbid": [{"visits": {">=": 45}, "c": "a"}]}  # cuts an equal bin
    with pytest.raises(ValueError, match="visits"):
        _fit(X, domain=bad, bin_strategy="fine")


def test_the_cli_writes_the_estimators_rows(tmp_path, capsys):
    args = build_parser().parse_args(["synthesize", "in.csv", "-o", "out.csv",
                                      "--bin-strategy", "fine"])
    assert args.bin_strategy == "fine"
    src, dom, out, api = (tmp_path / n for n in ("in.csv", "d.json", "o.csv", "a.csv"))
    _table(800).to_csv(src, index=False)
    dom.write_text(json.dumps({k: {**v, "missing": False} if isinstance(v, dict) else v
                               for k, v in DOMAIN.items()}))
    assert main(["synthesize", str(src), "-o", str(out), "--domain", str(dom), "--seed", "3",
                 "--bin-strategy", "fine", "--quiet"]) == 0
    capsys.readouterr()
    est = _fit(pd.read_csv(src), domain=json.loads(dom.read_text()), bin_strategy="fine",
               random_state=3)
    assert "visits" in est.bin_edges_
    est.sample(800).to_csv(api, index=False)
    pd.testing.assert_frame_equal(pd.read_csv(out), pd.read_csv(api), rtol=1e-9)


def test_the_report_names_a_bound_alone_in_its_bin():
    from skdp._domain import Column
    from skdp._synth.report import _cell_labels

    col = Column("v", float, kind="numeric", low=0.0, high=10.0, n_bins=4)
    col.edges = np.array([0.0, np.nextafter(0.0, 1.0), 5.0, np.nextafter(10.0, 0.0), 10.0])
    assert _cell_labels(col) == ["0", "(0, 5)", "[5, 10)", "10"]
