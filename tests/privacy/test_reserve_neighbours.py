"""Issue 28, item 4: every fit reserves its budget before it reads a data row.

Neighbouring tables that differ in one row, one of which makes the fit fail
while its rows are read (a cell outside the public domain, a label outside
``classes``): with the budget used up, both are refused alike before any row is
read (same message, nothing charged); with budget left, both are charged the
fit's claim, in memory as in a ledger file, in the Python API as in the CLI.
A failure is then no free membership test.
"""

import csv
import json

import numpy as np
import pytest

from skdp import BudgetAccountant, PrivateMinimaxClassifier, SaddlePointSynthesizer
from skdp._base import reserve_fit
from skdp.__main__ import main
from skdp.exceptions import BudgetExceededError
from skdp.privacy.store import STATUSES, BudgetStore

ROWS = [[["a", "b"][i % 2], i % 3] for i in range(40)]
DOMAIN = {"c": ["a", "b"], "k": 3}


def _tables():
    """Two neighbours: the second has a cell outside its column's public categories."""
    other = [list(r) for r in ROWS]
    other[36][0] = "z"
    return ROWS, other


def _csv(path, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["c", "k"])
        w.writerows(rows)
    return str(path)


def _statuses(ledger, dataset="t"):
    return [r["status"] for r in BudgetStore(ledger).rows(dataset, STATUSES)]


# ------------------------------------------------------------------------- the Python API
def _synth(acc):
    return SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain={0: ["a", "b"], 1: 3},
                                  missing="error", n_iter=5, accountant=acc, random_state=None,
                                  solver="smd")  # exact GDP: a fit spends its epsilon exactly


@pytest.mark.parametrize("ledger", [False, True])
def test_a_fit_failing_on_its_rows_is_charged_like_its_neighbour(tmp_path, ledger):
    kw = dict(store=tmp_path / "l.sqlite", dataset="t") if ledger else {}
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5, **kw)
    good, bad = (np.array(t, dtype=object) for t in _tables())
    _synth(acc).fit(good)
    with pytest.raises(ValueError, match="column 0") as err:
        _synth(acc).fit(bad)
    assert "line" not in str(err.value) and "'z'" not in str(err.value)
    assert acc.total()[0] == pytest.approx(2.0)  # both charged: 1 + 1
    assert [s["status"] for s in acc.spends] == ["charged", "reserved"]
    # the budget is used up: both neighbours are refused alike, before any row is read
    messages = []
    for table in (good, bad):
        with pytest.raises(BudgetExceededError) as refused:
            _synth(acc).fit(table)
        messages.append(str(refused.value))
    assert messages[0] == messages[1]
    assert len(acc.spends) == 2


def test_three_category_probes_cost_three_fits_in_memory():
    """The issue's probes: fit(classes=S) raises exactly when a label is outside S."""
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3)
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(30, 2))
    y = np.array([0, 1] * 15)
    y[7] = 2  # a label the probe asks about
    for classes in ([0, 1], [0, 2], [1, 2]):
        with pytest.raises(ValueError):
            PrivateMinimaxClassifier(epsilon=1.0, delta=1e-6, accountant=acc,
                                     n_iter=3).fit(X, y, classes=classes)
    assert acc.total()[0] == pytest.approx(3.0)  # was 0: each probe is charged its claim


def test_a_refusal_before_reading_still_spends_nothing():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    with pytest.raises(ValueError, match="epsilon"):
        SaddlePointSynthesizer(epsilon=-1.0, domain={0: 2}, accountant=acc).fit([[0], [1]])
    assert acc.spends == [] and acc.total() == (0.0, 0.0)


