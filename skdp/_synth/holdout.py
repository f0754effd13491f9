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
    if v is None:
        return True
    try:
        return bool(v != v) or type(v).__name__ in ("NAType", "NaTType")
    except (TypeError, ValueError):
        return False


def _numeric(entry):
    return isinstance(entry, dict) and "categories" not in entry


def _category_codes(columns):
    """Codes of a categorical column over the holdout and the synthetic rows together."""
    index, out = {}, []
    for values in columns:
        codes = np.empty(len(values), dtype=np.int64)
        for i, v in enumerate(values):
            key = ("<missing>",) if _is_missing(v) else value_key(v)
            codes[i] = index.setdefault(key, len(index))
        out.append(codes)
    return out, len(index)


def _floats(values):
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


def _tv(a, b, cols, shape):
    """Total variation between the marginals on ``cols`` of two code tables."""
    sub = tuple(shape[j] for j in cols)
    size = math.prod(sub)
    pa = np.bincount(np.ravel_multi_index(tuple(a[:, j] for j in cols), sub), minlength=size)
    pb = np.bincount(np.ravel_multi_index(tuple(b[:, j] for j in cols), sub), minlength=size)
    return 0.5 * np.abs(pa / max(len(a), 1) - pb / max(len(b), 1)).sum(), pb / max(len(b), 1)


def _independent_tv(b, cols, shape, joint):
    """TV between the holdout's marginal on ``cols`` and the product of its 1-way ones."""
    prod = np.ones(1)
    for j in cols:
        prod = np.multiply.outer(prod, np.bincount(b[:, j], minlength=shape[j]) / len(b))
    return 0.5 * np.abs(prod.ravel() - joint).sum()


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
            errs, base = [], []
            for cols in marginals:
                tv, joint = _tv(a, b, cols, shape)
                errs.append(tv)
                base.append(_independent_tv(b, cols, shape, joint) if way > 1 else math.nan)
            res[way] = (float(np.mean(errs)), float(np.max(errs)), float(np.mean(base)))
        out[(kind, k)] = res
    return out
