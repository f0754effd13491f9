"""PrivateMinimaxClassifier on Dask arrays (issue 20): the Dask fit equals the NumPy fit."""
import warnings

import numpy as np
import pytest

from skdp import BudgetAccountant
from skdp.exceptions import PrivacyLeakWarning
from skdp.minimax import UNKNOWN_LABEL_MESSAGE, PrivateMinimaxClassifier
import skdp._dask as skdp_dask

da = pytest.importorskip("dask.array")
pytest.importorskip("distributed")

CHUNKS = (300, 0, 500, 200)  # unequal partitions, one empty


def _data(n_classes=2, n=1000, p=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) / np.sqrt(p)
    X[:7] *= 4.0  # a few rows beyond feature_bound
    y = np.argmax(X[:, :n_classes] + 0.5 * rng.normal(size=(n, n_classes)), axis=1)
    groups = np.where(rng.random(n) < 0.3, "a", "b")
    return X, y, groups


def _dask(a):
    return da.from_array(a, chunks=(CHUNKS,) + a.shape[1:])


def _assert_same_fit(a, b):
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(a.group_weights_, b.group_weights_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(a.group_sizes_, b.group_sizes_, rtol=1e-9)
    assert a.solver_ == b.solver_ and a.n_iter_ == b.n_iter_
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_array_equal(a.group_labels_, b.group_labels_)
    assert a.privacy_method_ == b.privacy_method_
    np.testing.assert_allclose(a.privacy_spent_, b.privacy_spent_, rtol=1e-9)
    assert _ledger(a) == _ledger(b)


def _ledger(clf):
    return [(e.kind, e.label, e.count, _field(e, "mu"), _field(e, "q"), _field(e, "rho"))
            for e in clf.privacy_ledger_.entries]


def _field(entry, name):
    """A ledger event's field to 9 digits (``None`` where its kind has no such field)."""
    value = getattr(entry, name, None)
    return None if value is None else f"{value:.9g}"


@pytest.mark.parametrize("solver", ["noisy_gd", "dpsgd_poisson"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_dask_fit_equals_numpy_fit(dask_client, solver, n_classes):
    X, y, groups = _data(n_classes)
    params = dict(solver=solver, n_iter=30, random_state=0)
    a = PrivateMinimaxClassifier(**params).fit(X, y, groups=groups, classes=range(n_classes))
    b = PrivateMinimaxClassifier(**params).fit(_dask(X), _dask(y), groups=_dask(groups),
                                               classes=range(n_classes))
    _assert_same_fit(a, b)
    assert len(b.privacy_ledger_.entries) > 2  # group sizes, centring, the steps


def test_dask_fit_class_groups_numpy_y_and_auto(dask_client):
    X, y, _ = _data(3)
    params = dict(random_state=1, n_iter=20)
    a = PrivateMinimaxClassifier(**params).fit(X, y, classes=[0, 1, 2])
    b = PrivateMinimaxClassifier(**params).fit(_dask(X), y, classes=[0, 1, 2])  # NumPy y
    assert b.solver_ == "noisy_gd"
    _assert_same_fit(a, b)


def test_dask_fit_one_group_float32_no_intercept(dask_client):
    X, y, _ = _data(2)
    X = X.astype(np.float32)
    params = dict(solver="dpsgd_poisson", group_by=None, fit_intercept=False, random_state=2)
    a = PrivateMinimaxClassifier(**params).fit(X, y, classes=[0, 1])
    b = PrivateMinimaxClassifier(**params).fit(_dask(X), _dask(y), classes=[0, 1])
    assert b.coef_.dtype == np.float32
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-4, atol=1e-5)
    assert _ledger(a) == _ledger(b)


def test_dask_classes_read_from_y_warn(dask_client):
    X, y, groups = _data(2)
    with pytest.warns(PrivacyLeakWarning, match="classes"):
        a = PrivateMinimaxClassifier(n_iter=10, random_state=0).fit(X, y, groups=groups)
    with pytest.warns(PrivacyLeakWarning, match="classes"):
        b = PrivateMinimaxClassifier(n_iter=10, random_state=0).fit(_dask(X), _dask(y),
                                                                     groups=groups)
    _assert_same_fit(a, b)


def test_dask_public_group_sizes(dask_client):
    X, y, groups = _data(2)
    sizes = {"a": 300, "b": 700}
    params = dict(group_sizes=sizes, n_iter=10, random_state=0)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", "The set of", PrivacyLeakWarning)
        a = PrivateMinimaxClassifier(**params).fit(X, y, groups=groups, classes=[0, 1])
        b = PrivateMinimaxClassifier(**params).fit(_dask(X), _dask(y), groups=_dask(groups),
                                                   classes=[0, 1])
    _assert_same_fit(a, b)


def test_dask_spend_charged_to_accountant(dask_client):
    X, y, _ = _data(2)
    spent = []
    for X_in, y_in in [(X, y), (_dask(X), _dask(y))]:
        with BudgetAccountant() as acc:
            PrivateMinimaxClassifier(epsilon=0.5, n_iter=10, random_state=0).fit(
                X_in, y_in, classes=[0, 1])
            spent.append(acc.total())
    np.testing.assert_allclose(spent[0], spent[1])
    assert spent[1][0] > 0


def test_dask_nan_in_a_partition_keeps_reservation(dask_client, tmp_path):
    X, y, _ = _data(2)
    X[850, 1] = np.nan  # in the third partition
    path = tmp_path / "ledger.sqlite"
    acc = BudgetAccountant(epsilon=10.0, delta=1e-3, store=str(path), dataset="t")
    clf = PrivateMinimaxClassifier(accountant=acc, n_iter=10, random_state=0)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        clf.fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="Input X contains NaN"):
        clf.fit(_dask(X), _dask(y), classes=[0, 1])
    assert not hasattr(clf, "coef_")
    reloaded = BudgetAccountant(epsilon=10.0, delta=1e-3, store=str(path), dataset="t")
    assert reloaded.total()[0] == pytest.approx(2.0)  # both reservations stay charged


def test_dask_unknown_label_fixed_message(dask_client):
    X, y, _ = _data(2)
    y = y.copy()
    y[900] = 7
    with pytest.raises(ValueError, match="y contains a label that is not in classes_"):
        PrivateMinimaxClassifier(n_iter=5, random_state=0).fit(_dask(X), _dask(y),
                                                                classes=[0, 1])
    assert UNKNOWN_LABEL_MESSAGE.startswith("y contains")


@pytest.mark.parametrize("solver", ["sgda", "smd", "mlmc"])
def test_dask_refused_solver_names_those_that_can(dask_client, solver):
    X, y, _ = _data(2)
    clf = PrivateMinimaxClassifier(solver=solver, group_by=None)
    with BudgetAccountant() as acc:
        with pytest.raises(ValueError, match="cannot run on a Dask collection.*'dpsgd_poisson'"):
            clf.fit(_dask(X), _dask(y), classes=[0, 1])
        assert acc.total()[0] == 0  # refused before the data were read: nothing reserved


def test_dask_predict_returns_dask_arrays(dask_client):
    X, y, _ = _data(3)
    clf = PrivateMinimaxClassifier(n_iter=10, random_state=0).fit(X, y, classes=[0, 1, 2])
    Xd = _dask(X)
    for method in ("decision_function", "predict_proba", "predict"):
        got = getattr(clf, method)(Xd)
        assert isinstance(got, da.Array)
        np.testing.assert_allclose(got.compute(), getattr(clf, method)(X), rtol=1e-12)
    binary = PrivateMinimaxClassifier(n_iter=10, random_state=0).fit(X, y > 0, classes=[0, 1])
    np.testing.assert_allclose(binary.decision_function(Xd).compute(),
                               binary.decision_function(X), rtol=1e-12)
    np.testing.assert_array_equal(binary.predict(Xd).compute(), binary.predict(X))


def test_dask_exact_fit_at_epsilon_inf(dask_client):
    X, y, _ = _data(3)
    a = PrivateMinimaxClassifier(epsilon=np.inf, random_state=0).fit(X, y, classes=[0, 1, 2])
    b = PrivateMinimaxClassifier(epsilon=np.inf, random_state=0).fit(_dask(X), _dask(y),
                                                                      classes=[0, 1, 2])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(a.group_weights_, b.group_weights_, rtol=1e-5, atol=1e-7)
    assert _ledger(a) == _ledger(b)


@pytest.mark.parametrize("solver", ["srgd", "dpsgd"])
def test_dask_streaming_solver_cuts_the_stream_at_fixed_rows(dask_client, solver, monkeypatch):
    # issue 28: calibrated from the stream's row count, cut every STREAM_ROWS rows, whatever
    # the partitions (which may depend on the values)
    X, y, _ = _data(2)
    monkeypatch.setattr(skdp_dask, "STREAM_ROWS", 400)
    params = dict(solver=solver, group_by=None, random_state=0)
    a = PrivateMinimaxClassifier(**params, solver_options={"n_rows": len(X)},
                                 stream_chunks="disjoint")
    a.fit(X[:400], y[:400], classes=[0, 1])
    for start in range(400, len(X), 400):
        a.partial_fit(X[start:start + 400], y[start:start + 400])
    for chunks in (CHUNKS, (301, len(X) - 301)):   # moving rows between partitions
        Xd = da.from_array(X, chunks=(chunks, X.shape[1]))
        b = PrivateMinimaxClassifier(**params).fit(Xd, da.from_array(y, chunks=(chunks,)),
                                                   classes=[0, 1])
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-6, atol=1e-9)
        assert a.n_iter_ == b.n_iter_ and _ledger(a) == _ledger(b)
    b.partial_fit(da.from_array(X[:100], chunks=(60, 5)), y[:100])  # a new pass (default)
    a.set_params(stream_chunks="repeated").partial_fit(X[:100], y[:100])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-9)
    assert _ledger(a) == _ledger(b) and a.privacy_spent_ == pytest.approx(b.privacy_spent_)