def test_reserve_fit_is_taken_over_once_and_released_if_nothing_was_read():
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    est = _synth(acc)
    with reserve_fit(est) as held:
        assert acc.total()[0] == 1.0
    assert held.settled and acc.spends == []  # no row read: released
    with pytest.raises(RuntimeError):
        with reserve_fit(est) as held:
            held.reading_data()
            raise RuntimeError("a parse error")
    assert [s["status"] for s in acc.spends] == ["reserved"]  # kept: rows were read
    est = _synth(acc)
    with reserve_fit(est) as held:
        held.reading_data()
        est.set_params(epsilon=0.5)  # not the reserved claim: refused, the claim stays
        with pytest.raises(ValueError, match="reserved ahead"):
            est.fit(np.array(ROWS, dtype=object))
    assert acc.total()[0] == pytest.approx(2.0) and not hasattr(est, "histogram_")


# ------------------------------------------------------------------------------- the CLI
def _run(tmp_path, src, extra=()):
    (tmp_path / "d.json").write_text(json.dumps(DOMAIN))
    ledger = str(tmp_path / "l.sqlite")
    argv = ["synthesize", src, "-o", str(tmp_path / "o.csv"), "--domain",
            str(tmp_path / "d.json"), "--quiet", "--epsilon", "1", "--delta", "1e-6",
            "--store", ledger, "--dataset", "t", "--n-samples", "5", "--solver", "smd", *extra]
    return main(argv), ledger


def test_cli_reserves_before_reading_and_charges_a_bad_cell(tmp_path, capsys):
    good, bad = _tables()
    first = tmp_path / "first"
    first.mkdir()
    status, ledger = _run(first, _csv(first / "in.csv", good),
                          ["--budget-epsilon", "2", "--budget-delta", "1e-5"])
    assert status == 0 and _statuses(ledger) == ["charged"]
    capsys.readouterr()
    src = _csv(first / "bad.csv", bad)
    status, _ = _run(first, src)
    err = capsys.readouterr().err
    assert status == 2 and "column 'c'" in err and "'z'" not in err
    # the error names its line (the spend is charged, so the line tells nothing for free)
    assert _statuses(ledger) == ["charged", "reserved"]
    total = BudgetAccountant.open(ledger, "t").total()[0]
    assert total == pytest.approx(2.0)
    # used up: both neighbours get the same refusal, and nothing more is charged
    outs = []
    for src in (str(first / "in.csv"), str(first / "bad.csv")):
        assert _run(first, src)[0] == 2
        outs.append(capsys.readouterr())
    assert outs[0] == outs[1] and "budget exceeded" in outs[0].err.lower()
    assert "line" not in outs[0].err
    assert _statuses(ledger) == ["charged", "reserved"]


# ------------------------------------------------- parameters checked before the reservation
# Issue 28's remainders: what depends on the parameters alone (and on the table's schema: its
# column names, its width) is refused before the budget is reserved, so a mistake there
# costs nothing and its message is the same for neighbouring tables.
def _neighbours_xy():
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(30, 2))
    y = np.array([0, 1] * 15)
    other = y.copy()
    other[7] = 2  # a label outside the public classes: refused once the rows are read
    return X, y, other


@pytest.mark.parametrize("sizes, match", [
    ({0: 10, 1: 0}, "finite counts >= 1"),
    ([10, 10, 10], "3 entries but there are 2 groups"),
    ({0: 10}, "no size for groups"),
    ({0: 10, 1: "ten"}, "must hold numbers"),
])
def test_bad_group_sizes_charge_nothing_for_either_neighbour(sizes, match):
    X, y, other = _neighbours_xy()
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    messages = []
    for labels in (y, other):
        with pytest.raises(ValueError, match=match) as err:
            PrivateMinimaxClassifier(epsilon=1.0, delta=1e-6, group_sizes=sizes, n_iter=3,
                                     accountant=acc).fit(X, labels, classes=[0, 1])
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "line" not in messages[0]
    assert acc.spends == [] and acc.total() == (0.0, 0.0)


