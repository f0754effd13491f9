"""Domain compression on noisy 1-way marginals (MST, McKenna, Miklau, Sheldon 2021, §4).

A column's values whose noisy count is below ``factor`` times its noise's
standard deviation are merged into one value before the pairs are measured:
the merged cell carries one noise draw per pair cell instead of one per rare
value, and its 1-way measurement is the sum of the merged noisy counts (noise
sd ``sigma * sqrt(k)`` for ``k`` values). All of it is post-processing of the
released 1-way counts: no privacy cost. The model is fitted on the compressed
domain and expanded back (:class:`CompressedModel`): a merged value is drawn
among its values in proportion to their noisy counts clipped at 0 (uniformly
when all are 0), never uniformly by default as upstream's ``reverse_data``.
"""

from dataclasses import dataclass
import math

import numpy as np

from .graphical import Measurement, rounded_counts

__all__ = ["ColumnMerge", "compress", "compress_zeros", "CompressedModel", "protected"]


@dataclass(frozen=True)
class ColumnMerge:
    """One column's compression: kept codes, merged codes and their sampling weights.

    Compressed code ``i < len(keep)`` is original code ``keep[i]``; code
    ``len(keep)`` is the merged value, drawn back among ``merged`` with
    probabilities ``weights``.

    Examples
    --------
    >>> import numpy as np
    >>> m = ColumnMerge(np.array([0, 2]), np.array([1, 3]), np.array([0.25, 0.75]))
    >>> m.lookup(4).tolist(), m.cardinality
    ([0, 2, 1, 2], 3)
    """

    keep: np.ndarray
    merged: np.ndarray
    weights: np.ndarray

    @property
    def cardinality(self):
        return len(self.keep) + 1

    def lookup(self, size):
        """Compressed code of each original code ``0 .. size-1``."""
        out = np.full(size, len(self.keep), dtype=np.int64)
        out[self.keep] = np.arange(len(self.keep))
        return out

    def expansion(self, size):
        """``E`` of shape ``(size, cardinality)``: ``p_original = E @ p_compressed``."""
        out = np.zeros((size, self.cardinality))
        out[self.keep, np.arange(len(self.keep))] = 1.0
        out[self.merged, -1] = self.weights
        return out


def merge_column(values, sigma, factor, protect=()):
    """The :class:`ColumnMerge` of one noisy 1-way marginal, or ``None`` (nothing to merge).

    Values with a noisy count below ``factor * sigma`` are merged when there
    are at least two of them; the codes of ``protect`` (named by structural zeros:
    public) are never merged.

    Examples
    --------
    >>> import numpy as np
    >>> merge_column(np.array([50.0, 1.0, 40.0, 2.0]), 5.0, 3.0).keep.tolist()
    [0, 2]
    >>> merge_column(np.array([50.0, 1.0, 40.0]), 5.0, 3.0) is None
    True
    """
    low = values < factor * sigma
    low[np.asarray(protect, dtype=np.int64)] = False
    if low.sum() < 2:
        return None
    clipped = np.maximum(values[low], 0.0)
    total = clipped.sum()
    weights = clipped / total if total > 0 else np.full(low.sum(), 1.0 / low.sum())
    return ColumnMerge(np.flatnonzero(~low), np.flatnonzero(low), weights)


def compress(shape, ones, factor, protect=None):
    """Compress the columns of ``shape`` on their noisy 1-way measurements ``ones``.

    Parameters
    ----------
    shape : tuple of int
        Column cardinalities.
    ones : list of Measurement
        One 1-way measurement per column, in column order (one sigma or one per cell).
    factor : float
        Merge threshold in noise standard deviations (MST's 3).
    protect : dict, optional
        ``{column: codes}`` never merged (:func:`protected`: the values named by
        structural zeros keep a cell of their own, so that the zeros stay cells of
        the compressed domain).

    Returns
    -------
    new_shape : tuple of int
    merges : dict
        ``{column: ColumnMerge}`` for the compressed columns.
    measurements : list of Measurement
        ``ones`` on the new domain (a merged cell's sigma is ``sigma sqrt(k)``; with
        per-cell sigmas, the root of the sum of its cells' variances).

    Examples
    --------
    >>> import numpy as np
    >>> ones = [Measurement((0,), np.array([50.0, 1.0, 40.0, 2.0]), 5.0)]
    >>> new_shape, merges, meas = compress((4,), ones, 3.0)
    >>> new_shape, meas[0].values.tolist(), meas[0].sigma.tolist()
    ((3,), [50.0, 40.0, 3.0], [5.0, 5.0, 7.0710678118654755])
    """
    new_shape, merges, out = list(shape), {}, []
    for j, m in enumerate(ones):
        merge = merge_column(m.values, m.sigma, factor, (protect or {}).get(j, ()))
        if merge is None:
            out.append(m)
            continue
        merges[j] = merge
        new_shape[j] = merge.cardinality
        values = np.append(m.values[merge.keep], m.values[merge.merged].sum())
        sd = np.broadcast_to(np.asarray(m.sigma, dtype=np.float64), m.values.shape)
        sigma = np.append(sd[merge.keep], math.sqrt(float(np.sum(np.square(sd[merge.merged])))))
        out.append(Measurement(m.cols, values, sigma))
    return tuple(new_shape), merges, out


