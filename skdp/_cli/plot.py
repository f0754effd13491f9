"""``--plot``: each column's 1-way marginal, reference table against synthetic rows."""

import math

import numpy as np

from .._domain import value_key

__all__ = ["Marginals", "plot_marginals"]


class _Bins:
    """Bins of one column on its fitted ``domain_`` entry, the last one for missing values
    (``write``: how a numeric bin's left edge is labelled; default 3 significant digits)."""

    def __init__(self, entry, n_bins, write=None):
        if isinstance(entry, int) and not isinstance(entry, bool):
            entry = list(range(entry))
        if isinstance(entry, tuple):  # (low, high) bounds
            entry = {"low": entry[0], "high": entry[1]}
        if isinstance(entry, dict) and "categories" in entry:
            entry = entry["categories"]
        if isinstance(entry, list):
            self.cats = {value_key(_plain(c)): i for i, c in enumerate(entry)}
            self.labels = [str(c) for c in entry]
        else:
            k = entry.get("n_bins", n_bins)
            self.cats, self.low, self.high = None, float(entry["low"]), float(entry["high"])
            width = (self.high - self.low) / k
            write = write or "{:.3g}".format
            self.labels = [write(self.low + i * width) for i in range(k)]
        self.labels.append("NA")

    def index(self, v):
        v = _plain(v)
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return len(self.labels) - 1
        if self.cats is not None:
            return self.cats.get(value_key(v))
        k = len(self.labels) - 1
        if self.high <= self.low:
            return 0
        return min(max(int(math.floor((float(v) - self.low) / (self.high - self.low) * k)), 0),
                   k - 1)


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    if type(v).__name__ in ("NAType", "NaTType"):
        return None
    return v


class Marginals:
    """Running 1-way counts of every column (bins from the fitted ``domain_``; ``labels``:
    column name -> how its bins' left edges are written, e.g. days as ISO dates)."""

    def __init__(self, domain, header, n_bins, labels=None):
        self.bins = [_Bins(domain[name], n_bins, (labels or {}).get(name)) for name in header]
        self.counts = [np.zeros(len(b.labels)) for b in self.bins]

    def add(self, table):
        rows = table.itertuples(index=False, name=None) if hasattr(table, "itertuples") \
            else np.asarray(table, dtype=object)
        for row in rows:
            for b, c, v in zip(self.bins, self.counts, row):
                i = b.index(v)
                if i is not None:
                    c[i] += 1
        return table

    def shares(self):
        return [c / max(c.sum(), 1) for c in self.counts]


def plot_marginals(path, header, reference, synthetic, label, fmt=None):
    """Bar charts of the two :class:`Marginals`, one panel per column, saved as ``path``
    in the format ``fmt`` (default: from the extension; checked by the job beforehand)."""
    try:
        from matplotlib.figure import Figure  # no pyplot: no display, no global backend
    except ImportError:  # pragma: no cover - the job checks it before the release
        raise ValueError("--plot needs matplotlib, which is not installed: pip install "
                         "'skdp[examples]'.") from None
    fig = Figure(figsize=(3.2 * len(header), 3))
    axes = fig.subplots(1, len(header), squeeze=False)
    panels = zip(axes[0], header, reference.bins, reference.shares(), synthetic.shares())
    for ax, name, bins, ref, syn in panels:
        keep = len(ref) if ref[-1] or syn[-1] else len(ref) - 1  # the NA bar only if used
        pos = np.arange(keep)
        ax.bar(pos - 0.2, ref[:keep], width=0.4, label=label)
        ax.bar(pos + 0.2, syn[:keep], width=0.4, label="synthetic")
        ax.set_title(str(name), fontsize=9)
        ax.set_xticks(pos, bins.labels[:keep], rotation=60, fontsize=7)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100, format=fmt)
