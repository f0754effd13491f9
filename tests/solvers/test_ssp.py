"""The sufficient-statistics solver ``ssp`` (issue 31 item 1, fourth part): its releases
against the closed form, the noise actually drawn against the calibrated one (a halved
noise is caught), the non-private limit, the floor and the refinement's effect."""

import math
import warnings

import numpy as np
import pytest

from skdp import KLAdaptiveRegressor
from skdp._backend import Backend
from skdp.privacy.budget import Budget
from skdp.privacy.ledger import approx_dp_to_gdp
from skdp.privacy.quantile import HISTOGRAM_SENSITIVITY
from skdp.solvers.suffstats import RESIDUAL_GRID


def _data(n=3000, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d)) / (2 * math.sqrt(d))
    y = np.clip(X @ np.linspace(1, -1, d) * 2 + 0.2 + 0.05 * rng.normal(size=n), -1, 1)
    return X, y


def _fit(X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return KLAdaptiveRegressor(**{"epsilon": 1.0, "delta": 1e-6, "solver": "ssp",
                                      "random_state": 0, **kw}).fit(X, y)


@pytest.mark.parametrize("steps", [0, 1, 2])
def test_ssp_calibrates_its_releases_on_the_closed_form(steps):
    """quantile_share 0.05 of rho_ to the histogram (sensitivity sqrt 2), xtx_share 0.4 of the
    rest to X^T X (sqrt(2) R**2), the remainder evenly to X^T y (2 R C) and each X^T r (2 R
    tau_r); R**2 = B**2 + (B/2)**2 (intercept column at 0.5); each sigma = Delta / sqrt(2
    rho_step) (Bun–Steinke Prop. 1.6); the ledger's rho sums to rho_ = mu**2 / 2 and the
    spend is exactly epsilon (GDP, Dong–Roth–Su Cor. 2.13); the floor 3 sigma_G sqrt(p)."""
    X, y = _data()
    B, C = 2.0, 3.0
    reg = _fit(X * 4, y * 3, feature_bound=B, target_bound=C,
               solver_options={"refine_steps": steps})
    rho = approx_dp_to_gdp(1.0, 1e-6) ** 2 / 2
    assert reg.rho_ == pytest.approx(rho, rel=1e-6)
    rest = (1 - (0.05 if steps else 0.0)) * reg.rho_
    rho_G, rho_b = 0.4 * rest, 0.6 * rest / (1 + steps)
    R2 = 1.25 * B**2
    first = reg.history_[0]
    assert first["sigma_xtx"] == pytest.approx(math.sqrt(2) * R2 / math.sqrt(2 * rho_G))
    assert first["sigma_xty"] == pytest.approx(2 * math.sqrt(R2) * C / math.sqrt(2 * rho_b))
    assert first["floor"] == pytest.approx(3.0 * first["sigma_xtx"] * math.sqrt(5))
    log = reg.privacy_ledger_.log()
    labels = [e["label"] for e in log]
    assert labels == (["ssp X^T X", "ssp X^T y"]
                      + (["ssp |residual| histogram"] if steps else [])
                      + ["ssp X^T r (refinement)"] * steps)
    assert all(e["kind"] == "gaussian" for e in log)
    assert sum(e["rho"] for e in log) == pytest.approx(reg.rho_, rel=1e-9)
    assert log[0]["rho"] == pytest.approx(rho_G) and log[1]["rho"] == pytest.approx(rho_b)
    if steps:
        assert log[2]["rho"] == pytest.approx(0.05 * reg.rho_)
        tau_r = first["residual_clip"]
        assert tau_r in [C * 2.0 ** (-k / 2) for k in range(RESIDUAL_GRID)]
        for h, e in zip(reg.history_[1:], log[3:]):
            assert e["rho"] == pytest.approx(rho_b)
            assert h["sigma_xtr"] == pytest.approx(2 * math.sqrt(R2) * tau_r
                                                   / math.sqrt(2 * rho_b))
    assert reg.n_iter_ == 1 + steps
    assert reg.privacy_spent_[0] == pytest.approx(1.0, abs=1e-6)


def _noise_statistic(monkeypatch, factor, fits=30):
    """sum ((released - exact) / calibrated sigma)**2 over every released coordinate of
    ``fits`` fits (chi-square with that many degrees of freedom when the noise drawn is the
    calibrated one), standardised: (stat - dof) / sqrt(2 dof)."""
    real_normal, real_gaussian = Backend.normal, Budget.gaussian
    seen = []

    def normal(self, shape, scale=1.0, dtype=None):
        return real_normal(self, shape, factor * scale, dtype)

    def gaussian(self, value, sensitivity, sigma, *, label, **kw):
        out = real_gaussian(self, value, sensitivity, sigma, label=label, **kw)
        sd = sigma * (HISTOGRAM_SENSITIVITY if "histogram" in label else 1.0)
        if "histogram" not in label:  # the histogram's sigma is its own (tested in quantile)
            seen.append(np.ravel((np.asarray(out) - np.asarray(value)) / sd))
        return out

    monkeypatch.setattr(Backend, "normal", normal)
    monkeypatch.setattr(Budget, "gaussian", gaussian)
    X, y = _data(n=500)
    for seed in range(fits):
        _fit(X, y, random_state=seed)
    z = np.concatenate(seen)
    return (float(np.sum(z * z)) - z.size) / math.sqrt(2 * z.size)


def test_ssp_draws_the_calibrated_noise(monkeypatch):
    assert abs(_noise_statistic(monkeypatch, 1.0)) < 4.0


def test_ssp_halved_noise_is_caught(monkeypatch):
    assert _noise_statistic(monkeypatch, 0.5) < -4.0


def test_ssp_without_noise_is_least_squares():
    """epsilon = inf: no floor, no refinement; the exact least-squares fit (adassp's too)."""
    X, y = _data(n=800)
    a = KLAdaptiveRegressor(epsilon=math.inf, solver="ssp").fit(X, y)
    b = KLAdaptiveRegressor(epsilon=math.inf, solver="adassp").fit(X, y)
    assert np.allclose(a.predict(X), b.predict(X), atol=1e-8)
    assert a.n_iter_ == 1 and a.history_[0]["floor"] == 0.0


def test_ssp_refinement_and_floor_help_on_a_poorly_scaled_feature():
    """The case the floor and the refinement address: the signal on a feature using a tenth
    of the bound (a ridge lambda I shrinks it; the refinement corrects the first solve's
    bias). Averaged over seeds, ssp's R^2 beats adassp's and refine_steps=0's."""
    rng = np.random.default_rng(1)
    n = 20000
    X = np.column_stack([rng.uniform(-0.1, 0.1, n), rng.uniform(-0.5, 0.5, (n, 2))])
    y = np.clip(6 * X[:, 0] + 0.3 * X[:, 1] + 0.05 * rng.normal(size=n), -1, 1)
    Xt, yt = X[:4000], y[:4000]

    def r2(**kw):
        return np.mean([_fit(X[4000:], y[4000:], random_state=s, **kw).score(Xt, yt)
                        for s in range(4)])

    ssp, ssp0, ada = r2(), r2(solver_options={"refine_steps": 0}), r2(solver="adassp")
    assert ssp > ssp0 > ada


def test_ssp_refuses_other_losses_and_models_and_bad_options_before_reading():
    X, y = _data(n=50)
    for params, word in ((dict(loss="huber"), "loss="), (dict(model="mlp"), "model=")):
        with pytest.raises(ValueError, match=f"solver='ssp' supports {word}"):
            KLAdaptiveRegressor(solver="ssp", **params).fit(X, y)
    for opts in ({"refine_steps": 9}, {"xtx_share": 1.0}, {"ridge_scale": 2.0}):
        with pytest.raises(ValueError, match="solver_options"):
            KLAdaptiveRegressor(solver="ssp", solver_options=opts).fit(X, y)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_ssp_on_the_array_api_equals_numpy_and_keeps_the_dtype(dtype):
    xp = pytest.importorskip("array_api_strict")
    import sklearn

    X, y = _data(n=2000)
    X, y = X.astype(dtype), y.astype(dtype)
    ref = _fit(X, y)
    with sklearn.config_context(array_api_dispatch=True):
        got = _fit(xp.asarray(X), xp.asarray(y))
    assert got.coef_.dtype == getattr(xp, dtype)
    tol = 1e-3 if dtype == "float32" else 1e-8
    assert np.allclose(np.asarray(got.coef_), ref.coef_, rtol=tol, atol=tol)
    assert got.intercept_ == pytest.approx(ref.intercept_, rel=tol, abs=tol)


def test_ssp_on_rows_beyond_the_bound_equals_the_fit_on_their_clipped_copy():
    """The design's clip factors are applied on the fly (no copy of X): the same fit as on
    the clipped rows, within round-off."""
    from skdp.privacy.clipping import clip_rows

    rng = np.random.default_rng(3)
    X = rng.normal(size=(1500, 4)) / 3
    X[::5] *= 6
    y = np.clip(X @ np.array([0.5, -0.5, 0.2, 0.0]), -1, 1)
    a, b = _fit(X, y), _fit(clip_rows(X, 1.0, np), y)
    assert np.allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-8)
    assert a.history_[0]["residual_clip"] == b.history_[0]["residual_clip"]


def test_ssp_reads_a_public_subset_for_the_quantile_above_quantile_rows():
    from skdp.solvers.suffstats import QUANTILE_ROWS

    X, y = _data(n=QUANTILE_ROWS + 5000, d=2)
    reg = _fit(X, y)
    log = reg.privacy_ledger_.log()
    assert [e["label"] for e in log].count("ssp |residual| histogram") == 1
    assert sum(e["rho"] for e in log) == pytest.approx(reg.rho_, rel=1e-9)
    assert reg.score(X[:5000], y[:5000]) > 0.9
