"""The privacy budget kept in a SQLite file (issue 19): real processes, real files.

Processes are forked (``multiprocessing``'s fork context, so no re-import of
skdp per worker) and joined with timeouts; every file lives in ``tmp_path``.
"""

import json
import math
import multiprocessing
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import time
import warnings

import dp_accounting
import joblib
import numpy as np
import pytest
from dp_accounting.pld import pld_privacy_accountant
from sklearn.model_selection import GridSearchCV

from skdp import BudgetAccountant, BudgetExceededError, PrivacyLeakWarning
from skdp._base import PrivacyMixin
from skdp.privacy.accountant import StoreError, StoreLockedError
from skdp.privacy.ledger import PrivacyLedger
from skdp.privacy.store import BudgetStore
from skdp.regression import KLAdaptiveRegressor
from _toy import NoisyMeanRegressor

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork and SIGKILL")
FORK = multiprocessing.get_context("fork")
X = np.random.default_rng(0).normal(size=(60, 2))
y = np.random.default_rng(1).uniform(-1, 1, size=60)


def ledger(tmp_path, epsilon=math.inf, delta=1.0, name="budget.sqlite", **kw):
    return BudgetAccountant(epsilon, delta, store=tmp_path / name, dataset="patients", **kw)


def statuses(path):
    with sqlite3.connect(path) as con:
        return [r[0] for r in con.execute("SELECT status FROM spends ORDER BY id")]


def run_all(procs, timeout=30):
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout)
        assert p.exitcode == 0, f"worker exit code {p.exitcode}"


# ---------------------------------------------------------------------------------------------
# One file, many processes
# ---------------------------------------------------------------------------------------------
def _worker_spends(path, n_fits, admitted, real_fits):
    acc = BudgetAccountant.open(path, "patients")
    for i in range(n_fits):
        try:
            if i < real_fits:  # a real fit: reserve, read, charge its Laplace-free ledger
                NoisyMeanRegressor(epsilon=1.0, delta=0.0 + 1e-12, accountant=acc).fit(X, y)
            else:
                token = acc.reserve(1.0, 1e-12, label=f"api fit {i}")
                ledger = PrivacyLedger()
                ledger.pure(1.0)
                acc.charge(token, 1.0, 1e-12, ledger=ledger, label=f"api fit {i}")
        except BudgetExceededError:
            continue
        with admitted.get_lock():
            admitted.value += 1


def test_four_processes_never_exceed_the_cap_and_lose_no_spend(tmp_path):
    cap = 50.0
    path = tmp_path / "budget.sqlite"
    acc = ledger(tmp_path, cap, 1e-6)
    admitted = FORK.Value("i", 0)
    procs = [FORK.Process(target=_worker_spends, args=(path, 25, admitted, 2))
             for _ in range(4)]
    for p in procs:
        p.start()
    seen = []
    while any(p.is_alive() for p in procs):
        seen.append(acc.total()[0])  # read while the workers write
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    eps, delta = acc.total()
    assert max(seen, default=0.0) <= cap * (1 + 1e-12)
    assert eps <= cap * (1 + 1e-12) and delta <= 1e-6
    rows = [s for s in acc.spends if s["status"] == "charged"]
    assert len(rows) == admitted.value == len(acc.spends)  # every admitted fit charged
    assert 45 <= admitted.value <= 60  # about half of the 100 attempts
    # the total is the composition of the admitted spends: recompute it from the claims
    memory = BudgetAccountant()
    for s in rows:
        memory.spend(s["epsilon"], s["delta"], ledger=s["ledger"])
    assert (eps, delta) == pytest.approx(memory.total(), rel=1e-9)
    assert eps <= sum(s["epsilon"] for s in rows)


