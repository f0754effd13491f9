"""Structural zeros on numeric columns (issue 30, item 4): intervals in the domain's
``"forbid"`` list, e.g. ``{"age": {"<": 16}, "marital": "married"}``.

An interval must hold whole bins of the column's public equal bins (or it is refused,
naming the column and the nearest edges, before the budget is reserved); the bins it
holds then get probability 0 where the rest of the conjunction holds, and no synthetic
value falls inside the interval there: over many rows, every solver family, with and
without the fine grid (``resolution``), on float and integer columns. The data breaks
the rule in a fifth of its rows and is never checked against it.
"""

import json
import math

import numpy as np
import pandas as pd
import pytest

from skdp import BudgetAccountant
from skdp._domain.forbid import Interval, check_forbid, interval_bins
from skdp.synthesizer import SaddlePointSynthesizer

SOLVERS = ["smd", "smd_linf", "smd_private_game", "smd_vertex", "mwem", "mst", "aim"]
DOMAIN = {"age": {"low": 0, "high": 100, "n_bins": 10, "integer": True},
          "income": {"low": 0.0, "high": 50.0, "n_bins": 5},
          "marital": ["single", "married", "widowed"]}
# married under 20 and widowed under 30 cannot occur; nobody earns 40 or more while single
FORBID = [{"age": {"<=": 19}, "marital": "married"}, {"age": {"<": 30}, "marital": "widowed"},
          {"income": {">=": 40}, "marital": "single"}]


def _table(n, violate=0.2, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 101, n)
    income = np.clip(rng.gamma(2.0, 10.0, n), 0, 50)
    marital = np.where(age < 30, "single", rng.choice(["single", "married", "widowed"], n,
                                                      p=[0.3, 0.5, 0.2]))
    marital = np.where((marital == "single") & (income >= 40), "married", marital)
    bad = rng.random(n) < violate  # rows that break the rule (the curator's input error)
    age = np.where(bad, rng.integers(0, 20, n), age)
    marital = np.where(bad, rng.choice(["married", "widowed"], n), marital)
    return pd.DataFrame({"age": age, "income": income, "marital": marital})


def _violations(S):
    return int((((S.age <= 19) & (S.marital == "married"))
                | ((S.age < 30) & (S.marital == "widowed"))
                | ((S.income >= 40) & (S.marital == "single"))).sum())


def _fit(X, solver, forbid=FORBID, accountant=None, domain=DOMAIN, **kw):
    kw.setdefault("n_iter", 40 if solver in ("smd_private_game", "smd_vertex") else "auto")
    return SaddlePointSynthesizer(epsilon=1.0, solver=solver, random_state=0,
                                  domain=dict(domain, **({"forbid": forbid} if forbid else {})),
                                  accountant=accountant or BudgetAccountant(), **kw).fit(X)


@pytest.mark.parametrize("solver", SOLVERS)
def test_never_sampled_although_the_data_breaks_it(solver):
    X = _table(1500)
    assert ((X.age <= 19) & (X.marital == "married")).mean() > 0.05
    est = _fit(X, solver)
    S = est.sample(30_000, random_state=1)
    assert _violations(S) == 0
    assert sum(_violations(b) for b in est.iter_sample(5_000, batch_size=700,
                                                       random_state=2)) == 0
    # the allowed parts stay: married people from 20, single below 40
    assert ((S.age >= 20) & (S.marital == "married")).any()
    assert ((S.income < 40) & (S.marital == "single")).any()
    assert est.forbid_ == FORBID


@pytest.mark.parametrize("solver", ["smd", "mst", "aim"])
def test_release_is_zero_on_the_forbidden_bins(solver):
    est = _fit(_table(1000), solver)
    married = est.domain_["marital"]["categories"].index("married")
    widowed = est.domain_["marital"]["categories"].index("widowed")
    single = est.domain_["marital"]["categories"].index("single")
    if hasattr(est, "model_"):
        am, im = est.model_.marginal((0, 2)), est.model_.marginal((1, 2))
    else:
        hist = np.asarray(est.histogram_)
        am, im = hist.sum(axis=1), hist.sum(axis=0)
    assert np.all(am[:2, married] == 0.0) and am[2, married] > 0  # ages 0-19 (bins 0, 1)
    assert np.all(am[:3, widowed] == 0.0)
    assert np.all(im[4, single] == 0.0) and im[3, single] > 0    # income [40, 50]


