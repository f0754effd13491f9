"""The release report (issue 30 item 5): ``SaddlePointSynthesizer.report`` and
``synthesize --report``.

* It is built from the fitted model's released attributes, the synthetic rows and an
  optional holdout only: no parameter takes the training data, the attributes it reads
  are the published ones (recorded through a proxy), and an unpickled model gives the
  same page.
* It renders: the page parses (html.parser: no headless browser installs offline from
  the package registries, a browser needs a download), its tags balance, every plot is
  an inline ``<svg>`` (counted), nothing is loaded from elsewhere, and there is no
  ``<script>`` at all (so no script error); user strings are escaped.
* Its statement of fit is the named formula: the residual of a model equal to the truth
  is the noise (ratio about 1), and a measurement whose noise was halved is caught.
"""

import inspect
import pickle

import numpy as np
import pytest
from scipy import stats

from skdp import BudgetAccountant, SaddlePointSynthesizer
from skdp._synth import report as rep
from skdp.__main__ import main

from _report_page import check_renders
from _toy import Spy

pd = pytest.importorskip("pandas")

rng = np.random.default_rng(0)
N = 600
AGE = rng.integers(18, 60, N)
TABLE = pd.DataFrame({
    "age": AGE,
    "income": np.round(AGE * 40 + rng.gamma(2.0, 300.0, N), 1),
    "city": rng.choice(["Lyon", "Paris", "Nice"], N),
    "smoker": np.where(AGE + rng.normal(0, 8, N) > 40, "yes", "no"),
})
DOMAIN = {"age": {"low": 18, "high": 60, "integer": True, "missing": False},
          "income": {"low": 0, "high": 6000, "missing": False},
          "city": {"categories": ["Lyon", "Paris", "Nice"], "missing": False},
          "smoker": {"categories": ["yes", "no"], "missing": False}}
TRAIN, HOLD = TABLE.iloc[:400], TABLE.iloc[400:].reset_index(drop=True)
# a plot per column, plus one per numeric column with a fine grid, plus the fit's
N_BASE = 4 + 2 + 1


def _fit(solver="smd", **kw):
    kw = dict(dict(domain=DOMAIN, n_bins=4, random_state=0, accountant=BudgetAccountant()),
              **kw)
    return SaddlePointSynthesizer(solver=solver, **kw).fit(TRAIN)


@pytest.fixture(scope="module")
def smd():
    return _fit("smd", n_iter=50)


@pytest.fixture(scope="module")
def mst():
    return _fit("mst")


# ------------------------------------------------------------ no private data
def test_the_report_takes_no_training_data_argument():
    # `labels`: how a column's values are written (functions of a value, e.g. days as ISO
    # dates), no table
    params = list(inspect.signature(SaddlePointSynthesizer.report).parameters)
    assert params == ["self", "path", "synthetic", "holdout", "target", "title", "labels"]
    assert list(inspect.signature(rep.release_report).parameters) == \
        ["est", "synthetic", "holdout", "target", "title", "labels"]


@pytest.mark.parametrize("solver", ["smd", "mst"])
def test_the_report_reads_only_released_attributes(solver, smd, mst):
    est = {"smd": smd, "mst": mst}[solver]
    spy = Spy(est)
    page = rep.release_report(spy, synthetic=est.sample(random_state=1), holdout=HOLD)
    allowed = set(est.published_attributes()) | set(est.get_params()) | {
        "_columns",  # the fitted domain: domain_, resolution_, compression_ as objects
        "sample"}    # draws from the release (post-processing)
    assert spy.read <= allowed, spy.read - allowed
    assert "measurements_" in spy.read and "privacy_ledger_" in spy.read
    assert "Not private" in page  # the holdout sections say what they are


def test_an_unpickled_model_gives_the_same_page(smd):
    synthetic = smd.sample(random_state=1)
    clone = pickle.loads(pickle.dumps(smd))
    assert clone.report(synthetic=synthetic) == smd.report(synthetic=synthetic)


