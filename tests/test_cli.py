"""Tests of ``python -m skdp synthesize``."""

import csv
import json
import subprocess
import sys

import pytest

from skdp.__main__ import main


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


def test_main_job_on_bundled_table(tmp_path, capsys):
    out = tmp_path / "synthetic.csv"
    assert main(["synthesize", "-o", str(out), "--seed", "0", "--quiet"]) == 0
    rows = _rows(out)
    assert rows[0][-1] == "diagnosis" and len(rows) == 1 + 569
    assert {r[-1] for r in rows[1:]} <= {"malignant", "benign"}
    text = capsys.readouterr().out
    assert "privacy spent: epsilon=" in text and "holdout" not in text


def test_module_entry_point_runs(tmp_path):
    out = tmp_path / "s.csv"
    proc = subprocess.run([sys.executable, "-m", "skdp", "synthesize", "-o", str(out),
                           "--seed", "1", "--quiet", "--n-samples", "20"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(_rows(out)) == 21


def _write(path, header, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def test_csv_with_domain_holdout_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    header = ["age", "city", "visits"]
    rows = [[20 + i % 50, ["a", "b", "c"][i % 3], i % 5] for i in range(300)]
    _write(tmp_path / "in.csv", header, rows[:200])
    _write(tmp_path / "hold.csv", header, rows[200:])
    (tmp_path / "d.json").write_text(json.dumps(
        {"age": {"low": 18, "high": 90}, "city": ["a", "b", "c"], "visits": [0, 1, 2, 3, 4]}))
    out, png = tmp_path / "o.csv", tmp_path / "p.png"
    code = main(["synthesize", str(tmp_path / "in.csv"), "-o", str(out), "--epsilon", "2",
                 "--domain", str(tmp_path / "d.json"), "--holdout", str(tmp_path / "hold.csv"),
                 "--plot", str(png), "--seed", "0", "--n-bins", "5", "--quiet"])
    assert code == 0
    text = capsys.readouterr().out
    assert "holdout marginal error" in text and png.exists()
    got = _rows(out)
    assert got[0] == header and len(got) == 201
    assert all(18 <= int(r[0]) <= 90 and r[1] in "abc" and 0 <= int(r[2]) <= 4 for r in got[1:])


def test_missing_domain_warns_and_bad_csv_errors(tmp_path, capsys):
    _write(tmp_path / "in.csv", ["x", "y"], [[1.5, "a"], [2.5, "b"], [0.5, "a"]])
    assert main(["synthesize", str(tmp_path / "in.csv"), "-o", str(tmp_path / "o.csv"),
                 "--seed", "0", "--quiet"]) == 0
    assert "derived from the private data" in capsys.readouterr().err
    _write(tmp_path / "bad.csv", ["x", "y"], [[1.5, "a"], ["", "b"]])
    assert main(["synthesize", str(tmp_path / "bad.csv"), "-o", str(tmp_path / "o.csv"),
                 "--quiet"]) == 2
    assert "missing value" in capsys.readouterr().err
    assert main(["synthesize", "-o", str(tmp_path / "o.csv"), "--epsilon", "0", "--quiet"]) == 2
