"""KLAdaptiveRegressor on Dask arrays (issue 20): each pass one reduction over partitions, the
noise drawn on the client, the fit equal to the NumPy fit of the same data and seed."""

import numpy as np
import pytest

pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from skdp import regression  # noqa: E402
from skdp.exceptions import PrivacyLeakWarning  # noqa: E402
from skdp.privacy.accountant import BudgetAccountant  # noqa: E402
from skdp.regression import KLAdaptiveRegressor  # noqa: E402
import skdp._dask as skdp_dask  # noqa: E402

ROWS = (700, 0, 1500, 800)  # unequal partitions, one empty


def _data(d=4, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(sum(ROWS), d)) / 2
    y = np.clip(X @ rng.normal(size=d) / 2 + 0.1 * rng.normal(size=len(X)), -1, 1)
    return X.astype(dtype), y.astype(dtype)


def _chunked(X):
    return da.from_array(X, chunks=(ROWS, (X.shape[1],)))


def _releases(reg):
    """(kind, label, count) and (epsilon, rho, mu, q) of each release (nan where its kind has
    no such field)."""
    return [(e.kind, e.label, e.count, *(_number(getattr(e, f, None)) for f in
                                         ("epsilon", "rho", "mu", "q")))
            for e in reg.privacy_ledger_.entries]


def _number(value):
    return np.nan if value is None else value


def _assert_same_fit(a, b, rtol=1e-6):
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=rtol, atol=rtol * 1e-2)
    assert b.intercept_ == pytest.approx(a.intercept_, rel=rtol, abs=rtol * 1e-2)
    assert (b.solver_, b.n_iter_) == (a.solver_, a.n_iter_)
    assert b.clip_norm_ == pytest.approx(a.clip_norm_, rel=rtol)
    released_a, released_b = _releases(a), _releases(b)
    assert [r[:3] for r in released_b] == [r[:3] for r in released_a]
    np.testing.assert_allclose([r[3:] for r in released_b], [r[3:] for r in released_a],
                               rtol=rtol)
    assert b.privacy_spent_ == pytest.approx(a.privacy_spent_)


@pytest.mark.parametrize("params", [
    dict(),  # auto: adaptive_gd
    dict(solver="noisy_gd"),
    dict(solver="dpsgd_poisson", max_iter=20),
    dict(solver="stationary_gd", max_iter=15),
    dict(solver="spider", alpha=0.01, max_iter=12),
    dict(solver="ppm", max_iter=12),
    dict(solver="noisy_gd", model="mlp", hidden_units=3, max_iter=4),
])
def test_dask_fit_equals_numpy_fit(dask_client, params):
    X, y = _data()
    a = KLAdaptiveRegressor(random_state=0, **params).fit(X, y)
    b = KLAdaptiveRegressor(random_state=0, **params).fit(_chunked(X), da.from_array(y))
    _assert_same_fit(a, b)


def test_float32_and_clip_subsample(dask_client, monkeypatch):
    """float32 stays float32; the clip quantile's public subset of rows is read with
    reduce_rows (CLIP_ROWS lowered so that the subset is drawn on small data)."""
    monkeypatch.setattr(regression, "CLIP_ROWS", 1000)
    X, y = _data(dtype=np.float32)
    a = KLAdaptiveRegressor(random_state=1, max_iter=5).fit(X, y)
    b = KLAdaptiveRegressor(random_state=1, max_iter=5).fit(_chunked(X), y)
    assert b.coef_.dtype == np.float32
    assert "gradient-norm histogram" in [e.label for e in b.privacy_ledger_.entries]
    _assert_same_fit(a, b, rtol=1e-4)


def test_data_bounds_warn_and_match(dask_client):
    X, y = _data()
    params = dict(feature_bound="data", target_bound="data", solver="noisy_gd", random_state=0)
    fits, messages = [], []
    for data in (X, _chunked(X)):
        with pytest.warns(PrivacyLeakWarning) as record:
            fits.append(KLAdaptiveRegressor(**params).fit(data, y))
        messages.append([str(w.message) for w in record if "private data" in str(w.message)])
    a, b = fits
    assert messages[1] == messages[0] and len(messages[0]) == 2
    assert (b.feature_bound_, b.target_bound_) == (a.feature_bound_, a.target_bound_)
    _assert_same_fit(a, b)


