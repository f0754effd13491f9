"""Numeric columns at the resolution of the data: a fine public grid per numeric column
(issue 30, item 1).

The synthesizer's model sees a numeric column through its ``n_bins`` coarse
bins. A :class:`FineGrid` is a finer public partition of the same bounds,
whose counts are released once (one Gaussian mechanism for all the columns:
:func:`skdp._domain.private.fine_grids`); decoding then places each value
within its coarse bin by drawing a fine cell from the noisy fine counts
(projected onto the non-negative vectors of their total) restricted to that
bin. Post-processing: the joint structure stays where the model measured it
(the coarse bins), the 1-way shape within a bin comes from the fine release.

The grid is public, from the column's bounds, its integer flag and the
``resolution`` parameter only:

- an integer column whose public range holds at most ``resolution``
  integers: one cell per integer (a value decoded from it is that integer);
- any other numeric column: a point cell at each bound (the values equal to
  the bound or clipped to it; decoded as the bound itself, so point masses at
  the bounds survive) and ``resolution`` equal cells between them (decoded
  uniformly within the part of the cell inside the coarse bin; integer
  columns draw an integer there).

A grid of equal cells may also carry **spikes**: exact values held by many
records, released with their noisy counts in the same Gaussian mechanism as the cells
(:func:`skdp._domain.private.fine_release`): by a stability-based (thresholded)
Gaussian histogram of the data's values, or, for an integer column, from the noisy counts
of every integer inside its bounds (public candidates, :meth:`FineGrid.public_keys`,
kept above :func:`public_threshold`). Decoding draws, within a fine cell,
a released spike with probability proportional to its noisy count (the cell's
mass taken as the larger of its projected count and the sum of its spikes'),
else a value uniformly within the cell: post-processing.

With ``shrink`` (the estimator's ``resolution_shrink``), the projected noisy counts within a
coarse bin are shrunk toward a smooth shape of the bin's total (positive-part James-Stein): a
per-integer grid's toward flat (:func:`shrink_to_flat`), the pieces of equal cells toward a
linear density (:func:`shrink_to_line`; not in a grid with released spikes, nor the bounds'
point cells or refined sub-cells: :meth:`FineGrid._smooth_cells`): with
few rows per cell the counts are mostly noise and a bin's jagged shape would be copied into
the synthetic rows. Post-processing; the released counts stay as released.

The number of equal cells is ``resolution`` when it is an integer; with
``resolution='auto'`` it follows the data's size (:func:`auto_cells`), from
public quantities only.

A grid of equal cells may be **refined** (``resolution_refine``): the cells whose released
count is heavy (:func:`refine_splits`, from the released counts and the second release's
noise only) are split into equal sub-cells whose counts a second Gaussian release measures
(:func:`skdp._domain.private.refine_release`); :meth:`FineGrid.refine` then combines the two
levels by least squares (Hay et al. 2010) and the grid's cells are the unrefined cells and
the sub-cells: post-processing.
"""

from dataclasses import dataclass, field
import math

import numpy as np
from scipy import special

__all__ = ["AUTO_MAX_CELLS", "AUTO_MIN_CELLS", "AUTO_NOISE_RATIO", "INTEGER_CELLS",
           "MAX_SPLIT", "PUBLIC_KEYS_MAX", "SHRINK_MIN_CELLS", "SPIKE_FALSE", "FineGrid",
           "auto_cells", "even_edges", "fine_grid", "has_fine_grid", "has_spikes", "midpoints",
           "project_nonnegative", "public_threshold", "refine_splits", "shrink_to_flat",
           "shrink_to_line"]

INTEGER_CELLS = 256
"""With ``resolution='auto'``: an integer column whose bounds hold at most this many
integers gets one cell per integer (the grid of ``resolution=256``)."""
AUTO_NOISE_RATIO = 4.0
"""With ``resolution='auto'``: the equal cells are as many as keep ``n / cells``, the
count of a cell were the rows spread evenly, at least this many times the noise's
standard deviation (:func:`auto_cells`; chosen by measurement, ``benchmarks/RESULTS.md``)."""
AUTO_MIN_CELLS, AUTO_MAX_CELLS = 16, 256
"""With ``resolution='auto'``: the range of the number of equal cells."""


def auto_cells(n, sigma):
    """Equal cells per numeric column with ``resolution='auto'``: ``n / (AUTO_NOISE_RATIO
    sigma)`` rounded down to a power of two, within ``[AUTO_MIN_CELLS, AUTO_MAX_CELLS]``.

    ``n`` is the public row count (replace-one; ``None`` under add/remove, where it is
    private: then :data:`AUTO_MIN_CELLS` times 4) and ``sigma`` the noise of the fine
    release (from epsilon, delta, ``resolution_share`` and the number of columns): public,
    so the grid is too. Cells whose even share of the rows is a small multiple of the noise
    are mostly noise once projected to non-negative counts (``benchmarks/RESULTS.md``, issue
    30 item 6: 12,000 rows, 256 cells, sigma 61; the ratio 4 chosen against 1 and 2 in its
    second part).

    Examples
    --------
    >>> auto_cells(12000, 86.4), auto_cells(26000, 40.7), auto_cells(100, 50.0)
    (32, 128, 16)
    >>> auto_cells(10**6, 0.0), auto_cells(None, 10.0)
    (256, 64)
    """
    if n is None:
        return AUTO_MIN_CELLS * 4
    if not sigma > 0:
        return AUTO_MAX_CELLS
    raw = n / (AUTO_NOISE_RATIO * sigma)
    if not raw >= AUTO_MIN_CELLS:
        return AUTO_MIN_CELLS
    return int(min(AUTO_MAX_CELLS, 2 ** math.floor(math.log2(raw))))


