"""Rows of one fit split into partitions that stay where they live; sums come back.

Every skdp release is a sum over rows followed by noise on the sum (clipped
gradient sums, second moments, marginal counts). :class:`Partitions` holds
the per-row arrays of one fit (features, labels, clip factors, ...) as
partitions in cluster memory (a Dask collection, persisted) and evaluates
one data pass as one reduction: ``fn(part, *args)`` on each partition where
it lives, the partial results added on the client. Noise is drawn on the
client only, by the caller, from the fit's generator: a partitioned fit
draws the same noise as the in-memory fit of the same seed, and differs
from it by the order of floating-point additions only.

This module knows nothing of estimators, solvers or privacy; Dask is
imported only when a Dask collection is given (the ``dask`` extra).
"""

import sys

import numpy as np

__all__ = ["Partitions", "is_dask_collection"]


def is_dask_collection(x):
    """Whether ``x`` is a Dask collection (array, DataFrame, Series, bag).

    Does not import Dask: an object of a module not loaded cannot be one.

    Examples
    --------
    >>> is_dask_collection(np.zeros(3))
    False
    """
    if "dask" not in sys.modules:
        return False
    from dask import is_dask_collection as is_collection

    return bool(is_collection(x))


def _client():
    """The current ``distributed`` client, or None (no cluster: dask's local scheduler)."""
    if "distributed" not in sys.modules:
        return None
    from distributed import default_client

    try:
        return default_client()
    except ValueError:
        return None


def _add(total, part):
    """Elementwise sum of two results (arrays, scalars, or tuples/lists of them)."""
    if total is None:
        return part
    if isinstance(part, (tuple, list)):
        return type(part)(_add(t, p) for t, p in zip(total, part))
    return total + part


def _merge(layers):
    """One partition's dict from its layers (a later layer's arrays replace an earlier's)."""
    if len(layers) == 1:
        return layers[0]
    part = {}
    for layer in layers:
        part.update(layer)
    return part


def _apply(fn, layers, args, kwargs):
    return fn(_merge(layers), *args, **kwargs)


def _apply_rows(fn, layers, index, args, kwargs):
    return fn({name: a[index] for name, a in _merge(layers).items()}, *args, **kwargs)


def _part(names, blocks):
    return dict(zip(names, blocks))


def _rows(part):
    return len(next(iter(part.values()))) if part else 0


def _select(part, names):
    return {name: part[name] for name in names}


