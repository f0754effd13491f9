"""Issue 31: the subsampled steps' noise calibration (``subsampled_noise_within``), timed and
compared between two trees.

``grid``: prints one JSON line per (q, T, epsilon, delta, ledger) point with the calibrated
noise multiplier and the CPU seconds of its calibration (one process, caches cleared between
points). ``child``: one calibration in this (fresh) process, the default classifier's ledger
before its steps (two Gaussian releases), printed as JSON. ``time``: ``child`` in fresh
processes for each tree, alternating, at q in {0.016, 0.008, 0.004, 0.0016}, T in {250, 1000}.

    PYTHONPATH=. python benchmarks/pld_calibration.py grid > branch.jsonl
    PYTHONPATH=/work/main python benchmarks/pld_calibration.py grid > main.jsonl
    python benchmarks/pld_calibration.py time --trees main=/work/main branch=. --rounds 3
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
import time

# the default classifier's ledger before its steps (epsilon 1): group sizes, feature mean
CLASSIFIER_MUS = (0.052928708573542906, 0.0729571898978906)


def _ledger(mus):
    from skdp.privacy.ledger import PrivacyLedger
    ledger = PrivacyLedger()
    for mu in mus:
        ledger.gaussian(1.0, 1.0 / mu)
    return ledger.entries


def _calibrate(entries, q, steps, eps, delta):
    from skdp.privacy import ledger as L
    L._calibrate.cache_clear()
    L._composed.cache_clear()
    start = time.process_time()
    z = L.subsampled_noise_within(entries, [], q, steps, eps, delta)
    return z, time.process_time() - start


def grid():
    ledgers = {"none": (), "clf": _ledger(CLASSIFIER_MUS), "heavy": _ledger((0.12, 0.05))}
    for q, steps, eps, delta, name in itertools.product(
            (0.0016, 0.004, 0.008, 0.016, 0.04, 0.1, 0.4), (10, 100, 250, 1000),
            (0.1, 0.5, 1.0, 4.0), (1e-6, 1e-9), ledgers):
        try:
            z, cpu = _calibrate(ledgers[name], q, steps, eps, delta)
        except ValueError as err:
            z, cpu = str(err), 0.0
        print(json.dumps(dict(q=q, T=steps, eps=eps, delta=delta, ledger=name, z=z, cpu=cpu)),
              flush=True)


def child(q, steps, eps):
    start = time.process_time()
    entries = _ledger(CLASSIFIER_MUS)
    imported = time.process_time() - start
    z, cpu = _calibrate(entries, q, steps, eps, 1e-6)
    print(json.dumps(dict(q=q, T=steps, eps=eps, z=z, cpu=cpu, import_cpu=imported)))


def time_trees(trees, rounds):
    for r in range(rounds):
        order = trees if r % 2 == 0 else trees[::-1]
        for q, steps in itertools.product((0.016, 0.008, 0.004, 0.0016), (250, 1000)):
            for name, path in order:
                env = dict(os.environ, PYTHONPATH=os.path.abspath(path), OMP_NUM_THREADS="1")
                out = subprocess.run([sys.executable, __file__, "child", str(q), str(steps)],
                                     env=env, capture_output=True, text=True, check=True).stdout
                print(json.dumps(dict(json.loads(out), tree=name, round=r)), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["grid", "child", "time"])
    parser.add_argument("q", nargs="?", type=float)
    parser.add_argument("steps", nargs="?", type=int)
    parser.add_argument("--eps", type=float, default=1.0)
    parser.add_argument("--trees", nargs="+", default=[])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.mode == "grid":
        grid()
    elif args.mode == "child":
        child(args.q, args.steps, args.eps)
    else:
        time_trees([t.split("=", 1) for t in args.trees], args.rounds)
