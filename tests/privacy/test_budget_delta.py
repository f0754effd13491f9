"""delta='auto', the estimators' default (issue 27, item 3): the accountant's share.

A fit at epsilon e on an accountant with caps (E, D) takes delta = D * min(1, e/E)**2
(``BudgetAccountant.default_delta``), so that the fits that fit by epsilon fit by delta.
"""

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_classification
from sklearn.model_selection import GridSearchCV
from sklearn.utils._param_validation import InvalidParameterError

from skdp import (BudgetAccountant, BudgetExceededError, KLAdaptiveRegressor,
                  PrivateMinimaxClassifier, SaddlePointSynthesizer)
from skdp._base import resolve_delta
from skdp.model_selection import PrivateHyperparameterSearch, fit_rho_bound
from skdp.privacy.accountant import DEFAULT_DELTA, DELTA_SHARE_WITHOUT_EPSILON_CAP
from _toy import NoisyMeanRegressor

Xd, yd = load_diabetes(return_X_y=True)
PUBLIC = dict(feature_bound=0.5, target_bound=350.0)
Xc, yc = make_classification(n_samples=400, n_features=4, random_state=0)
Xc = Xc / 5


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # leak warnings of read-from-data conveniences
        yield


# -- the rule -----------------------------------------------------------------------------
@pytest.mark.parametrize("cap, epsilon, expected", [
    ((2.0, 1e-6), 0.5, 1e-6 / 16),              # a quarter of epsilon: 1/16 of delta
    ((2.0, 1e-6), 2.0, 1e-6),                   # the whole epsilon: the whole delta
    ((2.0, 1e-6), 5.0, 1e-6),                   # more than the cap (refused anyway)
    ((2.0, 1e-6), math.inf, 1e-6),
    ((math.inf, 1e-5), 1.0, 1e-5 * DELTA_SHARE_WITHOUT_EPSILON_CAP),
    ((math.inf, 1.0), 1.0, DEFAULT_DELTA),      # no delta limit: 1e-6 as before
    ((3.0, 1.0), 1.0, DEFAULT_DELTA),
    ((2.0, 0.0), 1.0, 0.0),
])
def test_default_delta_rule(cap, epsilon, expected):
    assert BudgetAccountant(*cap).default_delta(epsilon) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("bad, error", [(0.0, ValueError), (-1.0, ValueError),
                                        (float("nan"), ValueError), (True, TypeError)])
def test_default_delta_refuses_a_bad_epsilon(bad, error):
    with pytest.raises(error):
        BudgetAccountant(2.0, 1e-6).default_delta(bad)


