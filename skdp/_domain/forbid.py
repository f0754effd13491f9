"""Structural zeros: combinations of values that cannot occur, declared in the domain.

A domain dict (the estimator's ``domain=``, the CLI's domain file) may hold,
beside its column entries, the key ``"forbid"``: a list of conjunctions, each
a dict ``{column: value, ...}``, e.g. ``{"pregnant": "yes", "sex": "male"}``.
Every record matching all the pairs of one conjunction is impossible: the
released distribution gives it probability 0 and no sample contains it.

They are public facts, like the rest of the domain: they come from the
domain, never from the data, and cost no budget. Each value is one of the
column's public categories (a list entry, ``{"categories": [...]}``) or
codes (an int ``k`` or ``{"codes": k}``), or, for a numeric column with public
bounds (``(low, high)``, ``{"low": l, "high": h}``), an **interval**: a dict of
one or two comparisons ``{">=": a, "<": b}`` (keys ``">"``, ``">="``, ``"<"``,
``"<="``; at most one lower and one upper end), e.g. ``{"age": {"<": 16},
"marital": "married"}``. The data is not
checked against them: a row that matches a conjunction is the curator's
input error, and an error raised on it (or a count of such rows) would be
a release that depends on the private data. Such rows are counted by the
measurements as any other row; the estimate then puts no mass on their
cells and the sample never holds them.

Numeric intervals are structural zeros on the model's bins, so they must
align with the column's public bin edges (``n_bins`` equal bins of
``[low, high]``; the last bin holds ``high``): every bin lies inside the
interval or outside it. An interval that cuts a bin is refused before the
budget is reserved, with an error naming the column, the bin and its
edges (no data is read: the edges come from the entry and ``n_bins``).
Integer columns (``"integer": true`` in the entry) are judged on the
integers each bin holds, so ``{"<=": 19}`` aligns with a bin edge at 20;
a column whose entry does not say ``"integer"`` may still be one (its
dtype decides, read only after the budget is reserved), so its interval
must align both as reals and as integers (write ``{"<": 20}``). Columns
binned at private quantiles (``bin_strategy='quantile'``) or with bounds
found privately (``{"kind": "numeric"}``) are refused: their edges are not
public before the fit. With ``bin_strategy='fine'`` a column named by an
interval keeps its equal bins (:func:`interval_columns`; the other numeric
columns get edges read from the fine release).

What is exact: the forbidden bins get probability 0 in every solver's
release and are never sampled, and a value is decoded within its bin
(uniformly, or from the fine grid's pieces within the bin), so no synthetic
value falls inside the interval when the rest of the conjunction holds. At
an interior bin edge the comparison allows a tolerance of ``1e-9`` of the
bin's width (edges like ``0.3`` are not exact floats); the point masses
at the bounds (``low`` and ``high``, which the fine grid can release) are
compared exactly.

Disambiguation: ``"forbid"`` is the structural zeros when its value is a
list of dicts (which no column entry can be: categories are strings,
numbers or booleans); any other value is the entry of a column named
``forbid``.
"""

from dataclasses import dataclass
import math
from numbers import Real

import numpy as np

from .fine import even_edges
from .parse import parse_entry
from .values import _is_missing, value_key

__all__ = ["FORBID", "Interval", "allowed", "check_forbid", "forbid_masks", "forbid_protect",
           "forbid_value", "full_mask", "interval_bins", "interval_columns", "is_forbid",
           "split_forbid"]

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


_OPS = {">=": ("low", True), ">": ("low", False), "<=": ("high", True), "<": ("high", False)}
TOLERANCE = 1e-9
"""At an interior bin edge, an interval's end within this share of the bin's width of
the edge counts as on it (edges such as ``0.3`` are not exact floats)."""