def test_a_restart_sees_the_previous_total(tmp_path):
    acc = ledger(tmp_path, 5.0, 1e-5, purpose="weekly report")
    NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc, random_state=0).fit(X, y)
    acc.spend(0.5, 0.0, label="a count")
    code = ("import sys; from skdp import BudgetAccountant; "
            "acc = BudgetAccountant.open(sys.argv[1], 'patients'); print(repr(acc.total()))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "budget.sqlite")],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert eval(out) == acc.total()
    (fit, count) = BudgetAccountant.open(tmp_path / "budget.sqlite", "patients").spends
    assert fit["label"] == "NoisyMeanRegressor" and fit["seed"].startswith("scrypt:")
    assert json.loads(fit["params"])["epsilon"] == 1.0 and fit["purpose"] == "weekly report"
    assert json.loads(fit["params"])["random_state"] == "<withheld>"
    assert fit["ledger"].entries[0].kind == "gaussian" and count["ledger"] is None


def test_the_budget_is_per_dataset_and_set_once(tmp_path):
    a = ledger(tmp_path, 2.0, 1e-6)
    b = BudgetAccountant(1.0, 1e-6, store=tmp_path / "budget.sqlite", dataset="other")
    a.spend(1.5, 0.0)
    assert b.total() == (0.0, 0.0) and b.remaining() == (1.0, 1e-6)
    with pytest.raises(ValueError, match="holds the budget"):
        ledger(tmp_path, 20.0, 1e-6)
    assert BudgetAccountant.open(tmp_path / "budget.sqlite", "patients").epsilon == 2.0
    with pytest.raises(ValueError, match="no budget for dataset"):
        BudgetAccountant.open(tmp_path / "budget.sqlite", "unknown")
    with pytest.raises(ValueError, match="go together"):
        BudgetAccountant(1.0, store=tmp_path / "x.sqlite")


# ---------------------------------------------------------------------------------------------
# Reservations: failure, interrupt, SIGKILL
# ---------------------------------------------------------------------------------------------
class Stalling(PrivacyMixin):
    """Reserves its budget, says so, then fails, is interrupted, or hangs."""

    def __init__(self, accountant, then, epsilon=1.0, delta=1e-6):
        self.accountant, self.then, self.epsilon, self.delta = accountant, then, epsilon, delta

    def get_params(self, deep=False):
        return dict(epsilon=self.epsilon, delta=self.delta, then=repr(self.then))

    def fit(self):
        return self._fit_atomically()

    def _fit(self):
        self._check_budget()
        if self.then == "error":
            raise ValueError("refused input")
        if self.then == "late error":
            self._reading_data()
            raise ValueError("refused input after reading it")
        if self.then == "interrupt":
            raise KeyboardInterrupt
        self.then.set()  # an Event: the reservation is in the file
        time.sleep(60)


def _stall(path, ready):
    Stalling(BudgetAccountant.open(path, "patients"), ready).fit()


def test_sigkill_mid_fit_leaves_the_reservation_charged(tmp_path):
    acc = ledger(tmp_path, 1.5, 1e-5)
    ready = FORK.Event()
    proc = FORK.Process(target=_stall, args=(tmp_path / "budget.sqlite", ready))
    proc.start()
    assert ready.wait(30)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(30)
    assert proc.exitcode == -signal.SIGKILL
    assert acc.total() == (1.0, 1e-6)  # counted: the data may have been read
    with pytest.raises(BudgetExceededError, match="budget.sqlite"):
        NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc).fit(X, y)
    assert statuses(tmp_path / "budget.sqlite") == ["reserved"]


# ---------------------------------------------------------------------------------------------
# Pickling, cloning, GridSearchCV
# ---------------------------------------------------------------------------------------------
def test_a_pickled_estimator_charges_the_original_ledger(tmp_path):
    acc = ledger(tmp_path, 5.0, 1e-5)
    est = pickle.loads(pickle.dumps(
        KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, accountant=acc, random_state=0)))
    assert est.accountant is not acc and est.accountant.store == acc.store
    est.fit(X, y)
    assert len(acc.spends) == 1 and acc.total()[0] > 0
    again = pickle.loads(pickle.dumps(est))  # a fitted one too
    again.fit(X, y)
    assert len(acc.spends) == 2


def _search(acc, **kw):
    est = NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc)
    return GridSearchCV(est, {"target_bound": [0.5, 1.0, 2.0]}, cv=2, n_jobs=2, **kw)


@pytest.mark.parametrize("backend", ["loky", "multiprocessing"])
def test_grid_search_with_processes_charges_every_fit(tmp_path, backend):
    acc = ledger(tmp_path, 100.0, 1e-4)
    with warnings.catch_warnings(), joblib.parallel_backend(backend):
        warnings.simplefilter("error", PrivacyLeakWarning)  # no fit lost in a worker
        _search(acc).fit(X, y)
    assert statuses(tmp_path / "budget.sqlite") == ["charged"] * 7  # 3 x 2 folds + refit
    assert acc.total()[1] == pytest.approx(7e-6)
    pids = {s["pid"] for s in acc.spends}
    assert len(pids) >= 2  # the fits really ran in worker processes


def test_grid_search_with_processes_refuses_fits_over_the_cap(tmp_path):
    acc = ledger(tmp_path, 100.0, 3.5e-6)  # admits three fits by their deltas
    with warnings.catch_warnings(), pytest.raises(BudgetExceededError):
        warnings.simplefilter("ignore")
        _search(acc).fit(X, y)  # the refit is refused too
    assert statuses(tmp_path / "budget.sqlite") == ["charged"] * 3
    assert acc.total()[1] <= 3.5e-6


