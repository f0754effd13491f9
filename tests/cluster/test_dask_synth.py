"""SaddlePointSynthesizer on Dask (issue 20): fit by count reductions, sample_dask, the CLI."""

import warnings

import numpy as np
import pytest

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
pd = pytest.importorskip("pandas")

import dask  # noqa: E402

from skdp._cli import main  # noqa: E402
from skdp.exceptions import PrivacyLeakWarning  # noqa: E402
from skdp.privacy.accountant import BudgetAccountant  # noqa: E402
from skdp.synthesizer import SaddlePointSynthesizer  # noqa: E402

CUTS = (0, 300, 300, 1100, 2000)  # partitions of 300, 0, 800 and 900 rows
DOMAIN = {"a": ["x", "y", "z"], "b": 4, "c": (-3.0, 3.0), "d": ["p", "q"]}


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    n = CUTS[-1]
    df = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n, p=[0.6, 0.3, 0.1]).astype(object),
                       "b": rng.integers(0, 4, n), "c": rng.normal(size=n),
                       "d": rng.choice(["p", "q"], n).astype(object)})
    df.loc[[7, 1500], "c"] = np.nan
    return df


def _dask_frame(df):
    pieces = [dask.delayed(df.iloc[a:b]) for a, b in zip(CUTS[:-1], CUTS[1:])]
    return dd.from_delayed(pieces, meta=df.iloc[:0], verify_meta=False)


