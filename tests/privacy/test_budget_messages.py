"""A refusal says what ran out (epsilon, delta or both) and what would fit (issue 27, item 3).

What the message offers must fit: each test checks the suggested spend is admitted.
"""

import math
import re
import warnings

import numpy as np
import pytest

from skdp import BudgetAccountant, BudgetExceededError, KLAdaptiveRegressor
from skdp.privacy.ledger import PrivacyLedger

X = np.random.default_rng(0).normal(size=(200, 3)) / 3
y = np.random.default_rng(1).uniform(-1, 1, size=200)


def refusal(acc, epsilon, delta, ledger=None):
    with pytest.raises(BudgetExceededError) as info:
        acc.check(epsilon, delta, ledger)
    return str(info.value)


def number_after(text, words):
    return float(re.search(re.escape(words) + r"\s*([0-9.e+-]+[0-9])", text).group(1))


def test_delta_ran_out_and_none_is_left():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-6)
    acc.spend(0.5, 1e-6)
    text = refusal(acc, 0.5, 1e-6)
    assert "Delta ran out, not epsilon" in text and "none is left" in text
    assert "epsilon=1.5 is still left" in text and "Only a fit with delta=0 would fit" in text
    assert "delta='auto'" in text  # points at the default that avoids it
    assert "would compose to (epsilon=1, delta=2e-06)" in text  # the totals, as before
    acc.check(1.5, 0.0)  # what it says fits, fits


def test_delta_ran_out_with_some_left():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-6)
    acc.spend(0.5, 6e-7)
    text = refusal(acc, 0.5, 6e-7)
    assert "Delta ran out, not epsilon" in text and "4e-07 is left" in text
    assert "less than this fit's 6e-07" in text
    assert "A fit with delta <= 4e-07 and epsilon <= 1.5 fits" in text
    acc.check(1.5, number_after(text, "delta <="))


def test_epsilon_ran_out():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    acc.spend(0.7, 1e-7)
    text = refusal(acc, 0.5, 1e-7)
    assert "Epsilon ran out, not delta" in text and "Delta ran out" not in text
    assert "epsilon=0.7 of the 1 allowed is spent and 0.3 is left" in text
    assert "The largest epsilon that fits at delta=1e-07 is 0.3" in text
    acc.check(number_after(text, "is"), 1e-7)


def test_epsilon_ran_out_and_none_is_left():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    acc.spend(1.0, 1e-7)
    text = refusal(acc, 0.1, 1e-7)
    assert "Epsilon ran out, not delta" in text and "none is left" in text


def test_both_ran_out():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    acc.spend(0.8, 8e-7)
    text = refusal(acc, 0.5, 5e-7)
    assert "Both epsilon and delta ran out" in text
    assert "epsilon=0.2 and delta=2e-07 are left" in text
    acc.check(number_after(text, "epsilon <="), number_after(text, "delta <="))


def test_both_ran_out_and_nothing_is_left():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    acc.spend(1.0, 1e-6)
    assert "nothing is left of this budget" in refusal(acc, 0.1, 1e-7)


def test_an_infinite_epsilon_is_said_to_claim_no_privacy():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-6)
    assert "claims no privacy (epsilon=inf)" in refusal(acc, math.inf, 0.0)


def test_the_largest_epsilon_is_exact_after_tightly_composed_fits():
    """After fits composed by GDP (less than their sum), what is left is cap - composed:
    a spend of exactly that fits (its mechanisms unknown: added to the composed total)."""
    acc = BudgetAccountant(epsilon=1.5, delta=1e-5)
    for _ in range(4):
        ledger = PrivacyLedger()
        ledger.gaussian(1.0, 10.0)  # 0.1-GDP: under 0.9 at delta=1e-7
        acc.spend(0.9, 1e-7, ledger=ledger)
    spent = acc.total()[0]
    assert spent < 1.5 < 3.6  # the four spends compose by GDP, not basically
    text = refusal(acc, 1.5 - spent + 0.01, 1e-7)
    assert "Epsilon ran out, not delta" in text
    left = number_after(text, "is")
    assert left == pytest.approx(1.5 - spent, rel=1e-5)
    acc.check(left * (1 - 1e-9), 1e-7)


def test_an_estimator_refused_by_delta_says_so():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-6)
    public = dict(feature_bound=1.0, target_bound=1.0, max_iter=5)
    KLAdaptiveRegressor(epsilon=0.5, delta=1e-6, accountant=acc, **public).fit(X, y)
    with pytest.raises(BudgetExceededError, match="Delta ran out, not epsilon"):
        KLAdaptiveRegressor(epsilon=0.5, delta=1e-6, accountant=acc, **public).fit(X, y)


def test_the_message_names_the_dataset(tmp_path):
    named = BudgetAccountant(epsilon=1.0, delta=1e-6, dataset="patients")
    assert "exceeded (dataset 'patients'):" in refusal(named, 2.0, 0.0)
    filed = BudgetAccountant(1.0, 1e-6, store=tmp_path / "b.sqlite", dataset="patients")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = refusal(filed, 2.0, 0.0)
    assert "(dataset 'patients' of the budget store" in text and "b.sqlite" in text
    assert "Epsilon ran out" in text
