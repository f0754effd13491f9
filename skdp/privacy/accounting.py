"""Deprecated alias of :mod:`skdp.privacy.ledger` (the module was renamed).

Every name of :mod:`skdp.privacy.ledger` is served from here with a
``FutureWarning``, so that old imports (and objects pickled under the old
path) keep working; import from :mod:`skdp.privacy` or
:mod:`skdp.privacy.ledger` instead.
"""

import warnings

from . import ledger as _new


def __getattr__(name):
    value = getattr(_new, name)
    warnings.warn(f"skdp.privacy.accounting is deprecated (renamed skdp.privacy.ledger); "
                  f"import {name} from skdp.privacy.ledger or skdp.privacy instead.",
                  FutureWarning, stacklevel=2)
    return value
