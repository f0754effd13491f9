"""The two jobs of ``python -m skdp``: ``synthesize`` and ``domain``.

Every argument is checked (files, header, domain file, ranges, disk space, the
paths of the outputs against those of the inputs, the plot's format) before a
single data row is read; then the release's budget is reserved on its accountant
(:func:`skdp._base.reserve_fit`) and only then are the rows read, parsed and fitted:
an error while reading them (it may name a line: the reservation is then charged,
as for any fit that failed after reading its data) costs the release's (epsilon,
delta), so that it is no free membership test. The synthetic rows are streamed to
the output. A job
interrupted by Ctrl-C or SIGTERM leaves no partial file and ends with the one
line of :func:`.interrupt.interrupted_line`.
"""

import fnmatch
import glob
import json
import math
import os
import shutil
import sys
import time
import warnings

import numpy as np

from .._base import reserve_fit
from .._domain.forbid import FORBID, split_forbid
from .._validation import check_epsilon_delta, name_list, warn_privacy_leak
from ..privacy.ledger import describe_composition
from ..exceptions import PrivacyLeakWarning
from . import dask_job
from .budget import store_accountant
from .clock import time_key
from .computed import computed_column, computed_columns
from .csvio import _rows as csvio_rows
from .csvio import held_table, read_cells, read_header, replaced, typed_table, write_rows
from .domain import (CsvCells, check_domain, draft_entry, estimator_domain, is_computed,
                     kind_entry, mostly_numbers)
from .texts import CLIPPING_NOTE

__all__ = ["synthesize", "draft_domain"]

BATCH = 100_000
"""Rows per synthetic chunk written to the CSV."""
PART = 10**8
"""Rows per ``iter_sample`` request: a larger output is drawn as several samples
(NumPy's hypergeometric sampler, which splits a request into batches, needs
totals below 1e9)."""

# public round bounds chosen for the demo (not read from the data)
DEMO_COLUMNS = {
    "mean radius": (5.0, 30.0),
    "mean texture": (5.0, 40.0),
    "mean perimeter": (40.0, 200.0),
    "mean area": (100.0, 2600.0),
    "mean smoothness": (0.05, 0.17),
    "mean concavity": (0.0, 0.45),
}
DEMO_BINS = 6
DEMO_SOURCE = "bundled table: scikit-learn breast cancer (569 rows, 7 columns)"


def demo_table():
    """The bundled table: header, rows of cells (text) and its public domain."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    names = list(data.feature_names)
    idx = [names.index(c) for c in DEMO_COLUMNS]
    labels = np.asarray(data.target_names)[data.target]
    rows = [[repr(float(v)) for v in data.data[i, idx]] + [str(labels[i])]
            for i in range(data.data.shape[0])]
    # the table is public and complete: no missing-value cells
    domain = {c: {"low": lo, "high": hi, "missing": False} for c, (lo, hi) in DEMO_COLUMNS.items()}
    domain["diagnosis"] = {"categories": [str(c) for c in data.target_names], "missing": False}
    return list(DEMO_COLUMNS) + ["diagnosis"], rows, domain


def say(args, message):
    """One progress line on stderr (none with --quiet)."""
    if not getattr(args, "quiet", False):
        print(message, file=sys.stderr, flush=True)


def _stage(args, stage):
    """Where the job is, for the line of :func:`.interrupt.interrupted_line`."""
    args.stage = stage


# ----------------------------------------------------------------- checks
def _check_output(path, *inputs):
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"the output {path} is a directory; give a file name.")
    if not os.path.isdir(folder):
        raise ValueError(f"the output's directory {folder} does not exist.")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"cannot write to the output's directory {folder}.")
    check_paths([("-o", path)], [("INPUT", p) for p in inputs])


_GLOB = set("*?[")


def _norm(path):
    """A path's normalised absolute form (symbolic links of its existing part resolved)."""
    return os.path.normcase(os.path.realpath(os.path.abspath(path)))


def _same_file(a, b):
    """Whether two paths name one file: by ``samefile`` when both exist, else by their
    normalised absolute paths; a glob output ('out/*.csv') matches every file it would
    write, a glob input every file it reads."""
    outs = glob.glob(a) if _GLOB & set(a) else [a]
    ins = glob.glob(b) if _GLOB & set(b) else [b]
    if _GLOB & set(a) and _norm(a) == _norm(b):
        return True
    for x in ins:
        if "*" in a and fnmatch.fnmatchcase(_norm(x), _norm(a)):
            return True
        for y in outs:
            if os.path.exists(x) and os.path.exists(y):
                if os.path.samefile(x, y):
                    return True
            elif _norm(x) == _norm(y):
                return True
    return False


