"""
==============================================================
Worst-class accuracy under differential privacy (minimax DP)
==============================================================

:class:`~skdp.minimax.PrivateMinimaxClassifier` minimises the risk of the worst
group -- here the worst *class* -- under differential privacy. On an imbalanced
task (handwritten 8s against all other digits, a 1:9 imbalance) a private
classifier that minimises the *average* risk (``group_by=None``, DP ERM) learns
to answer "not an 8" and gets the minority class wrong; the worst-class model
trades a little overall accuracy for a much better worst class.

The group sizes (class counts) are not given, so each worst-class fit spends
15% of its budget estimating them privately; the dashed line gives them as
public knowledge (published class priors, say). See :ref:`minimax`.
"""

# %%
# Data on a public scale: pixels divided by their known maximum, 16. The classes
# ("an 8" or not) are public too: they are passed to ``fit`` rather than read from y.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from skdp.minimax import PrivateMinimaxClassifier

X, digit = load_digits(return_X_y=True)
y = (digit == 8).astype(int)
X_train, X_test, y_train, y_test = train_test_split(X / 16.0, y, test_size=0.3, stratify=y,
                                                    random_state=0)
# One generator seeds every fit's noise: the figure is reproducible and each
# fit still draws fresh noise (the generator advances). For a figure only: a
# release keeps random_state=None, as a fixed or reused seed makes its noise known.
noise = np.random.RandomState(0)


def accuracies(model):
    pred = model.predict(X_test)
    worst = min(np.mean(pred[y_test == c] == c) for c in (0, 1))
    return np.mean(pred == y_test), worst


# %%
# Fit the average-risk and the worst-class models at several budgets.
epsilons = [0.5, 1.0, 2.0, 5.0, 10.0]
settings = {
    "DP ERM (group_by=None)": dict(group_by=None),
    "worst-class, private class sizes": dict(),
    "worst-class, public class sizes": dict(group_sizes=np.bincount(y_train)),
}
results = {name: [] for name in settings}
for name, params in settings.items():
    for eps in epsilons:
        runs = [accuracies(PrivateMinimaxClassifier(epsilon=eps, random_state=noise, **params)
                           .fit(X_train, y_train, classes=[0, 1])) for _ in range(3)]
        results[name].append(np.mean(runs, axis=0))

# %%
# Worst-class and overall test accuracy against epsilon.
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
styles = ["o-", "s-", "s--"]
for (name, values), style in zip(results.items(), styles):
    values = np.asarray(values)
    axes[0].plot(epsilons, values[:, 1], style, label=name)
    axes[1].plot(epsilons, values[:, 0], style, label=name)
for ax, title in zip(axes, ["worst-class accuracy", "overall accuracy"]):
    ax.set_xscale("log")
    ax.set_xlabel("epsilon (delta = 1e-6)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
axes[0].set_ylabel("test accuracy (mean of 3 seeds)")
axes[0].legend(loc="lower right", fontsize=8)
fig.tight_layout()

# %%
# The private max-player: how much weight each class gets, and what was spent.
clf = PrivateMinimaxClassifier(epsilon=1.0, random_state=noise).fit(X_train, y_train,
                                                                    classes=[0, 1])
print("solver:", clf.solver_, " group weights (not 8, 8):", clf.group_weights_.round(2))
print("privacy spent:", clf.privacy_spent_, "by", clf.privacy_method_)
for entry in clf.privacy_ledger_.log()[:4]:
    print(f"  {entry['label']:>22}: mu-GDP = {entry['mu']:.4f}")

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
