"""Per-column 2-way ratios (skdp CLI / DP indep, mean over pairs) on the fresh-table outputs
of fresh.sh, and the means with and without one column's pairs."""
import json, sys
import numpy as np
sys.path[:0] = ['/work/main/benchmarks', '/work/main']
from cli_draft_workflow import _read_csv_rows, _user_codes
from cli_api_gap import two_way
from synth_resolution import independent

T, drop, seeds = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
for kind in ("equal", "quantile"):
    acc = {}
    for s in seeds:
        d = f'/tmp/fresh_{T}_{s}/'
        dom = json.load(open(d + f'{T}.edited.json')); header = list(dom)
        tr, ho, sy = [_read_csv_rows(d + f'{T}.{x}.csv') for x in ('train', 'holdout', 'syn')]
        numeric = ["low" in dom[c] for c in header]
        (h, t, sv), cards = _user_codes([ho, tr, sy], numeric, kind, 10)
        base = independent(t, cards, np.random.default_rng(s + 7))
        for name, X in (("syn", sv), ("base", base), ("train", t)):
            for k, v in two_way(h, X, cards).items():
                acc.setdefault((name, k), []).append(v)
    m = {k: np.mean(v) for k, v in acc.items()}
    pairs = sorted({k for _, k in m})
    j = header.index(drop)
    for label, keep in (("all", pairs), (f"without {drop}", [p for p in pairs if j not in p]),
                        (f"only {drop}", [p for p in pairs if j in p])):
        b = np.mean([m[("base", p)] for p in keep])
        print(f"{kind} {label}: syn {np.mean([m[('syn', p)] for p in keep]) / b:.3f}x, "
              f"train {np.mean([m[('train', p)] for p in keep]) / b:.3f}x ({len(keep)} pairs)")
    for c, name in enumerate(header):
        keep = [p for p in pairs if c in p and (j not in p or c == j)]
        b = np.mean([m[("base", p)] for p in keep])
        print(f"   {name}: syn {np.mean([m[('syn', p)] for p in keep]) / b:.2f}x train "
              f"{np.mean([m[('train', p)] for p in keep]) / b:.2f}x")
