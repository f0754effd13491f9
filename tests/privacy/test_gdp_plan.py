"""One GDP plan for the synthesizer's Gaussian-only fits (issue 30).

A fit whose every release is Gaussian is planned in Gaussian DP (Dong–Roth–Su 2022): ``mu =
mu(epsilon, delta - delta_t)`` from the exact filter (Cor. 2.13 inverted), and each release
takes a share ``s_i`` of ``mu**2`` (``mu_i = mu sqrt(s_i)``, ``sigma_i = Delta_i / mu_i``,
Cor. 3.3). One function (``skdp.privacy.gdp_plan``) computes it, below the solvers: the
synthesizer's split (domains, fine grids, the solver) and two-column mst's split of its own
share both call it.

The closed form checked against is Cor. 2.13's ``delta(epsilon) = Phi(-epsilon/mu + mu/2) -
e^epsilon Phi(-epsilon/mu - mu/2)``, written here with scipy.stats.norm and solved for ``mu``
with scipy's brentq, independently of skdp.privacy.ledger.
"""

import ast
import inspect
import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from skdp import SaddlePointSynthesizer
from skdp import synthesizer as synth_module
from skdp._base import BudgetPlan
from skdp._domain import private as domain_private
from skdp.privacy import gdp_plan
from skdp.privacy.gdp_plan import exact_mu, gdp_rho, gdp_shares
from skdp.solvers.synth import measure as synth_measure
from skdp.solvers.synth import mst_aim
from skdp.synthesizer import (DOMAIN_SHARE, PRIVATE_DOMAIN_SHARE, RESOLUTION_SHARE,
                              SPIKE_DELTA_SHARE)

DELTA = 1e-6
N = 300


def _gdp_delta(mu, eps):
    """Dong–Roth–Su Cor. 2.13: delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)."""
    return (stats.norm.cdf(-eps / mu + mu / 2.0)
            - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2.0))


def _closed_mu(eps, delta):
    """The mu whose closed-form delta at ``eps`` is ``delta`` (root of Cor. 2.13)."""
    return optimize.brentq(lambda m: _gdp_delta(m, eps) - delta, 1e-6, 50.0, xtol=1e-14)


# ---------------------------------------------------------------- the one function
@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, 3.0, 8.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-6, 0.9e-6, 5e-7])
def test_exact_mu_is_the_closed_form(eps, delta):
    mu = exact_mu(eps, delta)
    assert mu == pytest.approx(_closed_mu(eps, delta), rel=1e-9)
    assert _gdp_delta(mu, eps) == pytest.approx(delta, rel=1e-6)
    assert _gdp_delta(mu, eps) <= delta * (1 + 1e-6)  # never above the fit's delta


def test_the_plans_of_the_estimators_read_the_one_exact_mu():
    plan = BudgetPlan("gdp", zcdp_delta=0.9e-6, gdp_filter="exact", gdp_only=True)
    mu = _closed_mu(1.0, 0.9e-6)
    assert plan.mu(1.0, DELTA) == exact_mu(1.0, 0.9e-6)
    assert plan.mu(1.0, DELTA) == pytest.approx(mu, rel=1e-9)
    assert plan.rho(1.0, DELTA) == pytest.approx(mu * mu / 2, rel=1e-9)
    assert exact_mu(math.inf, DELTA) == math.inf


@pytest.mark.parametrize("shares", [(0.1, 0.2, 0.7), (0.5, 0.5), (1.0,), (0.05, 0.05, 0.2, 0.7),
                                    (0.3, 0.0, 0.7)])
