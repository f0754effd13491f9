"""Structural zeros (issue 30, item 4): the domain's ``"forbid"`` list.

Cells that cannot occur are public facts of the domain: every solver's release puts no
mass on them, no sample ever holds them, they cost no budget, and a malformed forbid is
refused (naming the column or value) before the budget is reserved. The data is not
checked against them: the first table below breaks the rule in 30% of its rows, and the
synthetic rows still never do.
"""

import json
import math

import numpy as np
import pandas as pd
import pytest

from skdp import BudgetAccountant
from skdp._domain.forbid import check_forbid, split_forbid
from skdp.synthesizer import SaddlePointSynthesizer

SOLVERS = ["smd", "smd_linf", "smd_private_game", "smd_vertex", "mwem", "mst", "aim"]
ADAPTIVE = {"aim"}  # its number of rounds depends on the data (annealing): compare totals
DOMAIN = {"sex": ["female", "male"], "pregnant": ["no", "yes"],
          "age": ["young", "mid", "old"], "smoker": [False, True]}
FORBID = [{"pregnant": "yes", "sex": "male"}, {"pregnant": "yes", "age": "old"}]


def _table(n, violate, seed=0):
    """``violate``: the share of rows that are pregnant men (a forbidden combination)."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["female", "male"], n)
    age = rng.choice(["young", "mid", "old"], n, p=[0.4, 0.4, 0.2])
    pregnant = np.where((sex == "female") & (age != "old"),
                        rng.choice(["no", "yes"], n, p=[0.5, 0.5]), "no")
    bad = rng.random(n) < violate
    sex = np.where(bad, "male", sex)
    pregnant = np.where(bad, "yes", pregnant)
    smoker = rng.random(n) < np.where(sex == "male", 0.4, 0.2)
    return pd.DataFrame({"sex": sex, "pregnant": pregnant, "age": age, "smoker": smoker})


def _violations(S):
    return int(((S["pregnant"] == "yes") & ((S["sex"] == "male") | (S["age"] == "old"))).sum())


def _fit(X, solver, forbid=FORBID, epsilon=1.0, accountant=None, **kw):
    domain = dict(DOMAIN, **({"forbid": forbid} if forbid else {}))
    kw.setdefault("n_iter", 40 if solver in ("smd_private_game", "smd_vertex") else "auto")
    return SaddlePointSynthesizer(epsilon=epsilon, solver=solver, domain=domain, random_state=0,
                                  accountant=accountant or BudgetAccountant(), **kw).fit(X)


def _tv(S, X, cols):
    p = S.groupby(list(cols)).size() / len(S)
    q = X.groupby(list(cols)).size() / len(X)
    return 0.5 * float(p.sub(q, fill_value=0.0).abs().sum())


@pytest.mark.parametrize("solver", SOLVERS)
def test_never_sampled_although_the_data_breaks_it(solver):
    """30% of the real rows are pregnant men: not one synthetic row is, over many, and the
    released distribution is 0 on the forbidden cells."""
    X = _table(1500, violate=0.3)
    assert ((X.sex == "male") & (X.pregnant == "yes")).mean() > 0.25
    est = _fit(X, solver)
    S = est.sample(30_000, random_state=1)
    assert _violations(S) == 0
    # and in batches (each rounded on its own)
    assert sum(_violations(b) for b in est.iter_sample(5_000, batch_size=700,
                                                       random_state=2)) == 0
    assert est.forbid_ == FORBID
    # the release itself is 0 on the forbidden cells
    s, p, a = (list(est.domain_[c]["categories"]).index(v)
               for c, v in (("sex", "male"), ("pregnant", "yes"), ("age", "old")))
    if hasattr(est, "model_"):
        sp = est.model_.marginal((0, 1))
        pa = est.model_.marginal((1, 2))
    else:
        hist = np.asarray(est.histogram_)
        sp, pa = hist.sum(axis=(2, 3)), hist.sum(axis=(0, 3))
    assert sp[s, p] == 0.0 and pa[p, a] == 0.0
    assert math.isclose(float(np.sum(sp)), 1.0, rel_tol=1e-9)


@pytest.mark.parametrize("solver", ["smd", "mwem", "mst", "aim"])
def test_marginals_of_the_rest_still_close(solver):
    """On a table that keeps the rule, the 1- and 2-way marginals stay close to the real
    ones (the forbid only removes cells the data does not use)."""
    X = _table(3000, violate=0.0, seed=1)
    S = _fit(X, solver, epsilon=5.0).sample(20_000, random_state=3)
    assert _violations(S) == 0
    one = [_tv(S, X, (c,)) for c in X.columns]
    two = [_tv(S, X, (a, b)) for i, a in enumerate(X.columns) for b in X.columns[i + 1:]]
    assert max(one) < 0.06, one
    assert np.mean(two) < 0.08, two


@pytest.mark.parametrize("solver", SOLVERS)
def test_no_extra_budget(solver):
    """The same mechanisms and the same total with and without forbid."""
    X = _table(1000, violate=0.1)
    with_acc, without_acc = BudgetAccountant(), BudgetAccountant()
    a = _fit(X, solver, accountant=with_acc)
    b = _fit(X, solver, forbid=None, accountant=without_acc)
    ra = [(e.kind, e.label, e.rho) for e in a.privacy_ledger_.entries]
    rb = [(e.kind, e.label, e.rho) for e in b.privacy_ledger_.entries]
    if solver in ADAPTIVE:
        assert math.isclose(a.privacy_ledger_.rho, b.privacy_ledger_.rho, rel_tol=1e-9)
    else:
        assert [r[:2] for r in ra] == [r[:2] for r in rb]
        assert all(math.isclose(x[2] or 0.0, y[2] or 0.0, rel_tol=1e-12)
                   for x, y in zip(ra, rb))
    assert np.allclose(a.privacy_spent_, b.privacy_spent_, rtol=1e-9)
    assert np.allclose(with_acc.total(), without_acc.total(), rtol=1e-9)


def test_without_forbid_the_release_is_unchanged():
    """A fit without forbid draws what it drew before: the same seed, the same rows as a
    fit whose forbid is empty."""
    X = _table(800, violate=0.0)
    a = _fit(X, "aim", forbid=None).sample(500, random_state=0)
    b = _fit(X, "aim", forbid=[]).sample(500, random_state=0)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("forbid, match", [
    ([{"pregnant": "maybe", "sex": "male"}], r"'maybe' is not among the categories of column "
                                             r"'pregnant'"),
    ([{"height": 3}], r"forbid entry 0 names column 'height'"),
    ([{}], r"forbid entry 0: .* list of conjunctions"),
    ([{"smoker": False}, {"smoker": True}], r"removes every category of column 'smoker'"),
    ([{"sex": s, "pregnant": p} for s in ("female", "male") for p in ("no", "yes")],
     r"removes every combination of the columns"),
])
def test_bad_forbid_refused_before_the_budget(forbid, match):
    acc = BudgetAccountant()
    est = SaddlePointSynthesizer(domain=dict(DOMAIN, forbid=forbid), accountant=acc)
    with pytest.raises(ValueError, match=match):
        est.fit(_table(100, violate=0.0))
    assert acc.total() == (0.0, 0.0)


def test_numeric_column_refused():
    X = pd.DataFrame({"sex": ["male", "female"] * 50, "height": np.linspace(150, 190, 100)})
    domain = {"sex": ["female", "male"], "height": (140.0, 200.0),
              "forbid": [{"sex": "male", "height": 150.0}]}
    with pytest.raises(ValueError, match="column 'height'.*categories or codes only"):
        SaddlePointSynthesizer(domain=domain).fit(X)


def test_codes_and_a_column_named_forbid():
    """Codes (an int entry) are values too; a column named "forbid" keeps its entry."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(1000, 2))
    domain = {"a": 3, "forbid": {"codes": 3}}
    est = SaddlePointSynthesizer(domain=domain, solver="aim", random_state=0).fit(
        X, feature_names=["a", "forbid"])
    assert est.forbid_ == [] and est.domain_["forbid"]["categories"] == [0, 1, 2]
    est = SaddlePointSynthesizer(domain={0: 3, 1: 3, "forbid": [{0: 2, 1: 0}, {1: 1}]},
                                 solver="mst", random_state=0).fit(X)
    S = est.sample(5000, random_state=0)
    assert not ((S[:, 0] == 2) & (S[:, 1] == 0)).any() and not (S[:, 1] == 1).any()


