"""Date columns of the command line (issue 30, item 2: a draft that serves the user): a domain
entry ``{"low": "2015-11-01", "high": "2016-11-08", "date": true}`` reads ISO dates as days
from 1970-01-01 (an integer column with public bounds for the estimator) and writes the
synthetic values back as ISO dates; the draft proposes it for a column of ISO dates (before,
352 poll start dates were drafted as 352 categories)."""

import csv
import datetime
import json

import pytest

from skdp._cli.domain import CsvCells, check_domain, estimator_domain, is_date
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
    assert status != 0 and "['day'] are date columns" in err and "in-memory CSV job" in err