@dataclass(frozen=True)
class Interval:
    """A numeric condition of a forbid conjunction: ``low (<|<=) value (<|<=) high``.

    ``spec``: the comparisons as given (``((op, bound), ...)``), published in ``forbid_``.

    Examples
    --------
    >>> Interval.parse("age", {"<": 16})
    Interval(low=-inf, low_closed=True, high=16.0, high_closed=False, spec=(('<', 16),))
    >>> Interval.parse("age", {">=": 3, ">": 4})
    Traceback (most recent call last):
    ...
    ValueError: forbid: the interval of column 'age' gives two lower ends ('>=' and '>'); \
an interval is a dict of one or two comparisons, e.g. {">=": 18, "<": 65} (keys '>', '>=', \
'<', '<=').
    """

    low: float = -math.inf
    low_closed: bool = True
    high: float = math.inf
    high_closed: bool = True
    spec: tuple = ()

    @classmethod
    def parse(cls, name, value):
        form = ('an interval is a dict of one or two comparisons, e.g. {">=": 18, "<": 65} '
                "(keys '>', '>=', '<', '<=').")
        if not value or not all(isinstance(k, str) and k in _OPS for k in value):
            raise ValueError(f"forbid: the interval of column {name!r} has the keys "
                             f"{sorted(map(str, value))}: {form}")
        ends = {}
        for op, bound in value.items():
            side, closed = _OPS[op]
            if side in ends:
                raise ValueError(f"forbid: the interval of column {name!r} gives two "
                                 f"{'lower' if side == 'low' else 'upper'} ends "
                                 f"({ends[side][0]!r} and {op!r}); {form}")
            if not isinstance(bound, Real) or isinstance(bound, (bool, np.bool_)) \
                    or not math.isfinite(bound):
                raise ValueError(f"forbid: the interval of column {name!r} compares with "
                                 f"{bound!r}; its ends must be finite numbers.")
            ends[side] = (op, float(bound), closed)
        out = cls(spec=tuple(value.items()),
                  **{k: v for side, (_, b, c) in ends.items()
                     for k, v in ((side, b), (f"{side}_closed", c))})
        if out.high < out.low or (out.high == out.low and not (out.low_closed
                                                                and out.high_closed)):
            raise ValueError(f"forbid: the interval {value!r} of column {name!r} holds no "
                             "value.")
        return out

    def describe(self):
        """The interval as given (a dict of comparisons)."""
        return dict(self.spec)

    def holds(self, v):
        """Whether the number ``v`` is in the interval."""
        return ((v > self.low or (self.low_closed and v == self.low))
                and (v < self.high or (self.high_closed and v == self.high)))

    def integers(self):
        """The integers in the interval, as ``(first, last)`` (infinite ends stay)."""
        first, last = -math.inf, math.inf
        if math.isfinite(self.low):
            first = math.ceil(self.low) if self.low_closed else math.floor(self.low) + 1
        if math.isfinite(self.high):
            last = math.floor(self.high) if self.high_closed else math.ceil(self.high) - 1
        return first, last

    def __str__(self):
        return "{" + ", ".join(f"{op!r}: {b!r}" for op, b in self.spec) + "}"


def _bins(low, high, n_bins):
    """The bin edges of a numeric column with public bounds and equal bins (both ways the
    decoders compute them: :func:`~skdp._domain.fine.even_edges` and ``low + k * width``):
    ``(left, right)`` arrays, the loose (smallest left, largest right) of the two."""
    if n_bins == 1 or not high > low:
        return np.array([low]), np.array([high])
    a = even_edges(low, high, n_bins)
    with np.errstate(over="ignore", invalid="ignore"):
        b = low + np.arange(n_bins + 1) * ((high - low) / n_bins)
    b = np.where(np.isfinite(b), b, a)
    b[0], b[-1] = low, high
    return np.minimum(a[:-1], b[:-1]), np.maximum(a[1:], b[1:])


def interval_bins(name, interval, low, high, n_bins, integer):
    """The bins of a numeric column (public bounds, ``n_bins`` equal bins) that hold a value
    in ``interval``, as a sorted list; a ValueError naming the column and the nearest edges
    when the interval cuts a bin (see the module docstring).

    ``integer``: True (integers: the values a bin holds are its integers), False (reals) or
    None (not known before the fit: both must align; the bins of either).

    Examples
    --------
    >>> interval_bins("age", Interval.parse("age", {"<": 20}), 0, 100, 10, None)
    [0, 1]
    >>> interval_bins("age", Interval.parse("age", {"<=": 19}), 0, 100, 10, True)
    [0, 1]
    >>> interval_bins("age", Interval.parse("age", {"<": 15}), 0, 100, 10, False)
    Traceback (most recent call last):
    ...
    ValueError: forbid: the interval {'<': 15} of column 'age' cuts its bin [10, 20) \
(10 equal bins of [0, 100]): an interval must hold whole bins; the nearest bin edges are \
10 and 20 (or change the column's bounds or n_bins).
    """
    left, right = _bins(float(low), float(high), int(n_bins))
    if integer is None:
        reals = interval_bins(name, interval, low, high, n_bins, False)
        return sorted(set(reals) | set(interval_bins(name, interval, low, high, n_bins, True)))
    out = []
    for i, (a, b) in enumerate(zip(left, right)):
        last = i == len(left) - 1
        held, whole = (_integer_bin if integer else _real_bin)(interval, a, b, i == 0, last,
                                                                 float(low), float(high))
        if held and not whole:
            raise ValueError(_cut(name, interval, a, b, last, low, high, n_bins, integer))
        if held:
            out.append(i)
    if not out:
        raise ValueError(f"forbid: the interval {interval} of column {name!r} holds no value "
                         f"of its range [{_num(low)}, {_num(high)}].")
    return out


