"""Model selection and failures on a Dask cluster (issue 20): the shared ledger, killed workers.

Every test runs on the session's ``dask_client`` (a 2-worker LocalCluster of processes). The
functions run on the workers are module-level here and shipped by value (the workers need not
import this file).
"""

import os
import pickle
import signal
import sqlite3
import sys
import threading
import time
import warnings

import numpy as np
import pytest

pytest.importorskip("distributed")
import cloudpickle  # noqa: E402  (a dependency of distributed)
import dask.array as da  # noqa: E402
import joblib  # noqa: E402
from distributed import default_client  # noqa: E402
from distributed.scheduler import KilledWorker  # noqa: E402
from sklearn.model_selection import GridSearchCV  # noqa: E402

from skdp import (BudgetAccountant, BudgetExceededError, KLAdaptiveRegressor,  # noqa: E402
                  StoreError, PrivacyLeakWarning, PrivateMinimaxClassifier)
from skdp._partitions import Partitions  # noqa: E402
from skdp.model_selection import PrivateHyperparameterSearch  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
cloudpickle.register_pickle_by_value(sys.modules[__name__])

rng = np.random.default_rng(0)
X = rng.normal(size=(240, 3)) / 2
y_reg = X @ np.array([0.5, -0.3, 0.2]) + 0.05 * rng.normal(size=240)
y_clf = (X[:, 0] + X[:, 1] > 0).astype(int)
CHUNKS = ((300, 0, 500, 200), 3)  # unequal, one empty


def ledger(tmp_path, epsilon, delta, name="b.sqlite"):
    return BudgetAccountant(epsilon=epsilon, delta=delta, store=tmp_path / name, dataset="t")


def statuses(path):
    with sqlite3.connect(path) as con:
        return [r[0] for r in con.execute("SELECT status FROM spends ORDER BY id")]


def composed(spends):
    """The (epsilon, delta) of ``spends`` composed again in memory, from their claims."""
    memory = BudgetAccountant()
    for s in spends:
        memory.spend(s["epsilon"], s["delta"], ledger=s["ledger"])
    return memory.total()


class Watch:
    """Reads the file's total from a thread while the cluster charges it; ``max`` is the largest."""

    def __init__(self, acc):
        self.acc, self.seen, self.stop = acc, [], threading.Event()
        self.thread = threading.Thread(target=self._run)

    def _run(self):
        reader = BudgetAccountant.open(self.acc.store, self.acc.dataset)
        while not self.stop.is_set():
            self.seen.append(reader.total())
            self.stop.wait(0.002)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(10)


# ---------------------------------------------------------------------------------------------
# GridSearchCV under joblib's Dask backend: every fit charged to the shared file, once
# ---------------------------------------------------------------------------------------------
ESTIMATORS = {
    "regressor": (lambda acc: KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, accountant=acc),
                  y_reg, {}),
    "classifier": (lambda acc: PrivateMinimaxClassifier(epsilon=1.0, delta=1e-6, n_iter=3,
                                                        accountant=acc),
                   y_clf, {"classes": [0, 1]}),
}


