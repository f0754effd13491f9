"""Tests of ``python -m skdp`` (``synthesize`` and ``domain``).

The first part tests the CLI's own logic (arguments, CSV reading and typing by
domain, drafts, writing, messages) on a stand-in estimator; the second runs the
real :class:`~skdp.synthesizer.SaddlePointSynthesizer` end to end.
"""

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

import skdp
from skdp._cli import commands
from skdp._cli.domain import CsvCells, check_domain, draft_entry
from skdp._cli.draft import propose_entry
from skdp.__main__ import main


def _write(path, header, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return str(path)


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


class FakeSynth:
    """Stand-in for SaddlePointSynthesizer: the contract's surface, resampling the input rows."""

    last = None

    def __init__(self, **params):
        self.params = params
        FakeSynth.last = self

    def set_params(self, **params):
        self.params.update(params)
        return self

    # the reservation the CLI makes before reading a row (skdp._base.reserve_fit), on an
    # accountant of its own: the fake's fit takes it over and charges it
    def _claim(self):
        self.accountant = skdp.BudgetAccountant()
        return self.accountant, 1.0, 1e-6, None

    def _spend_record(self, seed=None):
        return dict(label="FakeSynth", seed=seed)

    def fit(self, X, y=None, feature_names=None):
        self.__dict__.pop("_held_reservation").charge(1.0, 1e-6, label="FakeSynth")
        self.X, self.feature_names = X, feature_names
        self.n_records_ = len(X)
        self.domain_ = {k: v for k, v in self.params["domain"].items()}
        self.privacy_spent_, self.privacy_method_ = (1.0, 1e-6), "fake"
        self.marginals_, self.domain_shape_, self.n_iter_ = [], (1,), 0
        self.batches = []
        return self

    def iter_sample(self, n_samples=None, *, batch_size=100_000, random_state=None):
        rng = np.random.default_rng(0)
        left = self.n_records_ if n_samples is None else n_samples
        while left > 0:
            k = min(left, batch_size)
            self.batches.append(k)
            yield self.X[rng.integers(0, len(self.X), k)]
            left -= k

    def workload_error(self, X):
        return {(self.feature_names[0],): 0.0}


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(commands, "estimator_class", lambda: FakeSynth)
    return FakeSynth


HEADER = ["age", "smoker", "city", "score"]
ROWS = [[30 + i % 40, ["TRUE", "FALSE"][i % 2], ["Lyon", "Paris", ""][i % 3],
         ["1.5", "NA", "2"][i % 3]] for i in range(60)]
# the same, "score" with 20 distinct numbers in 1.5..1.975 (a draft gives it bounds)
FINE_ROWS = [[*r[:3], "NA" if i % 3 == 1 else f"{1.5 + (i % 20) / 40:g}"]
             for i, r in enumerate(ROWS)]


# ------------------------------------------------------------ the CLI's own logic
def test_help_is_plain_text_with_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["synthesize", "--help"])
    text = capsys.readouterr().out
    assert "``" not in text and ":class:" not in text
    assert "(default: 1.0)" in text and "(default: keep)" in text
    assert '{"low": 0, "high": 90' in text and "private-pgm" in text
    for flag in ("--max-categories K|none", "--bin-strategy", "--solver-options JSON"):
        assert flag in text
    assert "(default: 100)" in text and "(default: fine)" in text


@pytest.mark.parametrize("option", [["--n-bins", "0"], ["--n-samples", "-1"],
                                    ["--workload", "0"], ["--epsilon", "nan"],
                                    ["--missing", "fill"], ["--max-categories", "1"],
                                    ["--max-categories", "many"], ["--bin-strategy", "kmeans"],
                                    ["--solver-options", "{max_rounds: 3}"],
                                    ["--solver-options", "[1, 2]"]])
def test_bad_numbers_are_refused_by_the_parser(tmp_path, option, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["synthesize", "-o", str(tmp_path / "o.csv")] + option)
    assert exc.value.code == 2 and option[0] in capsys.readouterr().err


