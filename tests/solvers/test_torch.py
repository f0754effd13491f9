"""PyTorch (CPU) through array-api-compat: a second real array library (issue 31, item 3).

Skipped when torch is not installed (``pip install -e ".[test-torch]"``). For every
solver whose :class:`~skdp.solvers.spec.SolverSpec` lists ``'array_api'``, a
private fit (``epsilon=1``) on torch tensors equals the NumPy fit of the same
rows and seed within tolerance, in float64 and in float32: on a CPU namespace
the noise is drawn by the fit's NumPy generator and put on the input's device
(:mod:`skdp._backend`), so the two fits see the same noise. The fitted
parameters are torch tensors on the input's device, of the input's float dtype
(float32 kept end to end).
"""

import numpy as np
import pytest
import sklearn

torch = pytest.importorskip("torch")

from _audit_cases import fit_case as _fit  # noqa: E402
from _audit_cases import make_case  # noqa: E402
from skdp import minimax, regression, synthesizer  # noqa: E402
from skdp._backend import Backend, to_numpy  # noqa: E402

REGISTRIES = {"minimax": minimax.SOLVER_SPECS, "regression": regression.SOLVER_SPECS,
              "synthesizer": synthesizer.SOLVER_SPECS}
CASES = [(name, solver) for name, registry in REGISTRIES.items()
         for solver, spec in registry.items() if "array_api" in spec.backends]
# float32: the same arithmetic in a different order (torch's and NumPy's kernels) moves the
# last bits of every step; over a fit's steps that stays well under 1e-4 of the parameters
RTOL = {"float64": 1e-6, "float32": 1e-4}
ATOL = {"float64": 1e-9, "float32": 1e-5}


def _case(name, solver, dtype):
    est, X, y = make_case(name, solver, 1.0)
    est.set_params(delta=1e-5, random_state=0)
    if name == "synthesizer":  # a numeric table: array namespaces hold numbers only
        est.set_params(domain={j: (0.0, 3.0) for j in range(X.shape[1])}, n_bins=3)
        return est, X.astype(dtype), None
    if name == "regression":
        y = y.astype(dtype)
    return est, X.astype(dtype), y


def _released(est):
    if hasattr(est, "histogram_"):
        return [est.histogram_]
    return [est.coef_, est.intercept_]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, solver", CASES)
def test_torch_cpu_gives_numpy_result_and_keeps_the_dtype(name, solver, dtype):
    est, X, y = _case(name, solver, dtype)
    expected = _released(_fit(est, name, X, y))
    with sklearn.config_context(array_api_dispatch=True):
        fitted = _fit(est.__class__(**est.get_params()), name, torch.asarray(X),
                      None if y is None else torch.asarray(y))
    got = _released(fitted)
    for a, b in zip(got, expected):
        if not np.ndim(b) and name == "regression":  # the regressor's intercept_: a float
            np.testing.assert_allclose(float(a), float(b), rtol=RTOL[dtype], atol=ATOL[dtype])
            continue
        assert isinstance(a, torch.Tensor), f"{solver}: a {type(a).__name__}, not a tensor"
        assert a.device.type == "cpu"
        if name != "synthesizer":  # the histogram is float64 whatever the table's dtype
            assert a.dtype == getattr(torch, dtype), f"{solver}: {a.dtype} from {dtype} input"
            assert b.dtype == np.dtype(dtype), f"{solver} (NumPy): {b.dtype} from {dtype} input"
        np.testing.assert_allclose(to_numpy(a), b, rtol=RTOL[dtype], atol=ATOL[dtype])


def test_torch_backend_draws_the_numpy_generators_numbers_on_the_inputs_device():
    host = Backend.from_arrays(np.zeros(3), random_state=7)
    with sklearn.config_context(array_api_dispatch=True):
        tb = Backend.from_arrays(torch.zeros(3, dtype=torch.float32), random_state=7)
    assert "torch" in tb.xp.__name__ and tb.device == torch.device("cpu")
    for draw in ("normal", "gumbel", "public_normal", "public_uniform"):
        a = getattr(host, draw)((4, 2))
        b = getattr(tb, draw)((4, 2), dtype=tb.xp.float32)
        assert isinstance(b, torch.Tensor) and b.dtype == torch.float32
        np.testing.assert_allclose(to_numpy(b), a.astype(np.float32), rtol=0, atol=0)


def test_torch_on_an_accelerator_draws_with_a_torch_generator_on_its_device(monkeypatch):
    # no accelerator here: the CPU stands in for CUDA (the same torch.Generator code path)
    from skdp import _backend

    monkeypatch.setattr(_backend, "_is_torch_accelerator", lambda xp, device: True)
    with sklearn.config_context(array_api_dispatch=True):
        b1 = Backend.from_arrays(torch.zeros(3), random_state=0)
        b2 = Backend.from_arrays(torch.zeros(3), random_state=0)
    a = b1.normal((2000,), scale=2.0, dtype=torch.float32)
    assert isinstance(a, torch.Tensor) and a.dtype == torch.float32 and a.device == b1.device
    assert torch.equal(a, b2.normal((2000,), scale=2.0, dtype=torch.float32))
    assert abs(float(a.std()) - 2.0) < 0.2
    g = b1.gumbel((2000,))
    assert g.dtype == torch.float64 and abs(float(g.mean()) - 0.5772) < 0.1
    u = b1.public_uniform((2000,))
    assert 0 <= float(u.min()) and float(u.max()) < 1
