"""
==================================================
Private synthetic data with SaddlePointSynthesizer
==================================================

Release a differentially private synthetic copy of a real table (scikit-learn's
breast-cancer data: six measurements on public round bounds, plus the
diagnosis) and compare its marginals with a held-out half of the table. The
synthesizer measures every 2-way marginal once with the Gaussian mechanism and
solves the saddle-point game of paper 002 on the noisy answers; the error of
the release is compared with an independent-columns release, for several
epsilons.
"""

# %%
# A table with a public domain
# ----------------------------
# The bounds below are chosen, not read from the data: a domain derived from
# the private table would leak (skdp warns with ``PrivacyLeakWarning``). The
# table is documented to have no missing values, so no column needs the extra
# missing-value cell that float columns get by default (``"missing": False``).
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from skdp.synthesizer import SaddlePointSynthesizer

bounds = {"mean radius": (5.0, 30.0), "mean texture": (5.0, 40.0),
          "mean perimeter": (40.0, 200.0), "mean area": (100.0, 2600.0),
          "mean smoothness": (0.05, 0.17), "mean concavity": (0.0, 0.45)}
data = load_breast_cancer(as_frame=True)
df = data.frame[list(bounds)].copy()
df["diagnosis"] = pd.Categorical(np.asarray(data.target_names)[data.target])
train, holdout = train_test_split(df, test_size=0.3, random_state=0)
# One generator seeds every fit's noise: the figure is reproducible and each
# fit still draws fresh noise (the generator advances). For a figure only: a
# release keeps random_state=None, as a fixed or reused seed makes its noise known.
noise = np.random.RandomState(0)
# The public domain; no column of this table has missing values (declared, not read).
domain = {col: {"low": low, "high": high, "missing": False} for col, (low, high) in bounds.items()}
domain["diagnosis"] = {"categories": list(data.target_names), "missing": False}

# %%
# Fit, sample, score on the held-out rows
# ---------------------------------------
synth = SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain=domain, n_bins=6,
                               random_state=noise).fit(train)
synthetic = synth.sample()
print(synthetic.head())
print("privacy spent:", synth.privacy_spent_, "by", synth.privacy_method_)
print("mean 2-way TV error on the holdout:", -synth.score(holdout))

# %%
# Error against epsilon, and an independent-columns release
# ----------------------------------------------------------
# ``workload=1`` measures only the 1-way marginals: the game's solution is then
# a product distribution, the independent-columns baseline. Both are scored by
# the 2-way total-variation error of their synthetic rows against the holdout.
from itertools import combinations


def binned(frame):
    out = frame.copy()
    for col, (low, high) in bounds.items():
        out[col] = pd.cut(out[col].clip(low, high), np.linspace(low, high, 7),
                          include_lowest=True)
    return out


def two_way_tv(a, b):
    a, b = binned(a), binned(b)
    errs = []
    for c1, c2 in combinations(df.columns, 2):
        pa = pd.crosstab(a[c1], a[c2], normalize=True, dropna=False)
        pb = pd.crosstab(b[c1], b[c2], normalize=True, dropna=False)
        errs.append(0.5 * pa.sub(pb, fill_value=0).abs().to_numpy().sum())
    return float(np.mean(errs))


epsilons = [0.5, 1.0, 2.0, 5.0]
errors = {"2-way game (smd)": [], "independent columns": []}
for eps in epsilons:
    for label, k in [("2-way game (smd)", 2), ("independent columns", 1)]:
        est = SaddlePointSynthesizer(epsilon=eps, domain=domain, n_bins=6, workload=k,
                                     random_state=noise).fit(train)
        errors[label].append(two_way_tv(est.sample(), holdout))
print({k: np.round(v, 3).tolist() for k, v in errors.items()})
print("bootstrap of the training rows (not private):", round(two_way_tv(train, holdout), 3))

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
for label, values in errors.items():
    axes[0].plot(epsilons, values, marker="o", label=label)
axes[0].set_xscale("log")
axes[0].set_xlabel("epsilon")
axes[0].set_ylabel("mean 2-way TV error (holdout)")
axes[0].legend()

# One 2-way marginal, side by side
col_a, col_b = "mean radius", "diagnosis"
real = pd.crosstab(pd.cut(holdout[col_a], np.linspace(5, 30, 7)), holdout[col_b],
                   normalize=True)
fake = pd.crosstab(pd.cut(synthetic[col_a], np.linspace(5, 30, 7)), synthetic[col_b],
                   normalize=True)
real.plot.bar(ax=axes[1], position=1, width=0.4, alpha=0.8)
fake.plot.bar(ax=axes[1], position=0, width=0.4, alpha=0.5, hatch="//")
axes[1].set_title(f"{col_a} x {col_b}: holdout (plain) vs synthetic (hatched)", fontsize=9)
fig.tight_layout()

# sphinx_gallery_start_ignore
# With a display, show the figures; without one (a non-interactive matplotlib backend, such
# as Agg on a headless machine), save each as a PNG in the current directory. The docs
# build captures the figures itself.
import sys
from pathlib import Path

if "sphinx_gallery" in sys.modules or plt.get_backend().lower() not in {
        "agg", "cairo", "pdf", "pgf", "ps", "svg", "template"}:
    plt.show()
else:
    for num in plt.get_fignums():
        path = f"{Path(__file__).stem}_{num}.png"
        plt.figure(num).savefig(path)
        print(f"saved {path}")
# sphinx_gallery_end_ignore