# ---------------------------------------------------------------------------------------------
# Composition: the file composes as the memory does, checked against dp-accounting
# ---------------------------------------------------------------------------------------------
def _mixed_sequence():
    for sigma in (3.0, 4.0, 5.0):
        ledger = PrivacyLedger()
        ledger.gaussian(1.0, sigma, count=4)
        yield 2.0, 1e-7, ledger
    for eps in (0.2, 0.3):
        ledger = PrivacyLedger()
        ledger.pure(eps, count=2)  # Laplace mechanisms
        yield 2 * eps, 0.0, ledger
    yield 0.1, 1e-8, None  # a spend that reported no mechanism


def test_the_file_composes_as_memory_and_is_valid_against_dp_accounting(tmp_path):
    memory, file = BudgetAccountant(), ledger(tmp_path)
    for eps, delta, part in _mixed_sequence():
        memory.spend(eps, delta, ledger=part)
        file.charge(file.reserve(eps, delta), eps, delta, ledger=part)
    eps_mem, delta_mem = memory.total()
    eps_file, delta_file = BudgetAccountant.open(tmp_path / "budget.sqlite", "patients").total()
    assert delta_file == pytest.approx(delta_mem, rel=1e-15)
    assert eps_file == pytest.approx(eps_mem, rel=1e-9)
    assert memory.composition()[2] == file.composition()[2]
    # a valid bound: never below the exact PLD composition of the same mechanisms
    pld = pld_privacy_accountant.PLDAccountant()
    for sigma in (3.0, 4.0, 5.0):
        pld.compose(dp_accounting.GaussianDpEvent(noise_multiplier=sigma), 4)
    for eps in (0.2, 0.3):
        pld.compose(dp_accounting.LaplaceDpEvent(noise_multiplier=1 / eps), 2)
    rest = delta_file - 1e-8  # the last spend composes basically: its (0.1, 1e-8) added
    assert eps_file >= pld.get_epsilon(rest) + 0.1 - 1e-6
    assert eps_file < sum(e for e, _, _ in _mixed_sequence())  # tighter than basic


# ---------------------------------------------------------------------------------------------
# Files that cannot be used: clear errors, never a reset
# ---------------------------------------------------------------------------------------------
def test_a_truncated_file_raises_a_clear_error(tmp_path):
    acc = ledger(tmp_path)
    acc._store.transaction(lambda con: [  # several pages of rows, in one transaction
        acc._store.add(con, "patients", dict(status="charged", label=f"spend {i}" * 5,
                                             epsilon=0.01, delta=0.0)) for i in range(300)])
    path = tmp_path / "budget.sqlite"
    acc._store.close()  # the last connection: the write-ahead log is folded into the file
    size = os.path.getsize(path)
    with open(path, "r+b") as fh:
        fh.truncate(size // 2)
    with pytest.raises(StoreError, match="budget.sqlite"):
        ledger(tmp_path).total()
    assert os.path.getsize(path) == size // 2  # never reset
    open(path, "w").close()
    with pytest.raises(StoreError, match="empty file"):
        ledger(tmp_path)


def test_a_foreign_file_is_refused(tmp_path):
    with sqlite3.connect(tmp_path / "other.sqlite") as con:
        con.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreError, match="another application"):
        ledger(tmp_path, name="other.sqlite")
    (tmp_path / "notes.txt").write_text("not a database at all, but long enough to read")
    with pytest.raises(StoreError, match="not an SQLite file"):
        ledger(tmp_path, name="notes.txt")


def test_a_file_locked_too_long_raises_and_charges_nothing(tmp_path):
    acc = ledger(tmp_path, 5.0, timeout=0.2)
    holder = sqlite3.connect(tmp_path / "budget.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    start = time.monotonic()
    with pytest.raises(StoreLockedError, match="budget.sqlite.*locked"):
        NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc).fit(X, y)
    assert time.monotonic() - start < 5
    holder.execute("ROLLBACK")
    holder.close()
    assert acc.spends == []