class Partitions:
    """Per-row arrays of one fit, split by rows, each partition a dict ``{name: array}``.

    Parameters
    ----------
    parts : list
        One Dask object (a persisted ``Delayed`` or a future) per partition,
        each computing a dict of NumPy arrays with the same number of rows; or
        per partition a tuple of them, its *layers*, whose dicts are merged
        (a later layer's arrays replace an earlier's): :meth:`with_columns`
        adds a layer of per-row arrays without a second copy of the others.
    sizes : sequence of int
        Rows of each partition (the layout: public, it does not depend on
        the values of the rows; an empty partition is allowed).

    Attributes
    ----------
    n : int
        Rows in all.
    offsets : ndarray of shape (n_partitions + 1,)
        First row of each partition in the fit's row order, and ``n``.

    Examples
    --------
    >>> import dask.array as da
    >>> X = da.from_array(np.arange(12.0).reshape(6, 2), chunks=(4, 2))
    >>> parts = Partitions.from_arrays({"X": X})
    >>> parts.n, parts.sizes.tolist()
    (6, [4, 2])
    >>> parts.reduce(lambda part: part["X"].sum(axis=0)).tolist()
    [30.0, 36.0]
    """

    def __init__(self, parts, sizes):
        self.parts = [p if isinstance(p, tuple) else (p,) for p in parts]
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)
        self.n = int(self.offsets[-1])
        self._futures = None

    @classmethod
    def from_arrays(cls, arrays, prepare=None, args=(), persist=True):
        """Partitions of Dask arrays that share their row chunks.

        Parameters
        ----------
        arrays : dict of {name: dask.array.Array}
            1-D or 2-D arrays with the same number of rows; their row chunks
            are aligned to the first one's (unknown chunk sizes are computed:
            the layout, not the values).
        prepare : callable, default=None
            ``prepare(part, *args) -> dict`` run on each partition before it
            is persisted (validation, clipping: per-row work done once).
        args : tuple
            Public arguments of ``prepare``.
        persist : bool, default=True
            Keep the prepared partitions in cluster memory (the solvers'
            many passes read them there).
        """
        import dask

        names = list(arrays)
        first = arrays[names[0]]
        if any(np.isnan(c) for c in first.chunks[0]):
            first = first.compute_chunk_sizes()
        rows = first.chunks[0]
        blocks = {}
        for name in names:
            a = first if name == names[0] else arrays[name]
            if a.shape[0] != first.shape[0] and not np.isnan(a.shape[0]):
                raise ValueError(f"{name} has {a.shape[0]} rows, expected {first.shape[0]}.")
            a = a.rechunk({0: rows, **{i: -1 for i in range(1, a.ndim)}})
            blocks[name] = a.to_delayed().ravel()
        parts = [dask.delayed(_part)(names, [blocks[name][i] for name in names])
                 for i in range(len(rows))]
        if prepare is not None:
            parts = [dask.delayed(prepare)(p, *args) for p in parts]
        if persist:
            parts = list(dask.persist(*parts))
        return cls(parts, rows)

    @classmethod
    def from_frame(cls, frame, prepare, args=(), persist=True):
        """Partitions of a Dask DataFrame: ``prepare(pandas_partition, *args) -> dict``.

        ``prepare`` turns each pandas partition into per-row arrays (e.g. the
        integer codes of each column on its public domain); the partitions'
        lengths are read (the layout, not the values).
        """
        import dask

        parts = [dask.delayed(prepare)(p, *args) for p in frame.to_delayed()]
        if persist:
            parts = list(dask.persist(*parts))
        sizes = dask.compute(*[dask.delayed(_rows)(p) for p in parts])
        return cls(parts, sizes)

    def map(self, fn, *args, **kwargs):
        """``[fn(part, *args, **kwargs) for part in partitions]``, computed where they live."""
        return self._run(_apply, [(fn, p, args, kwargs) for p in self._handles()])

    def _handles(self):
        """The partitions as futures of the current ``distributed`` client (cached), or as
        they are (``Delayed``) without one."""
        client = _client()
        if client is None:
            return self.parts
        if self._futures is None or self._futures[0] is not client:
            self._futures = (client, [tuple(client.compute(list(p))) for p in self.parts])
        return self._futures[1]

    def _run(self, fn, calls):
        """``[fn(*call) for call in calls]``: one task each. With a ``distributed`` client the
        tasks are submitted on the partitions' futures directly (a pass then costs about half
        the scheduling time of a graph built and computed by ``dask.compute``)."""
        client = _client()
        if client is None:
            import dask

            return list(dask.compute(*[dask.delayed(fn, pure=False)(*c) for c in calls]))
        return client.gather([client.submit(fn, *c, pure=False) for c in calls])

    def reduce(self, fn, *args, **kwargs):
        """One pass: ``sum(fn(part, *args, **kwargs) for part in partitions)``.

        ``fn`` returns an array, a number, or a tuple or list of them (summed
        elementwise); it must accept an empty partition (0 rows).
        """
        total = None
        for result in self.map(fn, *args, **kwargs):
            total = _add(total, result)
        return total

    def reduce_rows(self, index, fn, *args, **kwargs):
        """``fn`` on the rows ``index`` (sorted global row numbers) of each partition, summed.

        The rows of a subsample (Poisson sampling drawn on the client from
        the fit's generator, e.g.) are split by partition; each partition
        receives its own local row numbers only (``fn`` sees the
        partition restricted to them).
        """
        index = np.asarray(index, dtype=np.int64)
        cuts = np.searchsorted(index, self.offsets)
        calls = [(fn, p, index[cuts[i]:cuts[i + 1]] - self.offsets[i], args, kwargs)
                 for i, p in enumerate(self._handles())]
        total = None
        for result in self._run(_apply_rows, calls):
            total = _add(total, result)
        return total

    def with_parts(self, fn, *args, persist=True):
        """New partitions ``fn(part, *args)`` (e.g. the rows centred on a released mean)."""
        return Partitions(self._derive(fn, args, persist), self.sizes)

    def with_columns(self, fn, *args, persist=True):
        """The partitions with the arrays of ``fn(part, *args)`` (a dict) added or replaced.

        The new arrays are a layer of their own (persisted): the others are
        not copied, in cluster memory or when spilled to disk (a generation
        of the whole partition per derived array would hold the table
        several times over).

        Examples
        --------
        >>> import dask.array as da
        >>> parts = Partitions.from_arrays({"X": da.ones((4, 2), chunks=(3, 2))})
        >>> twice = parts.with_columns(lambda part: {"Y": 2 * part["X"]})
        >>> float(twice.reduce(lambda part: part["Y"].sum() - part["X"].sum()))
        8.0
        """
        layer = self._derive(fn, args, persist)
        return Partitions([p + (new,) for p, new in zip(self.parts, layer)], self.sizes)

    def _derive(self, fn, args, persist):
        import dask

        derived = [dask.delayed(_apply, pure=False)(fn, p, args, {}) for p in self.parts]
        return list(dask.persist(*derived)) if persist else derived

    def select(self, names):
        """Partitions holding only the arrays ``names`` (no copy where they live)."""
        return self.with_parts(_select, list(names), persist=False)