def _fit_both(df, client, **params):
    params = dict(domain=DOMAIN, random_state=0, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # the same seed, twice
        a = SaddlePointSynthesizer(**params).fit(df)
        b = SaddlePointSynthesizer(**params).fit(_dask_frame(df))
    return a, b


def _assert_same_release(a, b):
    assert b.privacy_ledger_ == a.privacy_ledger_
    assert b.privacy_spent_ == pytest.approx(a.privacy_spent_, rel=1e-12)
    assert b.n_records_ == a.n_records_ and b.domain_ == a.domain_
    assert b.compression_ == a.compression_
    if hasattr(a, "model_"):
        assert b.cliques_ == a.cliques_
        for m in a._marginal_index:
            np.testing.assert_allclose(b.model_.marginal(m), a.model_.marginal(m),
                                       rtol=1e-6, atol=1e-9)
    else:
        np.testing.assert_allclose(b.histogram_, a.histogram_, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("solver, options", [
    ("mst", None), ("aim", {"max_rounds": 4, "round_iter": 20}), ("smd", None),
    ("mwem", None)])
def test_dask_fit_equals_pandas_fit(table, dask_client, solver, options):
    a, b = _fit_both(table, dask_client, solver=solver, solver_options=options, n_iter=50)
    _assert_same_release(a, b)
    sa, sb = a.sample(40, random_state=1), b.sample(40, random_state=1)
    assert (sa.astype(object).fillna(-1) == sb.astype(object).fillna(-1)).all().all()


@pytest.mark.parametrize("solver", ["mst", "smd"])
def test_workload_error_of_a_dask_holdout(table, dask_client, solver):
    a, b = _fit_both(table, dask_client, solver=solver, n_iter=20)
    want = a.workload_error(table)
    got = b.workload_error(_dask_frame(table))
    assert got.keys() == want.keys()
    np.testing.assert_allclose(list(got.values()), list(want.values()), rtol=1e-9)
    with pytest.raises(ValueError, match="fitted on"):
        b.workload_error(_dask_frame(table)[["a", "b"]])


def test_dask_domain_releases_and_drop_equal_pandas(table, dask_client):
    # compression and quantile bins are count reductions; missing='drop' changes n
    a, b = _fit_both(table, dask_client, solver="mst", max_categories=2,
                     bin_strategy="quantile", missing="drop", neighbouring="add_remove",
                     n_iter=50)
    assert a.compression_ and a.bin_edges_
    _assert_same_release(a, b)
    for name, edges in a.bin_edges_.items():
        np.testing.assert_allclose(b.bin_edges_[name], edges)


def test_dask_array_fit_equals_numpy_fit(dask_client):
    X = np.random.default_rng(1).integers(0, 3, size=(1000, 3))
    dX = da.from_array(X, chunks=((200, 0, 500, 300), (3,)))
    params = dict(domain={0: 3, 1: 3, 2: 3}, solver="aim", random_state=0,
                  solver_options={"max_rounds": 3, "round_iter": 20}, n_iter=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        a = SaddlePointSynthesizer(**params).fit(X)
        b = SaddlePointSynthesizer(**params).fit(dX)
    _assert_same_release(a, b)
    assert b.n_features_in_ == 3 and not hasattr(b, "feature_names_in_")
    table = b.sample_dask(50, npartitions=2, random_state=0)
    assert isinstance(table, da.Array) and table.compute().shape == (50, 3)


def test_the_accountant_is_charged_as_for_pandas(table, dask_client):
    spent = []
    for X in (table, _dask_frame(table)):
        acc = BudgetAccountant(10.0, 1e-3)
        SaddlePointSynthesizer(domain=DOMAIN, solver="mst", accountant=acc,
                               n_iter=20).fit(X)
        spent.append(acc.total())
    assert spent[1] == pytest.approx(spent[0])


@pytest.mark.parametrize("params, match", [
    (dict(domain={"b": 4, "c": (-3.0, 3.0), "d": ["p", "q"]}), r"domain must be public.*'a'"),
    (dict(domain="private"), "domain must be public"),
    (dict(domain=DOMAIN, solver="smd_vertex"), "cannot run on a Dask collection"),
    (dict(domain={**DOMAIN, "a": ["x", "y"]}), "not among its 2 domain categories"),
    (dict(domain=DOMAIN, missing="error"), "column 'c' has missing values"),
])
def test_clear_errors(table, dask_client, params, match):
    with pytest.raises(ValueError, match=match):
        SaddlePointSynthesizer(**params).fit(_dask_frame(table))


def test_sample_dask_is_a_seeded_partitioned_table(table, dask_client):
    _, synth = _fit_both(table, dask_client, solver="mst", n_iter=20)
    out = synth.sample_dask(1001, npartitions=3, random_state=5)
    like = synth.sample(5)
    assert list(out.columns) == list(like.columns)
    assert list(out.dtypes) == list(like.dtypes)
    assert out.map_partitions(len).compute().tolist() == [334, 333, 334]
    first, again = out.compute(), synth.sample_dask(1001, npartitions=3, random_state=5).compute()
    pd.testing.assert_frame_equal(first, again)
    assert first.index.tolist() == list(range(1001))
    other = synth.sample_dask(1001, npartitions=3, random_state=6).compute()
    assert not first.equals(other)
    assert synth.sample_dask(2, npartitions=5).npartitions == 2
    assert len(synth.sample_dask(0).compute()) == 0
    with pytest.raises(ValueError, match="npartitions"):
        synth.sample_dask(10, npartitions=0)


@pytest.fixture
def parquet_glob(tmp_path, table):
    folder = tmp_path / "data"
    folder.mkdir()
    for i, (a, b) in enumerate(zip(CUTS[:-1], CUTS[1:])):
        table.iloc[a:b].to_parquet(folder / f"part{i}.parquet")
        table.iloc[a:b].to_csv(folder / f"part{i}.csv", index=False)
    domain = tmp_path / "domain.json"
    domain.write_text('{"a": ["x", "y", "z"], "b": 4, "c": {"low": -3, "high": 3}, '
                      '"d": ["p", "q"]}')
    return folder, str(domain)


@pytest.mark.parametrize("scheduler", [False, True])
def test_cli_parquet_globs(parquet_glob, tmp_path, dask_client, scheduler, capsys):
    folder, domain = parquet_glob
    out = tmp_path / "out"
    args = ["synthesize", str(folder / "*.parquet"), "-o", str(out / "*.parquet"),
            "--domain", domain, "--solver", "mst", "--seed", "0", "--quiet",
            "--n-samples", "700"]
    if scheduler:
        args += ["--scheduler", dask_client.scheduler.address]
        assert main(args) == 0
    else:
        with dask.config.set(scheduler="threads"):
            assert main(args) == 0
    assert "wrote 700 synthetic rows" in capsys.readouterr().out
    synth = pd.read_parquet(out)
    assert len(synth) == 700 and list(synth.columns) == ["a", "b", "c", "d"]
    assert set(synth["a"].dropna()) <= {"x", "y", "z"}


def test_cli_csv_glob_and_errors(parquet_glob, tmp_path, dask_client, capsys):
    folder, domain = parquet_glob
    out = tmp_path / "out.csv"
    assert main(["synthesize", str(folder / "*.csv"), "-o", str(out), "--domain", domain,
                 "--seed", "0", "--quiet"]) == 0
    synth = pd.read_csv(out)
    assert len(synth) == CUTS[-1] and list(synth.columns) == ["a", "b", "c", "d"]
    capsys.readouterr()
    assert main(["synthesize", str(folder / "*.csv"), "-o", str(out), "--quiet"]) == 2
    assert "needs --domain FILE" in capsys.readouterr().err
    assert main(["synthesize", str(folder / "*.csv"), "-o", str(tmp_path / "o.parquet"),
                 "--domain", domain, "--quiet"]) == 2
    assert "give a glob" in capsys.readouterr().err