def test_shares_of_mu_squared_compose_to_mu(shares):
    """Cor. 3.3: sqrt(sum mu_i**2) = mu sqrt(sum s_i); the closed-form delta of the
    composition at epsilon is the fit's."""
    mu = _closed_mu(1.0, DELTA)
    mus = gdp_shares(mu, shares)
    assert [m / mu for m in mus] == pytest.approx([math.sqrt(s) for s in shares], rel=1e-12)
    total = math.sqrt(sum(m * m for m in mus))
    assert total == pytest.approx(mu * math.sqrt(sum(shares)), rel=1e-12)
    if sum(shares) == pytest.approx(1.0):
        assert _gdp_delta(total, 1.0) == pytest.approx(DELTA, rel=1e-6)
    assert [gdp_rho(mu, s) for s in shares] == pytest.approx([m * m / 2 for m in mus],
                                                             rel=1e-12)


def test_shares_are_refused_past_the_whole_and_infinite_when_not_private():
    with pytest.raises(ValueError, match="at most 1"):
        gdp_shares(0.5, (0.8, 0.3))
    with pytest.raises(ValueError, match="at most 1"):
        gdp_shares(0.5, (1.0, -0.1))
    assert gdp_shares(0.5, (1.0 - 0.1 - 0.2, 0.1, 0.2))  # round-off of a difference: admitted
    assert gdp_shares(math.inf, (0.5, 0.0)) == (math.inf, 0.0)
    assert gdp_rho(math.inf, 0.2) == math.inf


def test_one_function_below_the_solvers():
    """The synthesizer's split and mst's split call the same function, which imports nothing
    from the solvers or the estimators (arrows point down)."""
    assert synth_module.gdp_shares is gdp_shares and mst_aim.gdp_shares is gdp_shares
    assert synth_module.gdp_rho is gdp_rho
    tree = ast.parse(inspect.getsource(gdp_plan))
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert all(m in ("math", "ledger") for m in imported), imported


# ---------------------------------------------------------------- the synthesizer's fits
def _table(seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "c": rng.choice(list("abcdef"), size=N, p=[.4, .2, .15, .1, .1, .05]),
        "k": rng.choice(["x", "y"], size=N),
        "x": np.clip(rng.normal(size=N), -4.9, 4.9),
    })


# name -> (columns, domain, parameters, domain release label, delta_t / delta)
CONFIGS = {
    # no domain release, a fine grid (float: equal cells, spikes): the plan that moved
    "fine": (["x", "k"], {"x": (-5.0, 5.0), "k": ["x", "y"]}, {}, None, SPIKE_DELTA_SHARE),
    "public": (["c", "k"], {"c": list("abcdef"), "k": ["x", "y"]}, {}, None, 0.0),
    "private": (["c", "k"], "private", {}, "domain counts", 0.5),
    "private_numeric": (["x", "k"], "private", {}, "domain counts", 0.5),  # grid after
    "quantile": (["x", "k"], {"x": (-5.0, 5.0), "k": ["x", "y"]}, {"bin_strategy": "quantile"},
                 "quantile grid counts", SPIKE_DELTA_SHARE),
    "compress": (["c", "k"], {"c": list("abcdef"), "k": ["x", "y"]}, {"max_categories": 3},
                 "compression counts", 0.0),
}
SOLVER_LABELS = {"smd": ("workload marginals",), "smd_linf": ("workload marginals",),
                 "mst": ("MST: 1-way marginals", "MST: tree 2-way marginals")}


def _fit(config, solver, eps=1.0, relation="replace_one", width=2):
    """A fit at the fine grids' base share (``resolution_share='auto'`` rises on this small
    table: ``tests/privacy/test_fine_share.py``)."""
    cols, domain, extra, _, _ = CONFIGS[config]
    cols = cols[:width]
    if isinstance(domain, dict):
        domain = {c: domain[c] for c in cols}
    return SaddlePointSynthesizer(epsilon=eps, delta=DELTA, solver=solver, domain=domain,
                                  neighbouring=relation, random_state=0, n_iter=30,
                                  resolution_share=RESOLUTION_SHARE,
                                  **extra).fit(_table()[cols])


