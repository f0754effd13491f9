"""A column's domain (:class:`Column`): planned from its entry or dtype, encoded, decoded.

One private value must not change the shape or the type of the release
(issue 15, item 2): a column's domain comes from its ``domain`` entry or its
dtype (:func:`plan_column`), never from its values, except the columns whose
domain is found privately (:mod:`skdp._domain.private`) or derived from the
data (:func:`derive`, a leak the caller warns).
"""

from dataclasses import dataclass, field, replace
import math

import numpy as np

from .fine import FineGrid
from .values import (OTHER, _as_float, _canonical, _counts, _is_category, _is_missing, _plain,
                     dtype_categories, holds_missing, is_integer, is_numeric, missing_mask,
                     value_key)

__all__ = ["Column", "derive", "plan_column"]


@dataclass
class Column:
    """One column's domain: categories, or bounds cut into bins; plus a missing cell (last).

    A compressed column (:meth:`compress`) maps its categories to fewer cells
    (``cells``: category index -> cell; the last cell before the missing one
    merges the rest, decoded in proportion to ``weights``; the categories in
    ``protect``, named by structural zeros, always keep a cell of their own:
    :mod:`.forbid`); a numeric column
    with ``edges`` has those bin edges (quantile bins) instead of equal bins;
    ``spike_starts``: the edges among them that
    :func:`~skdp._domain.fine_bins.spike_edges` added at released spikes (public: released
    values only; empty otherwise), whose spikes' noisy counts go to their own bins in the
    fine release's measurement (:meth:`~skdp._domain.fine.FineGrid.bin_counts`).
    """

    name: object
    dtype: object
    kind: str = "categorical"
    categories: list | None = None
    low: float = 0.0
    high: float = 1.0
    n_bins: int = 1
    integer: bool = False
    missing: bool = False
    source: str = "given"
    index: dict | None = field(default=None, repr=False)
    cells: np.ndarray | None = field(default=None, repr=False)
    weights: np.ndarray | None = field(default=None, repr=False)
    edges: np.ndarray | None = field(default=None, repr=False)
    fine: FineGrid | None = field(default=None, repr=False)
    protect: tuple = field(default=(), repr=False)
    spike_starts: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

    @property
    def categorical(self):
        return self.kind == "categorical"

    @property
    def cardinality(self):
        size = self.n_bins
        if self.categorical:
            size = len(self.categories) if self.cells is None else int(self.cells.max()) + 1
        return size + int(self.missing)

    def compress(self, kept, weights):
        """Keep the categories at indices ``kept`` as cells of their own (in their order) and
        merge the others into one last cell, decoded in proportion to ``weights`` (McKenna,
        Miklau, Sheldon 2021, §4). Post-processing of released counts: public. The
        categories of ``protect`` (public: named by structural zeros) are kept too."""
        kept = np.union1d(np.asarray(kept, dtype=np.int64),
                          np.asarray(self.protect, dtype=np.int64))
        if len(kept) == len(self.categories):  # every category kept: no merged cell
            return
        self.cells = np.full(len(self.categories), len(kept), dtype=np.int64)
        self.cells[kept] = np.arange(len(kept))
        self.weights = np.clip(np.asarray(weights, dtype=np.float64), 0.0, None)

    def compression(self):
        """The compression map: the kept categories (cells ``0 .. k-1``), the merged ones
        (cell ``k``) and the weights the merged ones are sampled back with."""
        merged = np.flatnonzero(self.cells == self.cells.max())
        kept = np.flatnonzero(self.cells < self.cells.max())
        return {"categories": [_plain(self.categories[i]) for i in kept],
                "merged": [_plain(self.categories[i]) for i in merged],
                "weights": self.weights[merged].tolist()}

    def describe(self):
        """The entry in its JSON-serialisable dict form (reusable as a domain entry)."""
        if self.categorical:
            return {"categories": [_plain(c) for c in self.categories], "missing": self.missing}
        return {"low": self.low, "high": self.high, "n_bins": self.n_bins,
                "integer": self.integer, "missing": self.missing}

    def encode(self, values):
        """Cell index of every value; a value outside the domain raises (column named only)."""
        return self.encode_prepared(self.prepare(values))

    def prepare(self, values):
        """The values in the form the counts and codes are computed from: the category index
        (:meth:`category_index`) of a categorical column, the float64 values of a numeric
        one (missing: NaN). Raises as :meth:`encode` on a value outside the domain or a
        missing value without a missing cell."""
        if self.categorical:
            return self.category_index(values)
        miss = missing_mask(values)
        out = _as_float(np.where(miss, 0.0, values) if miss.any() else values, self.name)
        if miss.any():
            self._missing_code()  # raises when there is no missing cell
            out = out.copy()
            out[miss] = np.nan
        return out

    def encode_prepared(self, prepared):
        """Cell index of every value given as :meth:`prepare` returns them."""
        if not self.categorical:
            miss = np.isnan(prepared)
            codes = self._encode_bins(np.where(miss, 0.0, prepared) if miss.any() else prepared)
            if miss.any():
                codes[miss] = self._missing_code()
            return codes
        if self.cells is None:
            return prepared
        return np.append(self.cells, self.cardinality - 1)[prepared]

    def category_index(self, values):
        """Index of every value among the categories (before any compression); a missing
        value gets ``len(categories)``.

        Each distinct value is looked up once: through ``np.unique`` for arrays of
        numbers, booleans or strings, through a cache of ``(type, value)`` for objects.
        """
        if self.index is None:
            self.index = {value_key(c): i for i, c in enumerate(self.categories)}
        other = self.index.get(value_key(OTHER))
        values = np.asarray(values) if not isinstance(values, np.ndarray) else values
        if values.dtype.kind in "biufUS":
            distinct, inverse = np.unique(values, return_inverse=True)
            codes = [self._code(v, other) for v in distinct.tolist()]
            return np.asarray(codes, dtype=np.int64)[inverse.ravel()]
        codes = np.empty(len(values), dtype=np.int64)
        seen = {}
        for i, v in enumerate(values):
            try:
                code = seen[(type(v), v)]
            except KeyError:
                code = seen[(type(v), v)] = self._code(v, other)
            except TypeError:  # unhashable: looked up alone
                code = self._code(v, other)
            codes[i] = code
        return codes

    def _code(self, v, other):
        code = self.index.get(value_key(v))
        return self._unlisted(v, other) if code is None else code

    def _unlisted(self, v, other):
        if _is_missing(v):
            self._missing_code()  # raises when there is no missing cell
            return len(self.categories)
        if other is not None:
            return other
        raise ValueError(f"column {self.name!r} has a value that is not among its "
                         f"{len(self.categories)} domain categories (the value is not shown: it "
                         "is private); add the column's public categories to `domain`.")

    def _missing_code(self):
        if not self.missing:
            raise ValueError(f"column {self.name!r} has a missing value, but its domain has no "
                             "missing-value cell (its dtype cannot hold one, missing= is not "
                             "'keep', or its entry says \"missing\": false); pass missing='drop' "
                             "or \"missing\": true.")
        return self.cardinality - 1

    def _encode_bins(self, v):
        if self.n_bins == 1 or self.high <= self.low:
            return np.zeros(len(v), dtype=np.int64)
        if self.edges is not None:
            pos = np.searchsorted(self.edges[1:-1], v, side="right")
            return pos.astype(np.int64)
        low, high = self.low, self.high
        v = np.clip(v, low, high)  # values outside the bounds fall in the end bins
        if not math.isfinite(high - low):  # the span overflows: the same bins, halved
            v, low, high = v / 2, low / 2, high / 2
        pos = np.floor((v - low) / (high - low) * self.n_bins)
        return np.clip(pos, 0, self.n_bins - 1).astype(np.int64)

    def decode(self, codes, rng):
        """Values of cell indices: the category, or a value in the bin (drawn from the
        released fine grid within the bin when the column has one, :mod:`.fine`; else
        uniformly); the missing cell gives None (categories) or NaN (numeric)."""
        if self.categorical:
            return self._decode_categories(codes, rng)
        na = codes == self.n_bins if self.missing else None
        bins = np.minimum(codes, self.n_bins - 1)
        if self.fine is not None and self.fine.counts is not None:
            values = self.fine.decode(self, bins, rng, self._decode_bins)
        else:
            values = self._decode_bins(bins, rng)
        if na is not None:
            values[na] = np.nan
        return values

    def _decode_categories(self, codes, rng):
        if self.cells is None:
            cats = np.empty(self.cardinality, dtype=object)
            cats[:len(self.categories)] = self.categories
            return cats[codes]
        k = int(self.cells.max())  # the merged cell
        cells = np.empty(self.cardinality, dtype=object)
        cells[:k] = [self.categories[i] for i in np.flatnonzero(self.cells < k)]
        out = cells[codes]
        merged = codes == k
        if merged.any():
            out[merged] = self._draw_merged(int(merged.sum()), rng)
        return out

    def _draw_merged(self, size, rng):
        """Categories of the merged cell, drawn in proportion to their noisy counts
        (uniformly when all are 0): post-processing with the public sampling generator."""
        merged = np.flatnonzero(self.cells == self.cells.max())
        w = self.weights[merged]
        cum = np.cumsum(w if w.sum() > 0 else np.ones(len(merged)))
        pick = np.searchsorted(cum, rng.uniform(size=size) * cum[-1], side="right")
        out = np.empty(size, dtype=object)
        out[:] = [self.categories[i] for i in merged[np.minimum(pick, len(merged) - 1)]]
        return out

    def _decode_bins(self, codes, rng):
        if self.edges is not None:
            left = self.edges[codes]
            width = self.edges[codes + 1] - left
        elif not math.isfinite(self.high - self.low):  # the span overflows: decode halved
            return 2 * replace(self, low=self.low / 2, high=self.high / 2)._decode_bins(codes, rng)
        else:
            width = (self.high - self.low) / self.n_bins
            left = self.low + codes * width
        if not self.integer:  # inside [left, right): a rounded-up draw kept below the edge
            with np.errstate(over="ignore"):  # a right edge past the largest float: inf
                right = self.edges[codes + 1] if self.edges is not None else left + width
            inside = np.minimum(left + rng.uniform(size=len(codes)) * width,
                                np.nextafter(right, -np.inf))
            return np.where(right > left, inside, left)  # a bin of width 0: its one value
        lo = np.ceil(left)
        hi = np.where(codes == self.n_bins - 1, np.floor(self.high), np.ceil(left + width) - 1)
        mid = np.round(left + width / 2)
        draw = lo + np.floor(rng.uniform(size=len(codes)) * np.maximum(hi - lo + 1, 1))
        return np.where(hi >= lo, draw, mid)