def test_arguments_are_checked_before_the_data_is_read(tmp_path, fake, capsys):
    # the data rows are broken: each error below must come from the arguments, not the rows
    src = tmp_path / "in.csv"
    src.write_text("a,b\n1,2,3\n")
    _write(tmp_path / "hold.csv", ["a", "c"], [[1, 2]])
    out = str(tmp_path / "o.csv")
    cases = [
        (["--holdout", str(tmp_path / "hold.csv")], "holdout"),
        (["--epsilon", "0"], "epsilon"),
        (["--delta", "1"], "delta"),
        (["--domain", str(tmp_path / "nope.json")], "nope.json"),
        (["-o", str(tmp_path / "no" / "o.csv")], "does not exist"),
        (["-o", str(src)], "overwrite the input"),
        (["--n-samples", str(10 ** 16)], "GB"),
        (["--solver-options", '{"max_round": 3}'], "--solver-options: unknown option"),
        (["--solver-options", '{"max_rounds": "x"}', "--solver", "aim"], "--solver-options"),
        (["--solver-options", '{"max_rounds": 3}', "--solver", "mst"], "'estimate_iter'"),
    ]
    for extra, expected in cases:
        assert main(["synthesize", str(src), "-o", out] + extra) == 2
        err = capsys.readouterr().err
        assert expected in err and "fields" not in err, (extra, err)
    assert FakeSynth.last is None and not (tmp_path / "o.csv").exists()


def test_estimator_options_reach_the_estimator(tmp_path, fake, capsys):
    src = _write(tmp_path / "in.csv", HEADER, ROWS)
    out = str(tmp_path / "o.csv")
    assert main(["synthesize", src, "-o", out, "--quiet"]) == 0
    params = FakeSynth.last.params
    assert params["max_categories"] == 100 and params["bin_strategy"] == "fine"
    assert params["solver_options"] is None
    assert main(["synthesize", src, "-o", out, "--quiet", "--max-categories", "None",
                 "--bin-strategy", "quantile", "--solver", "aim",
                 "--solver-options", '{"max_rounds": 3, "measure_share": 0.8}']) == 0
    params = FakeSynth.last.params
    assert params["max_categories"] is None and params["bin_strategy"] == "quantile"
    assert params["solver_options"] == {"max_rounds": 3, "measure_share": 0.8}
    assert main(["synthesize", src, "-o", out, "--quiet", "--max-categories", "7"]) == 0
    assert FakeSynth.last.params["max_categories"] == 7


def test_domain_file_errors_name_the_column(tmp_path, fake, capsys):
    src = _write(tmp_path / "in.csv", HEADER, ROWS)
    bad = [({"age": [0, 90]}, None),  # a list is categories: 31 is not one of them
           ({"agee": {"low": 0, "high": 1}}, "agee"),
           ({"age": {"low": 0, "high": 90, "bins": 3}}, "'bins'"),
           ({"age": {"kind": "number"}}, "'number'"),
           ({"age": 0}, ">= 1"),
           ({"smoker": [True, 1.0, 1]}, "twice"),
           ({"age": {"low": 9, "high": 1}}, "low <= high")]
    for domain, expected in bad:
        (tmp_path / "d.json").write_text(json.dumps(domain))
        assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet",
                     "--domain", str(tmp_path / "d.json")]) == 2
        err = capsys.readouterr().err
        assert ("'agee'" if expected == "agee" else "'age'" if "age" in str(domain) else
                "'smoker'") in err, err
        if expected:
            assert expected in err, err
    # the message names the column and the line, never the private value
    (tmp_path / "d.json").write_text(json.dumps({"city": ["Lyon"]}))
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet",
                 "--domain", str(tmp_path / "d.json")]) == 2
    err = capsys.readouterr().err
    assert "line 3" in err and "'city'" in err and "Paris" not in err