def search(make, acc):
    return GridSearchCV(make(acc), {"epsilon": [0.5, 1.0, 2.0]}, cv=2, n_jobs=2)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_grid_search_on_dask_charges_every_fit_once(dask_client, tmp_path, name):
    make, y, public = ESTIMATORS[name]
    acc = ledger(tmp_path, 100.0, 1e-4)
    with warnings.catch_warnings(), joblib.parallel_config(backend="dask"), Watch(acc) as watch:
        warnings.simplefilter("error", PrivacyLeakWarning)  # no fit spent on a lost copy
        fitted = search(make, acc).fit(X, y, **public)
    assert statuses(tmp_path / "b.sqlite") == ["charged"] * 7  # 3 x 2 folds + the refit
    spends = acc.spends
    workers = set(dask_client.run(os.getpid).values())
    assert {s["pid"] for s in spends[:6]} <= workers  # the folds ran on the workers,
    assert spends[6]["pid"] == os.getpid()  # the refit on the client
    assert sorted(s["epsilon"] for s in spends) == sorted(
        [0.5, 0.5, 1.0, 1.0, 2.0, 2.0, fitted.best_params_["epsilon"]])
    assert acc.total() == pytest.approx(composed(spends), rel=1e-9)
    assert acc.total()[1] == pytest.approx(7e-6)
    assert max(seen[1] for seen in watch.seen) <= 7e-6 * (1 + 1e-9)  # reservations included


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_grid_search_on_dask_refuses_fits_over_the_cap(dask_client, tmp_path, name):
    make, y, public = ESTIMATORS[name]
    acc = ledger(tmp_path, 100.0, 3.5e-6)  # admits three fits by their deltas
    with warnings.catch_warnings(), joblib.parallel_config(backend="dask"), Watch(acc) as watch:
        warnings.simplefilter("ignore")  # sklearn's FitFailedWarning for the refused folds
        with pytest.raises(BudgetExceededError, match="b.sqlite"):
            search(make, acc).fit(X, y, **public)  # the refit is refused too
    assert statuses(tmp_path / "b.sqlite") == ["charged"] * 3  # a refused fit leaves no row
    eps, delta = acc.total()
    assert delta == pytest.approx(3e-6) and delta <= 3.5e-6
    assert (eps, delta) == pytest.approx(composed(acc.spends), rel=1e-9)
    assert max(seen[1] for seen in watch.seen) <= 3.5e-6  # never over the cap while running


def test_a_refused_fit_on_a_worker_never_reads_the_data(dask_client, tmp_path):
    acc = ledger(tmp_path, 100.0, 1.5e-6)
    bad = X.copy()
    bad[5, 1] = np.nan  # reading these raises ValueError, and keeps the reservation charged
    est = KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, accountant=acc)
    with pytest.raises(ValueError, match="NaN"):
        dask_client.submit(est.fit, bad, y_reg, pure=False).result()
    with pytest.raises(BudgetExceededError):  # refused before it reached the NaN
        dask_client.submit(est.fit, bad, y_reg, pure=False).result()
    assert statuses(tmp_path / "b.sqlite") == ["reserved"]


def test_private_search_on_two_workers_shares_the_file(dask_client, tmp_path):
    # PrivateHyperparameterSearch has no n_jobs (its runs share one noisy selection); two
    # searches submitted at once to two workers, on a cap that admits one, charge it once.
    # one delta for all (delta='auto' would take the ledger's share, not the probe's 1e-6)
    probe = PrivateHyperparameterSearch(PrivateMinimaxClassifier(), {"n_iter": [2, 3]},
                                        mean_runs=2, delta=1e-6, random_state=0)
    probe.fit(X, y_clf, classes=[0, 1])
    cap = probe.privacy_spent_[0] * 1.5
    acc = ledger(tmp_path, cap, 1e-3)
    searches = [PrivateHyperparameterSearch(PrivateMinimaxClassifier(), {"n_iter": [2, 3]},
                                            mean_runs=2, delta=1e-6, accountant=acc,
                                            random_state=seed)
                for seed in (1, 2)]
    futures = [dask_client.submit(s.fit, X, y_clf, classes=[0, 1], pure=False)
               for s in searches]
    errors = [f.exception() for f in futures]
    assert sorted(type(e).__name__ for e in errors) == ["BudgetExceededError", "NoneType"]
    assert statuses(tmp_path / "b.sqlite") == ["charged"]
    assert acc.total()[0] == pytest.approx(probe.privacy_spent_[0], rel=1e-6)


