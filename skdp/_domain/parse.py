"""The one parser of a domain entry (the estimator's ``domain=`` and the CLI's domain files).

Entry forms (errors name the column, never a data value):

- a list: categories; an int ``k``: the codes ``0 .. k-1``; a tuple
  ``(low, high)``: numeric bounds;
- ``{"categories": [...]}``; ``{"codes": k}`` (the int form as a dict, so that
  it can say ``"missing": false``); ``{"low": l, "high": h}`` with optional
  ``"n_bins"`` and ``"integer"``; ``{"kind": "numeric"}`` (optional
  ``"integer"``, ``"n_bins"``) or ``{"kind": "categorical"}``: kind public,
  categories or bounds found privately; any dict may add ``"missing"`` and a
  ``"note"`` (a string for the reader of the file, e.g. a draft's remark on the
  column; it changes nothing).
"""

import math
from numbers import Integral, Real

import numpy as np

from .values import _is_missing, value_key

__all__ = ["code_count", "entry_form", "parse_entry"]

_KINDS = ("numeric", "categorical")
_FORMS = ("a list of categories, an int k (codes 0..k-1), (low, high) bounds, or a dict "
          "{'categories': [...]}, {'codes': k}, {'low': l, 'high': h[, 'n_bins': k][, "
          "'integer': bool]} or {'kind': 'numeric'|'categorical'}, each with an optional "
          "'missing': bool and 'note': str")
_FORM_KEYS = {"categories": {"categories", "missing", "note"},
              "codes": {"codes", "missing", "note"},
              "bounds": {"low", "high", "n_bins", "integer", "missing", "note"},
              "numeric": {"kind", "integer", "n_bins", "missing", "note"},
              "categorical": {"kind", "missing", "note"}}


def entry_form(name, spec, parsed=None):
    """The form of a domain entry, checked by :func:`parse_entry`: ``'codes'`` (an int or
    ``{"codes": k}``), ``'categories'``, ``'bounds'``, or ``'numeric'`` /
    ``'categorical'`` (kind only).
    ``parsed``: the entry as :func:`parse_entry` returned it (not parsed again).

    Examples
    --------
    >>> entry_form("k", 5), entry_form("c", ["a"]), entry_form("x", {"kind": "numeric"})
    ('codes', 'categories', 'numeric')
    >>> entry_form("k", {"codes": 5, "missing": False})
    'codes'
    """
    entry = parse_entry(name, spec) if parsed is None else parsed
    if code_count(spec) is not None:
        return "codes"
    if "categories" in entry:
        return "categories"
    return "bounds" if "low" in entry else entry["kind"]


def _is_int(value):
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def code_count(spec):
    """``k`` of a codes entry (``k`` or ``{"codes": k}``), else None (not checked: see
    :func:`parse_entry`).

    Examples
    --------
    >>> code_count(3), code_count({"codes": 3, "missing": False}), code_count(["a"])
    (3, 3, None)
    """
    if _is_int(spec):
        return int(spec)
    if isinstance(spec, dict) and "codes" in spec and _is_int(spec["codes"]):
        return int(spec["codes"])
    return None


def _codes(name, k):
    if not _is_int(k) or k < 1:
        raise ValueError(f"domain of column {name!r}: an int entry is a number of integer "
                         f"codes and must be >= 1, got {k!r}.")
    return {"categories": list(range(int(k)))}


def parse_entry(name, spec):
    """A domain entry in its dict form, checked; ValueError/TypeError naming the column."""
    if isinstance(spec, (list, np.ndarray)):
        return {"categories": _categories(name, list(spec))}
    if _is_int(spec):
        return _codes(name, spec)
    if isinstance(spec, tuple):
        if len(spec) != 2:
            raise ValueError(f"bounds of column {name!r} must be a (low, high) pair, got {spec!r}.")
        return _bounds(name, {"low": spec[0], "high": spec[1]})
    if isinstance(spec, dict):
        return _parse_dict(name, spec)
    raise TypeError(f"domain of column {name!r} must be {_FORMS}; got a "
                    f"{type(spec).__name__}.")


