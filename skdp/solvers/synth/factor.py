"""Log-space factors: arrays over sorted tuples of columns.

A *factor* is an array over a sorted tuple of columns (its axes in that
order); its values are log-potentials or log-probabilities. Products of
factors are broadcast sums of their expanded arrays (:meth:`Factor.expand`),
marginalisation is a log-sum-exp over the dropped axes (:meth:`Factor.keep`),
and :func:`eliminate` computes a marginal of a product of factors by greedy
variable elimination (Koller and Friedman 2009, ch. 9), never forming the
product over all their columns at once.
"""

import math

import numpy as np

__all__ = ["Factor", "logsumexp", "eliminate"]


def logsumexp(values, axes, out=None):
    """``log(sum(exp(values)))`` over ``axes`` (max-shifted; ``-inf`` safe).

    ``out``, an array of the shape of ``values`` (``values`` itself allowed),
    is used as scratch space: no temporary of that size is allocated (the
    large cliques' messages).

    Examples
    --------
    >>> import numpy as np
    >>> float(logsumexp(np.log(np.array([[1.0, 3.0]])), (0, 1)))
    1.3862943611198906
    """
    if not axes:
        return values
    # the ufuncs' reduce directly (the same arithmetic as ndarray.max / .sum, without their
    # Python wrappers: AIM's estimation calls this hundreds of thousands of times)
    top = _max(values, axis=axes, keepdims=True)
    if not _all(_isfinite(top), axis=None):  # a slice of -inf (structural zeros): log 0 = -inf
        top = np.where(_isfinite(top), top, 0.0)
        shifted = np.subtract(values, top, out=out)
        with np.errstate(divide="ignore"):
            out = np.log(_sum(np.exp(shifted, out=shifted), axis=axes))
        return out + top.reshape(out.shape)
    shifted = np.subtract(values, top, out=out)
    out = np.log(_sum(np.exp(shifted, out=shifted), axis=axes))
    return out + top.reshape(out.shape)


_max, _sum, _all, _isfinite = np.maximum.reduce, np.add.reduce, np.logical_and.reduce, np.isfinite


class Factor:
    """A log-space array over a sorted tuple of columns.

    Parameters
    ----------
    cols : tuple of int
        The columns, ascending; axis ``k`` of ``values`` is column ``cols[k]``.
    values : ndarray
        Log-values, of shape ``[shape[c] for c in cols]``.

    Examples
    --------
    >>> import numpy as np
    >>> f = Factor((0, 2), np.log(np.full((2, 3), 0.5)))
    >>> f.expand((0, 1, 2)).shape
    (2, 1, 3)
    >>> np.exp(f.keep((2,)).values)
    array([1., 1., 1.])
    """

    __slots__ = ("cols", "values")

    def __init__(self, cols, values):
        self.cols = tuple(cols)
        self.values = values

    def expand(self, cols):
        """The values reshaped to broadcast over the sorted superset ``cols``."""
        own = dict(zip(self.cols, self.values.shape))
        return self.values.reshape([own.get(c, 1) for c in cols])

    def keep(self, cols):
        """The log-sum-exp of the factor over every column not in ``cols``."""
        keep = set(cols)
        axes = tuple(k for k, c in enumerate(self.cols) if c not in keep)
        return Factor(tuple(c for c in self.cols if c in keep), logsumexp(self.values, axes))


def eliminate(factors, keep, shape):
    """Log-marginal on ``keep`` of the product of ``factors`` (greedy variable elimination).

    The column whose elimination touches the fewest cells goes first; the
    result is unnormalised, over the sorted columns ``keep``.

    Parameters
    ----------
    factors : list of Factor
        The log-factors of the product.
    keep : tuple of int
        The sorted columns to keep.
    shape : sequence of int
        The cardinality of every column.

    Returns
    -------
    log : ndarray
        The log of the product summed over every other column.

    Examples
    --------
    >>> import numpy as np
    >>> f = [Factor((0, 1), np.zeros((2, 3))), Factor((1, 2), np.zeros((3, 2)))]
    >>> np.exp(eliminate(f, (0, 2), (2, 3, 2)))
    array([[3., 3.],
           [3., 3.]])
    """
    others = set().union(*(f.cols for f in factors)) - set(keep)
    while others:
        def cost(v):
            scope = set().union(*(f.cols for f in factors if v in f.cols))
            return math.prod(shape[c] for c in scope)
        v = min(sorted(others), key=cost)
        factors = _combine(factors, v, shape)
        others.discard(v)
    scope = tuple(sorted(set(keep).union(*(f.cols for f in factors))))
    total = np.zeros([shape[c] for c in scope])
    for f in factors:
        total = total + f.expand(scope)
    return total


def _combine(factors, v, shape):
    """Multiply the factors that mention ``v`` and sum ``v`` out (log space)."""
    touch = [f for f in factors if v in f.cols]
    scope = tuple(sorted(set().union(*(f.cols for f in touch))))
    prod = np.zeros([shape[c] for c in scope])
    for f in touch:
        prod = prod + f.expand(scope)
    merged = Factor(scope, prod).keep([c for c in scope if c != v])
    return [f for f in factors if v not in f.cols] + [merged]