def test_grid_search_over_dask_data_charges_each_fit_on_the_client(dask_client, tmp_path):
    # the multi-machine layout: the search runs beside the ledger, each fit on the cluster
    acc = ledger(tmp_path, 100.0, 1e-4)
    Xd, yd = da.from_array(X, chunks=(100, 3)), da.from_array(y_reg, chunks=100)
    est = KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, solver="noisy_gd", accountant=acc)
    search = GridSearchCV(est, {"epsilon": [0.5, 1.0]}, cv=2, error_score="raise").fit(Xd, yd)
    assert statuses(tmp_path / "b.sqlite") == ["charged"] * 5
    assert {s["pid"] for s in acc.spends} == {os.getpid()}
    assert isinstance(search.predict(Xd), da.Array)


def test_an_accountant_unpickled_where_its_file_is_not_refuses_to_charge(tmp_path):
    # a worker of another machine sees no file at the path, or another machine's file there:
    # charging it would start a new, empty budget
    acc = ledger(tmp_path, 10.0, 1e-5)
    acc.spend(1.0, 1e-6)
    pickled = pickle.dumps(KLAdaptiveRegressor(epsilon=1.0, accountant=acc))
    os.rename(tmp_path / "b.sqlite", tmp_path / "moved.sqlite")
    with pytest.raises(StoreError, match="not on this machine"):
        pickle.loads(pickled)
    assert not (tmp_path / "b.sqlite").exists()  # no empty ledger created in its place
    ledger(tmp_path, 10.0, 1e-5)  # another ledger at the same path
    with pytest.raises(StoreError, match="not the budget store this accountant"):
        pickle.loads(pickled)
    os.replace(tmp_path / "moved.sqlite", tmp_path / "b.sqlite")
    est = pickle.loads(pickled).fit(X, y_reg)  # the original file: charged
    assert len(acc.spends) == 2 and est.accountant.total() == acc.total()


# ---------------------------------------------------------------------------------------------
# A worker killed mid-fit: Dask recomputes the lost partitions, or the fit fails, still charged
# ---------------------------------------------------------------------------------------------
def _kill_once(block, marker):
    """The block, but first SIGKILL this worker process if ``marker`` does not exist yet."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return block


def _kill(block):
    os.kill(os.getpid(), signal.SIGKILL)


def _clip(part, bound):
    norms = np.maximum(np.linalg.norm(part["X"], axis=1) / bound, 1.0)
    return {"X": part["X"] / norms[:, None]}


def _column_sums(part, marker=None):
    if marker is not None:
        _kill_once(None, marker)
    return part["X"].sum(axis=0), len(part["X"])


def two_workers(client, timeout=60):
    """The pids of the cluster's two workers, once both answer (a nanny restarts a killed
    one; the scheduler may list a dead one until it notices)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            client.wait_for_workers(2, timeout=timeout)
            pids = client.run(os.getpid)
            if len(pids) == 2:
                return list(pids.values())
        except (OSError, TimeoutError):  # a comm closed by a dying worker
            if time.monotonic() > deadline:
                raise
        time.sleep(0.2)


@pytest.fixture(scope="module")
def fragile_cluster(dask_client):
    """A LocalCluster of its own (2 processes) for the tests that kill workers, so that the
    session's cluster keeps its two: a worker away longer than ``lost-worker-timeout``
    (15 s by default) is not restarted again. A task may kill one worker and be retried
    (``allowed-failures=1``); the second time it fails with ``KilledWorker``."""
    import dask
    import distributed

    settings = {"distributed.scheduler.allowed-failures": 1,
                "distributed.deploy.lost-worker-timeout": "120s"}
    with dask.config.set(settings), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     memory_limit="1GiB", dashboard_address=":0") as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        yield client


@pytest.fixture
def workers_back(fragile_cluster):
    """Two live workers of the fragile cluster, its client the default during the test."""
    two_workers(fragile_cluster)
    with fragile_cluster.as_current():
        yield fragile_cluster
    two_workers(fragile_cluster)


def test_partitions_recompute_a_partition_lost_with_its_worker(workers_back, tmp_path):
    Xn = np.random.default_rng(1).normal(size=(1000, 3))
    parts = Partitions.from_arrays({"X": da.from_array(Xn, chunks=CHUNKS)}, prepare=_clip,
                                   args=(1.0,))
    before = parts.reduce(_column_sums)
    after = parts.reduce(_column_sums, str(tmp_path / "killed"))
    assert os.path.exists(tmp_path / "killed")  # a worker died holding persisted partitions
    np.testing.assert_allclose(after[0], before[0], rtol=1e-12)
    assert after[1] == before[1] == 1000


