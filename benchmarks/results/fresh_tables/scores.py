"""Diagnoses of the fresh-table outputs of ``fresh.sh`` (``/tmp/fresh_T_S``), mean over seeds,
at 10 equal and 10 quantile bins of the holdout, against the DP baseline of the same seed:

    python scores.py pairs T DROP SEED...   # per-column 2-way ratios, with and without DROP's pairs
    python scores.py oneway T SEED...       # per numeric column 1-way TV: CLI, baseline, train
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", ".."), os.path.join(HERE, "..", "..", "..")]
from cli_api_gap import two_way  # noqa: E402
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from synth_resolution import independent  # noqa: E402


def coded(T, s, kind):
    """The holdout, training, synthetic and baseline rows of seed ``s`` coded at ``kind`` bins."""
    d = f"/tmp/fresh_{T}_{s}/"
    dom = json.load(open(d + f"{T}.edited.json"))
    header = list(dom)
    tr, ho, sy = [_read_csv_rows(d + f"{T}.{x}.csv") for x in ("train", "holdout", "syn")]
    numeric = ["low" in dom[c] for c in header]
    (h, t, sv), cards = _user_codes([ho, tr, sy], numeric, kind, 10)
    base = independent(t, cards, np.random.default_rng(s + 7))
    return header, numeric, cards, h, {"syn": sv, "base": base, "train": t}


def pairs(T, drop, seeds):
    for kind in ("equal", "quantile"):
        acc = {}
        for s in seeds:
            header, _, cards, h, tables = coded(T, s, kind)
            for name, X in tables.items():
                for k, v in two_way(h, X, cards).items():
                    acc.setdefault((name, k), []).append(v)
        m = {k: np.mean(v) for k, v in acc.items()}
        keys = sorted({k for _, k in m})
        j = header.index(drop)

        def ratio(name, keep):
            return np.mean([m[(name, p)] for p in keep]) / np.mean([m[("base", p)] for p in keep])

        for label, keep in (("all", keys), (f"without {drop}", [p for p in keys if j not in p]),
                            (f"only {drop}", [p for p in keys if j in p])):
            print(f"{kind} {label}: syn {ratio('syn', keep):.3f}x, train "
                  f"{ratio('train', keep):.3f}x ({len(keep)} pairs)")
        for c, name in enumerate(header):
            keep = [p for p in keys if c in p and (j not in p or c == j)]
            print(f"   {name}: syn {ratio('syn', keep):.2f}x train {ratio('train', keep):.2f}x")


def oneway(T, seeds):
    for kind in ("equal", "quantile"):
        acc = {}
        for s in seeds:
            header, numeric, cards, h, tables = coded(T, s, kind)
            for j, c in enumerate(header):
                if numeric[j]:
                    ph = np.bincount(h[:, j], minlength=cards[j]) / len(h)
                    for name, X in tables.items():
                        p = np.bincount(X[:, j], minlength=cards[j]) / len(X)
                        acc.setdefault((c, name), []).append(0.5 * np.abs(p - ph).sum())
        print(kind)
        for c in dict.fromkeys(k[0] for k in acc):
            print(f"   {c}: syn {np.mean(acc[(c, 'syn')]):.4f} base "
                  f"{np.mean(acc[(c, 'base')]):.4f} train {np.mean(acc[(c, 'train')]):.4f}")


if __name__ == "__main__":
    if sys.argv[1] == "pairs":
        pairs(sys.argv[2], sys.argv[3], [int(s) for s in sys.argv[4:]])
    else:
        oneway(sys.argv[2], [int(s) for s in sys.argv[3:]])