def test_cells_are_read_by_the_domain_entry():
    assert CsvCells("b", [True, False]).parse("true", "") is True
    assert CsvCells("b", [True, False]).parse("FALSE", "") is False
    assert CsvCells("n", [1, 2.5, "x"]).parse("1.0", "") == 1
    assert CsvCells("n", [1, 2.5, "x"]).parse("2.50", "") == 2.5
    assert CsvCells("n", [1, 2.5, "x"]).parse("x", "") == "x"
    assert CsvCells("k", 5).parse("4", "") == 4
    big = 2 ** 60 + 1  # compared exactly, not through a float
    assert CsvCells("n", [big]).parse(str(big), "") == big
    with pytest.raises(ValueError, match="categories"):
        CsvCells("n", [big]).parse(str(big - 1), "")
    with pytest.raises(ValueError, match="codes 0..4"):
        CsvCells("k", 5).parse("5", "")
    with pytest.raises(ValueError, match="'b'.*categories"):
        CsvCells("b", [True, False]).parse("1", "")  # True is not 1
    with pytest.raises(ValueError, match="'x' is numeric"):
        CsvCells("x", {"low": 0, "high": 1}).parse("abc", "")
    assert CsvCells("c", {"kind": "categorical"}).parse("007", "") == "007"


def test_values_are_written_by_the_domain_entry():
    assert CsvCells("x", {"low": 0, "high": 9, "integer": True}).format(3.6) == "4"
    assert CsvCells("x", {"low": 0, "high": 9}).format(3.0) == "3.0"
    assert CsvCells("x", {"kind": "numeric", "integer": True}).format(np.float64(2.2)) == "2"
    assert CsvCells("k", 5).format(np.int64(3)) == "3"
    assert CsvCells("b", [False, True]).format(np.bool_(True)) == "True"
    for missing in (None, float("nan"), np.nan):
        assert CsvCells("x", {"low": 0, "high": 9}).format(missing) == ""


def test_integer_output_comes_from_the_domain_not_the_values(tmp_path, fake, capsys):
    # item 3: the old CLI wrote integer columns when the first 100 private rows were integers
    src = _write(tmp_path / "in.csv", ["x", "c"], [[i % 7, "a"] for i in range(50)])
    (tmp_path / "d.json").write_text(json.dumps({"x": {"low": 0, "high": 9}, "c": ["a", "b"]}))
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet",
                 "--domain", str(tmp_path / "d.json")]) == 0
    assert all("." in r[0] for r in _rows(tmp_path / "o.csv")[1:])
    assert "PrivacyLeakWarning" not in capsys.readouterr().err
    assert FakeSynth.last.params["domain"] == {"x": {"low": 0, "high": 9}, "c": ["a", "b"]}


def test_missing_cells_are_kept_and_written_empty(tmp_path, fake, capsys):
    src = _write(tmp_path / "in.csv", HEADER, ROWS)
    out = tmp_path / "o.csv"
    assert main(["synthesize", src, "-o", str(out), "--quiet", "--missing", "drop",
                 "--neighbouring", "add_remove"]) == 0
    est = FakeSynth.last
    assert est.params["missing"] == "drop" and est.params["neighbouring"] == "add_remove"
    assert est.feature_names == HEADER
    assert est.X[2, 2] is None and est.X[1, 3] is None  # "" and "NA"
    got = _rows(out)
    assert got[0] == HEADER and len(got) == 61
    assert {r[2] for r in got[1:]} == {"Lyon", "Paris", ""}
    assert {r[3] for r in got[1:]} <= {"1.5", "2.0", ""} and "" in {r[3] for r in got[1:]}
    err = capsys.readouterr().err
    assert "PrivacyLeakWarning" in err and "['age', 'smoker', 'city', 'score']" in err
    # --na-values replaces the spellings: "NA" is then a category
    assert main(["synthesize", src, "-o", str(out), "--quiet", "--na-values", "null"]) == 0
    assert FakeSynth.last.params["domain"]["score"]["categories"] == ["1.5", "2", "NA"]


def test_domain_private_reads_only_the_kinds(tmp_path, fake, capsys):
    src = _write(tmp_path / "in.csv", HEADER, ROWS)
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet",
                 "--domain", "private"]) == 0
    assert FakeSynth.last.params["domain"] == {
        "age": {"kind": "numeric", "integer": True}, "smoker": {"kind": "categorical"},
        "city": {"kind": "categorical"}, "score": {"kind": "numeric", "integer": False}}
    err = capsys.readouterr().err
    assert "The kind" in err and '{"kind": "categorical"}' in err


