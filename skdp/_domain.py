"""Column domains of :class:`~skdp.synthesizer.SaddlePointSynthesizer`.

A column's domain is public: its kind (categorical or numeric), its
categories or its bounds and bins, whether its values are integers and
whether it has a missing-value cell. All of these come from the column's
``domain`` entry or its dtype, never from its values: one private value must
not change the shape or the type of the release (issue 15, item 2). Only the
columns whose domain is found privately (a Gaussian-noised histogram) or
derived from the data (a warned leak) read values, and only for their
categories or bounds.

Entry forms (each validated by :func:`parse_entry`, errors name the column):

- a list: categories; an int ``k``: the codes ``0 .. k-1``; a tuple
  ``(low, high)``: numeric bounds;
- ``{"categories": [...]}``; ``{"low": l, "high": h}`` with optional
  ``"n_bins"`` and ``"integer"``; ``{"kind": "numeric"}`` (optional
  ``"integer"``, ``"n_bins"``) or ``{"kind": "categorical"}``: kind public,
  categories or bounds found privately; any dict may add ``"missing"``.

Large public domains are shrunk privately, each from one accounted Gaussian
release of 1-way counts: :func:`compress_columns` merges the rare categories
of a column with many public categories into one cell (MST, McKenna, Miklau,
Sheldon 2021, §4), and :func:`quantile_bins` puts a numeric column's bin
edges at the quantiles of noisy counts on a fine public grid. Which columns
are treated (:func:`to_compress`, :func:`to_quantile`) is public.

Categories compare by value (:func:`value_key`): numbers by their exact
value (``1 == 1.0``), booleans by themselves (``True`` is not ``1``), other
objects by equality. Error messages name columns, never values: a value
outside a public domain gives a fixed message naming its column.
"""

from dataclasses import dataclass, field, replace
import math
from numbers import Integral, Real

import numpy as np
from scipy import special

__all__ = ["Column", "OTHER", "QUANTILE_GRID", "compress_columns", "derive", "missing_mask",
           "parse_entry", "plan_column", "private_domains", "quantile_bins", "to_compress",
           "to_quantile", "value_key", "compress_counts", "quantile_counts", "quantile_grid"]

OTHER = "<other>"
_POW_MIN, _POW_MAX = -10, 40  # log-scale grid of the private range finder: +-2**k
QUANTILE_GRID = 16  # cells of the fine public grid per quantile bin
_KEEP_SIGMAS = 3.0  # MST (McKenna, Miklau, Sheldon 2021, §4): a value is kept above 3 sigma
_KINDS = ("numeric", "categorical")
_FORMS = ("a list of categories, an int k (codes 0..k-1), (low, high) bounds, or a dict "
          "{'categories': [...]}, {'low': l, 'high': h[, 'n_bins': k][, 'integer': bool]} or "
          "{'kind': 'numeric'|'categorical'}, each with an optional 'missing': bool")
_FORM_KEYS = {"categories": {"categories", "missing"},
              "bounds": {"low", "high", "n_bins", "integer", "missing"},
              "kind": {"kind", "integer", "n_bins", "missing"}}


# ---------------------------------------------------------------------------
# Values: comparison keys, missing values
# ---------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------
# Domain entries
# ---------------------------------------------------------------------------
def parse_entry(name, spec):
    """A domain entry in its dict form, checked; ValueError/TypeError naming the column."""
    if isinstance(spec, (list, np.ndarray)):
        return {"categories": _categories(name, list(spec))}
    if isinstance(spec, Integral) and not isinstance(spec, (bool, np.bool_)):
        if spec < 1:
            raise ValueError(f"domain of column {name!r}: an int entry is a number of integer "
                             f"codes and must be >= 1, got {spec!r}.")
        return {"categories": list(range(int(spec)))}
    if isinstance(spec, tuple):
        if len(spec) != 2:
            raise ValueError(f"bounds of column {name!r} must be a (low, high) pair, got {spec!r}.")
        return _bounds(name, {"low": spec[0], "high": spec[1]})
    if isinstance(spec, dict):
        return _parse_dict(name, spec)
    raise TypeError(f"domain of column {name!r} must be {_FORMS}; got {spec!r}.")


