"""Per numeric column 1-way TV (mean over seeds) of the fresh-table outputs: skdp CLI, DP indep, train."""
import json, sys
import numpy as np
sys.path[:0] = ['/work/main/benchmarks', '/work/main']
from cli_draft_workflow import _read_csv_rows, _user_codes
from synth_resolution import independent

T, seeds = sys.argv[1], [int(s) for s in sys.argv[2:]]
for kind in ("equal", "quantile"):
    acc = {}
    for s in seeds:
        d = f'/tmp/fresh_{T}_{s}/'
        dom = json.load(open(d + f'{T}.edited.json')); header = list(dom)
        tr, ho, sy = [_read_csv_rows(d + f'{T}.{x}.csv') for x in ('train', 'holdout', 'syn')]
        numeric = ["low" in dom[c] for c in header]
        (h, t, sv), cards = _user_codes([ho, tr, sy], numeric, kind, 10)
        base = independent(t, cards, np.random.default_rng(s + 7))
        for j, c in enumerate(header):
            if not numeric[j]:
                continue
            ph = np.bincount(h[:, j], minlength=cards[j]) / len(h)
            for name, X in (("syn", sv), ("base", base), ("train", t)):
                p = np.bincount(X[:, j], minlength=cards[j]) / len(X)
                acc.setdefault((c, name), []).append(0.5 * np.abs(p - ph).sum())
    print(kind)
    for c in dict.fromkeys(k[0] for k in acc):
        print(f"   {c}: syn {np.mean(acc[(c, 'syn')]):.4f} base {np.mean(acc[(c, 'base')]):.4f} "
              f"train {np.mean(acc[(c, 'train')]):.4f}")
