"""domain_share + resolution_share at or past 1 leaves the solver nothing: refused before the
budget is reserved (it failed mid-fit, after the domain releases were charged)."""

import numpy as np
import pytest

from skdp import BudgetAccountant, SaddlePointSynthesizer


def test_shares_that_leave_the_solver_nothing_are_refused_before_any_charge():
    X = np.random.default_rng(0).uniform(0, 1, size=(200, 2))
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)
    est = SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain={0: (0.0, 1.0), 1: (0.0, 1.0)},
                                 domain_share=0.5, resolution_share=0.5, accountant=acc,
                                 random_state=0)
    with pytest.raises(ValueError, match=r"domain_share \+ resolution_share must be below 1"):
        est.fit(X)
    assert acc.spends == []
    est.set_params(resolution_share=0.4).fit(X)  # the rest: 0.1, 0.025 after two levels
    assert len(acc.spends) == 1


def test_the_refinement_levels_shares_count_before_any_charge():
    """``resolution_refine='auto'`` may take ``REFINE_SHARE`` and ``THIRD_SHARE`` from
    the solver (a second and a third level, decided from released counts): shares that
    would leave the solver nothing then are refused before the budget is reserved, naming
    the parameters (they failed after the fine release, with an error on a sensitivity)."""
    n = 4000
    x = (np.arange(n) + 0.5) / n / 32  # every row in one sub-cell: both levels fire
    X = np.column_stack([x, x, np.arange(n) % 3])
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)
    domain = {0: (0.0, 8.0), 1: (0.0, 8.0), 2: {"kind": "categorical"}}
    est = SaddlePointSynthesizer(epsilon=4.0, delta=1e-6, domain=domain, resolution=8,
                                 domain_share=0.5, resolution_share=0.43, accountant=acc,
                                 random_state=0)
    with pytest.raises(ValueError, match=r"second and third levels.*at most 0\.505"):
        est.fit(X)
    assert acc.spends == []
    est.set_params(resolution_share=0.4).fit(X)
    assert len(acc.spends) == 1
    assert len(est.resolution_[0]["refinement"]["more"]) == 1  # both levels were released