def test_epsilon_inf_warns_that_nothing_is_private(tmp_path, fake, capsys):
    src = _write(tmp_path / "in.csv", HEADER, ROWS)
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet",
                 "--epsilon", "inf"]) == 0
    assert "nothing is private" in capsys.readouterr().err


def test_rows_are_streamed_in_chunks(tmp_path, fake, monkeypatch, capsys):
    monkeypatch.setattr(commands, "BATCH", 7)
    monkeypatch.setattr(commands, "PART", 60)
    src = _write(tmp_path / "in.csv", HEADER, ROWS)
    out = tmp_path / "o.csv"
    assert main(["synthesize", src, "-o", str(out), "--n-samples", "100"]) == 0
    assert FakeSynth.last.batches == [7] * 8 + [4] + [7] * 5 + [5] and len(_rows(out)) == 101
    err = capsys.readouterr().err
    assert "\r" not in err and "fitting" in err  # progress: one line per stage


def test_a_failure_while_writing_leaves_no_output(tmp_path, fake, monkeypatch, capsys):
    def broken(self, n_samples=None, *, batch_size=100_000, random_state=None):
        yield self.X[:2]
        raise ValueError("sampling failed")

    monkeypatch.setattr(FakeSynth, "iter_sample", broken)
    src = _write(tmp_path / "in.csv", HEADER, ROWS)
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet"]) == 2
    assert "sampling failed" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


def _no_notes(draft):
    return {name: {k: v for k, v in entry.items() if k != "note"} for name, entry in draft.items()}


def test_domain_command_drafts_a_reusable_file(tmp_path, fake, capsys):
    src = _write(tmp_path / "in.csv", HEADER, FINE_ROWS)
    out = tmp_path / "d.json"
    assert main(["domain", src, "-o", str(out), "--n-bins", "4"]) == 0
    err = capsys.readouterr().err
    assert "PrivacyLeakWarning" in err and "review every entry" in err
    assert "without privacy" in err
    draft = json.loads(out.read_text())
    assert _no_notes(draft) == {
        "age": {"low": 30, "high": 69, "integer": True, "missing": False,  # 40 integers
                "n_bins": 4},
        "smoker": {"categories": [False, True], "missing": False},
        "city": {"categories": ["Lyon", "Paris"], "missing": True},
        "score": {"low": 1.5, "high": 1.975, "integer": False, "missing": True, "n_bins": 4}}
    assert all(e["note"].startswith("DRAFT read from the data") for e in draft.values())
    check_domain(draft, HEADER)
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet",
                 "--domain", str(out)]) == 0
    err = capsys.readouterr().err
    # the draft's notes left: warned, naming the columns only
    assert "PrivacyLeakWarning" in err and "still marked a draft" in err
    assert "['age', 'smoker', 'city', 'score']" in err
    got = _rows(tmp_path / "o.csv")
    assert {r[1] for r in got[1:]} == {"True", "False"}
    assert all(r[0].isdigit() for r in got[1:])
    # reviewed: the notes deleted, no warning
    out.write_text(json.dumps(_no_notes(draft)))
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet",
                 "--domain", str(out)]) == 0
    assert "PrivacyLeakWarning" not in capsys.readouterr().err


def test_a_wide_tables_warnings_name_ten_columns_and_count_the_rest(tmp_path, fake, capsys):
    header = [f"c{j}" for j in range(60)]
    src = _write(tmp_path / "in.csv", header, [[i % 3] * 60 for i in range(30)])
    out = tmp_path / "d.json"
    assert main(["domain", src, "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet",
                 "--domain", str(out)]) == 0
    err = capsys.readouterr().err
    assert "still marked a draft" in err
    assert f"{header[:10]!r} and 50 more (60 in all)" in err and "'c10'" not in err
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "The domain (kind, categories or bounds)" in err and "and 50 more" in err


def test_domain_command_without_n_bins_leaves_the_bins_to_synthesize(tmp_path, fake, capsys):
    src = _write(tmp_path / "in.csv", HEADER, FINE_ROWS)
    out = tmp_path / "d.json"
    assert main(["domain", src, "-o", str(out)]) == 0
    draft = json.loads(out.read_text())
    assert "n_bins" not in draft["score"] and draft["score"]["low"] == 1.5
    check_domain(draft, HEADER)