# ---------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------
def test_cli_synthesize_charges_the_ledger_and_budget_shows_it(tmp_path, capsys):
    from skdp.__main__ import main

    path, out = str(tmp_path / "budget.sqlite"), str(tmp_path / "out.csv")
    base = ["synthesize", "-o", out, "--quiet", "--seed", "1", "--store", path,
            "--dataset", "cancer"]
    assert main(base + ["--budget-epsilon", "1.5", "--budget-delta", "1e-5",
                        "--purpose", "demo release"]) == 0
    assert "left epsilon=0.5000" in capsys.readouterr().out
    assert main(base + ["--seed", "2"]) == 2  # the stored budget, now too small
    assert "Privacy budget exceeded" in capsys.readouterr().err
    assert main(["budget", path, "--dataset", "cancer"]) == 0
    shown = capsys.readouterr().out
    assert "SaddlePointSynthesizer" in shown and "demo release" in shown
    assert "total: epsilon=1, delta=4.44e-06 over 1 counted spends (composition: basic)" in shown
    assert main(["budget", path, "--dataset", "nobody"]) == 2
    assert "no dataset 'nobody'" in capsys.readouterr().err
    assert main(["synthesize", "-o", out, "--store", path]) == 2
    assert "--dataset" in capsys.readouterr().err


def test_cli_budget_refuses_a_missing_or_foreign_file(tmp_path, capsys):
    from skdp.__main__ import main

    assert main(["budget", str(tmp_path / "none.sqlite")]) == 2
    (tmp_path / "notes.txt").write_text("not a database at all, but long enough to read")
    assert main(["budget", str(tmp_path / "notes.txt")]) == 2
    assert "not an SQLite file" in capsys.readouterr().err


def test_a_newer_schema_or_an_unknown_part_field_is_refused(tmp_path):
    acc = ledger(tmp_path)
    part = PrivacyLedger()
    part.gaussian(1.0, 2.0)
    acc.spend(1.0, 1e-6, ledger=part)
    stored = acc._store.rows("patients")[0]["parts"]
    assert "NaN" not in stored  # plain JSON: fields that do not apply are left out
    assert acc.spends[0]["ledger"].entries[0].mu == pytest.approx(0.5)
    with sqlite3.connect(tmp_path / "budget.sqlite") as con:
        newer = stored.replace('"label"', '"future_field": 0.1, "label"')  # a field of a newer skdp
        con.execute("UPDATE spends SET parts = ?", (newer,))
    with pytest.raises(StoreError, match="upgrade skdp"):
        acc.total()
    with sqlite3.connect(tmp_path / "budget.sqlite") as con:
        con.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 3"):
        ledger(tmp_path)


def test_a_version_1_file_is_upgraded_and_its_rows_read_as_replace_one(tmp_path):
    path = tmp_path / "budget.sqlite"
    acc = ledger(tmp_path, 5.0, 1e-5)
    acc.spend(1.0, 0.0, label="old")
    con = sqlite3.connect(path)  # as skdp < issue 28 wrote it: schema 1, no relation
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.execute("ALTER TABLE spends DROP COLUMN neighbouring")
    con.execute("ALTER TABLE budgets DROP COLUMN neighbouring")
    con.commit()
    con.close()
    again = BudgetAccountant.open(path, "patients")
    assert again.neighbouring == "replace_one" and again.total() == (1.0, 0.0)
    assert again.spends[0]["neighbouring"] is None  # unknown: counted as replace_one
    again.spend(0.5, 0.0, neighbouring="add_remove")
    assert again.total()[0] == pytest.approx(2.0)  # 1 + 2 * 0.5



def test_private_search_reserves_then_charges_the_file(tmp_path):
    from skdp import PrivateMinimaxClassifier
    from skdp.model_selection import PrivateHyperparameterSearch

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3)) / 3
    y = (X[:, 0] > 0).astype(int)
    acc = ledger(tmp_path, epsilon=100.0, delta=1e-3)
    search = PrivateHyperparameterSearch(
        PrivateMinimaxClassifier(),
        {"n_iter": [2, 3]}, mean_runs=2, accountant=acc, random_state=0)
    search.fit(X, y, classes=[0, 1])
    assert statuses(tmp_path / "budget.sqlite") == ["charged"]
    assert acc.total()[0] == pytest.approx(search.privacy_spent_[0])
    small = ledger(tmp_path, name="small.sqlite", epsilon=0.01, delta=1e-3)
    with pytest.raises(BudgetExceededError):
        PrivateHyperparameterSearch(PrivateMinimaxClassifier(), {"n_iter": [2]}, mean_runs=2,
                                    accountant=small, random_state=0).fit(X, y, classes=[0, 1])
    assert statuses(tmp_path / "small.sqlite") == []


