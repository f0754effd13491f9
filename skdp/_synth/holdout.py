"""The synthetic rows' marginal error against a held-out table, at the user's bins.

Shared by the command line's ``--holdout`` and the release report (:mod:`.report`).

A curator judges a release by the histograms and cross-tabs a user will draw, not
by the synthesizer's own bins (issue 30: a figure at the synthesizer's bins hid
errors several times larger at the quantile bins of the data). So the error is
reported on bins of the *holdout*: each numeric column cut into equal bins between
the holdout's extremes and into bins at the holdout's quantiles, at several
resolutions; a categorical column keeps its categories; a missing value is a cell
of its own. For each binning: the mean and max total variation distance of the
1-, 2- and 3-way marginals (2- and 3-way: every pair or triple, or
:data:`MAX_MARGINALS` of them drawn by a fixed public seed), and for reference the
error of independent columns (the product of the holdout's own 1-way marginals),
computed from the holdout alone.

Privacy: computed from the synthetic rows (a release) and the holdout file only;
the training rows are never read here. The holdout is data the curator holds: the
report is for the curator, like the holdout file itself.
"""

import math
from itertools import combinations

import numpy as np

from .._domain import value_key

__all__ = ["RESOLUTIONS", "MAX_MARGINALS", "MAX_ROWS", "binned_errors"]

RESOLUTIONS = (("equal", 5), ("equal", 10), ("equal", 20),
               ("quantile", 5), ("quantile", 10), ("quantile", 20))
"""The user-side binnings of a numeric column: (kind, number of bins) on the holdout."""

MAX_MARGINALS = 500
"""At most this many 2-way and 3-way marginals each (drawn by a fixed public seed)."""

MAX_ROWS = 200_000
"""At most this many synthetic rows enter the report (the first ones written: a sample)."""


def _is_missing(v):
    if v is None or type(v).__name__ in ("NAType", "NaTType"):  # before v != v: NA raises
        return True
    try:
        return bool(v != v)
    except (TypeError, ValueError):
        return False


def _numeric(entry):
    return isinstance(entry, dict) and "categories" not in entry


def _category_codes(columns):
    """Codes of a categorical column over the holdout and the synthetic rows together
    (in order of first appearance; a missing value is a code of its own).

    Each distinct ``(type, value)`` is keyed once, by :func:`value_key` (``1 == 1.0``, but
    ``True`` is not ``1``), a missing one by :func:`_is_missing`.
    """
    index, out = {}, []
    for values in columns:
        local = {}
        raw = np.fromiter((local.setdefault((v.__class__, v), len(local)) for v in values),
                          dtype=np.int64, count=len(values))
        lut = np.array([index.setdefault(_category_key(v), len(index)) for _, v in local],
                       dtype=np.int64)
        out.append(lut[raw] if len(raw) else np.zeros(0, dtype=np.int64))
    return out, len(index)


def _category_key(v):
    return ("<missing>",) if _is_missing(v) else value_key(v)


def _floats(values):
    """The values as float64, NaN where missing (``None``, NaN, ``pd.NA``, ``NaT``)."""
    values = np.asarray(values, dtype=object)
    try:
        none = np.equal(values, None).astype(bool)
        out = np.where(none, np.nan, values).astype(np.float64)
    except (TypeError, ValueError):  # pd.NA, NaT, ...: one by one
        out = np.full(len(values), np.nan)
        for i, v in enumerate(values):
            if not _is_missing(v):
                out[i] = float(v)
    return out


def _edges(hold, kind, k):
    """Interior bin edges of the holdout's non-missing values (an empty list: one bin)."""
    v = hold[~np.isnan(hold)]
    if v.size == 0:
        return np.array([])
    if kind == "equal":
        low, high = float(v.min()), float(v.max())
        return np.linspace(low, high, k + 1)[1:-1] if high > low else np.array([])
    return np.unique(np.quantile(v, np.linspace(0, 1, k + 1)[1:-1]))


def _bin_codes(values, edges):
    codes = np.searchsorted(edges, np.where(np.isnan(values), 0.0, values), side="right")
    return np.where(np.isnan(values), len(edges) + 1, codes).astype(np.int64)


