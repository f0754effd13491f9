"""Dates written otherwise than ISO (``1/31/2002``, ``31.01.2002``): a date or timestamp entry
with a ``"format"`` (a strptime format) reads the cells and the bounds with it and writes the
synthetic values with it; the draft proposes one for a column of such dates (issue 30, item 2:
before, Stat2Data ``Marathon``'s 899 run dates were drafted as 899 categories)."""

import csv
import datetime
import json

import pytest

from skdp._cli.clock import clock_format, date_format, time_span
from skdp._cli.domain import CsvCells, check_domain, draft_entry, estimator_domain
from skdp._cli.draft import propose_entry
from skdp.__main__ import main

US = {"low": "1/1/2016", "high": "12/31/2016", "date": True, "format": "%m/%d/%Y"}


def test_cells_are_read_and_written_in_the_format():
    col = CsvCells("day", US)
    v = col.parse("3/1/2016")
    assert v == (datetime.date(2016, 3, 1) - datetime.date(1970, 1, 1)).days
    assert col.parse("03/01/2016") == v and col.format(v) == "03/01/2016"
    assert estimator_domain({"day": US}) == {"day": {"low": 16801, "high": 17166,
                                                     "integer": True}}
    with pytest.raises(ValueError, match="'day' is a date column in the domain but the cell "
                                         "is not a date in the format '%m/%d/%Y'"):
        col.parse("2016-03-01")
    stamp = CsvCells("t", {"low": "01.01.2016 00:00", "high": "31.12.2016 23:59",
                           "datetime": True, "format": "%d.%m.%Y %H:%M"})
    assert stamp.format(stamp.parse("29.02.2016 14:05")) == "29.02.2016 14:05"


@pytest.mark.parametrize("fmt, match", [
    (3, "strptime format such as"), ("mdY", "strptime format such as"),
    ("%m/%d/%Y %z", "cannot hold a time zone")])
def test_a_bad_format_names_the_column(fmt, match):
    with pytest.raises(ValueError, match=match) as err:
        check_domain({"day": {**US, "format": fmt}}, ["day"])
    assert "'day'" in str(err.value)
    with pytest.raises(ValueError, match="'low' must be a date in the format"):
        check_domain({"day": {**US, "low": "2016-01-01"}}, ["day"])
    with pytest.raises(ValueError, match="unknown keys \\['format'\\]"):
        check_domain({"x": {"low": 0, "high": 1, "format": "%Y"}}, ["x"])


def test_date_formats_are_told_apart():
    assert date_format(["25/12/2015", "1/2/2016"]) == ("%d/%m/%Y", False)
    assert date_format(["12/25/2015", "1/2/2016"]) == ("%m/%d/%Y", False)
    assert date_format(["1/2/2016", "3/4/2016"]) == ("%m/%d/%Y", True)  # no day above 12
    assert date_format(["1.2.2016"]) == ("%d.%m.%Y", True)
    assert date_format(["2016/2/1"]) == ("%Y/%m/%d", False)
    for cells in (["1/2/2016", "1.2.2016"], ["2/30/2016"], ["13/25/2016"], ["1/2/16"], []):
        assert date_format(cells) is None
    assert time_span(["12/1/2015", "1/30/2016", "6/5/2015"])[1:] == \
        ("6/5/2015", "1/30/2016", "%m/%d/%Y", False)


def test_the_draft_proposes_a_formatted_date_column():
    entry = propose_entry(["25.12.2015", "1.2.2016", None, "14.7.2015"])
    assert {k: entry[k] for k in ("low", "high", "date", "format", "missing")} == {
        "low": "14.7.2015", "high": "1.2.2016", "date": True, "format": "%d.%m.%Y",
        "missing": True}
    assert "dates written %d.%m.%Y" in entry["note"] and "check which" not in entry["note"]
    check_domain({"d": entry}, ["d"])
    ambiguous = propose_entry(["1/2/2016", "3/4/2016"])
    assert ambiguous["format"] == "%m/%d/%Y" and "check which comes first" in ambiguous["note"]
    assert draft_entry(["1/2/2016", "3/4/2016"], 10)["format"] == "%m/%d/%Y"  # no file


def test_a_release_writes_formatted_dates_within_the_bounds(tmp_path, capsys):
    days = [datetime.date(2016, 1, 1) + datetime.timedelta(days=(7 * i) % 300) for i in range(400)]
    rows = [[f"{d.month}/{d.day}/{d.year}", "ab"[i % 2]] for i, d in enumerate(days)]
    src, dom, out = tmp_path / "in.csv", tmp_path / "d.json", tmp_path / "o.csv"
    with open(src, "w", newline="") as fh:
        csv.writer(fh).writerows([["day", "kind"], *rows])
    dom.write_text(json.dumps({"day": US, "kind": ["a", "b"]}))
    assert main(["synthesize", str(src), "-o", str(out), "--domain", str(dom), "--epsilon", "2",
                 "--seed", "0", "--quiet", "--holdout", str(src)]) == 0
    assert "holdout marginal error" in capsys.readouterr().out
    with open(out, newline="") as fh:
        cells = [r[0] for r in list(csv.reader(fh))[1:]]
    got = [datetime.datetime.strptime(c, "%m/%d/%Y").date() for c in cells]
    assert len(got) == 400 and min(got) >= datetime.date(2016, 1, 1)
    assert max(got) <= datetime.date(2016, 12, 31)