def _parse_dict(name, spec):
    keys = set(spec)
    form = ("categories" if "categories" in keys else "bounds" if keys & {"low", "high"}
            else "kind" if "kind" in keys else None)
    if form is None or not keys <= _FORM_KEYS[form]:
        raise ValueError(f"domain entry of column {name!r} has the keys {sorted(keys)}; it must "
                         f"be {_FORMS}.")
    entry = {k: _flag(name, k, spec[k]) for k in ("integer", "missing") if k in spec}
    if "n_bins" in spec:
        entry["n_bins"] = _n_bins(name, spec["n_bins"])
    if form == "categories":
        cats = spec["categories"]
        if not isinstance(cats, (list, tuple, np.ndarray)):
            raise TypeError(f"categories of column {name!r} must be a list, got {cats!r}.")
        return {**entry, "categories": _categories(name, list(cats))}
    if form == "bounds":
        return {**entry, **_bounds(name, spec)}
    if spec["kind"] not in _KINDS or (spec["kind"] == "categorical" and keys - {"kind", "missing"}):
        raise ValueError(f"domain entry of column {name!r}: 'kind' must be 'numeric' (optional "
                         f"'integer', 'n_bins') or 'categorical', got {spec!r}.")
    return {**entry, "kind": spec["kind"]}


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
        try:
            keys.append(value_key(c))
            hash(keys[-1])
        except TypeError:
            raise TypeError(f"categories of column {name!r} must be strings, numbers or "
                            f"booleans, got {c!r}.") from None
    if len(set(keys)) != len(keys):
        raise ValueError(f"categories of column {name!r} repeat a value (numbers compare by "
                         f"value: 1 and 1.0 are the same category): {cats!r}.")
    return cats


