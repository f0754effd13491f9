"""Date and timestamp columns of the command line (issue 30, item 2: a draft that serves the
user): a domain entry ``{"low": "2015-11-01", "high": "2016-11-08", "date": true}`` reads ISO
dates as days from 1970-01-01, ``{"low": "2012-01-01T00:00:00Z", ..., "datetime": true}`` ISO
timestamps as seconds (an integer column with public bounds for the estimator), and writes the
synthetic values back in the same form; the draft proposes them for a column of ISO dates or
timestamps (before, 352 poll start dates were drafted as 352 categories, and 3,900 e-mail
times as 3,900)."""

import csv
import datetime
import json

import numpy as np
import pytest

from skdp._cli.clock import is_date
from skdp._cli.domain import CsvCells, check_domain, estimator_domain
from skdp._cli.draft import propose_entry
from skdp.__main__ import main

ENTRY = {"low": "2016-01-01", "high": "2016-12-31", "date": True, "missing": True}


def _write(path, rows):
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([["day", "kind"], *rows])
    return str(path)


def test_cells_are_read_as_days_and_written_as_dates():
    col = CsvCells("day", ENTRY)
    assert (col.form, col.integer, col.width) == ("bounds", True, 10)
    v = col.parse("2016-03-01")
    assert v == (datetime.date(2016, 3, 1) - datetime.date(1970, 1, 1)).days
    assert col.format(v) == "2016-03-01" and col.format(v + 0.4) == "2016-03-01"
    assert col.format(float("nan")) == ""
    with pytest.raises(ValueError, match="column 'day' is a date column .* ISO date"):
        col.parse("03/01/2016")


def test_the_estimator_gets_integer_days_and_bad_entries_name_the_column():
    assert estimator_domain({"day": ENTRY, "kind": ["a", "b"]}) == {
        "day": {"low": 16801, "high": 17166, "missing": True, "integer": True},
        "kind": ["a", "b"]}
    check_domain({"day": ENTRY}, ["day"])
    for bad, match in (({"low": "2016-1-1"}, "'low' must be an ISO date"),
                       ({"high": 20161231}, "'high' must be an ISO date"),
                       ({"integer": False}, "cannot say \"integer\": false")):
        with pytest.raises(ValueError, match=match) as err:
            check_domain({"day": {**ENTRY, **bad}}, ["day"])
        assert "'day'" in str(err.value)
    with pytest.raises(ValueError, match="needs \"low\" and \"high\""):
        check_domain({"day": {"date": True}}, ["day"])


def test_the_draft_proposes_a_date_column():
    assert is_date("2016-02-29") and not is_date("2015-02-29")
    assert not is_date("2016-11-08T06:00:42Z")  # a time of day: not a date column
    entry = propose_entry(["2016-11-08", "2015-11-06", None, "2016-01-15"])
    assert (entry["low"], entry["high"], entry["date"], entry["missing"]) == \
        ("2015-11-06", "2016-11-08", True, True)
    assert "first and last day" in entry["note"]
    check_domain({"d": entry}, ["d"])
    assert "categories" in propose_entry(["2016-11-08", "tomorrow"])


def test_a_release_writes_dates_within_the_bounds(tmp_path, capsys):
    days = [datetime.date(2016, 1, 1) + datetime.timedelta(days=(7 * i) % 300) for i in range(400)]
    rows = [[d.isoformat() if i % 10 else "", "ab"[i % 2]] for i, d in enumerate(days)]
    src, dom, out = _write(tmp_path / "in.csv", rows), tmp_path / "d.json", tmp_path / "o.csv"
    dom.write_text(json.dumps({"day": ENTRY, "kind": ["a", "b"]}))
    assert main(["synthesize", src, "-o", str(out), "--domain", str(dom), "--epsilon", "2",
                 "--seed", "0", "--quiet"]) == 0
    capsys.readouterr()
    with open(out, newline="") as fh:
        got = list(csv.reader(fh))[1:]
    cells = [r[0] for r in got if r[0]]
    assert len(got) == 400 and cells and all(is_date(c) for c in cells)
    assert "2016-01-01" <= min(cells) and max(cells) <= "2016-12-31"
    assert any(r[0] == "" for r in got)  # the missing cell kept


