"""A table's columns encoded on their public domain: flat indices of the dense domain ``Z``.

Public by construction, except where a column's domain is derived from the
data (:func:`derive_columns` warns: that domain is not private). The domains
found privately are released by the estimator
(``SaddlePointSynthesizer._private_domain``) between :func:`plan_columns` and
:func:`encode`.
"""

from itertools import combinations
import json
import math
from numbers import Integral
import os

import numpy as np

from .._domain import derive, missing_mask, parse_entry, plan_column
from .._domain.forbid import check_forbid, split_forbid
from .._validation import name_list, warn_privacy_leak
from ..solvers.synth.marginals import MAX_CELLS

__all__ = ["is_frame", "frame_names", "array_names", "complete", "load_domain", "load_forbid",
           "check_domain_entries", "plan_columns", "derive_columns", "workload_marginals",
           "check_size", "encode"]


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------
def is_frame(X):
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def frame_names(frame, feature_names):
    names = list(frame.columns)
    if len(set(map(str, names))) != len(names):
        raise ValueError(f"X has duplicate column names: {names}.")
    if feature_names is not None and list(map(str, feature_names)) != list(map(str, names)):
        raise ValueError(f"feature_names must be None for a DataFrame or equal its columns "
                         f"{names}, got {list(feature_names)}.")
    return names


def array_names(n_columns, feature_names):
    if feature_names is None:
        return list(range(n_columns))
    names = list(feature_names)
    if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names) \
            or len(names) != n_columns:
        raise ValueError(f"feature_names must be {n_columns} distinct strings (one per column "
                         f"of X), got {names!r}.")
    return names


def complete(values, names, missing, allow_empty=False):
    """Values after the ``missing`` rule: unchanged, refused, or complete rows only.

    ``allow_empty``: no error when no row is left (one partition of a Dask table, whose
    emptiness is checked on the whole table).
    """
    if missing == "keep" or not values:
        return values
    masks = [missing_mask(v) for v in values]
    if missing == "error":
        for name, mask in zip(names, masks):
            if mask.any():
                raise ValueError(f"column {name!r} has missing values (None/NaN/NA) and "
                                 "missing='error'; "
                                 "use missing='keep' (a missing cell) or 'drop'.")
        return values
    keep = ~np.logical_or.reduce(masks)
    if not keep.any() and not allow_empty:
        raise ValueError("every row has a missing value: missing='drop' leaves no row.")
    return [v[keep] for v in values]


# ---------------------------------------------------------------------------
# Domain
# ---------------------------------------------------------------------------
def _load(domain):
    if domain is None or (isinstance(domain, str) and domain == "private"):
        return {}
    if isinstance(domain, (str, os.PathLike)):
        with open(domain) as fh:
            domain = json.load(fh)
    if not isinstance(domain, dict):
        raise TypeError(f"domain must be a dict or a JSON file of one, got {type(domain)}.")
    return domain


def load_domain(domain):
    """The public domain dict's column entries (loaded from JSON when a path is given),
    without its structural zeros (:func:`load_forbid`)."""
    return split_forbid(_load(domain))[0]


def load_forbid(domain, n_bins=10, bin_strategy="uniform"):
    """The structural zeros of the ``domain`` parameter, checked against its entries
    (:func:`skdp._domain.forbid.check_forbid`; ``n_bins`` and ``bin_strategy``: the
    estimator's, for numeric intervals): a list of ``{column: category index or
    Interval}`` (``[]`` without any)."""
    entries, forbid = split_forbid(_load(domain))
    return check_forbid(entries, forbid, n_bins, bin_strategy) if forbid else []


def check_domain_entries(domain, n_bins=10, bin_strategy="uniform"):
    """Check every entry of the ``domain`` parameter on its own (no column of X is read).

    Bounds, categories and code counts are checked here, before the fit reserves its
    budget: a mistake in the parameter costs nothing. Whether the named columns exist
    is checked against X's columns later (:func:`plan_columns`).
    """
    for name, spec in load_domain(domain).items():
        parse_entry(name, spec)
    load_forbid(domain, n_bins, bin_strategy)