def check_paths(outputs, inputs):
    """Refuse an output path that names an input file or another output.

    ``outputs`` and ``inputs`` are ``(flag, path)`` pairs (``path`` None: not
    given). Files are compared by ``os.path.samefile`` when both exist and by
    their normalised absolute paths otherwise.

    Examples
    --------
    >>> check_paths([("-o", "d.json")], [("--domain", "./d.json")])
    Traceback (most recent call last):
    ...
    ValueError: the output d.json (-o) would overwrite the input ./d.json (--domain).
    """
    outputs = [(f, p) for f, p in outputs if p]
    inputs = [(f, p) for f, p in inputs if p]
    for i, (flag, path) in enumerate(outputs):
        for other_flag, other in inputs:
            if _same_file(path, other):
                raise ValueError(f"the output {path} ({flag}) would overwrite the input "
                                 f"{other} ({other_flag}).")
        for other_flag, other in outputs[:i]:
            if _same_file(path, other):
                raise ValueError(f"the outputs {other} ({other_flag}) and {path} ({flag}) "
                                 "are one file.")


def _job_paths(args):
    """The job's outputs and inputs, as :func:`check_paths` takes them."""
    domain = None if args.domain in (None, "private") else args.domain
    return ([("-o", args.output), ("--plot", args.plot),
             ("--report", getattr(args, "report", None))],
            [("INPUT", args.input), ("--domain", domain), ("--holdout", args.holdout),
             ("--store", args.store)])


def _load_domain(path, header):
    try:
        with open(path) as fh:
            domain = json.load(fh)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the domain file {path} is not valid JSON: {exc}.") from None
    check_domain(domain, header)
    try:
        computed_columns(domain, header)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{exc} See `python -m skdp synthesize --help` for the domain file "
                         "format.") from None
    _warn_draft(path, domain)
    return domain


PLOT_NEEDS_LATEX = {"pgf"}
"""Formats matplotlib lists but writes only with a LaTeX installation: refused."""


def _check_plot(path):
    """The plot's directory, and a format (its extension) that matplotlib writes."""
    _check_output(path)
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise ValueError("--plot needs matplotlib, which is not installed: pip install "
                         "'skdp[examples]'.") from None
    formats = sorted(set(FigureCanvasBase.get_supported_filetypes()) - PLOT_NEEDS_LATEX)
    ext = os.path.splitext(path)[1][1:].lower()
    if ext not in formats:
        raise ValueError(f"--plot {path}: " + (f"matplotlib cannot write .{ext} files"
                                               if ext else "the file name has no extension")
                         + f"; end it with one of {', '.join('.' + f for f in formats)}.")


def _check_report(args, header, domain):
    """``--report``'s directory, and ``--report-target`` (a modelled column; needs --holdout
    and --report)."""
    report, target = getattr(args, "report", None), getattr(args, "report_target", None)
    if report is not None:
        _check_output(report)
    if target is None:
        return
    if report is None or args.holdout is None:
        raise ValueError("--report-target needs --report and --holdout (the ML utility is "
                         "scored on the holdout).")
    if target not in header:
        raise ValueError(f"--report-target {target!r} is not a column of the input "
                         f"({len(header)} columns).")
    if isinstance(domain, dict) and is_computed(domain.get(target)):
        raise ValueError(f"--report-target {target!r} is a computed column (a formula or a "
                         "lookup, not modelled): give a modelled column.")


def _row_bytes(header, domain):
    """Typical bytes of one output row, from the public domain entries (1 per unknown cell)."""
    domain = split_forbid(domain)[0]
    widths = [1 if name not in domain else computed_column(name, domain[name], domain).width
              if is_computed(domain[name]) else CsvCells(name, domain[name]).width
              for name in header]
    return sum(widths) + len(header)