def test_the_dask_job_refuses_date_columns_before_reading(tmp_path, capsys):
    pytest.importorskip("dask.dataframe")
    _write(tmp_path / "in-0.csv", [["2016-03-01", "a"]])
    dom = tmp_path / "d.json"
    dom.write_text(json.dumps({"day": ENTRY, "kind": ["a", "b"]}))
    status = main(["synthesize", str(tmp_path / "in-*.csv"), "-o", str(tmp_path / "o-*.csv"),
                   "--domain", str(dom), "--quiet"])
    err = capsys.readouterr().err
    assert status != 0 and "['day'] are date or timestamp columns" in err
    assert "in-memory CSV job" in err


STAMP = {"low": "2012-01-01T00:00:00Z", "high": "2012-12-31T23:59:59Z", "datetime": True}


def test_timestamps_are_read_as_seconds_and_written_in_the_bounds_form():
    col = CsvCells("time", STAMP)
    assert (col.form, col.integer, col.width) == ("bounds", True, 20)
    v = col.parse("2012-01-01T06:16:41Z")
    assert v == (datetime.datetime(2012, 1, 1, 6, 16, 41) -
                 datetime.datetime(1970, 1, 1)).total_seconds()
    assert col.format(v) == "2012-01-01T06:16:41Z" and col.format(v + 0.4) == col.format(v)
    assert col.parse("2012-01-01T07:16:41+01:00") == v  # the UTC instant it names
    assert col.parse("2012-01-01T06:16:41.600Z") == v + 1  # the second is the resolution
    for cell, match in (("2012-01-01T06:16:41", "with a time zone .* the cell has none"),
                        ("2012-01-01", "is not an ISO timestamp")):
        with pytest.raises(ValueError, match=f"line 3: column 'time' .*{match}"):
            col.parse(cell, "line 3")
    naive = CsvCells("time", {"low": "2012-01-01 00:00", "high": "2012-12-31 23:59",
                              "datetime": True})
    assert naive.format(naive.parse("2012-03-04 05:06:07")) == "2012-03-04 05:06:07"
    with pytest.raises(ValueError, match="without a time zone .* the cell has one"):
        naive.parse("2012-03-04 05:06:07Z")


def test_bad_timestamp_entries_name_the_column():
    assert estimator_domain({"time": STAMP})["time"] == \
        {"low": 1325376000, "high": 1356998399, "integer": True}
    for bad, match in (({"low": "2012-01-01"}, "'low' must be an ISO timestamp"),
                       ({"high": "2012-12-31T23:59:59"}, "both carry a time zone or neither"),
                       ({"date": True}, "says both \"date\" and \"datetime\""),
                       ({"integer": False}, "whole seconds, it cannot say")):
        with pytest.raises(ValueError, match=match) as err:
            check_domain({"time": {**STAMP, **bad}}, ["time"])
        assert "'time'" in str(err.value)


def test_the_draft_proposes_a_timestamp_column():
    entry = propose_entry(["2012-03-01T10:00:00Z", None, "2012-01-01T06:16:41Z"])
    assert (entry["low"], entry["high"], entry["datetime"], entry["missing"]) == \
        ("2012-01-01T06:16:41Z", "2012-03-01T10:00:00Z", True, True)
    assert "first and last instant" in entry["note"]
    check_domain({"t": entry}, ["t"])
    # zoned and unzoned cells together, or a stray word: categories
    assert "categories" in propose_entry(["2012-03-01T10:00:00Z", "2012-03-01T10:00:00"])
    assert "categories" in propose_entry(["2012-03-01 10:00", "soon"])


def test_a_release_writes_timestamps_within_the_bounds(tmp_path, capsys):
    start = datetime.datetime(2012, 1, 1)
    rows = [[(start + datetime.timedelta(seconds=7919 * i)).isoformat(sep=" "), "ab"[i % 2]]
            for i in range(400)]
    src, dom, out = _write(tmp_path / "in.csv", rows), tmp_path / "d.json", tmp_path / "o.csv"
    dom.write_text(json.dumps({"day": {"low": "2012-01-01 00:00:00",
                                       "high": "2012-02-07 00:00:00", "datetime": True,
                                       "missing": False}, "kind": ["a", "b"]}))
    assert main(["synthesize", src, "-o", str(out), "--domain", str(dom), "--epsilon", "2",
                 "--seed", "0", "--quiet"]) == 0
    capsys.readouterr()
    with open(out, newline="") as fh:
        cells = [r[0] for r in list(csv.reader(fh))[1:]]
    assert len(cells) == 400 and all(len(c) == 19 and c[10] == " " for c in cells)
    assert "2012-01-01 00:00:00" <= min(cells) and max(cells) <= "2012-02-07 00:00:00"