def test_dask_unknown_partition_sizes(dask_client):
    X, y, _ = _data(2)
    Xd = _dask(X)
    Xd = Xd[Xd[:, 0] > -np.inf]  # the same rows, chunk sizes unknown
    assert np.isnan(Xd.chunks[0][0])
    a = PrivateMinimaxClassifier(n_iter=10, random_state=0).fit(X, y, classes=[0, 1])
    b = PrivateMinimaxClassifier(n_iter=10, random_state=0).fit(Xd, y, classes=[0, 1])
    _assert_same_fit(a, b)


def test_block_functions_sum_over_blocks(monkeypatch):
    """The in-memory LinearData sums the block functions over row blocks: the same sums."""
    from skdp.solvers.losses.classification import loss_and_residual
    from skdp.solvers.minimax import data as cl

    rng = np.random.default_rng(1)
    X = rng.standard_normal((1000, 7))
    y = rng.integers(0, 3, 1000)
    data = cl.LinearData(X, y, y, 3, 3, 1.0, 0.5, np).with_center(np.full(7, 0.1))
    W, b, q = rng.standard_normal((3, 7)), rng.standard_normal(3), rng.random(3)
    rows = np.sort(rng.choice(1000, 300, replace=False))
    whole = [data.gradient_sums(W, b, q, 0.3, 2.0), data.gradient_sums(W, b, q, 0.3, rows=rows),
             data.group_sums(W, b)]
    monkeypatch.setattr(cl, "BLOCK_BYTES", 7 * 8 * 64)  # 64-row blocks, a short last
    blocks = [data.gradient_sums(W, b, q, 0.3, 2.0), data.gradient_sums(W, b, q, 0.3, rows=rows),
              data.group_sums(W, b)]
    for got, want in zip(blocks, whole):
        for g, w in zip(got, want):
            if w is None:
                assert g is None
            else:
                np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    loss, r = loss_and_residual(data.margins(W, b), data.targets, np)
    gw, _ = data.gradient(r)  # unclipped, unweighted
    losses, G, t = blocks[2]
    np.testing.assert_allclose(losses, data.onehot.T @ loss, rtol=1e-10)
    np.testing.assert_allclose(cl.finish_gradient((G.sum(0), t.sum(0), None), data.center,
                                                  data.intercept_scale)[0], gw, rtol=1e-10)


def test_dask_nan_group_label_is_one_more_group(dask_client):
    X, y, _ = _data(2)
    groups = np.where(X[:, 1] > 0.25, 1.0, np.nan)
    a = PrivateMinimaxClassifier(n_iter=5, random_state=0).fit(X, y, groups=groups,
                                                                classes=[0, 1])
    b = PrivateMinimaxClassifier(n_iter=5, random_state=0).fit(_dask(X), y, groups=_dask(groups),
                                                                classes=[0, 1])
    _assert_same_fit(a, b)
