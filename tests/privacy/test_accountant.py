"""BudgetAccountant: composition across fits, budget checks, clones, GridSearchCV."""

import copy
import math
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skdp import BudgetAccountant, BudgetExceededError, PrivacyLeakWarning
from skdp.privacy.ledger import PrivacyLedger, zcdp_to_approx_dp
from _toy import NoisyMeanRegressor

X = np.random.default_rng(0).normal(size=(60, 2))
y = np.random.default_rng(1).uniform(-1, 1, size=60)


def test_basic_totals_and_remaining():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    acc.spend(0.5, 1e-6)
    acc.spend(0.25, 0.0)
    assert acc.total() == (0.75, 1e-6)
    assert acc.remaining() == (1.25, 9e-6)
    with pytest.raises(BudgetExceededError, match="over this accountant's total"):
        acc.spend(1.5, 0.0)
    assert len(acc.spends) == 2  # the refused spend is not recorded


def test_fits_compose_by_zcdp_when_they_report_ledgers():
    acc = BudgetAccountant()
    for seed in range(4):
        NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc, random_state=seed).fit(X, y)
    eps, delta = acc.total()
    assert delta == pytest.approx(4e-6)
    rho = sum(s["ledger"].rho for s in acc.spends)
    assert eps == pytest.approx(min(4.0, PrivacyLedger(
        entries=[e for s in acc.spends for e in s["ledger"].entries]).epsilon(4e-6)))
    assert eps < 4.0  # tighter than basic composition
    assert eps <= zcdp_to_approx_dp(rho, 4e-6) + 1e-12


def test_budget_is_checked_before_the_data_are_touched():
    class Untouchable:
        def __array__(self, *args, **kwargs):
            raise AssertionError("the data were read")

    acc = BudgetAccountant(epsilon=1.5, delta=1e-5)
    NoisyMeanRegressor(epsilon=1.0, accountant=acc, random_state=0).fit(X, y)
    with pytest.raises(BudgetExceededError):
        NoisyMeanRegressor(epsilon=1.0, accountant=acc).fit(Untouchable(), y)
    assert len(acc.spends) == 1


def test_fit_does_not_mutate_the_accountant_parameter_and_uses_the_default():
    acc = BudgetAccountant()
    est = NoisyMeanRegressor(random_state=0)
    with acc:
        assert BudgetAccountant.default() is acc
        est.fit(X, y)
    assert est.accountant is None
    assert len(acc.spends) == 1
    assert BudgetAccountant.default() is not acc
    assert est.privacy_spent_[0] <= est.epsilon and est.privacy_method_ == "gdp"


def test_copies_and_clones_share_the_accountant():
    acc = BudgetAccountant()
    assert copy.copy(acc) is acc and copy.deepcopy(acc) is acc
    est = NoisyMeanRegressor(accountant=acc)
    assert clone(est).accountant is acc


def test_grid_search_spends_are_all_recorded():
    acc = BudgetAccountant()
    pipe = make_pipeline(StandardScaler(), NoisyMeanRegressor(accountant=acc))
    search = GridSearchCV(pipe, {"noisymeanregressor__epsilon": [0.5, 1.0]}, cv=3)
    search.fit(X, y)
    assert len(acc.spends) == 2 * 3 + 1  # every fold of every candidate, and the refit
    assert acc.total()[1] == pytest.approx(7e-6)


def test_default_accountant_records_cross_validation():
    with BudgetAccountant() as acc:
        cross_val_score(NoisyMeanRegressor(), X, y, cv=4)
    assert len(acc.spends) == 4


def test_grid_search_is_stopped_by_the_budget():
    acc = BudgetAccountant(epsilon=3.0, delta=1e-3)
    search = GridSearchCV(NoisyMeanRegressor(epsilon=1.0, accountant=acc), {"delta": [1e-6]},
                          cv=5, error_score="raise")
    with pytest.raises(BudgetExceededError):
        search.fit(X, y)
    eps, _ = acc.total()
    assert eps <= 3.0


def test_pickle_round_trip_keeps_the_spends():
    acc = BudgetAccountant(epsilon=5.0, delta=1e-4)
    NoisyMeanRegressor(accountant=acc, random_state=0).fit(X, y)
    back = pickle.loads(pickle.dumps(acc))
    assert back.total() == acc.total() and back.epsilon == 5.0