def _parse_dict(name, spec):
    keys = set(spec)
    if "categories" in keys:
        form = "categories"
    elif "codes" in keys:
        form = "codes"
    elif keys & {"low", "high"}:
        form = "bounds"
    elif "kind" in keys:
        form = spec["kind"]
        if not isinstance(form, str) or form not in _KINDS:
            raise ValueError(f"domain entry of column {name!r}: 'kind' must be 'numeric' or "
                             f"'categorical', got {form!r}.")
    else:
        raise ValueError(f"domain entry of column {name!r} has the keys {sorted(keys)}; it "
                         f"needs 'categories', 'codes', 'low' and 'high', or 'kind': it must be "
                         f"{_FORMS}.")
    unknown = sorted(map(str, keys - _FORM_KEYS[form]))
    if unknown:
        raise ValueError(f"domain entry of column {name!r}: unknown keys {unknown} for a "
                         f"{form} entry (allowed: {sorted(_FORM_KEYS[form])}).")
    entry = {k: _flag(name, k, spec[k]) for k in ("integer", "missing") if k in spec}
    if "n_bins" in spec:
        entry["n_bins"] = _n_bins(name, spec["n_bins"])
    if "note" in spec and not isinstance(spec["note"], str):
        raise TypeError(f"domain entry of column {name!r}: 'note' must be a string, got a "
                        f"{type(spec['note']).__name__}.")
    if form == "codes":
        return {**entry, **_codes(name, spec["codes"])}
    if form == "categories":
        cats = spec["categories"]
        if not isinstance(cats, (list, tuple, np.ndarray)):
            raise TypeError(f"categories of column {name!r} must be a list, got {cats!r}.")
        return {**entry, "categories": _categories(name, list(cats))}
    if form == "bounds":
        return {**entry, **_bounds(name, spec)}
    return {**entry, "kind": form}


def _flag(name, key, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"domain entry of column {name!r}: {key!r} must be true or false, got "
                        f"{value!r}.")
    return bool(value)


def _n_bins(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"domain entry of column {name!r}: 'n_bins' must be an int >= 1, got "
                         f"{value!r}.")
    return int(value)


def _bounds(name, spec):
    if "low" not in spec or "high" not in spec:
        raise ValueError(f"bounds of column {name!r} need both 'low' and 'high', got {spec!r}.")
    low, high = spec["low"], spec["high"]
    numbers = all(isinstance(b, Real) and not isinstance(b, (bool, np.bool_)) for b in (low, high))
    if not (numbers and math.isfinite(low) and math.isfinite(high) and high >= low):
        raise ValueError(f"bounds of column {name!r} must be finite numbers with low <= high, "
                         f"got low={low!r}, high={high!r}.")
    return {"low": float(low), "high": float(high)}


def _categories(name, cats):
    if not cats:
        raise ValueError(f"column {name!r} has an empty category list.")
    keys = []
    for c in cats:
        if _is_missing(c):
            raise ValueError(f"categories of column {name!r} contain a missing value (null/NaN): "
                             "write \"missing\": true in a dict entry instead.")
        if isinstance(c, Real) and not isinstance(c, (bool, np.bool_)) and \
                not math.isfinite(c):
            raise ValueError(f"categories of column {name!r} contain a non-finite number: "
                             "categories are strings, finite numbers or booleans.")
        try:
            keys.append(value_key(c))
            hash(keys[-1])
        except TypeError:
            raise TypeError(f"categories of column {name!r} must be strings, numbers or "
                            f"booleans, got {c!r}.") from None
    if len(set(keys)) != len(keys):
        raise ValueError(f"categories of column {name!r} repeat a value (one is listed twice; "
                         "numbers compare by value: 1 and 1.0 are the same category).")
    return cats

