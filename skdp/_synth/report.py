"""The release report of a fitted synthesizer: one self-contained HTML page (issue 30 item 5).

:func:`release_report` builds the page a curator sends around with a release. It reads
the fitted synthesizer's **released** attributes only (the published ones:
``measurements_``, ``model_`` or ``histogram_``, ``domain_``, ``resolution_``,
``compression_``, ``privacy_spent_``, the ledger... and the fitted domain ``_columns``,
the form of ``domain_`` / ``resolution_`` / ``compression_`` that encodes values), the
synthetic rows (a release) and, optionally, a holdout table. It takes no argument for
the training data, and the synthesizer keeps none. So every section but the holdout ones
is post-processing of differentially private releases and costs no privacy budget
(post-processing, Dwork–Roth 2014 Prop. 2.1): publishing it is free.

The holdout sections are *not* private: they are computed from the holdout rows without
noise (the 1-, 2-, 3-way errors of :mod:`.holdout` at the holdout's own bins, and the ML
utility: a model trained on the synthetic rows and scored on the holdout). The page marks
them so; they are for the curator, like the holdout file.

The statement of fit
--------------------
For each noisy measurement ``y`` of a marginal on ``c`` cells with Gaussian noise of
standard deviation ``sigma`` (in counts), the report gives the residual
``||N p_C - y||_2`` of the released model's counts ``N p_C`` on those cells against the
noise's expected norm ``E||z||_2 = sigma sqrt(2) Gamma((c+1)/2) / Gamma(c/2)`` (the chi
distribution's mean, about ``sigma sqrt(c)``; ``sqrt(sum_i sigma_i**2)`` when the cells have
different sigmas, the root of ``E||z||_2**2``). A model equal to the true marginal has
a residual equal to the noise, a ratio near 1; a ratio well above 1 says the model does
not fit what was measured (conflicting measurements, a capped model, an early stop); well
below 1, that it fits part of the noise too (expected for a marginal the model has a
parameter per cell for). Both sides are computed from the release and public sigmas only.

A numeric column's fine grid panel is followed, where its release kept spikes (exact
values whose noisy count cleared the public ``spike_threshold``; ``resolution_[name]
["spikes"]``), by a chart and a table of those values, their noisy counts and the
threshold, beside the synthetic rows equal to each: released values only (the values the
threshold dropped are never known to the model). A grid without spikes renders as before.

No script, no external resource: plots are inline SVG (:mod:`.svg`), every string is
HTML-escaped (column names and categories included).
"""

import html
import json
import math
import os
import tempfile

import numpy as np
from scipy.special import gammaln

from .._backend import to_numpy
from .._validation import name_list
from ..privacy.ledger import describe_composition
from .._domain import value_key
from .holdout import MAX_ROWS, RESOLUTIONS, _category_codes, _floats, _is_missing, binned_errors
from .svg import bar_chart

__all__ = ["release_report", "write_report", "expected_noise_norm", "residuals"]

MAX_PANEL_CELLS = 60
"""A column panel shows at most this many cells (the fine grids are summed into blocks)."""
MAX_SPIKE_ROWS = 200
"""A column's spike table lists at most this many released spikes (the largest noisy
counts; its chart at most :data:`MAX_PANEL_CELLS`)."""
MAX_RESIDUAL_BARS = 120
"""The fit chart shows at most this many measurements (the largest ratios)."""
TARGET_CLASSES = 255
"""A categorical feature with more codes than this enters the ML model as a number."""


def _esc(text):
    return html.escape(str(text), quote=True)


# ---------------------------------------------------------------------------
# Numbers from the release
# ---------------------------------------------------------------------------
def expected_noise_norm(sigma, cells):
    """``E||z||_2`` of Gaussian noise on ``cells`` cells of standard deviation ``sigma``.

    One sigma: the chi distribution's mean ``sigma sqrt(2) Gamma((c+1)/2) / Gamma(c/2)``
    (about ``sigma sqrt(c)``); one sigma per cell: ``sqrt(sum sigma_i**2)``, the root of
    ``E||z||_2**2`` (an upper bound of the mean, by Jensen).

    Examples
    --------
    >>> round(expected_noise_norm(1.0, 1), 4)  # E|z| = sqrt(2 / pi)
    0.7979
    >>> round(expected_noise_norm(2.0, 10_000) / (2.0 * 100), 4)
    1.0
    """
    sigma = np.asarray(sigma, dtype=np.float64)
    if sigma.ndim:
        return float(np.sqrt(np.sum(np.square(sigma))))
    c = int(cells)
    return float(sigma) * math.sqrt(2.0) * math.exp(gammaln((c + 1) / 2) - gammaln(c / 2))


