"""``python yrbss_targets.py SEED...``: ``synth_resolution.run`` on yrbss (the API benchmark:
the whole table, its domain of public bounds, fitted and scored against itself at eq8 / q10
bins), the estimator's defaults; per seed the mean 2-way TV as a multiple of the
independent-columns DP baseline and the numeric columns whose 1-way TV is at most the
baseline's (at 5 decimals; the sweep rows of ``run`` skipped)."""
import os
import sys

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
import synth_resolution as sr  # noqa: E402

sr.SWEEP = sr.SWEEP[:1]
table = next(t for t in sr.TABLES if t[1] == "yrbss")
for seed in map(int, sys.argv[1:]):
    out, names, numeric = sr.run(table, seed, {}, 0, False, False, 1, None)[:3]
    cells = []
    for how in ("eq8", "q10"):
        (b2, b1), (f2, f1) = out[("independent", how)], out[("after (default)", how)]
        ok = sum(f1[j] <= b1[j] for j in numeric)
        cells.append(f"{f2:.5f} / {b2:.5f} ({f2 / b2:.3f}x) | {ok} of {len(numeric)}")
    print(f"| yrbss | {seed} | " + " | ".join(cells) + " |", flush=True)
