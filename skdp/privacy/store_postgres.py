"""A budget store on a PostgreSQL server: one budget per dataset, shared by machines.

``BudgetAccountant(epsilon, delta, store="postgresql://host/db", dataset=NAME)``
keeps its spends in the tables of :mod:`~.store`'s SQLite file (``meta``,
``budgets``, ``spends``: the same columns, statuses and semantics), in the
schema ``skdp`` of a PostgreSQL database, so that every process of every machine
that reaches the server charges one budget. It needs the optional extra
``skdp[postgres]`` (psycopg 3); nothing else in skdp imports it.

Concurrency: a row lock. A reservation, a charge or a direct spend runs in one
``READ COMMITTED`` transaction that first takes the dataset's cap row ``SELECT
... FROM budgets WHERE dataset = ? FOR UPDATE``, then reads the counted spends,
checks the cap and writes its row. Every writer of that dataset queues on the
same row lock, and under ``READ COMMITTED`` each statement after the lock sees
every spend committed before it was granted, so no two fits can both be
admitted against a total that does not count the other (the SQLite file's
``BEGIN IMMEDIATE`` gives the same order by locking the whole file). A lock held
longer than ``timeout`` seconds (``lock_timeout``) raises
:class:`~.store.StoreLockedError` and charges nothing.

A lost connection. A fit's reservation is committed before the fit reads a row:
a process killed, or a connection lost, after that leaves the row
``'reserved'``, which counts as charged. A transaction whose connection is lost
before its ``COMMIT`` was sent is retried once on a new connection (it did not
commit); one lost during its ``COMMIT`` raises
:class:`~.store.StoreError` (its outcome is unknown: a reservation may
then be counted and never charged, never the reverse). A server that cannot be
reached raises :class:`~.store.StoreError` from the reservation, so the
fit is refused before it reads any data.

Credentials. The URL an accountant keeps, shows and pickles has no password
(:func:`~.store.store_name`): a password given in the URL is used by this
process only; a worker that unpickles the accountant (a Dask worker on another
machine) connects with its own environment: ``PGPASSWORD``, ``PGPASSFILE`` /
``~/.pgpass``, or a service file (``postgresql:///?service=skdp`` with
``PGSERVICEFILE``), or a certificate.

Roles, append-only (:func:`schema_sql`, applied by ``python -m skdp budget-setup
URL --apply``). Three group roles; grant them to login roles (``GRANT
skdp_analyst TO alice``):

* ``skdp_curator`` sets caps: ``INSERT`` on ``budgets`` (a cap is written once);
* ``skdp_analyst`` spends: ``INSERT`` on ``spends`` and ``UPDATE`` of a
  reservation's columns (not its ``id``, ``dataset``, ``created``,
  ``spent_by``); nothing on ``budgets`` but a row lock on a cap;
* ``skdp_auditor`` reads every table.

Triggers enforce what privileges cannot say, for every role but a superuser's
``session_replication_role``, the owner included: a spend row is never deleted
or truncated; it is updated only while ``'reserved'``, only to ``'charged'`` or
``'released'``, and only by the role that reserved it (``spent_by``, stamped by
the server from ``current_user`` on insert, so it cannot be forged); a cap row
and the ``meta`` rows are never updated or deleted. What the database cannot
check is the composition (zCDP, Gaussian DP: skdp's client computes it): an
analyst who writes rows by hand can still under-state a spend. The roles keep a
recorded spend from being erased and a cap from being raised; they do not make
an analyst's own claims true.

Examples
--------
>>> print(schema_sql().splitlines()[0])
-- skdp privacy ledger: schema "skdp", roles skdp_curator / skdp_analyst / skdp_auditor
"""

import os
import threading
import time

from .store import (_COLUMNS, _INHERITED, SCHEMA_VERSION, BudgetStore, StoreError,
                    StoreLockedError, store_name)

__all__ = ["StoreClientMissing", "StorePermissionError", "PostgresBudgetStore", "ROLES",
           "schema_sql"]

