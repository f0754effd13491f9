"""``python score.py DIR SEED...``: skdp's CLI rows and upstream MST / AIM on ``movies.py``'s
split, side by side, at the 10 quantile bins of the holdout (the bins upstream was fitted on:
``dump.py``).

Per seed and method: the mean 2-way TV over all 253 column pairs against the holdout and
against the training rows, each as a multiple of the independent-columns DP baseline's at the
same bins (``synth_resolution.independent``, rng ``seed + 7``: ``../baseline.py``'s draw), and
the numeric columns whose 1-way TV against the holdout is at most the baseline's. Reads
``DIR/cli/syn_EPS_sSEED.csv`` (``python -m skdp synthesize ... --seed SEED``),
``DIR/upstream_synth/movies__MECH-replace__epsEPS__seedSEED.npy`` and, with ``--coded``,
``DIR/coded/skdp_EPS_sSEED.npy`` (skdp's default fitted on the coded table through the API,
written by ``coded.py``); a method whose file is missing is skipped. One markdown row each."""
import argparse
import os
import sys

import numpy as np

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
from split import read  # noqa: E402
from synth_resolution import independent, scores  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("seeds", type=int, nargs="+")
p.add_argument("--eps", type=float, default=1.0)
args = p.parse_args()
folder, eps = args.dir, args.eps
header, numeric, tr, ho = read(folder)
num = [j for j, n in enumerate(numeric) if n]
(h, t), cards = _user_codes([ho, tr], numeric, "quantile", 10)
z = np.load(os.path.join(folder, "upstream", "movies.npz"))
assert (z["codes"] == t).all() and (z["holdout"] == h).all(), "dump.py's codes differ"


def cli_codes(seed):
    """The CLI's rows of ``seed`` at the same bins, or None; a category of the domain file
    that no real row holds (``mpaa`` ``G``) gets a code after the real ones, so the holdout's
    and the training rows' codes do not change, only the cardinality."""
    path = os.path.join(folder, "cli", f"syn_{eps:g}_s{seed}.csv")
    if not os.path.exists(path):
        return None, None
    (h3, t3, s), c3 = _user_codes([ho, tr, _read_csv_rows(path)], numeric, "quantile", 10)
    assert (h3 == h).all() and (t3 == t).all()
    return s, c3


# one cardinality for every method: the domain file's categories included (the baseline
# draws noise for every public cell; an empty cell adds nothing to a TV)
first = cli_codes(args.seeds[0])[1]
if first is not None:
    cards = [max(a, b) for a, b in zip(cards, first)]


def row(name, seed, syn, base):
    (fh2, f1), (bh2, b1) = scores(h, syn, cards, num), scores(h, base, cards, num)
    ft2, bt2 = scores(t, syn, cards, [])[0], scores(t, base, cards, [])[0]
    ok = sum(f1[j] <= b1[j] for j in num)
    print(f"| {name} | {seed} | {fh2:.4f} ({fh2 / bh2:.3f}x) | {ft2:.4f} ({ft2 / bt2:.3f}x) | "
          f"{ok} of {len(num)} |", flush=True)


print(f"epsilon {eps:g}; q10 of the holdout; baseline: DP independent columns, rng seed + 7")
print("| method | seed | 2-way vs holdout (x DP indep) | 2-way vs train (x DP indep) | "
      "numeric 1-way vs holdout at most the baseline's |")
print("|---|---|---|---|---|")
for seed in args.seeds:
    base = independent(t, cards, np.random.default_rng(seed + 7), epsilon=eps)
    row("DP independent columns", seed, base, base)
    row("real training rows (not private)", seed, t, base)
    s, _ = cli_codes(seed)
    if s is not None:
        row("skdp CLI (raw columns, its own bins)", seed, s, base)
    coded = os.path.join(folder, "coded", f"skdp_{eps:g}_s{seed}.npy")
    if os.path.exists(coded):
        row("skdp default on the q10 codes (API)", seed, np.load(coded), base)
    for mech in ("mst", "aim"):
        path = os.path.join(folder, "upstream_synth",
                            f"movies__{mech}-replace__eps{eps:g}__seed{seed}.npy")
        if os.path.exists(path):
            row(f"upstream {mech.upper()} (fit at the q10 codes)", seed, np.load(path), base)