def plan_column(col, entry, n_bins, find_privately, keep_missing):
    """Set a column's public domain from its entry, else its dtype; no value is read.

    Returns how the rest is found: ``'public'`` (nothing left), ``'private'``
    (categories or bounds from noisy counts) or ``'data'`` (derived: a leak).
    """
    entry = entry or {}
    col.missing = _missing_cell(col, entry, keep_missing)
    col.integer = is_integer(col.dtype) or entry.get("integer", False)
    col.n_bins = entry.get("n_bins", n_bins)
    if "categories" in entry:
        col.kind, col.categories = "categorical", entry["categories"]
        return "public"
    if "low" in entry:
        col.kind, col.low, col.high = "numeric", entry["low"], entry["high"]
        col.n_bins = 1 if col.high == col.low else col.n_bins
        return "public"
    if "kind" in entry:
        col.kind = entry["kind"]
        return "private"
    cats = dtype_categories(col.dtype)
    if cats is not None and not (find_privately and _is_category(col.dtype)):
        # bool's categories are public; a pandas category dtype's may have been read from the
        # values (astype('category')): used as given, with a warning (plan_columns), unless
        # the domain is found privately, where they are found privately as any column's
        col.kind, col.categories, col.source = "categorical", cats, "dtype"
        return "public"
    col.kind = "numeric" if is_numeric(col.dtype) else "categorical"
    return "private" if find_privately else "data"


def _missing_cell(col, entry, keep_missing):
    if "missing" not in entry:
        return keep_missing and holds_missing(col.dtype)
    if entry["missing"] and not holds_missing(col.dtype):
        raise ValueError(f"column {col.name!r} has dtype {col.dtype}, which cannot hold a missing "
                         "value: its domain entry cannot say \"missing\": true.")
    return entry["missing"]



def derive(col, values, n_bins):
    """Domain taken from the (non-missing) values: not private, the caller warns."""
    col.source = "data"
    if col.categorical:
        col.categories = [_canonical(k) for k in _counts(values)[0]]
        return
    v = _as_float(values, col.name)
    if not np.all(np.isfinite(v)):
        raise ValueError(f"Input X contains infinity in column {col.name!r}: its derived domain "
                         "needs finite bounds (give them in `domain`).")
    if is_integer(col.dtype):  # the exact integers: float64 rounds beyond 2**53
        exact = np.unique(np.asarray(values))
        if len(exact) <= n_bins:
            col.kind, col.categories = "categorical", [int(u) for u in exact]
            return
    col.low, col.high = (float(v.min()), float(v.max())) if v.size else (0.0, 0.0)
    col.n_bins = 1 if col.high == col.low else n_bins


