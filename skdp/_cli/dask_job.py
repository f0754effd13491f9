"""``synthesize`` on Dask: Parquet or CSV globs in and out, optionally on a cluster.

``python -m skdp synthesize 'data/*.parquet' -o 'out/*.parquet' --domain domain.json
[--scheduler ADDRESS]``: the input is read by :mod:`dask.dataframe` (Parquet as
typed; CSV cells read by their domain entries, as the in-memory job reads them),
the synthesizer is fitted on the Dask DataFrame (the counts are reductions over
its partitions; the model is estimated on the client) and the synthetic table is
written partition by partition (:meth:`SaddlePointSynthesizer.sample_dask`).
With ``--scheduler`` the work runs on that ``distributed`` scheduler, else on
Dask's local scheduler. Every column's domain must be public (``--domain FILE``).

pandas, dask and distributed (the ``dask`` extra) are imported only here, inside
the functions that need them: the rest of the command line runs on the base
install (numpy, scipy, scikit-learn).
"""

import functools
import glob
import importlib
import os

from .csvio import read_header
from .._domain.forbid import split_forbid
from .domain import CsvCells

__all__ = ["is_dask_job", "check_dask_job", "need", "read_columns", "read_table", "write_table",
           "scheduler"]

_GLOB = set("*?[")
_PARQUET = (".parquet", ".pq")


def need(module, what, extra="dask"):
    """Import an optional ``module`` for ``what``, or raise a one-line ValueError naming
    the extra that installs it.

    Examples
    --------
    >>> need("os", "the test").sep == os.sep
    True
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ValueError(f"{what} needs the {module.split('.')[0]} package, which is not "
                         f"installed: pip install 'skdp[{extra}]'.") from None


def _is_parquet(path):
    return path.lower().endswith(_PARQUET)


def is_dask_job(args):
    """Whether ``synthesize`` runs on Dask: a glob or Parquet input or output, or --scheduler.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> is_dask_job(SimpleNamespace(input="data/*.csv", output="o.csv", scheduler=None))
    True
    >>> is_dask_job(SimpleNamespace(input="t.csv", output="o.csv", scheduler=None))
    False
    """
    paths = [p for p in (args.input, args.output) if p]
    return args.scheduler is not None or any(_GLOB & set(p) or _is_parquet(p) for p in paths)


def check_dask_job(args):
    """The checks of a Dask job that need no data: its input, output and flags."""
    if args.input is None:
        raise ValueError("a Parquet, glob or --scheduler job needs an INPUT (a file or a glob "
                         "such as 'data/*.parquet').")
    for flag in ("holdout", "plot", "report"):
        if getattr(args, flag, None) is not None:
            raise ValueError(f"--{flag} is not supported with a Parquet, glob or --scheduler "
                             "job.")
    if args.domain is None or args.domain == "private":
        raise ValueError("a Parquet, glob or --scheduler job needs --domain FILE: on Dask every "
                         "column's domain must be public (no domain read from the data or found "
                         "privately).")
    if not glob.glob(args.input):
        raise ValueError(f"no input file matches {args.input}.")
    out = args.output
    if _is_parquet(out) and "*" not in os.path.basename(out):
        raise ValueError(f"a Parquet output is written partition by partition: give a glob "
                         f"such as {os.path.join(os.path.dirname(out) or '.', '*.parquet')}.")
    if not (_is_parquet(out) or out.lower().endswith(".csv")):
        raise ValueError(f"the output {out} must end with .parquet or .csv.")
    if "*" in os.path.dirname(out) or os.path.basename(out).count("*") > 1:
        raise ValueError(f"the output {out} may hold one '*', in its file name only.")
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(os.path.dirname(folder)):
        raise ValueError(f"the output's directory {folder} cannot be created.")
    job = "a Parquet, glob or --scheduler job"
    for module in ("pandas", "dask.dataframe") + (("distributed",) if args.scheduler else ()):
        need(module, job)
    if any(_is_parquet(p) for p in (args.input, out)):
        need("pyarrow", "a Parquet input or output")


def read_columns(args):
    """The input's column names, read before the release's budget is reserved: a CSV
    glob's header line (of its first file, as Dask reads it), a Parquet dataset's schema
    (its footer metadata). No data row is read (issue 28)."""
    if _is_parquet(args.input):
        import dask.dataframe as dd

        return [str(c) for c in dd.read_parquet(args.input).columns]
    return read_header(sorted(glob.glob(args.input))[0])


def read_table(args, header, domain):
    """The input as a Dask DataFrame of the columns ``header`` (:func:`read_columns`),
    CSV cells read by their ``domain`` entries. Dask reads a sample of the rows here
    (the CSV layout): call it once the release's budget is reserved."""
    import dask.dataframe as dd
    import pandas as pd

    if _is_parquet(args.input):
        frame = dd.read_parquet(args.input)
    else:
        frame = dd.read_csv(args.input, dtype=str, keep_default_na=False,
                            na_values=[""] + list(args.na_values), skipinitialspace=True)
    found = [str(c).strip() for c in frame.columns]
    if found != header:  # no cell in the message: the columns only
        raise ValueError(f"the input's columns {found} are not its header's {header}.")
    if not _is_parquet(args.input):
        frame.columns = header
        entries = split_forbid(domain)[0]
        columns = [CsvCells(name, entries[name]) if name in entries else None
                   for name in header]
        meta = pd.DataFrame({name: pd.Series(dtype=object) for name in header})
        frame = frame.map_partitions(_parse_cells, columns, meta=meta)
    return frame


def _parse_cells(frame, columns):
    """CSV cells (text; missing: NA) read by their domain entries, as the in-memory job does."""
    import pandas as pd

    out = {}
    for name, col in zip(frame.columns, columns):
        cells = frame[name].to_numpy(dtype=object)
        out[name] = pd.Series([None if pd.isna(c) else (c.strip() if col is None else
                                                         col.parse(c.strip(), "CSV input"))
                               for c in cells], index=frame.index, dtype=object)
    return pd.DataFrame(out, index=frame.index)


def write_table(table, path, columns):
    """Write the synthetic Dask DataFrame: Parquet files (one per partition) or CSV (a glob:
    one file per partition; else one file), values formatted by the domain for CSV."""
    import pandas as pd

    if _is_parquet(path):
        folder = os.path.dirname(path) or "."
        name = functools.partial(_part_name, os.path.basename(path))
        table.to_parquet(folder, name_function=name, write_index=False)
        return
    meta = pd.DataFrame({c.name: pd.Series(dtype=object) for c in columns})
    text = table.map_partitions(_format_cells, columns, meta=meta)
    text.to_csv(path, index=False, single_file="*" not in path)


def _part_name(pattern, i):
    return pattern.replace("*", str(i))


def _format_cells(frame, columns):
    import pandas as pd

    return pd.DataFrame({c.name: [c.format(v) for v in frame[c.name].to_numpy(dtype=object)]
                         for c in columns}, index=frame.index, dtype=object)


def scheduler(address):
    """A ``distributed.Client`` connected to ``address`` (None: Dask's local scheduler)."""
    if address is None:
        return None
    return need("distributed", "--scheduler").Client(address)
