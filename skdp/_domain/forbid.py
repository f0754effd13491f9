"""Structural zeros: combinations of values that cannot occur, declared in the domain.

A domain dict (the estimator's ``domain=``, the CLI's domain file) may hold,
beside its column entries, the key ``"forbid"``: a list of conjunctions, each
a dict ``{column: value, ...}``, e.g. ``{"pregnant": "yes", "sex": "male"}``.
Every record matching all the pairs of one conjunction is impossible: the
released distribution gives it probability 0 and no sample contains it.

They are public facts, like the rest of the domain: they come from the
domain, never from the data, and cost no budget. Each value is one of the
column's public categories (a list entry, ``{"categories": [...]}``) or
codes (an int ``k`` or ``{"codes": k}``); numeric columns (bounds) are
refused (their bins are not values a curator names). The data is not
checked against them: a row that matches a conjunction is the curator's
input error, and an error raised on it (or a count of such rows) would be
a release that depends on the private data. Such rows are counted by the
measurements as any other row; the estimate then puts no mass on their
cells and the sample never holds them.

Disambiguation: ``"forbid"`` is the structural zeros when its value is a
list of dicts (which no column entry can be: categories are strings,
numbers or booleans); any other value is the entry of a column named
``forbid``.
"""

import math

import numpy as np

from .parse import parse_entry
from .values import _is_missing, value_key

__all__ = ["FORBID", "allowed", "check_forbid", "forbid_masks", "forbid_protect", "full_mask",
           "is_forbid", "split_forbid"]

FORBID = "forbid"

_FORM = ('"forbid" must be a list of conjunctions, each a dict {column: value} (e.g. '
         '[{"pregnant": "yes", "sex": "male"}])')
ENUMERATE_CELLS = 10**6
"""The emptiness check enumerates the cells of each group of columns linked by forbid
entries up to this many (public cardinalities only)."""


def is_forbid(key, value):
    """Whether a domain dict's item is the structural zeros (see the module docstring)."""
    return key == FORBID and isinstance(value, list) and all(isinstance(v, dict) for v in value)


def split_forbid(domain):
    """``(entries, forbid)``: the column entries of a domain dict and its forbid list
    (``[]`` when it has none).

    Examples
    --------
    >>> split_forbid({"a": [0, 1], "forbid": [{"a": 1}]})
    ({'a': [0, 1]}, [{'a': 1}])
    >>> split_forbid({"forbid": ["x", "y"]})  # a column named forbid
    ({'forbid': ['x', 'y']}, [])
    """
    if not isinstance(domain, dict):
        return domain, []
    forbid = domain.get(FORBID)
    if FORBID in domain and is_forbid(FORBID, forbid):
        return {k: v for k, v in domain.items() if k != FORBID}, list(forbid)
    return domain, []


def _entry_values(name, spec):
    """The public values of a column entry for forbid: its categories or codes, else an
    error naming the column."""
    parsed = parse_entry(name, spec)
    if "categories" not in parsed:
        raise ValueError(f"forbid names column {name!r}, whose domain entry gives no "
                         "categories or codes: structural zeros take categories or codes "
                         "only (a list, {'categories': [...]}, an int k or {'codes': k}); "
                         "numeric bounds and kinds found privately are not accepted.")
    return list(parsed["categories"])


def check_forbid(entries, forbid):
    """Check the forbid list against the column entries (no data read); return it as a
    list of ``{column: category index}`` dicts (in the entries' category order).

    Errors name the column and the value (public: they come from the domain): an
    unknown column, a column without public categories, a value not among them, an
    empty conjunction, and a forbid that leaves a column (or a group of columns linked
    by forbid entries) no allowed value.

    Examples
    --------
    >>> entries = {"sex": ["female", "male"], "pregnant": ["no", "yes"]}
    >>> check_forbid(entries, [{"pregnant": "yes", "sex": "male"}])
    [{'pregnant': 1, 'sex': 1}]
    >>> check_forbid(entries, [{"sex": "other"}])
    Traceback (most recent call last):
    ...
    ValueError: forbid entry 0: 'other' is not among the categories of column 'sex' (2 of them).
    """
    if not isinstance(forbid, list):
        raise TypeError(f"{_FORM}; got a {type(forbid).__name__}.")
    keys = {str(k): k for k in entries}
    values, out = {}, []
    for i, conj in enumerate(forbid):
        if not isinstance(conj, dict) or not conj:
            raise ValueError(f"forbid entry {i}: {_FORM}; got {conj!r}.")
        cells = {}
        for name, value in conj.items():
            if str(name) not in keys:
                raise ValueError(f"forbid entry {i} names column {name!r}, which has no entry "
                                 f"in the domain (columns with entries: {list(entries)}); "
                                 "structural zeros need the column's public categories or "
                                 "codes.")
            key = keys[str(name)]
            if key not in values:
                cats = _entry_values(key, entries[key])
                values[key] = {value_key(c): j for j, c in enumerate(cats)}
            index = values[key].get(_key(value))
            if index is None:
                raise ValueError(f"forbid entry {i}: {value!r} is not among the categories of "
                                 f"column {key!r} ({len(values[key])} of them).")
            cells[key] = index
        out.append(cells)
    _check_not_empty({k: len(v) for k, v in values.items()}, out)
    return out