def test_public_groups_and_streaming_solver_checked_before_the_reservation():
    X, y, _ = _neighbours_xy()
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    groups = np.array(["g", "h"] * 15)
    with pytest.raises(ValueError, match="group_sizes"):  # the dict's keys cannot be sorted
        PrivateMinimaxClassifier(group_sizes={"g": 10, 1: 10}, accountant=acc).fit(
            X, y, groups=groups, classes=[0, 1])
    with pytest.raises(ValueError, match="one group"):  # two public classes, one-group solver
        PrivateMinimaxClassifier(solver="dpsgd", accountant=acc).fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="at least 2 classes"):  # classes= is a parameter
        PrivateMinimaxClassifier(accountant=acc).fit(X, y, classes=[0])
    assert acc.spends == []
    # the right parameters fit and are charged once
    PrivateMinimaxClassifier(group_sizes={"g": 15, "h": 15}, n_iter=3, accountant=acc).fit(
        X, y, groups=groups, classes=[0, 1])
    assert [s["status"] for s in acc.spends] == ["charged"]


def _frame(rows):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(rows, columns=["c", "k"])


@pytest.mark.parametrize("container", ["frame", "array", "list_named"])
def test_a_domain_naming_a_missing_column_charges_nothing(container):
    """A DataFrame's columns, an array's width and ``feature_names`` are schema: the domain
    is checked against them before the reservation, for both neighbours alike."""
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    messages = []
    for rows in _tables():
        if container == "frame":
            X, kw, domain = _frame(rows), {}, {"c": ["a", "b"], "age": 3}
        elif container == "array":
            X, kw, domain = np.array(rows, dtype=object), {}, {0: ["a", "b"], 2: 3}
        else:
            X, kw, domain = rows, dict(feature_names=["c", "k"]), {"c": ["a", "b"], "age": 3}
        est = SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain=domain, n_iter=5,
                                     accountant=acc)
        with pytest.raises(ValueError, match="does not have") as err:
            est.fit(X, **kw)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert "age" in messages[0] or "2" in messages[0]
    assert acc.spends == [] and acc.total() == (0.0, 0.0)
    # a workload naming a missing column: the same
    with pytest.raises(ValueError, match="workload names an unknown column"):
        SaddlePointSynthesizer(domain={"c": ["a", "b"], "k": 3}, workload=[("c", "age")],
                               accountant=acc).fit(_frame(ROWS))
    assert acc.spends == []


def test_a_list_without_feature_names_is_checked_after_reading():
    """A list's width is its rows' length: the domain's names are checked once the budget
    is reserved (charged), as documented."""
    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    with pytest.raises(ValueError, match="does not have"):
        SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain={0: ["a", "b"], 5: 3},
                               accountant=acc).fit(ROWS)
    assert [s["status"] for s in acc.spends] == ["reserved"]


