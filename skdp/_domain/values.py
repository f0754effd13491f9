"""Values of a domain: comparison keys, missing values, what a dtype alone says.

Categories compare by value (:func:`value_key`): numbers by their exact
value (``1 == 1.0``), booleans by themselves (``True`` is not ``1``), other
objects by equality.
"""

from numbers import Integral, Real

import numpy as np

__all__ = ["OTHER", "value_key", "missing_mask", "dtype_categories", "holds_missing",
           "is_numeric", "is_integer"]

OTHER = "<other>"


def value_key(v):
    """Hashable comparison key: numbers by exact value, booleans apart, others by themselves."""
    if isinstance(v, (bool, np.bool_)):
        return ("b", bool(v))
    if isinstance(v, Integral):
        return ("n", int(v))
    if isinstance(v, Real):
        return ("n", float(v))
    if isinstance(v, str):
        return ("o", str(v))
    return ("o", v)


def _canonical(key):
    """The released value of a key: a function of the key alone (not of the data's spelling)."""
    tag, v = key
    if tag == "n" and isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _order(key):
    tag, v = key
    return (tag, v if tag in "bn" else (type(v).__name__, str(v)))


def _is_missing(v):
    if v is None or type(v).__name__ == "NAType":
        return True
    try:
        return bool(v != v)
    except (TypeError, ValueError):
        return False


def missing_mask(values):
    """Boolean mask of the missing values (None, NaN, pandas NA / NaT) of a 1-D array."""
    values = np.asarray(values)
    if values.dtype.kind in "fc":
        return np.isnan(values)
    if values.dtype.kind in "mM":
        return np.isnat(values)
    if values.dtype.kind != "O":
        return np.zeros(len(values), dtype=bool)
    return np.fromiter(map(_is_missing, values), dtype=bool, count=len(values))


def _as_float(values, name):
    """Values of a numeric column as float64; a non-number raises without echoing it."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"column {name!r} has a value that is not a number, but its domain is "
                         "numeric (bounds or kind 'numeric'); the value is not shown: it is "
                         "private.") from None



# ---------------------------------------------------------------------------
# Dtypes: what the dtype alone says (public)
# ---------------------------------------------------------------------------
def _kind_letter(dtype):
    return getattr(dtype, "kind", "O")


def _is_category(dtype):
    return getattr(dtype, "name", "") == "category"


def dtype_categories(dtype):
    """Categories fixed by the dtype: bool (also pandas 'boolean') and pandas category."""
    if _is_category(dtype):
        return list(dtype.categories)
    if _kind_letter(dtype) == "b":
        return [False, True]
    return None


def holds_missing(dtype):
    """Whether a column of this dtype can hold a missing value (numpy int/bool/str cannot)."""
    if isinstance(dtype, np.dtype):
        return dtype.kind in "fcOMm"
    return True  # pandas extension dtypes: nullable, category, string


def is_numeric(dtype):
    return _kind_letter(dtype) in "iuf" and not _is_category(dtype)


def is_integer(dtype):
    return _kind_letter(dtype) in "iu" and not _is_category(dtype)



def _plain(v):
    return v.item() if isinstance(v, np.generic) else v



def _counts(values):
    """Count of each distinct value, by :func:`value_key`, in a fixed order."""
    counts = {}
    for v in values:
        k = value_key(v)
        counts[k] = counts.get(k, 0) + 1
    keys = sorted(counts, key=_order)
    return keys, np.array([counts[k] for k in keys], dtype=np.float64)


