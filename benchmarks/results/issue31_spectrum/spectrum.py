"""Issue 31 follow-up: does a statistic of the released preconditioned spectrum (eigenvalues of
``P S_hat P``, post-processing of the second-moment release) separate txhousing, where
``snr`` 0.5 helps, from the tables where it hurts?

Wraps ``skdp.regression.private_preconditioner`` to record, per default fit, the released
spectrum and (diagnostic only, never public) the spectrum of ``P S P`` with the true ``S``; fits
the default and ``solver_options={'snr': 0.5}`` with the same seed (the same release: checked)
and writes one JSON line per (table, eps, seed). Validation split only.

    cd benchmarks && OMP_NUM_THREADS=1 nice -n 10 python -W ignore \
        results/issue31_spectrum/spectrum.py --seeds 10 > results/issue31_spectrum/spectrum.jsonl
    python results/issue31_spectrum/spectrum.py --summary results/issue31_spectrum/spectrum.jsonl
"""
import argparse
import collections
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import real_tables as rt  # noqa: E402

import skdp.regression as reg  # noqa: E402
from skdp import KLAdaptiveRegressor  # noqa: E402

TABLES = ["CASchools", "diabetes", "CPS1985", "Housing", "Wage", "SLID", "txhousing", "CPS1988"]
EDGE = 0.4  # a pure-noise direction's P S_hat P eigenvalue is below ~ 1 / (1 + 1.5)
CAPTURED = []


def _recording(X, row_bound, budget):
    P, spectrum, bound = ORIGINAL(X, row_bound, budget)
    S = X.second_moment() if hasattr(X, "second_moment") else X.T @ X / X.shape[0]
    CAPTURED.append((np.asarray(spectrum, float), np.linalg.eigvalsh(P @ np.asarray(S) @ P)))
    return P, spectrum, bound


ORIGINAL = reg.private_preconditioner
reg.private_preconditioner = _recording


def spectrum_stats(released, true):
    top, t_top = released.max(), true.max()
    positive = released[released > 0]
    return {"p": len(released), "zero": int((released <= 0).sum()),
            "top": float(top), "cond": float(top / positive.min()),
            "f10": float((released < 0.1 * top).mean()), "median": float(np.median(released) / top),
            "bulk": float((released < EDGE).mean()), "above_edge": int((released >= EDGE).sum()),
            "true_f10": float((true < 0.1 * t_top).mean())}


def fit(X, t, tr, eps, seed, options):
    CAPTURED.clear()
    model = KLAdaptiveRegressor(epsilon=eps, delta=rt.DELTA, feature_bound=1.0, target_bound=1.0,
                                random_state=seed, solver_options=options).fit(X[tr], t[tr])
    return model, CAPTURED[0]


def run(seeds):
    for name in TABLES:
        spec = rt.TABLES[name]
        X, _, y, tr, ev = rt.table_data(name, spec, "validation")
        low, high = spec["target_bounds"]
        mid, half = (low + high) / 2, (high - low) / 2
        t = (np.clip(y, low, high) - mid) / half
        for eps in (0.5, 1, 5):
            for seed in range(seeds):
                base, (released, true) = fit(X, t, tr, eps, seed, None)
                cand, (released_c, _) = fit(X, t, tr, eps, seed, {"snr": 0.5})
                r2 = [rt.r2(y[ev], mid + half * m.predict(X[ev])) for m in (base, cand)]
                print(json.dumps({"table": name, "eps": eps, "seed": seed, "n": len(tr),
                                  "steps": base.n_iter_, "steps_snr": cand.n_iter_, "r2": r2[0],
                                  "d_snr": r2[1] - r2[0],
                                  "same_release": bool(np.array_equal(released, released_c)),
                                  **spectrum_stats(released, true)}), flush=True)


def summary(path):
    cells = collections.defaultdict(list)
    for line in open(path):
        row = json.loads(line)
        cells[(row["table"], row["eps"])].append(row)
    print("| table | eps | n | p | zero | cond (nonzero, median) | f < .1 top | median/top "
          "| f < .4 (noise bulk) | n >= .4 | true P S P: f < .1 top | steps default / snr .5 "
          "| R^2 default | snr .5 - default ± se |")
    print("|" + "---|" * 14)
    for (name, eps), rows in cells.items():
        mean = lambda key: np.mean([r[key] for r in rows])  # noqa: E731
        d = np.array([r["d_snr"] for r in rows])
        print(f"| {name} | {eps:g} | {rows[0]['n']} | {rows[0]['p']} | {mean('zero'):.1f} | "
              f"{np.median([r['cond'] for r in rows]):.0f} | {mean('f10'):.2f} "
              f"({min(r['f10'] for r in rows):.2f}-{max(r['f10'] for r in rows):.2f}) | "
              f"{mean('median'):.3f} | {mean('bulk'):.2f} | {mean('above_edge'):.1f} | "
              f"{mean('true_f10'):.2f} | {mean('steps'):.0f} / {mean('steps_snr'):.0f} | "
              f"{mean('r2'):.3f} | {d.mean():+.3f} ± {d.std(ddof=1) / np.sqrt(len(d)):.3f} |")
    print("same release with and without snr:", all(r["same_release"] for c in cells.values()
                                                   for r in c))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--summary", metavar="JSONL")
    args = parser.parse_args()
    summary(args.summary) if args.summary else run(args.seeds)