def _check_disk(args, header, domain):
    """Refuse up front an output that cannot fit on the output's disk."""
    if args.n_samples is None:
        need = os.path.getsize(args.input) if args.input else 0  # about the input's size
    else:
        need = args.n_samples * _row_bytes(header, domain)
    free = shutil.disk_usage(os.path.dirname(os.path.abspath(args.output))).free
    if need > free:
        raise ValueError(f"the output would take about {need / 1e9:.3g} GB and its disk has "
                         f"{free / 1e9:.3g} GB free: ask for fewer rows (--n-samples).")


def _check_solver_options(solver, options):
    """Check ``--solver-options`` against the solver's spec (aim's for auto), naming the flag."""
    from ..synthesizer import SOLVER_SPECS

    try:
        SOLVER_SPECS["aim" if solver == "auto" else solver].resolve_options(options)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"--solver-options: {exc}") from None


def _check_budget_flags(args):
    """Budget, store and solver flags (opens the store: ``args.accountant``)."""
    auto = isinstance(args.delta, str)
    epsilon, _ = check_epsilon_delta(args.epsilon, 1e-6 if auto else args.delta, need_delta=True)
    args.accountant = store_accountant(args)
    if auto:  # the store's share for this epsilon (1e-6 without a store): public caps only
        from ..privacy.accountant import BudgetAccountant

        args.delta = BudgetAccountant.resolve(args.accountant).default_delta(epsilon)
    if args.solver_options:
        _check_solver_options(args.solver, args.solver_options)
    if math.isinf(epsilon):
        print("warning: --epsilon inf: nothing is private: the synthetic table may reveal "
              "the private rows; use a finite epsilon for a release.", file=sys.stderr)


def check_synthesize(args):
    """Check every argument of ``synthesize`` before any data is read; return (header, domain).

    With ``--store`` it opens the store (``args.accountant``), so a bad file
    or dataset stops the job here (after the paths are checked: an output named
    like the store never creates it).
    """
    check_paths(*_job_paths(args))
    _check_budget_flags(args)
    if args.input is None:
        header, _, domain = demo_table()
    else:
        header = read_header(args.input)
        domain = {}
    _check_output(args.output)
    if args.holdout is not None and read_header(args.holdout) != header:
        raise ValueError(f"the holdout {args.holdout} has the columns {read_header(args.holdout)}, "
                         f"the input {header}.")
    if args.domain == "private":
        domain = "private"
    elif args.domain is not None:
        domain = _load_domain(args.domain, header)
    if args.plot is not None:
        _check_plot(args.plot)
    _check_report(args, header, domain)
    _check_disk(args, header, domain if isinstance(domain, dict) else {})
    _note_clipping(domain, header)
    return header, domain


def _warn_draft(path, domain):
    """Warn while a domain file still holds the "note" entries of ``skdp domain``'s draft
    (their column names only): entries read from the data make the release not private."""
    from .draft import draft_notes

    left = draft_notes(domain)
    if left:
        warn_privacy_leak(
            f"The domain of column(s) {name_list(left)} in {path} (still marked a draft by their "
            "\"note\" entries)",
            "Review each entry, replace what was read from the data by public knowledge, "
            "and delete its note.")


def _note_clipping(domain, header):
    """Say once (a rule: no count, no value from the data) that cells outside public or
    private bounds are clipped: when the domain file gives a numeric column bounds or the
    kind numeric (bounds found privately), and always with ``--domain private`` (before
    the kinds are read, so that the note does not depend on them)."""
    entries = {} if domain == "private" else split_forbid(domain)[0]
    if domain == "private" or any(CsvCells(name, entries[name]).form in ("bounds", "numeric")
                                  for name in header
                                  if name in entries and not is_computed(entries[name])):
        print(CLIPPING_NOTE, file=sys.stderr, flush=True)


