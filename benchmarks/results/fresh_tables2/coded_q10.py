"""``python coded_q10.py NPZ DOMAIN [UPSTREAM.npy ...]``: skdp's default fitted through the API
on a fresh table's training rows coded at the holdout's 10 quantile bins (``NPZ``: the
``upstream/T.npz`` that ``cli_draft_workflow.py --curated`` writes; every column a category, so
no fine grid: the whole budget to the solver), epsilon 1, delta 1e-6, seeds 0-3, and each
upstream synthetic table given (``anchors_pgm.py run --save``), scored at the same codes: mean
2-way TV against the holdout over the independent-columns DP baseline of the same seed
(``synth_resolution.independent``, rng ``seed + 7``, as the benchmark). ``DOMAIN``: the edited
domain file (which columns are numeric)."""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", ".."), os.path.join(HERE, "..", "..", "..")]
from skdp import SaddlePointSynthesizer  # noqa: E402
from synth_resolution import independent, scores  # noqa: E402

z = np.load(sys.argv[1])
codes, cards, hold = z["codes"], [int(k) for k in z["cards"]], z["holdout"]
dom = json.load(open(sys.argv[2]))
numeric = [j for j, c in enumerate(dom) if "low" in dom[c]]
for seed in range(4):
    base = scores(hold, independent(codes, cards, np.random.default_rng(seed + 7)), cards,
                  numeric)[0]
    est = SaddlePointSynthesizer(epsilon=1, delta=1e-6, domain=dict(enumerate(cards)),
                                 random_state=seed).fit(codes)
    fit = scores(hold, np.asarray(est.sample(len(codes)), dtype=np.int64), cards, numeric)[0]
    print(f"seed {seed}: {est.solver_}, {est.solver_info_.get('rounds')} rounds, q10 "
          f"{fit:.4f}, baseline {base:.4f}, ratio {fit / base:.3f}", flush=True)
    for path in sys.argv[3:] if seed == 0 else ():
        u = scores(hold, np.load(path), cards, numeric)[0]
        print(f"   {os.path.basename(path)}: {u:.4f}, ratio {u / base:.3f}")
