"""Deprecated alias of :mod:`skdp.privacy.store` (the module and its names were renamed).

The accountant's storage is the *budget store*; "ledger" is the per-fit record of
mechanisms (:class:`~skdp.privacy.PrivacyLedger`). Every name of
:mod:`skdp.privacy.store` is served from here with a ``FutureWarning``, the old
names (``LedgerStore``, ``LedgerError``, ``LedgerLockedError``, ``ledger_name``)
included, so that old imports (and stores pickled under the old path) keep working;
import from :mod:`skdp.privacy.store` instead. Removed in the next release.
"""

import warnings

from . import store as _new

RENAMED = {"LedgerStore": "BudgetStore", "LedgerError": "StoreError",
           "LedgerLockedError": "StoreLockedError", "ledger_name": "store_name"}


def __getattr__(name):
    new = RENAMED.get(name, name)
    value = getattr(_new, new)
    warnings.warn(f"skdp.privacy.ledger_store is deprecated (renamed skdp.privacy.store); "
                  f"import {new} from skdp.privacy.store instead"
                  + ("" if new == name else f" ({name} was renamed {new})") + ".",
                  FutureWarning, stacklevel=2)
    return value
