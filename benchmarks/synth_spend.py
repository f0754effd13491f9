"""Spent / reserved epsilon of SaddlePointSynthesizer with domain releases (synthspend).

Usage: PYTHONPATH=. python benchmarks/synth_spend.py  (a few seconds; one line a fit).
"""
import warnings

import numpy as np
import pandas as pd

from skdp import SaddlePointSynthesizer

warnings.filterwarnings("ignore")
rng = np.random.default_rng(0)
n = 600
cat = rng.choice(list("abcdefghij"), size=n,
                 p=[.3, .2, .1, .1, .1, .05, .05, .04, .03, .03])
num = rng.normal(size=n)
CONFIGS = {
    "private cats": (pd.DataFrame({"c": cat, "k": rng.choice(["x", "y"], size=n)}),
                     dict(domain="private")),
    "quantile": (pd.DataFrame({"x": num, "k": rng.choice(["x", "y"], size=n)}),
                 dict(domain={"x": (-5.0, 5.0), "k": ["x", "y"]}, bin_strategy="quantile")),
    "compress": (pd.DataFrame({"c": cat, "k": rng.choice(["x", "y"], size=n)}),
                 dict(domain={"c": list("abcdefghij"), "k": ["x", "y"]}, max_categories=4)),
}
for name, (X, kw) in CONFIGS.items():
    for solver in ["smd", "smd_linf", "mst", "aim"]:
        for rel in ["replace_one", "add_remove"]:
            if solver == "smd_linf" and rel == "add_remove":
                continue
            for eps in [0.5, 1.0, 5.0]:
                e = SaddlePointSynthesizer(epsilon=eps, delta=1e-6, solver=solver,
                                           neighbouring=rel, random_state=0, **kw).fit(X)
                print(f"{name:13s} {solver:8s} {rel:11s} eps={eps}: "
                      f"spent {e.privacy_spent_[0]:.6f} ({e.privacy_method_})", flush=True)
