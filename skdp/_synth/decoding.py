"""Flat indices of the dense domain ``Z`` decoded back to a table of the fitted kind.

Categorical codes map back to their categories; bin codes to values drawn
uniformly within their bin (integers within it for integer columns), the
missing cell to the column's missing value. The randomness is public (the
sampling generator of :mod:`skdp.solvers.synth.sample`): decoding post-processes
the released histogram.
"""

import numpy as np

__all__ = ["decode", "concat", "to_namespace", "row_bytes", "dask_table"]


def decode(flat, columns, shape, output, rng):
    """The table (DataFrame or array, per ``output``) of the records at flat indices ``flat``."""
    codes = np.unravel_index(flat, shape)
    return _table([c.decode(code, rng) for c, code in zip(columns, codes)], columns, output)


def concat(parts, columns, shape, output, rng):
    """The batches ``parts`` as one table (an empty table when there is none)."""
    if not parts:
        return decode(np.zeros(0, dtype=np.int64), columns, shape, output, rng)
    if output["kind"] == "frame":
        import pandas as pd

        return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def to_namespace(table, like, output):
    """An array table moved to the namespace and device of ``like`` (the histogram)."""
    if isinstance(like, np.ndarray) or output["kind"] == "frame":
        return table
    from .._backend import array_api_compat

    xp = array_api_compat.array_namespace(like)
    return xp.asarray(table, device=array_api_compat.device(like))


def row_bytes(columns, output):
    """Bytes per output row (an estimate: 40 per object or extension-dtype cell)."""
    dtypes = [c.dtype for c in columns] if output["kind"] == "frame" \
        else [output["dtype"]] * len(columns)
    return sum(d.itemsize if isinstance(d, np.dtype) and d.kind != "O" else 40
               for d in dtypes)


def _table(cols, columns, output):
    if output["kind"] == "frame":
        import pandas as pd

        data = {c.name: _series(pd, v, c) for c, v in zip(columns, cols)}
        return pd.DataFrame(data, columns=[c.name for c in columns])
    dtype = output["dtype"]
    out = np.empty((len(cols[0]) if cols else 0, len(cols)), dtype=dtype)
    for j, (c, v) in enumerate(zip(columns, cols)):
        out[:, j] = _array_column(v, c, dtype)
    return out


def _objects(values, integer):
    """Numeric values as Python objects: ints for integer columns, None where missing."""
    out = np.empty(len(values), dtype=object)
    ok = ~np.isnan(values)
    out[ok] = [int(v) for v in values[ok]] if integer else values[ok]
    out[~ok] = None
    return out


def _array_column(values, col, dtype):
    if col.categorical:
        return values
    if dtype.kind in "iu":
        return np.round(values)
    if dtype.kind == "O":
        return _objects(values, col.integer)
    return values


def _series(pd, values, col):
    """One output column of a DataFrame, in the fitted dtype (object when it cannot hold it)."""
    dtype = col.dtype
    if getattr(dtype, "name", "") == "category":
        return pd.Categorical(values, categories=dtype.categories)
    if isinstance(dtype, np.dtype) and dtype.kind == "O" and not col.categorical:
        return pd.Series(_objects(values, col.integer), dtype=object)
    if isinstance(dtype, np.dtype) and dtype.kind in "iu" and not col.categorical:
        values = np.round(values)
    try:
        return pd.Series(values).astype(dtype)
    except (TypeError, ValueError):
        return pd.Series(values, dtype=object)


def dask_table(sampler, sizes, seeds, meta, kind):
    """A Dask DataFrame (``kind='frame'``) or array of the partitions
    ``sampler.sample(sizes[i], random_state=default_rng(seeds[i]))`` (``meta``: an empty
    sample, for the dtypes); the frame's index runs over ``0 .. sum(sizes) - 1``."""
    import dask

    starts = np.concatenate([[0], np.cumsum(sizes)])
    sampler = dask.delayed(sampler, traverse=False)
    parts = [dask.delayed(_sample_part)(sampler, int(m), int(start), seed)
             for m, start, seed in zip(sizes, starts, seeds)]
    if kind == "frame":
        import dask.dataframe as dd

        n = int(starts[-1])
        divisions = [int(s) for s in starts[:-1]] + [n - 1] if n else None
        return dd.from_delayed(parts, meta=meta, divisions=divisions)
    import dask.array as da

    return da.concatenate([da.from_delayed(p, shape=(int(m), meta.shape[1]), dtype=meta.dtype)
                           for p, m in zip(parts, sizes)])


def _sample_part(sampler, m, start, seed):
    table = sampler.sample(m, random_state=np.random.default_rng(seed))
    if hasattr(table, "index"):
        import pandas as pd

        table.index = pd.RangeIndex(start, start + m)
    return table
