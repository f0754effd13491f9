"""Row and gradient clipping: how a bounded per-example contribution is enforced.

Every sensitivity in skdp assumes rows (or per-example gradients) of l2 norm at
most a public bound; these functions enforce it, in any array namespace and any
float dtype, without dividing by zero or overflowing (a 1e-300 floor, for
instance, is 0 in float32).
"""

import functools

import numpy as np

__all__ = ["clip_factors", "row_norms", "clip_rows", "clip_overflowing_rows",
           "row_bound_status", "row_clip_factors"]

WITHIN_BLOCK = 1 << 16
"""Rows per block of :func:`row_bound_status` on NumPy (its squared norms stay in cache)."""


def clip_factors(norms, bound, xp=np):
    """Per-row factors ``min(1, bound / norm)`` that scale rows of these norms into the ball.

    ``bound / max(norm, bound)``: a norm within the bound (zero included) gives
    exactly 1, and nothing divides by zero or overflows, in any float dtype (a
    bound beyond the dtype's range is taken as its largest value).

    Examples
    --------
    >>> clip_factors(np.array([5.0, 0.5, 0.0]), 1.0).tolist()
    [0.2, 1.0, 1.0]
    """
    limit = xp.full_like(norms, min(float(bound), _largest(xp, norms.dtype)))
    return limit / xp.maximum(norms, limit)


@functools.lru_cache(maxsize=64)
def _largest(xp, dtype):
    """``float(xp.finfo(dtype).max)``, remembered (a solver asks at each step)."""
    return float(xp.finfo(dtype).max)


def row_norms(X, xp=np):
    """l2 norm of each row of ``X``, without overflow.

    The squared norms are summed directly (no (n, p) temporary on the host);
    a row whose squared norm overflows (entries near 1e154 and up) is divided
    by its largest ``|entry|`` first, so its norm is finite whenever it is
    representable.

    Examples
    --------
    >>> (row_norms(np.array([[3.0, 4.0], [3e300, 4e300]])) / [1.0, 1e300]).round(12).tolist()
    [5.0, 5.0]
    """
    sq = _squared_row_norms(X, xp)
    huge = xp.isinf(sq)
    norms = xp.sqrt(sq)
    if not bool(xp.any(huge)):
        return norms
    scaled, peak = _peak_scaled(X, huge, xp)
    with np.errstate(over="ignore"):  # a norm beyond the float range is inf
        return xp.where(huge, peak * xp.sqrt(_squared_row_norms(scaled, xp)), norms)


def clip_overflowing_rows(X, bound, xp=np, return_norms=False):
    """``X`` with each row whose squared l2 norm overflows replaced by its clipped value.

    Such a row (entries near 1e154 and up) becomes its direction at norm
    ``bound``, as :func:`clip_rows` would make it; other rows are untouched
    and ``X`` is returned itself (not copied) when no row overflows.
    Without this, the clipping factor ``bound / inf = 0`` would zero the row.
    ``return_norms=True`` also returns the l2 norms of the result's rows
    (computed on the way, so a caller need not pass over ``X`` again).

    Examples
    --------
    >>> clip_overflowing_rows(np.array([[3e300, 4e300], [3.0, 4.0]]), 1.0).round(3).tolist()
    [[0.6, 0.8], [3.0, 4.0]]
    >>> clip_overflowing_rows(np.array([[3.0, 4.0]]), 1.0, return_norms=True)[1].tolist()
    [5.0]
    """
    X, norms = _clip_overflowing_rows(X, bound, xp)
    return (X, norms) if return_norms else X


def clip_rows(X, bound, xp=np):
    """Scale each row of ``X`` to l2 norm at most ``bound`` (privacy by clipping).

    Rows of any finite magnitude keep their direction (no overflow, see
    :func:`clip_overflowing_rows`).

    Examples
    --------
    >>> clip_rows(np.array([[3.0, 4.0], [0.3, 0.4], [3e300, 4e300]]), 1.0).round(3).tolist()
    [[0.6, 0.8], [0.3, 0.4], [0.6, 0.8]]
    """
    X, norms = _clip_overflowing_rows(X, bound, xp)
    return X * clip_factors(norms, bound, xp)[:, None]


def row_bound_status(X, bound, xp=np):
    """True (no row beyond ``bound``), False (a row beyond it, every squared norm finite:
    :func:`clip_overflowing_rows` changes nothing) or None (a squared norm overflows, or is
    NaN).

    True exactly for the rows for which :func:`clip_overflowing_rows` changes nothing and
    :func:`clip_factors` of their norms is exactly 1: every squared norm finite and every
    norm at most ``bound`` (at most the dtype's largest value). The norms are ``sqrt`` of
    :func:`_squared_row_norms` (correctly rounded, so the largest norm is ``sqrt`` of the
    largest squared norm), and ``limit / max(norm, limit)`` is 1 if and only if ``norm <=
    limit`` (for ``norm > limit`` the quotient is below ``1 - 2**-53`` before rounding, so
    it rounds below 1). On NumPy the squared norms are computed in blocks of
    :data:`WITHIN_BLOCK` rows (``einsum`` sums each row alone: the same numbers as over all
    rows), so no (n,) array is made (issue 31).

    Examples
    --------
    >>> [row_bound_status(np.array([[a, 0.0]]), 1.0) for a in (0.5, 2.0, 1e200)]
    [True, False, None]
    """
    return _scan(X, bound, xp, factors=False)[0]