CASES = [(c, s, w) for c in CONFIGS for s, w in (("smd", 2), ("mst", 2), ("mst", 1))] \
    + [("fine", "smd_linf", 2)]


@pytest.mark.parametrize("relation", ["replace_one", "add_remove"])
@pytest.mark.parametrize("eps", [0.5, 2.0])
@pytest.mark.parametrize("config,solver,width", CASES)
def test_every_release_takes_its_share_of_the_closed_form_mu(config, solver, width, eps,
                                                               relation):
    """Each Gaussian entry of the ledger is ``mu sqrt(s_i)``: ``mu`` the closed-form mu of
    (epsilon, delta - delta_t), ``s_i`` the domain release's ``domain_share``, the fine
    grid's ``resolution_share``, the solver's rest (halved between mst's two releases on two
    columns); the fit spends its epsilon exactly."""
    if solver == "smd_linf" and relation == "add_remove":
        pytest.skip("smd_linf needs replace_one")
    est = _fit(config, solver, eps, relation, width)
    entries = est.privacy_ledger_.entries
    approx = [e for e in entries if e.kind != "gaussian"]
    gauss = [e for e in entries if e.kind == "gaussian"]
    delta_t = sum(e.count * e.delta for e in approx)
    # what the thresholds take is public: delta / 2 to private categories, a tenth to spikes
    has_cat = config == "private" or (config == "private_numeric" and width == 2)
    expected_t = CONFIGS[config][4] * DELTA if config not in ("private", "private_numeric") \
        else (0.5 * DELTA if has_cat else 0.0)
    if config == "private_numeric":  # a float column found privately: its spikes' threshold
        expected_t += SPIKE_DELTA_SHARE * DELTA
    assert delta_t == pytest.approx(expected_t, abs=1e-18)
    mu = _closed_mu(eps, DELTA - delta_t)
    domain_label = CONFIGS[config][3]
    taken = 0.0
    shares = {}
    for e in gauss:
        if domain_label and e.label.startswith(domain_label):
            shares[e.label] = PRIVATE_DOMAIN_SHARE if config.startswith("private") \
                else DOMAIN_SHARE  # domain_share='auto'
        elif e.label.startswith("fine grid counts"):
            shares[e.label] = RESOLUTION_SHARE
        else:
            continue
        taken += shares[e.label]
    solver_entries = [e for e in gauss if e.label not in shares]
    labels = SOLVER_LABELS[solver][:1] if (solver == "mst" and width == 1) \
        else SOLVER_LABELS[solver]
    assert len(solver_entries) == len(labels)
    for e in solver_entries:
        assert any(e.label.endswith(lab) for lab in labels)
        shares[e.label] = (1.0 - taken) / len(labels)
    for e in gauss:
        assert e.mu == pytest.approx(mu * math.sqrt(shares[e.label]), rel=1e-9), e.label
    mu_total = math.sqrt(sum(e.count * e.mu ** 2 for e in gauss))
    assert mu_total == pytest.approx(mu, rel=1e-9)
    spent, delta = est.privacy_spent_
    assert delta == DELTA and est.privacy_method_ in ("gdp", "basic+gdp")  # thresholds: basic
    assert spent == pytest.approx(eps, rel=1e-9) and spent <= eps * (1 + 1e-9)


def test_the_fine_grids_share_is_of_mu_squared_without_a_domain_release():
    """The consequence of the one plan: a Gaussian-only fit with a fine grid and no other
    domain release gives the fine grid ``resolution_share`` of ``mu**2`` (it had that share
    of the zCDP rho, about 0.87 of ``mu**2 / 2`` at epsilon 1), the solver the rest."""
    est = _fit("fine", "smd")
    fine, solver = [e for e in est.privacy_ledger_.entries if e.kind == "gaussian"]
    mu = _closed_mu(1.0, (1 - SPIKE_DELTA_SHARE) * DELTA)
    assert fine.rho == pytest.approx(RESOLUTION_SHARE * mu * mu / 2, rel=1e-9)
    assert solver.mu == pytest.approx(mu * math.sqrt(1 - RESOLUTION_SHARE), rel=1e-9)


