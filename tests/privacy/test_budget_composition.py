"""The composition rule in words (issue 27, item 3): describe_composition, skdp budget."""

import re

import numpy as np
import pytest

from skdp import BudgetAccountant
from skdp._cli.budget import explain_total
from skdp.privacy.ledger import PrivacyLedger, describe_composition
from _toy import NoisyMeanRegressor

BASE_RULES = ["gdp", "pld", "zcdp", "zcdp+advanced", "zcdp+basic", "pld+none", "pld+zcdp",
              "pld+zcdp+advanced", "pld+zcdp+basic"]
RULES = ["none", "basic", "basic+none"] + BASE_RULES + ["basic+" + r for r in BASE_RULES]


@pytest.mark.parametrize("rule", RULES)
def test_every_rule_has_its_own_sentence(rule):
    text = describe_composition(rule)
    assert text[0].isupper() and text.endswith(".") and "  " not in text
    assert "Composed by the rule" not in text  # not the fallback
    assert ("added on top (basic composition)" in text) == (rule.startswith("basic+")
                                                              and rule != "basic+none")


def test_the_sentences_differ_and_name_their_method():
    texts = {r: describe_composition(r) for r in ["none", "basic"] + BASE_RULES}
    assert len(set(texts.values())) == len(texts)
    assert texts["gdp"].startswith("Gaussian DP (Dong-Roth-Su)")
    assert "privacy loss distributions" in texts["pld"]
    assert "Bun-Steinke" in texts["zcdp"] and "Whitehouse" in texts["zcdp+advanced"]
    assert "added up" in texts["basic"]


def test_an_unknown_rule_is_quoted():
    assert describe_composition("Papernot-Steinke 2022 Thm 2") == \
        "Composed by the rule 'Papernot-Steinke 2022 Thm 2'."


def _ledger(*parts):
    ledger = PrivacyLedger()
    for name, *args in parts:
        getattr(ledger, name)(*args)
    return ledger


@pytest.mark.parametrize("parts", [
    [("gaussian", 1.0, 5.0)],
    [("subsampled_gaussian", 1.0, 2.0, 0.01, 100)],
    [("gaussian", 1.0, 5.0, 10), ("exponential", 0.1, 5)],
    [("gaussian", 1.0, 5.0), ("pure", 0.5)],
    [("subsampled_gaussian", 1.0, 2.0, 0.01, 100), ("exponential", 0.1, 5)],
    [("subsampled_gaussian", 1.0, 2.0, 0.01, 100), ("zcdp", 0.01)],
    [("approx", 0.5, 1e-7)],
    [("approx", 0.1, 1e-7), ("gaussian", 1.0, 5.0)],
    [("approx", 0.1, 1e-7), ("subsampled_gaussian", 1.0, 2.0, 0.01, 100),
     ("exponential", 0.1, 5)],
])
def test_the_rules_ledgers_return_are_described(parts):
    _, rule = _ledger(*parts).spent(1e-6)
    assert rule in RULES
    assert "Composed by the rule" not in describe_composition(rule)


def test_explain_total_compares_with_the_column_sum():
    text = explain_total(0.977, "gdp", [0.5] * 4)
    assert text.startswith("Gaussian DP (Dong-Roth-Su)")
    assert "The epsilon column adds up to 2 (basic composition)" in text
    assert "keeps 0.977, the smaller of the two" in text
    basic = explain_total(2.0, "basic", [0.5] * 4)
    assert basic == "Basic composition: the spends' epsilons and deltas added up."


def test_skdp_budget_explains_its_total(tmp_path, capsys):
    from skdp.__main__ import main

    path = tmp_path / "budget.sqlite"
    acc = BudgetAccountant(epsilon=5.0, delta=1e-5, store=path, dataset="t")
    X = np.random.default_rng(0).normal(size=(80, 2))
    y = np.random.default_rng(1).uniform(-1, 1, size=80)
    for seed in range(4):
        NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc, random_state=seed).fit(X, y)
    assert main(["budget", str(path)]) == 0
    shown = capsys.readouterr().out
    total = float(re.search(r"total: epsilon=([0-9.]+)", shown).group(1))
    assert total < 4.0  # not the sum of the column...
    assert "(composition: gdp)" in shown
    assert "\n  Gaussian DP (Dong-Roth-Su)" in shown  # ...and it says why, below it
    assert "The epsilon column adds up to 4 (basic composition)" in shown