def test_times_of_day_are_a_timestamp_column_in_their_format(tmp_path, capsys):
    assert clock_format(["2:55:10", "23:59:59"]) == "%H:%M:%S"
    assert clock_format(["7:05", "17:45"]) == "%H:%M"
    for cells in (["38:31:00"], ["7:05", "7:05:00"], ["12:60"], ["noon"]):
        assert clock_format(cells) is None
    entry = propose_entry(["02:55:10", "2:31:38", None])
    assert {k: entry[k] for k in ("low", "high", "datetime", "format")} == {
        "low": "2:31:38", "high": "02:55:10", "datetime": True, "format": "%H:%M:%S"}
    assert "times of day written %H:%M:%S" in entry["note"] and "public times" in entry["note"]
    rows = [[f"{8 + i % 12}:{i % 60:02d}", "ab"[i % 2]] for i in range(300)]
    src, dom, out = tmp_path / "in.csv", tmp_path / "d.json", tmp_path / "o.csv"
    with open(src, "w", newline="") as fh:
        csv.writer(fh).writerows([["at", "kind"], *rows])
    dom.write_text(json.dumps({"at": {"low": "08:00", "high": "20:00", "datetime": True,
                                      "format": "%H:%M"}, "kind": ["a", "b"]}))
    assert main(["synthesize", str(src), "-o", str(out), "--domain", str(dom), "--seed", "0",
                 "--quiet"]) == 0
    capsys.readouterr()
    with open(out, newline="") as fh:
        cells = [r[0] for r in list(csv.reader(fh))[1:]]
    assert len(cells) == 300 and all("08:00" <= c <= "20:00" and len(c) == 5 for c in cells)


def test_a_forbid_on_a_date_column_is_written_as_its_cells(tmp_path, capsys):
    day = {"low": "1/1/1970", "high": "1/20/1970", "date": True, "format": "%m/%d/%Y",
           "n_bins": 2}
    domain = {"day": day, "kind": ["a", "b"],
              "forbid": [{"kind": "b", "day": {"<": "1/11/1970"}}]}
    check_domain(domain, ["day", "kind"])
    assert estimator_domain(domain)["forbid"] == [{"kind": "b", "day": {"<": 10}}]
    with pytest.raises(ValueError, match="the value '1970-01-11' of column 'day' is not a "
                                         "date in the format '%m/%d/%Y'"):
        check_domain({**domain, "forbid": [{"kind": "b", "day": {"<": "1970-01-11"}}]},
                     ["day", "kind"])
    rows = [[f"1/{1 + i % 20}/1970", "ab"[i % 2]] for i in range(400)]
    src, dom, out = tmp_path / "in.csv", tmp_path / "d.json", tmp_path / "o.csv"
    with open(src, "w", newline="") as fh:
        csv.writer(fh).writerows([["day", "kind"], *rows])
    dom.write_text(json.dumps(domain))
    assert main(["synthesize", str(src), "-o", str(out), "--domain", str(dom), "--seed", "0",
                 "--quiet"]) == 0
    capsys.readouterr()
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))[1:]
    got = [(datetime.datetime.strptime(d, "%m/%d/%Y").day, k) for d, k in rows if d]
    assert len(rows) == 400 and any(k == "b" for _, k in got)
    assert not any(k == "b" and d < 11 for d, k in got)


def test_dates_written_with_a_time_of_day():
    """openintro ``birds``' 3,124 dates written ``11/29/1996 0:00:00`` were drafted as
    categories (and found privately as ``<other>``): midnight in every cell is a date whose
    format keeps that time as written; other times make a timestamp column in its format."""
    midnight = ["11/29/1996 0:00:00", "9/29/1996 0:00:00", None]
    assert time_span([c for c in midnight if c]) == (
        "date", "9/29/1996 0:00:00", "11/29/1996 0:00:00", "%m/%d/%Y 0:00:00", False)
    entry = propose_entry(midnight)
    col = CsvCells("d", entry)
    assert col.format(col.parse("10/1/1996 0:00:00")) == "10/01/1996 0:00:00"
    stamp = propose_entry(["29.11.1996 14:05", "1.12.1996 0:00"])
    assert (stamp["datetime"], stamp["format"]) == (True, "%d.%m.%Y %H:%M")
    assert "timestamps written %d.%m.%Y %H:%M" in stamp["note"]
    assert time_span(["2016-11-08 10:00:00"])[3] is None  # ISO: read as ISO, as before
    assert time_span(["11/29/1996 0:00:00", "11/29/1996"]) is None  # not alike
