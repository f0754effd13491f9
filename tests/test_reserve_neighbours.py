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
from skdp.privacy.ledger_store import STATUSES, LedgerStore

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
    return [r["status"] for r in LedgerStore(ledger).rows(dataset, STATUSES)]


# ------------------------------------------------------------------------- the Python API
def _synth(acc):
    return SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain={0: ["a", "b"], 1: 3},
                                  missing="error", n_iter=5, accountant=acc, random_state=None)


@pytest.mark.parametrize("ledger", [False, True])
def test_a_fit_failing_on_its_rows_is_charged_like_its_neighbour(tmp_path, ledger):
    kw = dict(ledger=tmp_path / "l.sqlite", dataset="t") if ledger else {}
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
            "--ledger", ledger, "--dataset", "t", "--n-samples", "5", *extra]
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
