"""What an add/remove synthesizer fit costs on a replace-one budget (issue 28 item 9).

Fits ``SaddlePointSynthesizer(neighbouring='add_remove')`` (smd, mst, aim) at each epsilon
(delta 1e-6) on a small coded table, charged to a replace-one ``BudgetAccountant``, and prints
the replace-one epsilon the accountant counts: "group privacy" with every part converted by
groups of two (Gaussian mu x 2; what skdp did before each Gaussian part recorded its ratio),
"by ratio" with each Gaussian part at mu x its recorded replace-one / add-remove sensitivity
ratio (sqrt 2 for counts), as the accountant now does. Selections (exponential mechanism)
double in both.

Run: python benchmarks/add_remove_conversion.py [--eps 0.5 1 2]   (about a second)
"""

import argparse
import dataclasses
import warnings

import numpy as np

from skdp import BudgetAccountant, SaddlePointSynthesizer
from skdp.privacy.accountant import add_remove_as_replace_one
from skdp.privacy.ledger import PrivacyLedger

DELTA = 1e-6


def costs(solver, epsilon, X):
    acc = BudgetAccountant(epsilon=100.0, delta=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SaddlePointSynthesizer(epsilon=epsilon, delta=DELTA, domain={0: 3, 1: 3, 2: 3},
                                     solver=solver, neighbouring="add_remove", accountant=acc,
                                     random_state=0).fit(X)
    grouped = PrivacyLedger([dataclasses.replace(e, replace_ratio=None) if e.kind == "gaussian"
                             else e for e in est.privacy_ledger_.entries])  # group privacy
    kinds = sorted({e.kind for e in est.privacy_ledger_.entries})
    return (est.privacy_spent_[0], add_remove_as_replace_one(grouped).epsilon(DELTA),
            acc.total()[0], kinds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    args = parser.parse_args()
    X = np.random.default_rng(0).integers(0, 3, size=(300, 3))
    print("| solver | epsilon (add/remove) | replace-one, group privacy | replace-one, by ratio "
          "| parts |")
    print("|---|---|---|---|---|")
    for solver in ("smd", "mst", "aim"):
        for eps in args.eps:
            own, before, after, kinds = costs(solver, eps, X)
            print(f"| {solver} | {own:.4g} | {before:.4f} | {after:.4f} | {', '.join(kinds)} |")


if __name__ == "__main__":
    main()
