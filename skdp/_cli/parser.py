"""Arguments of ``python -m skdp``: plain-text help with defaults, ranges checked on parsing."""

import argparse
import json
import math
import sys

from ..solvers.spec import choices_with
from ..solvers.synth.registry import SOLVER_SPECS
from .texts import DOMAIN_FORMAT, NA_VALUES

__all__ = ["build_parser"]

# from the synthesizer's registry, which imports no solver (SolverRef): --help loads
# neither scikit-learn nor SciPy
SOLVERS = ["auto", *SOLVER_SPECS]
ADD_REMOVE_SOLVERS = choices_with(SOLVER_SPECS, neighbouring="add_remove")

SYNTHESIZE = """\
Release a differentially private synthetic copy of a CSV table with
skdp.synthesizer.SaddlePointSynthesizer, streamed to OUTPUT.csv. Without INPUT it
runs on a bundled real table (scikit-learn's breast-cancer data: six measurements
cut into bins on public round bounds, and the diagnosis), so it works on a fresh
machine with no download.

With --domain FILE the domain file alone decides how each column is read and
written. Without one, the columns' kinds, categories and bounds are read from the
private data: the release is then not private with the stated budget, and a
PrivacyLeakWarning says so (`python -m skdp domain INPUT.csv -o domain.json`
drafts a file to review). --domain private finds every column's bounds or
categories privately (spending part of the budget); only the columns' kinds are
then read from the data, with a warning.

Missing cells (empty, or one of --na-values) are by default a value of their own,
sampled back as missing and written as empty cells (--missing).

The report prints the privacy spent and how it composed. It never prints an error
measured on the private table (that would leak); --holdout FILE prints the
synthetic marginals' error against a held-out table instead. --report FILE.html
writes a page to send with the release, computed from the release only (its
holdout sections, with --holdout, are marked not private). --seed is for tests:
a release is private only if its randomness is secret and never reused.

The output is written to a hidden file beside it and renamed when complete: a
failure, Ctrl-C (exit status 130) or SIGTERM (143) leaves no partial output, and
one line on stderr says what happened (with --store: whether the release's
spend stays charged).

On Dask: an INPUT or OUTPUT that is a glob ('data/*.parquet', 'data/*.csv') or a
Parquet file, or --scheduler ADDRESS, runs the job with dask.dataframe (pip install
'skdp[dask]'): the counts are reductions over the input's partitions, on the
cluster of --scheduler or else on Dask's local scheduler; the model is estimated
on this machine (its size is public and capped); the synthetic rows are written
partition by partition ('out/*.parquet': one file per partition; 'out/*.csv' too,
or one CSV without '*'). It needs --domain FILE naming every column (Parquet
columns of bool or category dtype may be left out), and takes no --holdout,
--plot or --report."""

DOMAIN = """\
Write a draft domain file for INPUT.csv: every column in the domain file's
object form, as a careful curator would write it: numeric columns with at most
16 distinct values as categories, integer columns that look like codes (values
in 0..k-1, k <= 256, counts that jump from one value to the next, not as
sampling noise alone makes them, and do not peak at multiples of 5) as
categories (at most 50) or {"codes": k}, other numeric columns (counts, ages,
scores, hours) as bounds (with "integer"), dates (ISO, 1/31/2002, 31.01.2002),
timestamps and times of day as date and datetime columns (with their "format"
where not ISO), true/false columns as booleans, the rest as categories; each
entry with "missing" and a "note" saying what was read from the data and
flagging spiky (one value holds >= 10% of the cells) or heavy-tailed numeric
columns, likely identifiers and group keys. The draft is read from the private
data WITHOUT privacy: review every entry and replace it by public knowledge (the
categories a column can take, bounds known without looking at the data), then
delete its note; `synthesize` warns while a draft note is left, and a release
that uses the draft unchanged is not private."""


def _int_at_least(low):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value
    parse.__name__ = "integer"
    return parse


