"""The command line, ``python -m skdp`` (and the ``skdp`` script).

* ``parser``: the arguments, with plain-text help and defaults;
* ``texts``: help texts and defaults shared with the jobs;
* ``csvio``: CSV headers, missing cells, streamed writing;
* ``domain``: domain files, reading and writing cells by domain, drafts;
* ``commands``: the ``synthesize`` and ``domain`` jobs;
* ``budget``: the ``budget`` job (a budget store's spends and totals) and ``budget-setup``
  (a PostgreSQL store's schema and roles);
* ``interrupt``: Ctrl-C and SIGTERM (one line, no traceback, no partial file).

Only the parser is imported before the arguments are parsed: ``--help`` loads
neither scikit-learn nor SciPy, and each job imports what it needs.
"""

import sys
import warnings

from .interrupt import Terminated, exit_status, interrupted_line, signals_raise
from .parser import build_parser

__all__ = ["main"]


def _show(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {category.__name__}: {message}", file=sys.stderr, flush=True)


def _job(command):
    if command in ("budget", "budget-setup"):
        from .budget import setup_store, show_budget

        return show_budget if command == "budget" else setup_store
    from .commands import draft_domain, synthesize

    return dict(synthesize=synthesize, domain=draft_domain)[command]


def _is_store_error(exc):
    store = sys.modules.get("skdp.privacy.store")  # not loaded: not one of its errors
    return store is not None and isinstance(exc, store.StoreError)


def _interrupted(args, exc):
    terminated = isinstance(exc, Terminated)
    if args is not None and args.command in ("synthesize", "domain"):
        return interrupted_line(args, terminated)
    return "terminated" if terminated else "interrupted"


def main(argv=None):
    """Entry point of ``python -m skdp`` and of the ``skdp`` script; return the exit status.

    Errors are printed as one ``error:`` line (exit status 2), warnings as
    ``warning:`` lines on stderr. Ctrl-C and SIGTERM end the job with one line
    (``interrupted: ...``, ``terminated: ...``), no traceback and no partial file,
    and the exit status 130 or 143.
    """
    args = None
    with signals_raise(), warnings.catch_warnings():
        try:
            args = build_parser().parse_args(argv)
            job = _job(args.command)
            warnings.simplefilter("always")
            warnings.showwarning = _show
            return job(args)
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (Terminated)
            print(_interrupted(args, exc), file=sys.stderr, flush=True)
            return exit_status(exc)
        except Exception as exc:
            if isinstance(exc, (ValueError, TypeError, OSError)) or _is_store_error(exc):
                print(f"error: {exc}", file=sys.stderr)
                return 2
            raise