# ------------------------------------------------------------------ renders
@pytest.mark.parametrize("solver", ["smd", "mst", "aim", "mwem"])
def test_the_page_renders_every_plot(solver, smd, mst, tmp_path):
    est = {"smd": smd, "mst": mst}.get(solver) or _fit(solver)
    path = tmp_path / "report.html"
    page = est.report(path, synthetic=est.sample(random_state=1))
    assert path.read_text(encoding="utf-8") == page
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no partial file left
    parsed = check_renders(page, N_BASE if est.measurements_ else N_BASE - 1)
    text = " ".join(parsed.text)
    for name in TABLE.columns:
        assert name in text
    assert "What was released" in text and "replace-one" in text
    if not est.measurements_:  # mwem, private games: said, not plotted
        assert "released no noisy marginal measurement" in text


def test_with_holdout_and_target_the_utility_section_renders(smd):
    page = smd.report(holdout=HOLD, target="smoker")  # rows drawn from the model
    parsed = check_renders(page, N_BASE + 2)
    text = " ".join(parsed.text)
    assert text.count("Not private.") == 2
    assert "trained on the synthetic rows" in text and "accuracy" in text


def test_holdout_categories_the_domain_lacks_are_counted_and_named(smd):
    hold = HOLD.copy()
    hold.loc[:4, "city"] = "Brest"  # a city only the holdout holds: 5 cells
    text = " ".join(check_renders(smd.report(holdout=hold), N_BASE + 1).text)
    assert "Holdout cells whose category the domain lacks" in text and "city 5" in text
    assert "domain lacks" not in " ".join(check_renders(smd.report(holdout=HOLD),
                                                        N_BASE + 1).text)


def test_report_arguments_are_checked(smd):
    with pytest.raises(ValueError, match="target 'nope' is not a column"):
        smd.report(holdout=HOLD, target="nope")
    with pytest.raises(ValueError, match="target needs a holdout"):
        smd.report(target="smoker")
    with pytest.raises(ValueError, match="holdout has the columns"):
        smd.report(holdout=HOLD[["age", "city", "income", "smoker"]])


def test_user_strings_are_escaped():
    bad = '<script>alert("x")</script>'
    cat = '"><img src=x onerror=alert(1)>'
    X = pd.DataFrame({bad: rng.choice([cat, "b"], 200), "n": rng.integers(0, 3, 200)})
    est = SaddlePointSynthesizer(domain={bad: [cat, "b"], "n": [0, 1, 2]}, n_iter=20,
                                 random_state=0, accountant=BudgetAccountant()).fit(X)
    page = est.report(synthetic=est.sample(random_state=1), holdout=X, target="n",
                      title="<b>title</b>")
    parsed = check_renders(page, 2 + 1 + 2)
    assert "b" not in parsed.tags and "<script>" not in page and "<img" not in page
    text = "".join(parsed.text)
    assert bad in text and cat in text and "<b>title</b>" in text  # shown, as text


# ------------------------------------------------------- the statement of fit
@pytest.mark.parametrize("cells", [1, 4, 50, 1000])
def test_the_expected_noise_norm_is_the_chi_mean(cells):
    assert rep.expected_noise_norm(3.0, cells) == pytest.approx(3.0 * stats.chi(cells).mean(),
                                                                rel=1e-9)
    sigmas = np.full(cells, 3.0)
    assert rep.expected_noise_norm(sigmas, cells) == pytest.approx(3.0 * np.sqrt(cells))


def _with_measurements(est, scale, seed):
    """A copy of ``est`` whose measurements are its own model's counts plus Gaussian noise
    of ``scale`` times the sigma they claim."""
    fake = pickle.loads(pickle.dumps(est))
    noise = np.random.default_rng(seed)
    for m in fake.measurements_:
        cols = [list(fake.domain_).index(c) for c in m["marginal"]]
        exact = rep._model_counts(fake, cols, False).ravel()
        m["counts"] = exact + scale * m["sigma"] * noise.normal(size=exact.size)
    return fake


def _mean_ratio(est, scale):
    return np.mean([norm / exp for seed in range(30)
                    for _, _, _, norm, exp in rep.residuals(_with_measurements(est, scale, seed))])


