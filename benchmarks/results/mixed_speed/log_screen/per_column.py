"""``python per_column.py SCORE_DIR CODED_DIR KIND``: per column of ``movies.py``'s table, the
mean over seeds 0-3 of its pairs' 2-way TV against the holdout as a multiple of the DP
baseline's (rng ``seed + 7``) for the CLI's rows ``SCORE_DIR/cli/syn_1_sSEED.csv``, skdp on the
q10 codes (``CODED_DIR/skdp_1_sSEED.npy``, ``../anchors/coded.py``) and the training rows, and
its 1-way TV; at 10 ``KIND`` (``equal`` / ``quantile``) bins of the holdout. A diagnosis (it
reads the training rows)."""
import os
import sys

import numpy as np

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from split import read  # noqa: E402
from synth_resolution import independent, marginal  # noqa: E402

folder, coded, kind = sys.argv[1:4]
header, numeric, tr, ho = read(folder)
d = len(header)
pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
methods = ("cli", "coded", "base", "train")
acc = {m: np.zeros(d) for m in methods}
one = {m: np.zeros(d) for m in methods}
seeds = [0, 1, 2, 3]
for seed in seeds:
    syn = _read_csv_rows(f"{folder}/cli/syn_1_s{seed}.csv")
    (h, t, s), cards = _user_codes([ho, tr, syn], numeric, kind, 10)
    b = independent(t, cards, np.random.default_rng(seed + 7))
    for m, Y in zip(methods, (s, np.load(f"{coded}/skdp_1_s{seed}.npy"), b, t)):
        for i, j in pairs:
            e = 0.5 * np.abs(marginal(h, (i, j), cards) - marginal(Y, (i, j), cards)).sum()
            acc[m][i] += e
            acc[m][j] += e
        for j in range(d):
            one[m][j] += 0.5 * np.abs(marginal(h, (j,), cards) - marginal(Y, (j,), cards)).sum()
print("column | pairs: cli / coded / train (x base) | 1-way cli / coded / base / train")
for j in range(d):
    bb = acc["base"][j]
    print(f"{header[j]:>12} | {acc['cli'][j] / bb:.2f} / {acc['coded'][j] / bb:.2f} / "
          f"{acc['train'][j] / bb:.2f} | "
          + " / ".join(f"{one[m][j] / len(seeds):.4f}" for m in methods))
