"""
======================================
Privacy accounting: one fit, many fits
======================================

How much (epsilon, delta) does a training run spend? An skdp estimator releases
many noisy quantities -- one noisy gradient per step, one private selection per
round -- and the answer depends on how those releases are *composed*. This
example uses :mod:`skdp.privacy.ledger` to compare the composition rules on
the two kinds of mechanism skdp uses, then shows the
:class:`~skdp.BudgetAccountant` counting every fit that a
:class:`~sklearn.model_selection.GridSearchCV` makes.

See :ref:`privacy_model` for the definitions and the theorems.
"""

# %%
# Gaussian mechanisms: zCDP, exact GDP, advanced composition
# ----------------------------------------------------------
# A noisy gradient method releases, at every step, a sum of clipped gradients
# (l2-sensitivity ``Delta = 1``) plus Gaussian noise of standard deviation
# ``sigma``. After ``T`` steps the total is, equivalently:
#
# * ``T Delta**2 / (2 sigma**2)``-zCDP (Bun and Steinke 2016), converted to
#   (epsilon, delta) either by the classic ``rho + 2 sqrt(rho log(1/delta))`` or
#   by the tight conversion of Canonne, Kamath and Steinke 2020;
# * ``sqrt(T) Delta / sigma``-Gaussian DP, whose (epsilon, delta) curve is exact
#   (Dong, Roth and Su 2022);
# * the per-step (epsilon_0, delta_0) guarantee composed by advanced composition
#   (Dwork, Rothblum and Vadhan 2010), spending half of delta on the steps.
import math

import matplotlib.pyplot as plt
import numpy as np

from skdp.privacy.ledger import (
    PrivacyLedger,
    advanced_composition_epsilon,
    bounded_range_rho,
    fully_adaptive_epsilon,
    gaussian_rho,
    gdp_to_approx_dp,
    zcdp_to_approx_dp,
)

delta = 1e-5
sigma = 50.0
steps = np.unique(np.geomspace(1, 10_000, 25).astype(int))

classic, cks, gdp, advanced = [], [], [], []
for t in steps:
    rho = t * gaussian_rho(1.0, sigma)
    classic.append(rho + 2 * math.sqrt(rho * math.log(1 / delta)))
    cks.append(zcdp_to_approx_dp(rho, delta))
    gdp.append(gdp_to_approx_dp(math.sqrt(t) / sigma, delta))
    eps_step = gdp_to_approx_dp(1 / sigma, delta / (2 * t))  # each step at delta/(2T)
    advanced.append(advanced_composition_epsilon([eps_step] * t, delta / 2))

fig, ax_gauss = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
ax_gauss.plot(steps, advanced, ":", label="advanced composition (DRV)")
ax_gauss.plot(steps, classic, "--", label="zCDP, classic conversion")
ax_gauss.plot(steps, cks, "-", label="zCDP, CKS 2020 conversion")
ax_gauss.plot(steps, gdp, "-", lw=3, alpha=0.5, label="Gaussian DP (exact)")
ax_gauss.set(xscale="log", yscale="log", xlabel="Gaussian steps T",
             ylabel=f"epsilon at delta = {delta:g}",
             title=f"Gaussian mechanism, sigma = {sigma:g} x sensitivity")
ax_gauss.legend()

# %%
# The zCDP curve with the CKS conversion sits on the exact GDP curve: for pure
# Gaussian compositions both are essentially tight, and skdp reports the smaller.
# Advanced composition, which forgets that each step is Gaussian, overstates the
# spend many times over.
i = len(steps) - 1
print(f"T = {steps[i]}: CKS {cks[i]:.3f}, GDP {gdp[i]:.3f}, classic {classic[i]:.3f}, "
      f"advanced {advanced[i]:.3f}")

# %%
# Exponential mechanisms: bounded range versus advanced composition
# -----------------------------------------------------------------
# Private selection (the exponential mechanism, report-noisy-max with Gumbel
# noise) is pure epsilon_0-DP. Three valid rules compose ``T`` of them:
#
# * basic composition, ``T epsilon_0``;
# * advanced composition (DRV, Dwork--Roth Thm 3.20) and its fully adaptive
#   version (Whitehouse et al. 2023, paper 002 Thm 3.5), which grow like
#   ``sqrt(T)``;
# * bounded range: each selection is ``epsilon_0**2 / 8``-zCDP (Cesar and
#   Rogers 2021), a quarter of the ``epsilon_0**2 / 2`` of a generic pure
#   mechanism, then the CKS conversion.
#
# A :class:`~skdp.privacy.ledger.PrivacyLedger` tries every valid rule and
# reports the smallest, with its name.
eps_step = 0.05
pure_steps = np.unique(np.geomspace(1, 5_000, 25).astype(int))
rules = {"basic": [], "advanced (DRV)": [], "fully adaptive (002 Thm 3.5)": [],
         "bounded range zCDP": []}
ledger_eps, ledger_rule = [], []
for t in pure_steps:
    rules["basic"].append(t * eps_step)
    rules["advanced (DRV)"].append(advanced_composition_epsilon([eps_step] * t, delta))
    rules["fully adaptive (002 Thm 3.5)"].append(fully_adaptive_epsilon([eps_step] * t, delta))
    rules["bounded range zCDP"].append(zcdp_to_approx_dp(t * bounded_range_rho(eps_step), delta))
    ledger = PrivacyLedger()
    ledger.exponential(eps_step, count=t, label="select")
    eps, rule = ledger.spent(delta)
    ledger_eps.append(eps)
    ledger_rule.append(rule)