def test_draft_entries():
    assert draft_entry(["1", "2", "2"], 10) == {"categories": [1, 2], "missing": False}
    assert draft_entry([None, None], 10)["missing"]
    assert draft_entry(["b", "a", None], 10) == {"categories": ["a", "b"], "missing": True}


def _proposed(cells):
    entry = propose_entry(cells)
    check_domain({"x": entry}, ["x"])  # every proposal is a valid entry
    return entry


def test_the_draft_keeps_few_numbers_as_categories():
    # 11 school means on a lattice of sevenths: each value exact, as a category
    cells = [f"{2 + k / 7:.5f}" for k in range(1, 12) for _ in range(30)] + [None]
    entry = _proposed(cells)
    assert entry["categories"] == sorted({float(c) for c in cells if c}) and entry["missing"]
    # more than 16 distinct numbers: bounds
    entry = _proposed([f"{k / 8:g}" for k in range(17)])
    assert (entry["low"], entry["high"], entry["integer"]) == (0.0, 2.0, False)


def test_the_draft_keeps_coded_columns_as_codes_or_categories():
    # a coded column with more than 10 codes (adult's occupation: 15, native-country: 41)
    # keeps every code: no numeric bounds that spread a 90% point mass over a bin
    entry = _proposed(["3"] * 90 + [str(v) for v in range(15)])
    assert entry["categories"] == list(range(15)) and entry["missing"] is False
    cells = ["39"] * 90 + [str(v) for v in range(1, 42)]  # 41 codes from 1, rough counts
    entry = _proposed(cells)
    assert entry["categories"] == list(range(1, 42)) and entry["missing"] is False
    # 17 to 50 values with smooth counts (ages): a quantity, bounds
    entry = _proposed([str(v) for v in range(20, 60) for _ in range(60 - abs(v - 40))])
    assert (entry["low"], entry["high"], entry["integer"]) == (20, 59, True)
    # more than 50 codes, values in 0..k-1: the codes form, which can say "missing": false
    entry = _proposed([str(v) for v in range(0, 120, 2) for _ in range(1 + v * 7 % 13)])
    assert entry["codes"] == 119 and entry["missing"] is False
    assert "codes" in entry["note"]
    # a wide integer quantity: bounds, flagged as spiky (82% zeros) and heavy-tailed
    cells = ["0"] * 400 + [str(100 * v) for v in range(1, 88)] + ["99999"] + [None]
    entry = _proposed(cells)
    assert (entry["low"], entry["high"], entry["integer"], entry["missing"]) == \
        (0, 99999, True, True)
    assert "spiky: the value 0 holds 82%" in entry["note"]  # 400 of 488
    assert "heavy-tailed" in entry["note"] and "bounds at the data's min and max" in entry["note"]
    # a smooth float column: bounds, not flagged
    entry = _proposed([str(v / 7) for v in range(200)])
    assert "spiky" not in entry["note"] and "heavy-tailed" not in entry["note"]


def test_the_draft_flags_identifiers_and_empty_columns():
    entry = _proposed([f"id{i}" for i in range(100)])
    assert "identifier" in entry["note"]
    ids = [1000 + 7 * i for i in range(300)]
    entry = _proposed([str(v) for v in ids])  # integer ids: bounds, flagged
    assert "low" in entry and "identifier" in entry["note"]
    shuffled = [ids[(37 * i) % 300] for i in range(300)]  # out of the file's order
    assert "identifier" in _proposed([str(v) for v in shuffled])["note"]
    # amounts nearly all distinct: a spike at 0 or a heavy tail shows a quantity
    amounts = [0] * 40 + [(97 * i) % 1000 + 1 for i in range(260)]  # 13% zeros, unordered
    assert "identifier" not in _proposed([str(v) for v in amounts])["note"]
    tailed = [(37 * i) % 298 for i in range(298)] + [10 ** 5, 10 ** 5 + 1]
    tailed = [tailed[(7 * i) % 300] for i in range(300)]  # a long top tail, unordered
    assert "identifier" not in _proposed([str(v) for v in tailed])["note"]
    in_order = sorted(tailed)  # the same values as sequence numbers: flagged
    assert "identifier" in _proposed([str(v) for v in in_order])["note"]
    assert "identifier" not in _proposed(["a", "b"] * 50)["note"]
    # a group key: 300 firms of 8 rows each (13% distinct, not an identifier)
    note = _proposed([f"firm{i % 300}" for i in range(2400)])["note"]
    assert "group key" in note and "8.0 rows a category" in note and "identifier" not in note
    assert "group key" not in _proposed([f"c{i % 60}" for i in range(6000)])["note"]
    entry = _proposed([None, None])
    assert entry["missing"] is True and "every cell is missing" in entry["note"]
    assert _proposed(["True", "false"])["categories"] == [False, True]