def test_spend_in_a_worker_process_warns():
    acc = BudgetAccountant()
    acc._pid = -1  # as if unpickled in another process
    with pytest.warns(PrivacyLeakWarning, match="worker process"):
        acc.spend(0.1, 0.0)


@pytest.mark.parametrize("kwargs", [{"epsilon": 0}, {"epsilon": -1}, {"delta": 1.5}])
def test_bad_accountant_budget(kwargs):
    with pytest.raises(ValueError):
        BudgetAccountant(**kwargs)


def test_resolve_rejects_other_objects():
    with pytest.raises(TypeError, match="BudgetAccountant or None"):
        BudgetAccountant.resolve("budget")


def test_infinite_epsilon_fit_is_allowed_only_by_an_unlimited_accountant():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NoisyMeanRegressor(epsilon=math.inf, accountant=BudgetAccountant()).fit(X, y)
    with pytest.raises(BudgetExceededError):
        NoisyMeanRegressor(epsilon=math.inf, accountant=BudgetAccountant(10.0)).fit(X, y)


def test_an_infinite_spend_is_infinite_whatever_its_ledger_says():
    acc = BudgetAccountant()
    acc.spend(0.5, 1e-6, ledger=PrivacyLedger())
    acc.spend(math.inf, 1e-6, ledger=PrivacyLedger())  # no mechanism recorded: 0 before
    assert acc.total() == (math.inf, 2e-6)


def test_a_check_without_a_ledger_still_uses_the_earlier_fits_ledgers():
    acc = BudgetAccountant(epsilon=3.2, delta=1e-3)
    for seed in range(3):
        NoisyMeanRegressor(epsilon=1.0, accountant=acc, random_state=seed).fit(X, y)
    assert acc.total()[0] < 2.0
    # basic composition would refuse a fourth fit (4 > 3.2); the tight rule allows it
    NoisyMeanRegressor(epsilon=1.0, accountant=acc, random_state=4).fit(X, y)
    assert len(acc.spends) == 4 and acc.total()[0] <= 3.2


def test_incremental_composition_matches_the_full_merge():
    """The accountant folds spends into a compacted ledger once (a long process
    stays linear); its totals equal composing every spend's ledger afresh."""
    acc = BudgetAccountant()
    spends = []
    for i in range(60):
        ledger = PrivacyLedger()
        ledger.gaussian(1.0, 20.0 + i, count=3)
        if i % 3 == 0:
            ledger.exponential(0.01 * (1 + i % 2), count=50)
        if i % 7 == 0:
            ledger.zcdp(1e-3)
        spends.append(ledger)
        acc.spend(1.0, 1e-7, ledger=ledger)
        if i % 10 == 0:
            acc.spend(0.05, 0.0)  # no mechanisms reported: basic composition
            spends.append(PrivacyLedger())
            spends[-1].approx(0.05, 0.0)
    eps, delta = acc.total()
    full = PrivacyLedger(entries=[e for s in spends for e in s.entries])
    assert delta == pytest.approx(60e-7)
    assert eps == pytest.approx(full.epsilon(delta), rel=1e-9)
    merged = acc._folded()[3]
    assert len(merged.entries) <= 5  # gaussian, zcdp, 2 exponential epsilons, approx
    acc.spends.pop()  # an edited list is recomposed from scratch
    assert acc.total()[1] == pytest.approx(59e-7)


def test_reserve_and_charge_in_memory_hold_a_counted_claim():
    acc = BudgetAccountant(epsilon=1.0)
    token = acc.reserve(0.75, 0.0, label="fit")
    assert [s["status"] for s in acc.spends] == ["reserved"]  # counted as the file's row is
    assert acc.total() == (0.75, 0.0)
    with pytest.raises(BudgetExceededError):  # the claim is held: nothing else fits beside it
        acc.reserve(0.5, 0.0)
    acc.charge(token, 0.75, 0.0, label="fit", solver="noisy_gd", params="{}")
    assert len(acc.spends) == 1 and acc.spends[0]["status"] == "charged"
    assert acc.spends[0]["solver"] == "noisy_gd" and acc.total() == (0.75, 0.0)
    acc.cancel(None)  # nothing to do
    acc.cancel(token)  # charged: no longer held, nothing to drop
    assert acc.total() == (0.75, 0.0)
    dropped = acc.reserve(0.25, 0.0)
    acc.cancel(dropped)  # a fit that failed before reading its data
    assert len(acc.spends) == 1 and acc.total() == (0.75, 0.0)


