"""Ctrl-C and SIGTERM: a job ends with one line on stderr, no traceback, no partial file.

While :func:`signals_raise` is active, SIGINT raises :class:`KeyboardInterrupt`
and SIGTERM :class:`Terminated` (a ``KeyboardInterrupt``, so every ``finally``
and ``except BaseException`` on the way cleans up, and an estimator's fit treats
both alike, see ``skdp._base.PrivacyMixin._fit_atomically``); later signals are
ignored while the job cleans up. :func:`held` defers them over a few statements
that must not be cut in two (a rename and the note that it happened).
"""

import contextlib
import os
import signal
import socket
import threading

__all__ = ["Terminated", "exit_status", "held", "interrupted_line", "signals_raise"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """Raised in the main thread when the process receives SIGTERM."""


class _State:
    active = False
    holding = 0
    pending = None
    fired = None


def _exception(signum):
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _handler(signum, frame):
    if _State.fired is not None:  # cleaning up after the first one: ignored
        return
    if _State.holding:
        _State.pending = signum
        return
    _State.fired = signum
    raise _exception(signum)


def exit_status(exc):
    """The exit status of a job ended by ``exc``: 143 for SIGTERM, 130 for Ctrl-C.

    Examples
    --------
    >>> exit_status(Terminated()), exit_status(KeyboardInterrupt())
    (143, 130)
    """
    return 143 if isinstance(exc, Terminated) else 130


@contextlib.contextmanager
def signals_raise():
    """SIGINT and SIGTERM raise in the main thread while the block runs (a signal the
    process ignores, e.g. SIGINT of a background job, stays ignored)."""
    if threading.current_thread() is not threading.main_thread() or _State.active:
        yield
        return
    old = {s: signal.getsignal(s) for s in _SIGNALS}
    _State.active, _State.holding, _State.pending, _State.fired = True, 0, None, None
    try:
        for s in _SIGNALS:
            if old[s] is not signal.SIG_IGN:
                signal.signal(s, _handler)
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
        _State.active, _State.holding, _State.pending, _State.fired = False, 0, None, None


@contextlib.contextmanager
def held():
    """Defer SIGINT and SIGTERM until the block ends (then raise as they would have).

    Examples
    --------
    >>> with held():
    ...     done = True
    >>> done
    True
    """
    _State.holding += 1
    try:
        yield
    finally:
        _State.holding -= 1
        if not _State.holding and _State.pending is not None and _State.fired is None:
            signum, _State.pending = _State.pending, None
            _State.fired = signum
            raise _exception(signum)


# ------------------------------------------------------------ the line
def interrupted_line(args, terminated):
    """The one line that ends a job interrupted by Ctrl-C (or SIGTERM: ``terminated``).

    It says what was written (a partial output is always removed) and, with
    ``--store``, what the store keeps: nothing before the fit; the fit's
    reservation, charged, when the fit was interrupted (an interrupted fit keeps
    it, see ``skdp._base.PrivacyMixin._fit_atomically``); the release's spend,
    charged, once the fit has returned.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> interrupted_line(SimpleNamespace(stage="reading", output="o.csv"), True)
    'terminated: nothing written'
    """
    stage = getattr(args, "stage", "checks")
    output = getattr(args, "output", None)
    if stage == "written":
        done = f"{output} was written"
        if getattr(args, "plot", None):
            done += f", the plot {args.plot} was not"
    elif stage == "writing parts":
        done = f"part of {output} may have been written"
    else:
        done = "nothing written"
    return ("terminated" if terminated else "interrupted") + ": " + done + _store_line(args)


def _store_line(args):
    """With --store: what the budget store keeps of this run (its rows: this host and process,
    created since the job began)."""
    store, dataset = getattr(args, "store", None), getattr(args, "dataset", None)
    if store is None or getattr(args, "stage", "checks") not in (
            "reading", "fitting", "fitted", "writing", "writing parts", "written"):
        return "" if store is None else f"; nothing was charged to the budget store {store}"
    if not os.path.isfile(store):
        return f"; nothing was charged to the budget store {store}"
    try:
        from ..privacy.store import BudgetStore

        rows = [r for r in BudgetStore(store, timeout=5.0).rows(dataset)
                if r["pid"] == os.getpid() and r["host"] == socket.gethostname()
                and r["created"] >= getattr(args, "started", 0)]
    except Exception:  # the line must still come out
        return f"; see `python -m skdp budget {store}` for what the store keeps"
    if not rows:
        return f"; nothing was charged to the budget store {store}"
    row = rows[-1]
    spend = f"(epsilon={row['epsilon']:g}, delta={row['delta']:g})"
    if row["status"] == "charged":
        return (f"; the budget store {store} keeps the release's spend {spend} charged to "
                f"dataset {dataset}: the fit had run")
    return (f"; the budget store {store} keeps this fit's reservation {spend} charged to "
            f"dataset {dataset}, as for any interrupted fit: the data may have been read "
            f"(`python -m skdp budget {store}` lists it as reserved)")