def _real(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if math.isnan(value):
        raise argparse.ArgumentTypeError("must be a number, got nan")
    return value


def _delta(text):
    if text.strip().lower() == "auto":
        return "auto"
    return _real(text)


_delta.__name__ = "number or auto"


def _max_categories(text):
    if text.strip().lower() == "none":
        return None
    return _int_at_least(2)(text)


_max_categories.__name__ = "integer or none"


def _resolution(text):
    if text.strip().lower() == "none":
        return None
    if text.strip().lower() == "auto":
        return "auto"
    return _int_at_least(1)(text)


_resolution.__name__ = "integer, auto or none"


def _share(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {value}")
    return value


_share.__name__ = "number in (0, 1)"


def _share_or_auto(text):
    return "auto" if text == "auto" else _share(text)


_share_or_auto.__name__ = "number in (0, 1) or auto"


def _share_or_zero(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {value}")
    return value


_share_or_zero.__name__ = "number in [0, 1)"


def _share_or_zero_or_auto(text):
    return "auto" if text == "auto" else _share_or_zero(text)


_share_or_zero_or_auto.__name__ = "number in [0, 1) or auto"


def _json_object(text):
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc}): {text!r}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object such as "
                                         f"'{{\"max_model_size\": 1000000}}', got {text!r}")
    return value


_json_object.__name__ = "JSON object"


def _na_values(text):
    return tuple(v.strip() for v in text.split(",") if v.strip())


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the descriptions' line breaks; options show their defaults."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "(default" not in text:
            text += " (default: %(default)s)"
        return text


def _common(p, bins_help):
    p.add_argument("--n-bins", type=_int_at_least(1), default=None, help=bins_help)
    p.add_argument("--na-values", type=_na_values, default=NA_VALUES, metavar="LIST",
                   help="comma-separated spellings of a missing cell besides the empty cell "
                        "(default: %s)" % ",".join(NA_VALUES))