def test_the_report_writes_a_date_columns_values_as_dates(tmp_path, capsys):
    """``--report``: a date column's panels (model bins, fine grid, spikes) are labelled with
    ISO dates, not days from 1970-01-01 (the figures are the same: formatting only)."""
    days = [datetime.date(2016, 1, 1) + datetime.timedelta(days=(7 * i) % 300)
            for i in range(400)]
    rows = [[d.isoformat(), "ab"[i % 2]] for i, d in enumerate(days)]
    src, dom = _write(tmp_path / "in.csv", rows), tmp_path / "d.json"
    dom.write_text(json.dumps({"day": {**ENTRY, "missing": False}, "kind": ["a", "b"]}))
    page_path = tmp_path / "r.html"
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--domain", str(dom),
                 "--epsilon", "2", "--seed", "0", "--quiet", "--report", str(page_path)]) == 0
    capsys.readouterr()
    page = page_path.read_text()
    assert "[2016-01-01, " in page and "2016-12-31" in page
    assert "16801" not in page.split("<h3>The domain</h3>")[0]  # no day number on an axis
    domain = page.split("<h3>The domain</h3>")[1].split("</table>")[0]
    assert "= [2016-01-01, 2016-12-31]" in domain  # the day numbers' bounds, as dates


def test_report_labels_name_fitted_columns():
    from skdp import BudgetAccountant, SaddlePointSynthesizer

    rng = np.random.default_rng(0)
    X = np.c_[rng.integers(0, 10, 200), rng.integers(0, 2, 200)]
    est = SaddlePointSynthesizer(domain={0: {"low": 0, "high": 9, "integer": True}, 1: [0, 1]},
                                 random_state=0, accountant=BudgetAccountant()).fit(X)
    page = est.report(labels={0: lambda v: f"<{v:g}>"})
    assert "&lt;0&gt;" in page
    with pytest.raises(ValueError, match="labels names column.*'day'"):
        est.report(labels={"day": str})
    with pytest.raises(TypeError, match="a function"):
        est.report(labels={0: "%d"})


def test_without_a_domain_file_timestamps_are_not_copied(tmp_path, capsys):
    """The no-domain path (leak-warned) reads a timestamp column as a datetime column on its
    first and last instant, not as one category per cell (which copied every timestamp)."""
    start = datetime.datetime(2012, 1, 1)
    stamps = [(start + datetime.timedelta(seconds=7919 * i)).isoformat() + "Z"
              for i in range(300)]
    src, out = _write(tmp_path / "in.csv", [[t, "ab"[i % 2]] for i, t in enumerate(stamps)]), \
        tmp_path / "o.csv"
    assert main(["synthesize", src, "-o", str(out), "--epsilon", "2", "--seed", "0",
                 "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "PrivacyLeakWarning" in err and "['day', 'kind']" in err
    with open(out, newline="") as fh:
        cells = [r[0] for r in list(csv.reader(fh))[1:]]
    assert all(c.endswith("Z") and len(c) == 20 for c in cells)
    assert min(stamps) <= min(cells) and max(cells) <= max(stamps)
    assert len(set(cells) & set(stamps)) < len(cells) / 10  # not copies of the data's


def test_the_plot_labels_a_date_columns_bins_with_dates(tmp_path, capsys):
    """``--plot``: the bins of a date column are labelled by their first day."""
    from skdp._cli.plot import Marginals

    write = CsvCells("day", ENTRY).format
    m = Marginals({"day": {"low": 16801, "high": 17166, "n_bins": 2}}, ["day"], 10,
                  {"day": write})
    assert m.bins[0].labels == ["2016-01-01", "2016-07-02", "NA"]
    pytest.importorskip("matplotlib")
    days = [datetime.date(2016, 1, 1) + datetime.timedelta(days=(7 * i) % 300)
            for i in range(200)]
    src = _write(tmp_path / "in.csv", [[d.isoformat(), "ab"[i % 2]] for i, d in enumerate(days)])
    dom = tmp_path / "d.json"
    dom.write_text(json.dumps({"day": {**ENTRY, "missing": False}, "kind": ["a", "b"]}))
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--domain", str(dom),
                 "--epsilon", "2", "--seed", "0", "--quiet", "--plot",
                 str(tmp_path / "p.png")]) == 0
    capsys.readouterr()
    assert (tmp_path / "p.png").stat().st_size > 0