def test_split_and_check():
    entries, forbid = split_forbid(dict(DOMAIN, forbid=FORBID))
    assert set(entries) == set(DOMAIN)
    assert check_forbid(entries, forbid) == [{"pregnant": 1, "sex": 1}, {"pregnant": 1, "age": 2}]


@pytest.mark.parametrize("solver, options", [("mst", None), ("aim", {"compress": 3.0})])
def test_compression_keeps_forbidden_values(solver, options):
    """A rare forbidden value is never merged by MST's compression (it keeps its cell)."""
    rng = np.random.default_rng(0)
    n = 2000
    city = rng.choice([f"c{i}" for i in range(8)], n, p=[0.3, 0.3, 0.3, 0.04, 0.03, 0.01,
                                                        0.01, 0.01])
    kind = rng.choice(["x", "y"], n)
    X = pd.DataFrame({"city": city, "kind": kind})
    domain = {"city": [f"c{i}" for i in range(8)], "kind": ["x", "y"],
              "forbid": [{"city": "c7", "kind": "x"}, {"city": "c6", "kind": "y"}]}
    est = SaddlePointSynthesizer(domain=domain, solver=solver, solver_options=options,
                                 random_state=0, epsilon=0.3).fit(X)
    S = est.sample(20_000, random_state=0)
    assert not (((S.city == "c7") & (S.kind == "x")) | ((S.city == "c6") & (S.kind == "y"))).any()