CHUNK_ROWS = 1 << 16
"""The marginals of one way are counted together in chunks of at most this many row
entries (rows x marginals; one marginal at least), and :data:`CHUNK_CELLS` cells (the
sum of their sizes): small enough for the cache, where counting is fastest."""

CHUNK_CELLS = 1 << 18

SPARSE_CELLS = 1 << 22
"""A marginal with more cells than this (columns of many categories: identifiers,
timestamps, free text) is counted on the cells that occur only (:func:`_sparse_scores`),
not laid out whole (two identifier columns of 50,000 values each: 2.5e9 cells)."""


def _scores(a, b, marginals, shape, independent):
    """Per marginal of ``marginals`` (``(m, way)`` column indices): the total variation
    between the synthetic ``a`` and holdout ``b`` code tables, and (``independent``) the
    holdout's own against the product of its 1-way marginals (NaN otherwise).

    Vectorised: the marginals of a chunk are counted by one ``bincount`` over the cells
    of all of them laid end to end (each marginal's cells in ``ravel_multi_index``
    order), and the TVs summed per marginal by ``np.add.reduceat``.
    """
    marginals = np.asarray(marginals, dtype=np.int64).reshape(len(marginals), -1)
    shape = np.asarray(shape, dtype=np.int64)
    na, nb = max(len(a), 1), max(len(b), 1)
    rows = max(len(a), len(b), 1)
    ones = [np.bincount(b[:, j], minlength=shape[j]) / len(b) for j in range(len(shape))] \
        if independent else None
    sizes = np.array([math.prod(int(s) for s in shape[m]) for m in marginals], dtype=np.int64)
    dtype = np.int32 if sizes.sum(initial=0) < 2**31 else np.int64
    a, b = (np.ascontiguousarray(t.T, dtype=dtype) for t in (a, b))  # columns by rows
    tv, base = np.empty(len(marginals)), np.full(len(marginals), math.nan)
    start = 0
    while start < len(marginals):
        if sizes[start] > SPARSE_CELLS:
            tv[start], base[start] = _sparse_scores(a, b, marginals[start], shape, ones)
            start += 1
            continue
        stop = start + 1
        cells = sizes[start]
        while stop < len(marginals) and cells + sizes[stop] <= CHUNK_CELLS \
                and sizes[stop] <= SPARSE_CELLS and (stop - start + 1) * rows <= CHUNK_ROWS:
            cells, stop = cells + sizes[stop], stop + 1
        chunk = marginals[start:stop]
        sub = shape[chunk]                                   # (m, way)
        strides = np.cumprod(np.concatenate([np.ones((len(chunk), 1), np.int64),
                                             sub[:, :0:-1]], axis=1),
                             axis=1)[:, ::-1].astype(dtype)  # C order, as ravel_multi_index
        offsets = np.concatenate([[0], np.cumsum(sizes[start:stop])]).astype(dtype)
        pa = _counts(a, chunk, strides, offsets) / na
        pb = _counts(b, chunk, strides, offsets) / nb
        tv[start:stop] = 0.5 * np.add.reduceat(np.abs(pa - pb), offsets[:-1])
        if independent:
            prod = _product(ones, chunk)
            base[start:stop] = 0.5 * np.add.reduceat(np.abs(prod - pb), offsets[:-1])
        start = stop
    return tv, base


def _sparse_scores(a, b, cols, shape, ones):
    """:func:`_scores` for one marginal ``cols`` of too many cells to lay out: counted on
    the cells that occur in ``a`` or ``b`` (columns by rows); exact. The independent
    baseline (``ones`` not None) adds the product's mass off the holdout's cells, where
    the holdout's share is 0: ``1 - `` the product's sum on them."""
    na, nb = a.shape[1], b.shape[1]
    cells, inverse = np.unique(np.concatenate([a[cols], b[cols]], axis=1), axis=1,
                               return_inverse=True)
    inverse = inverse.ravel()
    pa = np.bincount(inverse[:na], minlength=cells.shape[1]) / max(na, 1)
    pb = np.bincount(inverse[na:], minlength=cells.shape[1]) / max(nb, 1)
    tv = 0.5 * float(np.abs(pa - pb).sum())
    if ones is None:
        return tv, math.nan
    seen = pb > 0
    prod = np.ones(int(seen.sum()))
    for k, j in enumerate(cols):
        prod = prod * ones[j][cells[k, seen]]
    return tv, 0.5 * float(np.abs(prod - pb[seen]).sum() + max(0.0, 1.0 - prod.sum()))