def _real_bin(interval, a, b, first, last, low, high):
    """``(holds a value of the interval, lies inside it)`` for the real bin ``[a, b)``
    (``[a, b]`` when last); bounds exact, interior edges with :data:`TOLERANCE`."""
    tol = TOLERANCE * (b - a)
    lo = max(a, interval.low)
    hi = min(b, interval.high)
    held = hi - lo > tol
    if first and interval.holds(low):
        held = True
    if last and interval.holds(high):
        held = True
    if a == b:  # a single value (one bin, low == high)
        return interval.holds(a), interval.holds(a)
    inside_low = interval.holds(low) if first else interval.low <= a + tol
    inside_high = interval.holds(high) if last else interval.high >= b - tol
    return held, inside_low and inside_high


def _integer_bin(interval, a, b, first, last, low, high):
    """As :func:`_real_bin` on the integers the bin holds (or, when it holds none, on the
    integer its midpoint is decoded to)."""
    lo = max(math.ceil(a), math.ceil(low))
    hi = min(math.floor(high) if last else math.ceil(b) - 1, math.floor(high))
    if hi < lo:  # no integer: decoded at the rounded midpoint (clipped or not)
        mid = round(a / 2 + b / 2)
        values = {mid, min(max(mid, math.ceil(low)), math.floor(high))}
        inside = [interval.holds(v) for v in values]
        return any(inside), all(inside)
    first_int, last_int = interval.integers()
    held = max(lo, first_int) <= min(hi, last_int)
    return held, first_int <= lo and hi <= last_int


def _num(x):
    x = float(x)
    return repr(int(x)) if x.is_integer() and abs(x) < 2**53 else repr(x)


def _cut(name, interval, a, b, last, low, high, n_bins, integer):
    span = f"[{_num(a)}, {_num(b)}{']' if last else ')'}"
    what = "the integers of its bin" if integer else "its bin"
    hint = ""
    if integer is None or not integer:
        hint = (" A column whose entry does not say \"integer\": true may be an integer "
                "column (its dtype decides), so its interval must align as reals and as "
                "integers: write '<' and '>=' at bin edges.")
    return (f"forbid: the interval {interval} of column {name!r} cuts {what} {span} "
            f"({n_bins} equal bins of [{_num(low)}, {_num(high)}]): an interval must hold "
            f"whole bins; the nearest bin edges are {_num(a)} and {_num(b)} (or change the "
            "column's bounds or n_bins)." + (hint if integer is None else ""))


def _entry_values(name, spec):
    """The public values of a column entry for forbid: its categories or codes, else an
    error naming the column."""
    parsed = parse_entry(name, spec)
    if "categories" not in parsed:
        raise ValueError(f"forbid names column {name!r}, whose domain entry gives no "
                         "categories or codes: a single value is for categories or codes "
                         "only (a list, {'categories': [...]}, an int k or {'codes': k}); "
                         "a numeric column with public bounds takes an interval, e.g. "
                         '{">=": 18, "<": 65}; kinds found privately are not accepted.')
    return list(parsed["categories"])


def _numeric_entry(name, spec, n_bins, bin_strategy):
    """``(low, high, n_bins, integer)`` of a numeric entry an interval may name (integer:
    True, or None when the dtype decides), else a ValueError naming the column."""
    parsed = parse_entry(name, spec)
    if "categories" in parsed:
        raise ValueError(f"forbid: column {name!r} has categories or codes: give one of "
                         "them, not an interval.")
    if "low" not in parsed:
        raise ValueError(f"forbid: column {name!r} has no public bounds (its entry gives the "
                         "kind only; the bounds are found privately, after the budget is "
                         "reserved): an interval needs public bounds {'low': l, 'high': h}.")
    low, high = parsed["low"], parsed["high"]
    if n_bins is None:  # the form only (the estimator checks the bins)
        return low, high, None, parsed.get("integer") or None
    bins = 1 if high == low else parsed.get("n_bins", n_bins)
    if bin_strategy == "quantile" and bins > 1 and math.isfinite(high - low):
        raise ValueError(f"forbid: column {name!r} is binned at private quantiles "
                         f"(bin_strategy={bin_strategy!r}): its bin edges are released by the "
                         "fit, so an interval cannot be checked against them before; use "
                         "bin_strategy='uniform' or 'fine' (where such a column keeps its "
                         "equal bins) or forbid on categories.")
    return low, high, int(bins), parsed.get("integer") or None