def row_clip_factors(X, bound, xp=np):
    """:func:`row_bound_status` and, where it is False, the rows' clip factors
    ``clip_factors(row_norms(X), bound)`` (else None), in one pass: on NumPy in blocks of
    :data:`WITHIN_BLOCK` rows, the factors written into one (n,) array made at the first
    block with a row beyond the bound (the rows before it have factor exactly 1), so that
    it is the only (n,) array made; the same numbers (each row's norm and factor are
    computed alone).

    Examples
    --------
    >>> status, factors = row_clip_factors(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0)
    >>> status, factors.tolist()
    (False, [0.2, 1.0])
    >>> row_clip_factors(np.array([[0.3, 0.4]]), 1.0)
    (True, None)
    """
    return _scan(X, bound, xp, factors=True)


def _scan(X, bound, xp, factors):
    limit = min(float(bound), _largest(xp, X.dtype))
    n = int(X.shape[0])
    if n == 0:
        return True, None
    if not isinstance(X, np.ndarray):
        sq = _squared_row_norms(X, xp)
        top = xp.max(sq)
        if not bool(xp.isfinite(top)):  # an overflowing (inf) or a NaN squared norm
            return None, None
        if bool(xp.sqrt(top) <= limit):  # compared in X's dtype, as clip_factors does
            return True, None
        return False, clip_factors(xp.sqrt(sq), bound, xp) if factors else None
    out, within = None, True
    for start in range(0, n, WITHIN_BLOCK):
        rows = slice(start, min(start + WITHIN_BLOCK, n))
        sq = _squared_row_norms(X[rows], xp)
        top = np.max(sq)
        if not np.isfinite(top):
            return None, None
        if within and not np.sqrt(top) <= limit:  # in X's dtype, as clip_factors does
            within = False
            if factors:
                out = np.empty(n, dtype=X.dtype)
                out[:start] = 1.0
        if out is not None:
            _block_factors(sq, limit, out[rows])
    return within, out


def _block_factors(sq, limit, out):
    """:func:`clip_factors` of the norms ``sqrt(sq)`` (NumPy, ``sq`` finite, the block's own:
    written over) into ``out``, without its three temporaries of the block's size: 1 where
    ``norm <= limit`` and ``limit / norm`` on the other rows, in the block's dtype: ``limit /
    max(norm, limit)`` is exactly 1 for the first (``limit / limit``, ``limit > 0``) and the
    same quotient for the others, so the same numbers (issue 31)."""
    lim = np.asarray(limit, dtype=sq.dtype)  # as clip_factors' full_like
    if not lim > 0:  # limit / limit is not 1: clip_factors itself
        out[...] = clip_factors(np.sqrt(sq), limit)
        return
    norms = np.sqrt(sq, out=sq)
    beyond = np.flatnonzero(norms > lim)
    out[...] = 1.0
    out[beyond] = lim / norms[beyond]


def _squared_row_norms(X, xp):
    """``sum_j X_ij**2`` per row; inf where it overflows (silently)."""
    with np.errstate(over="ignore"):
        if isinstance(X, np.ndarray):  # no (n, p) temporary on the host
            return np.einsum("ij,ij->i", X, X)
        return xp.sum(X * X, axis=1)


def _peak_scaled(X, rows, xp):
    """``X`` with each row in the mask ``rows`` divided by its largest ``|entry|``; the divisors."""
    peak = xp.where(rows, xp.max(xp.abs(X), axis=1), xp.ones_like(rows, dtype=X.dtype))
    return X / peak[:, None], peak


def _clip_overflowing_rows(X, bound, xp):
    """:func:`clip_overflowing_rows` and the result's row norms (``bound`` on rows replaced)."""
    sq = _squared_row_norms(X, xp)
    huge = xp.isinf(sq)
    if not bool(xp.any(huge)):
        return X, xp.sqrt(sq)
    scaled, _ = _peak_scaled(X, huge, xp)
    scaled_norms = xp.sqrt(_squared_row_norms(scaled, xp))  # in [1, sqrt(p)] on those rows
    unit = scaled / xp.where(huge, scaled_norms, xp.ones_like(scaled_norms))[:, None]
    X = xp.where(huge[:, None], unit * bound, X)
    return X, xp.where(huge, xp.full_like(sq, bound), xp.sqrt(sq))