def _counts(codes, chunk, strides, offsets):
    """The counts of ``codes`` (columns by rows, contiguous) on the cells of every marginal
    of ``chunk``, end to end."""
    flat = codes[chunk[:, 0]] * strides[:, :1]
    for k in range(1, chunk.shape[1]):
        flat += codes[chunk[:, k]] * strides[:, k:k + 1]
    flat += offsets[:-1, None]
    return np.bincount(flat.ravel(), minlength=int(offsets[-1]))


def _product(ones, chunk):
    """The product of the holdout's 1-way marginals ``ones`` on the cells of every
    marginal of ``chunk``, end to end (``np.multiply.outer`` in column order)."""
    out = []
    for cols in chunk:
        prod = ones[cols[0]]
        for j in cols[1:]:
            prod = np.multiply.outer(prod, ones[j])
        out.append(prod.ravel())
    return np.concatenate(out)


def _marginals(d, way, rng):
    n = math.comb(d, way)
    if n <= MAX_MARGINALS:
        return list(combinations(range(d), way))
    seen = set()
    while len(seen) < MAX_MARGINALS:
        seen.add(tuple(sorted(rng.choice(d, size=way, replace=False).tolist())))
    return sorted(seen)


def binned_errors(synthetic, holdout, domain, header):
    """Per binning of :data:`RESOLUTIONS`: ``{way: (mean, max, independent mean)}``.

    ``synthetic`` and ``holdout``: object arrays of rows (``None`` or NaN: missing);
    ``domain``: the fitted ``domain_`` (which columns are numeric: public).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> h = np.array([[float(x), c] for x, c in zip(rng.normal(size=300),
    ...               rng.choice(["a", "b"], 300))], dtype=object)
    >>> out = binned_errors(h, h, {"x": {"low": -5, "high": 5}, "c": ["a", "b"]}, ["x", "c"])
    >>> out[("quantile", 10)][1][0], sorted(out[("quantile", 10)])
    (0.0, [1, 2])
    """
    synthetic, holdout = np.asarray(synthetic, dtype=object), np.asarray(holdout, dtype=object)
    d = len(header)
    numeric = [_numeric(domain[name]) for name in header]
    cats, cat_shape = {}, {}
    for j in range(d):
        if not numeric[j]:
            cats[j], cat_shape[j] = _category_codes([holdout[:, j], synthetic[:, j]])
    floats = {j: (_floats(holdout[:, j]), _floats(synthetic[:, j])) for j in range(d)
              if numeric[j]}
    rng = np.random.default_rng(0)  # public: which marginals are scored
    chosen = {way: _marginals(d, way, rng) for way in (1, 2, 3) if way <= d}
    out = {}
    for kind, k in RESOLUTIONS:
        hold_codes, syn_codes, shape = [], [], []
        for j in range(d):
            if numeric[j]:
                edges = _edges(floats[j][0], kind, k)
                hold_codes.append(_bin_codes(floats[j][0], edges))
                syn_codes.append(_bin_codes(floats[j][1], edges))
                shape.append(len(edges) + 2)
            else:
                hold_codes.append(cats[j][0])
                syn_codes.append(cats[j][1])
                shape.append(cat_shape[j])
        b, a = np.stack(hold_codes, axis=1), np.stack(syn_codes, axis=1)
        res = {}
        for way, marginals in chosen.items():
            errs, base = _scores(a, b, marginals, shape, independent=way > 1)
            res[way] = (float(np.mean(errs)), float(np.max(errs)), float(np.mean(base)))
        out[(kind, k)] = res
    return out
