"""Estimator-side checks of Dask input (the ``dask`` extra).

The estimators validate a Dask array lazily: what can be checked on the
metadata (dimensions, dtype, rows of ``X`` against ``y``) is checked before
any partition is read; what needs the values (finiteness) is checked by
:func:`check_finite` inside each partition's preparation, with the same
fixed message as scikit-learn's ``validate_data``.
"""

import numpy as np

__all__ = ["check_dask_solver", "check_dask_X", "check_dask_y", "check_finite", "known_rows",
           "rows_unknown", "stream_blocks", "STREAM_ROWS"]


def check_dask_solver(estimator, solver, supported):
    """Refuse a solver that cannot run on a Dask collection, naming those that can.

    Examples
    --------
    >>> check_dask_solver("Est", "a", {"a", "b"})
    >>> try:
    ...     check_dask_solver("Est", "c", {"a", "b"})
    ... except ValueError as exc:
    ...     print(exc)
    Est: solver='c' cannot run on a Dask collection; the solvers that can: 'a', 'b'. \
Pass a NumPy array (e.g. X.compute()) to use it.
    """
    if solver not in supported:
        names = ", ".join(repr(s) for s in sorted(supported)) or "none with these parameters"
        raise ValueError(f"{estimator}: solver={solver!r} cannot run on a Dask collection; "
                         f"the solvers that can: {names}. Pass a NumPy array "
                         "(e.g. X.compute()) to use it.")


def rows_unknown(X):
    """Whether a Dask array's partitions have unknown row counts (a Dask DataFrame's values).

    Examples
    --------
    >>> import dask.array as da
    >>> rows_unknown(da.ones((4, 2), chunks=2))
    False
    """
    return any(np.isnan(c) for c in X.chunks[0])


def known_rows(X):
    """``X`` with its partitions' row counts known: computed if not.

    Computing them computes every partition (the rows are read, and an error
    may depend on them): a fit calls it only once its budget is reserved
    (issue 28), after :func:`check_dask_X` with ``compute_rows=False``.
    """
    return X.compute_chunk_sizes() if rows_unknown(X) else X


def check_dask_X(X, dtypes=(np.float64, np.float32), compute_rows=True):
    """A 2-D Dask array of a float dtype (other numeric dtypes cast to the first of ``dtypes``).

    ``compute_rows=False``: the metadata only (no partition is computed), so a
    Dask DataFrame's row counts may stay unknown (:func:`known_rows` computes
    them); a fit checks its input so before it reserves its budget.

    Examples
    --------
    >>> import dask.array as da
    >>> check_dask_X(da.ones((4, 2), dtype=int, chunks=2)).dtype
    dtype('float64')
    """
    import dask.array as da

    if not isinstance(X, da.Array):
        X = da.asarray(X)  # a Dask DataFrame of numbers: its values
        if compute_rows and hasattr(X, "compute_chunk_sizes"):
            X = known_rows(X)
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array, got {X.ndim}D: reshape X to (n_samples, "
                         "n_features).")
    if X.dtype.kind not in "fiub":
        raise ValueError(f"X has dtype {X.dtype}: expected numbers.")
    if X.dtype not in [np.dtype(d) for d in dtypes]:
        X = X.astype(dtypes[0])
    if X.shape[1] < 1:
        raise ValueError(f"Found array with shape {X.shape}: need at least 1 feature.")
    return X


def check_dask_y(y, X):
    """``y`` as a 1-D Dask array chunked like the rows of ``X`` (a NumPy ``y`` is split).

    Examples
    --------
    >>> import dask.array as da
    >>> X = da.ones((5, 2), chunks=(3, 2))
    >>> check_dask_y(np.arange(5), X).chunks
    ((3, 2),)
    """
    import dask.array as da

    if not isinstance(y, da.Array):
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y has shape {y.shape}; expected ({X.shape[0]},) like the rows "
                             "of X.")
        return da.from_array(y, chunks=(X.chunks[0],))
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got {y.ndim}D.")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"y has {y.shape[0]} rows but X has {X.shape[0]}.")
    return y.rechunk((X.chunks[0],))


def check_finite(a, name="X"):
    """Raise scikit-learn's message (``assert_all_finite``) if ``a`` (one partition) holds
    NaN or infinity: the same text as ``validate_data`` on an in-memory array.

    Examples
    --------
    >>> check_finite(np.array([1.0, np.nan]))
    Traceback (most recent call last):
    ...
    ValueError: Input X contains NaN.
    """
    from sklearn.utils import assert_all_finite

    if a.dtype.kind == "f":
        assert_all_finite(a, input_name=name)
    return a


STREAM_ROWS = 2**18
"""Rows per chunk of a streaming fit on Dask: the stream's chunks are cut at fixed rows."""


def stream_blocks(X, *others):
    """The public length of a streaming fit on Dask, and its chunks at fixed row boundaries.

    A stream calibrates its batch size from its length and cuts each chunk
    into batches, so both must be public (issue 28: calibrated from the first
    partition's size, moving one row between partitions whose boundaries depend
    on the values — ``set_index``, ``read_csv``'s byte ranges — changed the batch
    size and ``n_iter_``). The length is ``X``'s row count (public under
    replace-one); the chunks are cut every :data:`STREAM_ROWS` rows, whatever
    the partitions. ``others`` (``y``, groups: 1-D, chunked like ``X``'s rows)
    are cut the same way.

    Returns
    -------
    n_rows : int
        The stream's length.
    blocks : list of tuple
        Per chunk, the delayed blocks of ``X`` and of each of ``others``.

    Examples
    --------
    >>> import dask.array as da
    >>> X = da.ones((10, 2), chunks=((3, 7), 2))
    >>> n, blocks = stream_blocks(X, da.ones(10, chunks=((3, 7),)))
    >>> n, len(blocks)
    (10, 1)
    """
    n = int(X.shape[0])
    rows = {0: STREAM_ROWS}
    arrays = [X.rechunk({**rows, 1: -1})] + [a.rechunk(rows) for a in others]
    return n, list(zip(*(a.to_delayed().ravel() for a in arrays)))

