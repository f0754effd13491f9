"""The budget store: an accountant's spends kept in a SQLite file, shared by processes and people.

The file holds every spend charged to a dataset's budget, one row each: when,
what spent it (a label, the estimator's parameters, its solver), its claimed
(epsilon, delta), the composable parts of its :class:`~.ledger.PrivacyLedger`
(JSON, one object per ledger event, :meth:`~.ledger.LedgerEntry.flat`), the
fingerprint of a fixed noise seed, a free-text purpose and a status:

* ``'reserved'``: a fit checked the budget and holds its claim while it runs;
* ``'charged'``: the fit returned (or the spend was recorded directly);
* ``'released'``: the reservation was cancelled, its fit having failed before
  it read the data (kept for the record, not counted; the stored word predates
  :meth:`~skdp.privacy.accountant.BudgetAccountant.cancel`).

A reservation counts as charged until it is cancelled: a process that dies
mid-fit leaves it counted (the data may have been read). The check that a new
spend fits the budget and its reservation run in one ``BEGIN IMMEDIATE``
transaction, so concurrent processes never overspend. This module stores
rows; it composes nothing (that is :class:`~.accountant.BudgetAccountant`'s
job) and knows nothing of estimators.

Seeds. A fixed seed written in a shared file would let anyone who reads the
file refit each candidate neighbouring table with it and keep the one that
reproduces the published model. The ``seed`` column therefore holds only a
salted, deliberately slow fingerprint (``scrypt`` with a random salt kept in the
file's ``meta`` table): equal seeds still give equal fingerprints, so a reused
seed is still detected, but the fingerprint does not reveal the seed and each
guess costs a scrypt evaluation (tens of milliseconds and 16 MiB). A guessable
seed (0, 42, a date) stays guessable: a few thousand guesses are cheap. The
answer is ``random_state=None`` (fresh noise, nothing to fingerprint) for a
release. A file written before this (skdp < issue 28) is scrubbed when it is
next opened for writing: each plain seed is replaced by its fingerprint (reuse
across old and new rows is still detected) and the ``random_state`` value is
removed from each row's ``params``, with SQLite's ``secure_delete`` on so that
the old text is overwritten in the file (copies and backups made before keep
it).

A Gaussian part of an add/remove spend may carry ``replace_ratio`` (its
replace-one over add/remove sensitivity, issue 28 item 9), which a replace-one
budget converts it by; a part without it (every file written before) is
converted by group privacy. The field is left out where it was not recorded,
so only such parts need this version to be read (an older skdp refuses a part
with a field it does not know, rather than drop it).

The file is recognised by ``PRAGMA application_id`` and a ``meta`` table with
its schema version; a foreign, newer, truncated or corrupt file raises
:class:`StoreError` and is never reset. A file locked by another process for
longer than ``timeout`` seconds raises :class:`StoreLockedError`.

One storage interface, two stores. :func:`~skdp.privacy.accountant.open_store` opens
the store a path or URL names: a path is this SQLite file (the default; it needs nothing), a
``postgresql://`` URL a database on a PostgreSQL server
(:class:`~.store_postgres.PostgresBudgetStore`, with the optional
``skdp[postgres]`` extra), shared by machines. Both hold the same tables and
columns (the server's ``spends`` adds ``spent_by``, the role that inserted the
row, set by the server) and answer the same methods: ``transaction(work,
lock=dataset)`` and ``read(work)`` run ``work(con)`` on a connection whose
``execute(sql, params)`` takes this module's SQL (``?`` placeholders), and
``select``, ``select_ids``, ``select_seed``, ``counted``, ``add``, ``update``,
``budget_of`` work inside one; ``rows``, ``insert``, ``budget``,
``set_budget``, ``relation``, ``datasets``, ``fingerprint`` and ``identity``
run their own.
"""

import hashlib
import json
import os
import socket
import sqlite3
import tempfile
import threading
import time

from .ledger import _FLAT_ORDER, EVENT_KINDS, LedgerEntry

__all__ = ["StoreError", "StoreLockedError", "BudgetStore", "decode_parts", "encode_parts",
           "is_url", "store_name", "scrub_params"]

