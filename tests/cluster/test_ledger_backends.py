"""The ledger on both stores: a SQLite file and a PostgreSQL server (issue 32).

The concurrency, kill and refusal tests run on both backends from one
parametrised suite; the server is started by the test suite from the
``pgserver`` wheel (PostgreSQL binaries on PyPI) and each test gets a fresh
database. Without ``psycopg[binary]`` and ``pgserver`` the server's cases skip.
"""

import itertools
import math
import multiprocessing
import os
import pickle
import signal
import sqlite3
import tempfile
import threading
import time
import warnings

import numpy as np
import pytest

from skdp import BudgetAccountant, BudgetExceededError
from skdp.privacy.accountant import StoreError, StoreLockedError
from skdp.privacy.ledger import PrivacyLedger
from _toy import NoisyMeanRegressor
from test_ledger_store import Stalling, run_all

FORK = multiprocessing.get_context("fork")
X = np.random.default_rng(0).normal(size=(60, 2))
y = np.random.default_rng(1).uniform(-1, 1, size=60)
_DATABASES = itertools.count()


@pytest.fixture(scope="session")
def pg_admin():
    """A PostgreSQL server of this test session (pgserver's binaries): its superuser's URL."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR not set
        try:
            import pgserver
            import psycopg  # noqa: F401
        except ImportError:
            pytest.skip("the PostgreSQL ledger tests need psycopg[binary] and pgserver "
                        "(pip install 'skdp[test]')")
        # a short folder: the server's Unix socket lives in it (paths over 107 bytes fail)
        server = pgserver.get_server(tempfile.mkdtemp(prefix="skdp-pg-"), cleanup_mode="stop")
    yield server.get_uri()
    server.cleanup()


def _database_url(admin, name):
    return admin.replace("/postgres?", f"/{name}?", 1)


@pytest.fixture(scope="session")
def pg_database(pg_admin):
    """The session's test database (one: creating one per test makes stopping the server
    slow, its checkpoint writing each copy)."""
    _admin(pg_admin, "CREATE DATABASE skdp_test")
    return _database_url(pg_admin, "skdp_test")


@pytest.fixture
def pg_url(pg_database):
    """The test database without a ledger: its owner drops the schema (which nobody else may:
    the triggers refuse every role a DELETE)."""
    _admin(pg_database, "DROP SCHEMA IF EXISTS skdp CASCADE")
    return pg_database


def _admin(url, sql, params=None):
    import psycopg

    with psycopg.connect(url, autocommit=True) as con:
        cur = con.execute(sql, params)
        return cur.fetchall() if cur.description else None


class Backend:
    """Where a test's ledger lives, and how to read its rows behind the accountant's back."""

    def __init__(self, kind, where):
        self.kind, self.where = kind, where

    def accountant(self, epsilon=math.inf, delta=1.0, **kw):
        return BudgetAccountant(epsilon, delta, store=self.where, dataset="patients", **kw)

    def statuses(self):
        if self.kind == "sqlite":
            with sqlite3.connect(self.where) as con:
                return [r[0] for r in con.execute("SELECT status FROM spends ORDER BY id")]
        return [r[0] for r in _admin(self.where, "SELECT status FROM skdp.spends ORDER BY id")]


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, tmp_path):
    if request.param == "sqlite":
        return Backend("sqlite", str(tmp_path / "budget.sqlite"))
    return Backend("postgres", request.getfixturevalue("pg_url"))


# ---------------------------------------------------------------------------------------------
# Concurrency: processes and threads racing against one cap
# ---------------------------------------------------------------------------------------------
def _race(where, n_fits, admitted):
    acc = BudgetAccountant.open(where, "patients")
    for i in range(n_fits):
        try:  # claims only (no mechanism ledger): basic composition, exactly the cap
            acc.charge(acc.reserve(1.0, 1e-8, label=f"fit {i}"), 1.0, 1e-8)
        except BudgetExceededError:
            continue
        with admitted.get_lock():
            admitted.value += 1


def test_four_processes_never_exceed_the_cap(backend):
    cap = 20.0
    acc = backend.accountant(cap, 1e-6)
    admitted = FORK.Value("i", 0)
    procs = [FORK.Process(target=_race, args=(backend.where, 10, admitted)) for _ in range(4)]
    run_all(procs, timeout=60)
    eps, delta = acc.total()
    assert eps <= cap * (1 + 1e-12) and delta <= 1e-6
    assert admitted.value == 20  # exactly the cap: 20 fits of epsilon 1 out of 40
    assert backend.statuses() == ["charged"] * 20


def test_threads_never_exceed_the_cap(backend):
    acc = backend.accountant(10.0, 1e-9)

    def work():
        for _ in range(10):
            try:
                acc.charge(acc.reserve(1.0, 0.0), 1.0, 0.0)
            except BudgetExceededError:
                pass

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert acc.total() == (10.0, 0.0)
    assert backend.statuses() == ["charged"] * 10


# ---------------------------------------------------------------------------------------------
# Reservations: a failed fit releases, an interrupted or killed one stays charged
# ---------------------------------------------------------------------------------------------
def test_a_failed_fit_releases_and_an_interrupted_one_stays_charged(backend):
    acc = backend.accountant(3.0, 1e-5)
    with pytest.raises(ValueError, match="refused"):
        Stalling(acc, "error").fit()
    assert acc.total() == (0.0, 0.0)
    with pytest.raises(KeyboardInterrupt):
        Stalling(acc, "interrupt").fit()
    assert acc.total() == (1.0, 1e-6)
    with pytest.raises(ValueError, match="after reading"):  # the data may have been touched
        Stalling(acc, "late error").fit()
    assert acc.total() == (2.0, 2e-6)
    assert backend.statuses() == ["released", "reserved", "reserved"]


def _stall(where, ready):
    Stalling(BudgetAccountant.open(where, "patients"), ready).fit()


def test_sigkill_mid_fit_leaves_the_reservation_charged(backend):
    acc = backend.accountant(1.5, 1e-5)
    ready = FORK.Event()
    proc = FORK.Process(target=_stall, args=(backend.where, ready))
    proc.start()
    assert ready.wait(30)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(30)
    assert proc.exitcode == -signal.SIGKILL
    assert acc.total() == (1.0, 1e-6)  # counted: the data may have been read
    with pytest.raises(BudgetExceededError, match="patients"):
        NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc).fit(X, y)
    assert backend.statuses() == ["reserved"]


def test_a_ledger_locked_too_long_refuses_the_fit_and_charges_nothing(backend):
    acc = backend.accountant(5.0, timeout=1.0)
    if backend.kind == "sqlite":
        holder = sqlite3.connect(backend.where, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
    else:
        import psycopg

        holder = psycopg.connect(backend.where, autocommit=True)
        holder.execute("BEGIN")
        holder.execute("SELECT 1 FROM skdp.budgets WHERE dataset = 'patients' FOR UPDATE")
    start = time.monotonic()
    with pytest.raises(StoreLockedError, match="locked"):
        NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc).fit(Untouchable(), y)
    assert time.monotonic() - start < 10
    holder.execute("ROLLBACK")
    holder.close()
    assert acc.spends == []


class Untouchable:
    """A table that fails the test if anything reads it."""

    shape = (60, 2)

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data were read before the budget was reserved")

    def __len__(self):
        raise AssertionError("the data were read before the budget was reserved")


def test_the_file_and_the_server_give_the_same_totals(tmp_path, pg_url):
    def spends(acc):
        ledger = PrivacyLedger()
        ledger.gaussian(1.0, 4.0)
        acc.spend(0.4, 1e-7, ledger=ledger, label="gaussian")
        acc.charge(acc.reserve(0.3, 0.0), 0.3, 0.0, label="pure")
        NoisyMeanRegressor(epsilon=0.5, delta=1e-7, accountant=acc).fit(X, y)
        acc.cancel(acc.reserve(1.0, 0.0))
        return acc.total(), acc.composition()[2], [s["status"] for s in acc.spends]

    on_file = spends(BudgetAccountant(5.0, 1e-5, store=tmp_path / "b.sqlite", dataset="d"))
    on_server = spends(BudgetAccountant(5.0, 1e-5, store=pg_url, dataset="d"))
    assert on_file[1:] == on_server[1:]
    assert on_file[0] == pytest.approx(on_server[0], rel=1e-12)


# ---------------------------------------------------------------------------------------------
# The server: refusal before the data are read, lost connections, credentials
# ---------------------------------------------------------------------------------------------
UNREACHABLE = "postgresql://nobody@127.0.0.1:1/skdp"


def test_an_unreachable_server_refuses_before_the_data_are_read(pg_url):
    pytest.importorskip("psycopg")
    start = time.monotonic()
    with pytest.raises(StoreError, match="cannot reach the budget store"):
        BudgetAccountant(1.0, 1e-6, store=UNREACHABLE, dataset="d")
    assert time.monotonic() - start < 10
    acc = BudgetAccountant(1.0, 1e-6, store=pg_url, dataset="d")
    acc._store._forget()
    acc._store._url = UNREACHABLE  # the server goes away after the accountant was made
    with pytest.raises(StoreError, match="no data were read"):
        NoisyMeanRegressor(epsilon=0.5, delta=1e-7, accountant=acc).fit(Untouchable(), y)


def _terminate_sessions(url):
    _admin(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                "application_name = 'skdp ledger' AND pid <> pg_backend_pid()")


def test_a_lost_connection_keeps_the_reservation_charged(pg_url):
    acc = BudgetAccountant(2.0, 1e-6, store=pg_url, dataset="d")
    token = acc.reserve(1.0, 0.0, label="a fit")
    _terminate_sessions(pg_url)  # the connection drops while the fit runs
    acc.charge(token, 1.0, 0.0, label="a fit")  # a new connection charges it
    assert [s["status"] for s in acc.spends] == ["charged"]
    token = acc.reserve(0.5, 0.0, label="another")
    _terminate_sessions(pg_url)
    acc._store._url = UNREACHABLE  # and the server cannot be reached to charge it
    with pytest.raises(StoreError):
        acc.charge(token, 0.5, 0.0, label="another")
    again = BudgetAccountant.open(pg_url, "d")
    assert [s["status"] for s in again.spends] == ["charged", "reserved"]
    assert again.total() == (1.5, 0.0)  # the reservation counts as charged


def test_a_pickled_accountant_carries_the_url_but_never_the_password(pg_url, monkeypatch):
    with_password = pg_url.replace("postgres:@", "postgres:s3cret-pw@", 1)
    acc = BudgetAccountant(2.0, 1e-6, store=with_password, dataset="d")
    assert "s3cret" not in acc.store and "s3cret" not in repr(acc)
    blob = pickle.dumps(acc)
    assert b"s3cret" not in blob
    monkeypatch.setenv("PGPASSWORD", "from-the-environment")  # what a worker would use
    worker = pickle.loads(blob)
    worker.spend(0.5, 0.0, label="on a worker")
    assert acc.total() == (0.5, 0.0)
    # another database behind the pickled URL is another ledger: refused, not charged
    state = acc.__getstate__()
    state["store"] = _new_database(pg_url)
    BudgetAccountant(2.0, 1e-6, store=state["store"], dataset="d")
    with pytest.raises(StoreError, match="pickled with"):
        BudgetAccountant.__new__(BudgetAccountant).__setstate__(state)


def _new_database(url):
    name = f"skdp_other_{next(_DATABASES)}"
    admin = url.replace("/skdp_test?", "/postgres?", 1)
    _admin(admin, f"DROP DATABASE IF EXISTS {name}")
    _admin(admin, f"CREATE DATABASE {name}")
    return _database_url(admin, name)


# ---------------------------------------------------------------------------------------------
# Roles: the server refuses what an analyst or an auditor may not do
# ---------------------------------------------------------------------------------------------
def _as(url, role):
    return url.replace("postgres:@", f"{role}@", 1)


@pytest.fixture
def roles(pg_url):
    BudgetAccountant(math.inf, 1.0, store=pg_url, dataset="setup")  # creates the schema
    _admin(pg_url, """DO $r$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'alice') THEN
            CREATE ROLE alice LOGIN; CREATE ROLE bob LOGIN; CREATE ROLE carol LOGIN;
            CREATE ROLE dave LOGIN; END IF; END $r$;
        GRANT skdp_analyst TO alice, bob; GRANT skdp_curator TO carol;
        GRANT skdp_auditor TO dave;""")
    return pg_url


def test_roles_a_curator_sets_caps_an_analyst_spends_an_auditor_reads(roles):
    import psycopg

    from skdp.privacy.store_postgres import StorePermissionError

    with pytest.raises(StorePermissionError, match="refused this role"):
        BudgetAccountant(100.0, 1e-5, store=_as(roles, "alice"), dataset="patients")
    BudgetAccountant(2.0, 1e-5, store=_as(roles, "carol"), dataset="patients")
    alice = BudgetAccountant.open(_as(roles, "alice"), "patients")
    alice.charge(alice.reserve(1.0, 1e-6, label="a fit"), 1.0, 1e-6, label="a fit")
    token = alice.reserve(0.5, 0.0, label="held")
    with pytest.raises(StorePermissionError):  # a curator does not spend
        BudgetAccountant.open(_as(roles, "carol"), "patients").spend(0.1, 0.0)
    auditor = BudgetAccountant.open(_as(roles, "dave"), "patients")
    assert auditor.total() == alice.total() == (1.5, 1e-6)
    assert [s["spent_by"] for s in auditor.spends] == ["alice", "alice"]
    with pytest.raises(StorePermissionError):
        auditor.spend(0.1, 0.0)

    def refused(role, sql):
        with psycopg.connect(_as(roles, role), autocommit=True) as con:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                con.execute(sql)

    # erase or shrink a spend, raise the cap: refused by the server, whoever asks
    refused("alice", "DELETE FROM skdp.spends")
    refused("alice", "UPDATE skdp.spends SET epsilon = 0 WHERE status = 'charged'")
    refused("alice", "UPDATE skdp.budgets SET epsilon = 100")
    refused("alice", "TRUNCATE skdp.spends")
    refused("alice", "INSERT INTO skdp.budgets VALUES ('mine', 100, 0.1, 0)")
    refused("alice", "UPDATE skdp.spends SET spent_by = 'bob'")
    refused("carol", "UPDATE skdp.budgets SET epsilon = 100")  # a cap is written once
    refused("dave", "DELETE FROM skdp.spends")
    refused("postgres", "DELETE FROM skdp.spends")  # the owner too (triggers)
    refused("postgres", "UPDATE skdp.spends SET status = 'released' WHERE status = 'charged'")
    # another analyst cannot cancel alice's reservation; alice can
    refused("bob", f"UPDATE skdp.spends SET status = 'released' WHERE id = {token}")
    alice.cancel(token)
    assert auditor.total() == (1.0, 1e-6)
    assert [s["status"] for s in BudgetAccountant.open(roles, "patients").spends] == ["charged"]


# ---------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------
def test_cli_budget_shows_the_server_and_budget_setup_prints_the_schema(pg_url, capsys):
    from skdp.__main__ import main

    acc = BudgetAccountant(2.0, 1e-5, store=pg_url, dataset="cancer", purpose="report")
    acc.spend(0.5, 1e-6, label="a count")
    assert main(["budget", pg_url, "--dataset", "cancer"]) == 0
    shown = capsys.readouterr().out
    assert "a count" in shown and "postgres" in shown and "report" in shown
    assert "total: epsilon=0.5, delta=1e-06 over 1 counted spends" in shown
    assert main(["budget-setup", pg_url]) == 0
    printed = capsys.readouterr().out
    assert "CREATE TABLE IF NOT EXISTS skdp.spends" in printed and "skdp_analyst" in printed
    fresh = _new_database(pg_url)
    assert main(["budget-setup", fresh, "--apply"]) == 0
    assert _admin(fresh, "SELECT count(*) FROM skdp.spends") == [(0,)]
    assert main(["budget", UNREACHABLE]) == 2
    assert "cannot reach" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# Model selection on a Dask cluster whose workers charge the server directly
# ---------------------------------------------------------------------------------------------
def test_grid_search_on_dask_workers_admits_exactly_the_cap(dask_client, pg_url):
    import joblib
    from sklearn.model_selection import GridSearchCV

    from skdp import KLAdaptiveRegressor

    acc = BudgetAccountant(100.0, 20.5e-6, store=pg_url, dataset="t")  # 20 fits by delta
    grid = {"epsilon": list(np.linspace(0.5, 2.0, 16))}  # 16 candidates x 2 folds: 32 fits
    search = GridSearchCV(KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, accountant=acc), grid,
                          cv=2, n_jobs=-1, refit=False)
    with warnings.catch_warnings(), joblib.parallel_config(backend="dask"):
        warnings.simplefilter("ignore")  # sklearn's FitFailedWarning for the refused fits
        search.fit(X, y)
    spends = acc.spends
    assert [s["status"] for s in spends] == ["charged"] * 20  # exactly the cap, no row refused
    assert acc.total()[1] == pytest.approx(20e-6) and acc.total()[1] <= 20.5e-6
    workers = set(dask_client.run(os.getpid).values())
    assert {s["pid"] for s in spends} <= workers and len({s["pid"] for s in spends}) >= 2
    assert int(np.isnan(search.cv_results_["split0_test_score"]).sum()
               + np.isnan(search.cv_results_["split1_test_score"]).sum()) == 12
