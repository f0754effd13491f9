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
    est.set_params(resolution_share=0.4).fit(X)  # the rest: a share of 0.1 for the solver
    assert len(acc.spends) == 1
