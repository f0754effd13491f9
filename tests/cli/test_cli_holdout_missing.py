"""A holdout's missing cell in a column declared ``"missing": false`` stops the command
before the fit (naming the file, line and column), not after the synthetic file is written
(the reserved-table check of issue 30 saw exit 1 with the release already on disk)."""

import csv
import json

from skdp.__main__ import main


def _files(tmp_path):
    header = ["age", "city"]
    rows = [[20 + i % 50, ["a", "b", "c"][i % 3]] for i in range(300)]
    rows[250][1] = ""  # the holdout's line 52 (header on line 1)
    for name, part in (("in.csv", rows[:200]), ("hold.csv", rows[200:])):
        with open(tmp_path / name, "w", newline="") as fh:
            csv.writer(fh).writerows([header] + part)
    (tmp_path / "d.json").write_text(json.dumps(
        {"age": {"low": 18, "high": 90, "integer": True, "missing": False},
         "city": {"categories": ["a", "b", "c"], "missing": False}}))


def _run(tmp_path, *extra):
    return main(["synthesize", str(tmp_path / "in.csv"), "-o", str(tmp_path / "o.csv"),
                 "--epsilon", "2", "--domain", str(tmp_path / "d.json"), "--holdout",
                 str(tmp_path / "hold.csv"), "--seed", "0", "--quiet", *extra])


def test_a_missing_holdout_cell_stops_before_the_fit(tmp_path, capsys):
    _files(tmp_path)
    assert _run(tmp_path) != 0
    err = capsys.readouterr().err
    assert "hold.csv, line 52" in err and "'city'" in err and "--missing drop" in err
    assert not (tmp_path / "o.csv").exists()


def test_with_missing_drop_the_release_and_its_holdout_report_run(tmp_path, capsys):
    _files(tmp_path)
    assert _run(tmp_path, "--missing", "drop") == 0, capsys.readouterr().err
    assert "holdout marginal error" in capsys.readouterr().out
    assert (tmp_path / "o.csv").exists()
