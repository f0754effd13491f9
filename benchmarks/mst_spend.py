"""mst with at most two columns: what it spends and its 2-way error (issue 30 item 4, third part).

With one or two columns mst selects nothing and its two releases are Gaussian; the fit's
ledger composes them exactly in Gaussian DP. Calibrated in zCDP they spent 0.927 of
epsilon 1; calibrated in GDP (``skdp.solvers.synth.mst_aim.mst_gdp_shares``) they spend it
all. This script fits ``solver='mst'`` on 2-column subsets of the **validation** tables of
``synth_validation.py`` (coded as there), at 500 rows (a public random subsample, seed 2030)
and all rows, epsilon 0.5 / 1 / 5, delta 1e-6, 5 seeds, and prints one JSON line per cell:
mean 2-way TV of ``sample()`` against the table (and its standard error over seeds) and the
epsilon spent. Run it on two checkouts (before / after) to compare; same seeds, so the
comparison is paired::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/mst_spend.py > after.jsonl
"""

import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import tv  # noqa: E402
from synth_validation import load  # noqa: E402

from skdp import SaddlePointSynthesizer  # noqa: E402

TABLES = [("Ecdat", "HI"), ("COUNT", "rwm5yr"), ("mlmRev", "star")]
SUBSAMPLE_SEED = 2030


def main():
    warnings.simplefilter("ignore")
    for pkg, item in TABLES:
        X0, cards0 = load(pkg, item)
        for cols in [(0, 1), (1, 2)]:
            X, cards = X0[:, cols], [cards0[c] for c in cols]
            for rows in [500, len(X)]:
                keep = np.random.default_rng(SUBSAMPLE_SEED).choice(len(X), rows, replace=False)
                Xs = X[np.sort(keep)]
                for eps in [0.5, 1.0, 5.0]:
                    tvs, spent = [], []
                    for seed in range(5):
                        est = SaddlePointSynthesizer(
                            epsilon=eps, delta=1e-6, solver="mst", random_state=seed,
                            domain={j: list(range(k)) for j, k in enumerate(cards)}).fit(Xs)
                        Y = np.asarray(est.sample(), dtype=np.int64)
                        tvs.append(tv(Xs, Y, cards)[0])
                        spent.append(est.privacy_spent_[0])
                    print(json.dumps(dict(table=f"{pkg}/{item}", cols=cols, rows=rows, eps=eps,
                                          tv=float(np.mean(tvs)),
                                          se=float(np.std(tvs) / np.sqrt(len(tvs))),
                                          spent=float(np.mean(spent)))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