def test_the_draft_command_is_not_reachable_from_a_fit():
    """The draft reads data without privacy: neither the estimator nor `synthesize`'s
    reading of the rows imports it (only its note marker is checked on a domain file)."""
    src = open(skdp.synthesizer.__file__).read() + open(commands.__file__).read()
    assert "propose_entry" not in open(skdp.synthesizer.__file__).read()
    assert src.count("propose_entry") == 2  # the import and the call in draft_domain
    body = commands.synthesize.__code__.co_names + commands.resolve_domain.__code__.co_names
    assert "propose_entry" not in body and "draft_domain" not in body


def test_plot_marginals_bin_on_the_fitted_domain():
    from skdp._cli.plot import Marginals

    domain = {"a": {"categories": ["x", "y"], "missing": True},
              "b": {"low": 0.0, "high": 10.0, "n_bins": 2}, "c": 3}
    m = Marginals(domain, ["a", "b", "c"], 10)
    m.add(np.array([["x", 1.0, 0], [None, 7.0, np.int64(2)], ["y", np.nan, 2]], dtype=object))
    a, b, c = m.shares()
    assert a.tolist() == pytest.approx([1 / 3] * 3) and b.tolist() == pytest.approx([1 / 3] * 3)
    assert c.tolist() == pytest.approx([1 / 3, 0, 2 / 3, 0])
    assert m.bins[1].labels == ["0", "5", "NA"]


# ------------------------------------------------------------------- end to end
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
                           "--seed", "1", "--n-samples", "20"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(_rows(out)) == 21
    assert "\r" not in proc.stderr and "fitting" in proc.stderr  # a pipe: line per stage


def test_csv_with_domain_holdout_and_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    header = ["age", "city", "visits"]
    rows = [[20 + i % 50, ["a", "b", "c"][i % 3], i % 5] for i in range(300)]
    _write(tmp_path / "in.csv", header, rows[:200])
    _write(tmp_path / "hold.csv", header, rows[200:])
    (tmp_path / "d.json").write_text(json.dumps(
        {"age": {"low": 18, "high": 90, "integer": True, "missing": False},
         "city": {"categories": ["a", "b", "c"], "missing": False}, "visits": 5}))
    out, png = tmp_path / "o.csv", tmp_path / "p.png"
    code = main(["synthesize", str(tmp_path / "in.csv"), "-o", str(out), "--epsilon", "2",
                 "--domain", str(tmp_path / "d.json"), "--holdout", str(tmp_path / "hold.csv"),
                 "--plot", str(png), "--seed", "0", "--n-bins", "5", "--quiet"])
    assert code == 0, capsys.readouterr().err
    text = capsys.readouterr().out
    assert "holdout marginal error" in text and png.exists()
    # at the user's bins (equal and quantile bins of the holdout), 1-, 2- and 3-way, and at
    # the synthesizer's own bins
    for label in ("5 equal bins", "10 equal bins", "20 quantile bins", "1-way", "2-way",
                  "3-way", "indep.", "at the synthesizer's own bins"):
        assert label in text
    got = _rows(out)
    assert got[0] == header and len(got) == 201
    assert all(18 <= int(r[0]) <= 90 and r[1] in ("a", "b", "c") for r in got[1:])
    assert {r[2] for r in got[1:]} <= {"", "0", "1", "2", "3", "4"}  # codes 0..4 or missing


