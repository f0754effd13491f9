"""Issue 27, the command line: a base install, a fast start, paths and formats checked
before the release, long cells, Ctrl-C and SIGTERM, numbers read as categories,
clipping said once, column names in progress lines."""

import csv
import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import skdp
from skdp._cli import commands, parser
from skdp._cli.interrupt import Terminated
from skdp._cli.texts import CLIPPING_NOTE
from skdp.__main__ import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(skdp.__file__)))


def _write(path, header, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return str(path)


def _python(code, *args, cwd=None, timeout=60):
    """Run ``code`` in a fresh interpreter that imports this checkout's skdp."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=timeout)


class Fake:
    """Stand-in for SaddlePointSynthesizer (as test_cli.FakeSynth): resamples the input."""

    last = None

    def __init__(self, **params):
        self.params = params
        Fake.last = self

    def set_params(self, **params):
        self.params.update(params)
        return self

    def _claim(self):  # the CLI reserves before reading a row: on an accountant of its own
        self.accountant = skdp.BudgetAccountant()
        return self.accountant, 1.0, 1e-6, None

    def _spend_record(self, seed=None):
        return dict(label="Fake", seed=seed)

    def fit(self, X, y=None, feature_names=None):
        self.__dict__.pop("_held_reservation").charge(1.0, 1e-6, label="Fake")
        self.X, self.n_records_ = X, len(X)
        self.domain_ = dict(self.params["domain"])
        self.privacy_spent_, self.privacy_method_ = (1.0, 1e-6), "fake"
        self.marginals_, self.domain_shape_, self.n_iter_ = [], (1,), 0
        return self

    def iter_sample(self, n_samples=None, *, batch_size=100_000, random_state=None):
        yield self.X[np.random.default_rng(0).integers(0, len(self.X), n_samples)]


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(commands, "estimator_class", lambda: Fake)
    return Fake


SMALL = [[["a", "b", "c"][i % 3], i % 4] for i in range(60)]
SMALL_DOMAIN = {"g": ["a", "b", "c"], "k": 4}


def _small(tmp_path):
    src = _write(tmp_path / "in.csv", ["g", "k"], SMALL)
    (tmp_path / "d.json").write_text(json.dumps(SMALL_DOMAIN))
    return src, str(tmp_path / "d.json")


# ------------------------------------------------------ 1. the base install suffices
def test_every_job_runs_without_the_optional_libraries(tmp_path):
    # pandas, dask, distributed, pyarrow and matplotlib made unimportable: every job of
    # the base install runs, and the jobs that need one say which extra installs it
    src, domain = _small(tmp_path)
    code = """
        import sys

        class Uninstalled:  # as if these were not installed
            names = {"pandas", "dask", "distributed", "pyarrow", "matplotlib"}

            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] in self.names:
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)

        sys.meta_path.insert(0, Uninstalled())
        from skdp.__main__ import main
        src, domain = sys.argv[1:]
        codes = [main(["synthesize", src, "-o", "s.csv", "--domain", domain, "--quiet"]),
                 main(["domain", src, "-o", "draft.json"]),
                 main(["synthesize", src, "-o", "s2.csv", "--quiet", "--domain", domain,
                       "--store", "l.sqlite", "--dataset", "t", "--budget-epsilon", "5",
                       "--budget-delta", "1e-5"]),
                 main(["budget", "l.sqlite"]),
                 main(["synthesize", src, "-o", "out/*.csv", "--domain", domain]),
                 main(["synthesize", src, "-o", "p.csv", "--plot", "p.png"])]
        print(*[m for m in ("pandas", "dask", "matplotlib") if m in sys.modules])
        print(codes)
    """
    proc = _python(code, src, domain, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[0, 0, 0, 0, 2, 2]", proc.stdout
    assert "Traceback" not in proc.stderr
    assert not {"pandas", "dask", "matplotlib"} & set(proc.stdout.split())
    assert "needs the pandas package, which is not installed: pip install 'skdp[dask]'" \
        in proc.stderr
    assert "--plot needs matplotlib, which is not installed: pip install 'skdp[examples]'" \
        in proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["d.json", "draft.json", "in.csv", "l.sqlite",
                                            "s.csv", "s2.csv"]


# ------------------------------------------------------------------ 2. start-up
def test_import_and_help_load_neither_sklearn_nor_scipy():
    code = """
        import sys
        import skdp
        loaded = [m for m in ("sklearn", "scipy", "pandas") if m in sys.modules]
        from skdp._cli import main
        for argv in (["--help"], ["synthesize", "--help"], ["domain", "--help"]):
            try:
                main(argv)
            except SystemExit:
                pass
        print(loaded, [m for m in ("sklearn", "scipy", "pandas") if m in sys.modules])
    """
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[] []"


def test_lazy_package_keeps_its_names():
    assert set(skdp.__all__) <= set(dir(skdp))
    from skdp import PrivateMinimaxClassifier, SaddlePointSynthesizer
    from skdp.minimax import PrivateMinimaxClassifier as direct

    assert PrivateMinimaxClassifier is direct and skdp.SaddlePointSynthesizer is \
        SaddlePointSynthesizer
    assert skdp.privacy.BudgetAccountant is skdp.BudgetAccountant  # a submodule, on access
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        skdp.nope  # noqa: B018


def test_the_cli_solver_list_is_the_synthesizer_registry():
    from skdp.synthesizer import SOLVER_SPECS

    assert sorted(parser.SOLVERS) == sorted(set(SOLVER_SPECS) | {"auto"})
    assert len(parser.SOLVERS) == len(set(parser.SOLVERS))


# --------------------------------------------------- 3. outputs against inputs
@pytest.mark.parametrize("extra, message", [
    (["-o", "{d}/d.json", "--domain", "{d}/d.json"], "(--domain)"),
    (["-o", "{d}/./sub/../d.json", "--domain", "{d}/d.json"], "(--domain)"),
    (["-o", "{d}/h.csv", "--holdout", "{d}/h.csv"], "(--holdout)"),
    (["-o", "{d}/l.sqlite", "--store", "{d}/l.sqlite", "--dataset", "x",
      "--budget-epsilon", "1", "--budget-delta", "1e-6"], "(--store)"),
    (["-o", "{d}/o.csv", "--plot", "{d}/in.csv"], "(INPUT)"),
    (["-o", "{d}/o.png", "--plot", "{d}/o.png"], "are one file"),
    (["-o", "{d}/link.json", "--domain", "{d}/d.json"], "(--domain)"),
])
def test_outputs_are_checked_against_every_input(tmp_path, capsys, extra, message):
    src, _ = _small(tmp_path)
    _write(tmp_path / "h.csv", ["g", "k"], SMALL)
    (tmp_path / "sub").mkdir()
    os.symlink(tmp_path / "d.json", tmp_path / "link.json")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    args = [a.replace("{d}", str(tmp_path)) for a in extra]
    assert main(["synthesize", src, "--quiet"] + args) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("error: ") and err.count("\n") == 1, err
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    assert after == before  # nothing written, no ledger created


def test_the_domain_draft_never_overwrites_its_input(tmp_path, capsys):
    src, _ = _small(tmp_path)
    assert main(["domain", src, "-o", str(tmp_path / "." / "in.csv")]) == 2
    assert "would overwrite the input" in capsys.readouterr().err


# ------------------------------------------------------ 4. the plot's format
@pytest.mark.parametrize("name, message", [("x.csv", "cannot write .csv files"),
                                           ("x", "has no extension")])
def test_a_plot_format_matplotlib_cannot_write_is_refused_before_the_release(
        tmp_path, capsys, monkeypatch, name, message):
    pytest.importorskip("matplotlib")
    monkeypatch.setattr(commands, "estimator_class", lambda: pytest.fail("fitted"))
    src, domain = _small(tmp_path)
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--domain", domain,
                 "--plot", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert message in err and ".png" in err and ".pdf" in err
    assert not (tmp_path / "o.csv").exists()


def test_a_plot_in_another_format_is_written(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    src, domain = _small(tmp_path)
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--domain", domain,
                 "--holdout", src, "--plot", str(tmp_path / "p.svg"), "--quiet",
                 "--seed", "0"]) == 0, capsys.readouterr().err
    assert (tmp_path / "p.svg").read_text().lstrip().startswith("<?xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.json", "in.csv", "o.csv",
                                                          "p.svg"]


# ---------------------------------------------------------------- 5. long cells
class _NeverFitted(Fake):
    def fit(self, *args, **kwargs):
        pytest.fail("fitted")


def test_a_cell_over_the_csv_limit_is_one_error_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(commands, "estimator_class", lambda: _NeverFitted)
    src, domain = _small(tmp_path)
    rows = SMALL[:3] + [["a" * 140_000, 1]]
    long = _write(tmp_path / "long.csv", ["g", "k"], rows)
    out = str(tmp_path / "o.csv")
    for argv in (["synthesize", long, "-o", out, "--domain", domain],
                 ["synthesize", src, "-o", out, "--domain", domain, "--holdout", long],
                 ["domain", long, "-o", str(tmp_path / "draft.json")]):
        assert main(argv + ["--quiet"] * (argv[0] == "synthesize")) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, err
        assert f"{long}, line 5: a cell is longer than 131072 characters" in err
        assert "aaa" not in err
    assert not os.path.exists(out) and not (tmp_path / "draft.json").exists()


def test_text_that_is_not_utf8_is_one_error_line_without_the_byte(tmp_path, capsys):
    (tmp_path / "latin.csv").write_bytes("g,k\nb\xe9,1\n".encode("latin-1"))
    assert main(["domain", str(tmp_path / "latin.csv"), "-o", str(tmp_path / "d.json")]) == 2
    err = capsys.readouterr().err
    assert "is not UTF-8 text" in err and "0xe9" not in err


# --------------------------------------------------------- 6. Ctrl-C and SIGTERM
@pytest.mark.parametrize("signum, status, word", [(signal.SIGTERM, 143, "terminated"),
                                                  (signal.SIGINT, 130, "interrupted")])
def test_a_signal_during_the_write_ends_cleanly(tmp_path, signum, status, word):
    src, domain = _small(tmp_path)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(  # SIGINT as in a terminal, even if this process ignores it
        [sys.executable, "-m", "skdp", "synthesize", src, "-o", str(tmp_path / "o.csv"),
         "--domain", domain, "--n-samples", str(10**7), "--seed", "0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for line in proc.stderr:  # the write has begun
            if line.startswith("writing"):
                break
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == status, err
    assert err == f"{word}: nothing written\n" and out == ""
    assert sorted(os.listdir(tmp_path)) == ["d.json", "in.csv"]  # no .skdp-*.csv.part


class _Interrupted(skdp.SaddlePointSynthesizer):
    """Raises ``error`` in the fit right after its budget is reserved and the data read."""

    error = KeyboardInterrupt

    def _budget(self, *args, **kwargs):
        raise self.error()


@pytest.mark.parametrize("error, status, word", [(KeyboardInterrupt, 130, "interrupted"),
                                                 (Terminated, 143, "terminated")])
def test_an_interrupted_fit_keeps_its_ledger_reservation_and_says_so(
        tmp_path, capsys, monkeypatch, error, status, word):
    monkeypatch.setattr(_Interrupted, "error", error)
    monkeypatch.setattr(commands, "estimator_class", lambda: _Interrupted)
    src, domain = _small(tmp_path)
    ledger = str(tmp_path / "l.sqlite")
    argv = ["synthesize", src, "-o", str(tmp_path / "o.csv"), "--domain", domain, "--quiet",
            "--store", ledger, "--dataset", "t", "--budget-epsilon", "5",
            "--budget-delta", "1e-5"]
    assert main(argv) == status
    err = capsys.readouterr().err
    assert err.startswith(f"{word}: nothing written; the budget store {ledger} keeps this fit's "
                          "reservation (epsilon=1, delta=4e-07) charged to dataset t, as "
                          "for any interrupted fit: the data may have been read")
    assert err.count("\n") == 1 and "Traceback" not in err
    from skdp.privacy.store import STATUSES, BudgetStore

    assert [r["status"] for r in BudgetStore(ledger).rows("t", STATUSES)] == ["reserved"]


def test_an_interrupt_after_the_fit_says_the_spend_is_charged(tmp_path, capsys, monkeypatch):
    def broken(chunks, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "write_rows", broken)
    src, domain = _small(tmp_path)
    ledger = str(tmp_path / "l.sqlite")
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--domain", domain,
                 "--quiet", "--store", ledger, "--dataset", "t", "--budget-epsilon", "5",
                 "--budget-delta", "1e-5"]) == 130
    err = capsys.readouterr().err
    assert err == (f"interrupted: nothing written; the budget store {ledger} keeps the release's "
                   "spend (epsilon=1, delta=4e-07) charged to dataset t: the fit had run\n")
    # while reading the rows (after the reservation, issue 28): the reservation stays charged
    monkeypatch.setattr(commands, "estimator_class", lambda: _Interrupted)
    monkeypatch.setattr(commands, "typed_table", broken)
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--domain", domain,
                 "--quiet", "--store", ledger, "--dataset", "t"]) == 130
    assert capsys.readouterr().err.startswith(
        f"interrupted: nothing written; the budget store {ledger} keeps this fit's reservation")


def test_the_interrupt_line_says_what_was_written():
    from types import SimpleNamespace

    from skdp._cli.interrupt import interrupted_line

    args = SimpleNamespace(stage="written", output="o.csv", plot="p.png", store=None)
    assert interrupted_line(args, False) == "interrupted: o.csv was written, the plot p.png " \
        "was not"
    args = SimpleNamespace(stage="checks", output="o.csv", store="nowhere.sqlite")
    assert interrupted_line(args, True) == "terminated: nothing written; nothing was charged " \
        "to the budget store nowhere.sqlite"
    assert not os.path.exists("nowhere.sqlite")


# ------------------------------------------------ 7. numbers read as categories
def test_columns_mostly_numeric_but_categorical_are_named_in_the_warning(tmp_path, capsys,
                                                                       fake):
    rows = [[f"{0.37 * i:.2f}" if i % 25 else ["inf", "-inf"][i % 2], i % 3,
             f"{i}.5" if i % 30 else "n/a", ["x", "y"][i % 2]] for i in range(100)]
    src = _write(tmp_path / "in.csv", ["score", "k", "w", "c"], rows)
    out = str(tmp_path / "o.csv")
    assert main(["synthesize", src, "-o", out, "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "Column(s) ['score', 'w'] are read as categorical although most of their cells " \
        "are numbers" in err
    assert '{"low": .., "high": ..} entry' in err and "--na-values" in err
    assert "0.37" not in err and "n/a" not in err  # names only: no value from the data
    # --domain private: named in the warning on the kinds
    assert main(["synthesize", src, "-o", out, "--quiet", "--domain", "private"]) == 0
    assert "Column(s) ['score', 'w'] are read as categorical" in capsys.readouterr().err
    # the draft job names them too
    assert main(["domain", src, "-o", str(tmp_path / "d.json")]) == 0
    assert "Column(s) ['score', 'w'] are read" in capsys.readouterr().err
    # the stray spellings declared missing: numeric, not named
    assert main(["synthesize", src, "-o", out, "--quiet",
                 "--na-values", "NA,inf,-inf,n/a"]) == 0
    err = capsys.readouterr().err
    assert "are read as categorical" not in err
    assert Fake.last.params["domain"]["score"]["low"] == 0.37


def test_inf_in_a_numeric_column_is_an_error_with_the_fix(tmp_path, capsys, fake):
    src = _write(tmp_path / "in.csv", ["x"], [["1.5"], ["inf"], ["2"]])
    (tmp_path / "d.json").write_text(json.dumps({"x": {"low": 0, "high": 5}}))
    argv = ["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet",
            "--domain", str(tmp_path / "d.json")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "line 3: column 'x' is numeric in the domain but the cell is not a finite " \
        "number" in err and "--na-values" in err
    assert main(argv + ["--na-values", "inf"]) == 0
    assert Fake.last.X[1, 0] is None  # read as missing
    with pytest.raises(SystemExit):
        main(["synthesize", "--help"])
    assert "'inf', '-inf'" in capsys.readouterr().out  # the rule is in --help


# --------------------------------------------------------- 8. clipping, said once
def test_clipping_to_the_bounds_is_said_once_as_a_rule(tmp_path, capsys, fake):
    src = _write(tmp_path / "in.csv", ["x", "y", "c"],
                 [[i * 7.3, i * 0.1, "a"] for i in range(40)])
    out = str(tmp_path / "o.csv")

    def run(domain, *extra):
        (tmp_path / "d.json").write_text(json.dumps(domain))
        assert main(["synthesize", src, "-o", out, "--domain", str(tmp_path / "d.json"),
                     *extra]) == 0
        return capsys.readouterr().err

    err = run({"x": {"low": 0, "high": 100}, "y": {"low": 0, "high": 1}, "c": ["a"]})
    assert err.count(CLIPPING_NOTE) == 1 and err.index(CLIPPING_NOTE) < err.index("reading")
    assert not any(ch.isdigit() for ch in CLIPPING_NOTE)  # a rule: no count, no value
    assert run({"x": {"low": 0, "high": 100}, "y": {"kind": "numeric"}, "c": ["a"]},
               "--quiet").count(CLIPPING_NOTE) == 1  # said with --quiet too
    assert CLIPPING_NOTE not in run({"c": ["a"]}, "--quiet")  # bounds read from the data
    assert main(["synthesize", src, "-o", out, "--domain", "private", "--quiet"]) == 0
    assert capsys.readouterr().err.count(CLIPPING_NOTE) == 1


# ---------------------------------------------------- 9. column names in progress
def test_progress_lines_name_columns(capsys):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(200, 3))
    est = skdp.SaddlePointSynthesizer(solver="mst", domain={0: 3, 1: 3, 2: 3}, verbose=1,
                                      random_state=0, epsilon=1.0)
    est.fit(X)
    err = capsys.readouterr().err
    assert "[mst] edge 1/2: (x" in err and "(0," not in err and "(1," not in err
    names = ["mean radius", "city", "age"]
    est.set_params(solver="aim", domain=dict(zip(names, [3, 3, 3])),
                   solver_options={"max_rounds": 3}).fit(X, feature_names=names)
    err = capsys.readouterr().err
    assert "[aim] round 1: measured ('" in err
    assert any(f"'{n}'" in err for n in names) and "(0" not in err


def test_dense_solvers_print_progress_when_stderr_is_not_a_terminal(capsys, monkeypatch):
    """issue 30: smd printed its last line only when stderr was a log or a pipe (silent for
    minutes); now a line at most every PROGRESS_SECONDS, the first and the last."""
    from skdp import synthesizer

    X = np.random.default_rng(0).integers(0, 3, size=(200, 3))
    est = skdp.SaddlePointSynthesizer(solver="smd", domain={0: 3, 1: 3, 2: 3}, verbose=1,
                                      random_state=0, epsilon=1.0, n_iter=200, tol=0.0)
    monkeypatch.setattr(synthesizer, "PROGRESS_SECONDS", 0.0)
    est.fit(X)
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("[smd]")]
    assert len(lines) >= 10 and lines[-1].startswith("[smd] 200/200")  # pytest: not a tty
    monkeypatch.setattr(synthesizer, "PROGRESS_SECONDS", 3600.0)
    est.fit(X)
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("[smd]")]
    assert len(lines) == 2 and lines[0].startswith("[smd] 10/200")  # the first, the last
    est.set_params(verbose=0).fit(X)
    assert "[smd]" not in capsys.readouterr().err


def test_a_table_too_wide_for_aim_is_refused_up_front_with_the_estimate(tmp_path, capsys):
    """issue 30: 2,000 columns ran for 15 minutes; refused before the budget is reserved,
    the message naming the estimate and the parameters to change."""
    acc = skdp.BudgetAccountant()
    X = np.zeros((5, 400), dtype=np.int64)
    est = skdp.SaddlePointSynthesizer(solver="aim", accountant=acc, domain={0: 2})
    with pytest.raises(ValueError, match=r"80200 of them, more than "
                       r"solver_options\['max_candidates'\]=50000.*minutes"):
        est.fit(X)
    assert acc.total() == (0.0, 0.0)  # nothing reserved nor charged
    est.set_params(solver="auto")
    with pytest.raises(ValueError, match="max_candidates"):
        est.fit(X)
    # a list workload counts its downward closure; the cap is an option
    est.set_params(solver="aim", workload=[(0, 1), (1, 2)],
                   solver_options={"max_candidates": 4})
    with pytest.raises(ValueError, match="has 5 of them"):
        est.fit(X)
    skdp.SaddlePointSynthesizer(solver="mst")._check_width(400)  # not aim: not refused
    # the command line: refused before a row is read, in its own flags
    src = _write(tmp_path / "wide.csv", [f"c{j}" for j in range(400)], [[1] * 400] * 3)
    assert main(["synthesize", src, "-o", str(tmp_path / "o.csv"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "80200" in err and "--workload 1" in err and "--solver mst" in err
    assert "--solver-options '{\"max_candidates\": N}'" in err and "reading" not in err
