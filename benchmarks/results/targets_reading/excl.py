"""``python excl.py OUT TABLE COLUMNS``: the mean 2-way TV of the CLI's rows (``OUT/TABLE.curated.
cli.sSEED.csv`` of ``../issue30_targets/cli_targets.py``, seeds 0-7) at the holdout's 10 equal /
10 quantile bins as a multiple of the DP baseline's (rng ``seed + 7``), over the pairs with one
of the comma-separated ``COLUMNS`` and over the others, each with the training rows' ratio on
the same pairs (their floor). A diagnosis (it reads the training rows), not a privacy claim."""
import os
import sys

import numpy as np

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks"), os.path.dirname(os.path.abspath(__file__))]
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from synth_resolution import independent, marginal  # noqa: E402
from _split import read  # noqa: E402

out, item, named = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
path, header, numeric, tr, ho = read(out, item)
pairs = [(i, j) for i in range(len(header)) for j in range(i + 1, len(header))]
hit = [p for p in pairs if header[p[0]] in named or header[p[1]] in named]
rest = [p for p in pairs if p not in hit]


def mean_tv(a, b, cards, chosen):
    return np.mean([0.5 * np.abs(marginal(a, p, cards) - marginal(b, p, cards)).sum()
                    for p in chosen])


for kind in ("equal", "quantile"):
    ratios = {name: [] for name in ("all", "with", "with_train", "rest", "rest_train")}
    for seed in range(8):
        sy = _read_csv_rows(f"{path}.curated.cli.s{seed}.csv")
        (h, t, s), cards = _user_codes([ho, tr, sy], numeric, kind, 10)
        b = independent(t, cards, np.random.default_rng(seed + 7))
        for name, chosen in (("all", pairs), ("with", hit), ("rest", rest)):
            base = mean_tv(h, b, cards, chosen)
            ratios[name].append(mean_tv(h, s, cards, chosen) / base)
            if name != "all":
                ratios[f"{name}_train"].append(mean_tv(h, t, cards, chosen) / base)
    m = {k: np.mean(v) for k, v in ratios.items()}
    print(f"{kind}: all {len(pairs)} pairs {m['all']:.3f}x; the {len(hit)} with {named}: CLI "
          f"{m['with']:.3f}x, training rows {m['with_train']:.3f}x; the other {len(rest)}: "
          f"CLI {m['rest']:.3f}x, training rows {m['rest_train']:.3f}x")
