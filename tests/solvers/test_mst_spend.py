"""mst (and aim) spend the budget they reserve (issue 30 item 4, third part).

With at most two columns mst selects nothing: its two releases are Gaussian, and the fit's
ledger composes them exactly in Gaussian DP (``mu**2 = sum mu_i**2``, Dong–Roth–Su 2022 Cor.
3.3) and converts exactly (Cor. 2.13). Calibrated in zCDP they charged 0.927 of epsilon 1; now
calibrated against that same conversion (``sigma_i = Delta_i / mu_i``,
``skdp.solvers.synth.mst_aim.mst_gdp_shares``) they spend it. From three columns on the
selections are exponential mechanisms, composed in zCDP (the rule the ledger charges them by):
spent == reserved already.

The closed form checked against is Dong–Roth–Su Cor. 2.13's delta(epsilon) of mu-GDP, written
here with scipy.stats.norm, independently of skdp.privacy.ledger.
"""

import math

import numpy as np
import pytest
from scipy import optimize, stats

from skdp import SaddlePointSynthesizer
from skdp.privacy.budget import Budget
from skdp.solvers.synth import mst_aim

DELTA = 1e-6


def _gdp_delta(mu, eps):
    """Dong–Roth–Su Cor. 2.13: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
    return (stats.norm.cdf(-eps / mu + mu / 2.0)
            - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2.0))


def _gdp_mu(eps, delta):
    """The mu whose closed-form delta at ``eps`` is ``delta`` (root of Cor. 2.13)."""
    return optimize.brentq(lambda m: _gdp_delta(m, eps) - delta, 1e-6, 50.0, xtol=1e-14)


def _table(d, n=400, k=3, seed=0):
    X = np.random.default_rng(seed).integers(0, k, size=(n, d))
    return X, {j: list(range(k)) for j in range(d)}


def _fit(solver, d, eps, relation, seed=0):
    X, domain = _table(d)
    return SaddlePointSynthesizer(epsilon=eps, delta=DELTA, solver=solver, domain=domain,
                                  neighbouring=relation, random_state=seed).fit(X)


@pytest.mark.parametrize("relation", ["replace_one", "add_remove"])
@pytest.mark.parametrize("eps", [0.3, 1.0, 5.0])
@pytest.mark.parametrize("solver,d", [("mst", 1), ("mst", 2), ("mst", 4), ("aim", 2),
                                      ("aim", 4)])
def test_spent_equals_reserved(solver, d, eps, relation):
    est = _fit(solver, d, eps, relation)
    spent, delta = est.privacy_spent_
    assert delta == DELTA
    assert spent <= eps * (1 + 1e-9)
    assert spent == pytest.approx(eps, rel=1e-3)  # was 0.927 of epsilon 1 for mst at d <= 2


@pytest.mark.parametrize("relation", ["replace_one", "add_remove"])
@pytest.mark.parametrize("eps", [0.5, 1.0, 5.0])
@pytest.mark.parametrize("d", [1, 2])
def test_two_column_mst_against_the_closed_form(d, eps, relation):
    """Each release's sigma is ``Delta_i / mu_i`` with ``mu_i**2 = s_i mu**2`` (the shares of
    ``mst_shares``), ``mu`` the closed-form mu of (epsilon, delta); the ledger's entries
    compose to that mu and its closed-form delta at epsilon is the fit's delta."""
    est = _fit("mst", d, eps, relation)
    mu = _gdp_mu(eps, DELTA)
    unit = math.sqrt(2.0) if relation == "replace_one" else 1.0
    one, _, two = mst_aim.mst_shares(d)
    info = est.solver_info_
    assert info["noise_std_oneway"] == pytest.approx(
        math.sqrt(d) * unit / (mu * math.sqrt(one)), rel=1e-9)
    if d == 2:
        assert info["noise_std_tree"] == pytest.approx(unit / (mu * math.sqrt(two)), rel=1e-9)
    entries = est.privacy_ledger_.entries
    assert {e.kind for e in entries} == {"gaussian"}
    mu_total = math.sqrt(sum(e.count * e.mu ** 2 for e in entries))
    assert mu_total == pytest.approx(mu, rel=1e-9)
    assert _gdp_delta(mu_total, eps) == pytest.approx(DELTA, rel=1e-6)
    assert est.privacy_method_ == "gdp"


@pytest.mark.parametrize("relation", ["replace_one", "add_remove"])
def test_wider_mst_charges_its_zcdp_total(relation):
    """d >= 3: the ledger's rho is the reserved rho, sum of the thirds' Gaussian
    ``Delta**2 / (2 sigma**2)`` and the edges' ``epsilon**2 / 8``."""
    est = _fit("mst", 4, 1.0, relation)
    from skdp.privacy.ledger import approx_dp_to_zcdp
    ledger = est.privacy_ledger_
    assert ledger.rho == pytest.approx(approx_dp_to_zcdp(1.0, DELTA), rel=1e-9)
    kinds = [e.kind for e in ledger.entries]
    assert kinds.count("exponential") == 3 and kinds.count("gaussian") == 2


def test_a_halved_gdp_noise_is_caught(monkeypatch):
    """A two-column mst whose GDP-calibrated noise is halved is refused before any draw."""
    monkeypatch.setattr(mst_aim, "gdp_sigma", lambda sens, mu: 0.5 * sens / mu)
    with pytest.raises(RuntimeError, match="overspend"):
        _fit("mst", 2, 1.0, "replace_one")


def test_a_halved_zcdp_noise_is_caught(monkeypatch):
    """The same for a wider mst, whose Gaussian releases are calibrated in zCDP."""
    sigma = Budget.sigma
    monkeypatch.setattr(Budget, "sigma", lambda self, sens, rho: 0.5 * sigma(self, sens, rho))
    with pytest.raises(RuntimeError, match="overspend"):
        _fit("mst", 4, 1.0, "add_remove")


def test_no_gdp_shares_without_a_gdp_filter_or_with_selections():
    from types import SimpleNamespace
    assert mst_aim.mst_gdp_shares(SimpleNamespace(private=True, mu=None, mu_remaining=0.0),
                                  2) is None
    assert mst_aim.mst_gdp_shares(SimpleNamespace(private=False, mu=math.inf,
                                                  mu_remaining=math.inf), 2) is None
    b = SimpleNamespace(private=True, mu=0.8, mu_remaining=0.8)
    assert mst_aim.mst_gdp_shares(b, 3) is None
    m1, m2 = mst_aim.mst_gdp_shares(b, 2)
    assert m1 ** 2 + m2 ** 2 == pytest.approx(0.8 ** 2, rel=1e-12)
    assert mst_aim.mst_gdp_shares(b, 1) == (0.8, 0.0)
