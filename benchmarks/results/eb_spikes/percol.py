"""``python percol.py HOLDOUT DOMAIN A_GLOB B_GLOB [TABLE]``: per column, the mean over seeds
of (B - A) in the mean 2-way TV against HOLDOUT (10 equal / quantile bins) of the pairs
holding the column, A's and B's synthetic files paired by their sorted names. Numeric
columns: those with bounds in DOMAIN (a JSON domain file; with TABLE, a draft edited by
``cli_draft_workflow.CURATED[TABLE]``, as ``at_eps.py`` does)."""
import glob
import json
import os
import sys

import numpy as np

sys.path[:0] = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")]
from cli_api_gap import two_way  # noqa: E402
from cli_draft_workflow import CURATED, _read_csv_rows, _user_codes, curate  # noqa: E402


def main(holdout, domain, glob_a, glob_b, table=None):
    dom = json.load(open(domain))
    dom = curate(dom, CURATED[table][1]) if table else dom
    header = list(dom)
    numeric = ["low" in dom[c] for c in header]
    ho = _read_csv_rows(holdout)
    files = list(zip(sorted(glob.glob(glob_a)), sorted(glob.glob(glob_b))))
    for kind in ("equal", "quantile"):
        diffs = []
        for a, b in files:
            (h, sa, sb), cards = _user_codes([ho, _read_csv_rows(a), _read_csv_rows(b)],
                                             numeric, kind, 10)
            k = len(cards)
            per = np.zeros((k, k))
            tv_a, tv_b = two_way(h, sa, cards), two_way(h, sb, cards)
            for (i, j), tv in tv_b.items():
                per[i, j] = per[j, i] = tv - tv_a[i, j]
            diffs.append(per.sum(1) / (k - 1))
        d = np.array(diffs)
        print(f"{kind}: {len(d)} seeds, B - A per column (se)")
        for c, m, s in zip(header, d.mean(0), d.std(0, ddof=1) / np.sqrt(len(d))):
            print(f"  {c:12s} {m:+.5f} ({s:.5f})")


if __name__ == "__main__":
    main(*sys.argv[1:])