def check_domain_names(domain, names):
    """Refuse a ``domain`` that names a column X lacks, or one column twice.

    ``names`` are X's column names: a DataFrame's columns, ``feature_names``,
    or an array's column indices (its shape). They are the table's schema,
    not its rows: a fit checks them before it reserves its budget (issue 28),
    so a mistake in the parameter costs nothing.

    Examples
    --------
    >>> check_domain_names({"a": 2}, ["a", "b"])
    {'a': 2}
    >>> check_domain_names({"c": 2}, ["a", "b"])
    Traceback (most recent call last):
    ...
    ValueError: domain names columns that X does not have: ['c']; X has ['a', 'b'].
    """
    given = load_domain(domain)
    known = {str(n) for n in names}
    unknown = [k for k in given if str(k) not in known]
    if unknown:
        raise ValueError(f"domain names columns that X does not have: {unknown}; X has "
                         f"{list(names)}.")
    if len({str(k) for k in given}) != len(given):
        raise ValueError(f"domain names a column twice: {list(given)}.")
    return given


def plan_columns(columns, domain, n_bins, missing):
    """Public part of every column's domain (entries, dtypes); how the rest is found."""
    given = check_domain_names(domain, [c.name for c in columns])
    names = {str(c.name): j for j, c in enumerate(columns)}
    entries = {names[str(k)]: parse_entry(columns[names[str(k)]].name, spec)
               for k, spec in given.items()}
    private = isinstance(domain, str) and domain == "private"
    how = [plan_column(c, entries.get(j), n_bins, private, missing == "keep")
           for j, c in enumerate(columns)]
    from_dtype = [c.name for c in columns if getattr(c, "source", None) == "dtype"
                  and getattr(c.dtype, "name", "") == "category"]
    if from_dtype:  # astype('category') takes its categories from the values
        warn_privacy_leak(
            f"The domain of column(s) {name_list(from_dtype)} (the categories of their pandas "
            "category dtype, which `astype('category')` reads from the values)",
            "If the categories are public, list them in `domain` for these columns, or use "
            "domain='private'.")
    return how


def derive_columns(columns, values, how, n_bins):
    """Domains of the columns planned ``'data'``, derived from the values (not private)."""
    derived = [(c, v) for c, v, h in zip(columns, values, how) if h == "data"]
    for col, v in derived:
        derive(col, v[~missing_mask(v)], n_bins)
    if derived:
        warn_privacy_leak(f"The domain of column(s) {name_list(c.name for c, _ in derived)}",
                          "Pass the public categories or bounds of every column as "
                          "`domain` (or use domain='private').")


def workload_marginals(columns, workload):
    """The workload as sorted tuples of column indices."""
    d = len(columns)
    if isinstance(workload, Integral):
        k = min(int(workload), d)
        return [tuple(m) for m in combinations(range(d), k)]
    out = []
    names = [str(c.name) for c in columns]
    for tup in workload:
        tup = (tup,) if not isinstance(tup, (list, tuple)) else tup
        idx = []
        for name in tup:
            if str(name) in names:
                idx.append(names.index(str(name)))
            elif isinstance(name, Integral) and 0 <= int(name) < d:
                idx.append(int(name))
            else:
                raise ValueError(f"workload names an unknown column {name!r}.")
        if not idx or len(set(idx)) != len(idx):
            raise ValueError(f"workload entry {tup!r} must name distinct columns.")
        out.append(tuple(sorted(idx)))
    if not out:
        raise ValueError("workload must list at least one marginal.")
    return out


def check_size(columns, shape, n_bins):
    cells = math.prod(shape) if shape else 1
    if cells > MAX_CELLS:
        detail = ", ".join(f"{c.name!r}: {c.cardinality}" for c in columns)
        raise ValueError(
            f"the domain has {cells:.3g} cells ({detail}), more than the {MAX_CELLS:.0e} the "
            f"dense histogram supports. Shrink it: fewer bins (n_bins={n_bins} now), fewer "
            "columns, or merge categories in `domain`.")


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------
def encode(columns, values, shape):
    """Flat index in ``Z`` (int64) of every record: its column codes, raveled."""
    codes = [c.encode(v) for c, v in zip(columns, values)]
    records = np.ravel_multi_index(codes, shape) if shape else np.zeros(len(values[0]), int)
    return records.astype(np.int64)
