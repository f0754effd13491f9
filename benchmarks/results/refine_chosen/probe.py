"""``ROOT=CHECKOUT python probe.py SMALLN_CHECK_ARGS...``: runs ``benchmarks/smalln_check.py`` of
CHECKOUT (main since "a candidate grid with nothing to split": it has ``_refine_plans``) with
the refinement's plans wrapped, and prints on stderr how often a refinement had
``d_c`` candidate grids and released ``d_r`` of them (issue 30, "a candidate grid with nothing to
split"). Instrumentation only: nothing it prints is a release."""
import collections
import os
import sys

ROOT = os.environ.get("ROOT", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [ROOT, os.path.join(ROOT, "benchmarks")]

import skdp._domain.private as P  # noqa: E402

pairs = collections.Counter()
_plans = P._refine_plans


def refine_plans(columns, cand, *args):
    chosen, plans, noise = _plans(columns, cand, *args)
    if chosen:  # a release is made: (candidates, released)
        pairs[(len(cand), len(chosen))] += 1
    return chosen, plans, noise


P._refine_plans = refine_plans
import smalln_check  # noqa: E402

sys.argv = ["smalln_check.py"] + sys.argv[1:]
try:
    smalln_check.main()
finally:
    print("refinement (candidates, released): count", dict(pairs), file=sys.stderr)
