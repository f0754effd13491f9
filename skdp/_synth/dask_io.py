"""A Dask table read for the synthesizer: columns from its metadata, values by partition.

The columns (names, dtypes) and so their public domains come from the Dask
collection's metadata, before any partition is read; a column whose domain
would be read from the values is refused (:func:`check_public`). Each
partition is then read once where it lives (:func:`partitions`): the
``missing`` rule applied to its rows and every column's values prepared
(:meth:`skdp._domain.Column.prepare`: category indices, or floats) into
:class:`~skdp._partitions.Partitions` persisted in cluster memory. The domain
releases (compression, quantile bins) are count reductions over them
(:func:`domain_counts`); the solvers then read the integer codes of the
records on the final domain (:func:`codes`), by count reductions only.

Dask is imported only inside the functions (the ``dask`` extra).
"""

import numpy as np
from sklearn.utils.validation import _assert_all_finite

from .._domain import Column
from .._validation import name_list
from . import encoding

__all__ = ["columns_of", "check_public", "partitions", "domain_counts", "codes"]


def columns_of(X, feature_names):
    """Columns of a Dask DataFrame or 2-D Dask array from its metadata (no value read).

    Returns the columns, an empty table of the same columns (for the feature
    names) and the output kind.
    """
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, dd.DataFrame):
        names = encoding.frame_names(X, feature_names)
        columns = [Column(name=n, dtype=d) for n, d in zip(names, X.dtypes)]
        return columns, X._meta, dict(kind="frame", dtype=None)
    if not isinstance(X, da.Array):
        raise TypeError("a Dask table must be a Dask DataFrame or a 2-D Dask array, got "
                        f"{type(X).__name__}.")
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array, got {X.ndim}D: reshape X to (n_samples, "
                         "n_features).")
    if X.dtype.kind == "c":
        raise ValueError("Complex data not supported.")
    names = encoding.array_names(X.shape[1], feature_names)
    columns = [Column(name=n, dtype=X.dtype) for n in names]
    return columns, np.empty((0, X.shape[1])), dict(kind="array", dtype=X.dtype)


def check_public(columns, how):
    """Refuse, before any value is read, a column whose domain is not public.

    Examples
    --------
    >>> check_public([Column("a", object)], ["data"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: on a Dask table every column's domain must be public: pass ...
    """
    found = [c.name for c, h in zip(columns, how) if h != "public"]
    if found:
        raise ValueError(
            "on a Dask table every column's domain must be public: pass the categories or "
            f"bounds of column(s) {name_list(found)} in `domain` (or give them a bool or pandas "
            "category dtype). Domains found privately (domain='private', \"kind\" entries) or read "
            "from the data are not supported on a cluster.")


def partitions(X, columns, missing, allow_empty=False):
    """The table's :class:`~skdp._partitions.Partitions` of prepared values ``v0, v1, ...``.

    The ``missing`` rule, then :meth:`~skdp._domain.Column.prepare`, with the
    in-memory path's errors. Not persisted: the few passes that read the
    prepared values (the domain's 1-way releases, the codes) read the
    source again, and only the codes (:func:`codes`) stay in cluster memory.
    The sizes are those after ``missing='drop'``; no row left is an error unless
    ``allow_empty`` (``neighbouring='add_remove'``, where the row count is private).
    """
    import dask.dataframe as dd

    from .._partitions import Partitions

    if isinstance(X, dd.DataFrame):
        parts = Partitions.from_frame(X, _prepare_frame, args=(columns, missing), persist=False)
    else:
        parts = Partitions.from_arrays({"X": X.rechunk({1: -1})}, prepare=_prepare_array,
                                       args=(columns, missing), persist=False)
        if missing == "drop":
            parts = Partitions(parts.parts, parts.map(_rows))
    if parts.n == 0 and not (allow_empty and missing == "drop"):
        raise ValueError("every row has a missing value: missing='drop' leaves no row."
                         if missing == "drop" else "Found a Dask table with 0 rows while a "
                         "minimum of 1 is required by SaddlePointSynthesizer.")
    return parts


def _rows(part):
    return len(part["v0"])


def _prepare_frame(frame, columns, missing):
    return _prepare([frame[c.name].to_numpy() for c in columns], columns, missing)


def _prepare_array(part, columns, missing):
    X = part["X"]
    if X.dtype.kind == "f":
        _assert_all_finite(X, allow_nan=True, input_name="X")
    return _prepare([X[:, j] for j in range(X.shape[1])], columns, missing)


def _prepare(values, columns, missing):
    values = encoding.complete(values, [c.name for c in columns], missing, allow_empty=True)
    return {f"v{j}": c.prepare(v) for j, (c, v) in enumerate(zip(columns, values))}


def domain_counts(parts, counts, columns, index):
    """``counts(columns, prepared values)`` (an additive count function of
    :mod:`skdp._domain`) of the columns ``index``, summed over the partitions: one pass."""
    return parts.reduce(_domain_block, counts, columns, list(index))


def _domain_block(part, counts, columns, index):
    return counts(columns, [part[f"v{j}"] for j in index])


def codes(parts, columns):
    """Partitions of the records' codes on the final domain, persisted: ``{"codes": (rows, d)}``
    in the smallest unsigned integer dtype that holds the largest public cardinality (one
    byte per cell below 256 categories: a table of 1e9 rows and 10 small columns is 10 GB)."""
    dtype = np.min_scalar_type(max(c.cardinality for c in columns) - 1)
    return parts.with_parts(_codes_block, columns, dtype)


def _codes_block(part, columns, dtype):
    cols = [c.encode_prepared(part[f"v{j}"]) for j, c in enumerate(columns)]
    return {"codes": np.stack(cols, axis=1).astype(dtype)}