ROLES = dict(curator="skdp_curator", analyst="skdp_analyst", auditor="skdp_auditor")
"""The group roles the schema ships with (grant them to login roles)."""

_SETUP_LOCK = 0x736B6470  # pg_advisory_xact_lock key: one setup at a time
_SPEND_INSERT = ("dataset", "created", "updated", "status", "label", "params", "solver",
                 "epsilon", "delta", "parts", "seed", "purpose", "host", "pid", "neighbouring")
_SPEND_UPDATE = _SPEND_INSERT[2:]


class StorePermissionError(StoreError, PermissionError):
    """The server refused a budget store operation to this role (a cap set by an analyst, a spend
    erased or changed): nothing was charged.

    Examples
    --------
    >>> issubclass(StorePermissionError, StoreError)
    True
    """


class StoreClientMissing(StoreError, ImportError):
    """psycopg 3 is not installed (``pip install 'skdp[postgres]'``)."""


def schema_sql():
    """The SQL that creates the budget store's schema, its roles, privileges and triggers.

    Idempotent (``IF NOT EXISTS``, ``CREATE OR REPLACE``) and run in one
    transaction under an advisory lock; run it as the database's owner (or a
    role with ``CREATEROLE``): ``python -m skdp budget-setup URL`` prints it,
    ``--apply`` runs it.

    Returns
    -------
    sql : str
    """
    c, a, r = ROLES["curator"], ROLES["analyst"], ROLES["auditor"]
    everyone = f"{c}, {a}, {r}"
    create_roles = "\n".join(
        f"  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') THEN "
        f"CREATE ROLE {role} NOLOGIN; END IF;" for role in (c, a, r))
    return f"""\
-- skdp privacy ledger: schema "skdp", roles {c} / {a} / {r}
BEGIN;
SELECT pg_advisory_xact_lock({_SETUP_LOCK});
DO $roles$ BEGIN
{create_roles}
END $roles$;
CREATE SCHEMA IF NOT EXISTS skdp;
CREATE TABLE IF NOT EXISTS skdp.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS skdp.budgets (
    dataset TEXT PRIMARY KEY, epsilon DOUBLE PRECISION NOT NULL,
    delta DOUBLE PRECISION NOT NULL, created DOUBLE PRECISION NOT NULL, neighbouring TEXT,
    set_by TEXT NOT NULL DEFAULT current_user);
CREATE TABLE IF NOT EXISTS skdp.spends (
    id BIGSERIAL PRIMARY KEY,
    dataset TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('reserved', 'charged', 'released')),
    label TEXT NOT NULL,
    params TEXT,
    solver TEXT,
    epsilon DOUBLE PRECISION NOT NULL,
    delta DOUBLE PRECISION NOT NULL,
    parts TEXT,
    seed TEXT,
    purpose TEXT,
    host TEXT,
    pid INTEGER,
    neighbouring TEXT,
    spent_by TEXT NOT NULL DEFAULT current_user);
CREATE INDEX IF NOT EXISTS spends_dataset ON skdp.spends (dataset, status);
INSERT INTO skdp.meta VALUES
    ('application', 'skdp privacy ledger'),
    ('schema_version', '{SCHEMA_VERSION}'),
    ('created', extract(epoch FROM clock_timestamp())::text),
    ('ledger_id', gen_random_uuid()::text),
    ('seed_salt', replace(gen_random_uuid()::text, '-', ''))
    ON CONFLICT (key) DO NOTHING;

-- append-only: a spend moves forward once (reserved -> charged | released), by its own role
CREATE OR REPLACE FUNCTION skdp.spends_guard() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.spent_by := current_user;
        RETURN NEW;
    ELSIF TG_OP = 'UPDATE' THEN
        IF OLD.status <> 'reserved' THEN
            RAISE EXCEPTION 'skdp ledger: spend % is %: a charged or released spend is never '
                'changed (append-only)', OLD.id, OLD.status USING ERRCODE = '42501';
        END IF;
        IF NEW.status NOT IN ('charged', 'released') THEN
            RAISE EXCEPTION 'skdp ledger: reservation % may only move to charged or released',
                OLD.id USING ERRCODE = '42501';
        END IF;
        IF NEW.id <> OLD.id OR NEW.dataset <> OLD.dataset OR NEW.created <> OLD.created
                OR NEW.spent_by <> OLD.spent_by THEN
            RAISE EXCEPTION 'skdp ledger: the id, dataset, created and spent_by of spend % '
                'are never changed', OLD.id USING ERRCODE = '42501';
        END IF;
        IF OLD.spent_by <> current_user THEN
            RAISE EXCEPTION 'skdp ledger: reservation % belongs to %, not %', OLD.id,
                OLD.spent_by, current_user USING ERRCODE = '42501';
        END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'skdp ledger: spends are append-only: % refused', TG_OP
        USING ERRCODE = '42501';
END $f$;
CREATE OR REPLACE FUNCTION skdp.write_once() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.set_by := current_user;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'skdp ledger: % on %.% refused: a cap and the ledger''s meta rows are '
        'written once', TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME USING ERRCODE = '42501';
END $f$;
DROP TRIGGER IF EXISTS spends_append_only ON skdp.spends;
CREATE TRIGGER spends_append_only BEFORE INSERT OR UPDATE OR DELETE ON skdp.spends
    FOR EACH ROW EXECUTE FUNCTION skdp.spends_guard();
DROP TRIGGER IF EXISTS spends_no_truncate ON skdp.spends;
CREATE TRIGGER spends_no_truncate BEFORE TRUNCATE ON skdp.spends
    FOR EACH STATEMENT EXECUTE FUNCTION skdp.spends_guard();
DROP TRIGGER IF EXISTS budgets_write_once ON skdp.budgets;
CREATE TRIGGER budgets_write_once BEFORE INSERT OR UPDATE OR DELETE ON skdp.budgets
    FOR EACH ROW EXECUTE FUNCTION skdp.write_once();
DROP TRIGGER IF EXISTS budgets_no_truncate ON skdp.budgets;
CREATE TRIGGER budgets_no_truncate BEFORE TRUNCATE ON skdp.budgets
    FOR EACH STATEMENT EXECUTE FUNCTION skdp.write_once();
DROP TRIGGER IF EXISTS meta_write_once ON skdp.meta;
CREATE TRIGGER meta_write_once BEFORE UPDATE OR DELETE ON skdp.meta
    FOR EACH ROW EXECUTE FUNCTION skdp.write_once();
DROP TRIGGER IF EXISTS meta_no_truncate ON skdp.meta;
CREATE TRIGGER meta_no_truncate BEFORE TRUNCATE ON skdp.meta
    FOR EACH STATEMENT EXECUTE FUNCTION skdp.write_once();

-- privileges: curator sets caps, analyst spends, auditor reads
REVOKE ALL ON ALL TABLES IN SCHEMA skdp FROM PUBLIC;
GRANT USAGE ON SCHEMA skdp TO {everyone};
GRANT SELECT ON skdp.meta, skdp.budgets, skdp.spends TO {everyone};
GRANT INSERT ON skdp.budgets TO {c};
GRANT INSERT ({", ".join(_SPEND_INSERT)}) ON skdp.spends TO {a};
GRANT UPDATE ({", ".join(_SPEND_UPDATE)}) ON skdp.spends TO {a};
GRANT USAGE ON SEQUENCE skdp.spends_id_seq TO {a};
-- only so that an analyst can lock a cap row (SELECT ... FOR UPDATE needs an UPDATE
-- privilege): any UPDATE of a cap is refused by budgets_write_once
GRANT UPDATE (dataset) ON skdp.budgets TO {a};
COMMIT;
"""