@pytest.mark.parametrize("solver, resolution", [("smd", 64), ("aim", 16), ("aim", None)])
def test_with_and_without_the_fine_grid(solver, resolution):
    """The fine grid (on by default) places values within the coarse bins: still never
    inside the interval (per-integer grid for age; equal cells and the point at the bound
    for income); without it, values uniform within the bins."""
    X = _table(2000, seed=3)
    X.loc[X.index[:300], "income"] = 50.0  # a point mass at the upper bound
    est = _fit(X, solver, resolution=resolution)
    S = est.sample(40_000, random_state=4)
    assert _violations(S) == 0
    if resolution is not None:
        assert ((S.income == 50.0) & (S.marital != "single")).any()


@pytest.mark.parametrize("solver", ["smd", "mst"])
def test_without_integer_flag_and_on_an_array(solver):
    """An int column whose entry does not say "integer" (its dtype decides), on an array
    with feature_names; the interval written with '<' at a bin edge."""
    rng = np.random.default_rng(5)
    X = np.column_stack([rng.integers(0, 50, 2000), rng.integers(0, 2, 2000)])
    domain = {"x": (0, 50), "y": 2, "forbid": [{"x": {">=": 25}, "y": 1}]}
    est = SaddlePointSynthesizer(domain=domain, n_bins=10, solver=solver,
                                 random_state=0).fit(X, feature_names=["x", "y"])
    S = est.sample(20_000, random_state=0)
    assert not ((S[:, 0] >= 25) & (S[:, 1] == 1)).any()
    assert ((S[:, 0] < 25) & (S[:, 1] == 1)).any()


def test_no_extra_budget_and_no_change_without_forbid():
    X = _table(800)
    with_acc, without_acc = BudgetAccountant(), BudgetAccountant()
    a = _fit(X, "mst", accountant=with_acc)
    b = _fit(X, "mst", forbid=None, accountant=without_acc)
    assert [(e.kind, e.label) for e in a.privacy_ledger_.entries] == \
        [(e.kind, e.label) for e in b.privacy_ledger_.entries]
    assert np.allclose(with_acc.total(), without_acc.total(), rtol=1e-12)
    assert _violations(b.sample(5000, random_state=0)) > 0  # the tests above have power
    c = _fit(X, "mst", forbid=[]).sample(300, random_state=0)
    pd.testing.assert_frame_equal(b.sample(300, random_state=0), c)


@pytest.mark.parametrize("forbid, kw, match", [
    ([{"age": {"<": 15}}], {}, r"interval \{'<': 15\} of column 'age' cuts the integers of "
                               r"its bin \[10, 20\).*nearest bin edges are 10 and 20"),
    ([{"income": {">": 45}, "marital": "single"}], {},
     r"column 'income' cuts its bin \[40, 50\].*nearest bin edges are 40 and 50"),
    ([{"income": {"<": 25}}], {}, r"column 'income' cuts its bin \[20, 30\)"),
    ([{"income": {">=": 10}}], {"n_bins": 3}, None),  # the entry's n_bins (5) decides: fine
    ([{"age": {"<": 20}, "marital": "single"}], {"bin_strategy": "quantile"},
     r"column 'age' is binned at private quantiles"),
    ([{"marital": {"<": 3}}], {}, r"column 'marital' has categories or codes"),
    ([{"income": 40.0}], {}, r"column 'income'.*categories or codes only.*interval"),
    ([{"income": {"<": 20, "<=": 30}}], {}, r"two upper ends"),
    ([{"income": {"<": "20"}}], {}, r"ends must be finite numbers"),
    ([{"income": {"~": 20}}], {}, r"keys \['~'\]"),
    ([{"income": {">": 30, "<": 20}}], {}, r"holds no value"),
    ([{"income": {">": 60}}], {}, r"holds no value of its range \[0, 50\]"),
    ([{"income": {"<=": 50}}], {}, r"removes every category of column 'income'"),
    ([{"age": {"<": 50}, "marital": m} for m in ("single", "married", "widowed")]
     + [{"age": {">=": 50}}], {}, r"removes every combination"),
])
def test_refused_before_the_budget(forbid, kw, match):
    acc = BudgetAccountant()
    est = SaddlePointSynthesizer(domain=dict(DOMAIN, forbid=forbid), accountant=acc,
                                 solver="mst", random_state=0, **kw)
    if match is None:
        est.fit(_table(200))
        assert acc.total()[0] > 0
        return
    with pytest.raises(ValueError, match=match):
        est.fit(_table(200))
    assert acc.total() == (0.0, 0.0)


def test_private_bounds_refused():
    acc = BudgetAccountant()
    domain = {"age": {"kind": "numeric"}, "marital": ["single", "married", "widowed"],
              "forbid": [{"age": {"<": 16}, "marital": "married"}]}
    with pytest.raises(ValueError, match=r"column 'age' has no public bounds"):
        SaddlePointSynthesizer(domain=domain, accountant=acc).fit(_table(100)[["age",
                                                                               "marital"]])
    assert acc.total() == (0.0, 0.0)