# ---------------------------------------------------------- the domain
def resolve_domain(domain, header, cells, n_bins):
    """Every column's entry: from the domain file, else read from the data (warned).

    ``domain`` is the checked domain file (a dict) or ``'private'``; ``cells``
    the rows of text cells (``None`` for missing).
    """
    given, forbid = ({}, []) if domain == "private" else split_forbid(domain)
    todo = [j for j, name in enumerate(header) if name not in given]
    entries, numeric_like = dict(given), []
    for j in todo:
        column = [row[j] for row in cells]
        entries[header[j]] = kind_entry(column) if domain == "private" \
            else draft_entry(column, n_bins)
        if mostly_numbers(column):
            numeric_like.append(header[j])
    names = [header[j] for j in todo]
    if todo and domain == "private":
        warn_privacy_leak(
            f"The kind (numeric, integer, date or categorical) of column(s) {name_list(names)}",
            "Their bounds and categories are found privately; declare the kinds in a domain "
            'file with {"kind": "numeric", "integer": true}, {"kind": "numeric", "date": '
            'true} or {"kind": "categorical"} entries.' + numeric_hint(numeric_like, kind=True))
    elif todo:
        warn_privacy_leak(
            f"The domain (kind, categories or bounds) of column(s) {name_list(names)}",
            "Pass the public categories or bounds of every column in a domain file "
            "(--domain FILE; `python -m skdp domain` drafts one to review), or use "
            "--domain private." + numeric_hint(numeric_like))
    out = {name: entries[name] for name in header}
    if forbid:  # the structural zeros go to the estimator with the entries
        out[FORBID] = forbid
    return out


def numeric_hint(names, kind=False, draft=False):
    """The warning's sentence on columns read as categorical although most of their cells
    are numbers (their names only: no value or count from the data); ``kind``: under
    ``--domain private``, ``draft``: in a draft domain file.

    Examples
    --------
    >>> numeric_hint([])
    ''
    >>> numeric_hint(["age"])[:71]
    " Column(s) ['age'] are read as categorical although most of their cells"
    """
    if not names:
        return ""
    if kind:
        effect, entry = ("its categories are found privately among its distinct cells rather "
                         "than its bounds"), '{"kind": "numeric"} entry'
    elif draft:
        effect, entry = ("the draft lists its distinct cells as categories"),\
            '{"low": .., "high": ..} entry with public bounds'
    else:
        effect, entry = ("each synthetic cell copies a value of the data"),\
            '{"low": .., "high": ..} entry with public bounds'
    return (f" Column(s) {name_list(names)} are read as categorical although most of their "
            "cells are numbers (some cells are not finite numbers, e.g. 'inf' or a stray word), so "
            f"{effect}: give each a {entry} in the domain file (a cell that is not a finite "
            "number is then an error naming its line), or list the stray spellings in "
            "--na-values to read them as missing.")


def _cells(args, header, keep=None):
    """Text cells of the input (or of the bundled table) and their line numbers; ``keep``:
    the indices of the modelled columns (computed columns' cells are never read further)."""
    if args.input is None:
        cells = demo_table()[1]
        return cells, range(2, len(cells) + 2)
    cells, lines = read_cells(args.input, header, args.na_values)
    return _project(cells, keep), lines


def _project(cells, keep):
    """The rows of text cells cut to the columns ``keep`` (None: all of them)."""
    if keep is None:
        return cells
    return [[row[j] for j in keep] for row in cells]


def _file_entries(domain, model):
    """Every modelled column's entry when the domain file gives them all (none read from the
    data: :func:`resolve_domain` without rows), else None."""
    if not isinstance(domain, dict) or any(name not in domain for name in model):
        return None
    return resolve_domain(domain, model, None, None)


def _read_holdout(args, header, model, columns, computed):
    """``(rows, outside)``: the ``--holdout`` file's rows read by every written column
    (``model``'s ``columns`` and the ``computed`` ones), ``outside`` True for a cell whose
    category, code or looked-up value the domain lacks, or a missing cell where the entry
    says ``"missing": false``; None without ``--holdout``. Such
    cells are scored as values no synthetic row takes (:func:`.csvio.held_table`), and a note
    names their columns: the holdout is the curator's, not private."""
    if args.holdout is None:
        return None
    cells, lines = read_cells(args.holdout, header, args.na_values)
    rows, outside = held_table(args.holdout, cells, lines,
                               _output_columns(header, model, columns, computed))
    counts = outside.sum(axis=0)
    if counts.any():
        where = ", ".join(f"{name!r} {n}" for name, n in zip(header, counts) if n)
        print(f"note: {int(outside.any(axis=1).sum())} of the {len(rows)} holdout rows hold a "
              "category, code or looked-up value the domain lacks, or a missing cell where it "
              f"says \"missing\": false (cells by column: {where}): scored as values no "
              "synthetic row takes; add them to the domain file if the column can take them.")
    return rows, outside


