"""The command line, ``python -m skdp`` (and the ``skdp`` script).

* ``parser``: the arguments, with plain-text help and defaults;
* ``csvio``: CSV headers, missing cells, streamed writing;
* ``domain``: domain files, reading and writing cells by domain, drafts;
* ``commands``: the ``synthesize`` and ``domain`` jobs;
* ``budget``: the ``budget`` job (a ledger file's spends and totals).
"""

import sys
import warnings

from ..privacy.ledger_store import LedgerError
from .budget import show_budget
from .commands import draft_domain, synthesize
from .parser import build_parser

__all__ = ["main"]


def _show(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {category.__name__}: {message}", file=sys.stderr, flush=True)


def main(argv=None):
    """Entry point of ``python -m skdp`` and of the ``skdp`` script; return the exit status.

    Errors are printed as one ``error:`` line (exit status 2), warnings as
    ``warning:`` lines on stderr.
    """
    args = build_parser().parse_args(argv)
    job = dict(synthesize=synthesize, domain=draft_domain, budget=show_budget)[args.command]
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _show
        try:
            return job(args)
        except (ValueError, TypeError, OSError, LedgerError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
