"""Every fitted attribute is declared, with its provenance, and documented (issue 29 item 1).

Each estimator publishes its fitted attributes (names ending in ``_``) through one declared
list, ``_published`` (name -> ``'public'``, ``'release'`` or ``'post'``), that the fit
template checks before it charges (:class:`skdp._base.PrivateEstimator`). Here each
estimator is fitted on arrays and on another input kind (a DataFrame, a Dask collection, a
stream's chunks): an attribute it has that is not declared fails, and so does a declared
one that the class docstring's Attributes section does not name.
"""

import re
import warnings

import numpy as np
import pytest

from skdp import (BudgetAccountant, KLAdaptiveRegressor, PrivateMinimaxClassifier,
                  SaddlePointSynthesizer)
from skdp._base import PROVENANCES, PrivateEstimator

ESTIMATORS = (KLAdaptiveRegressor, PrivateMinimaxClassifier, SaddlePointSynthesizer)

rng = np.random.default_rng(0)
X = rng.normal(size=(300, 3)) / 3
y = np.clip(X @ np.array([1.0, -1.0, 0.5]), -1, 1)
y_class = (X[:, 0] > 0).astype(int)
X_table = rng.integers(0, 3, size=(300, 3))
DOMAIN = {0: [0, 1, 2], 1: [0, 1, 2], 2: [0, 1, 2]}


def documented(cls):
    """The names the Attributes section of ``cls``'s docstring lists."""
    doc = cls.__doc__
    start = re.search(r"\n    Attributes\n    -+\n", doc)
    assert start, f"{cls.__name__} has no Attributes section"
    names = set()
    for line in doc[start.end():].splitlines():
        if re.match(r"    -+$", line):  # the next section's underline: its title was read
            break
        match = re.match(r"    (\w[\w, ]*?)(?: :|$)", line)
        if match:
            names.update(name.strip() for name in match.group(1).split(","))
    return names


def public_fitted(est):
    return {name for name in vars(est) if name.endswith("_") and not name.startswith("_")}


def _fits():
    """(id, fitted estimator) over the input kinds and the solver families."""
    kw = dict(random_state=0, accountant=BudgetAccountant())
    yield "reg-arrays", lambda: KLAdaptiveRegressor(max_iter=5, **kw).fit(X, y)
    yield "reg-mlp", lambda: KLAdaptiveRegressor(model="mlp", max_iter=5, **kw).fit(X, y)
    yield "reg-goldstein", lambda: KLAdaptiveRegressor(
        solver="fo_single_pass", loss="truncated_absolute", **kw).fit(X, y)
    yield "reg-stream", lambda: KLAdaptiveRegressor(
        solver="srgd", stream_chunks="disjoint", **kw).partial_fit(X[:150], y[:150]).partial_fit(
        X[150:], y[150:])
    yield "reg-dataframe", lambda: KLAdaptiveRegressor(max_iter=5, **kw).fit(_frame(X), y)
    yield "reg-dask", lambda: KLAdaptiveRegressor(max_iter=5, **kw).fit(*_dask(X, y))
    yield "clf-arrays", lambda: PrivateMinimaxClassifier(**kw).fit(X, y_class, classes=[0, 1])
    yield "clf-ramp", lambda: PrivateMinimaxClassifier(loss="ramp", **kw).fit(
        X, y_class, classes=[0, 1])
    yield "clf-dataframe", lambda: PrivateMinimaxClassifier(**kw).fit(
        _frame(X), y_class, classes=[0, 1])
    yield "clf-dask", lambda: PrivateMinimaxClassifier(**kw).fit(
        *_dask(X, y_class), classes=[0, 1])
    yield "synth-arrays", lambda: SaddlePointSynthesizer(domain=DOMAIN, n_iter=20, **kw).fit(
        X_table)
    yield "synth-dataframe-mst", lambda: SaddlePointSynthesizer(
        solver="mst", domain={"a": [0, 1, 2], "b": [0, 1, 2], "c": [0, 1, 2]}, **kw).fit(
        _frame(X_table, ["a", "b", "c"]))
    yield "synth-private-domain", lambda: SaddlePointSynthesizer(
        domain="private", n_iter=20, **kw).fit(X_table)
    yield "synth-dask", lambda: SaddlePointSynthesizer(domain=DOMAIN, n_iter=20, **kw).fit(
        _dask(X_table)[0])


def _frame(data, columns=None):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame(data, columns=columns or [f"x{j}" for j in range(data.shape[1])])


def _dask(*arrays):
    da = pytest.importorskip("dask.array")
    return [da.from_array(a, chunks=100) for a in arrays]


FITS = dict(_fits())


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_declared_attributes_are_documented(Estimator):
    assert issubclass(Estimator, PrivateEstimator)
    declared = Estimator.published_attributes()
    assert set(declared.values()) <= set(PROVENANCES), declared
    missing = set(declared) - documented(Estimator)
    assert not missing, (f"{Estimator.__name__} declares {sorted(missing)}, which its "
                         "Attributes section does not document")


@pytest.mark.parametrize("case", list(FITS))
def test_fitted_attributes_are_declared(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FITS[case]()
    declared = type(est).published_attributes()
    undeclared = public_fitted(est) - set(declared)
    assert not undeclared, f"{case}: {sorted(undeclared)} not in _published"
    assert {"privacy_spent_", "privacy_ledger_", "delta_", "n_features_in_"} <= public_fitted(est)


def test_an_undeclared_attribute_fails_the_fit_before_the_charge(monkeypatch):
    """The template refuses to publish (and to charge) what the list does not declare; the
    estimator is left as it was and the reservation stays charged at its claim (the rows
    were read)."""
    acc = BudgetAccountant()
    est = SaddlePointSynthesizer(domain=DOMAIN, n_iter=5, random_state=0, accountant=acc)
    monkeypatch.setattr(SaddlePointSynthesizer, "_published",
                        {k: v for k, v in SaddlePointSynthesizer._published.items()
                         if k != "duality_gap_"})
    with pytest.raises(RuntimeError, match="duality_gap_"):
        est.fit(X_table)
    assert not public_fitted(est)
    (spend,) = acc.spends
    assert spend["status"] == "reserved" and spend["ledger"] is None  # at its claim, uncharged
