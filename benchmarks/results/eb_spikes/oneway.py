"""``python oneway.py DIR0 DIR1 TABLE``: per numeric column of the curated domain, the mean
over seeds of its 1-way TV against the holdout (10 quantile / equal bins) for DIR0's and
DIR1's synthetic files (``at_eps.py`` outputs: DIR0 also holds the split and the draft),
beside the DP independent baseline's (``synth_resolution.independent``, rng ``seed + 7``)."""
import glob
import json
import os
import sys

import numpy as np

sys.path[:0] = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")]
from cli_draft_workflow import CURATED, _read_csv_rows, _user_codes, curate  # noqa: E402
from synth_resolution import independent, scores  # noqa: E402


def main(d0, d1, t):
    ho, tr = _read_csv_rows(f"{d0}/{t}.holdout.csv"), _read_csv_rows(f"{d0}/{t}.train.csv")
    dom = curate(json.load(open(f"{d0}/{t}.draft.json")), CURATED[t][1])
    header = list(dom)
    numeric = ["low" in dom[c] for c in header]
    num = [j for j, n in enumerate(numeric) if n]
    files = list(zip(sorted(glob.glob(f"{d0}/{t}.curated.s*.csv")),
                     sorted(glob.glob(f"{d1}/{t}.curated.s*.csv"))))
    for kind in ("quantile", "equal"):
        r = []
        for seed, (a, b) in enumerate(files):
            (h, trc, sa, sb), cards = _user_codes(
                [ho, tr, _read_csv_rows(a), _read_csv_rows(b)], numeric, kind, 10)
            base = independent(trc, cards, np.random.default_rng(seed + 7))
            one = [scores(h, s, cards, num)[1] for s in (sa, sb, base)]
            r.append([[o[j] for o in one] for j in num])
        m = np.array(r).mean(0)
        print(f"{kind}: mean 1-way DIR0 / DIR1 / baseline {m.mean(0).round(4).tolist()}; "
              f"columns at most the baseline's: {int((m[:, 0] <= m[:, 2]).sum())} / "
              f"{int((m[:, 1] <= m[:, 2]).sum())} of {len(num)}")
        for j, c in enumerate(num):
            print(f"   {header[c]:12s} {m[j, 0]:.4f} -> {m[j, 1]:.4f}  (baseline {m[j, 2]:.4f})")


if __name__ == "__main__":
    main(*sys.argv[1:])