def test_missing_values_are_kept_end_to_end(tmp_path, capsys):
    rows = [[["x", "y", ""][i % 3], ["1.5", "", "3"][i % 3], ["TRUE", "FALSE", "NA"][i % 3]]
            for i in range(300)]
    src = _write(tmp_path / "in.csv", ["a", "b", "c"], rows)
    (tmp_path / "d.json").write_text(json.dumps(
        {"a": ["x", "y"], "b": {"low": 0, "high": 4}, "c": [True, False]}))
    out = tmp_path / "o.csv"
    assert main(["synthesize", src, "-o", str(out), "--epsilon", "5", "--seed", "0",
                 "--quiet", "--domain", str(tmp_path / "d.json")]) == 0, \
        capsys.readouterr().err
    got = _rows(out)
    assert got[0] == ["a", "b", "c"] and len(got) == 301
    for j in range(3):
        assert "" in {r[j] for r in got[1:]}  # sampled back as missing
    assert {r[2] for r in got[1:]} <= {"True", "False", ""}
    assert main(["synthesize", src, "-o", str(out), "--quiet", "--missing", "error",
                 "--domain", str(tmp_path / "d.json")]) == 2
    err = capsys.readouterr().err
    assert "'a'" in err and "x" not in err.replace("'a'", "")  # names the column, no value


def test_integer_flag_never_read_from_values(tmp_path, capsys):
    # item 3 (privacy): one non-integer row must not change how the column is written
    domain = tmp_path / "d.json"
    domain.write_text(json.dumps({"x": {"low": 0, "high": 10, "integer": True, "missing": False},
                                  "c": ["a"]}))
    for last in ("2", "2.5"):
        rows = [[i % 9, "a"] for i in range(99)] + [[last, "a"]]
        src = _write(tmp_path / "in.csv", ["x", "c"], rows)
        out = tmp_path / "o.csv"
        assert main(["synthesize", src, "-o", str(out), "--seed", "0", "--quiet",
                     "--domain", str(domain)]) == 0, capsys.readouterr().err
        assert all(r[0].isdigit() for r in _rows(out)[1:]), last


def test_estimator_messages_name_columns_by_header(tmp_path, capsys):
    header = [f"col{j}" for j in range(8)]
    rows = [[(i * (j + 1)) % 10 for j in range(8)] for i in range(50)]
    src = _write(tmp_path / "in.csv", header, rows)
    (tmp_path / "d.json").write_text(json.dumps({h: 10 for h in header}))
    # the dense solver refuses the 1e8 cells, naming every column (solver auto runs aim)
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet", "--solver", "smd",
                 "--domain", str(tmp_path / "d.json")]) == 2
    err = capsys.readouterr().err
    assert "'col0'" in err and "'col7'" in err, err


def test_compression_quantile_bins_and_solver_options_end_to_end(tmp_path, monkeypatch,
                                                                   capsys):
    # a 40-category column compressed (--max-categories 5), a numeric column binned at
    # quantiles; every written value stays inside the public domain
    from skdp.synthesizer import SaddlePointSynthesizer

    fitted = []

    class Spy(SaddlePointSynthesizer):
        def fit(self, X, y=None, feature_names=None):
            fitted.append(self)
            return super().fit(X, y, feature_names=feature_names)

    monkeypatch.setattr(commands, "estimator_class", lambda: Spy)
    rng = np.random.default_rng(0)
    cities = [f"c{i:02d}" for i in range(40)]
    rows = [[cities[min(int(rng.exponential(3)), 39)], round(float(rng.gamma(2.0, 3.0)), 2),
             int(rng.integers(0, 2))] for _ in range(400)]
    src = _write(tmp_path / "in.csv", ["city", "x", "flag"], rows)
    (tmp_path / "d.json").write_text(json.dumps(
        {"city": {"categories": cities, "missing": False},
         "x": {"low": 0, "high": 50, "missing": False},
         "flag": {"categories": [0, 1], "missing": False}}))
    out = tmp_path / "o.csv"
    code = main(["synthesize", src, "-o", str(out), "--epsilon", "2", "--seed", "0", "--quiet",
                 "--domain", str(tmp_path / "d.json"), "--solver", "mst", "--n-bins", "4",
                 "--max-categories", "5", "--bin-strategy", "quantile",
                 "--solver-options", '{"estimate_iter": 50}'])
    assert code == 0, capsys.readouterr().err
    got = _rows(out)
    assert got[0] == ["city", "x", "flag"] and len(got) == 401
    assert {r[0] for r in got[1:]} <= set(cities)
    assert all(0 <= float(r[1]) <= 50 for r in got[1:])
    assert {r[2] for r in got[1:]} <= {"0", "1"}
    est = fitted[0]
    assert list(est.compression_) == ["city"] and list(est.bin_edges_) == ["x"]
    assert est.solver_options == {"estimate_iter": 50} and est.domain_shape_[0] <= 5