def test_domain_compression_keeps_forbidden_categories():
    """``max_categories``: the categories named by forbid keep cells of their own."""
    rng = np.random.default_rng(0)
    cats = [f"v{i}" for i in range(30)]
    X = pd.DataFrame({"v": rng.choice(cats, 3000), "w": rng.choice(["p", "q"], 3000)})
    domain = {"v": cats, "w": ["p", "q"], "forbid": [{"v": "v29", "w": "p"}]}
    est = SaddlePointSynthesizer(domain=domain, max_categories=5, solver="smd",
                                 random_state=0).fit(X)
    assert "v29" in est.compression_["v"]["categories"]
    S = est.sample(20_000, random_state=0)
    assert not ((S.v == "v29") & (S.w == "p")).any()


def test_cli_domain_file(tmp_path, capsys):
    from skdp.__main__ import main

    X = _table(600, violate=0.3)
    X.to_csv(tmp_path / "in.csv", index=False)
    domain = {k: v for k, v in DOMAIN.items()}
    (tmp_path / "dom.json").write_text(json.dumps(dict(domain, forbid=FORBID)))
    out = tmp_path / "out.csv"
    assert main(["synthesize", str(tmp_path / "in.csv"), "-o", str(out), "--domain",
                 str(tmp_path / "dom.json"), "--epsilon", "1", "--solver", "aim",
                 "--n-samples", "5000"]) == 0
    S = pd.read_csv(out)
    assert len(S) == 5000 and _violations(S) == 0
    (tmp_path / "bad.json").write_text(json.dumps(dict(domain, forbid=[{"sex": "other"}])))
    assert main(["synthesize", str(tmp_path / "in.csv"), "-o", str(tmp_path / "o2.csv"),
                 "--domain", str(tmp_path / "bad.json")]) != 0
    err = capsys.readouterr().err
    assert "'other' is not among the categories of column 'sex'" in err