fig, ax_pure = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
for (name, values), style in zip(rules.items(), [":", "--", "-.", "-"]):
    ax_pure.plot(pure_steps, values, style, label=name)
ax_pure.plot(pure_steps, ledger_eps, "o", mfc="none", color="k", label="PrivacyLedger.spent")
ax_pure.set(xscale="log", yscale="log", xlabel="selections T",
            ylabel=f"epsilon at delta = {delta:g}",
            title=f"Exponential mechanism, epsilon_0 = {eps_step:g} each")
ax_pure.legend()
print("rule chosen by the ledger:", dict(zip(pure_steps[[0, -1]].tolist(),
                                             [ledger_rule[0], ledger_rule[-1]])))

# %%
# For one or two selections basic composition is the smallest; from a few on,
# the bounded-range zCDP bound wins: at 5,000 selections it is 2.5 times smaller
# than fully adaptive composition and 3 times smaller than advanced composition.
# The ledger switches rule on its own.
#
# Many fits: the budget accountant and ``GridSearchCV``
# -----------------------------------------------------
# Tuning a private model spends budget on *every* fit: a 3-point grid with
# 5-fold cross-validation is 15 fits plus the final refit. skdp estimators take
# an ``accountant`` parameter (``None``: the process-wide default) and report
# each fit's spend to it. Copying a :class:`~skdp.BudgetAccountant` returns the
# same accountant, so the clones that ``GridSearchCV`` fits all report to it.
#
# The small estimator below shows the protocol every skdp estimator follows:
# check the budget *before* touching the data, record each release in a
# ledger, report the ledger after the fit. It predicts the private mean of
# ``y`` clipped to the public range ``[0, target_bound]``; under replace-one
# neighbours that mean has sensitivity ``target_bound / n``.
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.datasets import load_diabetes
from sklearn.model_selection import GridSearchCV
from sklearn.utils import check_random_state, check_X_y

from skdp import BudgetAccountant, BudgetExceededError
from skdp.privacy.ledger import approx_dp_to_zcdp, gaussian_sigma


class NoisyMeanRegressor(RegressorMixin, BaseEstimator):
    """Predicts the (epsilon, delta)-DP mean of y clipped to [0, target_bound]."""

    def __init__(self, target_bound=300.0, epsilon=0.5, delta=1e-6, accountant=None,
                 random_state=None):
        self.target_bound = target_bound
        self.epsilon = epsilon
        self.delta = delta
        self.accountant = accountant
        self.random_state = random_state

    def fit(self, X, y):
        accountant = BudgetAccountant.resolve(self.accountant)
        accountant.check(self.epsilon, self.delta)  # before touching the data
        X, y = check_X_y(X, y)
        sensitivity = self.target_bound / len(y)
        sigma = gaussian_sigma(sensitivity, approx_dp_to_zcdp(self.epsilon, self.delta))
        rng = check_random_state(self.random_state)
        clipped_mean = np.clip(y, 0.0, self.target_bound).mean()
        self.mean_ = clipped_mean + rng.normal(scale=sigma)
        ledger = PrivacyLedger()
        ledger.gaussian(sensitivity, sigma, label="mean")
        accountant.spend(self.epsilon, self.delta, ledger=ledger, label="NoisyMeanRegressor")
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


X, y = load_diabetes(return_X_y=True)
accountant = BudgetAccountant()  # unlimited: only records
search = GridSearchCV(  # random_state=None: a seed would give every fold the same noise
    NoisyMeanRegressor(accountant=accountant, random_state=None),
    {"target_bound": [200.0, 300.0, 400.0]}, cv=5,
)
search.fit(X, y)
print(f"{len(accountant.spends)} fits recorded; best {search.best_params_}")
print(accountant)

# %%
# Sixteen fits at (0.5, 1e-6) each: basic composition says (8, 1.6e-5). Every
# fit here reported its ledger (one Gaussian release), so the accountant
# composes them as one Gaussian-DP mechanism and reports much less. The plot
# follows the total as the fits come in.
basic, composed = [], []
for k in range(1, len(accountant.spends) + 1):
    done = accountant.spends[:k]
    merged = PrivacyLedger()
    for spend in done:
        merged.extend(spend["ledger"])
    total_delta = sum(spend["delta"] for spend in done)
    basic.append(sum(spend["epsilon"] for spend in done))
    composed.append(min(basic[-1], merged.epsilon(total_delta)))

fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
fits = np.arange(1, len(basic) + 1)
ax.plot(fits, basic, "o-", label="basic composition")
ax.plot(fits, composed, "s-", label="BudgetAccountant (ledgers composed)")
ax.set(xlabel="fits made by GridSearchCV (5 folds x 3 candidates + refit)",
       ylabel="total epsilon spent", title="Spend across a grid search")
ax.legend()

# %%
# With a finite budget, the first fit that would take the total over it raises
# :class:`~skdp.BudgetExceededError` *before* it reads the data: the refused
# fit spends nothing, and the search stops.
limited = BudgetAccountant(epsilon=1.5, delta=1e-4)
search = GridSearchCV(
    NoisyMeanRegressor(accountant=limited, random_state=None),
    {"target_bound": [200.0, 300.0, 400.0]}, cv=5, error_score="raise",
)
try:
    search.fit(X, y)
except BudgetExceededError as exc:
    print(f"stopped after {len(limited.spends)} fits: {exc}")

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