# ------------------------------------------------------------------------- Dask
def _dask_frames(tmp_path):
    """Two neighbouring CSV globs; in the second, one row has a cell too many: Dask's
    read_csv reads it in the sample that lays the table out (a parse error naming a line)."""
    good = _tables()[0]
    out = []
    for name, rows in (("good", good), ("bad", good)):
        folder = tmp_path / name
        folder.mkdir()
        for i in range(2):
            with open(folder / f"part{i}.csv", "w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(["c", "k"])
                part = [list(r) for r in rows[20 * i:20 * (i + 1)]]
                if name == "bad" and i == 0:
                    part[2].append("extra")  # in the first rows, which Dask samples
                w.writerows(part)
        out.append(str(folder / "*.csv"))
    return out


def test_cli_dask_job_reserves_before_dask_reads_a_row(tmp_path, capsys):
    pytest.importorskip("dask.dataframe")
    good, bad = _dask_frames(tmp_path)
    first = tmp_path / "runs"
    first.mkdir()
    (first / "d.json").write_text(json.dumps(DOMAIN))
    ledger = str(first / "l.sqlite")

    def run(src, domain="d.json", extra=()):
        return main(["synthesize", src, "-o", str(first / "o.csv"), "--domain",
                     str(first / domain), "--quiet", "--epsilon", "1", "--delta", "1e-6",
                     "--solver", "mst", "--store", ledger, "--dataset", "t",
                     "--n-samples", "5", *extra])

    assert run(good, extra=["--budget-epsilon", "2", "--budget-delta", "1e-5"]) == 0
    assert _statuses(ledger) == ["charged"]
    # a domain file naming a column the header lacks: refused on the header, nothing charged
    (first / "wrong.json").write_text(json.dumps({**DOMAIN, "age": 3}))
    capsys.readouterr()
    assert run(bad, "wrong.json") == 2
    assert "age" in capsys.readouterr().err
    assert _statuses(ledger) == ["charged"]
    # the malformed row is read by Dask's sample inside the reservation: charged
    assert run(bad) == 2
    capsys.readouterr()
    assert _statuses(ledger) == ["charged", "reserved"]
    # used up: both neighbours get the same refusal, before Dask reads anything
    outs = []
    for src in (good, bad):
        assert run(src) == 2
        outs.append(capsys.readouterr())
    assert outs[0] == outs[1] and "budget exceeded" in outs[0].err.lower()
    assert _statuses(ledger) == ["charged", "reserved"]


def _poisoned(n=60, poison=False):
    """A Dask DataFrame (unknown partition lengths) whose computation fails on one value:
    computing its row counts reads its rows."""
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.uniform(-0.5, 0.5, size=(n, 2)), columns=["a", "b"])
    if poison:
        frame.loc[7, "a"] = 99.0

    def check(part):
        if (part["a"] > 50).any():
            raise ValueError("a value that the neighbour lacks")
        return part

    X = dd.from_pandas(frame, npartitions=3).map_partitions(check)
    y = (frame["a"] > 0).astype(float).to_numpy()
    return X, y


@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_dask_stream_reserves_before_the_row_counts_are_computed(kind):
    dask = pytest.importorskip("dask")
    from skdp import KLAdaptiveRegressor

    def est(acc):
        if kind == "regressor":
            return KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, solver="dpsgd",
                                       accountant=acc, random_state=None)
        return PrivateMinimaxClassifier(epsilon=1.0, delta=1e-6, solver="dpsgd",
                                        group_by=None, accountant=acc, random_state=None)

    def fit(e, X, y):
        return e.fit(X, y) if kind == "regressor" else e.fit(X, y.astype(int), classes=[0, 1])

    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    with dask.config.set(scheduler="synchronous"):
        fit(est(acc), *_poisoned())
        with pytest.raises(ValueError, match="neighbour lacks"):
            fit(est(acc), *_poisoned(poison=True))
        assert [s["status"] for s in acc.spends] == ["charged", "reserved"]  # was: nothing
        messages = []
        for poison in (False, True):  # used up: refused alike, no partition computed
            with pytest.raises(BudgetExceededError) as err:
                fit(est(acc), *_poisoned(poison=poison))
            messages.append(str(err.value))
        assert messages[0] == messages[1] and len(acc.spends) == 2


def test_dask_batch_regressor_reserves_before_the_row_counts_are_computed():
    dask = pytest.importorskip("dask")
    from skdp import KLAdaptiveRegressor

    acc = BudgetAccountant(epsilon=2.0, delta=1e-5)
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError, match="neighbour lacks"):
            KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, max_iter=3, accountant=acc).fit(
                *_poisoned(poison=True))
        assert [s["status"] for s in acc.spends] == ["reserved"]
        # a solver option no candidate of 'auto' takes: refused before the reservation
        with pytest.raises(ValueError, match="solver_options"):
            KLAdaptiveRegressor(solver_options={"no_such_option": 1}, accountant=acc).fit(
                *_poisoned())
        assert [s["status"] for s in acc.spends] == ["reserved"]
