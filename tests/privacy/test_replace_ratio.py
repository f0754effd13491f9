"""Issue 28 item 9: an add/remove Gaussian part on a replace-one budget converts by its recorded
replace-one / add-remove sensitivity ratio r (mu x r, exact), group privacy (mu x 2) without one.

The closed form checked against is the analytic Gaussian mechanism's (epsilon, delta) curve
(Balle and Wang 2018, Thm 8; Dong, Roth and Su 2022, Cor. 2.13 for mu-GDP), written here
with scipy.stats.norm, independently of skdp.privacy.ledger."""

import dataclasses
import json
import math
import sqlite3

import numpy as np
import pytest
from scipy import optimize, stats

from skdp import BudgetAccountant, SaddlePointSynthesizer
from skdp.privacy.accountant import _compact, add_remove_as_replace_one, convert_spend
from skdp.privacy.ledger import PrivacyLedger, replace_ratio
from skdp.privacy.store import decode_parts, encode_parts

SQRT2 = math.sqrt(2.0)


def _bw_delta(sensitivity, sigma, eps):
    """Balle-Wang Thm 8: delta(eps) of x + N(0, sigma^2) for an l2-sensitivity."""
    a = sensitivity / (2.0 * sigma)
    b = eps * sigma / sensitivity
    return stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b)


def _bw_epsilon(sensitivity, sigma, delta):
    return optimize.brentq(lambda e: _bw_delta(sensitivity, sigma, e) - delta, 0.0, 100.0,
                           xtol=1e-12)


@pytest.mark.parametrize("ratio", [1.0, SQRT2, 1.7, 2.0, None])
def test_a_gaussian_part_converts_by_its_ratio_to_the_closed_form(ratio):
    sens, sigma, delta = 3.0, 5.0, 1e-6
    ledger = PrivacyLedger()
    ledger.gaussian(sens, sigma, replace_sensitivity=None if ratio is None else ratio * sens)
    out = add_remove_as_replace_one(ledger).entries[0]
    r = 2.0 if ratio is None else ratio  # not recorded: group privacy
    assert out.mu == pytest.approx(r * sens / sigma, rel=1e-12)
    assert out.rho == pytest.approx(r**2 * ledger.entries[0].rho, rel=1e-12)
    assert out.replace_ratio is None  # converted: a replace-one part now
    eps, d, _ = convert_spend(ledger.epsilon(delta), delta, ledger, "add_remove", "replace_one")
    assert d == delta
    assert eps == pytest.approx(_bw_epsilon(r * sens, sigma, delta), rel=1e-6)


def test_halved_noise_exceeds_the_converted_charge():
    # the charge covers the replace-one mechanism at its noise; at half the noise the same
    # charge would be an undercount, so a check of this kind catches it
    sens, sigma, delta = 1.0, 2.0, 1e-6
    ledger = PrivacyLedger()
    ledger.gaussian(sens, sigma, replace_sensitivity=SQRT2)
    eps, _, _ = convert_spend(ledger.epsilon(delta), delta, ledger, "add_remove", "replace_one")
    assert _bw_delta(SQRT2, sigma, eps) <= delta * (1 + 1e-6)
    assert _bw_delta(SQRT2, sigma / 2, eps) > 10 * delta


@pytest.mark.parametrize("bad", [0.5, 0.99, 2.01, 3.0])
def test_a_ratio_outside_1_2_is_refused(bad):
    with pytest.raises(ValueError, match="between 1 and 2 times"):
        replace_ratio(1.0, bad)
    with pytest.raises(ValueError, match="replace_sensitivity"):
        PrivacyLedger().gaussian(1.0, 1.0, replace_sensitivity=bad)
    with pytest.raises(ValueError, match="between 1 and 2"):
        replace_ratio(0.0, 1.0)  # no add/remove sensitivity, some replace-one one
    assert math.isnan(replace_ratio(0.0, 0.0)) and math.isnan(replace_ratio(1.0, None))


def test_the_ratio_is_rounded_up_to_one_value_per_claim():
    ratios = {replace_ratio(math.sqrt(m), math.sqrt(2 * m)) for m in range(1, 500)}
    assert len(ratios) == 1  # so that many fits' parts compact to one entry
    (r,) = ratios
    assert SQRT2 <= r <= SQRT2 * (1 + 1e-12)  # never below the claim
    assert replace_ratio(1.0, 2.0) == 2.0 and replace_ratio(3.0, 3.0) == 1.0


def test_compaction_keeps_each_ratio_and_the_file_keeps_it():
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, 2.0, replace_sensitivity=SQRT2)
    ledger.gaussian(2.0, 3.0, count=3, replace_sensitivity=2 * SQRT2)
    ledger.gaussian(1.0, 4.0)                      # no ratio: group privacy
    ledger.gaussian(1.0, 5.0, replace_sensitivity=2.0)
    ledger.exponential(0.1, count=2)
    compact = _compact(ledger)
    gauss = [e for e in compact.entries if e.kind == "gaussian"]
    assert len(gauss) == 3  # None, sqrt 2, 2
    for delta in (1e-6, 1e-3):
        assert compact.epsilon(delta) == pytest.approx(ledger.epsilon(delta), rel=1e-9)
        assert add_remove_as_replace_one(compact).epsilon(delta) == pytest.approx(
            add_remove_as_replace_one(ledger).epsilon(delta), rel=1e-9)
    back = decode_parts(encode_parts(compact.entries))
    assert [e.replace_ratio for e in back[:3]] == [e.replace_ratio for e in gauss]
    # a part written before the ratio existed (no field): group privacy
    old = json.dumps([{"kind": "gaussian", "count": 1, "delta": 0.0, "rho": 0.125, "mu": 0.5,
                       "label": ""}])
    (part,) = decode_parts(old)
    assert part.replace_ratio is None
    assert add_remove_as_replace_one(PrivacyLedger([part])).entries[0].mu == pytest.approx(1.0)