def test_accountant_records_the_same_spend(dask_client):
    X, y = _data()
    spent = []
    for data in (X, _chunked(X)):
        with BudgetAccountant(epsilon=5.0, delta=1e-3) as acc:
            KLAdaptiveRegressor(epsilon=0.5, solver="dpsgd_poisson", max_iter=10,
                                random_state=0).fit(data, y)
            spent.append(acc.composition())
    assert spent[1][2] == spent[0][2]
    assert spent[1][:2] == pytest.approx(spent[0][:2])


def test_nan_in_a_partition_fails_with_the_reservation_kept(dask_client, tmp_path):
    X, y = _data()
    X[2000, 1] = np.nan  # in the third partition
    acc = BudgetAccountant(5.0, 1e-3, store=tmp_path / "budget.sqlite", dataset="t")
    reg = KLAdaptiveRegressor(epsilon=1.0, accountant=acc, random_state=0)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        reg.fit(X, y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        reg.fit(_chunked(X), y)
    assert acc.total()[0] == pytest.approx(2.0)  # both reservations stay charged
    assert not hasattr(reg, "coef_")


def test_refused_solver_names_the_ones_that_can(dask_client, tmp_path):
    X, y = _data()
    acc = BudgetAccountant(5.0, 1e-3, store=tmp_path / "budget.sqlite", dataset="t")
    reg = KLAdaptiveRegressor(solver="fo_single_pass", loss="truncated_absolute",
                              accountant=acc)
    with pytest.raises(ValueError, match="solver='fo_single_pass' cannot run on a Dask "
                                         "collection; the solvers that can: 'adaptive_gd'"):
        reg.fit(_chunked(X), y)
    assert acc.total()[0] == 0.0  # refused before any reservation


def test_streaming_solver_cuts_the_stream_at_fixed_rows(dask_client, monkeypatch):
    # issue 28: the stream was calibrated from the first partition's size and cut at the
    # partitions' boundaries; now its length is the row count and its chunks fixed rows
    X, y = _data()
    monkeypatch.setattr(skdp_dask, "STREAM_ROWS", 1000)
    n = len(X)
    a = KLAdaptiveRegressor(solver="srgd", random_state=0, solver_options={"n_rows": n},
                            stream_chunks="disjoint")
    a.fit(X[:1000], y[:1000])
    for start in range(1000, n, 1000):
        a.partial_fit(X[start:start + 1000], y[start:start + 1000])
    for rows in (ROWS, (701, n - 701), (n,)):   # moving rows between partitions changes nothing
        b = KLAdaptiveRegressor(solver="srgd", random_state=0).fit(
            da.from_array(X, chunks=(rows, (X.shape[1],))), da.from_array(y, chunks=(rows,)))
        np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-10)
        assert b.intercept_ == pytest.approx(a.intercept_)
        assert b.n_iter_ == a.n_iter_ and _releases(b) == _releases(a)


def test_predict_is_a_dask_array(dask_client):
    X, y = _data()
    reg = KLAdaptiveRegressor(solver="noisy_gd", random_state=0).fit(X, y)
    pred = reg.predict(_chunked(X))
    assert isinstance(pred, da.Array)
    np.testing.assert_allclose(pred.compute(), reg.predict(X), rtol=1e-12)
    with pytest.raises(ValueError, match="X has 3 features"):
        reg.predict(_chunked(X[:, :3]))


def test_dask_dataframe_and_series(dask_client):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = _data()
    frame = dd.from_pandas(pd.DataFrame(X), npartitions=3)
    target = dd.from_pandas(pd.Series(y), npartitions=3)
    a = KLAdaptiveRegressor(solver="noisy_gd", random_state=0).fit(X, y)
    b = KLAdaptiveRegressor(solver="noisy_gd", random_state=0).fit(frame, target)
    _assert_same_fit(a, b)