def test_fits_that_fit_by_epsilon_fit_by_delta():
    """Any fits whose epsilons sum to at most the cap (basic composition): their default
    deltas sum to at most the delta cap."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        acc = BudgetAccountant(epsilon=float(rng.uniform(0.5, 10)),
                               delta=float(10 ** rng.uniform(-9, -3)))
        shares = rng.dirichlet(np.ones(rng.integers(1, 30)))
        for s in shares:
            eps = float(s) * acc.epsilon * (1 - 1e-9)
            acc.spend(eps, acc.default_delta(eps))  # no ledger: basic composition; no raise
        assert acc.total()[1] <= acc.delta


def test_resolve_delta_takes_the_estimator_accountant_or_the_default():
    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    assert resolve_delta("auto", 0.5, acc) == pytest.approx(2.5e-6)
    assert resolve_delta("auto", 0.5) == DEFAULT_DELTA  # the default accountant (no limit)
    with acc:  # made the default
        assert resolve_delta("auto", 0.5) == pytest.approx(2.5e-6)
    assert resolve_delta(3e-7, 0.5, acc) == 3e-7  # a number wins


# -- the estimators ---------------------------------------------------------------------------
def _fit(kind, acc, **kw):
    if kind == "regressor":
        return KLAdaptiveRegressor(accountant=acc, max_iter=5, **PUBLIC, **kw).fit(Xd, yd)
    if kind == "classifier":
        return PrivateMinimaxClassifier(accountant=acc, n_iter=3, group_by=None,
                                        **kw).fit(Xc, yc, classes=[0, 1])
    if kind == "synthesizer":
        table = np.random.default_rng(0).integers(0, 3, size=(300, 3))
        return SaddlePointSynthesizer(accountant=acc, domain={str(j): 3 for j in range(3)},
                                      solver="mst", n_iter=5, **kw).fit(table)
    return NoisyMeanRegressor(accountant=acc, **kw).fit(Xd[:, :2], yd / 350)


KINDS = ["regressor", "classifier", "synthesizer", "toy"]


@pytest.mark.parametrize("kind", KINDS[:3])
def test_every_estimator_defaults_to_auto_and_spends_the_share(kind):
    acc = BudgetAccountant(epsilon=4.0, delta=1e-5)
    est = _fit(kind, acc, epsilon=1.0)
    assert est.get_params()["delta"] == "auto"
    assert est.delta_ == pytest.approx(1e-5 / 16)
    assert est.privacy_spent_[1] == est.delta_
    (spend,) = acc.spends
    assert spend["delta"] == est.delta_ and spend["epsilon"] == 1.0
    assert est.privacy_spent_[0] <= 1.0 * (1 + 1e-9)  # calibrated at delta_


@pytest.mark.parametrize("kind", KINDS)
def test_an_explicit_delta_wins(kind):
    acc = BudgetAccountant(epsilon=4.0, delta=1e-5)
    est = _fit(kind, acc, epsilon=1.0, delta=3e-7)
    assert est.delta_ == 3e-7 and acc.spends[0]["delta"] == 3e-7
    assert est.privacy_spent_[1] == 3e-7


def test_the_default_accountant_keeps_the_old_default():
    est = _fit("regressor", None, epsilon=1.0)
    assert est.delta_ == 1e-6 and est.privacy_spent_[1] == 1e-6


def test_delta_auto_is_a_valid_parameter_and_other_strings_are_not():
    for cls in (KLAdaptiveRegressor, PrivateMinimaxClassifier, SaddlePointSynthesizer):
        with pytest.raises(InvalidParameterError, match="delta"):
            cls(delta="automatic")._validate_params()
        cls(delta="auto")._validate_params()
    est = PrivateHyperparameterSearch(KLAdaptiveRegressor(), {"alpha": [0.0]}, delta="x")
    with pytest.raises(InvalidParameterError, match="delta"):
        est._validate_params()


def test_auto_on_an_accountant_without_delta_is_a_clear_error():
    acc = BudgetAccountant(epsilon=2.0, delta=0.0)
    with pytest.raises(ValueError, match="delta='auto' gives 0 on this accountant"):
        _fit("regressor", acc, epsilon=1.0)
    assert acc.spends == []


def test_the_issue_example_fits_many_more_than_one():
    """Issue 27: BudgetAccountant(2, 1e-6) refused the second fit at epsilon 0.5 with
    1.5 of epsilon left. With delta='auto' epsilon runs out first."""
    old = BudgetAccountant(epsilon=2.0, delta=1e-6)
    _fit("regressor", old, epsilon=0.5, delta=1e-6)
    with pytest.raises(BudgetExceededError, match="Delta ran out"):
        _fit("regressor", old, epsilon=0.5, delta=1e-6)

    acc = BudgetAccountant(epsilon=2.0, delta=1e-6)
    fits = 0
    with pytest.raises(BudgetExceededError, match="Epsilon ran out, not delta"):
        for _ in range(40):
            _fit("regressor", acc, epsilon=0.5)
            fits += 1
    assert fits >= 4  # the 4 that basic composition admits, and more by GDP (10 measured)
    eps, delta = acc.total()
    assert eps <= 2.0 and delta <= 1e-6


def test_grid_search_over_an_accountant_fits_every_fold_and_the_refit():
    """With the old default (1e-6 each) only the first fold fitted this accountant."""
    acc = BudgetAccountant(epsilon=2.0, delta=1e-6)
    search = GridSearchCV(KLAdaptiveRegressor(epsilon=0.5, accountant=acc, max_iter=5,
                                              **PUBLIC), {"epsilon": [0.25, 0.5]}, cv=3)
    search.fit(Xd, yd)
    assert len(acc.spends) == 7
    assert sorted({s["delta"] for s in acc.spends}) == pytest.approx([1e-6 / 64, 1e-6 / 16])
    eps, delta = acc.total()
    assert eps <= 2.0 and delta <= 1e-6
    assert search.best_estimator_.delta_ == acc.default_delta(search.best_params_["epsilon"])


def test_a_stream_keeps_the_delta_it_started_with():
    acc = BudgetAccountant(epsilon=4.0, delta=1e-5)
    clf = PrivateMinimaxClassifier(epsilon=1.0, solver="srg_memf", group_by=None,
                                   accountant=acc, random_state=0)
    clf.partial_fit(Xc[:200], yc[:200], classes=[0, 1])
    started = clf.delta_
    clf.set_params(accountant=BudgetAccountant(epsilon=2.0, delta=1e-6))  # not a stream param
    clf.partial_fit(Xc[200:], yc[200:])
    assert clf.delta_ == started == pytest.approx(1e-5 / 16)
    assert len(acc.spends) == 1


# -- the private search --------------------------------------------------------------------
def test_fit_rho_bound_resolves_auto_with_the_estimator_accountant():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-6)
    auto = KLAdaptiveRegressor(epsilon=0.5, accountant=acc)
    explicit = KLAdaptiveRegressor(epsilon=0.5, delta=acc.default_delta(0.5))
    assert fit_rho_bound(auto) == fit_rho_bound(explicit)


def test_private_search_resolves_its_delta_and_its_runs():
    acc = BudgetAccountant(epsilon=5.0, delta=1e-5)
    inner = PrivateMinimaxClassifier(epsilon=0.5, n_iter=3, group_by=None, accountant=acc)
    search = PrivateHyperparameterSearch(inner, {"epsilon": [0.25, 0.5]}, mean_runs=2,
                                         accountant=acc, random_state=0)
    search.fit(Xc, yc, classes=[0, 1])
    eps, delta = search.privacy_spent_
    assert delta == search.delta_ and acc.total() == (eps, delta)
    assert 0 < delta <= acc.default_delta(eps) * (1 + 1e-12)  # at most its epsilon's share
    best = search.best_estimator_
    assert best.get_params()["delta"] == "auto"  # the user's parameter is given back
    assert best.delta_ == acc.default_delta(best.epsilon)  # the run used the planned delta