def test_an_older_file_without_ratios_converts_by_group_privacy(tmp_path):
    path = tmp_path / "l.sqlite"
    acc = BudgetAccountant(10.0, 1e-3, store=path, dataset="t")
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, 4.0, replace_sensitivity=SQRT2)
    acc.spend(ledger.epsilon(1e-6), 1e-6, ledger=ledger, neighbouring="add_remove")
    tight = BudgetAccountant.open(path, "t").total()[0]
    assert tight == pytest.approx(_bw_epsilon(SQRT2, 4.0, 1e-6), rel=1e-6)
    with sqlite3.connect(path) as con:  # the row as an older skdp wrote it: no ratio
        (parts,) = con.execute("SELECT parts FROM spends").fetchone()
        stripped = [{k: v for k, v in p.items() if k != "replace_ratio"}
                    for p in json.loads(parts)]
        assert stripped != json.loads(parts)
        con.execute("UPDATE spends SET parts = ?", (json.dumps(stripped),))
    assert BudgetAccountant.open(path, "t").total()[0] == pytest.approx(
        _bw_epsilon(2.0, 4.0, 1e-6), rel=1e-6)


X = np.random.default_rng(0).integers(0, 3, size=(300, 3))


@pytest.mark.parametrize("solver, before, after", [("smd", 2.1229, 1.4547),
                                                   ("mst", 2.1117, 1.6948),
                                                   ("aim", 2.1117, 1.5233)])
def test_the_synthesizers_add_remove_cost_on_a_replace_one_budget(solver, before, after):
    # benchmarks/RESULTS.md, "Issue 28 item 9: the exact add/remove conversion"
    acc = BudgetAccountant(epsilon=100.0, delta=1e-3)
    est = SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain={0: 3, 1: 3, 2: 3},
                                 solver=solver, neighbouring="add_remove", accountant=acc,
                                 random_state=0).fit(X)
    assert est.privacy_spent_[0] == pytest.approx(1.0, abs=1e-6)
    eps, delta = acc.total()
    assert delta == pytest.approx(1e-6)
    assert eps == pytest.approx(after, abs=2e-3)
    gauss = [e for e in est.privacy_ledger_.entries if e.kind == "gaussian"]
    assert gauss and all(e.replace_ratio == pytest.approx(SQRT2) for e in gauss)
    grouped = PrivacyLedger([dataclasses.replace(e, replace_ratio=None) if e.kind == "gaussian"
                             else e for e in est.privacy_ledger_.entries])  # group privacy
    assert add_remove_as_replace_one(grouped).epsilon(1e-6) == pytest.approx(before, abs=2e-3)
    if solver == "smd":  # one Gaussian release: the closed form at its noise
        sens_r = math.sqrt(2 * len(est.marginals_))
        sigma = est.solver_info_["noise_std_counts"]
        assert eps == pytest.approx(_bw_epsilon(sens_r, sigma, 1e-6), rel=1e-5)
        assert _bw_delta(sens_r, sigma / 2, eps) > 10 * 1e-6  # halved noise: undercounted


def test_a_replace_one_fit_records_no_ratio():
    est = SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain={0: 3, 1: 3, 2: 3},
                                 solver="mst", accountant=BudgetAccountant(100.0, 1e-3),
                                 random_state=0).fit(X)
    assert all(getattr(e, "replace_ratio", None) is None for e in est.privacy_ledger_.entries)


def test_private_domain_counts_record_the_ratio():
    import pandas as pd

    frame = pd.DataFrame(X.astype(str), columns=list("abc"))
    est = SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain="private", solver="smd",
                                 n_iter=5, neighbouring="add_remove",
                                 accountant=BudgetAccountant(100.0, 1e-3),
                                 random_state=0).fit(frame)
    kinds = {e.label: e for e in est.privacy_ledger_.entries}
    assert kinds["domain counts of 3 columns"].replace_ratio == pytest.approx(SQRT2)
    # the thresholding's (0, delta) part keeps group privacy: (0, 2 delta)
    assert not hasattr(kinds["category thresholding"], "replace_ratio")  # an ApproxEvent


def test_a_direct_add_remove_spend_with_its_ratio():
    # a user's own histogram under add/remove, spent on a replace-one accountant
    from skdp._backend import Backend
    from skdp.privacy import gaussian_mechanism

    ledger = PrivacyLedger()
    gaussian_mechanism(np.zeros(4), 1.0, Backend.from_arrays(np.zeros(1), random_state=0),
                       sigma=4.0, ledger=ledger, replace_sensitivity=SQRT2)
    acc = BudgetAccountant(10.0, 1e-3)
    acc.spend(ledger.epsilon(1e-6), 1e-6, ledger=ledger, neighbouring="add_remove")
    assert acc.total()[0] == pytest.approx(_bw_epsilon(SQRT2, 4.0, 1e-6), rel=1e-6)
