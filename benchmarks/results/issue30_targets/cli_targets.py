"""``python cli_targets.py OUT TABLE DOMAIN SEED...``: issue 30's targets through the CLI.

The split, draft and curation of ``benchmarks/cli_api_gap.py`` (item 6's public 15,000-row
subsample, seed 2030: 12,000 training rows, 3,000 held out); DOMAIN ``curated`` (the CLI's
draft edited by ``cli_draft_workflow.curate``) or ``api`` (``synth_resolution.domain_of``
with ``TABLES``' public bounds) is written to a JSON file and ``python -m skdp synthesize
TRAIN --domain FILE --epsilon 1 --delta 1e-6 --seed SEED`` is run. Scored at 10 equal /
10 quantile bins of the holdout (item 6's ``_user_codes``; a column is binned when it is
numeric in the curated or the used domain), beside ``synth_resolution.independent`` at the
same bins (rng ``seed + 7``, as both benchmarks): per seed the mean 2-way TV against the
holdout as a multiple of the baseline's, and the numeric columns whose 1-way TV against the
holdout is at most the baseline's (full precision)."""
import json
import os
import subprocess
import sys

import numpy as np

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
import cli_api_gap as gap  # noqa: E402
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from synth_resolution import independent, scores  # noqa: E402

out, item, which = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
_, train, hold = gap.split(item, 15000)
cur, api, header = gap.domains(item, train, out)
dom = {"curated": cur, "api": api}[which]
src, hsrc, dfile = (os.path.join(out, f"{item}.{x}") for x in
                    ("train.csv", "holdout.csv", f"{which}.json"))
train[header].to_csv(src, index=False)
hold[header].to_csv(hsrc, index=False)
with open(dfile, "w") as fh:
    json.dump(dom, fh)
tr, ho = _read_csv_rows(src), _read_csv_rows(hsrc)
numeric = ["low" in cur[c] or "low" in dom[c] for c in header]
num = [j for j, n in enumerate(numeric) if n]
env = dict(os.environ, PYTHONPATH=tree)
for seed in map(int, sys.argv[4:]):
    syn = os.path.join(out, f"{item}.{which}.cli.s{seed}.csv")
    c0 = os.times()
    proc = subprocess.run([sys.executable, "-m", "skdp", "synthesize", src, "-o", syn,
                           "--domain", dfile, "--epsilon", "1", "--delta", "1e-6", "--seed",
                           str(seed), "--quiet"], env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(proc.stderr[-2000:])
    c1 = os.times()
    cpu = c1[2] + c1[3] - c0[2] - c0[3]  # the CLI's CPU seconds
    sy = _read_csv_rows(syn)
    cells = []
    for kind in ("equal", "quantile"):
        (h, t, s), cards = _user_codes([ho, tr, sy], numeric, kind, 10)
        base = independent(t, cards, np.random.default_rng(seed + 7))
        (f2, f1), (b2, b1) = scores(h, s, cards, num), scores(h, base, cards, num)
        ok = sum(f1[j] <= b1[j] for j in num)
        cells.append(f"{f2:.4f} / {b2:.4f} ({f2 / b2:.3f}x) | {ok} of {len(num)}")
    print(f"| {item} | {which} | {seed} | " + " | ".join(cells) + f" | {cpu:.0f} |",
          flush=True)