APPLICATION_ID = 0x736B6470  # 'skdp'
SCHEMA_VERSION = 2
"""2: each spend's and each budget's neighbouring relation (issue 28); a version-1 file is
upgraded when opened (its rows' relation is NULL: read as ``'replace_one'``, skdp's default)."""
STATUSES = ("reserved", "charged", "released")
_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE budgets (
    dataset TEXT PRIMARY KEY, epsilon REAL NOT NULL, delta REAL NOT NULL, created REAL NOT NULL,
    neighbouring TEXT);
CREATE TABLE spends (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dataset TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('reserved', 'charged', 'released')),
    label TEXT NOT NULL,
    params TEXT,
    solver TEXT,
    epsilon REAL NOT NULL,
    delta REAL NOT NULL,
    parts TEXT,
    seed TEXT,
    purpose TEXT,
    host TEXT,
    pid INTEGER,
    neighbouring TEXT);
CREATE INDEX spends_dataset ON spends (dataset, status);
"""
SEED_KDF = dict(n=2**14, r=8, p=1, dklen=16)
"""scrypt's cost parameters for seed fingerprints (16 MiB, tens of ms per evaluation)."""
FINGERPRINT_PREFIX = "scrypt:"
_INHERITED: list = []
"""Connections a forked child inherited: kept referenced, so that collecting them does not
close (and checkpoint) the parent's connection from the child (SQLite, "How To Corrupt")."""
_COLUMNS = ("id", "dataset", "created", "updated", "status", "label", "params", "solver",
            "epsilon", "delta", "parts", "seed", "purpose", "host", "pid", "neighbouring")


class StoreError(RuntimeError):
    """A budget store that cannot be used: foreign, newer, truncated or corrupt.

    Raised when the file is opened or read, before any fit touches data; the
    message names the file. The file is never reset or overwritten.

    Examples
    --------
    >>> import os, tempfile
    >>> from skdp import BudgetAccountant, StoreError
    >>> path = os.path.join(tempfile.mkdtemp(), "plain.txt")
    >>> _ = open(path, "w").write("not a database at all, but long enough to read")
    >>> try:
    ...     BudgetAccountant(1.0, 1e-6, store=path, dataset="d")
    ... except StoreError as exc:
    ...     print("not an SQLite file" in str(exc))
    True
    """


class StoreLockedError(StoreError, TimeoutError):
    """A budget store locked by another process for longer than the timeout.

    The accountant's ``timeout`` (seconds) bounds the wait for SQLite's write
    lock; the fit is refused before it reads the data.

    Examples
    --------
    >>> from skdp import StoreError, StoreLockedError
    >>> issubclass(StoreLockedError, StoreError), issubclass(StoreLockedError, TimeoutError)
    (True, True)
    """


def encode_parts(entries):
    """JSON text of a ledger's events: one flat object per event (:meth:`LedgerEntry.flat`).

    Parameters
    ----------
    entries : list of LedgerEntry
        The (compacted) ledger's events.

    Returns
    -------
    text : str
        A JSON array. Each object is the event's kind and the fields that
        apply to it, in the flat format skdp wrote before typed events
        (``kind, count, epsilon, delta, rho, mu, q, label, replace_ratio``;
        ``delta`` written 0 for the kinds that have none, an exponential or
        pure event's derived ``rho`` written): an older skdp sharing the store
        reads it as it always did, and any JSON reader can read it (an
        infinite value is written ``Infinity``, as Python's ``json`` does).

    Examples
    --------
    >>> from skdp.privacy.ledger import ZCDPEvent
    >>> encode_parts([ZCDPEvent(0.5)])
    '[{"kind": "zcdp", "count": 1, "delta": 0.0, "rho": 0.5, "label": ""}]'
    """
    return json.dumps([e.flat() for e in entries])


def decode_parts(text):
    """The ledger events of :func:`encode_parts`'s text.

    A field missing from the text takes its "not set" value; a field this
    version does not know (a file written by a newer skdp), a kind it does not
    know, or a value for a field that does not apply to the kind raises
    :class:`StoreError`, since dropping it could change the composition.

    Examples
    --------
    >>> from skdp.privacy.ledger import PureEvent
    >>> decode_parts(encode_parts([PureEvent(0.1)]))[0]
    PureEvent(epsilon=0.1, count=1, label='')
    """
    out = []
    for item in json.loads(text):
        item = dict(item)
        kind = item.pop("kind", None)
        unknown = set(item) - set(_FLAT_ORDER)
        if unknown or kind not in EVENT_KINDS:
            what = (f"field(s) {sorted(unknown)}" if unknown else f"kind {kind!r}")
            raise StoreError(f"a spend's part has {what} that this version of skdp does not "
                             "know: upgrade skdp to read this budget store.")
        try:
            out.append(LedgerEntry.from_fields(kind, **item))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"a spend's part cannot be read: {exc}") from None
    return out


