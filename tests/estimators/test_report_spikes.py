"""The release report shows a fine grid's released spikes (issue 30 item 1, second part;
item 5): the exact values whose noisy count cleared the public threshold, their noisy
counts beside the synthetic rows equal to them, in a chart and in the column's table.

From released values and the synthetic rows only: the attributes read are the published
ones (recorded through a proxy, as in ``test_report.py``), the values shown are the
released spikes and none of the values the threshold dropped; the page parses
(html.parser), is self-contained and escapes the column's name. A table without spikes
renders exactly as a grid without a spike release.
"""

import copy
import warnings

import numpy as np
import pytest

from skdp import BudgetAccountant, SaddlePointSynthesizer
from skdp._domain.private import fine_noise, key_delta, stability_threshold
from skdp._synth import report as rep
from skdp.privacy.ledger import approx_dp_to_gdp
from skdp.synthesizer import RESOLUTION_SHARE, SPIKE_DELTA_SHARE

from _report_page import Page as BasePage, check_renders
from _toy import Spy

pd = pytest.importorskip("pandas")

NAME = 'educ<"&>'  # a column name to escape
N = 2000
EPSILON, DELTA = 20.0, 1e-6


class Page(BasePage):
    """A page, and the cells of every ``<table class="spikes">``."""

    def __init__(self, text):
        self.spike_rows, self._in_spikes, self._row = [], False, None
        super().__init__(text)

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        if tag == "table" and ("class", "spikes") in attrs:
            self._in_spikes = True
        if self._in_spikes and tag == "tr":
            self._row = []

    def handle_endtag(self, tag):
        super().handle_endtag(tag)
        if self._in_spikes and tag == "tr":
            self.spike_rows.append(self._row)
            self._row = None
        if tag == "table":
            self._in_spikes = False

    def handle_data(self, data):
        super().handle_data(data)
        if self._row is not None:
            self._row.append(data)


def _check_renders(page):
    return check_renders(page, parser=Page)


