"""``python score.py``: the CLI's DoctorContacts rows (curated domain, epsilon 1, seeds 0-7) at
``--n-bins`` 8 / 10 / 12 scored at 6 / 8 / 12 / 16 equal and quantile bins of the holdout,
each against the independent-columns DP baseline at the same bins (mean 2-way TV ratio over
seeds). Reads ``cli_targets.py``'s output folders: n_bins 10 from ``third_fifth/run.sh``'s
``t30`` folder, 8 and 12 from runs with ``CLI_EXTRA="--n-bins K"`` (a two-line switch in
``cli_targets.py`` passing extra CLI arguments; not committed)."""
import json
import os
import sys

import numpy as np

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from synth_resolution import independent, scores  # noqa: E402

d = "/tmp/s50/val/t30"
src = {10: d, 8: "/tmp/s50/nb/8", 12: "/tmp/s50/nb/12"}
tr = _read_csv_rows(f"{d}/DoctorContacts.train.csv")
ho = _read_csv_rows(f"{d}/DoctorContacts.holdout.csv")
cur = json.load(open(f"{d}/DoctorContacts.curated.json"))
numeric = ["low" in cur[c] for c in cur]
num = [j for j, n in enumerate(numeric) if n]
for nb in (6, 8, 12, 16):
    for kind in ("equal", "quantile"):
        res = {k: [] for k in src}
        for seed in range(8):
            sy = {k: _read_csv_rows(f"{v}/DoctorContacts.curated.cli.s{seed}.csv")
                  for k, v in src.items()}
            (h, t, *S), cards = _user_codes([ho, tr] + list(sy.values()), numeric, kind, nb)
            base = independent(t, cards, np.random.default_rng(seed + 7))
            b2 = scores(h, base, cards, num)[0]
            for k, s in zip(sy, S):
                res[k].append(scores(h, s, cards, num)[0] / b2)
        print(f"user {kind[0]}{nb}: " + "  ".join(f"n_bins {k}: {np.mean(v):.3f}"
                                                 for k, v in sorted(res.items())), flush=True)