class BudgetStore:
    """The rows of a budget store (see the module's docstring for its format).

    Each operation opens its own connection, so one store serves every thread
    and survives ``fork`` and pickling (by its path).

    Parameters
    ----------
    path : str or path-like
        The SQLite file; created (atomically, fully initialised) if it does not
        exist. An existing empty file is refused: it may be a store truncated
        to nothing.
    timeout : float, default=30.0
        Seconds to wait for another process's lock before
        :class:`StoreLockedError`.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "budget.sqlite")
    >>> store = BudgetStore(path)
    >>> rid = store.insert("demo", dict(status="charged", label="fit", epsilon=1.0, delta=0.0))
    >>> [r["epsilon"] for r in store.rows("demo")]
    [1.0]
    """

    def __init__(self, path, timeout=30.0):
        self.path = os.path.abspath(os.fspath(path))
        self.timeout = float(timeout)
        self._local = threading.local()
        self._fingerprints = {}
        if not os.path.exists(self.path):
            self._create()
        self._check(quick_check=True)
        self._salt = self._scrub()

    # opening ------------------------------------------------------------------------
    def _connect(self):
        """This thread's connection (one per thread and process: a forked child opens its own)."""
        con = getattr(self._local, "con", None)
        if con is not None and self._local.pid == os.getpid():
            return con
        if con is not None:  # the parent's, inherited by fork: never used nor closed here
            _INHERITED.append(con)
        try:
            con = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None,
                                  check_same_thread=True)
            con.execute("PRAGMA synchronous = FULL")  # a commit is on disk when it returns
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        self._local.con, self._local.pid = con, os.getpid()
        return con

    def close(self):
        """Close this thread's connection (the others close when the store is collected)."""
        con = getattr(self._local, "con", None)
        if con is not None and self._local.pid == os.getpid():
            con.close()
        elif con is not None:
            _INHERITED.append(con)
        self._local.con = None

    def _error(self, exc):
        text = str(exc)
        if "locked" in text or "busy" in text:
            return StoreLockedError(
                f"the budget store {self.path} stayed locked by another process for more "
                f"than {self.timeout:g} s ({text}); nothing was charged. Retry, or raise "
                "timeout=.")
        return StoreError(
            f"the budget store {self.path} is unreadable: {text}. It is never reset: "
            "restore it from a backup (it may be truncated or corrupt).")

    def _create(self):
        """Initialise a new file beside ``path`` and link it in place (never over a file)."""
        folder = os.path.dirname(self.path)
        fd, tmp = tempfile.mkstemp(prefix=".skdp-ledger-", suffix=".tmp", dir=folder)
        os.close(fd)
        try:
            con = sqlite3.connect(tmp, isolation_level=None)
            try:
                con.execute("PRAGMA journal_mode = WAL")
                con.executescript(_SCHEMA)
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                con.executemany("INSERT INTO meta VALUES (?, ?)", [
                    ("application", "skdp privacy ledger"),
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("created", repr(time.time())),
                    ("seed_salt", os.urandom(16).hex())])
            finally:
                con.close()
            try:
                os.link(tmp, self.path)
            except FileExistsError:
                pass  # another process created it first: use theirs
        finally:
            os.remove(tmp)

    def _check(self, quick_check=False):
        """Refuse a file that is not an skdp budget store of this schema, or is damaged."""
        if os.path.getsize(self.path) == 0:
            raise StoreError(f"the budget store {self.path} is an empty file (a store "
                             "truncated to nothing?); it is never reset: restore it from a "
                             "backup, or delete it to start a new store.")
        with open(self.path, "rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                raise StoreError(f"{self.path} is not an SQLite file, so not an skdp budget "
                                 "store; give another path.")
        con = self._connect()
        try:
            app = con.execute("PRAGMA application_id").fetchone()[0]
            if app != APPLICATION_ID:
                raise StoreError(f"{self.path} is an SQLite file of another application "
                                 f"(application_id={app}), not an skdp budget store.")
            meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
            version = int(meta.get("schema_version", -1))
            if version == 1:
                version = self._upgrade(con)
            if version != SCHEMA_VERSION:
                raise StoreError(f"the budget store {self.path} has schema version "
                                 f"{version}; this skdp reads version {SCHEMA_VERSION}.")
            if quick_check:
                result = con.execute("PRAGMA quick_check").fetchone()[0]
                if result != "ok":
                    raise StoreError(f"the budget store {self.path} is damaged ({result}); "
                                     "it is never reset: restore it from a backup.")
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def _upgrade(self, con):
        """Version 1 -> 2: a ``neighbouring`` column in ``spends`` and ``budgets``."""
        def work(con):
            version = int(dict(con.execute("SELECT key, value FROM meta").fetchall())
                          ["schema_version"])
            if version == 1:  # another process may have upgraded it meanwhile
                con.execute("ALTER TABLE spends ADD COLUMN neighbouring TEXT")
                con.execute("ALTER TABLE budgets ADD COLUMN neighbouring TEXT")
                con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                            (str(SCHEMA_VERSION),))
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            return SCHEMA_VERSION
        try:
            return self.transaction(work)
        except StoreError as exc:
            raise StoreError(f"the budget store {self.path} was written by an older skdp "
                             f"(schema version 1) and could not be upgraded ({exc}); open it "
                             "once where it can be written.") from None

    # seeds --------------------------------------------------------------------------
    def fingerprint(self, seed):
        """The text stored for a noise seed: a salted scrypt digest (None stays None).

        Equal seeds give equal fingerprints in one file (its salt), so a reused
        seed is detected; the seed cannot be read back, and each guess at it
        costs a scrypt evaluation. A guessable seed stays guessable: use
        ``random_state=None`` for a release.

        Parameters
        ----------
        seed : str or None
            What makes a fit's noise reproducible (:func:`skdp._base.noise_seed`).

        Returns
        -------
        fingerprint : str or None
            ``'scrypt:<32 hex digits>'``.

        Examples
        --------
        >>> import os, tempfile
        >>> store = BudgetStore(os.path.join(tempfile.mkdtemp(), "budget.sqlite"))
        >>> fp = store.fingerprint("random_state=0")
        >>> fp.startswith("scrypt:"), fp == store.fingerprint("random_state=0"), "0" in fp[:7]
        (True, True, False)
        """
        if seed is None or str(seed).startswith(FINGERPRINT_PREFIX):
            return seed
        seed = str(seed)
        if seed not in self._fingerprints:
            digest = hashlib.scrypt(seed.encode(), salt=bytes.fromhex(self._salt),
                                    maxmem=64 * 2**20, **SEED_KDF)
            self._fingerprints[seed] = FINGERPRINT_PREFIX + digest.hex()
        return self._fingerprints[seed]

    def _scrub(self):
        """The file's seed salt; give an older file one, and replace its plain seeds.

        Rows written before seeds were fingerprinted hold the seed's text and
        ``random_state``'s value in ``params``: each is replaced (the seed by its
        fingerprint, the value by ``'<withheld>'``) in one transaction, with
        ``secure_delete`` on. A file that cannot be written (read-only) is
        read as it is.
        """
        def read_salt(con):
            return dict(con.execute("SELECT key, value FROM meta").fetchall()).get("seed_salt")

        salt = self.read(read_salt)
        plain = self.read(lambda con: con.execute(
            "SELECT COUNT(*) FROM spends WHERE (seed IS NOT NULL AND seed NOT LIKE ?) OR "
            "(params LIKE '%random_state%' AND params NOT LIKE '%\"random_state\": null%' "
            "AND params NOT LIKE '%\"random_state\": \"<withheld>\"%')",
            (FINGERPRINT_PREFIX + "%",)).fetchone()[0])
        if salt is not None and not plain:
            return salt
        con = self._connect()
        try:
            con.execute("PRAGMA secure_delete = ON")
        except sqlite3.Error:
            pass

        def work(con):
            found = read_salt(con)
            if found is None:
                found = os.urandom(16).hex()
                con.execute("INSERT INTO meta VALUES ('seed_salt', ?)", (found,))
            self._salt = found
            rows = con.execute("SELECT id, seed, params FROM spends").fetchall()
            for row_id, seed, params in rows:
                new_seed, new_params = self.fingerprint(seed), scrub_params(params)
                if (new_seed, new_params) != (seed, params):
                    con.execute("UPDATE spends SET seed = ?, params = ? WHERE id = ?",
                                (new_seed, new_params, row_id))
            return found
        try:
            salt = self.transaction(work)
        except StoreError:
            if salt is None:  # read-only and never salted: fingerprints need a salt
                raise
            return salt
        try:  # the old pages out of the write-ahead log's way: overwritten in the file
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            pass
        return salt

    # transactions -------------------------------------------------------------------
    def transaction(self, work, lock=None):
        """Run ``work(con)`` in one ``BEGIN IMMEDIATE`` transaction; return its result.

        The write lock is taken first, so the rows ``work`` reads cannot change
        before it commits. An exception rolls everything back. ``lock`` (a
        dataset name) is what a server locks (:class:`~.store_postgres.PostgresBudgetStore`
        locks that dataset's cap row); the file's write lock already covers every dataset.
        """
        return self._run("BEGIN IMMEDIATE", work)

    def read(self, work):
        """Run ``work(con)`` on a consistent snapshot (a read transaction)."""
        return self._run("BEGIN", work)

    def _run(self, begin, work):
        con = self._connect()
        try:
            con.execute(begin)
            out = work(con)
            con.execute("COMMIT")
            return out
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        finally:
            if con.in_transaction:
                _rollback(con)

    # rows ---------------------------------------------------------------------------
    COLUMNS: tuple[str, ...] = _COLUMNS
    """The columns of a spend row that :meth:`select` returns."""

    @classmethod
    def select(cls, con, dataset, statuses=("reserved", "charged")):
        """The rows of ``dataset`` with these statuses, oldest first, as dicts."""
        marks = ",".join("?" * len(statuses))
        cur = con.execute(f"SELECT {', '.join(cls.COLUMNS)} FROM spends WHERE dataset = ? "
                          f"AND status IN ({marks}) ORDER BY id", (dataset, *statuses))
        return [dict(zip(cls.COLUMNS, row)) for row in cur]

    @classmethod
    def select_ids(cls, con, ids):
        """The rows with these ids, as dicts."""
        cur = con.execute(f"SELECT {', '.join(cls.COLUMNS)} FROM spends WHERE id IN "
                          f"({','.join('?' * len(ids))}) ORDER BY id", list(ids))
        return [dict(zip(cls.COLUMNS, row)) for row in cur]

    @classmethod
    def select_seed(cls, con, dataset, seed, other_than):
        """The counted rows of ``dataset`` with this seed, but the row ``other_than``."""
        cur = con.execute(f"SELECT {', '.join(cls.COLUMNS)} FROM spends WHERE dataset = ? AND "
                          "seed = ? AND status != 'released' AND id != ? ORDER BY id",
                          (dataset, seed, other_than))
        return [dict(zip(cls.COLUMNS, row)) for row in cur]

    @staticmethod
    def counted(con, dataset):
        """``(id, status)`` of the counted rows of ``dataset`` (reserved or charged)."""
        return con.execute("SELECT id, status FROM spends WHERE dataset = ? AND status != "
                           "'released'", (dataset,)).fetchall()

    def rows(self, dataset, statuses=("reserved", "charged")):
        """:meth:`select` in its own read transaction."""
        return self.read(lambda con: self.select(con, dataset, statuses))

    @staticmethod
    def add(con, dataset, row):
        """Insert a spend row (``status``, ``label``, ``epsilon``, ``delta`` and any column)."""
        now = time.time()
        values = dict(dataset=dataset, created=now, updated=now, host=socket.gethostname(),
                      pid=os.getpid(), **row)
        names = [c for c in _COLUMNS if c in values]
        cur = con.execute(f"INSERT INTO spends ({', '.join(names)}) VALUES "
                          f"({', '.join('?' * len(names))})", [values[c] for c in names])
        return cur.lastrowid

    def insert(self, dataset, row):
        """:meth:`add` in its own transaction; return the row's id."""
        return self.transaction(lambda con: self.add(con, dataset, row))

    @staticmethod
    def update(con, row_id, **values):
        """Set columns of a row that is still ``'reserved'``; return whether it was."""
        values["updated"] = time.time()
        sets = ", ".join(f"{k} = ?" for k in values)
        cur = con.execute(f"UPDATE spends SET {sets} WHERE id = ? AND status = 'reserved'",
                          [*values.values(), row_id])
        return cur.rowcount == 1

    def identity(self):
        """What tells apart two stores at one path: the file's creation stamp
        (``meta.created``), its inode and this machine's name.

        The stamp alone is copied with the file: a byte-for-byte copy at the same path on
        another machine (or restored over the original) would pass, and two machines would
        then charge two copies of one budget (issue 28). The inode changes with a copy or a
        replaced file, and the host with the machine, so an accountant pickled beside the
        file refuses to charge anywhere else.
        """
        created = self.read(lambda con: dict(con.execute("SELECT key, value FROM meta")
                                             .fetchall()).get("created"))
        return (created, os.stat(self.path).st_ino, socket.gethostname())

    def datasets(self):
        """Every dataset named in the file (with a budget or a spend), sorted."""
        return self.read(lambda con: sorted(
            {r[0] for r in con.execute("SELECT dataset FROM budgets UNION "
                                       "SELECT dataset FROM spends")}))

    # budgets ------------------------------------------------------------------------
    @staticmethod
    def budget_of(con, dataset):
        """The (epsilon, delta) cap stored for ``dataset``, or None."""
        row = con.execute("SELECT epsilon, delta FROM budgets WHERE dataset = ?",
                          (dataset,)).fetchone()
        return None if row is None else (float(row[0]), float(row[1]))

    def budget(self, dataset):
        """:meth:`budget_of` in its own read transaction."""
        return self.read(lambda con: self.budget_of(con, dataset))

    def set_budget(self, dataset, epsilon, delta, neighbouring="replace_one"):
        """Store the cap of ``dataset`` and its neighbouring relation the first time; return
        the stored cap.

        A dataset's cap is written once: later callers get the stored one back
        (and the accountant refuses a different one).
        """
        def work(con):
            stored = self.budget_of(con, dataset)
            if stored is None:
                con.execute("INSERT INTO budgets (dataset, epsilon, delta, created, "
                            "neighbouring) VALUES (?, ?, ?, ?, ?)",
                            (dataset, float(epsilon), float(delta), time.time(), neighbouring))
                stored = (float(epsilon), float(delta))
            return stored
        return self.transaction(work)

    def relation(self, dataset):
        """The neighbouring relation of ``dataset``'s budget (``'replace_one'`` for a budget
        set before relations were recorded); None without a budget."""
        def work(con):
            row = con.execute("SELECT neighbouring FROM budgets WHERE dataset = ?",
                              (dataset,)).fetchone()
            return None if row is None else (row[0] or "replace_one")
        return self.read(work)