# ---------------------------------------------------------------- jobs
def estimator_class():
    """The estimator the CLI runs (a seam for the tests of the CLI's own logic)."""
    from ..synthesizer import SaddlePointSynthesizer

    return SaddlePointSynthesizer


def synthesize(args):
    """Run ``python -m skdp synthesize``; return the exit status."""
    args.started = time.time()
    if dask_job.is_dask_job(args):
        return synthesize_dask(args)
    header, domain = check_synthesize(args)
    computed = computed_columns(domain, header)  # after the release, not modelled
    model = [name for name in header if name not in computed]
    keep = [header.index(name) for name in model] if computed else None
    n_bins = args.n_bins or (DEMO_BINS if args.input is None else 10)
    # the release's budget is reserved before a data row is read (issue 28): an error while
    # reading or parsing the rows (a cell outside the domain names its line) may depend on
    # the data, so it is charged like a fit that failed; the fit takes the reservation over
    est = _estimator(args, estimator_domain(domain) if isinstance(domain, dict) else "private",
                     n_bins)
    _check_width(est, len(model))
    # a domain file that gives every column lets the holdout (not private) be read first:
    # an error in it then charges nothing
    entries = _file_entries(domain, model)
    columns = None if entries is None else [CsvCells(name, entries[name]) for name in model]
    holdout = None if entries is None else _read_holdout(args, header, model, columns, computed)
    with reserve_fit(est) as held:
        _stage(args, "reading")
        say(args, f"reading {args.input or 'the bundled table'}")
        held.reading_data()
        cells, lines = _cells(args, header, keep)
        if entries is None:
            entries = resolve_domain(domain, model, cells, n_bins)
            columns = [CsvCells(name, entries[name]) for name in model]
            holdout = _read_holdout(args, header, model, columns, computed)
        X = typed_table(args.input or "bundled table", cells, lines, columns, args.missing)
        del cells
        est.set_params(domain=estimator_domain(entries))
        say(args, f"fitting: solver {args.solver}, all {args.workload}-way marginals of "
                  f"{len(model)} columns" + (f" ({len(computed)} computed column(s) after)"
                                             if computed else ""))
        _stage(args, "fitting")
        est.fit(X, feature_names=model)
    _stage(args, "fitted")
    del X
    _write(args, est, model, columns, holdout, n_bins, (header, keep, computed))
    return 0


def synthesize_dask(args):
    """``synthesize`` on Dask (:mod:`.dask_job`): a glob or Parquet input or output, or
    ``--scheduler``; return the exit status."""
    dask_job.check_dask_job(args)
    check_paths(*_job_paths(args))
    _check_budget_flags(args)
    # the header (a CSV's first line, a Parquet schema) and the domain file are checked
    # before the budget is reserved; Dask's read_csv reads a sample of the rows to lay the
    # table out, so the table is opened inside the reservation (issue 28), as in memory
    header = dask_job.read_columns(args)
    domain = _load_domain(args.domain, header)
    dates = [name for name, entry in domain.items() if time_key(entry)]
    if dates:
        raise ValueError(f"column(s) {name_list(dates)} are date or timestamp columns (\"date\" "
                         "or \"datetime\": true), read by the in-memory CSV job only: give "
                         "one CSV file as INPUT and OUTPUT, without --scheduler.")
    computed = [name for name, entry in domain.items() if is_computed(entry)]
    if computed:
        raise ValueError(f"column(s) {name_list(computed)} are computed columns (\"formula\" or "
                         "\"lookup\"), computed by the in-memory CSV job only: give one CSV "
                         "file as INPUT and OUTPUT, without --scheduler.")
    _note_clipping(domain, header)
    est = _estimator(args, domain, args.n_bins or 10)
    _check_width(est, len(header))
    client = dask_job.scheduler(args.scheduler)
    try:
        with reserve_fit(est) as held:
            say(args, f"reading {args.input}" + (f" on {args.scheduler}" if client else ""))
            held.reading_data()
            frame = dask_job.read_table(args, header, domain)
            say(args, f"fitting: solver {args.solver}, all {args.workload}-way marginals of "
                      f"{len(header)} columns, {frame.npartitions} partitions")
            _stage(args, "fitting")
            est.fit(frame)
        _stage(args, "fitted")
        n = est.n_records_ if args.n_samples is None else args.n_samples
        say(args, f"writing {n} synthetic rows to {args.output}")
        columns = [CsvCells(name, est.domain_[name]) for name in header]
        _stage(args, "writing parts")
        dask_job.write_table(est.sample_dask(n), args.output, columns)
        _stage(args, "written")
        _report(args, est, n)
    finally:
        if client is not None:
            client.close()
    return 0


