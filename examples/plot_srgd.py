"""
=========================================================================
One pass, correlated noise: DP-SRG-MEMF, DP-MEMF and DP-SGD (paper 003)
=========================================================================

The streaming solvers of :class:`~skdp.minimax.PrivateMinimaxClassifier`
(``group_by=None``: private multinomial regression) read each record once, in
mini-batches. ``"dpsgd"`` adds independent noise to each clipped batch
gradient; ``"memf"`` adds *correlated* matrix-factorisation noise that cancels
in the running sums the optimiser accumulates; ``"srg_memf"`` privatises
gradient *differences* instead (paper 003, Alg. 3). All three spend the same
(epsilon, delta) on the same single pass. See :ref:`streaming`.
"""

# %%
# A 10-class problem, rows on the unit sphere (a public, per-row scaling).
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import normalize

from skdp import PrivateMinimaxClassifier

X, y = make_classification(n_samples=20000, n_features=20, n_informative=12, n_classes=10,
                           n_clusters_per_class=1, class_sep=1.5, random_state=0)
X = normalize(X)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
# One generator seeds every fit's noise: the figure is reproducible and each
# fit still draws fresh noise (the generator advances). For a figure only: a
# release keeps random_state=None, as a fixed or reused seed makes its noise known.
noise = np.random.RandomState(0)

# %%
# Test accuracy against epsilon (delta = 1e-6), mean of 3 fits.
epsilons = [0.1, 0.3, 1.0, 3.0, 8.0]


def accuracy(solver, epsilon):
    models = (PrivateMinimaxClassifier(epsilon=epsilon, solver=solver, group_by=None,
                                       random_state=noise) for _ in range(3))
    # the 10 classes are public: passed to fit, not read from the private labels
    return np.mean([m.fit(X_train, y_train, classes=range(10)).score(X_test, y_test)
                    for m in models])


non_private = accuracy("srg_memf", np.inf)
fig, ax = plt.subplots(figsize=(6, 4))
for solver, marker in [("srg_memf", "o"), ("memf", "s"), ("dpsgd", "^")]:
    ax.plot(epsilons, [accuracy(solver, eps) for eps in epsilons], marker=marker, label=solver)
ax.axhline(non_private, color="grey", linestyle="--", label="one pass, no privacy")
ax.set_xscale("log")
ax.set_xlabel("epsilon (delta = 1e-6)")
ax.set_ylabel("test accuracy")
ax.set_title("Single-epoch private softmax regression")
ax.legend()
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