def _model_counts(est, cols, inner):
    """The released distribution's counts on the columns ``cols`` (indices), in that order,
    on the measurement's domain (``inner``: the model of a compressed domain)."""
    if hasattr(est, "model_"):
        model = getattr(est.model_, "model", est.model_) if inner else est.model_
        return np.asarray(model.project_counts(tuple(cols)), dtype=np.float64)
    hist = np.asarray(to_numpy(est.histogram_), dtype=np.float64)
    others = tuple(a for a in range(hist.ndim) if a not in cols)
    marg = hist.sum(axis=others) if others else hist
    order = np.argsort(np.argsort(cols))  # the sorted axes put back in the order of cols
    return est.n_records_ * np.transpose(marg, order)


def residuals(est):
    """Per released measurement: ``(marginal, cells, sigma, ||residual||_2, E||z||_2)``.

    From ``measurements_`` and the released distribution only (module docstring).
    """
    names = list(est.domain_)
    out = []
    for m in getattr(est, "measurements_", []):
        cols = [names.index(c) for c in m["marginal"]]
        inner = tuple(m["shape"]) != tuple(est.domain_shape_[j] for j in cols)
        model = _model_counts(est, cols, inner).ravel()
        y = np.asarray(m["counts"], dtype=np.float64)
        sigma = m["sigma"]
        norm = float(np.linalg.norm(model - y))
        expected = math.nan if sigma is None else expected_noise_norm(sigma, y.size)
        out.append((tuple(m["marginal"]), int(y.size), sigma, norm, expected))
    return out


def _noisy_oneway(est, j):
    """The noisy 1-way counts of column ``j`` and their noise sd per cell, summed from the
    smallest released measurement that contains it (post-processing); its shape tells
    whether it is on the compressed domain. ``None`` without one."""
    name = list(est.domain_)[j]
    best = None
    for m in getattr(est, "measurements_", []):
        if name in m["marginal"] and (best is None or m["counts"].size < best["counts"].size):
            best = m
    if best is None:
        return None
    axis = list(best["marginal"]).index(name)
    counts = np.asarray(best["counts"], dtype=np.float64).reshape(best["shape"])
    sigma = best["sigma"]
    var = np.broadcast_to(np.square(np.asarray(np.nan if sigma is None else sigma,
                                               dtype=np.float64)), counts.shape).reshape(
        best["shape"])
    others = tuple(a for a in range(counts.ndim) if a != axis)
    return counts.sum(axis=others), np.sqrt(var.sum(axis=others))


def _short(v):
    """A bin edge in few characters: ``11328``, not ``1.133e+04``."""
    v = float(v)
    return f"{v:.0f}" if 1e3 <= abs(v) < 1e9 else f"{v:.4g}"


def _cell_labels(col, short=_short):
    """Labels of a fitted column's cells on the model's domain (``short`` writes a numeric
    column's values)."""
    if col.categorical:
        if col.cells is None:
            labels = [str(c) for c in col.categories]
        else:
            k = int(col.cells.max())
            labels = [str(col.categories[int(np.flatnonzero(col.cells == i)[0])])
                      for i in range(k)]
            labels.append(f"merged ({int(np.sum(col.cells == k))} values)")
    else:
        edges = col.edges if col.edges is not None else \
            np.linspace(col.low, col.high, col.n_bins + 1)
        labels = [_bin_label(col, a, b, short) for a, b in zip(edges[:-1], edges[1:])]
    if col.missing:
        labels.append("missing")
    return labels


def _bin_label(col, a, b, short=_short):
    """``[a, b)``; with a bound alone in its bin (``bin_strategy='fine'``: the bin's other
    edge the next float), that bin by the bound and its neighbour as ``(low, b)`` or
    ``[a, high)``."""
    if np.nextafter(a, b) == b:
        return short(a if a == col.low else b)
    if a == np.nextafter(col.low, col.high):
        return f"({short(col.low)}, {short(b)})"
    if b == np.nextafter(col.high, col.low):
        b = col.high
    return f"[{short(a)}, {short(b)})"