class _Connection:
    """A psycopg connection that takes :mod:`~.store`'s SQL (``?`` placeholders)."""

    def __init__(self, con):
        self._con = con

    def execute(self, sql, params=()):
        if not params:
            return self._con.execute(sql)
        return self._con.execute(sql.replace("%", "%%").replace("?", "%s"), tuple(params))


class PostgresBudgetStore(BudgetStore):
    """The rows of a budget store in a PostgreSQL database (see the module's docstring).

    One connection per thread and process (a forked child opens its own), in
    autocommit mode, each operation one explicit transaction.

    Parameters
    ----------
    url : str
        ``postgresql://[user[:password]@]host[:port]/database[?...]`` (any
        libpq URL; a password in it is used, never shown nor pickled).
    timeout : float, default=30.0
        Seconds to wait for a lock before :class:`~.store.StoreLockedError`,
        and to connect (at least 5).

    Raises
    ------
    StoreError
        The server cannot be reached, the database holds another schema
        version, or the schema is missing and this role cannot create it.
    """

    COLUMNS = _COLUMNS + ("spent_by",)

    def __init__(self, url, timeout=30.0):
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise StoreClientMissing("a PostgreSQL budget store needs psycopg 3: pip install "
                                     "'skdp[postgres]' (or 'psycopg[binary]').") from None
        self._url = url
        self.path = store_name(url)  # shown in messages: never the password
        self.timeout = float(timeout)
        self._local = threading.local()
        self._fingerprints = {}
        self._salt = self._check()

    # connections --------------------------------------------------------------------
    def _connect(self):
        import psycopg

        con = getattr(self._local, "con", None)
        if con is not None and self._local.pid == os.getpid() and not con.closed:
            return con
        if con is not None and self._local.pid != os.getpid():
            _INHERITED.append(con)  # the parent's session: never used nor closed here
        try:
            con = psycopg.connect(self._url, autocommit=True, application_name="skdp ledger",
                                  connect_timeout=max(5, round(self.timeout)))
            con.execute("SET search_path = skdp")
            con.execute(f"SET lock_timeout = {max(1, round(self.timeout * 1000))}")
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot reach the budget store {self.path} ({_first_line(exc)}); nothing "
                "was charged and no data were read. Check the server, the URL and the "
                "credentials (PGPASSWORD, ~/.pgpass or a service file).") from None
        self._local.con, self._local.pid = con, os.getpid()
        return con

    def _forget(self):
        con = getattr(self._local, "con", None)
        self._local.con = None
        if con is not None and self._local.pid == os.getpid():
            try:
                con.close()
            except Exception:  # noqa: BLE001  (already broken)
                pass

    def _error(self, exc, unknown=False):
        import psycopg.errors as errors

        text = _first_line(exc)
        if isinstance(exc, errors.LockNotAvailable):
            return StoreLockedError(
                f"the budget store {self.path} stayed locked by another process for more "
                f"than {self.timeout:g} s ({text}); nothing was charged. Retry, or raise "
                "timeout=.")
        if isinstance(exc, errors.InsufficientPrivilege):
            return StorePermissionError(
                f"the budget store {self.path} refused this role: {text}. Caps are set by "
                f"{ROLES['curator']}, spends made by {ROLES['analyst']}; a spend is never "
                "erased.")
        if unknown:
            return StoreError(
                f"the connection to the budget store {self.path} was lost while committing "
                f"({text}): the outcome is unknown; a reservation made before stays counted.")
        return StoreError(f"the budget store {self.path} failed: {text}; nothing was "
                          "charged by this operation.")

    def _check(self, quick_check=False):
        """The seed salt; create the schema where it is missing (and this role can).

        ``quick_check`` is the file's (a server checks its own pages)."""
        import psycopg

        con = self._connect()
        try:
            exists = con.execute("SELECT to_regclass('skdp.meta') IS NOT NULL").fetchone()[0]
            if not exists:
                try:
                    con.execute(schema_sql())
                except psycopg.Error as exc:
                    _rollback(con)
                    raise StoreError(
                        f"the database {self.path} holds no skdp budget store and this role cannot "
                        f"create it ({_first_line(exc)}): run `python -m skdp budget-setup "
                        "URL --apply` as the database's owner.") from None
            meta = dict(con.execute("SELECT key, value FROM skdp.meta").fetchall())
        except psycopg.Error as exc:
            raise self._error(exc) from None
        if meta.get("application") != "skdp privacy ledger":
            raise StoreError(f"the schema skdp of {self.path} is not an skdp budget store.")
        if meta.get("schema_version") != str(SCHEMA_VERSION):
            raise StoreError(f"the budget store {self.path} has schema version "
                             f"{meta.get('schema_version')}; this skdp reads version "
                             f"{SCHEMA_VERSION}.")
        self._meta = meta
        return meta["seed_salt"]

    # transactions -------------------------------------------------------------------
    def transaction(self, work, lock=None):
        """Run ``work(con)`` in one transaction; with ``lock`` (a dataset), first lock its cap
        row (``SELECT ... FOR UPDATE``), so that the spends ``work`` reads cannot change
        before it commits."""
        return self._run("BEGIN ISOLATION LEVEL READ COMMITTED", work, lock)

    def read(self, work):
        """Run ``work(con)`` on a consistent snapshot (``REPEATABLE READ, READ ONLY``)."""
        return self._run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", work)

    def _run(self, begin, work, lock=None):
        import psycopg

        for attempt in (0, 1):
            con = self._connect()
            committing = False
            try:
                con.execute(begin)
                if lock is not None and con.execute(
                        "SELECT 1 FROM budgets WHERE dataset = %s FOR UPDATE",
                        (lock,)).fetchone() is None:
                    raise StoreError(f"the budget store {self.path} has no budget for "
                                     f"dataset {lock!r}; nothing was charged.")
                out = work(_Connection(con))
                committing = True
                con.execute("COMMIT")
                return out
            except psycopg.Error as exc:
                lost = con.broken or con.closed
                if lost:
                    self._forget()
                    if isinstance(exc, psycopg.OperationalError) and not committing \
                            and attempt == 0:
                        continue  # nothing was committed: once more on a new connection
                else:
                    _rollback(con)
                raise self._error(exc, unknown=lost and committing) from None
            except BaseException:
                if con.broken or con.closed:
                    self._forget()
                else:
                    _rollback(con)
                raise

    # rows ---------------------------------------------------------------------------
    @staticmethod
    def add(con, dataset, row):
        """Insert a spend row; return its id (``spent_by`` is set by the server)."""
        import socket

        now = time.time()
        values = dict(dataset=dataset, created=now, updated=now, host=socket.gethostname(),
                      pid=os.getpid(), **row)
        names = [c for c in _COLUMNS if c in values]
        cur = con.execute(f"INSERT INTO spends ({', '.join(names)}) VALUES "
                          f"({', '.join('?' * len(names))}) RETURNING id",
                          [values[c] for c in names])
        return cur.fetchone()[0]

    def identity(self):
        """The database's budget store: its creation stamp and random id (``meta``), the same from
        every machine that reaches it, and different for another database at the same URL."""
        return (self._meta["created"], self._meta["ledger_id"])

    def set_budget(self, dataset, epsilon, delta, neighbouring="replace_one"):
        """Store the cap of ``dataset`` the first time (a curator's insert); return it."""
        def work(con):
            stored = self.budget_of(con, dataset)
            if stored is None:
                con.execute("INSERT INTO budgets (dataset, epsilon, delta, created, "
                            "neighbouring) VALUES (?, ?, ?, ?, ?) ON CONFLICT (dataset) "
                            "DO NOTHING", (dataset, float(epsilon), float(delta), time.time(),
                                           neighbouring))
                stored = self.budget_of(con, dataset)
            return stored
        return self.transaction(work)

    def _scrub(self):  # a server store never held plain seeds
        return self._salt


def _first_line(exc):
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _rollback(con):
    try:
        con.execute("ROLLBACK")
    except Exception:  # noqa: BLE001  (the connection is unusable: the next call reopens)
        pass