def test_in_memory_charge_replaces_its_own_reservation_among_others():
    acc = BudgetAccountant(epsilon=3.0)
    first, second = acc.reserve(1.0, 0.0, label="a"), acc.reserve(1.0, 0.0, label="b")
    acc.spend(0.5, 0.0, label="c")
    acc.charge(first, 1.0, 0.0, label="a")  # never charged twice, never refused: it was admitted
    assert acc.total() == (2.5, 0.0)
    acc.cancel(second)
    assert [s["label"] for s in acc.spends] == ["a", "c"] and acc.total() == (1.5, 0.0)
    for _ in range(3):  # the cache survives reservations replaced and dropped mid-list
        acc.cancel(acc.reserve(0.1, 0.0))
        acc.charge(acc.reserve(0.1, 0.0), 0.1, 0.0)
    assert acc.total()[0] == pytest.approx(1.8)


def test_an_in_memory_accountant_still_pickles_as_a_copy_and_reads_old_pickles():
    acc = BudgetAccountant(epsilon=2.0)
    acc.spend(1.0, 0.0)
    copy_ = pickle.loads(pickle.dumps(acc))
    assert copy_ is not acc and copy_.total() == (1.0, 0.0) and copy_.ledger is None
    old = BudgetAccountant.__new__(BudgetAccountant)  # the state an older skdp pickled
    old.__setstate__(dict(epsilon=2.0, delta=1.0, spends=list(acc.spends), _pid=0))
    assert old.total() == (1.0, 0.0)


def test_a_file_accountant_is_its_own_copy_and_pickles_as_its_path(tmp_path):
    acc = BudgetAccountant(2.0, 1e-6, store=tmp_path / "b.sqlite", dataset="d")
    assert copy.deepcopy(acc) is acc and clone(NoisyMeanRegressor(accountant=acc)).accountant is acc
    state = acc.__getstate__()
    assert state["store"] == str(tmp_path / "b.sqlite") and "_spends" not in state
    unpickled = pickle.loads(pickle.dumps(acc))
    NoisyMeanRegressor(epsilon=1.0, delta=1e-7, accountant=unpickled).fit(X, y)
    assert len(acc.spends) == 1
    assert "store=" in repr(acc) and "dataset='d'" in repr(acc)
    with pytest.raises(AttributeError):
        acc.spends = []


def test_deprecated_names_of_the_store_and_of_cancel_warn_and_still_work(tmp_path):
    # issue 29: ``ledger`` is the per-fit PrivacyLedger only; the accountant's file is its store
    with pytest.warns(FutureWarning, match="store="):
        acc = BudgetAccountant(2.0, 1e-6, ledger=tmp_path / "b.sqlite", dataset="d")
    assert acc.store == str(tmp_path / "b.sqlite")
    with pytest.warns(FutureWarning, match="BudgetAccountant.store"):
        assert acc.ledger == acc.store
    with pytest.raises(TypeError, match="both"):
        BudgetAccountant(1.0, store=tmp_path / "a.sqlite", ledger=tmp_path / "a.sqlite",
                         dataset="d")
    with pytest.warns(FutureWarning, match="store="):
        assert BudgetAccountant.open(ledger=acc.store, dataset="d").store == acc.store
    with pytest.warns(FutureWarning, match="cancel"):
        acc.release(acc.reserve(0.5, 0.0))
    assert acc.total() == (0.0, 0.0)
    state = acc.__getstate__()  # a pickle made before the rename names the path ``ledger``
    state["ledger"] = state.pop("store")
    old = BudgetAccountant.__new__(BudgetAccountant)
    old.__setstate__(state)
    assert old.store == acc.store


def test_spend_is_the_deprecated_name_of_ledger_entry():
    import skdp.privacy
    from skdp.privacy import ledger
    from skdp.privacy.ledger import LedgerEntry
    for module in (skdp.privacy, ledger):
        with pytest.warns(FutureWarning, match="LedgerEntry"):
            assert module.Spend is LedgerEntry
    ledger = PrivacyLedger()
    ledger.pure(0.5)
    assert isinstance(ledger.entries[0], LedgerEntry)  # a PureEvent since issue 29