def is_url(store):
    """Whether ``store`` names a PostgreSQL database (``postgresql://`` or ``postgres://``).

    Examples
    --------
    >>> is_url("postgresql://db.example.org/budgets"), is_url("budget.sqlite")
    (True, False)
    """
    return isinstance(store, str) and store.startswith(("postgresql://", "postgres://"))


def store_name(store):
    """How an accountant names (and pickles) its budget store: a file's absolute path, or the URL
    without its password (credentials come from the environment: ``PGPASSWORD``, a
    ``.pgpass`` or service file).

    Examples
    --------
    >>> store_name("postgresql://alice:secret@db.example.org:5432/budgets?sslmode=require")
    'postgresql://alice@db.example.org:5432/budgets?sslmode=require'
    """
    if not is_url(store):
        return os.path.abspath(os.fspath(store))
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    parts = urlsplit(store)
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        netloc = user.split(":", 1)[0] + "@" + host
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k != "password"], safe="/")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def scrub_params(text):
    """A spend's ``params`` text with the value of ``random_state`` withheld.

    Examples
    --------
    >>> scrub_params('{"epsilon": 1.0, "random_state": 7}')
    '{"epsilon": 1.0, "random_state": "<withheld>"}'
    >>> scrub_params('{"random_state": null}') is not None
    True
    """
    if text is None:
        return None
    try:
        params = json.loads(text)
    except ValueError:
        return text if '"random_state"' not in text and "'random_state'" not in text \
            else None
    if not isinstance(params, dict) or params.get("random_state") in (None, "<withheld>"):
        return text
    params["random_state"] = "<withheld>"
    return json.dumps(params)


def _rollback(con):
    try:
        con.execute("ROLLBACK")
    except sqlite3.Error:  # the connection is unusable: the next operation reopens it
        pass
