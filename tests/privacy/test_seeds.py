"""Noise reused across fits: fits on one dataset that share a seed warn (issue 15, item 5;
issue 27, item 6: fits on tables with other columns are other datasets)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, cross_val_score

from skdp import BudgetAccountant, KLAdaptiveRegressor, PrivacyLeakWarning, PrivateMinimaxClassifier
from skdp._base import noise_seed
from skdp.model_selection import PrivateHyperparameterSearch
from _toy import NoisyMeanRegressor

X = np.random.default_rng(0).normal(size=(90, 2)) / 3
y = np.random.default_rng(1).uniform(-1, 1, size=90)


def _fits(random_states, accountants):
    for rs, acc in zip(random_states, accountants):
        NoisyMeanRegressor(accountant=acc, random_state=rs).fit(X, y)


@pytest.fixture
def no_leak_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        yield


def test_grid_search_with_an_int_seed_warns():
    """Every fold and the refit draw the same noise: the composed total is no bound."""
    acc = BudgetAccountant()
    search = GridSearchCV(KLAdaptiveRegressor(max_iter=5, solver_options={"precondition": 0},
                                              random_state=0,
                                              accountant=acc), {"alpha": [0.0]}, cv=3)
    with pytest.warns(PrivacyLeakWarning) as caught:
        search.fit(X, y)
    messages = [str(w.message) for w in caught if "same noise" in str(w.message)]
    assert len(messages) == 3  # folds 2 and 3, and the refit
    assert "random_state=0" in messages[0] and "does not bound" in messages[0]
    assert "random_state=None" in messages[0]
    assert [s["seed"] for s in acc.spends] == ["random_state=0"] * 4


def test_a_random_state_instance_copied_by_clone_warns():
    """clone deep-copies a RandomState: every fold starts from the same state."""
    acc = BudgetAccountant()
    est = NoisyMeanRegressor(accountant=acc, random_state=np.random.RandomState(3))
    with pytest.warns(PrivacyLeakWarning, match="RandomState in state"):
        cross_val_score(est, X, y, cv=3)


def test_cross_validation_on_the_default_accountant_warns():
    with BudgetAccountant():
        with pytest.warns(PrivacyLeakWarning, match="random_state=7"):
            cross_val_score(NoisyMeanRegressor(random_state=7), X, y, cv=2)


@pytest.mark.parametrize("random_states", [[0, 1, 2], [None, None, None], [None, 0, None]])
def test_different_seeds_or_fresh_noise_do_not_warn(random_states, no_leak_warning):
    acc = BudgetAccountant()
    _fits(random_states, [acc, acc, acc])
    assert len(acc.spends) == 3


def test_a_shared_random_state_instance_advances_and_does_not_warn(no_leak_warning):
    rs, acc = np.random.RandomState(0), BudgetAccountant()
    _fits([rs, rs], [acc, acc])


def test_the_same_seed_on_two_accountants_does_not_warn(no_leak_warning):
    """An accountant is one dataset: seeds are compared within it only (documented)."""
    _fits([0, 0], [BudgetAccountant(), BudgetAccountant()])


def test_the_same_seed_still_gives_the_same_noise():
    """The check only warns: a seed's noise is unchanged (sklearn's determinism checks)."""
    acc = BudgetAccountant()
    a = NoisyMeanRegressor(accountant=acc, random_state=5).fit(X, y)
    with pytest.warns(PrivacyLeakWarning):
        b = NoisyMeanRegressor(accountant=acc, random_state=5).fit(X, y)
    assert a.mean_ == b.mean_


def test_hyperparameter_search_does_not_raise_a_false_alarm(no_leak_warning):
    """The search seeds its runs itself and charges them to inner accountants."""
    Xc, yc = make_classification(n_samples=300, n_features=4, random_state=0)
    acc = BudgetAccountant()
    est = PrivateMinimaxClassifier(n_iter=5, group_by=None, random_state=0)
    PrivateHyperparameterSearch(est, {"epsilon": [0.5, 1.0]}, mean_runs=3,
                                accountant=acc).fit(Xc / 5, yc, classes=[0, 1])
    assert len(acc.spends) == 1


def test_noise_seed():
    assert noise_seed(None) is None
    assert noise_seed(np.int64(4)) == "random_state=4"
    rs = np.random.RandomState(0)
    before = noise_seed(rs)
    rs.normal()
    assert noise_seed(rs) != before


def test_hyperparameter_search_seed_is_recorded():
    Xc, yc = make_classification(n_samples=300, n_features=4, random_state=0)
    acc = BudgetAccountant()
    search = PrivateHyperparameterSearch(PrivateMinimaxClassifier(n_iter=5, group_by=None),
                                         {"epsilon": [0.5]}, mean_runs=2, accountant=acc,
                                         random_state=1)
    search.fit(Xc / 5, yc)
    with pytest.warns(PrivacyLeakWarning, match="random_state=1"):
        search.fit(Xc / 5, yc)


def test_infinite_spends_share_no_claim(no_leak_warning):
    """epsilon=inf claims no bound (and adds no noise): its seed is not compared."""
    acc = BudgetAccountant()
    NoisyMeanRegressor(epsilon=np.inf, accountant=acc, random_state=0).fit(X, y)
    NoisyMeanRegressor(accountant=acc, random_state=0).fit(X, y)
    NoisyMeanRegressor(epsilon=np.inf, accountant=acc, random_state=0).fit(X, y)


# -- issue 27, item 6: only fits on the same dataset are compared ---------------------------
def test_the_same_seed_on_two_tables_of_one_process_does_not_warn(no_leak_warning):
    """The issue's false positive: the default accountant, two unrelated tables."""
    Xc, yc = make_classification(n_samples=200, n_features=5, random_state=0)
    KLAdaptiveRegressor(max_iter=5, random_state=0).fit(X, y)  # 2 columns
    KLAdaptiveRegressor(max_iter=5, random_state=0).fit(Xc / 5, yc)  # 5 columns
    PrivateMinimaxClassifier(n_iter=3, group_by=None, random_state=0).fit(
        Xc[:, :4] / 5, yc, classes=[0, 1])  # 4 columns
    assert [s["data"] for s in BudgetAccountant.default().spends] == [
        "2 columns", "5 columns", "4 columns"]


