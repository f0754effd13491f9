"""Deprecated alias of :mod:`skdp.privacy.store_postgres` (the module and its names were renamed).

Every name of :mod:`skdp.privacy.store_postgres` is served from here with a
``FutureWarning``, the old names (``PostgresLedgerStore``,
``LedgerPermissionError``, ``LedgerClientMissing``) included, so that old
imports (and stores pickled under the old path) keep working; import from
:mod:`skdp.privacy.store_postgres` instead. Removed in the next release.
"""

import warnings

from . import store_postgres as _new

RENAMED = {"PostgresLedgerStore": "PostgresBudgetStore",
           "LedgerPermissionError": "StorePermissionError",
           "LedgerClientMissing": "StoreClientMissing"}


def __getattr__(name):
    new = RENAMED.get(name, name)
    value = getattr(_new, new)
    warnings.warn(f"skdp.privacy.ledger_postgres is deprecated (renamed "
                  f"skdp.privacy.store_postgres); import {new} from skdp.privacy.store_postgres "
                  "instead" + ("" if new == name else f" ({name} was renamed {new})") + ".",
                  FutureWarning, stacklevel=2)
    return value
