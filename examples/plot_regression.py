"""
=====================================================
Private regression: R^2 against epsilon, and solvers
=====================================================

:class:`~skdp.regression.KLAdaptiveRegressor` fits a linear model with noisy
gradient methods whose privacy comes from clipping per-sample gradients to a
public norm (paper 004). This example fits it on a generated table of 20,000
rows at several privacy levels, next to non-private least squares, and
compares its solvers at epsilon = 1. It also shows the per-step privacy log
of the default, adaptive solver: each step's cost is chosen from earlier
noisy outputs, and the steps stop when the budget is spent.

See :ref:`kl_regression` for the privacy model.
"""

# %%
# Data on a public scale
# ----------------------
# Features are divided by a known constant so that rows have norm about 1
# (``feature_bound=1``); targets lie in [-1, 1] (``target_bound=1``).
import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split

from skdp.regression import KLAdaptiveRegressor

rng = np.random.default_rng(0)
n, d = 20000, 10
mix = rng.normal(size=(d, d)) * 0.3 + np.eye(d)
X = rng.normal(size=(n, d)) @ mix / 6.0
y = np.clip(0.5 * X @ rng.normal(size=d) + 0.3 + 0.15 * rng.normal(size=n), -1, 1)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
exact = LinearRegression().fit(X_train, y_train).score(X_test, y_test)
# One generator seeds every fit's noise: the figure is reproducible and each
# fit still draws fresh noise (the generator advances). For a figure only: a
# release keeps random_state=None, as a fixed or reused seed makes its noise known.
noise = np.random.RandomState(0)

# %%
# Test R^2 against epsilon
# ------------------------
epsilons = [0.1, 0.3, 1.0, 3.0, 10.0]
scores = {}
for solver in ["auto", "noisy_gd", "stationary_gd"]:
    scores[solver] = [
        np.mean([KLAdaptiveRegressor(epsilon=eps, solver=solver, random_state=noise)
                 .fit(X_train, y_train).score(X_test, y_test) for _ in range(3)])
        for eps in epsilons]

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
for solver, values in scores.items():
    ax1.plot(epsilons, values, marker="o", label=solver)
ax1.axhline(exact, color="k", linestyle="--", label="non-private")
ax1.set_xscale("log")
ax1.set_ylim(0, 1)
ax1.set_xlabel("epsilon (delta = 1e-6)")
ax1.set_ylabel("test R^2")
ax1.legend()

# %%
# What each step of the adaptive solver cost
# ------------------------------------------
# The first release is the private second-moment matrix used for
# preconditioning; then every step releases a noisy gradient norm and a noisy
# gradient whose noise is proportional to that norm. The costs sum to at most
# rho.
reg = KLAdaptiveRegressor(epsilon=1.0, random_state=noise).fit(X_train, y_train)
costs = [entry["rho"] * entry["count"] for entry in reg.privacy_ledger_.log()]
labels = [entry["label"] for entry in reg.privacy_ledger_.log()]
ax2.bar(range(len(costs)), np.cumsum(costs) / reg.rho_)
ax2.set_xticks(range(len(costs)), labels, rotation=60, ha="right", fontsize=7)
ax2.set_ylabel("cumulative share of rho")
ax2.set_title(f"solver_={reg.solver_!r}, n_iter_={reg.n_iter_}")
fig.tight_layout()

print(f"non-private R^2 {exact:.3f}; private (eps=1) {reg.score(X_test, y_test):.3f}; "
      f"spent {reg.privacy_spent_}")

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