# ---------------------------------------------------------------------------------------------
# The estimators' Dask fits with a worker killed
# ---------------------------------------------------------------------------------------------
DASK_FITS = {
    "regressor": (lambda acc: KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, solver="noisy_gd",
                                                  random_state=0, accountant=acc), {}),
    "classifier": (lambda acc: PrivateMinimaxClassifier(epsilon=1.0, delta=1e-6,
                                                        solver="noisy_gd", n_iter=5,
                                                        random_state=0, accountant=acc),
                   {"classes": [0, 1]}),
}


def assert_same_ledger(a, b):
    """The same mechanisms in the same order, their parameters equal to float tolerance."""
    assert [(e.kind, e.count, e.label) for e in a.entries] == \
        [(e.kind, e.count, e.label) for e in b.entries]
    for x, z in zip(a.entries, b.entries):
        for field in ("epsilon", "delta", "rho", "mu", "q"):  # those of the event's kind
            if hasattr(x, field):
                np.testing.assert_allclose(getattr(x, field), getattr(z, field), rtol=1e-9)


def rows(name):
    Xn = np.random.default_rng(3).normal(size=(1000, 3)) / 2
    y = Xn @ np.array([0.5, -0.3, 0.2]) + 0.05 * np.random.default_rng(4).normal(size=1000)
    return Xn, (y > 0).astype(int) if name == "classifier" else y


@pytest.mark.parametrize("name", list(DASK_FITS))
def test_a_fit_survives_a_worker_killed_between_passes(workers_back, tmp_path, monkeypatch,
                                                       name):
    make, public = DASK_FITS[name]
    Xn, yn = rows(name)
    reference = make(BudgetAccountant()).fit(Xn, yn, **public)
    pids, passes, map_ = two_workers(workers_back), [], Partitions.map

    def map_and_kill(parts, fn, *args, **kwargs):  # the third pass loses a worker first
        assert default_client() is workers_back  # the passes run on the fragile cluster
        passes.append(fn)
        if len(passes) == 3:
            os.kill(pids[0], signal.SIGKILL)
        return map_(parts, fn, *args, **kwargs)

    monkeypatch.setattr(Partitions, "map", map_and_kill)
    acc = ledger(tmp_path, 10.0, 1e-5)
    X = da.from_array(Xn, chunks=CHUNKS)
    est = make(acc).fit(X, da.from_array(yn, chunks=CHUNKS[0]), **public)
    assert len(passes) > 3  # killed mid-fit, and it went on
    np.testing.assert_allclose(est.coef_, reference.coef_, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(est.intercept_, reference.intercept_, rtol=1e-6, atol=1e-12)
    assert statuses(tmp_path / "b.sqlite") == ["charged"]
    assert_same_ledger(est.privacy_ledger_, reference.privacy_ledger_)
    assert acc.total() == pytest.approx(reference.privacy_spent_, rel=1e-9)


def test_a_dask_fit_whose_workers_keep_dying_fails_with_its_reservation_kept(workers_back,
                                                                             tmp_path):
    make, _ = DASK_FITS["regressor"]
    Xn, yn = rows("regressor")
    acc = ledger(tmp_path, 10.0, 1e-5)
    X = da.from_array(Xn, chunks=(1000, 3)).map_blocks(_kill, meta=np.empty((0, 0)))
    est = make(acc)
    with pytest.raises(KilledWorker):  # one partition: its task killed 4 workers, then failed
        est.fit(X, yn)
    assert not hasattr(est, "coef_")
    assert statuses(tmp_path / "b.sqlite") == ["reserved"]  # counted: the data may have been read
    assert acc.total() == (1.0, 1e-6)