def _add_synthesize(sub):
    p = sub.add_parser("synthesize", help="release a DP synthetic copy of a CSV table",
                       description=SYNTHESIZE, epilog=DOMAIN_FORMAT, formatter_class=_Formatter)
    p.add_argument("input", nargs="?", metavar="INPUT.csv",
                   help="CSV with a header row (default: the bundled table)")
    p.add_argument("-o", "--output", required=True, metavar="OUTPUT.csv",
                   help="synthetic CSV to write (written only when the job succeeds)")
    p.add_argument("--epsilon", type=_real, default=1.0,
                   help="privacy budget epsilon > 0 (inf: no privacy at all)")
    p.add_argument("--delta", type=_delta, default="auto",
                   help="privacy budget delta in (0, 1), or auto: 1e-6, or with --store the "
                        "dataset's share delta_cap * min(1, epsilon / epsilon_cap)**2 "
                        "(BudgetAccountant.default_delta)")
    p.add_argument("--domain", metavar="FILE|private",
                   help="JSON domain file (format below), or 'private' (default: none: "
                        "described from the data, with a PrivacyLeakWarning)")
    p.add_argument("--domain-share", type=_share_or_auto, default="auto", metavar="S|auto",
                   help="share of the budget spent on the domains found privately (--domain "
                        "private, or \"kind\" entries: categories above a noisy-count "
                        "threshold, numeric ranges; a larger share keeps rarer categories) and "
                        "on compressing columns of many categories; auto: 0.4 where every "
                        "column's domain is found privately, 0.1 where none is, in proportion "
                        "between (default: auto)")
    p.add_argument("--workload", type=_int_at_least(1), default=2,
                   help="marginals to preserve: all k-way marginals")
    p.add_argument("--solver", default="auto", choices=SOLVERS,
                   help="solver; auto: aim (a graphical model: any number of columns), or "
                        "mst when epsilon x rows is below 1000")
    p.add_argument("--solver-options", type=_json_object, default=None, metavar="JSON",
                   help="expert options of the solver, a JSON object (mst and aim take some, "
                        "e.g. '{\"max_model_size\": 1000000}'; an unknown key is an error "
                        "that lists the valid ones; with --solver auto they are aim's)")
    p.add_argument("--missing", default="keep", choices=["keep", "drop", "error"],
                   help="missing cells: keep them as a value of their own, drop their rows "
                        "before the fit, or stop with an error")
    p.add_argument("--neighbouring", default="replace_one", choices=["replace_one", "add_remove"],
                   help="neighbouring tables of the guarantee: one row replaced (the row count "
                        "is public), or one row added or removed (solvers "
                        f"{', '.join(ADD_REMOVE_SOLVERS)})")
    _common(p, "bins of a numeric column whose domain entry has no n_bins "
               "(default: 10; 6 for the bundled table)")
    p.add_argument("--bin-strategy", default="fine", choices=["uniform", "quantile", "fine"],
                   help="how a numeric column's public bounds are cut into bins: equal widths, "
                        "at the quantiles of noisy counts on a fine grid (a private release "
                        "that spends part of the budget), or read from the fine release of "
                        "--resolution (free: split where the rows are; equal bins where the "
                        "column is near-uniform, has no fine grid or a forbidden interval)")
    p.add_argument("--resolution", type=_resolution, default="auto", metavar="R|auto|none",
                   help="fine grid of a numeric column (one cell per integer for integer "
                        "columns with at most R integers in their bounds, 256 with auto; else a "
                        "cell per bound and R equal cells, with auto as many as the row count "
                        "and the noise support) and, on equal cells, the exact values many rows "
                        "hold (spikes, above a noisy threshold): their noisy counts (a private "
                        "release that spends --resolution-share of the budget and, unless every "
                        "such column is an integer one, a tenth of delta) place the values "
                        "within their bins; none: values uniform within their bins (default: "
                        "auto)")
    p.add_argument("--resolution-share", type=_share_or_auto, default="auto", metavar="S|auto",
                   help="share of the budget spent on the fine grids and spikes; auto: 0.2, or "
                        "0.35 where a grid would have fewer than 2 cells per model bin at 0.2 "
                        "(small tables, small epsilon) (default: auto)")
    p.add_argument("--resolution-refine", type=_share_or_zero_or_auto, default="auto",
                   metavar="F|auto",
                   help="a second level of the fine grids: cells with heavy noisy counts "
                        "split into sub-cells and measured again; F: on that share of "
                        "--resolution-share (0: none); auto: the columns whose cells holding "
                        "a fifth of the rows their cells spread hold half of them together, "
                        "those cells, on 0.05 of the budget taken from the model's share, "
                        "spent only when such a column exists, then a third level on the sub-cells "
                        "holding a fifth of a refined column's spread rows, on another "
                        "0.025 (default: auto)")
    p.add_argument("--resolution-shrink", action=argparse.BooleanOptionalAction, default=True,
                   help="sample values within a model bin from their fine counts shrunk "
                        "toward a smooth shape (James-Stein: per-integer counts toward flat, "
                        "equal cells of a column without spikes toward a linear density; "
                        "post-processing: the release is unchanged; default on)")
    p.add_argument("--max-categories", type=_max_categories, default=100, metavar="K|none",
                   help="a column with more than K public categories is compressed: its "
                        "categories with small noisy counts (a private release that spends "
                        "part of the budget) share one cell; none: never compress")
    p.add_argument("--n-samples", type=_int_at_least(0), default=None,
                   help="rows to write (default: as many as the input)")
    p.add_argument("--holdout", metavar="HOLDOUT.csv",
                   help="held-out CSV with the same header: print the synthetic marginals' "
                        "error on it")
    p.add_argument("--plot", metavar="FILE.png",
                   help="figure of every column's 1-way marginal, synthetic against the "
                        "holdout, in the format of its extension (.png, .pdf, .svg... any "
                        "that matplotlib writes; needs matplotlib)")
    p.add_argument("--report", metavar="FILE.html",
                   help="write the release report: one self-contained HTML page computed from "
                        "the release only (what was released and at what budget, each column "
                        "against its noisy measurement, the model's fit to its measurements); "
                        "with --holdout, the holdout errors too (marked not private)")
    p.add_argument("--report-target", metavar="COLUMN",
                   help="with --report and --holdout: the column the report's ML utility "
                        "section predicts (a model trained on the synthetic rows, scored on "
                        "the holdout)")
    p.add_argument("--seed", type=_int_at_least(0), default=None,
                   help="random seed, for reproducible tests only (a release must omit it)")
    p.add_argument("--quiet", action="store_true", help="print no progress")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on the Dask cluster of this distributed scheduler (e.g. "
                        "tcp://10.0.0.1:8786); see 'On Dask' above")
    _store_options(p)