def _check_width(est, n_columns):
    """Refuse a table too wide for the solver, or budget shares that leave it nothing, before
    the budget is reserved (the width, the workload and the shares are public), the estimate
    and the flags to change in the message."""
    shares = getattr(est, "_check_shares", None)  # (a stand-in estimator may lack them)
    width = getattr(est, "_check_width", None)
    try:
        if shares is not None:
            shares()
        if width is not None:
            width(n_columns)
    except ValueError as exc:
        raise ValueError(str(exc).replace(
            "domain_share + resolution_share", "--domain-share + --resolution-share").replace(
            "resolution_refine='auto'", "--resolution-refine auto").replace(
            "solver_options['max_candidates']=", "max_candidates=").replace(
            "raise solver_options['max_candidates']",
            "raise it with --solver-options '{\"max_candidates\": N}'").replace(
            "solver='mst'", "--solver mst").replace(
            "a smaller workload (fewer columns, or a list of the marginals that matter)",
            "fewer columns, or --workload 1")) from None


def _estimator(args, entries, n_bins):
    # progress unless --quiet: an updating line on a terminal, one line per round (mst, aim)
    verbose = 0 if args.quiet else 1
    charged = {} if args.accountant is None else dict(accountant=args.accountant)
    return estimator_class()(
        epsilon=args.epsilon, delta=args.delta, solver=args.solver, workload=args.workload,
        domain=entries, n_bins=n_bins, bin_strategy=args.bin_strategy,
        max_categories=args.max_categories, missing=args.missing,
        domain_share=args.domain_share,
        resolution=args.resolution, resolution_share=args.resolution_share,
        resolution_refine=args.resolution_refine, resolution_shrink=args.resolution_shrink,
        neighbouring=args.neighbouring,
        solver_options=args.solver_options,
        random_state=args.seed, verbose=verbose, **charged)


def _write(args, est, header, columns, held, n_bins, output):
    """Write the synthetic rows (``output``: the CSV's header, the modelled columns' indices
    in it, its computed columns), then the holdout report (every column written; ``held``:
    :func:`_read_holdout`'s), the release report and the plot (the modelled columns:
    ``header``, ``columns``)."""
    from .plot import Marginals, plot_marginals

    holdout, outside = (None, None) if held is None else held

    n = est.n_records_ if args.n_samples is None else args.n_samples
    labels = {c.name: c.format for c in columns if c.clock}  # dates and timestamps: ISO
    plot = Marginals(est.domain_, header, n_bins, labels) if args.plot else None
    chunks = _chunks(est, n)
    if plot is not None:
        chunks = (plot.add(chunk) for chunk in chunks)
    out_header, keep, computed = output
    out_columns = _output_columns(out_header, header, columns, computed)
    if computed:
        chunks = _with_computed(chunks, out_header, keep, header, columns, computed)
    kept = []  # the first synthetic rows, for the holdout report and the release report
    report = getattr(args, "report", None)
    if holdout is not None or report is not None:
        chunks = _keep(chunks, kept, out_columns)
    say(args, f"writing {n} synthetic rows to {args.output}")
    _stage(args, "writing")
    written = write_rows(args.output, out_header, out_columns, _progress(args, chunks, n),
                         done=lambda: _stage(args, "written"))
    _report(args, est, written)
    synthetic = np.concatenate(kept) if kept else np.empty((0, len(out_header)), dtype=object)
    if holdout is not None:
        _holdout_report(est, out_header, synthetic, holdout, computed, keep, outside)
    if report is not None:
        page = est.report(synthetic=_modelled(synthetic, keep),
                          holdout=_modelled(holdout, keep),
                          target=getattr(args, "report_target", None),
                          title=f"Release report: {os.path.basename(args.output)}",
                          labels=labels)
        with replaced(report, ".html.part") as tmp:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(page)
        print(f"report: {report}")
    if plot is not None:
        reference = Marginals(est.domain_, header, n_bins, labels)
        if holdout is None:
            print("note: without --holdout the plot shows the private training data; "
                  "do not publish it.")
            cells, lines = _cells(args, out_header, keep)
            reference.add(typed_table(args.input, cells, lines, columns))
            label = "training (private: do not publish)"
        else:
            reference.add(_modelled(holdout, keep))
            label = "holdout"
        with replaced(args.plot, os.path.splitext(args.plot)[1]) as tmp:
            plot_marginals(tmp, header, reference, plot, label,
                           fmt=os.path.splitext(args.plot)[1][1:].lower())
        print(f"plot: {args.plot}")


