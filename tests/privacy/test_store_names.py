"""The accountant's storage is the *budget store* (issue 29 item 6): ``skdp.privacy.store``'s
``BudgetStore`` and ``StoreError``; the old "ledger" names and modules still work, with a
FutureWarning, for one release."""

import pytest

import skdp
import skdp.privacy
from skdp import BudgetAccountant
from skdp.privacy import accountant, store, store_postgres

OLD = [  # (module, old name, new object)
    (skdp, "LedgerError", store.StoreError),
    (skdp, "LedgerLockedError", store.StoreLockedError),
    (skdp.privacy, "LedgerError", store.StoreError),
    (skdp.privacy, "LedgerLockedError", store.StoreLockedError),
    (accountant, "LedgerError", store.StoreError),
    (accountant, "LedgerLockedError", store.StoreLockedError),
]


@pytest.mark.parametrize("module, name, new", OLD, ids=lambda v: getattr(v, "__name__", v))
def test_the_old_names_are_the_new_objects_with_a_warning(module, name, new):
    with pytest.warns(FutureWarning, match=new.__name__):
        assert getattr(module, name) is new


@pytest.mark.parametrize("old, new", [
    ("LedgerStore", store.BudgetStore), ("LedgerError", store.StoreError),
    ("LedgerLockedError", store.StoreLockedError), ("ledger_name", store.store_name),
    ("decode_parts", store.decode_parts), ("STATUSES", store.STATUSES)])
def test_the_old_store_module_serves_every_name(old, new):
    from skdp.privacy import ledger_store
    with pytest.warns(FutureWarning, match="skdp.privacy.store"):
        assert getattr(ledger_store, old) is new


@pytest.mark.parametrize("old, new", [
    ("PostgresLedgerStore", "PostgresBudgetStore"),
    ("LedgerPermissionError", "StorePermissionError"),
    ("LedgerClientMissing", "StoreClientMissing"), ("schema_sql", "schema_sql")])
def test_the_old_postgres_module_serves_every_name(old, new):
    from skdp.privacy import ledger_postgres
    with pytest.warns(FutureWarning, match="skdp.privacy.store_postgres"):
        assert getattr(ledger_postgres, old) is getattr(store_postgres, new)


def test_the_new_names_are_exported_and_the_errors_keep_their_bases():
    assert {"StoreError", "StoreLockedError"} <= set(skdp.__all__) & set(skdp.privacy.__all__)
    assert "LedgerError" not in skdp.__all__
    assert issubclass(store.StoreLockedError, store.StoreError)
    assert issubclass(store_postgres.StorePermissionError, store.StoreError)
    assert issubclass(store_postgres.PostgresBudgetStore, store.BudgetStore)


def test_an_old_except_clause_still_catches_the_store_error(tmp_path):
    path = tmp_path / "plain.txt"
    path.write_text("not a database at all, but long enough to read")
    with pytest.warns(FutureWarning):
        old = skdp.LedgerError
    with pytest.raises(old, match="not an SQLite file"):
        BudgetAccountant(1.0, 1e-6, store=path, dataset="d")