def test_an_estimator_that_fails_on_its_data_stays_charged(tmp_path):
    from skdp import KLAdaptiveRegressor

    acc = ledger(tmp_path, 5.0, 1e-5)
    X = np.ones((20, 2))
    X[3, 1] = np.nan  # found while reading the data: the failure depends on them
    with pytest.raises(ValueError):
        KLAdaptiveRegressor(epsilon=1.0, accountant=acc).fit(X, np.zeros(20))
    assert statuses(tmp_path / "budget.sqlite") == ["reserved"]
    assert acc.total()[0] == pytest.approx(1.0)
    with pytest.raises(ValueError):  # a bad parameter: refused before any reservation
        KLAdaptiveRegressor(epsilon=-1.0, accountant=acc).fit(np.ones((20, 2)), np.zeros(20))
    assert statuses(tmp_path / "budget.sqlite") == ["reserved"]


# ---------------------------------------------------------------------------------------------
# Seeds: a salted, slow fingerprint, never the seed (issue 28, item 3)
# ---------------------------------------------------------------------------------------------
def _file_bytes(path):
    out = b""
    for suffix in ("", "-wal"):
        if os.path.exists(str(path) + suffix):
            with open(str(path) + suffix, "rb") as fh:
                out += fh.read()
    return out


def test_the_file_stores_no_seed_only_a_fingerprint_that_detects_reuse(tmp_path):
    acc = ledger(tmp_path, 50.0, 1e-3)
    NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc, random_state=98765).fit(X, y)
    with pytest.warns(PrivacyLeakWarning, match="random_state=98765"):  # reuse still seen
        NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc,
                           random_state=98765).fit(X, y)
    NoisyMeanRegressor(epsilon=1.0, delta=1e-6, accountant=acc, random_state=13579).fit(X, y)
    acc.spend(0.5, 0.0, seed="random_state=24680")
    seeds = [s["seed"] for s in acc.spends]
    assert seeds[0] == seeds[1] != seeds[2] and all(s.startswith("scrypt:") for s in seeds)
    data = _file_bytes(tmp_path / "budget.sqlite")
    for secret in (b"98765", b"13579", b"24680"):
        assert secret not in data
    # another file, another salt: fingerprints do not match across files
    other = ledger(tmp_path, 50.0, 1e-3, name="other.sqlite")
    other.spend(0.5, 0.0, seed="random_state=98765")
    assert other.spends[0]["seed"] != seeds[0]


def test_an_old_file_is_scrubbed_when_opened(tmp_path):
    path = tmp_path / "budget.sqlite"
    store = BudgetStore(path)
    store.insert("patients", dict(status="charged", label="old fit", epsilon=1.0, delta=0.0,
                                  seed="random_state=4242",
                                  params='{"epsilon": 1.0, "random_state": 4242}'))
    con = sqlite3.connect(path)  # as skdp < issue 28 wrote it: no salt, plain seeds
    con.execute("DELETE FROM meta WHERE key = 'seed_salt'")
    con.commit()
    con.close()
    acc = BudgetAccountant(5.0, 1e-5, store=path, dataset="patients")
    (row,) = acc.spends
    assert row["seed"].startswith("scrypt:")
    assert json.loads(row["params"])["random_state"] == "<withheld>"
    assert b"4242" not in _file_bytes(path)
    with pytest.warns(PrivacyLeakWarning):  # reuse across old and new rows is still seen
        acc.spend(0.5, 0.0, seed="random_state=4242")


def test_a_byte_copy_of_the_file_or_another_host_refuses_to_charge(tmp_path, monkeypatch):
    # issue 28: the creation stamp travels with a copy; the inode and the host do not
    import shutil
    import socket

    path = tmp_path / "budget.sqlite"
    acc = BudgetAccountant(10.0, 1e-5, store=path, dataset="d")
    acc.spend(1.0, 1e-6)
    pickled = pickle.dumps(acc)
    pickle.loads(pickled).spend(1.0, 1e-6)               # the same file, the same host
    shutil.copyfile(path, tmp_path / "copy.sqlite")
    os.replace(tmp_path / "copy.sqlite", path)           # a byte copy at the same path
    with pytest.raises(StoreError, match="not the budget store this accountant"):
        pickle.loads(pickled)
    fresh = pickle.dumps(BudgetAccountant.open(path, "d"))
    monkeypatch.setattr(socket, "gethostname", lambda: "another-machine")
    with pytest.raises(StoreError, match="not the budget store this accountant"):
        pickle.loads(fresh)


def test_cli_ledger_flag_is_the_deprecated_name_of_store(tmp_path, capsys):
    from skdp._cli.parser import build_parser

    path = str(tmp_path / "b.sqlite")
    args = build_parser().parse_args(["synthesize", "-o", str(tmp_path / "o.csv"),
                                      "--ledger", path, "--dataset", "d"])
    assert args.store == path and not hasattr(args, "ledger")
    assert "--ledger is deprecated" in capsys.readouterr().err