MAX_SPLIT = 32
"""The most sub-cells a refined cell is split into (:func:`refine_splits`). Measured against 16
and 64 (``benchmarks/RESULTS.md``, issue 30: "the most sub-cells of a refined cell"): 32 sharpens
the heavy tails at quantile bins (nassCDS ``weight`` in 0-60,000, ggplot2movies ``votes`` in
0-200,000) and leaves every other validation row as it was; 64 cost ggplot2movies at equal
bins."""


def refine_splits(counts, sigma):
    """Sub-cells of each equal cell of a grid for its second level: ``counts / (AUTO_NOISE_RATIO
    sigma)`` rounded down to a power of two, at most :data:`MAX_SPLIT`; 1 (not refined) below 2.

    ``counts`` are the grid's released (noisy) counts, its bound cells first and last,
    ``sigma`` the noise of the second release: public, so the plan is (which cells a
    second release measures depends on released values only: adaptive composition). The
    rule of :func:`auto_cells` applied to one cell: a sub-cell holds, were the cell's rows
    spread evenly, at least ``AUTO_NOISE_RATIO`` times the second release's noise.

    Examples
    --------
    >>> refine_splits(np.array([5.0, 4000.0, 300.0, 900.0, 1e6, 0.0]), 50.0).tolist()
    [16, 1, 4, 32]
    """
    inner = np.asarray(counts, dtype=np.float64)[1:-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = inner / (AUTO_NOISE_RATIO * sigma) if sigma > 0 else np.full(len(inner), np.inf)
    out = np.ones(len(inner), dtype=np.int64)
    big = raw >= 2
    out[big] = np.minimum(MAX_SPLIT, 2 ** np.floor(np.log2(np.minimum(raw[big], 2 * MAX_SPLIT))))
    return out


def even_edges(low, high, n):
    """``n + 1`` evenly spaced edges from ``low`` to ``high`` (``np.linspace``), safe where
    ``np.linspace`` overflows on a span near the largest float (then ``low + span * k / n``,
    the span finite)."""
    with np.errstate(over="ignore", invalid="ignore"):
        edges = np.linspace(low, high, n + 1)
    if np.all(np.isfinite(edges)):
        return edges
    return np.clip(low + (high - low) * (np.arange(n + 1) / n), low, high)


def midpoints(left, right):
    """``(left + right) / 2``, without overflow near the largest float."""
    with np.errstate(over="ignore", invalid="ignore"):
        mid = (left + right) / 2
    bad = ~np.isfinite(mid)
    if np.any(bad):
        mid = np.where(bad, np.asarray(left) / 2 + np.asarray(right) / 2, mid)
    return mid


def has_fine_grid(col, resolution):
    """Whether ``col`` gets a fine grid: a numeric column with finite public bounds
    ``low < high`` (public: its entry, its dtype, or a released range; a span the grid's
    arithmetic can halve, not a subnormal one), ``resolution`` not None."""
    return (resolution is not None and not col.categorical and col.high / 2 > col.low / 2
            and math.isfinite(col.high - col.low)
            and (not col.integer or math.floor(col.high) > math.ceil(col.low)))


def fine_grid(col, resolution, cells=None):
    """The public fine grid of ``col`` (see the module docstring): ``resolution`` an int, or
    ``'auto'`` with ``cells`` equal cells (:func:`auto_cells`; per-integer grids up to
    :data:`INTEGER_CELLS` integers)."""
    low, high = float(col.low), float(col.high)
    if resolution == "auto":
        resolution = INTEGER_CELLS if cells is None else cells
        per_integer = INTEGER_CELLS
    else:
        per_integer = resolution
    if col.integer:
        first, last = math.ceil(low), math.floor(high)
        if last - first + 1 <= per_integer:
            return FineGrid(low, high, integer=True,
                            points=np.arange(first, last + 1, dtype=np.float64))
    return FineGrid(low, high, integer=col.integer, points=np.array([low, high]),
                    edges=even_edges(low, high, int(resolution)))


def has_spikes(col):
    """Whether ``col``'s fine grid has equal cells, whose exact values may be released as
    spikes (a per-integer grid already decodes to exact values): public, the grid's."""
    return col.fine is not None and col.fine.edges is not None


PUBLIC_KEYS_MAX = 1 << 16
"""An integer column with equal cells and at most this many integers strictly inside its
bounds has its spike candidates public (:meth:`FineGrid.public_keys`): every one of them is
released, so no stability threshold (and no delta) is needed."""

SPIKE_FALSE = 1.0
"""Expected number of spikes released from noise alone per column of public candidates
(:func:`public_threshold`). Measured against 0.1 and 3 (``benchmarks/RESULTS.md``, issue 30:
"spikes of integer columns from public candidates")."""


def public_threshold(sigma, n_keys):
    """The noisy count above which a public candidate is kept as a spike: ``sigma *
    Phi^-1(1 - SPIKE_FALSE / n_keys)``, so that ``SPIKE_FALSE`` of ``n_keys`` empty
    candidates pass on average (a false-discovery bound, not a privacy one: every
    candidate's noisy count is released; keeping some is post-processing).

    Examples
    --------
    >>> round(public_threshold(60.0, 359), 1)
    166.3
    """
    return sigma * float(special.ndtri(1.0 - min(SPIKE_FALSE / n_keys, 0.5)))


@dataclass
class FineGrid:
    """A fine public partition of ``[low, high]``: ``points`` (point cells) and, when
    ``edges`` is set, the equal cells between them; the released counts (``counts``,
    noisy) once measured, and the released spikes (``spikes``: exact values strictly
    inside the bounds whose noisy count ``spike_counts`` cleared the release's threshold
    ``spike_threshold``, public: from the noise's sigma and the threshold's delta, or the
    number of public candidates (:func:`public_threshold`; ``spike_candidates``:
    ``'public'``, every integer of the bounds measured, or ``'data'``, the data's values
    thresholded); empty when none did,
    ``None`` when not released), and the noise sd of the counts (``sigma``: public, from
    the release's budget share and sensitivity; 0 when not private; one per cell once
    refined), and, once the model is released, its counts of the coarse bins
    (``bin_totals``, :meth:`set_bin_totals`) and whether a per-integer grid's counts are
    shrunk toward flat within a bin at decoding (``shrink``, :meth:`_shrink`).
    ``refinement``: the second level's released values once refined (:meth:`refine`;
    ``edges`` are then the unrefined cells' and the sub-cells' edges, no longer equal).

    Cells are ordered: per-integer grids, one cell per value of ``points``;
    otherwise the point cell at ``low``, the ``len(edges) - 1`` equal cells, the
    point cell at ``high``.

    Examples
    --------
    >>> g = FineGrid(0.0, 10.0, integer=False, points=np.array([0.0, 10.0]),
    ...              edges=np.linspace(0, 10, 5))
    >>> g.cell(np.array([0.0, 0.1, 2.5, 9.99, 10.0, 12.0])).tolist()
    [0, 1, 2, 4, 5, 5]
    """

    low: float
    high: float
    integer: bool
    points: np.ndarray
    edges: np.ndarray | None = None
    counts: np.ndarray | None = None
    spikes: np.ndarray | None = None
    spike_counts: np.ndarray | None = None
    spike_threshold: float | None = None
    spike_candidates: str | None = None
    sigma: float | None = None
    bin_totals: np.ndarray | None = None
    refinement: dict | None = None
    shrink: bool = False
    _pieces: tuple | None = field(default=None, repr=False)

    @property
    def n_cells(self):
        return len(self.points) + (0 if self.edges is None else len(self.edges) - 1)

    @property
    def measured(self):
        """Whether the counts come from a private release (a noise sd above 0)."""
        return self.counts is not None and self.sigma is not None \
            and bool(np.any(np.asarray(self.sigma) > 0))

    def describe(self):
        """The grid, its released counts and their noise sd (``"sigma"``: one float, or
        one per cell once refined; public, from the release's budget share), JSON-serialisable."""
        out = {"low": self.low, "high": self.high, "integer": self.integer}
        if self.edges is None:
            out["values"] = self.points.tolist()
        else:
            out["cells"] = len(self.edges) - 1
            if self.refinement is not None:
                out["edges"] = self.edges.tolist()
                out["refinement"] = self.refinement
        out["counts"] = None if self.counts is None else self.counts.tolist()
        if self.counts is not None and self.sigma is not None:
            sd = np.asarray(self.sigma, dtype=np.float64)
            out["sigma"] = float(sd) if sd.ndim == 0 else sd.tolist()
        if self.spikes is not None:
            out["spikes"] = {"values": self.spikes.tolist(),
                             "counts": self.spike_counts.tolist()}
        if self.spike_threshold is not None:
            out["spike_threshold"] = float(self.spike_threshold)
            out["spike_candidates"] = self.spike_candidates
        return out

    def spike_keys(self, prepared):
        """The distinct non-missing values strictly inside the bounds and their counts (the
        keys of the spike release: private, never published as such)."""
        p = prepared[~np.isnan(prepared)]
        p = p[(p > self.low) & (p < self.high)]
        keys, counts = np.unique(p, return_counts=True)
        return keys, counts.astype(np.float64)

    def public_keys(self):
        """The integers strictly inside the bounds, when the grid is an integer column's of
        equal cells with at most :data:`PUBLIC_KEYS_MAX` of them (public: the bounds); else
        None (the spike candidates are the data's values).

        Examples
        --------
        >>> g = FineGrid(0.0, 360.0, integer=True, points=np.array([0.0, 360.0]),
        ...              edges=np.linspace(0, 360, 33))
        >>> keys = g.public_keys()
        >>> len(keys), float(keys[0]), float(keys[-1])
        (359, 1.0, 359.0)
        """
        if not self.integer or self.edges is None:
            return None
        first, last = math.floor(self.low) + 1, math.ceil(self.high) - 1
        if not 0 < last - first + 1 <= PUBLIC_KEYS_MAX:
            return None
        return np.arange(first, last + 1, dtype=np.float64)

    def cell(self, v):
        """The cell of every (non-missing) value, clipped to the bounds."""
        v = np.clip(np.asarray(v, dtype=np.float64), self.low, self.high)
        if self.edges is None:  # one cell per integer
            first = self.points[0]
            return np.clip(np.round(v) - first, 0, len(self.points) - 1).astype(np.int64)
        n = len(self.edges) - 1
        if self.refinement is not None:  # cells of unequal widths
            pos = np.searchsorted(self.edges, v, side="right") - 1
        else:
            pos = np.floor((v / 2 - self.low / 2) / (self.high / 2 - self.low / 2) * n)
        inner = 1 + np.clip(pos, 0, n - 1).astype(np.int64)
        return np.where(v <= self.low, 0, np.where(v >= self.high, n + 1, inner))

    def counts_of(self, prepared):
        """Counts of the non-missing values (float64 NaN = missing) on the cells."""
        p = prepared[~np.isnan(prepared)]
        return np.bincount(self.cell(p), minlength=self.n_cells).astype(np.float64)

    # ------------------------------------------------------------------ second level
    def sub_counts_of(self, prepared, splits):
        """Counts of the non-missing values (float64 NaN = missing) on the sub-cells of the
        equal cells that ``splits`` (:func:`refine_splits`) refines, cell by cell: cell
        ``k`` split into ``splits[k]`` equal sub-cells. A value in a bound's point cell or
        in a cell not refined counts in none, so each value counts at most once."""
        p = prepared[~np.isnan(prepared)]
        n = len(self.edges) - 1
        inner = self.cell(p) - 1
        splits = np.asarray(splits, dtype=np.int64)
        s = np.where((inner >= 0) & (inner < n), splits[np.clip(inner, 0, n - 1)], 1)
        keep = s >= 2
        p, inner, s = np.clip(p[keep], self.low, self.high), inner[keep], s[keep]
        left, right = self.edges[inner], self.edges[inner + 1]
        sub = np.clip(np.floor((p / 2 - left / 2) / (right / 2 - left / 2) * s), 0, s - 1)
        offsets = np.concatenate([[0], np.cumsum(np.where(splits >= 2, splits, 0))])
        return np.bincount(offsets[inner] + sub.astype(np.int64),
                           minlength=offsets[-1]).astype(np.float64)

    def refine(self, splits, noisy, sigma):
        """The grid refined by its second release: ``noisy`` (the counts of
        :meth:`sub_counts_of`, noise sd ``sigma``) combined with the first release's counts.

        For a cell of first-level count ``y`` (sd ``s1``) split into ``s`` sub-cells of
        counts ``z`` (sd ``sigma`` each), the least-squares estimate consistent with both
        levels (Hay, Rastogi, Miklau, Suciu 2010, "Boosting the accuracy of differentially
        private histograms through consistency", Thm 3, for a tree of two levels with
        unequal noise): the cell's total ``y* = (y / s1**2 + sum z / (s sigma**2)) / (1 /
        s1**2 + 1 / (s sigma**2))``, then ``z*_i = z_i + (y* - sum z) / s``; each ``z*_i``
        has sd ``sigma sqrt(1 - w / s)``, ``w = s sigma**2 / (s1**2 + s sigma**2)`` (two
        sub-cells of one cell are negatively correlated, ``-w sigma**2 / s``: a sum's sd
        from the per-cell sds, as :meth:`bin_counts` takes it, is an upper bound).
        Post-processing of the two releases. The cells are then the unrefined cells and the
        sub-cells (``edges``), the counts and sds (``sigma``, one per cell) theirs;
        ``refinement`` keeps the released values (first-level counts, the refined cells,
        their splits, the second-level counts and ``sigma``). A grid already refined is
        refined again the same way (a third level), each cell's ``s1`` its own sd; the
        level's refined cells (among the grid's cells before it), splits, counts and
        ``sigma`` are appended to ``refinement["more"]``."""
        splits = np.asarray(splits, dtype=np.int64)
        noisy = np.asarray(noisy, dtype=np.float64)
        first = np.asarray(self.counts, dtype=np.float64)
        prev = np.broadcast_to(np.asarray(self.sigma, dtype=np.float64), first.shape)
        s1 = float(prev[0])
        edges, counts, sds, at = [self.edges[:1]], [first[:1]], [prev[:1]], 0
        for k, s in enumerate(splits):
            if s < 2:
                edges.append(self.edges[k + 1:k + 2])
                counts.append(first[k + 1:k + 2])
                sds.append(prev[k + 1:k + 2])
                continue
            z = noisy[at:at + s]
            at += s
            a, b = prev[k + 1] ** 2, s * sigma * sigma
            w = b / (a + b) if a + b > 0 else 0.0
            counts.append(z + (w / s) * (first[k + 1] - z.sum()))
            sds.append(np.full(s, sigma * np.sqrt(1.0 - w / s)))
            edges.append(even_edges(self.edges[k], self.edges[k + 1], int(s))[1:])
        counts.append(first[-1:])
        sds.append(prev[-1:])
        refined = np.flatnonzero(splits >= 2)
        level = {"cells": refined.tolist(), "splits": splits[refined].tolist(),
                 "counts": noisy.tolist(), "sigma": float(sigma)}
        if self.refinement is None:
            self.refinement = {"first": {"cells": len(self.edges) - 1, "counts": first.tolist(),
                                         "sigma": s1}, **level}
        else:
            self.refinement.setdefault("more", []).append(level)
        self.edges = np.concatenate(edges)
        self.counts = np.concatenate(counts)
        self.sigma = np.concatenate(sds)
        self._pieces = None

    # ------------------------------------------------------------------ decoding
    def pieces(self, col):
        """Per coarse bin of ``col``: the pieces (fine cell within the bin) and their
        weights, from the released counts (post-processing), cached."""
        if self._pieces is None:
            self._pieces = self._build(col)
        return self._pieces

    def _build(self, col):
        """The pieces of :meth:`pieces`. Without ``bin_totals`` the noisy counts are
        projected onto the non-negative vectors of their total once for the whole grid;
        with them, the noisy pieces of each coarse bin are projected onto the non-negative
        vectors of that bin's total (:meth:`set_bin_totals`), so that the shape within a bin
        is the nearest (in L2) to the noisy counts among those that agree with the mass the
        model gives the bin: a cell whose noise is negative no longer takes mass from every
        other cell of the grid. With ``shrink``, each bin's cells are then shrunk toward a
        smooth shape (:meth:`_shrink`)."""
        per_bin = self.bin_totals is not None
        raw = np.asarray(self.counts, dtype=np.float64)
        mass = raw if per_bin else project_nonnegative(raw)
        sd = np.broadcast_to(np.asarray(0.0 if self.sigma is None else self.sigma,
                                        dtype=np.float64), (self.n_cells,))
        if self.edges is None:
            lo = hi = self.points
            weight = mass
            smooth = np.ones(self.n_cells, dtype=bool)
        else:
            n = len(self.edges) - 1
            left, right, cell, width = self._cuts(col)
            spikes, spike_w = self._spike_mass()
            # a cell's mass: the larger of its projected count and its spikes' noisy counts;
            # the spikes take theirs, the rest is spread uniformly over the cell
            inner = mass[1:-1]
            if len(spikes):
                inner = inner - np.bincount(self.cell(spikes) - 1, weights=spike_w, minlength=n)
                inner = inner if per_bin else np.clip(inner, 0.0, None)
            share = (right / 2 - left / 2) / width
            lo = np.concatenate([[self.low], left, [self.high], spikes])
            hi = np.concatenate([[self.low], right, [self.high], spikes])
            weight = np.concatenate([[mass[0]], inner[cell] * share, [mass[-1]], spike_w])
            sd = np.concatenate([sd[:1], sd[cell + 1] * share, sd[-1:], np.zeros(len(spikes))])
            smooth = np.concatenate([[False], self._smooth_cells()[cell], [False],
                                     np.zeros(len(spikes), dtype=bool)])
        bins = col._encode_bins(midpoints(lo, hi))
        order = np.argsort(bins, kind="stable")
        bins, lo, hi, weight = bins[order], lo[order], hi[order], weight[order]
        sd, smooth = sd[order], smooth[order]
        starts = np.searchsorted(bins, np.arange(col.n_bins + 1))
        if per_bin:
            weight = np.concatenate([project_nonnegative(weight[s:e], total)
                                     for s, e, total in zip(starts[:-1], starts[1:],
                                                            self.bin_totals)])
        if self.shrink:
            weight = self._shrink(weight, lo, hi, sd, starts, smooth)
        return starts, lo, hi, weight

    def _shrink(self, weight, lo, hi, sd, starts, smooth):
        """``weight`` (the pieces ordered by bin, bin ``b`` at ``starts[b]: starts[b + 1]``)
        with each bin's ``smooth`` pieces (:meth:`_smooth_cells`) shrunk, with the noise sd
        ``sd`` of each piece: the integers of a per-integer grid toward equal counts
        (:func:`shrink_to_flat`), the pieces of equal cells toward a linear density
        (:func:`shrink_to_line`); the other pieces kept as they are. Post-processing."""
        out = weight.copy()
        for s, e in zip(starts[:-1], starts[1:]):
            idx = s + np.flatnonzero(smooth[s:e])
            if self.edges is None:
                out[idx] = shrink_to_flat(weight[idx], sd[idx])
            else:
                out[idx] = shrink_to_line(weight[idx], sd[idx], hi[idx] / 2 - lo[idx] / 2,
                                          midpoints(lo[idx], hi[idx]))
        return out

    def _smooth_cells(self):
        """Which equal cells :meth:`_shrink` smooths: none in a grid with released spikes (its
        values sit on repeated values, so a cell's count beyond its spikes' is more likely a
        spike under the threshold than noise around a smooth density), and not the sub-cells
        of a refinement (cells split because their released counts were heavy: a peaked
        density); the other cells of the first level. From released values only."""
        n = len(self.edges) - 1
        if self.spikes is not None and len(self.spikes):
            return np.zeros(n, dtype=bool)
        if self.refinement is None:
            return np.ones(n, dtype=bool)
        first = (self.high / 2 - self.low / 2) / self.refinement["first"]["cells"]
        return np.diff(self.edges / 2) >= first * (1 - 1e-9)

    def set_bin_totals(self, totals, shrink=False):
        """Place values within a coarse bin consistently with the bin's ``totals`` (the
        released model's counts of ``col``'s bins: post-processing): :meth:`_build`; with
        ``shrink``, each bin's fine counts shrunk toward a smooth shape (:meth:`_shrink`)."""
        self.bin_totals = np.asarray(totals, dtype=np.float64)
        self.shrink = bool(shrink)
        self._pieces = None

    def _cuts(self, col):
        """The equal cells cut at ``col``'s coarse bin edges: the pieces ``[left, right)``,
        the equal cell of each (0-based among the equal cells) and that cell's half width."""
        n = len(self.edges) - 1
        coarse = col.edges if col.edges is not None \
            else even_edges(col.low, col.high, col.n_bins)
        cuts = np.unique(np.concatenate([self.edges, np.clip(coarse, self.low, self.high)]))
        left, right = cuts[:-1], cuts[1:]
        ok = right > left
        left, right = left[ok], right[ok]
        cell = np.clip(np.searchsorted(self.edges, midpoints(left, right), side="right") - 1,
                       0, n - 1)
        width = self.edges[cell + 1] / 2 - self.edges[cell] / 2  # halved: no overflow
        return left, right, cell, width

    def bin_matrix(self, col):
        """``A`` of shape ``(col.n_bins, n_cells)``: the share of each fine cell in each of
        ``col``'s coarse bins (a point cell or an integer wholly in its bin; an equal cell
        split in proportion to the width inside each bin, as decoding spreads it), so that
        ``A @ counts`` are the fine counts summed to the coarse bins.

        Examples
        --------
        >>> from skdp._domain import Column
        >>> col = Column("x", float, kind="numeric", low=0.0, high=4.0, n_bins=2)
        >>> g = FineGrid(0.0, 4.0, integer=False, points=np.array([0.0, 4.0]),
        ...              edges=np.linspace(0, 4, 4))
        >>> g.bin_matrix(col).round(3).tolist()
        [[1.0, 1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 1.0, 1.0]]
        """
        out = np.zeros((col.n_bins, self.n_cells))
        if self.edges is None:
            out[col._encode_bins(self.points), np.arange(self.n_cells)] = 1.0
            return out
        left, right, cell, width = self._cuts(col)
        np.add.at(out, (col._encode_bins(midpoints(left, right)), cell + 1),
                  (right / 2 - left / 2) / width)
        out[col._encode_bins(np.array([self.low, self.high])), [0, self.n_cells - 1]] = 1.0
        return out

    def bin_counts(self, col):
        """The released fine counts summed to ``col``'s model cells, with the noise sd of
        each: ``(A @ counts, sigma * sqrt(sum_k A_bk**2))`` for ``A`` of :meth:`bin_matrix`
        and the release's ``sigma`` (independent Gaussian noise per fine cell); the missing
        cell, which the fine release does not count, and a bin that holds no fine cell get
        the count 0 and an infinite sd (no information). Post-processing of the fine
        release: a 1-way measurement of the model's column, which the graphical-model
        solvers combine with their own (:mod:`skdp.solvers.synth.released`). A released
        spike at an edge that :func:`~skdp._domain.fine_bins.spike_edges` added
        (``col.spike_starts``) gives its noisy count to its bin and only the rest of its
        cell is spread by width (``+ B @ spike_counts``, :meth:`spike_matrix`; the sd adds
        ``sigma_1**2 sum_k B_bk**2``, ``sigma_1`` the first level's noise sd, which the
        spikes share: the release's ``sigma``, or a refined grid's first level's, so that a
        refined cell's spikes are counted too); a spike on an edge the rule did not add stays
        spread with its cell.

        Examples
        --------
        >>> from skdp._domain import Column
        >>> col = Column("k", int, kind="numeric", low=0, high=3, n_bins=2, integer=True,
        ...              missing=True)
        >>> g = FineGrid(0.0, 3.0, integer=True, points=np.arange(4.0),
        ...              counts=np.array([1.0, 2.0, 3.0, 4.0]), sigma=2.0)
        >>> [v.round(3).tolist() for v in g.bin_counts(col)]
        [[3.0, 7.0, 0.0], [2.828, 2.828, inf]]
        """
        A = self.bin_matrix(col)
        values = A @ np.asarray(self.counts, dtype=np.float64)
        if np.ndim(self.sigma):  # refined: one sd per cell (an upper bound, :meth:`refine`)
            sd = np.sqrt(np.square(A) @ np.square(self.sigma))
        else:
            sd = float(self.sigma) * np.sqrt(np.square(A).sum(axis=1))
        starts = self._starts(col)
        if starts.any():  # a spike that starts a bin: its count (first-level noise)
            B = self.spike_matrix(col, A)[:, starts]
            values = values + B @ np.asarray(self.spike_counts, dtype=np.float64)[starts]
            first = self.refinement["first"]["sigma"] if self.refinement else self.sigma
            sd = np.sqrt(np.square(sd) + float(first) ** 2 * np.square(B).sum(axis=1))
        sd[sd == 0] = np.inf  # a bin that holds no fine cell (no integer): not measured
        extra = col.cardinality - col.n_bins  # the missing cell
        return (np.concatenate([values, np.zeros(extra)]),
                np.concatenate([sd, np.full(extra, np.inf)]))

    def spike_matrix(self, col, A):
        """``B`` with ``A @ counts + B @ spike_counts`` the bins' counts when each released
        spike's noisy count goes to its own bin and only the rest of its cell is spread by
        width (:mod:`~skdp._domain.fine_bins` starts bins at spikes). Released values only."""
        B = np.zeros((col.n_bins, len(self.spikes)))
        cells = self.cell(self.spikes)
        B[col._encode_bins(self.spikes), np.arange(len(self.spikes))] += 1.0
        B -= A[:, cells]
        return B

    def _starts(self, col):
        """Which released spikes start one of ``col``'s bins at an edge that
        :func:`~skdp._domain.fine_bins.spike_edges` added (``col.spike_starts``; public)."""
        if self.spikes is None or not len(self.spikes) or self.edges is None \
                or col.edges is None:
            return np.zeros(0 if self.spikes is None else len(self.spikes), dtype=bool)
        return np.isin(self.spikes, col.spike_starts)

    def _spike_mass(self):
        """The released spikes inside the bounds and their noisy counts clipped at 0."""
        if self.spikes is None or not len(self.spikes):
            return np.zeros(0), np.zeros(0)
        w = np.clip(np.asarray(self.spike_counts, dtype=np.float64), 0.0, None)
        keep = (self.spikes > self.low) & (self.spikes < self.high) & (w > 0)
        return np.asarray(self.spikes, dtype=np.float64)[keep], w[keep]

    def decode(self, col, codes, rng, fallback):
        """Values of the coarse bin ``codes`` (no missing cell): a fine piece drawn in
        proportion to its weight within the bin, then a value within it; ``fallback(codes,
        rng)`` (a uniform draw within the bin) where the bin holds no fine mass.

        The pieces of the ``m`` rows of a bin are drawn by systematic sampling: the ``i``-th
        row (in a random order) takes the piece at ``(i + u_i) / m`` of the bin's
        cumulative weight, so every row's piece has the same distribution as an independent
        draw while each piece gets its share of the ``m`` rows to within one row (no
        multinomial noise added to the released shape, as the model's sampler rounds its
        counts)."""
        starts, lo, hi, weight = self.pieces(col)
        out = np.empty(len(codes), dtype=np.float64)
        u = rng.uniform(size=len(codes))
        v = rng.uniform(size=len(codes))
        for b in np.unique(codes):
            rows = np.flatnonzero(codes == b)
            s, e = starts[b], starts[b + 1]
            w = weight[s:e]
            total = w.sum()
            if not total > 0:
                out[rows] = fallback(codes[rows], rng)
                continue
            cum = np.cumsum(w)
            q = (rng.permutation(len(rows)) + u[rows]) / len(rows)
            k = s + np.minimum(np.searchsorted(cum, q * total, side="right"), e - s - 1)
            out[rows] = self._within(lo[k], hi[k], v[rows])
        return out

    def _within(self, lo, hi, v):
        """A value in each piece ``[lo, hi)`` (a point when ``lo == hi``): uniform, an
        integer for integer columns, never a bound inside a piece of width (a bound's
        value is its point cell's)."""
        if not self.integer:
            inside = np.minimum(lo + v * (hi - lo), np.nextafter(hi, lo))  # never ``hi``
            return np.where(hi > lo, inside, lo)
        first, last = math.ceil(self.low), math.floor(self.high)
        a = np.ceil(lo)
        a = np.where(a <= self.low, a + 1, a)  # a bound's value is its point cell's
        b = np.ceil(hi) - 1
        draw = a + np.floor(v * np.maximum(b - a + 1, 1))
        point = np.clip(np.round(lo), first, last)
        mid = np.clip(np.round(midpoints(lo, hi)), first, last)
        return np.where(hi <= lo, point, np.where(b >= a, np.minimum(draw, b), mid))


SHRINK_MIN_CELLS = 4
"""A coarse bin's fine counts are shrunk toward flat (:func:`shrink_to_flat`) when it holds at
least this many integers or pieces of cells: the James-Stein estimator toward an estimated
mean dominates the raw vector from 4 coordinates on; toward a line (:func:`shrink_to_line`, two
estimated parameters) from one more."""


def shrink_to_flat(counts, sigma, widths=None):
    """Positive-part James-Stein shrinkage of one coarse bin's fine counts toward the flat
    vector of the same total.

    ``counts`` ``p`` (``k`` cells, non-negative: the released noisy counts projected onto
    the bin's total) become ``f + c (p - f)``, ``f`` the flat vector of their total (equal
    counts; with ``widths``, counts in proportion to the cells' widths: a flat density) and
    ``c = max(0, 1 - (k - 3) sigma**2 / sum((p - f)**2))`` (James & Stein 1961,
    "Estimation with quadratic loss"; the positive part and the shrinkage toward a target
    with one estimated parameter, the level, hence ``k - 3``: Efron & Morris 1973, "Stein's
    estimation rule and its competitors - an empirical Bayes approach", JASA 68).
    ``sigma`` is the release's public noise sd, a scalar or one per cell; with unequal sds
    their mean variance stands for ``sigma**2`` (the usual approximation for unequal
    variances, Efron & Morris 1973 §8). Where the spread of the counts is at the noise's
    level the bin is drawn flat; where it is far above, as released. ``c`` is in ``[0,
    1]``, so the result is non-negative and has the total of ``counts``. Fewer than
    :data:`SHRINK_MIN_CELLS` cells, a zero ``sigma`` (not private) or a flat ``counts``:
    unchanged.

    A function of released values and public parameters only: post-processing (Dwork &
    Roth 2014, Prop. 2.1), no budget, the released counts themselves unchanged.

    Examples
    --------
    >>> shrink_to_flat(np.array([10.0, 0.0, 0.0, 10.0]), 5.0).tolist()
    [8.75, 1.25, 1.25, 8.75]
    >>> shrink_to_flat(np.array([6.0, 4.0, 5.0, 5.0, 5.0]), 5.0).tolist()  # noise level
    [5.0, 5.0, 5.0, 5.0, 5.0]
    >>> shrink_to_flat(np.array([6.0, 4.0, 5.0]), 5.0).tolist()  # too few cells
    [6.0, 4.0, 5.0]
    >>> shrink_to_flat(np.array([2.0, 2.0, 4.0, 2.0]), 5.0, [1, 1, 2, 1]).tolist()
    [2.0, 2.0, 4.0, 2.0]
    """
    p = np.asarray(counts, dtype=np.float64)
    k = len(p)
    var = float(np.mean(np.square(sigma))) if k else 0.0
    w = np.ones(k) if widths is None else np.asarray(widths, dtype=np.float64)
    if k < SHRINK_MIN_CELLS or not var > 0 or not w.sum() > 0:
        return p.copy()
    flat = p.sum() * w / w.sum()
    dev = p - flat
    spread = float(np.square(dev).sum())
    if not spread > 0:
        return p.copy()
    c = max(0.0, 1.0 - (k - 3) * var / spread)
    return flat + c * dev


def shrink_to_line(counts, sigma, widths, centres):
    """Positive-part James-Stein shrinkage of one coarse bin's pieces of equal (or refined)
    cells toward the linear density that fits them best.

    ``counts`` ``p`` (``k`` pieces of widths ``widths`` centred at ``centres``;
    non-negative, the bin's projected noisy counts) become ``t + c (p - t)``, ``t`` the
    least-squares fit of ``p`` by ``widths * (a + b centres)`` (a density linear within the
    bin) and ``c = max(0, 1 - (k - 4) sigma**2 / sum((p - t)**2))`` (two estimated
    parameters: Efron & Morris 1973, as :func:`shrink_to_flat`), then projected onto the
    non-negative vectors of ``p``'s total (:func:`project_nonnegative`: the line may dip
    below 0 at an end). A linear target, not a flat one, keeps the density's slope
    across a wide bin, which at a high epsilon carries more signal in the sums a user's bins
    take than the noise of any one cell (``benchmarks/RESULTS.md``, issue 30: fine counts of
    equal cells shrunk within a model bin). With ``k`` equal to :data:`SHRINK_MIN_CELLS`:
    :func:`shrink_to_flat` toward the flat density; fewer: unchanged. Post-processing.

    Examples
    --------
    >>> p = np.array([10.0, 14.0, 16.0, 22.0, 23.0, 31.0])  # a rising density, some noise
    >>> out = shrink_to_line(p, 3.0, np.ones(6), np.arange(6.0))
    >>> bool(np.abs(out - p).max() < 3.0), round(float(out.sum()), 6)
    (True, 116.0)
    >>> shrink_to_line(p, 30.0, np.ones(6), np.arange(6.0)).round(2).tolist()  # noise: the line
    [9.48, 13.42, 17.36, 21.3, 25.25, 29.19]
    """
    p = np.asarray(counts, dtype=np.float64)
    k = len(p)
    var = float(np.mean(np.square(sigma))) if k else 0.0
    if k <= SHRINK_MIN_CELLS or not var > 0:
        return shrink_to_flat(p, sigma, widths)
    w = np.asarray(widths, dtype=np.float64)
    x = np.asarray(centres, dtype=np.float64) / 2  # halved: no overflow near the float limits
    x = (x - x[0]) / max(float(np.ptp(x)), np.finfo(np.float64).tiny)
    x = x - x.mean()
    A = np.column_stack([w, w * x])
    line = A @ np.linalg.lstsq(A, p, rcond=None)[0]
    dev = p - line
    spread = float(np.square(dev).sum())
    if not spread > 0:
        return p.copy()
    c = max(0.0, 1.0 - (k - 4) * var / spread)
    return project_nonnegative(line + c * dev, p.sum())


def project_nonnegative(noisy, total=None):
    """Euclidean projection of noisy counts onto the non-negative vectors of the same total,
    or of ``total`` when given (clipped at 0 when the total is not positive): subtract the
    one shift that gives the total (Duchi et al. 2008, Fig. 1), unlike clipping, which adds
    the noise of every empty cell to the mass.

    Examples
    --------
    >>> project_nonnegative(np.array([5.0, 3.0, -2.0])).tolist()
    [4.0, 2.0, 0.0]
    >>> project_nonnegative(np.array([5.0, 3.0, -2.0]), total=12.0).tolist()
    [7.0, 5.0, 0.0]
    """
    total = noisy.sum() if total is None else float(total)
    if not total > 0 or not len(noisy):
        return np.clip(noisy, 0.0, None)
    v = np.sort(noisy)[::-1]
    shifts = (np.cumsum(v) - total) / np.arange(1, len(v) + 1)
    above = np.flatnonzero(v > shifts)
    k = above[-1] if len(above) else 0  # none: a total below the rounding of the largest
    return np.clip(noisy - shifts[k], 0.0, None)