def _output_columns(out_header, header, columns, computed):
    """How each column of the output is read and written: the modelled columns'
    :class:`~.domain.CsvCells` and the computed columns' :class:`~.computed.Formula` or
    :class:`~.computed.Lookup`."""
    if not computed:
        return columns
    by_name = {**dict(zip(header, columns)), **computed}
    return [by_name[name] for name in out_header]


def _modelled(rows, keep):
    """Rows of the output's columns cut to the modelled ones (``keep``; None: all)."""
    return rows if rows is None or keep is None else rows[:, keep]


def _with_computed(chunks, out_header, keep, header, columns, computed):
    """The synthetic chunks (the modelled columns, ``header``, ``columns``) as rows of the
    output's columns (``out_header``; ``keep``: where the modelled ones go), each computed
    column computed from the values as written (integers rounded; post-processing:
    :mod:`.computed`)."""
    rounded = {col.name for col in columns if col.integer or col.form == "codes"}
    for chunk in chunks:
        rows = np.asarray(chunk, dtype=object)
        full = np.empty((len(rows), len(out_header)), dtype=object)
        full[:, keep] = rows
        for name, column in computed.items():
            values = {used: _as_written(rows[:, header.index(used)], used in rounded)
                      for used in column.names}
            full[:, out_header.index(name)] = column.compute(values)
        yield full


def _as_written(cells, rounded):
    """A synthetic column's values (None where missing), integers rounded as written."""
    if not rounded:
        return cells
    return np.array([v if v is None or isinstance(v, str) or v != v else int(round(float(v)))
                     for v in cells], dtype=object)


def _keep(chunks, kept, columns):
    """Pass the chunks through, keeping their first :data:`.holdout.MAX_ROWS` rows as they
    are written (integer columns rounded) in ``kept``."""
    from .holdout import MAX_ROWS

    rounded = [j for j, col in enumerate(columns) if col.integer or col.form == "codes"]
    held = 0
    for chunk in chunks:
        if held < MAX_ROWS:
            rows = np.array(list(csvio_rows(chunk)), dtype=object)[: MAX_ROWS - held]
            for j in rounded:
                rows[:, j] = _as_written(rows[:, j], True)
            kept.append(rows)
            held += len(rows)
        yield chunk


def _holdout_report(est, header, synthetic, holdout, computed, keep, outside):
    """The synthetic rows' error against the holdout on the holdout's bins (:mod:`.holdout`;
    every column written, ``header``; computed columns binned as their values are), then at the
    synthesizer's own bins (its workload: the modelled columns, ``keep``; the rows with no
    modelled cell ``outside`` the domain)."""
    from .holdout import binned_errors, report_lines

    if len(synthetic) and len(holdout):
        domain = {**est.domain_, **{name: c.score_entry() for name, c in computed.items()}}
        errors = binned_errors(synthetic, holdout, domain, header)
        numeric = any("categories" not in domain[name] for name in header)
        for line in report_lines(errors, len(synthetic), len(holdout), numeric):
            print(line)
    inside = holdout[~_modelled(outside, keep).any(axis=1)]
    if not len(inside):
        print("holdout marginal error at the synthesizer's own bins: no holdout row lies in "
              "the domain")
        return
    values = np.array(list(est.workload_error(_modelled(inside, keep)).values()))
    rows = "" if len(inside) == len(holdout) else \
        f"; the {len(inside)} holdout rows within the domain"
    print(f"holdout marginal error at the synthesizer's own bins (its workload{rows}): "
          f"mean={values.mean():.4f}, max={values.max():.4f} over {len(values)} marginals")