def _table(seed=0):
    """40% of ``NAME`` at exactly 12; the rest uniform on [0, 25) except 60 values each
    held by 3 rows (exact repeated values far below the threshold: never shown)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 25, N)
    rare = np.round(rng.uniform(0.5, 24.5, 60), 3) + 0.0001
    x[: 3 * len(rare)] = np.repeat(rare, 3)
    x = np.where(rng.random(N) < 0.4, 12.0, x)
    return pd.DataFrame({NAME: x, "c": rng.choice(["a", "b"], N)}), rare


def _fit(X, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SaddlePointSynthesizer(
            domain={NAME: {"low": 0, "high": 25}, "c": ["a", "b"]}, epsilon=EPSILON,
            delta=DELTA, solver="smd", n_iter=50, random_state=0,
            accountant=BudgetAccountant(), **kw).fit(X)


@pytest.fixture(scope="module")
def spiky():
    X, rare = _table()
    return _fit(X), X, rare


def test_a_released_spike_is_shown_with_its_noisy_count_and_the_threshold(spiky):
    est, X, rare = spiky
    grid = est.resolution_[NAME]
    assert 12.0 in grid["spikes"]["values"]  # the premise: a 40% spike at large epsilon
    synthetic = est.sample(random_state=1)
    spy = Spy(est)
    page = rep.release_report(spy, synthetic=synthetic)
    parsed = _check_renders(page)
    # a chart per column, the fine grid's, the spikes', the fit's
    assert parsed.tags.count("svg") == 2 + 1 + 1 + 1
    assert f"{NAME}: released spikes" in " ".join(parsed.text)
    # the table: one row per released spike (header first), value, noisy count, threshold
    head, *rows = parsed.spike_rows
    assert head[:3] == ["value", "noisy count", "threshold"]
    assert "synthetic rows at the value" in head
    spikes = dict(zip(grid["spikes"]["values"], grid["spikes"]["counts"]))
    assert sorted(float(r[0]) for r in rows) == sorted(spikes)
    row = next(r for r in rows if float(r[0]) == 12.0)
    assert float(row[1]) == pytest.approx(spikes[12.0], rel=1e-5)  # released, 6 digits
    assert float(row[2]) == pytest.approx(grid["spike_threshold"], rel=1e-5)
    syn_at_12 = int((synthetic[NAME] == 12.0).sum())
    assert int(row[head.index("synthetic rows at the value")]) == syn_at_12 > 0
    # the chart's bar of the noisy spike: its released share of the grid's noisy total
    share = spikes[12.0] / np.sum(grid["counts"])
    assert f"noisy measurement, 12: {share:.3g}" in page
    # only published attributes were read
    allowed = set(est.published_attributes()) | set(est.get_params()) | {"_columns"}
    assert spy.read <= allowed, spy.read - allowed
    # only released values: none of the repeated values the threshold dropped is listed
    shown = {float(r[0]) for r in rows}
    assert not shown & {float(v) for v in rare}
    assert shown <= set(grid["spikes"]["values"])
    # the escaped name, shown as text
    assert NAME in "".join(parsed.text) and 'educ<"' not in page


def test_the_threshold_is_the_public_stability_threshold(spiky):
    """The published threshold is a function of public quantities: the noise's sigma
    (epsilon, delta, ``resolution_share``, the number of columns) and ``key_delta``."""
    est, _, _ = spiky
    # smd: a Gaussian-only fit, planned in GDP: the fine grid's share of mu**2 (issue 30)
    mu = approx_dp_to_gdp(EPSILON, (1 - SPIKE_DELTA_SHARE) * DELTA)
    rho = RESOLUTION_SHARE * mu * mu / 2
    sigma = fine_noise(1, 1, rho, "replace_one")[1]
    expected = stability_threshold(sigma, key_delta(SPIKE_DELTA_SHARE * DELTA, 1,
                                                    "replace_one"))
    assert est.resolution_[NAME]["spike_threshold"] == pytest.approx(expected, rel=1e-6)


def test_without_synthetic_rows_the_spikes_show_the_release_only(spiky):
    est, _, _ = spiky
    parsed = _check_renders(est.report())
    head, *rows = parsed.spike_rows
    assert head == ["value", "noisy count", "threshold", "noisy share"]
    assert any(float(r[0]) == 12.0 for r in rows)


def _without_spike_release(est):
    clone = copy.deepcopy(est)
    for grid in clone.resolution_.values():
        grid.pop("spikes", None)
        grid.pop("spike_threshold", None)
    return clone


def test_a_table_without_spikes_renders_as_before():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({NAME: rng.uniform(0, 25, N), "c": rng.choice(["a", "b"], N)})
    est = _fit(X)
    assert est.resolution_[NAME]["spikes"]["values"] == []  # the premise: none released
    synthetic = est.sample(random_state=1)
    page = est.report(synthetic=synthetic)
    assert page == rep.release_report(_without_spike_release(est), synthetic=synthetic)
    parsed = _check_renders(page)
    assert parsed.tags.count("svg") == 2 + 1 + 1
    assert not parsed.spike_rows and "released spikes" not in page


def test_many_spikes_are_capped_in_the_chart_and_the_table(spiky):
    est, _, _ = spiky
    fake = copy.deepcopy(est)
    k = rep.MAX_SPIKE_ROWS + 50
    values = np.linspace(0.5, 24.5, k)
    fake.resolution_[NAME]["spikes"] = {"values": values.tolist(),
                                        "counts": np.arange(k, dtype=float).tolist()}
    parsed = _check_renders(rep.release_report(fake))
    _, *rows = parsed.spike_rows
    assert len(rows) == rep.MAX_SPIKE_ROWS
    assert [float(r[0]) for r in rows] == pytest.approx(values[-rep.MAX_SPIKE_ROWS:].tolist())
    text = " ".join(parsed.text)
    assert f"the {rep.MAX_PANEL_CELLS} largest shown" in text
