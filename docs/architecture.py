"""Draw docs/_static/architecture.png: skdp's layers and the path of one private release.

Run from the repository root (needs matplotlib, the ``docs`` extra)::

    python docs/architecture.py

The picture is committed (about 100 kB) so that the docs build without running this.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

OUT = Path(__file__).resolve().parent / "_static" / "architecture.png"

LAYERS = [  # (title, modules, one line on what it does, colour)
    ("Estimators", "skdp/minimax.py  regression.py  synthesizer.py  model_selection.py  _cli/",
     "validate, check solver_options against SOLVER_SPECS, dispatch, charge the accountant",
     "#dbe9f6"),
    ("Solvers", "skdp/solvers/  minimax/ kl/ synth/ streaming/ goldstein/ shared/ losses/ spec.py",
     "mathematics on arrays; every solver: fn(problem, budget, options) -> SolverResult",
     "#e3f1df"),
    ("Privacy core", "skdp/privacy/  release  budget  ledger  clipping  tree  matrix  "
     "accountant",
     "clipping; Release draws the noise AND records it; ledger; accountant",
     "#fbe5d6"),
    ("Backend", "skdp/_backend.py",
     "array namespace, device, the fit's generator (privacy noise; public_* for public draws)",
     "#eeeeee"),
]

PATH = [  # the path of one release, drawn on the right
    "X, y (private)",
    "clip rows / per-example\ngradients (privacy.clipping)",
    "exact statistic\n(solver)",
    "budget.gaussian(value, Δ, σ) → Release:\nnoise from the fit's generator\n"
    "drawn and recorded together",
    "PrivacyLedger\n(one entry per release/batch)",
    "estimator: _record_spend\n→ BudgetAccountant",
]


def _box(ax, x, y, w, h, colour, lw=1.0):
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.01,rounding_size=0.015",
                                facecolor=colour, edgecolor="#444444", linewidth=lw))


def _arrow(ax, start, end, colour="#444444", style="-|>"):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle=style, mutation_scale=12,
                                 color=colour, linewidth=1.2))


def draw():
    fig, ax = plt.subplots(figsize=(12, 6.2))
    ax.set_xlim(0, 1.0)
    ax.set_ylim(0, 1.0)
    ax.axis("off")
    h, gap, top = 0.17, 0.065, 0.93
    for i, (title, modules, what, colour) in enumerate(LAYERS):
        y = top - (i + 1) * h - i * gap
        _box(ax, 0.02, y, 0.58, h, colour)
        ax.text(0.035, y + h - 0.035, title, fontsize=12, weight="bold", va="top")
        ax.text(0.035, y + h - 0.08, modules, fontsize=7.6, family="monospace", va="top")
        ax.text(0.035, y + 0.03, what, fontsize=7.8, va="bottom", style="italic", wrap=True)
        if i:
            _arrow(ax, (0.31, y + h + gap - 0.003), (0.31, y + h + 0.004))
    ax.text(0.33, top - h - gap / 2, "imports point down only", fontsize=7.5, va="center")
    ax.text(0.31, 0.975, "Layers (a module imports only from the layers below it)",
            ha="center", fontsize=11)
    ax.text(0.815, 0.975, "One private release, from the data to the ledger",
            ha="center", fontsize=11)
    n = len(PATH)
    bh, step = 0.115, (0.93 - 0.02) / n
    for i, text in enumerate(PATH):
        y = 0.93 - (i + 1) * step + (step - bh) / 2
        colour = "#fbe5d6" if i in (1, 3, 4) else ("#e3f1df" if i == 2 else "#dbe9f6")
        _box(ax, 0.68, y, 0.27, bh, colour, lw=1.4 if i == 3 else 1.0)
        ax.text(0.815, y + bh / 2, text, ha="center", va="center", fontsize=8.5)
        if i:
            _arrow(ax, (0.815, y + bh + (step - bh) - 0.004), (0.815, y + bh + 0.004))
    fig.savefig(OUT, dpi=110, bbox_inches="tight")
    return OUT


if __name__ == "__main__":
    print(draw())