def _report(args, est, written):
    """The release's report: input, rows written, privacy spent, budget store, solver."""
    eps, delta = est.privacy_spent_
    print(f"input: {args.input or DEMO_SOURCE}")
    print(f"wrote {written} synthetic rows to {args.output}")
    print(f"privacy spent: epsilon={eps:.4f}, delta={delta:g} (budget epsilon={args.epsilon:g}, "
          f"delta={args.delta:g})")
    print(f"  composition: {describe_composition(est.privacy_method_)}")
    if args.accountant is not None:
        total, left = args.accountant.total(), args.accountant.remaining()
        print(f"budget store {args.store}, dataset {args.dataset}: spent epsilon={total[0]:.4f}, "
              f"delta={total[1]:g}; left epsilon={left[0]:.4f}, delta={left[1]:g}")
        if args.neighbouring != args.accountant.neighbouring:
            print(f"  this {args.neighbouring} release counts on the store's "
                  f"{args.accountant.neighbouring} budget by group privacy for groups of two "
                  "(its Gaussian counts at sqrt(2) times their add/remove sensitivity)")
    cells = math.prod(est.domain_shape_)
    print(f"solver: {getattr(est, 'solver_', args.solver)}, {len(est.marginals_)} marginals, "
          f"{cells if cells < 10**9 else format(cells, '.3g')} cells, {est.n_iter_} "
          + ("rounds" if getattr(est, "solver_", None) == "aim" else "iterations"))


def _chunks(est, n):
    """The synthetic rows in chunks of at most ``BATCH``, drawn in requests of at most ``PART``."""
    for start in range(0, n, PART):
        yield from est.iter_sample(min(PART, n - start), batch_size=BATCH)


def _progress(args, chunks, n):
    """Pass the chunks through, with a progress line every tenth of a long output."""
    done, step = 0, max(n // 10, BATCH * 5)
    for chunk in chunks:
        yield chunk
        if done // step != (done + len(chunk)) // step:
            say(args, f"  {done + len(chunk)}/{n} rows")
        done += len(chunk)


def draft_domain(args):
    """Run ``python -m skdp domain``: write a draft domain file; return the exit status.

    The draft reads the data without privacy (:mod:`.draft`): a proposal for the curator,
    said on stderr and in every entry's ``"note"``; no fit reads it unless a person
    passes the file to ``synthesize``, which warns while a draft note is left.
    """
    from .draft import propose_entry, relate_columns

    header = read_header(args.input)
    _check_output(args.output, args.input)
    _stage(args, "reading")
    cells, _ = read_cells(args.input, header, args.na_values)
    columns = [[row[j] for row in cells] for j in range(len(header))]
    draft = {name: propose_entry(column) for name, column in zip(header, columns)}
    relate_columns(draft, header, columns)
    numeric_like = [name for name, column in zip(header, columns) if mostly_numbers(column)]
    if args.n_bins is not None:  # else left to `synthesize --n-bins`
        for entry in draft.values():
            if "low" in entry:
                n_bins = args.n_bins if entry["high"] > entry["low"] else 1
                entry.update(n_bins=n_bins, note=entry.pop("note"))
    flagged = [name for name, entry in draft.items()
               if "spiky" in entry["note"] or "heavy-tailed" in entry["note"]]
    computed = [name for name, entry in draft.items() if is_computed(entry)]
    warnings.warn(
        f"the draft domain {args.output} is derived from the private data in {args.input} "
        "without privacy: review every entry (its \"note\" says what was read from the data) "
        "and replace it by public knowledge (the categories a column can take, bounds known "
        "without the data) before a release; a release that uses it unchanged is not "
        "differentially private."
        + (f" Column(s) {name_list(flagged)} are spiky or heavy-tailed (see their \"note\" "
           "entries)."
           if flagged else "")
        + (f" Column(s) {name_list(computed)} are drafted as formulas or lookups of other "
           "columns, read from the data: keep each only if the relation is public."
           if computed else "") + numeric_hint(numeric_like, draft=True),
        PrivacyLeakWarning, stacklevel=2)
    text = ",\n".join(f"  {json.dumps(name)}: {json.dumps(entry)}"
                      for name, entry in draft.items())
    _stage(args, "writing")
    with replaced(args.output, ".json.part", done=lambda: _stage(args, "written")) as tmp:
        with open(tmp, "w") as fh:
            fh.write("{\n" + text + "\n}\n")
    print(f"wrote the draft domain of {len(header)} columns to {args.output}")
    return 0