# ---------------------------------------------------------------------------
# A column's domain
# ---------------------------------------------------------------------------
@dataclass
class Column:
    """One column's domain: categories, or bounds cut into bins; plus a missing cell (last).

    A compressed column (:meth:`compress`) maps its categories to fewer cells
    (``cells``: category index -> cell; the last cell before the missing one
    merges the rest, decoded in proportion to ``weights``); a numeric column
    with ``edges`` has those bin edges (quantile bins) instead of equal bins.
    """

    name: object
    dtype: object
    kind: str = "categorical"
    categories: list = None
    low: float = 0.0
    high: float = 1.0
    n_bins: int = 1
    integer: bool = False
    missing: bool = False
    source: str = "given"
    index: dict = field(default=None, repr=False)
    cells: np.ndarray = field(default=None, repr=False)
    weights: np.ndarray = field(default=None, repr=False)
    edges: np.ndarray = field(default=None, repr=False)

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
        Miklau, Sheldon 2021, §4). Post-processing of released counts: public."""
        kept = np.sort(np.asarray(kept, dtype=np.int64))
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
        """Values of cell indices: the category or a uniform draw in the bin; the missing
        cell gives None (categories) or NaN (numeric)."""
        if self.categorical:
            return self._decode_categories(codes, rng)
        na = codes == self.n_bins if self.missing else None
        values = self._decode_bins(np.minimum(codes, self.n_bins - 1), rng)
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
        if not self.integer:
            return left + rng.uniform(size=len(codes)) * width
        lo = np.ceil(left)
        hi = np.where(codes == self.n_bins - 1, np.floor(self.high), np.ceil(left + width) - 1)
        mid = np.round(left + width / 2)
        draw = lo + np.floor(rng.uniform(size=len(codes)) * np.maximum(hi - lo + 1, 1))
        return np.where(hi >= lo, draw, mid)


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


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


# ---------------------------------------------------------------------------
# Domains read from values: derived (a leak, warned by the caller) or private
# ---------------------------------------------------------------------------
def _counts(values):
    """Count of each distinct value, by :func:`value_key`, in a fixed order."""
    counts = {}
    for v in values:
        k = value_key(v)
        counts[k] = counts.get(k, 0) + 1
    keys = sorted(counts, key=_order)
    return keys, np.array([counts[k] for k in keys], dtype=np.float64)


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


def private_domains(columns, values, budget, sensitivity, sigma, threshold,
                    replace_sensitivity=None):
    """Domains of ``columns`` from one Gaussian release of their stacked counts.

    Each column's counts (per distinct value for a categorical column, on a
    fixed grid of +-2**k bins for a numeric one; missing values count in
    none) are stacked and released at once, ``counts + N(0, sigma**2 I)``,
    through ``budget`` (:meth:`Budget.gaussian_gdp
    <skdp.privacy.budget.Budget.gaussian_gdp>`: charged, drawn and recorded in
    one call, as one Gaussian mechanism of l2-sensitivity ``sensitivity``,
    Bun–Steinke 2016 Prop. 1.6, ``sensitivity / sigma``-GDP). Then, post-processing:
    categories whose noisy count exceeds ``threshold`` (plus
    :data:`OTHER`), and bounds from the noisy grid counts.

    Parameters
    ----------
    columns : list of Column
    values : list of arrays
        The present (non-missing) values of each column.
    budget : Budget
        The share of the fit's budget this release spends (its GDP filter).
    sensitivity, sigma : float
        l2-sensitivity of the stacked counts and the noise.
    threshold : float
        Categories' release threshold.
    replace_sensitivity : float, default=None
        Under add/remove: the counts' replace-one l2-sensitivity, recorded
        with the release (:meth:`~skdp.privacy.release.Release.gaussian`).
    """
    counts = [_counts(v) if col.categorical else _range_counts(v, col.name)
              for col, v in zip(columns, values)]
    stacked = np.concatenate([c for _, c in counts]) if counts else np.zeros(0)
    noisy = budget.gaussian_gdp(stacked, sensitivity, sigma,
                                 label=f"domain counts of {len(columns)} columns",
                                 replace_sensitivity=replace_sensitivity)
    ends = np.cumsum([c.shape[0] for _, c in counts])
    for col, (keys, _), part in zip(columns, counts, np.split(noisy, ends[:-1])):
        if col.categorical:
            _keep_categories(col, keys, part, threshold)
        else:
            _keep_range(col, part, sigma)


def _keep_categories(col, keys, noisy, threshold):
    """The released categories: canonical values of the comparison keys
    (:func:`value_key`), so they do not depend on how the data spells them."""
    col.categories = [_canonical(k) for k, s in zip(keys, noisy) if s > threshold] + [OTHER]
    col.source = "private"


def _grid():
    return np.concatenate([-(2.0 ** np.arange(_POW_MAX, _POW_MIN - 1, -1)), [0.0],
                           2.0 ** np.arange(_POW_MIN, _POW_MAX + 1)])


def _range_counts(values, name):
    edges = _grid()
    v = np.clip(_as_float(values, name), edges[0], edges[-1])
    return None, np.histogram(v, bins=edges)[0].astype(np.float64)


def _keep_range(col, noisy, sigma):
    edges = _grid()
    # a bin is kept when its noisy count clears the noise: a false positive
    # among the empty bins has probability about 1% in all
    kept = np.flatnonzero(noisy > sigma * float(special.ndtri(1.0 - 0.01 / noisy.size)) + 0.5)
    if kept.size == 0:
        col.low, col.high = 0.0, 1.0
    else:
        col.low, col.high = float(edges[kept[0]]), float(edges[kept[-1] + 1])
    col.source = "private"


# ---------------------------------------------------------------------------
# Measured domains of public columns: compression and quantile bins
# ---------------------------------------------------------------------------
def to_compress(columns, how, max_categories):
    """Indices of the columns to compress: public categories, more than ``max_categories``.

    Decided from public cardinalities and a public threshold only: the same
    for every table (categories found privately or derived are not compressed).
    """
    if max_categories is None:
        return []
    return [j for j, (c, h) in enumerate(zip(columns, how))
            if h == "public" and c.categorical and len(c.categories) > max_categories]


def to_quantile(columns, how, strategy):
    """Indices of the columns binned at private quantiles: numeric, public finite bounds,
    more than one bin (``strategy='quantile'``); public."""
    if strategy != "quantile":
        return []
    return [j for j, (c, h) in enumerate(zip(columns, how))
            if h == "public" and not c.categorical and c.n_bins > 1 and c.high > c.low
            and math.isfinite(c.high - c.low)]


def compress_columns(columns, values, budget, sensitivity, sigma, max_categories,
                     counts=None, replace_sensitivity=None):
    """Compress ``columns`` from one Gaussian release of their 1-way counts (MST's domain
    compression: McKenna, Miklau, Sheldon 2021, §4).

    The counts of every public category (missing values count in none) are
    stacked and released at once, ``counts + N(0, sigma**2 I)``, through
    ``budget`` (one Gaussian mechanism of l2-sensitivity ``sensitivity``:
    Bun–Steinke 2016 Prop. 1.6). Then, post-processing: the categories whose
    noisy count is positive and at least ``3 sigma`` keep a cell of their own (the
    ``max_categories - 1`` largest at most), the others share one merged cell,
    sampled back in proportion to their noisy counts clipped at 0.

    Parameters
    ----------
    columns : list of Column
        Categorical columns with public categories.
    values : list of arrays
        Each column's values (missing ones included).
    budget : Budget
        The share of the fit's budget this release spends (its GDP filter).
    sensitivity, sigma : float
        l2-sensitivity of the stacked counts and the noise.
    max_categories : int
        Most cells of a compressed column (the merged one included).
    counts : list of arrays, default=None
        The counts, when already summed (over the partitions of a Dask table,
        by :func:`compress_counts`); ``values`` is then not read.
    replace_sensitivity : float, default=None
        Under add/remove: the counts' replace-one l2-sensitivity, recorded
        with the release (:meth:`~skdp.privacy.release.Release.gaussian`).
    """
    counts = compress_counts(columns, [c.prepare(v) for c, v in zip(columns, values)]) \
        if counts is None else counts
    noisy = budget.gaussian_gdp(np.concatenate(counts), sensitivity, sigma,
                                 label=f"compression counts of {len(columns)} columns",
                                 replace_sensitivity=replace_sensitivity)
    ends = np.cumsum([len(c) for c in counts])
    for col, part in zip(columns, np.split(noisy, ends[:-1])):
        above = np.flatnonzero((part >= _KEEP_SIGMAS * sigma) & (part > 0))
        top = np.argsort(-part[above], kind="stable")[:max_categories - 1]
        col.compress(above[top], part)


def quantile_bins(columns, values, budget, sensitivity, sigma, counts=None,
                  replace_sensitivity=None):
    """Bin edges of ``columns`` at the quantiles of one Gaussian release of their counts on a
    fine public grid.

    Each column's non-missing values, clipped to its public bounds, are counted
    on ``QUANTILE_GRID * n_bins`` equal cells; the stacked counts are released
    at once through ``budget`` (one Gaussian mechanism of l2-sensitivity
    ``sensitivity``: Bun–Steinke 2016 Prop. 1.6). Then, post-processing: the
    noisy counts projected onto the non-negative vectors of their total
    (:func:`_project`), spread uniformly within their cells, give a
    distribution whose ``k / n_bins`` quantiles are the inner edges (strictly
    increasing; equal bins when no noisy count is positive).

    Parameters
    ----------
    columns : list of Column
        Numeric columns with public finite bounds and ``n_bins > 1``.
    values : list of arrays
        Each column's values (missing ones included).
    budget : Budget
        The share of the fit's budget this release spends (its GDP filter).
    sensitivity, sigma : float
        l2-sensitivity of the stacked counts and the noise.
    counts : list of arrays, default=None
        The counts, when already summed (by :func:`quantile_counts`).
    replace_sensitivity : float, default=None
        Under add/remove: the counts' replace-one l2-sensitivity, recorded
        with the release (:meth:`~skdp.privacy.release.Release.gaussian`).
    """
    grids = [quantile_grid(c) for c in columns]
    counts = quantile_counts(columns, [c.prepare(v) for c, v in zip(columns, values)]) \
        if counts is None else counts
    noisy = budget.gaussian_gdp(np.concatenate(counts), sensitivity, sigma,
                                 label=f"quantile grid counts of {len(columns)} columns",
                                 replace_sensitivity=replace_sensitivity)
    ends = np.cumsum([len(c) for c in counts])
    for col, grid, part in zip(columns, grids, np.split(noisy, ends[:-1])):
        col.edges = _quantile_edges(grid, _project(part), col.n_bins)


def compress_counts(columns, prepared):
    """Per column, the count of each public category (missing values in none), of values
    given as :meth:`Column.prepare` returns them: additive over row blocks.

    Examples
    --------
    >>> col = Column("c", object, categories=["a", "b"])
    >>> compress_counts([col], [col.prepare(np.array(["b", "b"], dtype=object))])[0].tolist()
    [0.0, 2.0]
    """
    return [np.bincount(p, minlength=len(c.categories) + 1)[:len(c.categories)]
            .astype(np.float64) for c, p in zip(columns, prepared)]


def quantile_grid(col):
    """The fine public grid of a column binned at quantiles: ``QUANTILE_GRID n_bins`` cells."""
    return np.linspace(col.low, col.high, QUANTILE_GRID * col.n_bins + 1)


def quantile_counts(columns, prepared):
    """Per column, the counts of its non-missing values (clipped to the bounds) on its fine
    grid, given as :meth:`Column.prepare` returns them: additive over row blocks.

    Examples
    --------
    >>> col = Column("x", float, kind="numeric", low=0.0, high=1.0, n_bins=1)
    >>> counts = quantile_counts([col], [np.array([0.0, 0.99, np.nan, 2.0])])[0]
    >>> len(counts), counts[[0, -1]].tolist()
    (16, [1.0, 2.0])
    """
    return [np.histogram(np.clip(p[~np.isnan(p)], c.low, c.high), bins=quantile_grid(c))[0]
            .astype(np.float64) for c, p in zip(columns, prepared)]


def _project(noisy):
    """Euclidean projection of noisy counts onto the non-negative vectors of the same total
    (clipped at 0 when the total is not positive): subtract the one shift that keeps the
    total (Duchi et al. 2008, Fig. 1), unlike clipping, which adds the noise of every empty
    cell to the mass."""
    total = noisy.sum()
    if not total > 0:
        return np.clip(noisy, 0.0, None)
    v = np.sort(noisy)[::-1]
    shifts = (np.cumsum(v) - total) / np.arange(1, len(v) + 1)
    k = np.flatnonzero(v > shifts)[-1]
    return np.clip(noisy - shifts[k], 0.0, None)


def _quantile_edges(grid, mass, n_bins):
    """Edges at the ``k / n_bins`` quantiles of ``mass`` spread uniformly on its grid cells."""
    if not mass.sum() > 0:
        return np.linspace(grid[0], grid[-1], n_bins + 1)
    cum = np.concatenate([[0.0], np.cumsum(mass)])
    targets = cum[-1] * np.arange(1, n_bins) / n_bins
    cell = np.clip(np.searchsorted(cum, targets, side="left") - 1, 0, len(mass) - 1)
    frac = (targets - cum[cell]) / np.where(mass[cell] > 0, mass[cell], 1.0)
    inner = grid[cell] + np.clip(frac, 0.0, 1.0) * (grid[cell + 1] - grid[cell])
    return np.concatenate([[grid[0]], inner, [grid[-1]]])