def test_tables_are_told_apart_by_their_columns_only():
    """The same number of columns and no names: taken as one table (no value is looked at)."""
    acc = BudgetAccountant()
    NoisyMeanRegressor(accountant=acc, random_state=0).fit(X, y)
    other = np.random.default_rng(5).normal(size=(40, 2))
    with pytest.warns(PrivacyLeakWarning, match=r"on a table with the same columns \(2 columns\)"):
        NoisyMeanRegressor(accountant=acc, random_state=0).fit(other, y[:40])
    assert [s["data"] for s in acc.spends] == ["2 columns", "2 columns"]


def test_named_columns_tell_tables_apart(no_leak_warning):
    pd = pytest.importorskip("pandas")
    acc = BudgetAccountant()
    NoisyMeanRegressor(accountant=acc, random_state=0).fit(
        pd.DataFrame(X, columns=["age", "income"]), y)
    NoisyMeanRegressor(accountant=acc, random_state=0).fit(
        pd.DataFrame(X, columns=["height", "weight"]), y)
    assert acc.spends[0]["data"] == "2 columns ['age', 'income']"


def test_same_named_columns_warn():
    pd = pytest.importorskip("pandas")
    acc = BudgetAccountant()
    frame = pd.DataFrame(X, columns=["age", "income"])
    NoisyMeanRegressor(accountant=acc, random_state=0).fit(frame, y)
    with pytest.warns(PrivacyLeakWarning, match="'age', 'income'"):
        NoisyMeanRegressor(accountant=acc, random_state=0).fit(frame.iloc[:50], y[:50])


def test_an_accountant_named_for_a_dataset_compares_all_its_fits():
    """dataset= without a ledger file: every fit charged to it is on that dataset."""
    acc = BudgetAccountant(dataset="patients")
    NoisyMeanRegressor(accountant=acc, random_state=0).fit(X, y)
    wide = np.c_[X, X]
    with pytest.warns(PrivacyLeakWarning, match="this accountant's dataset 'patients'"):
        NoisyMeanRegressor(accountant=acc, random_state=0).fit(wide, y)
    assert "dataset='patients'" in repr(acc)
    import pickle
    assert pickle.loads(pickle.dumps(acc)).dataset == "patients"


def test_a_ledger_file_is_one_dataset_whatever_the_columns(tmp_path):
    acc = BudgetAccountant(store=tmp_path / "b.sqlite", dataset="patients")
    NoisyMeanRegressor(accountant=acc, random_state=0).fit(X, y)
    with pytest.warns(PrivacyLeakWarning, match="on dataset 'patients' of the budget store"):
        NoisyMeanRegressor(accountant=acc, random_state=0).fit(np.c_[X, X], y)


def test_spends_without_a_table_are_compared_with_every_table():
    """A spend that says nothing of its table (a direct spend, the private search) is
    compared with all: the check stays on the safe side."""
    acc = BudgetAccountant()
    acc.spend(0.5, 1e-6, seed="random_state=0")
    with pytest.warns(PrivacyLeakWarning, match="charged to this accountant"):
        NoisyMeanRegressor(accountant=acc, random_state=0).fit(X, y)


def test_the_synthesizer_names_its_columns_by_its_public_feature_names(no_leak_warning):
    from skdp import SaddlePointSynthesizer

    acc = BudgetAccountant()
    table = np.random.default_rng(0).integers(0, 3, size=(200, 2))
    for names in (["a", "b"], ["c", "d"]):
        SaddlePointSynthesizer(domain=dict.fromkeys(names, 3), solver="mst", n_iter=5,
                               accountant=acc, random_state=0).fit(table, feature_names=names)
    assert [s["data"] for s in acc.spends] == ["2 columns ['a', 'b']", "2 columns ['c', 'd']"]
