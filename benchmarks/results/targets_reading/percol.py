"""``python percol.py OUT TABLE``: per numeric column, the mean over seeds 0-7 of the 1-way TV
at the holdout's 10 equal / 10 quantile bins of the CLI's rows (``OUT/TABLE.curated.cli.
sSEED.csv``, written by ``../issue30_targets/cli_targets.py OUT TABLE curated 0 ... 7``), the
training rows and the independent-columns DP baseline (mean of 5 draws, rng ``1000 seed + r``)
against the holdout, and of the CLI's rows and the baseline against the training rows. A
diagnosis (it reads the training rows), not a privacy claim."""
import os
import sys

import numpy as np

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks"), os.path.dirname(os.path.abspath(__file__))]
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from synth_resolution import independent, marginal  # noqa: E402
from _split import read  # noqa: E402

out, item = sys.argv[1:3]
path, header, numeric, tr, ho = read(out, item)
num = [j for j, n in enumerate(numeric) if n]


def tv(a, b, j, cards):
    return 0.5 * np.abs(marginal(a, (j,), cards) - marginal(b, (j,), cards)).sum()


for kind in ("equal", "quantile"):
    rows = {j: [] for j in num}
    for seed in range(8):
        sy = _read_csv_rows(f"{path}.curated.cli.s{seed}.csv")
        (h, t, s), cards = _user_codes([ho, tr, sy], numeric, kind, 10)
        bases = [independent(t, cards, np.random.default_rng(1000 * seed + r)) for r in range(5)]
        for j in num:
            rows[j].append((tv(h, s, j, cards), tv(h, t, j, cards),
                            np.mean([tv(h, b, j, cards) for b in bases]), tv(t, s, j, cards),
                            np.mean([tv(t, b, j, cards) for b in bases])))
    print(f"\n{item} {kind}: column | synth-hold | train-hold | base-hold | synth-train | "
          "base-train")
    for j in num:
        print(f"{header[j]:>12} | " + " | ".join(f"{x:.4f}" for x in np.mean(rows[j], axis=0)))
