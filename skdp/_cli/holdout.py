"""``--holdout``: the synthetic rows' marginal error against a held-out file, at the user's bins.

The errors are computed by :mod:`skdp._synth.holdout` (shared with the release report,
``--report``); here they are printed. See that module for the binnings and the privacy
note: computed from the synthetic rows and the holdout only.
"""

from .._synth.holdout import MAX_MARGINALS, MAX_ROWS, RESOLUTIONS, binned_errors

__all__ = ["RESOLUTIONS", "MAX_MARGINALS", "MAX_ROWS", "binned_errors", "report_lines"]


def report_lines(errors, n_synthetic, n_holdout, any_numeric=True):
    """The report's lines (see the module docstring)."""
    ways = sorted(next(iter(errors.values())))
    lines = [f"holdout marginal error (total variation, mean/max over marginals) of "
             f"{n_synthetic} synthetic rows against the {n_holdout} holdout rows, on bins of "
             "the holdout (not the synthesizer's); 'indep.': the error of independent columns "
             "(the holdout's own 1-way marginals), for reference"]
    head = f"  {'numeric columns cut into':<26}" + "".join(
        f"{f'{w}-way':>15}" + (f"{'indep.':>8}" if w > 1 else "") for w in ways)
    lines.append(head)
    rows = errors.items() if any_numeric else list(errors.items())[:1]
    for (kind, k), res in rows:
        label = f"{k} {kind} bins" if any_numeric else "(no numeric column)"
        cells = "".join(f"{res[w][0]:>8.4f}/{res[w][1]:<6.4f}"
                        + (f"{res[w][2]:>8.4f}" if w > 1 else "") for w in ways)
        lines.append(f"  {label:<26}{cells}")
    return lines