def protected(shape, zeros):
    """``{column: codes}`` that appear in a forbidden cell of the structural ``zeros``
    (``{cols: boolean mask}``; public).

    Examples
    --------
    >>> protected((3, 2), {(0, 1): np.array([[0, 0], [0, 1], [0, 0]], bool)})
    {0: [1], 1: [1]}
    """
    out = {}
    for cols, mask in (zeros or {}).items():
        mask = np.asarray(mask, dtype=bool)
        for axis, c in enumerate(cols):
            other = tuple(a for a in range(mask.ndim) if a != axis)
            hit = np.flatnonzero(mask.any(axis=other) if other else mask)
            out[c] = sorted(set(out.get(c, [])) | set(hit.tolist()))
    return out


def compress_zeros(zeros, merges):
    """The structural ``zeros`` on the compressed domain: each protected code keeps its
    cell (:func:`protected`), and the merged cell, made of unnamed codes only, is never
    forbidden.

    Examples
    --------
    >>> merge = ColumnMerge(np.array([1, 2]), np.array([0, 3]), np.array([0.5, 0.5]))
    >>> compress_zeros({(0,): np.array([0, 1, 0, 0], bool)}, {0: merge})[(0,)].tolist()
    [True, False, False]
    """
    if not zeros:
        return zeros
    out = {}
    for cols, mask in zeros.items():
        mask = np.asarray(mask, dtype=bool)
        for axis, c in enumerate(cols):
            if c in merges:
                keep = merges[c].keep
                if mask.take(merges[c].merged, axis=axis).any():
                    raise RuntimeError(f"column {c}: a value named by a structural zero was "
                                       "merged by the compression.")
                pad = np.zeros_like(mask.take([0], axis=axis))
                mask = np.concatenate([mask.take(keep, axis=axis), pad], axis=axis)
        out[cols] = mask
    return out


def compress_codes(codes, shape, merges):
    """The records' codes on the compressed domain (a new array)."""
    out = codes.copy()
    for j, merge in merges.items():
        out[:, j] = merge.lookup(shape[j])[codes[:, j]]
    return out


class CompressedModel:
    """A graphical model fitted on a compressed domain, read on the original one.

    Parameters
    ----------
    model : GraphicalModel
        The model over the compressed domain.
    shape : tuple of int
        The original column cardinalities.
    merges : dict
        ``{column: ColumnMerge}``.

    Attributes
    ----------
    model, shape, merges
    cliques : list of tuple
        The model's cliques (column indices are unchanged).
    total : float

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.solvers.synth.graphical import GraphicalModel
    >>> merge = ColumnMerge(np.array([0]), np.array([1, 2]), np.array([0.5, 0.5]))
    >>> m = CompressedModel(GraphicalModel((2,), {}, total=4), (3,), {0: merge})
    >>> m.marginal((0,)).tolist()
    [0.5, 0.25, 0.25]
    """

    def __init__(self, model, shape, merges):
        self.model, self.shape, self.merges = model, tuple(shape), dict(merges)
        self.cliques, self.total = model.cliques, model.total

    def marginal(self, cols):
        """Probabilities over ``cols`` on the original domain (merged values spread by weight)."""
        out = self.model.marginal(cols)
        for axis, c in enumerate(cols):
            if c in self.merges:
                out = np.moveaxis(np.tensordot(
                    self.merges[c].expansion(self.shape[c]), out, axes=([1], [axis])), 0, axis)
        return out

    def project_counts(self, cols):
        """``total * marginal(cols)``."""
        return self.total * self.marginal(cols)

    def sample(self, n, rng, chunk=100_000):
        """Rows of original codes: the model's rows, merged values drawn back by weight.

        The rows holding a merged value get its values in counts rounded from
        ``rows * weights`` (systematic rounding, as the model's sampler),
        in a random order.
        """
        out = self.model.sample(n, rng, chunk)
        for j, merge in self.merges.items():
            codes = out[:, j].copy()
            kept = codes < len(merge.keep)
            out[kept, j] = merge.keep[codes[kept]]
            rows = np.flatnonzero(~kept)
            counts = rounded_counts(np.array([len(rows)]), merge.weights[None, :], rng)[0]
            out[rng.permutation(rows), j] = np.repeat(merge.merged, counts)
        return out

