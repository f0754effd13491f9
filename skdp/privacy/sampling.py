"""Poisson sampling of row indices: data-independent draws, used by the fit's subsampled
releases (:meth:`skdp.privacy.release.Release.poisson_sample`, from the fit's generator) and by
solvers that take a public random subset of rows (from the public generator).
"""

import math

import numpy as np

__all__ = ["GAP_ROWS", "bernoulli_rows"]


def bernoulli_rows(rng, n, q):
    """Sorted indices of ``n`` independent Bernoulli(q) trials that succeed, in O(q n) draws.

    Exact for every ``q`` in [0, 1], in two ways that draw the same law:

    * ``n <= GAP_ROWS`` (2**31 - 1): the gaps between successive successes of
      i.i.d. Bernoulli(q) trials are i.i.d. Geometric(q) (support 1, 2, ...), so
      their cumulative sums are the successes' positions (plus one), with about
      ``q n`` draws instead of ``n`` (:func:`_geometric_gaps`; a step of a subsampled
      fit on 1e6 rows at q = 0.016 draws about 1.6e4). A gap above ``n + 1`` is
      taken as ``n + 1``: from any position (at least -1) it lands at ``n`` or beyond,
      where no row is, and so does the capped one, so the rows returned keep their
      law; with the cap, ``end + chunk * (n + 1)`` stays below 2**63 (no int64
      overflow, whatever ``q``: at q ~ 3e-18 uncapped sums wrapped, at 1e-300 the
      gaps themselves did);
    * larger ``n``: the number of successes is Binomial(n, q) and, given it,
      the set of successes is a uniform subset of that size (drawn by Floyd's
      algorithm in ``Generator.choice``, O(count) memory), sorted.

    The first way is the default's since issue 31 (it replaced the second below
    q = 1/50: 4-6x less time per step at q = 0.016, n = 1e6; the same law, another
    stream of draws); for ``q >= 1/50`` (and ``n <= GAP_ROWS``) the draws are those it made
    before.
    """
    if q <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    if q >= 1:
        return np.arange(n, dtype=np.int64)
    if n > GAP_ROWS:
        count = int(rng.binomial(n, q))
        rows = rng.choice(n, size=count, replace=False, shuffle=False) if count else []
        return np.sort(np.asarray(rows, dtype=np.int64))
    parts, end = [], -1
    chunk = int(q * n + 4.0 * math.sqrt(q * n) + 16)
    while end < n:
        pos = end + np.cumsum(_geometric_gaps(rng, q, chunk, n + 1))
        parts.append(pos)
        end = int(pos[-1])
    rows = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return rows[:np.searchsorted(rows, n)]


GAP_ROWS = np.iinfo(np.int32).max
"""Rows up to which :func:`bernoulli_rows` draws geometric gaps (their int64 sums cannot wrap)."""


def _geometric_gaps(rng, q, size, cap):
    """``size`` i.i.d. Geometric(q) draws (support 1, 2, ...), each capped at ``cap``.

    For ``q < 1/3`` the inversion ``ceil(E / -log(1 - q))`` with ``E`` standard
    exponential (``P(gap > k) = P(E > k log(1/(1-q))) = (1-q)**k``): the draws of
    ``Generator.geometric`` itself (its inversion branch, the same exponentials
    and the same arithmetic: equal, draw for draw), vectorised, about 2x faster; a
    zero (``E = 0``, probability about 2**-61) is taken as 1. For ``q >= 1/3``,
    ``Generator.geometric`` (its search branch).
    """
    if q >= 1.0 / 3.0:
        return np.minimum(rng.geometric(q, size=size), cap)
    draws = rng.standard_exponential(size)
    with np.errstate(over="ignore"):  # a tiny q: inf, capped below
        draws /= -math.log1p(-q)
    np.minimum(draws, cap, out=draws)
    gaps = np.ceil(draws, out=draws).astype(np.int64)
    return np.maximum(gaps, 1, out=gaps)