def _compressed(est, j, labels):
    """``(lookup, labels)`` of a column the graphical model compressed (``'mst'``'s rare
    values merged): original code -> compressed code; ``(None, labels)`` otherwise."""
    merges = getattr(getattr(est, "model_", None), "merges", {}) or {}
    if j not in merges:
        return None, labels
    merge = merges[j]
    lookup = merge.lookup(len(labels))
    return lookup, [labels[i] for i in merge.keep] + [f"rare ({len(merge.merged)} values)"]


# ---------------------------------------------------------------------------
# Tables given by the caller
# ---------------------------------------------------------------------------
def _columns_of(table, names, what):
    """Per-column object arrays of a DataFrame, array or list of rows (first MAX_ROWS)."""
    if hasattr(table, "columns") and hasattr(table, "iloc"):
        if [str(c) for c in table.columns] != [str(n) for n in names]:
            raise ValueError(f"{what} has the columns {list(map(str, table.columns))}; the "
                             f"synthesizer was fitted on {list(map(str, names))}.")
        return [table.iloc[:MAX_ROWS, j].to_numpy(dtype=object) for j in range(len(names))]
    arr = np.asarray(table, dtype=object)
    if arr.ndim != 2 or arr.shape[1] != len(names):
        raise ValueError(f"{what} must be a table of {len(names)} columns (the synthesizer's); "
                         f"got shape {arr.shape}.")
    return [arr[:MAX_ROWS, j] for j in range(len(names))]