@pytest.mark.parametrize("solver", ["aim", "mwem"])
def test_selecting_solvers_stay_in_zcdp(solver):
    """A solver that selects by exponential mechanisms: shares of the zCDP rho (what the
    ledger charges the selections by), no GDP filter."""
    from skdp.privacy.ledger import approx_dp_to_zcdp

    est = _fit("fine", solver)
    fine = next(e for e in est.privacy_ledger_.entries if e.label.startswith("fine grid"))
    rho = approx_dp_to_zcdp(1.0, (1 - SPIKE_DELTA_SHARE) * DELTA)
    assert fine.rho == pytest.approx(RESOLUTION_SHARE * rho, rel=1e-9)
    assert est.privacy_spent_[0] <= 1.0 * (1 + 1e-9)


# ---------------------------------------------------------------- a halved noise is caught
def _halve_nth(monkeypatch, module, name, nth):
    """Halve the noise returned by ``module.name`` (a sigma, or a (sens, sigma, replace)
    triple) on its ``nth`` call only (0: every call)."""
    real = getattr(module, name)
    calls = [0]

    def halved(*args, **kwargs):
        out = real(*args, **kwargs)
        calls[0] += 1
        if nth and calls[0] != nth:
            return out
        if isinstance(out, tuple):
            return (out[0], 0.5 * out[1]) + out[2:]
        return 0.5 * out

    monkeypatch.setattr(module, name, halved)


HALVED = [
    # (the share, config, solver, width, where the noise is halved)
    ("domain", "private", "smd", 2, (domain_private, "_count_noise", 1)),
    ("compression", "compress", "smd", 2, (domain_private, "_count_noise", 1)),
    ("fine grid", "fine", "smd", 2, (domain_private, "fine_noise", 0)),
    ("smd's measurement", "fine", "smd", 2, (synth_measure, "gaussian_sigma", 0)),
    ("mst's 1-way", "fine", "mst", 2, (mst_aim, "gdp_sigma", 1)),
    ("mst's tree", "fine", "mst", 2, (mst_aim, "gdp_sigma", 2)),
    ("mst's 1-way after a domain", "private", "mst", 2, (mst_aim, "gdp_sigma", 1)),
]


@pytest.mark.parametrize("share,config,solver,width,where", HALVED,
                         ids=[h[0] for h in HALVED])
def test_a_halved_noise_in_any_share_is_refused(share, config, solver, width, where,
                                                 monkeypatch):
    """The release at half its noise is four times its share of ``mu**2``: its filter
    refuses it before the draw."""
    module, name, nth = where
    _halve_nth(monkeypatch, module, name, nth)
    with pytest.raises(RuntimeError, match="overspend"):
        _fit(config, solver, width=width)


@pytest.mark.parametrize("config,solver", [("fine", "smd"), ("private", "mst"),
                                           ("quantile", "smd")])
def test_a_plan_past_mu_is_caught_by_the_fits_composition(config, solver, monkeypatch):
    """A plan that gives the solver twice its ``mu`` (half its noise, within a share filter
    that the wrong plan itself set) overspends the fit: the ledger's exact composition is
    above epsilon and the fit fails before anything is published."""
    real = gdp_shares
    monkeypatch.setattr(synth_module, "gdp_shares",
                        lambda mu, shares: tuple(2.0 * m for m in real(mu, shares)))
    cols, domain, extra, _, _ = CONFIGS[config]
    est = SaddlePointSynthesizer(epsilon=1.0, delta=DELTA, solver=solver, domain=domain,
                                 random_state=0, n_iter=30, **extra)
    with pytest.raises(RuntimeError, match="composed to epsilon"):
        est.fit(_table()[cols])
    assert not hasattr(est, "privacy_spent_")  # nothing published