class _DeprecatedLedger(argparse.Action):
    """``--ledger FILE``: the deprecated name of ``--store FILE`` (a warning; one release)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print("warning: --ledger is deprecated: the budget store is --store FILE; --ledger "
              "will be removed in the next release.", file=sys.stderr)
        setattr(namespace, self.dest, values)


def _store_options(p):
    g = p.add_argument_group("a budget shared across processes and people (python -m skdp "
                             "budget FILE shows it)")
    g.add_argument("--store", metavar="FILE",
                   help="the budget store (a SQLite file) charged with this release (created "
                        "if absent); the release is refused before the data are read if it "
                        "would overspend")
    g.add_argument("--ledger", dest="store", action=_DeprecatedLedger, help=argparse.SUPPRESS)
    g.add_argument("--dataset", metavar="NAME", help="the dataset whose budget is charged "
                                                     "(required with --store)")
    g.add_argument("--budget-epsilon", type=_real, default=None, metavar="EPS",
                   help="the dataset's total epsilon, set once in the store (default: the one "
                        "stored)")
    g.add_argument("--budget-delta", type=_real, default=None, metavar="DELTA",
                   help="the dataset's total delta, set once in the store (default: the one "
                        "stored)")
    g.add_argument("--purpose", metavar="TEXT", help="who and why, kept with the spend")


BUDGET = """\
Print the spends of a budget store (BudgetAccountant(..., store=FILE or a
postgresql:// URL)): one row per spend, with who spent it, its status
(reserved: a fit running, or one whose process died, counted; charged:
counted; released: a reservation cancelled because its fit failed before
reading the data, not counted),
then each dataset's composed total, the rule that gave it, and what is left of
its budget."""


BUDGET_SETUP = """\
Print the SQL that makes a PostgreSQL database a budget store shared by a team
(BudgetAccountant(..., store=URL)): the schema skdp, its tables, the roles
skdp_curator (sets caps), skdp_analyst (reserves, charges, cancels its own
reservations) and skdp_auditor (reads), their privileges, and the triggers that
keep the spends append-only. --apply runs it (as the database's owner)."""


def _add_budget(sub):
    p = sub.add_parser("budget", help="show the spends and totals of a budget store (file or "
                       "server)", description=BUDGET, formatter_class=_Formatter)
    p.add_argument("store", metavar="FILE|URL",
                   help="the budget store: a SQLite file, or a postgresql:// URL")
    p.add_argument("--dataset", metavar="NAME", help="only this dataset (default: all)")
    p = sub.add_parser("budget-setup", help="print or apply a PostgreSQL store's schema and "
                       "roles", description=BUDGET_SETUP, formatter_class=_Formatter)
    p.add_argument("url", metavar="URL", help="postgresql://[user@]host[:port]/database "
                   "(a password comes from PGPASSWORD, ~/.pgpass or a service file)")
    p.add_argument("--apply", action="store_true", help="run the SQL instead of printing it")


def _add_domain(sub):
    p = sub.add_parser("domain", help="draft a domain file from a CSV (to review)",
                       description=DOMAIN, epilog=DOMAIN_FORMAT, formatter_class=_Formatter)
    p.add_argument("input", metavar="INPUT.csv", help="CSV with a header row")
    p.add_argument("-o", "--output", required=True, metavar="DOMAIN.json",
                   help="domain file to write")
    _common(p, "bins of each numeric column of the draft, written as its n_bins (default: "
               "none written, so `synthesize --n-bins` decides)")


def build_parser():
    """The parser of ``python -m skdp`` (subcommands ``synthesize``, ``domain``, ``budget``).

    Examples
    --------
    >>> build_parser().parse_args(["synthesize", "-o", "out.csv"]).epsilon
    1.0
    """
    parser = argparse.ArgumentParser(prog="python -m skdp",
                                     description="skdp: differentially private estimators.")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_synthesize(sub)
    _add_domain(sub)
    _add_budget(sub)
    return parser
