"""``SCIPY_ARRAY_API=1 python gpu_refine.py [--xp cupy]``: the fine grids' refinement on another
array namespace (issue 30, "a candidate grid with nothing to split"): a synthesizer (``smd``,
an Array API solver) fitted on a table in the namespace with an explicit second level
(``resolution_refine=0.4``), two grids of equal cells of which only the heavy one has a cell
to split at 2,000 rows. Prints the refinement's ledger label and each refined grid's sigma
and splits beside a NumPy fit's of the same table (labels and sigmas must agree: the rule
runs on released counts on the host; splits may differ where the device drew other noise),
and checks that the synthetic rows stay within the bounds. Without CUDA, ``--xp
array_api_strict`` checks it."""
import argparse
import math
import sys
import warnings

import numpy as np
import sklearn

sys.path.insert(0, __file__.rsplit("/benchmarks/", 1)[0])
from skdp import BudgetAccountant, SaddlePointSynthesizer  # noqa: E402
from skdp._backend import to_numpy  # noqa: E402


def table(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    return np.c_[np.clip(rng.normal(9.0, 0.5, n), 0, 12), rng.uniform(0, 10, n)]


def refinement(est):
    """The refinement's ledger labels, and per refined column its released sigma and splits."""
    labels = [e.label for e in est.privacy_ledger_.entries
              if e.label.startswith("fine grid refine")]
    grids = {k: (g["refinement"]["sigma"], g["refinement"]["splits"])
             for k, g in est.resolution_.items() if "refinement" in g}
    return labels, grids


def fit(X, xp_name):
    est = SaddlePointSynthesizer(domain={0: {"low": 0, "high": 12, "missing": False},
                                         1: {"low": 0, "high": 10, "missing": False}},
                                 solver="smd", resolution_share=0.2, resolution_refine=0.4,
                                 random_state=0, accountant=BudgetAccountant())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if xp_name == "numpy":
            return est.fit(X)
        with sklearn.config_context(array_api_dispatch=True):
            return est.fit(X)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--xp", default="cupy")
    args = p.parse_args()
    xp = __import__(args.xp)
    X = table()
    host, dev = fit(X, "numpy"), fit(xp.asarray(X), args.xp)
    print("numpy:", refinement(host))
    print(f"{args.xp}:", refinement(dev))
    (la, ga), (lb, gb) = refinement(host), refinement(dev)
    ok = la == lb == ["fine grid refinement of 1 of 2 columns"] and list(ga) == list(gb) \
        and all(math.isclose(ga[k][0], gb[k][0], rel_tol=1e-9) for k in ga)
    rows = np.asarray(to_numpy(dev.sample(500, random_state=1)), dtype=float)  # namespace
    inside = bool(np.all((rows[:, 0] >= 0) & (rows[:, 0] <= 12) & (rows[:, 1] >= 0)
                         & (rows[:, 1] <= 10)))
    print("same refinement release:", ok, "| synthetic rows within the bounds:", inside)
    sys.exit(0 if ok and inside else 1)


if __name__ == "__main__":
    main()
