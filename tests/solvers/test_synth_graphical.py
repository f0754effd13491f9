"""MST and AIM on the graphical model (issue 17): tables wider than the dense histogram.

A generated table of 10 columns of 6 values (6**10 = 6e7 cells, over the
dense cap of 1e7) with a chain of dependent columns: both solvers fit it, the
ledger composes to the closed-form budget, AIM never exceeds its model-size
cap, a too-large workload marginal is refused by name, AIM beats independent
columns on the 2-way marginals, and the CLI synthesizes a 15-column table.
The audit of both solvers (halved noise caught) is in tests/privacy/test_audit.py
through tests/_audit_cases.py.
"""

from itertools import combinations
import json
import math
import warnings

import numpy as np
import pytest

from skdp import BudgetAccountant
from skdp.__main__ import main
from skdp.privacy.ledger import approx_dp_to_zcdp, bounded_range_rho
from skdp.solvers.synth.compress import CompressedModel
from skdp.solvers.synth.graphical import model_size
from skdp.solvers.synth.mst_aim import candidate_weights, downward_closure, mst_shares
from skdp.synthesizer import SaddlePointSynthesizer

EPS, DELTA = 1.0, 1e-6
K = 6


def chain_table(n, d, k=K, seed=0):
    """Column j copies column j-1 (up to +-1) w.p. 0.7, else is uniform: 2-way structure."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, d), dtype=np.int64)
    X[:, 0] = rng.integers(0, k, n)
    for j in range(1, d):
        near = (X[:, j - 1] + rng.integers(0, 2, n)) % k
        X[:, j] = np.where(rng.random(n) < 0.7, near, rng.integers(0, k, n))
    return X


X = chain_table(2000, 10)
DOMAIN = {j: K for j in range(10)}


def _fit(**params):
    params = dict(dict(epsilon=EPS, delta=DELTA, domain=DOMAIN, random_state=0, n_iter=200),
                  **params)
    est = SaddlePointSynthesizer(**params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X)


@pytest.fixture(scope="module")
def fits():
    return {"mst": _fit(solver="mst"),
            "aim": _fit(solver_options=dict(round_iter=30))}  # 'auto': aim above 1e7 cells


def test_auto_runs_aim_where_the_dense_histogram_cannot(fits):
    assert K ** 10 > 10**7
    with pytest.raises(ValueError, match="cells"):
        SaddlePointSynthesizer(solver="smd", domain=DOMAIN).fit(X)
    aim = fits["aim"]
    assert aim.solver_ == "aim" and not hasattr(aim, "histogram_")
    small = SaddlePointSynthesizer(domain={0: K, 1: K}, random_state=0).fit(X[:, :2])
    assert small.solver_ == "aim" and hasattr(small, "model_")  # eps n = 2000: aim (issue 30)


@pytest.mark.parametrize("solver", ["mst", "aim"])
def test_fit_samples_and_scores(fits, solver):
    est = fits[solver]
    out = est.sample(500, random_state=1)
    assert out.shape == (500, 10) and out.min() >= 0 and out.max() < K
    batches = list(est.iter_sample(250, batch_size=100, random_state=1))
    assert [len(b) for b in batches] == [100, 100, 50]
    assert est.n_records_ == len(X) and len(est.marginals_) == 45
    assert all(len(c) in (1, 2) for c in est.cliques_) and len(est.cliques_) >= 10
    errors = est.workload_error(X)
    assert set(errors) == set(est.marginals_) and est.score(X) == pytest.approx(
        -np.mean(list(errors.values())))


def test_mst_ledger_is_the_closed_form(fits):
    est = fits["mst"]
    rho = approx_dp_to_zcdp(EPS, DELTA)
    ledger = est.privacy_ledger_
    assert ledger.rho == pytest.approx(rho, rel=1e-9)
    assert EPS * 0.999 <= ledger.epsilon(DELTA) <= EPS * (1 + 1e-9)
    one, sel, two = mst_shares(10)
    kinds = [(e.kind, e.count) for e in ledger.entries]
    assert kinds == [("gaussian", 1)] + [("exponential", 1)] * 9 + [("gaussian", 1)]
    gauss = [e for e in ledger.entries if e.kind == "gaussian"]
    assert [g.rho for g in gauss] == pytest.approx([one * rho, two * rho], rel=1e-9)
    for e in ledger.entries[1:10]:
        assert bounded_range_rho(e.epsilon) == pytest.approx(sel * rho / 9, rel=1e-9)
    assert sorted(est.cliques_[10:]) == sorted(set(est.cliques_[10:]))  # 9 distinct edges
    assert len(est.cliques_) == 19


def test_aim_ledger_spends_the_budget_exactly(fits):
    est = fits["aim"]
    ledger = est.privacy_ledger_
    assert ledger.rho == pytest.approx(approx_dp_to_zcdp(EPS, DELTA), rel=1e-9)
    assert EPS * 0.999 <= ledger.epsilon(DELTA) <= EPS * (1 + 1e-9)
    rounds = est.n_iter_
    kinds = [e.kind for e in ledger.entries]
    assert kinds == ["gaussian"] + ["exponential", "gaussian"] * rounds
    assert est.privacy_spent_[0] <= EPS * (1 + 1e-9)
    # each round's measurement is 9 times its selection (measure_share 0.9)
    for sel, meas in zip(ledger.entries[1::2], ledger.entries[2::2]):
        assert meas.rho == pytest.approx(9 * sel.rho, rel=1e-9)


def test_aim_never_exceeds_the_size_cap():
    cap = 200  # the 1-way model has 60 cells; a 2-way marginal 36
    est = _fit(solver="aim", solver_options=dict(max_model_size=cap, round_iter=10))
    shape = est.domain_shape_
    names = list(est.domain_)
    cliques = [tuple(names.index(c) for c in cl) for cl in est.cliques_]
    for t in range(10, len(cliques) + 1):
        assert model_size(shape, cliques[:t]) <= cap
    assert model_size(shape, est.model_.cliques) <= cap


def test_too_large_workload_marginal_is_refused_by_name():
    accountant = BudgetAccountant(epsilon=10.0, delta=1e-3)
    est = SaddlePointSynthesizer(domain=DOMAIN, workload=[(0, 1, 2)], accountant=accountant,
                                 solver_options=dict(max_model_size=100))
    with pytest.raises(ValueError, match=r"marginal \(0, 1, 2\) has 216 cells .*0: 6, 1: 6"):
        est.fit(X)
    # the check reads the columns' domain, after the data: the reservation stays charged
    assert [s["status"] for s in accountant.spends] == ["reserved"]


def test_candidates_are_the_weighted_downward_closure():
    closure = downward_closure([(0, 1, 2)])
    assert closure[-1] == (0, 1, 2) and len(closure) == 7
    w = candidate_weights(list(combinations(range(4), 2)))
    assert w[(0,)] == 3.0 and w[(0, 1)] == 6.0 and len(w) == 10  # 2 + 4 pairs sharing one


def _independent_tv(X, marginals):
    """Mean 2-way TV of the product of the exact 1-way marginals (a non-private baseline)."""
    out = []
    for a, b in marginals:
        joint = np.histogram2d(X[:, a], X[:, b], bins=[np.arange(K + 1)] * 2)[0] / len(X)
        out.append(0.5 * np.abs(joint - np.outer(joint.sum(1), joint.sum(0))).sum())
    return float(np.mean(out))


def test_aim_beats_independent_columns(fits):
    aim = fits["aim"]
    marginals = list(combinations(range(10), 2))
    indep = _independent_tv(X, marginals)
    assert -aim.score(X) < 0.7 * indep, (-aim.score(X), indep)
    assert -fits["mst"].score(X) < indep


def test_add_remove_estimates_n():
    est = _fit(solver="aim", neighbouring="add_remove", solver_options=dict(round_iter=10))
    assert abs(est.n_records_ - len(X)) < 0.2 * len(X)
    assert est.privacy_spent_[0] <= EPS * (1 + 1e-9)


def test_not_private_fit_runs():
    est = _fit(solver="aim", epsilon=math.inf, solver_options=dict(max_rounds=3, round_iter=10))
    assert est.n_iter_ == 3 and len(est.cliques_) == 13
    assert -est.score(X) < _independent_tv(X, list(combinations(range(10), 2)))


def test_cli_synthesizes_a_wide_table(tmp_path, capsys):
    Y = chain_table(300, 15, seed=2)
    header = [f"c{j}" for j in range(15)]
    src = tmp_path / "in.csv"
    src.write_text(",".join(header) + "\n" + "\n".join(",".join(map(str, r)) for r in Y) + "\n")
    (tmp_path / "d.json").write_text(json.dumps({h: list(range(K)) for h in header}))
    out = tmp_path / "out.csv"
    assert main(["synthesize", str(src), "-o", str(out), "--domain", str(tmp_path / "d.json"),
                 "--seed", "0", "--epsilon", "4"]) == 0  # eps n >= 1000: auto runs aim
    captured = capsys.readouterr()
    assert "[aim] round 1:" in captured.err and "solver: aim" in captured.out
    lines = out.read_text().splitlines()
    assert lines[0].split(",") == header and len(lines) == 301


def test_mst_compresses_rare_values_and_samples_them_back_by_noisy_count():
    """MST §4: values below 3 noise sds are merged; the model is read on the full domain."""
    rng = np.random.default_rng(3)
    n = 4000
    first = np.where(rng.random(n) < 0.9, rng.integers(0, 3, n), rng.integers(3, 30, n))
    table = np.column_stack([first, chain_table(n, 4, seed=3)])
    domain = {0: 30, **{j: K for j in range(1, 5)}}
    est = SaddlePointSynthesizer(solver="mst", domain=domain, random_state=0).fit(table)
    model = est.model_
    assert isinstance(model, CompressedModel) and 0 in model.merges
    merge = model.merges[0]
    assert set(merge.keep) >= {0, 1, 2} and len(merge.merged) >= 20
    assert est.solver_info_["compressed_shape"][0] == len(merge.keep) + 1
    p = model.marginal((0, 1))
    assert p.shape == (30, K) and p.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(p.sum(axis=1)[merge.merged] / p.sum(axis=1)[merge.merged].sum(),
                               merge.weights, atol=1e-9)
    out = est.sample(20_000, random_state=1)
    assert set(np.unique(out[:, 0])) <= set(range(30))
    drawn = np.bincount(out[:, 0], minlength=30)[merge.merged]  # rounded: within one row
    assert np.all(np.abs(drawn - drawn.sum() * merge.weights) < 1.0 + 1e-9)
    plain = SaddlePointSynthesizer(solver="mst", domain=domain, random_state=0,
                                   solver_options=dict(compress=0)).fit(table)
    assert not isinstance(plain.model_, CompressedModel)
    exact = SaddlePointSynthesizer(solver="mst", epsilon=np.inf, domain=domain).fit(table)
    assert not isinstance(exact.model_, CompressedModel)
    aim = SaddlePointSynthesizer(solver="aim", domain=domain, random_state=0, solver_options=dict(
        compress=3.0, max_rounds=6, round_iter=20)).fit(table)
    assert isinstance(aim.model_, CompressedModel) and 0 in aim.model_.merges
    assert aim.model_.marginal((0, 2)).shape == (30, K)


def test_component_model_sizes_equal_the_whole_junction_tree():
    """issue 30: AIM's size check per candidate, computed on the components it touches,
    is the size of the junction tree of every column (random graphs and candidates)."""
    from skdp.solvers.synth.mst_aim import _ComponentSizes

    rng = np.random.default_rng(1)
    for _ in range(200):
        d = int(rng.integers(2, 12))
        shape = tuple(int(x) for x in rng.integers(1, 6, d))

        def clique():
            k = int(rng.integers(1, min(3, d) + 1))
            return tuple(sorted(rng.choice(d, size=k, replace=False).tolist()))

        cliques = [clique() for _ in range(int(rng.integers(0, 8)))]
        sizes = _ComponentSizes(shape, cliques)
        for _ in range(10):
            r = clique()
            assert sizes.with_clique(r) == model_size(shape, cliques + [r])


def test_candidate_weights_on_a_wide_workload_are_exact():
    work = list(combinations(range(200), 2))  # was a minute: a double loop over 2e4 x 2e4
    weights = candidate_weights(work)
    assert weights[(0,)] == 199.0 and weights[(0, 1)] == 398.0 and len(weights) == 20100
