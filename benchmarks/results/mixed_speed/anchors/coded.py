"""``python coded.py DIR EPS SEED...``: skdp's default fitted on ``dump.py``'s coded table through
the API (``domain={j: k_j}``, the integer codes upstream MST / AIM got; every column a
category, so no fine grid: the whole budget goes to the solver), epsilon ``EPS``, delta
1e-6, replace-one; ``len(codes)`` rows sampled to ``DIR/coded/skdp_EPS_sSEED.npy`` for ``score.py``,
one line per fit with the solver, its rounds and the fit's CPU seconds."""
import os
import sys
import time

import numpy as np

from skdp import SaddlePointSynthesizer

folder, eps = sys.argv[1], float(sys.argv[2])
z = np.load(os.path.join(folder, "upstream", "movies.npz"))
codes, cards = z["codes"], [int(k) for k in z["cards"]]
os.makedirs(os.path.join(folder, "coded"), exist_ok=True)
for seed in map(int, sys.argv[3:]):
    c0 = time.process_time()
    est = SaddlePointSynthesizer(epsilon=eps, delta=1e-6, domain=dict(enumerate(cards)),
                                 random_state=seed).fit(codes)
    cpu = time.process_time() - c0
    np.save(os.path.join(folder, "coded", f"skdp_{eps:g}_s{seed}.npy"),
            np.asarray(est.sample(len(codes)), dtype=np.int64))
    print(f"seed {seed}: {est.solver_}, {est.solver_info_.get('rounds')} rounds, "
          f"fit {cpu:.1f} CPU s, spent {est.privacy_spent_}", flush=True)