def test_integer_alignment_needs_the_flag():
    """Without "integer": true, '<= 19' cuts the real bin [10, 20); with it, it holds the
    integers 10..19 exactly. '<' 20 aligns either way."""
    le19, lt20 = Interval.parse("a", {"<=": 19}), Interval.parse("a", {"<": 20})
    assert interval_bins("a", le19, 0, 100, 10, True) == [0, 1]
    for integer in (False, None):
        with pytest.raises(ValueError, match=r"cuts its bin \[10, 20\)"):
            interval_bins("a", le19, 0, 100, 10, integer)
    for integer in (True, False, None):
        assert interval_bins("a", lt20, 0, 100, 10, integer) == [0, 1]
    # as reals '<= 20' is '< 20' (a point has no mass): but an integer column holds 20 in
    # the bin [20, 30), so a column that may be one is refused
    le20 = Interval.parse("a", {"<=": 20})
    assert interval_bins("a", le20, 0, 100, 10, False) == [0, 1]
    with pytest.raises(ValueError, match=r"cuts the integers of its bin \[20, 30\)"):
        interval_bins("a", le20, 0, 100, 10, None)


def test_bounds_are_exact_and_inexact_edges_tolerated():
    """The point masses at the bounds count exactly; an interior edge such as 0.3 (not an
    exact float) aligns with the bins of [0, 1]."""
    for cut in ({"<": 1.0}, {">=": 1.0}):  # the point mass at 1.0 allowed / alone forbidden
        with pytest.raises(ValueError, match=r"cuts its bin \[0.9, 1\]"):
            interval_bins("u", Interval.parse("u", cut), 0.0, 1.0, 10, False)
    assert interval_bins("u", Interval.parse("u", {">=": 0.9}), 0.0, 1.0, 10, False) == [9]
    assert interval_bins("u", Interval.parse("u", {"<=": 1.0}), 0.0, 1.0, 10, False) == \
        list(range(10))
    with pytest.raises(ValueError, match=r"cuts its bin \[0, 1\]"):
        interval_bins("u", Interval.parse("u", {">": 0.0}), 0.0, 1.0, 1, False)
    for edge in (0.3, 0.7, 0.1 * 3):
        assert interval_bins("u", Interval.parse("u", {"<": edge}), 0.0, 1.0, 10, False) == \
            list(range(round(edge * 10)))
    # an integer column whose bins hold no integer: decoded at the rounded midpoint
    assert interval_bins("k", Interval.parse("k", {">=": 2}), 0, 3, 10, True) == \
        [i for i in range(10) if round((i + 0.5) * 0.3) >= 2]


def test_check_forbid_output_and_json_round_trip(tmp_path):
    entries = {k: v for k, v in DOMAIN.items()}
    out = check_forbid(entries, FORBID)
    assert out[0]["marital"] == 1 and isinstance(out[0]["age"], Interval)
    assert out[0]["age"].describe() == {"<=": 19}
    assert check_forbid(entries, [{"income": {"<": 25}}], n_bins=None)[0]["income"].high == 25
    path = tmp_path / "dom.json"
    path.write_text(json.dumps(dict(DOMAIN, forbid=FORBID)))
    est = SaddlePointSynthesizer(domain=str(path), solver="aim", random_state=0).fit(_table(600))
    assert est.forbid_ == FORBID and _violations(est.sample(5000, random_state=0)) == 0


def test_cli_domain_file(tmp_path, capsys):
    from skdp.__main__ import main

    X = _table(600)
    X.to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "dom.json").write_text(json.dumps(dict(DOMAIN, forbid=FORBID)))
    out = tmp_path / "out.csv"
    assert main(["synthesize", str(tmp_path / "in.csv"), "-o", str(out), "--domain",
                 str(tmp_path / "dom.json"), "--epsilon", "1", "--solver", "aim",
                 "--n-samples", "5000"]) == 0
    S = pd.read_csv(out)
    assert len(S) == 5000 and _violations(S) == 0
    bad = dict(DOMAIN, forbid=[{"age": {"<": 15}, "marital": "married"}])
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert main(["synthesize", str(tmp_path / "in.csv"), "-o", str(tmp_path / "o2.csv"),
                 "--domain", str(tmp_path / "bad.json")]) != 0
    assert "column 'age' cuts the integers of its bin [10, 20)" in capsys.readouterr().err
    assert not (tmp_path / "o2.csv").exists()


def test_many_rows_mwem_large_sample():
    """Many rows (200k) from one fit: not one inside a forbidden interval."""
    est = _fit(_table(1000, seed=7), "mwem")
    assert _violations(est.sample(200_000, random_state=9)) == 0
    assert math.isclose(float(np.asarray(est.histogram_).sum()), 1.0, rel_tol=1e-9)
