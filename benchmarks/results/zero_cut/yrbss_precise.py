"""``python yrbss_precise.py TREE K SEED...``: ``synth_resolution.run`` on yrbss (the API
benchmark's whole table, its domain, eq8 / q10 bins) with the tree ``TREE`` first on the path
and, when ``K > 0``, ``solver_options['zero_below'] = K`` forced into aim/mst; prints the
'after (default)' and 'independent' 2-way TVs and numeric 1-way means at 5 decimals (the
benchmark's own table rounds to 3)."""
import os
import sys

tree, K = os.path.abspath(sys.argv[1]), float(sys.argv[2])
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
import numpy as np  # noqa: E402
import synth_resolution as sr  # noqa: E402
from skdp.solvers.synth import mst_aim  # noqa: E402

if K > 0:
    for name in ("solve_aim", "solve_mst"):
        def wrapped(problem, budget, options, _orig=getattr(mst_aim, name)):
            return _orig(problem, budget, {**options, "zero_below": K})
        setattr(mst_aim, name, wrapped)
table = next(t for t in sr.TABLES if t[1] == "yrbss")
for seed in map(int, sys.argv[3:]):
    out = sr.run(table, seed, {}, 0, False, False, 1, None)[0]
    cells = []
    for label in ("independent", "after (default)"):
        for how in ("eq8", "q10"):
            tv2, one = out[(label, how)]
            cells.append(f"{tv2:.5f} {np.mean(list(one.values())):.5f}")
    print(f"| yrbss | {seed} | " + " | ".join(cells) + " |", flush=True)