def check_forbid(entries, forbid, n_bins=10, bin_strategy="uniform"):
    """Check the forbid list against the column entries (no data read); return it as a
    list of ``{column: category index}`` dicts (in the entries' category order), an
    :class:`Interval` for a numeric column's interval.

    ``n_bins`` and ``bin_strategy``: the estimator's (public); a numeric interval must
    align with the column's bins (:func:`interval_bins`). ``n_bins=None``: the intervals'
    form only is checked (the CLI's domain file, before the estimator checks the rest).

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
    values, out, ranges = {}, [], {}
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
            if isinstance(value, dict):
                interval = Interval.parse(key, value)
                low, high, bins, integer = _numeric_entry(key, entries[key], n_bins,
                                                          bin_strategy)
                if bins is not None:
                    held = interval_bins(key, interval, low, high, bins, integer)
                    values.setdefault(key, bins)
                    cells[key] = interval
                    ranges.setdefault(key, {})[interval] = held
                else:
                    cells[key] = interval
                continue
            if key not in values:
                cats = _entry_values(key, entries[key])
                values[key] = {value_key(c): j for j, c in enumerate(cats)}
            index = values[key].get(_key(value))
            if index is None:
                raise ValueError(f"forbid entry {i}: {value!r} is not among the categories of "
                                 f"column {key!r} ({len(values[key])} of them).")
            cells[key] = index
        out.append(cells)
    sizes = {k: v if isinstance(v, int) else len(v) for k, v in values.items()}
    if all(all(not isinstance(v, Interval) or k in ranges for k, v in c.items()) for c in out):
        _check_not_empty(sizes, [{k: ranges[k][v] if isinstance(v, Interval) else [v]
                                  for k, v in c.items()} for c in out])
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
    group of columns linked by forbid entries (enumerated up to :data:`ENUMERATE_CELLS`).
    ``conjunctions``: ``{column: list of value (or bin) indices}`` each; ``sizes``: the
    number of values (categories or bins; the missing cell aside) per column."""
    names = list(sizes)
    for name in names:
        single = {i for c in conjunctions if list(c) == [name] for i in c[name]}
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
                mask[np.ix_(*[c[n] if n in c else np.arange(sizes[n]) for n in group])] = True
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
            if not isinstance(cat, Interval):  # bins are never merged
                out.setdefault(index[str(name)], set()).add(cat)
    return {j: sorted(v) for j, v in out.items()}


def interval_columns(forbid):
    """The names (as strings) of the columns named by an interval of ``forbid``
    (:func:`check_forbid`'s output): their bins must stay the public equal ones.

    Examples
    --------
    >>> interval_columns([{"age": Interval.parse("age", {"<": 16}), "marital": 1}])
    {'age'}
    """
    return {str(name) for conj in forbid for name, v in conj.items()
            if isinstance(v, Interval)}


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
            if isinstance(cat, Interval):  # its bins, on the fitted column (public)
                if col.categorical or col.edges is not None:
                    raise RuntimeError(f"column {col.name!r}: an interval of forbid on a "
                                       "column without public equal bins.")
                cells[j] = interval_bins(col.name, cat, col.low, col.high, col.n_bins,
                                         bool(col.integer))
                continue
            cell = int(cat) if col.cells is None else int(col.cells[cat])
            if col.cells is not None and cell == int(col.cells.max()):
                raise RuntimeError(f"column {col.name!r}: a forbidden category was merged by "
                                   "the compression (it must keep a cell of its own).")
            cells[j] = cell
        cols = tuple(sorted(cells))
        if cols not in out:
            out[cols] = np.zeros([columns[j].cardinality for j in cols], dtype=bool)
        out[cols][np.ix_(*[np.atleast_1d(cells[j]) for j in cols])] = True
    return out


def forbid_value(column, value):
    """The public form of one value of a checked conjunction, for ``forbid_``: the
    category, or the interval as given."""
    return value.describe() if isinstance(value, Interval) else column.categories[value]


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

