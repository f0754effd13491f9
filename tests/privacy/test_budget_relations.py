"""Issue 28, item 9: every spend records its neighbouring relation, and totals are counted
in the accountant's relation: an add/remove spend on a replace-one budget by group privacy
for groups of two (each Gaussian part by its recorded replace-one / add-remove sensitivity
ratio where it has one), a replace-one spend on an add/remove budget refused."""

import math

import numpy as np
import pytest

from skdp import BudgetAccountant, SaddlePointSynthesizer
from skdp.privacy.accountant import add_remove_as_replace_one, convert_spend
from skdp.privacy.ledger import PrivacyLedger

X = np.random.default_rng(0).integers(0, 3, size=(300, 3))


def _fit(acc, neighbouring):
    return SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain={0: 3, 1: 3, 2: 3},
                                  solver="smd", n_iter=5, neighbouring=neighbouring,
                                  accountant=acc).fit(X)


@pytest.mark.parametrize("ledger", [False, True])
def test_an_add_remove_fit_at_epsilon_1_costs_its_replace_one_epsilon(tmp_path, ledger):
    kw = dict(store=tmp_path / "l.sqlite", dataset="t") if ledger else {}
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3, **kw)
    est = _fit(acc, "add_remove")
    assert est.privacy_spent_[0] == pytest.approx(1.0)  # its own guarantee, under add/remove
    assert acc.spends[0]["neighbouring"] == "add_remove"
    eps, delta = acc.total()
    # its Gaussian part (stacked marginal counts) records its replace-one sensitivity, sqrt(2)
    # times its add/remove one: mu x sqrt(2), 1.455 at delta 1e-6 (the figure; group
    # privacy's mu x 2 gave 2.12)
    assert delta == pytest.approx(1e-6)
    assert eps == pytest.approx(1.4547, abs=1e-3)
    if ledger:  # the ratio is in the file: a fresh accountant of it counts the same
        assert BudgetAccountant.open(tmp_path / "l.sqlite", "t").total()[0] == pytest.approx(eps)
    # the neighbour fit, replace-one: counted at its face value beside it
    _fit(acc, "replace_one")
    assert acc.spends[1]["neighbouring"] == "replace_one"
    assert acc.total()[0] <= eps + 1.0 + 1e-9


def test_a_replace_one_fit_is_refused_on_an_add_remove_budget_before_reading():
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3, neighbouring="add_remove")
    with pytest.raises(ValueError, match="says nothing about adding or removing a row"):
        _fit(acc, "replace_one")
    assert acc.spends == []
    _fit(acc, "add_remove")  # its own relation: face value
    assert acc.total()[0] == pytest.approx(1.0)


def test_a_ledger_file_keeps_its_budget_relation_once(tmp_path):
    path = tmp_path / "l.sqlite"
    BudgetAccountant(2.0, 1e-5, store=path, dataset="t", neighbouring="add_remove")
    assert BudgetAccountant.open(path, "t").neighbouring == "add_remove"
    with pytest.raises(ValueError, match="neighbouring='add_remove'"):
        BudgetAccountant(2.0, 1e-5, store=path, dataset="t")


def test_conversions_by_part():
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, 4.0)  # mu 0.25
    ledger.pure(0.5)
    ledger.approx(0.1, 1e-7)
    out = add_remove_as_replace_one(ledger).entries
    assert out[0].mu == pytest.approx(0.5)
    assert out[0].rho == pytest.approx(4 * ledger.entries[0].rho)
    assert out[1].epsilon == pytest.approx(1.0)
    assert out[2].epsilon == pytest.approx(0.2)
    assert out[2].delta == pytest.approx((1 + math.exp(0.1)) * 1e-7)
    # a claim without mechanisms: group privacy
    assert convert_spend(0.5, 0.0, None, "add_remove", "replace_one") == (1.0, 0.0, None)
    assert convert_spend(0.5, 0.0, None, "replace_one", "replace_one") == (0.5, 0.0, None)
    with pytest.raises(ValueError, match="cannot be counted"):
        convert_spend(0.5, 0.0, None, "replace_one", "add_remove")
    steps = PrivacyLedger()
    steps.subsampled_gaussian(1.0, 2.0, 0.01)
    with pytest.raises(ValueError, match="subsampled_gaussian"):
        add_remove_as_replace_one(steps)


def test_skdp_budget_shows_each_spends_relation_and_the_conversion(tmp_path, capsys):
    from skdp.__main__ import main

    path = tmp_path / "l.sqlite"
    acc = BudgetAccountant(5.0, 1e-5, store=path, dataset="t")
    acc.spend(0.5, 0.0, label="an add/remove count", neighbouring="add_remove")
    assert acc.total() == (1.0, 0.0)
    assert main(["budget", str(path)]) == 0
    out = capsys.readouterr().out
    assert "neighbouring=replace_one" in out and "add_remove" in out
    assert "group privacy for groups of two" in out
