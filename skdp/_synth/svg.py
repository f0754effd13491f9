"""Inline SVG bar charts for the release report (:mod:`.report`), in plain Python.

The base install has no plotting library (matplotlib is an extra), so the report draws
its figures itself: grouped bars with optional error bars, a reference line, and a
``<title>`` tooltip on every bar (hover text, no script). Every string is escaped.
"""

import html
import math

__all__ = ["bar_chart", "COLORS"]

COLORS = {"noisy measurement": "#9a9a9a", "model": "#1f77b4", "synthetic rows": "#ff7f0e",
          "holdout": "#2ca02c", "independent columns": "#bbbbbb"}
"""Fixed colours of the series the report draws (others cycle through :data:`_CYCLE`)."""

_CYCLE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
_HEIGHT = 170  # the plot area's height in pixels
_LABEL = 20  # characters of an x label kept


def _esc(text):
    return html.escape(str(text), quote=True)


def _short(text):
    text = str(text)
    return text if len(text) <= _LABEL else text[:_LABEL - 1] + "\u2026"


def _ticks(low, high, n=5):
    """Round tick values from at or below ``low`` to at or above ``high``."""
    span = high - low
    if not span > 0 or not math.isfinite(span):
        return [low]
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    step = min((m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw), default=10 * mag)
    start = math.floor(low / step + 1e-9) * step  # ticks cover [low, high]
    end = math.ceil(high / step - 1e-9) * step
    out, v = [], start
    while v <= end + 1e-9 * step:
        out.append(0.0 if abs(v) < 1e-12 * step else v)
        v += step
    return out


def _finite(v):
    try:
        return v is not None and math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def bar_chart(labels, series, *, title, ylabel="share", reference=None, fmt="{:.3g}"):
    """An SVG grouped bar chart (a string).

    Parameters
    ----------
    labels : list of str
        The groups (x axis).
    series : list of tuple
        ``(name, values, errors)``: one value per label (``nan`` or ``None``: no
        bar) and ``errors`` (half-widths of an error bar per label) or ``None``.
    title, ylabel : str
        The chart's title and y-axis label.
    reference : float or None
        A horizontal dashed line at this value (e.g. 1 for a ratio).
    fmt : str
        The format of values in the tooltips.

    Returns
    -------
    svg : str
        An ``<svg>`` element, self-contained.

    Examples
    --------
    >>> s = bar_chart(["a", "b"], [("x", [0.2, 0.8], None)], title="<t>")
    >>> s.startswith("<svg") and "&lt;t&gt;" in s and "<t>" not in s
    True
    """
    k = max(len(series), 1)
    group = max(6 * k + 8, 16)
    left, right, top, bottom = 70, 12, 42, 96
    legend = sum(24 + 6.5 * len(str(name)) for name, _, _ in series)
    width = int(max(left + group * max(len(labels), 1) + right, left + legend + right,
                    left + 7.5 * len(str(title)) + right, 320))
    spans = []
    for _, vals, errs in series:
        for i, v in enumerate(vals):
            if _finite(v):
                e = float(errs[i]) if errs is not None and _finite(errs[i]) else 0.0
                spans += [float(v) - e, float(v) + e]
    if reference is not None:
        spans.append(float(reference))
    high = max([0.0] + spans)
    low = min([0.0] + spans)
    if high <= low:
        high = low + 1.0
    ticks = _ticks(low, high)
    high, low = max(high, ticks[-1]), min(low, ticks[0])

    def y(v):
        return top + (high - v) / (high - low) * _HEIGHT

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{top + _HEIGHT + bottom}" viewBox="0 0 {width} {top + _HEIGHT + bottom}" '
           f'role="img" aria-label="{_esc(title)}" class="chart">',
           f'<text x="{left}" y="16" font-size="13" font-weight="bold">{_esc(title)}</text>']
    x = left
    for j, (name, _, _) in enumerate(series):  # the legend, on one line under the title
        color = COLORS.get(name, _CYCLE[j % len(_CYCLE)])
        out.append(f'<rect x="{x:.0f}" y="24" width="10" height="10" fill="{color}"/>'
                   f'<text x="{x + 14:.0f}" y="33" font-size="11">{_esc(name)}</text>')
        x += 24 + 6.5 * len(str(name))
    for t in ticks:
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
                   f'stroke="#e4e4e4"/><text x="{left - 4}" y="{y(t) + 4:.1f}" font-size="10" '
                   f'text-anchor="end">{_esc(fmt.format(t))}</text>')
    out.append(f'<text x="14" y="{top + _HEIGHT / 2:.0f}" font-size="11" text-anchor="middle" '
               f'transform="rotate(-90 14 {top + _HEIGHT / 2:.0f})">{_esc(ylabel)}</text>')
    bar = (group - 6) / k
    for i, label in enumerate(labels):
        x0 = left + i * group + 3
        for j, (name, vals, errs) in enumerate(series):
            v = vals[i] if i < len(vals) else None
            if not _finite(v):
                continue
            v = float(v)
            color = COLORS.get(name, _CYCLE[j % len(_CYCLE)])
            xb = x0 + j * bar
            y1, y0 = sorted((y(v), y(0.0)))
            tip = f"{name}, {label}: {fmt.format(v)}"
            e = float(errs[i]) if errs is not None and _finite(errs[i]) else None
            if e:
                tip += f" \u00b1 {fmt.format(e)}"
            out.append(f'<rect x="{xb:.1f}" y="{y1:.1f}" width="{max(bar - 1, 1):.1f}" '
                       f'height="{max(y0 - y1, 0.5):.1f}" fill="{color}">'
                       f'<title>{_esc(tip)}</title></rect>')
            if e:
                xc = xb + bar / 2
                out.append(f'<line x1="{xc:.1f}" x2="{xc:.1f}" y1="{y(v + e):.1f}" '
                           f'y2="{y(v - e):.1f}" stroke="#333" stroke-width="1"/>')
        xc = left + i * group + group / 2
        yl = top + _HEIGHT + 10
        out.append(f'<text x="{xc:.1f}" y="{yl}" font-size="9" text-anchor="end" '
                   f'transform="rotate(-50 {xc:.1f} {yl})">{_esc(_short(label))}</text>')
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{y(0.0):.1f}" y2="{y(0.0):.1f}" '
               'stroke="#333"/>')
    if reference is not None:
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y(reference):.1f}" '
                   f'y2="{y(reference):.1f}" stroke="#d62728" stroke-dasharray="5,3"/>')
    out.append("</svg>")
    return "".join(out)