def _key(value):
    if _is_missing(value):
        return None  # never a category (missing values are a cell of their own)
    try:
        key = value_key(value)
        hash(key)
    except TypeError:
        return None
    return key


def _check_not_empty(sizes, conjunctions):
    """Refuse a forbid that removes every value of a column, or every combination of a
    group of columns linked by forbid entries (enumerated up to :data:`ENUMERATE_CELLS`)."""
    names = list(sizes)
    for name in names:
        single = {c[name] for c in conjunctions if list(c) == [name]}
        if len(single) == sizes[name]:
            raise ValueError(f"forbid removes every category of column {name!r}: a column "
                             "needs at least one allowed value.")
    parent = {n: n for n in names}

    def find(n):
        while parent[n] != n:
            n = parent[n]
        return n

    for c in conjunctions:
        first = find(next(iter(c)))
        for n in c:
            parent[find(n)] = first
    groups = {}
    for n in names:
        groups.setdefault(find(n), []).append(n)
    for group in groups.values():
        cells = math.prod(sizes[n] for n in group)
        if len(group) < 2 or cells > ENUMERATE_CELLS:
            continue
        mask = np.zeros([sizes[n] for n in group], dtype=bool)
        for c in conjunctions:
            if set(c) <= set(group):
                mask[tuple(c[n] if n in c else slice(None) for n in group)] = True
        if mask.all():
            raise ValueError(f"forbid removes every combination of the columns {group}: "
                             "some combination must stay allowed.")


def forbid_protect(columns, forbid):
    """Each column's category indices named by ``forbid`` (checked by :func:`check_forbid`):
    a compression must keep them as cells of their own. ``{column index: sorted list}``."""
    index = {str(c.name): j for j, c in enumerate(columns)}
    out = {}
    for conj in forbid:
        for name, cat in conj.items():
            out.setdefault(index[str(name)], set()).add(cat)
    return {j: sorted(v) for j, v in out.items()}


def forbid_masks(columns, forbid):
    """The structural zeros on the columns' cells: ``{cols: mask}``, ``cols`` a sorted
    tuple of column indices and ``mask`` a boolean array of shape ``[cardinality of c
    for c in cols]``, True on the forbidden cells (conjunctions on the same columns
    share one mask). ``forbid``: :func:`check_forbid`'s output; a compressed column
    maps its categories to their cells (the named ones keep cells of their own,
    :func:`forbid_protect`).

    Examples
    --------
    >>> from skdp._domain import Column
    >>> cols = [Column("sex", None, categories=["f", "m"]),
    ...         Column("pregnant", None, categories=["no", "yes"], missing=True)]
    >>> masks = forbid_masks(cols, [{"pregnant": 1, "sex": 1}])
    >>> list(masks), masks[(0, 1)].astype(int).tolist()
    ([(0, 1)], [[0, 0, 0], [0, 1, 0]])
    """
    index = {str(c.name): j for j, c in enumerate(columns)}
    out = {}
    for conj in forbid:
        cells = {}
        for name, cat in conj.items():
            j = index[str(name)]
            col = columns[j]
            cell = int(cat) if col.cells is None else int(col.cells[cat])
            if col.cells is not None and cell == int(col.cells.max()):
                raise RuntimeError(f"column {col.name!r}: a forbidden category was merged by "
                                   "the compression (it must keep a cell of its own).")
            cells[j] = cell
        cols = tuple(sorted(cells))
        if cols not in out:
            out[cols] = np.zeros([columns[j].cardinality for j in cols], dtype=bool)
        out[cols][tuple(cells[j] for j in cols)] = True
    return out


def full_mask(shape, masks):
    """The flat boolean mask over the dense domain ``shape`` of the forbidden cells of
    ``masks`` (:func:`forbid_masks`), or None without any.

    Examples
    --------
    >>> full_mask((2, 2), {(1,): np.array([False, True])}).tolist()
    [False, True, False, True]
    """
    if not masks:
        return None
    out = np.zeros(tuple(shape), dtype=bool)
    for cols, mask in masks.items():
        bshape = [shape[j] if j in cols else 1 for j in range(len(shape))]
        out |= mask.reshape(bshape)
    return out.reshape(-1)


def allowed(codes, masks):
    """Boolean per row of ``codes`` (shape (n, d)): whether the row avoids every forbidden
    cell of ``masks``.

    Examples
    --------
    >>> allowed(np.array([[0, 1], [1, 1]]), {(0, 1): np.array([[0, 0], [0, 1]], bool)})
    array([ True, False])
    """
    ok = np.ones(len(codes), dtype=bool)
    for cols, mask in masks.items():
        ok &= ~mask[tuple(codes[:, j] for j in cols)]
    return ok

