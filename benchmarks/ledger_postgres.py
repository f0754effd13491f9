"""A budget on a PostgreSQL server against the SQLite file: throughput and reserve latency.

P processes (1, 8 and 32) each open the dataset's accountant and, for a few
seconds, reserve and charge spends (a claim and a typical fit's ledger: 50
Gaussian steps, 3 selections), with no fit between: the accountant's own cost.
Reported per store and P: spends charged per second in all, and the median and
95th percentile of one ``reserve`` call (the cap check and the reservation's
transaction: what a fit waits for before it reads its data). The cap admits
every attempt (it is not what is measured; tests/cluster/test_ledger_backends.py checks
that it holds). The server is a local one started from pgserver's wheel (Unix
socket, default settings, fsync on): a server on another machine adds its
round trips (5 to 7 per reserve, one or two more per charge).

Run: OMP_NUM_THREADS=1 nice -n 10 python benchmarks/ledger_postgres.py [--seconds 3]
     [--processes 1 8 32]  (needs psycopg[binary] and pgserver for the server's rows)
"""

import argparse
import multiprocessing
import os
import tempfile
import time
import warnings

import numpy as np

from skdp import BudgetAccountant
from skdp.privacy import PrivacyLedger

FORK = multiprocessing.get_context("fork")


def typical_ledger():
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, 5.0, count=50)
    ledger.exponential(0.1, count=3)
    return ledger


def worker(where, seconds, start, out):
    acc = BudgetAccountant.open(where, "bench")
    start.wait()
    stop = time.monotonic() + seconds
    latencies, done = [], 0
    while time.monotonic() < stop:
        t0 = time.perf_counter()
        token = acc.reserve(1e-3, 1e-12, label="bench")
        latencies.append(time.perf_counter() - t0)
        acc.charge(token, 1e-3, 1e-12, ledger=typical_ledger(), label="bench")
        done += 1
    out.put((done, latencies))


def run(where, processes, seconds):
    BudgetAccountant(1e9, 0.5, store=where, dataset="bench")
    start, out = FORK.Event(), FORK.Queue()
    procs = [FORK.Process(target=worker, args=(where, seconds, start, out))
             for _ in range(processes)]
    for p in procs:
        p.start()
    time.sleep(1.0 + 0.05 * processes)  # every worker connected and waiting
    t0 = time.monotonic()
    start.set()
    results = [out.get(timeout=seconds + 120) for _ in procs]
    wall = time.monotonic() - t0
    for p in procs:
        p.join(30)
    done = sum(r[0] for r in results)
    lat = np.concatenate([r[1] for r in results]) * 1e3
    return done / wall, float(np.median(lat)), float(np.percentile(lat, 95))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--processes", type=int, nargs="+", default=[1, 8, 32])
    args = parser.parse_args()
    stores = {}
    folder = tempfile.mkdtemp(prefix="skdp-bench-")
    server = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver
            import psycopg  # noqa: F401

            server = pgserver.get_server(tempfile.mkdtemp(prefix="skdp-pg-"),
                                         cleanup_mode="stop")
    except ImportError:
        print("psycopg or pgserver missing: the SQLite file only")
    print(f"{'store':<10} {'P':>3} {'spends/s':>9} {'reserve median ms':>18} "
          f"{'reserve p95 ms':>15}")
    try:
        for processes in args.processes:
            stores = {"sqlite": os.path.join(folder, f"b{processes}.sqlite")}
            if server is not None:
                name = f"bench{processes}"
                server.psql(f"CREATE DATABASE {name};")
                stores["postgres"] = server.get_uri().replace("/postgres?", f"/{name}?", 1)
            for store, where in stores.items():
                rate, median, p95 = run(where, processes, args.seconds)
                print(f"{store:<10} {processes:>3} {rate:>9.0f} {median:>18.2f} {p95:>15.2f}",
                      flush=True)
    finally:
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
