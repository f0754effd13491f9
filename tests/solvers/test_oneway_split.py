"""aim's and mst's first 1-way measurements split by the columns' cells (issue 30).

``solver_options={'oneway_split': 'cells'}`` measures each column's 1-way marginal in its own
Gaussian release at ``rho_i = rho_1 k_i**(2/3) / sum_j k_j**(2/3)`` (``k_i`` its cells, public),
``sigma_i = Delta / sqrt(2 rho_i)``: the same total ``rho_1`` as the equal split's single
release (``sigma = sqrt(d) Delta / sqrt(2 rho_1)``). Checked here against that closed form.
"""

import math

import numpy as np
import pytest

from skdp import SaddlePointSynthesizer
from skdp.privacy.budget import Budget
from skdp.solvers.synth import mst_aim

DELTA = 1e-6
LEVELS = (2, 3, 8, 31)  # cells per column (no missing values: the domain is the codes)


def _fit(solver, split, relation="replace_one", levels=LEVELS, eps=1.0, seed=0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, k, size=300) for k in levels])
    domain = {j: list(range(k)) for j, k in enumerate(levels)}
    return SaddlePointSynthesizer(epsilon=eps, delta=DELTA, solver=solver, domain=domain,
                                  neighbouring=relation, random_state=seed,
                                  solver_options={"oneway_split": split}).fit(X)


def _oneway_entries(est):
    return [e for e in est.privacy_ledger_.entries if "1-way" in e.label]


def test_shares_closed_form():
    cells = np.array([2, 3, 8, 31])
    shares = mst_aim.oneway_shares(cells, "cells")
    assert shares.sum() == pytest.approx(1.0, rel=1e-12)
    assert shares == pytest.approx(cells ** (2 / 3) / np.sum(cells ** (2 / 3)), rel=1e-12)
    assert mst_aim.oneway_shares(cells, "equal") == pytest.approx(np.full(4, 0.25))
    # sigma_i proportional to k_i**(-1/3): sum_i k_i sigma_i is below the equal split's
    equal = np.sum(cells / np.sqrt(mst_aim.oneway_shares(cells, "equal")))
    assert np.sum(cells / np.sqrt(shares)) < equal


def _check_closed_form(solver, relation):
    equal, cells = _fit(solver, "equal", relation), _fit(solver, "cells", relation)
    ones_equal, ones_cells = _oneway_entries(equal), _oneway_entries(cells)
    assert len(ones_equal) == 1 and len(ones_cells) == len(LEVELS)
    rho1 = ones_equal[0].rho
    assert sum(e.rho for e in ones_cells) == pytest.approx(rho1, rel=1e-9)
    assert equal.privacy_ledger_.rho == pytest.approx(cells.privacy_ledger_.rho, rel=1e-9)
    weights = np.asarray(LEVELS, dtype=float) ** (2 / 3)
    unit = math.sqrt(2.0) if relation == "replace_one" else 1.0
    for j, e in enumerate(ones_cells):
        assert e.label.endswith(f"column {j}")
        assert e.rho == pytest.approx(rho1 * weights[j] / weights.sum(), rel=1e-9)
        assert cells.solver_info_["noise_std_oneway"][j] == pytest.approx(
            unit / math.sqrt(2.0 * e.rho), rel=1e-9)
    assert equal.solver_info_["noise_std_oneway"] == pytest.approx(
        math.sqrt(len(LEVELS)) * unit / math.sqrt(2.0 * rho1), rel=1e-9)


@pytest.mark.parametrize("relation", ["replace_one", "add_remove"])
@pytest.mark.parametrize("solver", ["aim", "mst"])
def test_same_total_and_closed_form_per_column(solver, relation):
    _check_closed_form(solver, relation)


def test_two_column_mst_keeps_its_gdp_total():
    """mst on two columns plans in GDP: the per-column mu_i compose to the equal split's mu."""
    levels = (2, 31)
    equal, cells = _fit("mst", "equal", levels=levels), _fit("mst", "cells", levels=levels)
    mu = [math.sqrt(sum(e.mu ** 2 for e in _oneway_entries(est))) for est in (equal, cells)]
    assert mu[1] == pytest.approx(mu[0], rel=1e-9)
    assert cells.privacy_spent_[0] == pytest.approx(equal.privacy_spent_[0], rel=1e-9)
    sigma = cells.solver_info_["noise_std_oneway"]
    assert sigma[0] / sigma[1] == pytest.approx((31 / 2) ** (1 / 3), rel=1e-9)


def test_a_halved_noise_is_caught(monkeypatch):
    """Shares four times too large (every sigma_i halved): mst overspends and is refused; aim
    (whose 1-way round is a small part, the later rounds spending what remains) fails the
    closed form."""
    shares = mst_aim.oneway_shares
    monkeypatch.setattr(mst_aim, "oneway_shares", lambda c, s: 4.0 * shares(c, s))
    with pytest.raises(RuntimeError, match="overspend"):
        _fit("mst", "cells")
    with pytest.raises(AssertionError):
        _check_closed_form("aim", "replace_one")


def test_halved_budget_sigma_is_caught(monkeypatch):
    sigma = Budget.sigma
    monkeypatch.setattr(Budget, "sigma", lambda self, sens, rho: 0.5 * sigma(self, sens, rho))
    with pytest.raises(RuntimeError, match="overspend"):
        _fit("aim", "cells")


def test_bad_split_is_refused_by_name():
    with pytest.raises(ValueError, match="oneway_split"):
        _fit("aim", "rows")


def test_default_is_equal_and_unchanged():
    """The default is the equal split: the same draws as naming it."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(200, 3))
    domain = {j: [0, 1, 2] for j in range(3)}
    a = SaddlePointSynthesizer(epsilon=1.0, delta=DELTA, solver="aim", domain=domain,
                               random_state=3).fit(X)
    b = SaddlePointSynthesizer(epsilon=1.0, delta=DELTA, solver="aim", domain=domain,
                               random_state=3,
                               solver_options={"oneway_split": "equal"}).fit(X)
    np.testing.assert_array_equal(a.sample(50, random_state=0), b.sample(50, random_state=0))
