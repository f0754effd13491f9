"""Deprecated alias of :mod:`skdp.privacy.repeat_and_select` (the module was renamed).

Every name of :mod:`skdp.privacy.repeat_and_select` is served from here with a
``FutureWarning``, so that old imports (and objects pickled under the old
path) keep working; import from :mod:`skdp.privacy` or
:mod:`skdp.privacy.repeat_and_select` instead.
"""

import warnings

from . import repeat_and_select as _new


def __getattr__(name):
    value = getattr(_new, name)
    warnings.warn(f"skdp.privacy.selection is deprecated (renamed skdp.privacy.repeat_and_select); "
                  f"import {name} from skdp.privacy.repeat_and_select or skdp.privacy instead.",
                  FutureWarning, stacklevel=2)
    return value
