"""What does a budget kept in a SQLite file cost? The file ledger against the in-memory one.

1. Overhead per fit: the time of a small real fit (KLAdaptiveRegressor, 200 x 3,
   epsilon=1) charged to an in-memory accountant and to a ledger file, and of
   the accountant's own work per fit (reserve + charge of a typical ledger, no
   fit), at ledgers already holding 0, 300 and 1000 spends.
2. Throughput under contention: P processes (2 and 8) each reserving and
   charging spends on one file for a few seconds; spends charged per second in
   all, and the cap (half of the attempts) is checked to hold.

Run: OMP_NUM_THREADS=1 python benchmarks/ledger.py [--seconds 5] [--fits 30]
"""

import argparse
import multiprocessing
import os
import tempfile
import time

import numpy as np

from skdp import BudgetAccountant, BudgetExceededError, KLAdaptiveRegressor
from skdp.privacy import PrivacyLedger

FORK = multiprocessing.get_context("fork")


def typical_ledger():
    """A fit's ledger: 50 Gaussian steps and 3 selections, as a solver reports them."""
    ledger = PrivacyLedger()
    ledger.gaussian(1.0, 5.0, count=50)
    ledger.exponential(0.1, count=3)
    return ledger


def cycle(acc):
    token = acc.reserve(1.0, 1e-9, label="bench")
    acc.charge(token, 1.0, 1e-9, ledger=typical_ledger(), label="bench")


def per_call_ms(fn, n):
    """Median time of ``n`` calls (robust to a loaded machine)."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * float(np.median(times))


def fill(acc, n):
    """Charge ``n`` spends (one transaction for a file) so the ledger holds history."""
    if acc._store is None:
        for _ in range(n):
            acc.spend(1.0, 1e-9, ledger=typical_ledger())
        return
    part = typical_ledger()
    rows = [acc._row("charged", 1.0, 1e-9, part, "history", None, {}) for _ in range(n)]
    acc._store.transaction(lambda con: [acc._store.add(con, acc.dataset, r) for r in rows])


def overhead(folder, n_fits):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = X @ np.array([1.0, -0.5, 0.2]) + 0.1 * rng.normal(size=200)
    print("## overhead per fit (ms, median of --fits calls)")
    print(f"{'ledger':8} {'history':>8} {'fit':>9} {'accounting':>11}")
    for history in (0, 300, 1000):
        for kind in ("memory", "file"):
            path = os.path.join(folder, f"over-{history}.sqlite")
            acc = BudgetAccountant() if kind == "memory" else \
                BudgetAccountant(store=path, dataset="bench")
            fill(acc, history)
            fit = per_call_ms(lambda: KLAdaptiveRegressor(
                epsilon=1.0, delta=1e-9, accountant=acc).fit(X, y), n_fits)
            accounting = per_call_ms(lambda: cycle(acc), n_fits)
            print(f"{kind:8} {history:8d} {fit:9.1f} {accounting:11.1f}")


def contend(path, seconds, charged, refused):
    acc = BudgetAccountant.open(path, "bench")
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        attempt(lambda: cycle(acc), charged, refused)


def attempt(spend, charged, refused):
    """Run ``spend`` and count it in ``charged``, or in ``refused`` if the cap refused it."""
    try:
        spend()
    except BudgetExceededError:
        with refused.get_lock():
            refused.value += 1
        return
    with charged.get_lock():
        charged.value += 1


def throughput(folder, seconds):
    print(f"\n## throughput: P processes reserving + charging for {seconds} s on one file")
    print(f"{'P':>3} {'charged':>8} {'refused':>8} {'per s':>7} {'total eps':>10} {'cap':>6}")
    for n_proc in (1, 2, 8):
        path = os.path.join(folder, f"contend-{n_proc}.sqlite")
        cap = 1e9
        BudgetAccountant(cap, 1.0, store=path, dataset="bench")
        charged, refused = FORK.Value("i", 0), FORK.Value("i", 0)
        procs = [FORK.Process(target=contend, args=(path, seconds, charged, refused))
                 for _ in range(n_proc)]
        start = time.perf_counter()
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        wall = time.perf_counter() - start
        acc = BudgetAccountant.open(path, "bench")
        rows = len(acc.spends)
        assert rows == charged.value, (rows, charged.value)  # no spend lost
        print(f"{n_proc:3d} {charged.value:8d} {refused.value:8d} {charged.value / wall:7.1f} "
              f"{acc.total()[0]:10.4g} {cap:6.3g}")


def capped(folder, n_proc=8, attempts=25):
    """8 processes x 25 attempts against a cap admitting half: the cap holds."""
    path = os.path.join(folder, "capped.sqlite")
    cap = n_proc * attempts / 2
    BudgetAccountant(cap, 1.0, store=path, dataset="bench")
    charged, refused = FORK.Value("i", 0), FORK.Value("i", 0)

    def run():
        acc = BudgetAccountant.open(path, "bench")

        def spend():
            acc.charge(acc.reserve(1.0, 0.0), 1.0, 0.0)

        for _ in range(attempts):
            attempt(spend, charged, refused)

    procs = [FORK.Process(target=run) for _ in range(n_proc)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    total = BudgetAccountant.open(path, "bench").total()[0]
    print(f"\n## cap: {n_proc} x {attempts} attempts of epsilon 1 under a cap of {cap:g}: "
          f"{charged.value} charged, {refused.value} refused, total epsilon {total:g}")
    assert total <= cap and total == charged.value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--fits", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        overhead(folder, args.fits)
        throughput(folder, args.seconds)
        capped(folder)


if __name__ == "__main__":
    main()