@pytest.mark.parametrize("extra, message", [
    (["--domain", "DOMAIN"], "no input file matches"),
    ([], "needs --domain FILE"),
    (["--domain", "private"], "needs --domain FILE"),
    (["--domain", "DOMAIN", "--plot", "p.png"], "--plot is not supported"),
])
def test_dask_jobs_are_checked_before_dask_reads_anything(tmp_path, capsys, extra, message):
    # a glob input makes a Dask job (issue 20); its flags are checked first, without Dask
    domain = tmp_path / "domain.json"
    domain.write_text('{"a": [1, 2]}')
    extra = [str(domain) if e == "DOMAIN" else e for e in extra]
    args = ["synthesize", str(tmp_path / "none" / "*.parquet"), "-o",
            str(tmp_path / "out" / "*.parquet"), "--quiet"] + extra
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_scheduler_is_documented_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["synthesize", "--help"])
    out = capsys.readouterr().out
    assert "--scheduler ADDRESS" in out and "On Dask" in out


def test_the_codes_entry_as_an_object_reads_and_writes_codes():
    col = CsvCells("k", {"codes": 12, "missing": False, "note": "reviewed"})
    assert col.form == "codes" and col.width == 2
    assert col.parse("11") == 11 and col.format(np.int64(3)) == "3"
    with pytest.raises(ValueError, match="column 'k' holds the codes 0..11"):
        col.parse("12")
    check_domain({"k": {"codes": 12, "missing": False}}, ["k"])
    with pytest.raises(ValueError, match="column 'k'"):
        check_domain({"k": {"codes": 12, "high": 3}}, ["k"])


def test_holdout_errors_at_the_users_bins():
    """The report's figures: zero against itself, the independent-columns reference exact,
    and a synthetic column spread evenly over a spike's bin scored at quantile bins."""
    from skdp._cli.holdout import RESOLUTIONS, binned_errors

    rng = np.random.default_rng(0)
    x = np.where(rng.random(2000) < 0.6, 48.0, rng.uniform(0, 100, 2000))  # a spike at 48
    c = np.where(x > 50, "hi", "lo")
    hold = np.array(list(zip(x.tolist(), c.tolist())), dtype=object)
    domain = {"x": {"low": 0.0, "high": 100.0}, "c": {"categories": ["hi", "lo"]}}
    same = binned_errors(hold, hold, domain, ["x", "c"])
    assert set(same) == set(RESOLUTIONS)
    assert all(res[w][0] == 0.0 for res in same.values() for w in (1, 2))
    assert same[("equal", 10)][2][2] > 0.1  # x and c are dependent
    # the spike spread uniformly over its bin of 10 [40, 50): fine at the synthesizer's
    # 10 equal bins, wrong at the holdout's quantile bins
    spread = hold.copy()
    spread[:, 0] = np.where(x == 48.0, rng.uniform(40, 50, 2000), x)
    err = binned_errors(spread, hold, domain, ["x", "c"])
    assert err[("equal", 10)][1][0] < 0.01 and err[("quantile", 10)][1][0] > 0.2
    # missing cells are a cell of their own
    hold[:100, 0] = None
    assert binned_errors(spread, hold, domain, ["x", "c"])[("equal", 5)][1][1] >= 0.05


def test_the_holdout_report_reads_no_training_rows():
    import inspect

    from skdp._cli import holdout

    assert list(inspect.signature(holdout.binned_errors).parameters) == \
        ["synthetic", "holdout", "domain", "header"]
    assert list(inspect.signature(commands._holdout_report).parameters) == \
        ["est", "header", "synthetic", "holdout", "computed", "keep", "outside"]