def _rows(columns):
    out = np.empty((len(columns[0]) if columns else 0, len(columns)), dtype=object)
    for j, c in enumerate(columns):
        out[:, j] = c
    return out


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------
def _table(head, rows, cls=""):
    out = [f'<table class="{cls}"><thead><tr>'
           + "".join(f"<th>{_esc(h)}</th>" for h in head) + "</tr></thead><tbody>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in row) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _num(v, digits=4):
    try:
        v = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(v):
        return "-"
    return f"{v:.{digits}g}"


RELATIONS = {
    "replace_one": "replace-one: two tables are neighbours when they differ in one row's "
                   "values (the number of rows n is public)",
    "add_remove": "add/remove: two tables are neighbours when one has one row more (n is "
                  "private; the released row count is a noisy estimate)",
}


def _released(est, labels):
    eps, delta = est.privacy_spent_
    relation = getattr(est, "neighbouring", "replace_one")
    facts = [
        ("estimator", type(est).__name__),
        ("solver", getattr(est, "solver_", "?")),
        ("guarantee", f"({_num(eps, 6)}, {_num(delta, 4)})-differential privacy"),
        ("neighbouring relation", RELATIONS.get(relation, relation)),
        ("budget asked", f"epsilon={_num(getattr(est, 'epsilon', math.nan), 6)}, "
                         f"delta={_num(getattr(est, 'delta_', math.nan), 4)}"),
        ("composition", f"{est.privacy_method_}: "
                        f"{describe_composition(est.privacy_method_)}"),
        ("rows (n_records_)", f"{est.n_records_}"
         + (" (public)" if relation == "replace_one" else " (noisy estimate)")),
        ("columns", str(len(est.domain_))),
        ("domain cells", f"{math.prod(est.domain_shape_):.6g}"),
        ("workload marginals", str(len(est.marginals_))),
        ("noisy measurements released", str(len(getattr(est, "measurements_", [])))),
    ]
    if not math.isfinite(eps):
        facts.insert(2, ("WARNING", "epsilon is infinite: nothing is private"))
    out = ["<h2>What was released</h2>",
           "<p>The release is the fitted distribution (<code>"
           + ("model_" if hasattr(est, "model_") else "histogram_")
           + "</code>), the noisy measurements it was fitted to (<code>measurements_</code>), "
           "the domain (<code>domain_</code>, with <code>resolution_</code>, "
           "<code>compression_</code>, <code>bin_edges_</code>) and the synthetic rows drawn "
           "from it. Every figure below, except the sections marked <em>not private</em>, "
           "is computed from these released values only: publishing this page spends no "
           "privacy budget (post-processing, Dwork&ndash;Roth 2014 Prop. 2.1).</p>",
           _table(["", ""], facts, "facts")]
    log = est.privacy_ledger_.log() if hasattr(est.privacy_ledger_, "log") else []
    rows = [(e.get("kind"), e.get("count"), e.get("label"), _num(e.get("rho")),
             _num(e.get("mu")), _num(e.get("epsilon")), _num(e.get("delta")))
            for e in log]
    out += ["<h3>The privacy ledger (every mechanism run)</h3>",
            _table(["kind", "count", "what it released", "rho (zCDP)", "mu (GDP)",
                    "epsilon", "delta"], rows, "ledger")]
    dom = []
    for name, shape in zip(est.domain_, est.domain_shape_):
        entry = est.domain_[name]
        text = json.dumps(entry, default=str)
        text = text if len(text) <= 240 else text[:239] + "\u2026"
        write = labels.get(name)
        if write is not None and "low" in entry and "high" in entry:  # e.g. days as dates
            text += f" = [{write(entry['low'])}, {write(entry['high'])}]"
        dom.append((name, shape, text))
    out += ["<h3>The domain</h3>", _table(["column", "cells", "entry"], dom, "domain")]
    return "".join(out)


def _column_panels(est, syn_cols, labels):
    """Per column: the noisy measured 1-way marginal (+-2 sd), the model's, the synthetic
    rows'; a numeric column with a fine grid also gets its fine release against the rows.
    ``labels``: column name -> how its values are written (default :func:`_short`)."""
    names = list(est.domain_)
    n = max(float(est.n_records_), 1.0)
    out = ["<h2>Columns: the synthetic rows against the noisy measurements</h2>",
           "<p>Per column, on the model's cells: the noisy measured 1-way marginal (summed "
           "from the smallest released measurement that contains the column, divided by "
           "<code>n_records_</code>; error bars &plusmn;2 noise standard deviations), the "
           "released model's marginal, and the synthetic rows' shares. A numeric column with "
           "a fine grid (<code>resolution_</code>) also shows its fine release (noisy counts "
           "divided by their total) against the synthetic rows on the same cells.</p>"]
    for j, (name, col) in enumerate(zip(names, est._columns)):
        short = labels.get(name, _short)
        cells = _cell_labels(col, short)
        noisy = _noisy_oneway(est, j)
        lookup, shown = None, cells
        if noisy is not None and noisy[0].size != len(cells):
            lookup, shown = _compressed(est, j, cells)
        model = _model_counts(est, [j], lookup is not None).ravel() / n
        series = []
        if noisy is not None and noisy[0].size == len(shown):
            series.append(("noisy measurement", noisy[0] / n, 2 * noisy[1] / n))
        series.append(("model", model, None))
        if syn_cols is not None:
            codes = col.encode(syn_cols[j])
            if lookup is not None:
                codes = lookup[codes]
            share = np.bincount(codes, minlength=len(shown)) / max(len(codes), 1)
            series.append(("synthetic rows", share, None))
        out.append('<div class="panel">' + bar_chart(
            shown, series, title=f"{name}", ylabel="share of rows") + "</div>")
        if name in getattr(est, "resolution_", {}) and col.fine is not None:
            out.append('<div class="panel">' + _fine_panel(name, col, est.resolution_[name],
                                                            syn_cols, j, short) + "</div>")
            out.append(_spike_panel(name, est.resolution_[name], syn_cols, j, short))
    if not getattr(est, "measurements_", []):
        out.append("<p>This solver released no noisy marginal measurement (a private game or "
                   "MWEM): the panels show the model against the synthetic rows.</p>")
    return "".join(out)


def _fine_panel(name, col, fine, syn_cols, j, short=_short):
    counts = np.asarray(fine["counts"], dtype=np.float64)
    if "values" in fine:  # one cell per integer
        cells = [(v, v) for v in fine["values"]]
    else:  # a point cell at each bound, equal (or refined: listed) cells between
        edges = np.asarray(fine["edges"]) if "edges" in fine else \
            np.linspace(fine["low"], fine["high"], fine["cells"] + 1)
        cells = [(fine["low"], fine["low"])] + list(zip(edges[:-1], edges[1:])) \
            + [(fine["high"], fine["high"])]
    block = max(1, math.ceil(len(counts) / MAX_PANEL_CELLS))
    starts = list(range(0, len(counts), block))
    shown = []
    for s in starts:
        lo, hi = cells[s][0], cells[min(s + block, len(cells)) - 1][1]
        shown.append(short(lo) if lo == hi else
                     (f"{short(lo)}\u2013{short(hi)}" if "values" in fine
                      else f"[{short(lo)}, {short(hi)})"))

    def grouped(v):
        return np.add.reduceat(v, starts) if len(v) else v

    total = counts.sum()
    series = [("noisy measurement", grouped(counts) / total if total > 0 else
               grouped(counts) * np.nan, None)]
    if syn_cols is not None:
        v = _floats(syn_cols[j])
        v = v[~np.isnan(v)]
        share = np.bincount(col.fine.cell(v), minlength=len(counts)).astype(np.float64)
        series.append(("synthetic rows", grouped(share) / max(len(v), 1), None))
    title = f"{name}: fine grid ({len(counts)} cells" + _noise(fine) + (
        f", shown in blocks of {block})" if block > 1 else ")")
    return bar_chart(shown, series, title=title, ylabel="share of non-missing values")


def _noise(fine):
    """``", noise sd S per cell"`` (a range once refined) from the grid's released
    ``"sigma"``; ``""`` without one."""
    if fine.get("sigma") is None:
        return ""
    sd = np.atleast_1d(np.asarray(fine["sigma"], dtype=np.float64))
    lo, hi = _short(float(sd.min())), _short(float(sd.max()))
    return f", noise sd {lo} per cell" if lo == hi else f", noise sd {lo}\u2013{hi} per cell"


def _spike_panel(name, fine, syn_cols, j, short=_short):
    """The released spikes of a fine grid (``resolution_[name]["spikes"]``: exact values
    whose noisy count cleared the public ``spike_threshold``) against the synthetic rows
    that hold exactly those values: a chart (shares of the non-missing values, the noisy
    ones over the grid's noisy total, as in :func:`_fine_panel`) and a table (value, noisy
    count, threshold, synthetic rows at the value). Released values and synthetic rows
    only: post-processing. ``""`` when no spike was released (the page as without)."""
    spikes = fine.get("spikes") or {}
    values = np.asarray(spikes.get("values", []), dtype=np.float64)
    if not values.size:
        return ""
    noisy = np.asarray(spikes["counts"], dtype=np.float64)
    threshold = fine.get("spike_threshold", math.nan)
    total = float(np.sum(np.asarray(fine["counts"], dtype=np.float64)))
    syn = share = None
    if syn_cols is not None:
        v = _floats(syn_cols[j])
        v = np.sort(v[~np.isnan(v)])
        syn = np.searchsorted(v, values, side="right") - np.searchsorted(v, values, side="left")
        share = syn / max(len(v), 1)

    def largest(k):  # the k largest noisy counts, in the order of the values
        keep = np.sort(np.argsort(-noisy, kind="stable")[:k])
        return keep[np.argsort(values[keep], kind="stable")]

    shown = largest(MAX_PANEL_CELLS)
    series = [("noisy measurement", noisy[shown] / total if total > 0 else
               noisy[shown] * np.nan, None)]
    if share is not None:
        series.append(("synthetic rows", share[shown], None))
    title = f"{name}: released spikes ({len(values)} exact values" + (
        f", the {len(shown)} largest shown)" if len(shown) < len(values) else ")")
    out = ['<div class="panel">' + bar_chart(
        [short(x) for x in values[shown]], series, title=title,
        ylabel="share of non-missing values") + "</div>"]
    rows = largest(MAX_SPIKE_ROWS)
    out.append(f"<p>Spikes of <code>{_esc(name)}</code>: exact values released with their "
               "noisy counts (the fine grid's Gaussian mechanism) because the noisy count "
               f"cleared the public threshold {_esc(_num(threshold))}; "
               + ("every other integer of the bounds was measured and dropped. "
                  if fine.get("spike_candidates") == "public"
                  else "every other value was dropped unseen. ")
               + (f"The {len(rows)} largest of {len(values)}. " if len(rows) < len(values)
                  else "")
               + ("" if syn is None else "Beside them, the synthetic rows equal to each "
                  "value.") + "</p>")
    head = ["value", "noisy count", "threshold", "noisy share"]
    if syn is not None:
        head += ["synthetic rows at the value", "synthetic share"]
    table = []
    for i in rows:
        row = [f"{values[i]:.10g}" if short is _short else short(values[i]),
               _num(noisy[i], 6), _num(threshold, 6),
               _num(noisy[i] / total if total > 0 else math.nan)]
        if syn is not None:
            row += [int(syn[i]), _num(share[i])]
        table.append(row)
    out.append(_table(head, table, "spikes"))
    return "".join(out)


def _fit_section(est):
    res = residuals(est)
    out = ["<h2>Fit: the model's residuals on its measurements</h2>"]
    if not res:
        return "".join(out) + ("<p>This solver released no noisy marginal measurement: no "
                               "residual to report.</p>")
    out.append(
        "<p>For each released measurement <em>y</em> of a marginal on <em>c</em> cells "
        "with Gaussian noise of standard deviation &sigma; (counts): the residual "
        "&#8214;N&middot;p<sub>C</sub> &minus; y&#8214;<sub>2</sub> of the model's counts, "
        "against the noise's expected norm E&#8214;z&#8214;<sub>2</sub> = &sigma;&radic;2 "
        "&Gamma;((c+1)/2) / &Gamma;(c/2) &asymp; &sigma;&radic;c (one &sigma; per cell: "
        "&radic;&sum;&sigma;<sub>i</sub><sup>2</sup>). A model equal to the true marginal "
        "has a ratio near 1; well above 1, the model does not fit what was measured; well "
        "below 1, it fits part of the noise too (expected where the model has a parameter "
        "per cell). Computed from the release only: a private statement of fit.</p>")
    ratios = np.array([r[3] / r[4] if r[4] and r[4] > 0 else math.nan for r in res])
    finite = ratios[np.isfinite(ratios)]
    if finite.size:
        out.append(f"<p>{len(res)} measurements: median ratio {np.median(finite):.3g}, "
                   f"max {finite.max():.3g}, {int(np.sum(finite > 2))} above 2.</p>")
    order = list(range(len(res)))
    if len(order) > MAX_RESIDUAL_BARS:
        order = sorted(np.argsort(-np.nan_to_num(ratios, nan=-1))[:MAX_RESIDUAL_BARS])
        out.append(f"<p>The chart shows the {MAX_RESIDUAL_BARS} largest ratios.</p>")
    labels = [" \u00d7 ".join(map(str, res[i][0])) for i in order]
    out.append('<div class="panel">' + bar_chart(
        labels, [("model", [ratios[i] for i in order], None)],
        title="residual / expected noise norm, per measurement", ylabel="ratio",
        reference=1.0) + "</div>")
    rows = [(" \u00d7 ".join(map(str, m)), c,
             _num(s) if np.ndim(s) == 0 else f"{_num(np.min(s))}..{_num(np.max(s))}",
             _num(norm), _num(exp), _num(norm / exp if exp else math.nan, 3))
            for m, c, s, norm, exp in res]
    out.append(_table(["measured marginal", "cells", "sigma (counts)", "||residual||_2",
                       "E||noise||_2", "ratio"], rows, "fit"))
    return "".join(out)


NOT_PRIVATE = ('<p class="warn"><strong>Not private.</strong> This section is computed from '
               "the holdout rows without noise: publishing it reveals statistics of the "
               "holdout table. Share it only where the holdout itself may be shown.</p>")


def _holdout_section(est, syn_rows, hold_rows, names):
    errors = binned_errors(syn_rows, hold_rows, est.domain_, names)
    numeric = any("categories" not in est.domain_[n] for n in names)
    items = list(errors.items()) if numeric else list(errors.items())[:1]
    ways = sorted(items[0][1])
    head = ["numeric columns cut into"] + [h for w in ways for h in (
        [f"{w}-way mean", f"{w}-way max"] + ([f"{w}-way independent"] if w > 1 else []))]
    rows = []
    for (kind, k), res in items:
        rows.append([f"{k} {kind} bins" if numeric else "(no numeric column)"]
                    + [_num(v) for w in ways for v in (
                        [res[w][0], res[w][1]] + ([res[w][2]] if w > 1 else []))])
    labels = [r[0] for r in rows]
    series = [(name, [res[w][i] for _, res in items], None) for w in ways
              for name, i in [(f"{w}-way", 0)] + ([(f"{w}-way independent", 2)] if w > 1 else [])]
    out = ["<h2>Holdout: marginal errors at the user's bins</h2>", NOT_PRIVATE,
           f"<p>Total variation distance between the {len(syn_rows)} synthetic rows' and "
           f"the {len(hold_rows)} holdout rows' marginals (mean and max over the 1-, 2- and "
           "3-way marginals, at most 500 of each), each numeric column cut into equal bins "
           "between the holdout's extremes and into bins at the holdout's quantiles "
           f"({', '.join(f'{k} {kind}' for kind, k in RESOLUTIONS)}), not the synthesizer's "
           "own bins. 'independent': the error of independent columns (the product of the "
           "holdout's own 1-way marginals), for reference: a release above it ignores the "
           "relations between columns at that binning.</p>",
           '<div class="panel">' + bar_chart(labels, series, title="mean total variation",
                                             ylabel="TV") + "</div>",
           _table(head, rows, "holdout")]
    outside = _outside(est, hold_rows, names)
    if outside:
        out.insert(3, "<p>Holdout cells whose category the domain lacks, or missing where "
                   "the domain says a column has no missing cells (a value no synthetic row "
                   "takes, counted in the errors above): "
                   + _esc(", ".join(f"{name} {n}" for name, n in outside.items())) + ".</p>")
    return "".join(out)


def _outside(est, hold_rows, names):
    """Column name -> the holdout cells no synthetic row takes: a category the fitted domain
    lacks, or a missing cell in a column whose entry says ``"missing": false``; for the
    columns that have some."""
    counts = {}
    for j, name in enumerate(names):
        entry = est.domain_[name]
        if entry.get("missing") is not False and "categories" not in entry:
            continue  # every value of a numeric column with a missing cell is one it takes
        missing = np.array([_is_missing(v) for v in hold_rows[:, j]], dtype=bool)
        n = int(missing.sum()) if entry.get("missing") is False else 0
        if "categories" in entry:
            keys = {value_key(c) for c in entry["categories"]}
            n += sum(value_key(v) not in keys for v in hold_rows[~missing, j])
        if n:
            counts[name] = int(n)
    return counts


def _features(syn_cols, hold_cols, est, target):
    """The ML table: categorical columns as codes over both tables, numeric as floats."""
    names = list(est.domain_)
    syn_x, hold_x, cat = [], [], []
    for j, name in enumerate(names):
        if "categories" in est.domain_[name]:
            (h, s), size = _category_codes([hold_cols[j], syn_cols[j]])
            small = size <= TARGET_CLASSES
            h, s = h.astype(np.float64), s.astype(np.float64)
        else:
            h, s, small = _floats(hold_cols[j]), _floats(syn_cols[j]), False
        if name == target:
            hold_y, syn_y, classify = h, s, "categories" in est.domain_[name]
            continue
        hold_x.append(h)
        syn_x.append(s)
        cat.append(small)
    return (np.stack(syn_x, axis=1), syn_y, np.stack(hold_x, axis=1), hold_y,
            np.array(cat, dtype=bool), classify)


def _utility_section(est, syn_cols, hold_cols, target):
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from threadpoolctl import threadpool_limits

    out = ["<h2>Holdout: machine-learning utility</h2>", NOT_PRIVATE]
    if len(est.domain_) < 2:
        return "".join(out) + "<p>One column: no feature to learn from.</p>"
    sx, sy, hx, hy, cat, classify = _features(syn_cols, hold_cols, est, target)
    if not classify:
        keep_s, keep_h = ~np.isnan(sy), ~np.isnan(hy)
        sx, sy, hx, hy = sx[keep_s], sy[keep_s], hx[keep_h], hy[keep_h]
    perm = np.random.default_rng(0).permutation(len(hy))  # public seed: the split
    half = len(perm) // 2
    a, b = perm[:half], perm[half:]
    make = HistGradientBoostingClassifier if classify else HistGradientBoostingRegressor
    metric = "accuracy" if classify else "R\u00b2"
    scores = []
    for label, x, y in (("trained on the synthetic rows", sx, sy),
                        ("trained on the other half of the holdout (reference)", hx[a], hy[a])):
        try:
            with threadpool_limits(limits=1):  # small tables: threads cost more than they win
                model = make(categorical_features=cat if cat.any() else None,
                             random_state=0).fit(x, y)
                scores.append((label, float(model.score(hx[b], hy[b]))))
        except ValueError as exc:  # e.g. one class only in the synthetic rows
            scores.append((label, math.nan))
            out.append(f"<p>{_esc(label)}: could not train ({_esc(exc)}).</p>")
    if classify:
        values, counts = np.unique(sy, return_counts=True)
        base = float(np.mean(hy[b] == values[np.argmax(counts)])) if len(values) else math.nan
        base_label = "the synthetic rows' most frequent class"
    else:
        base = 1.0 - float(np.mean((hy[b] - np.mean(sy)) ** 2) / np.var(hy[b])) \
            if len(sy) and np.var(hy[b]) > 0 else math.nan
        base_label = "the synthetic rows' mean"
    scores.append((f"predicting {base_label}", base))
    out.append(f"<p>A histogram gradient-boosting {'classifier' if classify else 'regressor'} "
               f"(scikit-learn, default parameters, seed 0) predicts <code>{_esc(target)}"
               f"</code> from the other columns; {metric} on one half of the holdout "
               f"({len(b)} rows, split by a fixed seed).</p>")
    out.append('<div class="panel">' + bar_chart(
        ["synthetic rows", "holdout half", "constant"], [(metric, [s[1] for s in scores], None)],
        title=f"{metric} on the holdout", ylabel=metric) + "</div>")
    out.append(_table(["model", metric], [(s[0], _num(s[1])) for s in scores], "utility"))
    return "".join(out)


STYLE = """body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;color:#222}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:2em}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
table.facts td:first-child{font-weight:bold}.panel{display:inline-block;margin:4px;
overflow-x:auto;max-width:100%}.warn{background:#fff3cd;border:1px solid #e0c36a;
padding:6px}code{background:#f4f4f4}"""


def release_report(est, synthetic=None, holdout=None, target=None, title=None, labels=None):
    """The HTML release report of a fitted synthesizer (a string; see the module docstring).

    Parameters
    ----------
    est : SaddlePointSynthesizer
        Fitted; only its released attributes are read.
    synthetic : DataFrame, array or list of rows, optional
        The synthetic rows published (their first :data:`~.holdout.MAX_ROWS`); without
        them the column panels show the model only, and a holdout is scored against
        ``est.sample`` of ``min(n_records_, MAX_ROWS)`` rows drawn with seed 0.
    holdout : DataFrame, array or list of rows, optional
        Rows held out of the fit (not private: the sections it feeds say so).
    target : str or int, optional
        With ``holdout``: the column the ML utility section predicts.
    title : str, optional
        The page's title.
    labels : dict, optional
        Column name -> a function writing one of its values (a number) as text, for the
        column panels' axes and spike tables and its bounds in the domain table (e.g. days
        from 1970-01-01 as ISO dates); other numeric columns' values are written as short
        numbers. Public formatting only: it changes no figure.

    Returns
    -------
    page : str
        One self-contained HTML document (inline SVG, no script).
    """
    names = list(est.domain_)
    if target is not None and target not in names:
        raise ValueError(f"target {target!r} is not a column of the synthesizer "
                         f"(columns {name_list([str(n) for n in names])}).")
    if target is not None and holdout is None:
        raise ValueError("target needs a holdout: the ML utility is scored on it.")
    labels = {} if labels is None else labels
    unknown = [str(k) for k in labels if k not in names]
    if unknown:
        raise ValueError(f"labels names column(s) {name_list(unknown)} that the synthesizer "
                         f"does not have (columns {name_list([str(n) for n in names])}).")
    if not all(map(callable, labels.values())):
        raise TypeError("labels maps a column name to a function that writes a value as text.")
    syn_cols = None if synthetic is None else _columns_of(synthetic, names, "synthetic")
    hold_cols = None if holdout is None else _columns_of(holdout, names, "holdout")
    if hold_cols is not None and syn_cols is None:
        drawn = est.sample(min(int(est.n_records_), MAX_ROWS), random_state=0)
        syn_cols = _columns_of(drawn, names, "the sample")
    title = "Release report" if title is None else str(title)
    body = [f"<h1>{_esc(title)}</h1>", _released(est, labels),
            _column_panels(est, syn_cols, labels), _fit_section(est)]
    if hold_cols is not None:
        body.append(_holdout_section(est, _rows(syn_cols), _rows(hold_cols), names))
        if target is not None:
            body.append(_utility_section(est, syn_cols, hold_cols, target))
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{_esc(title)}</title><style>{STYLE}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")


def write_report(path, page):
    """Write ``page`` to ``path`` through a temporary file beside it (no partial file)."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".skdp-", suffix=".html.part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(page)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open() would create it (mkstemp makes it 0600)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