def test_a_model_equal_to_the_truth_has_a_ratio_near_one_and_halved_noise_is_caught(smd):
    # 30 draws of the 6 measurements: the mean ratio's sd is about 0.02
    assert 0.93 < _mean_ratio(smd, 1.0) < 1.07
    assert 0.43 < _mean_ratio(smd, 0.5) < 0.57


def test_the_one_way_panel_sums_the_smallest_measurement(smd):
    counts, sd = rep._noisy_oneway(smd, 2)  # city: (city, smoker), 3 x 2 cells
    m = min((m for m in smd.measurements_ if "city" in m["marginal"]),
            key=lambda m: m["counts"].size)
    assert m["marginal"] == ("city", "smoker")
    axis = m["marginal"].index("city")
    other = 1 - axis
    np.testing.assert_allclose(counts, m["counts"].reshape(m["shape"]).sum(axis=other))
    np.testing.assert_allclose(sd, m["sigma"] * np.sqrt(m["shape"][other]))


def test_measurements_are_the_released_noisy_counts(smd, mst):
    # smd: one per workload marginal, its noise the ledger's; mst: its 1-way and tree ones
    assert [m["marginal"] for m in smd.measurements_] == smd.marginals_
    assert {m["sigma"] for m in smd.measurements_} == {smd.solver_info_["noise_std_counts"]}
    assert [m["marginal"] for m in mst.measurements_] == mst.cliques_
    for m in smd.measurements_ + mst.measurements_:
        assert m["counts"].shape == (int(np.prod(m["shape"])),)


# ------------------------------------------------------------------ the CLI
def _csv(path, frame):
    frame.to_csv(path, index=False)
    return str(path)


def test_the_cli_writes_the_report(tmp_path):
    import json

    src, hold = _csv(tmp_path / "in.csv", TRAIN), _csv(tmp_path / "hold.csv", HOLD)
    dom = tmp_path / "dom.json"
    dom.write_text(json.dumps(DOMAIN))
    out, page = str(tmp_path / "out.csv"), tmp_path / "report.html"
    assert main(["synthesize", src, "-o", out, "--domain", str(dom), "--n-bins", "4",
                 "--quiet", "--seed", "0", "--holdout", hold, "--report", str(page),
                 "--report-target", "city"]) == 0
    text = page.read_text(encoding="utf-8")
    check_renders(text, N_BASE + 2)
    assert "Release report: out.csv" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["dom.json", "hold.csv", "in.csv", "out.csv", "report.html"]


@pytest.mark.parametrize("extra, message", [
    (["--report-target", "city"], "--report-target needs --report and --holdout"),
    (["--report", "R", "--holdout", "H", "--report-target", "nope"], "is not a column"),
    (["--report", "in.csv"], "would overwrite the input"),
])
def test_the_cli_checks_the_report_flags_before_reading(tmp_path, capsys, extra, message):
    src = _csv(tmp_path / "in.csv", TRAIN)
    _csv(tmp_path / "H", HOLD)
    extra = [str(tmp_path / e) if e in ("R", "H", "in.csv") else e for e in extra]
    assert main(["synthesize", src, "-o", str(tmp_path / "out.csv"), "--quiet"] + extra) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


def test_a_column_mst_compressed_is_shown_on_its_compressed_cells():
    # 20 codes, 3 frequent: mst merges the rare ones (noisy count below 3 sigma)
    codes = np.where(rng.random(500) < 0.9, rng.integers(0, 3, 500), rng.integers(3, 20, 500))
    X = pd.DataFrame({"code": codes, "b": rng.integers(0, 2, 500)})
    est = SaddlePointSynthesizer(solver="mst", domain={"code": 20, "b": 2}, random_state=0,
                                 accountant=BudgetAccountant()).fit(X)
    assert 0 in est.model_.merges  # the premise
    page = est.report(synthetic=est.sample(random_state=1), holdout=X)
    parsed = check_renders(page, 2 + 1 + 1)
    assert any(t.startswith("rare (") for t in parsed.text)
    assert all(np.isfinite(r[3]) for r in rep.residuals(est))
