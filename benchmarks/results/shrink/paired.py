"""``python paired.py OUT TABLE DOMAIN EPSILON SEED...``: the per-integer shrink toward flat
(``skdp._domain.fine.shrink_to_flat``), off against on, paired by seed.

The split, domains and scoring of ``issue30_targets/cli_targets.py`` (item 6's public
15,000-row subsample, seed 2030: 12,000 training rows, 3,000 held out; DOMAIN ``curated`` or
``api``; 10 equal / 10 quantile bins of the holdout; the independent-columns baseline at the
same bins and EPSILON, rng ``seed + 7``), through the estimator (the CLI's rows,
``cli_api_gap.py --cli``). One fit per seed: the shrink changes no released value, so the
fit is shared and the rows are sampled twice with the same ``random_state``, once without
the shrink (main's decoding, the default) and once with it (the grids' ``shrink`` set, as
``resolution_shrink=True`` sets it). Per seed:
the mean 2-way TV as a multiple of the baseline's, off and on, at e10 and q10; then each
numeric column's 1-way TV, off / on / baseline.

``--line`` or ``--blocks`` first (``paired.py --line OUT ...``): the experiments of RESULTS.md's
section, the "on" state shrinking toward the least-squares line within the bin instead of the
flat vector (:func:`shrink_to_line`), or per block of frequencies (:func:`shrink_blocks`); not
in the package.

``--cells`` first, with ``SKDP_TREE=CHECKOUT`` (a checkout of 10d84ab with
``../shrink_line/switch.diff`` applied; its environment variables pick the variant,
``SKDP_SHRINK_TARGET`` ``flat`` / ``line`` / ``quad``, ``SKDP_PRETEST=1``, ``SKDP_EXCLUDE=1``,
``SKDP_EXCLUDE_ALL=1``): the experiments of "fine counts of equal cells shrunk toward a line",
off and on the switch's ``fine.SHRINK_CELLS`` (per-integer grids shrunk in both)."""
import os
import sys
import warnings

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
tree = os.environ.get("SKDP_TREE", os.path.abspath(os.path.join(here, "..", "..", "..")))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
import cli_api_gap as gap  # noqa: E402
from cli_draft_workflow import _read_csv_rows, _user_codes  # noqa: E402
import synth_resolution  # noqa: E402
from skdp._domain import fine  # noqa: E402
from synth_resolution import independent, scores  # noqa: E402
from skdp.synthesizer import SaddlePointSynthesizer  # noqa: E402



def shrink_to_line(counts, sigma):
    """Positive-part James-Stein toward the least-squares line through the bin's counts (a
    2-dimensional target: ``k - 4``, Efron & Morris 1973), then projected onto the
    non-negative vectors of the bin's total."""
    p = np.asarray(counts, dtype=np.float64)
    k = len(p)
    var = float(np.mean(np.square(sigma))) if k else 0.0
    if k < 5 or not var > 0:
        return p.copy()
    x = np.arange(k) - (k - 1) / 2
    line = p.mean() + x * (x @ p) / (x @ x)
    spread = float(np.square(p - line).sum())
    if not spread > 0:
        return p.copy()
    c = max(0.0, 1.0 - (k - 4) * var / spread)
    return fine.project_nonnegative(line + c * (p - line), p.sum())


def shrink_blocks(counts, sigma):
    """Positive-part James-Stein toward 0 per block of the bin's orthonormal DCT-II
    coefficients (the constant kept): the 3 lowest frequencies, then the rest (``m - 2`` for
    a block of ``m``); projected onto the non-negative vectors of the bin's total."""
    from scipy.fft import dct, idct

    p = np.asarray(counts, dtype=np.float64)
    k = len(p)
    var = float(np.mean(np.square(sigma))) if k else 0.0
    if k < 4 or not var > 0:
        return p.copy()
    a = dct(p, norm="ortho")
    for lo, hi in ((1, 4), (4, k)):
        block = a[lo:hi]
        energy = float(np.square(block).sum())
        if len(block) >= 3 and energy > 0:
            a[lo:hi] = max(0.0, 1.0 - (len(block) - 2) * var / energy) * block
    return fine.project_nonnegative(idct(a, norm="ortho"), p.sum())


args = sys.argv[1:]
cells = args[0] == "--cells"
if cells:
    args = args[1:]
elif args[0] == "--line":
    fine.shrink_to_flat, args = shrink_to_line, args[1:]
elif args[0] == "--blocks":
    fine.shrink_to_flat, args = shrink_blocks, args[1:]
out, item, which, eps = args[0], args[1], args[2], float(args[3])
synth_resolution.EPSILON = eps  # the baseline at the fit's epsilon
os.makedirs(out, exist_ok=True)
_, train, hold = gap.split(item, 15000)
cur, api, header = gap.domains(item, train, out)
dom = {"curated": cur, "api": api}[which]
src, hsrc = (os.path.join(out, f"{item}.{x}.csv") for x in ("train", "holdout"))
train[header].to_csv(src, index=False)
hold[header].to_csv(hsrc, index=False)
import pandas as pd  # noqa: E402

train_csv = pd.read_csv(src)
tr, ho = _read_csv_rows(src), _read_csv_rows(hsrc)
numeric = ["low" in cur[c] or "low" in dom[c] for c in header]
num = [j for j, n in enumerate(numeric) if n]


def rows(est, shrink, path):
    if cells:
        fine.SHRINK_CELLS = shrink
    for c in est._columns:
        if c.fine is not None:
            c.fine.shrink, c.fine._pieces = shrink or cells, None
    est.sample(len(train_csv)).to_csv(path, index=False)
    return _read_csv_rows(path)


print(f"# {item} {which} epsilon {eps}; numeric: {[header[j] for j in num]}")
print("| seed | e10 off | e10 on | q10 off | q10 on | 1-way e10 off/on/base per column | "
      "1-way q10 off/on/base per column |")
for seed in map(int, args[4:]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SaddlePointSynthesizer(epsilon=eps, delta=1e-6, domain=dom,
                                     random_state=seed).fit(train_csv)
    syn = [rows(est, s, os.path.join(out, f"{item}.{which}.e{eps}.s{seed}.{s}.csv"))
           for s in (False, True)]
    cells, ones = [], []
    for kind in ("equal", "quantile"):
        (h, t, s0, s1), cards = _user_codes([ho, tr] + syn, numeric, kind, 10)
        base = independent(t, cards, np.random.default_rng(seed + 7))
        (b2, b1), (f0, o0), (f1, o1) = (scores(h, x, cards, num) for x in (base, s0, s1))
        cells += [f"{f0 / b2:.4f}", f"{f1 / b2:.4f}"]
        ones.append(" ".join(f"{o0[j]:.4f}/{o1[j]:.4f}/{b1[j]:.4f}" for j in num))
    print(f"| {seed} | " + " | ".join(cells + ones) + " |", flush=True)
