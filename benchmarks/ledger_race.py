"""Issue 32's acceptance race: 32 processes against one dataset's cap, on a PostgreSQL server
and on the SQLite file.

Each of 32 processes (forked) tries 3 fits of epsilon 1 (96 claims) against a cap of 20; the
store must admit exactly 20, whatever the interleaving. The server comes from pgserver's wheel
(``pip install 'skdp[test]'``); ``--url`` takes an existing server instead.

    python benchmarks/ledger_race.py [--processes 32] [--url postgresql://...]
"""

import argparse
import multiprocessing
import os
import tempfile
import time

from skdp import BudgetAccountant
from skdp.exceptions import BudgetExceededError

FORK = multiprocessing.get_context("fork")


def _race(where, n_fits, admitted):
    acc = BudgetAccountant.open(where, "race")
    for i in range(n_fits):
        try:
            acc.charge(acc.reserve(1.0, 1e-8, label=f"fit {i}"), 1.0, 1e-8)
        except BudgetExceededError:
            continue
        with admitted.get_lock():
            admitted.value += 1


def race(where, processes, cap=20.0, fits=3):
    acc = BudgetAccountant(cap, 1e-6, store=where, dataset="race")
    admitted = FORK.Value("i", 0)
    procs = [FORK.Process(target=_race, args=(where, fits, admitted)) for _ in range(processes)]
    start = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
    return admitted.value, acc.total()[0], time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--processes", type=int, default=32)
    parser.add_argument("--url", help="an existing server's database URL")
    args = parser.parse_args()
    url, server = args.url, None
    if url is None:
        import pgserver

        server = pgserver.get_server(tempfile.mkdtemp(prefix="skdp-pg-"), cleanup_mode="stop")
        url = server.get_uri()
    try:
        for name, where in (("postgresql", url),
                            ("sqlite", os.path.join(tempfile.mkdtemp(), "race.sqlite"))):
            n, total, sec = race(where, args.processes)
            print(f"{name}: {args.processes} processes x 3 claims of epsilon 1, cap 20: "
                  f"admitted {n}, total epsilon {total:.6g}, {sec:.1f} s")
    finally:
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
