"""Every Array-API solver on inputs that live on a device other than the default.

``array_api_strict`` refuses to combine arrays of two devices, as CuPy and torch
on CUDA do: an array a solver makes without the input's device (``xp.zeros(...)``
without ``device=``) fails here instead of on a GPU. The first GPU run of
``torch:cuda`` (issue 31 item 4, 2026-11-27) found three classifier solvers that
made their starting point on the CPU; this test keeps that from coming back.
The fit equals NumPy's (the strict namespace draws NumPy's numbers on the
input's device) and its released arrays stay on the input's device.
"""

import array_api_strict
import numpy as np
import pytest
import sklearn

from _audit_cases import fit_case as _fit
from _audit_cases import make_case
from skdp import minimax, regression, synthesizer
from skdp._backend import to_numpy

REGISTRIES = {"minimax": minimax.SOLVER_SPECS, "regression": regression.SOLVER_SPECS,
              "synthesizer": synthesizer.SOLVER_SPECS}
CASES = [(name, solver) for name, registry in REGISTRIES.items()
         for solver, spec in registry.items() if "array_api" in spec.backends]
DEVICE = array_api_strict.Device("device1")


def _case(name, solver):
    est, X, y = make_case(name, solver, 1.0)
    est.set_params(delta=1e-5, random_state=0)
    if name == "synthesizer":  # a numeric table: array namespaces hold numbers only
        est.set_params(domain={j: (0.0, 3.0) for j in range(X.shape[1])}, n_bins=3)
        return est, X.astype("float64"), None
    return est, X.astype("float64"), y


def _released(est):
    return [est.histogram_] if hasattr(est, "histogram_") else [est.coef_, est.intercept_]


@pytest.mark.parametrize("name, solver", CASES)
def test_fit_on_another_device_stays_there_and_equals_numpy(name, solver):
    est, X, y = _case(name, solver)
    expected = _released(_fit(est, name, X, y))
    put = lambda a: None if a is None else array_api_strict.asarray(a, device=DEVICE)  # noqa: E731
    with sklearn.config_context(array_api_dispatch=True):
        fitted = _fit(est.__class__(**est.get_params()), name, put(X), put(y))
    for a, b in zip(_released(fitted), expected):
        if hasattr(a, "device") and name != "synthesizer":
            assert a.device == DEVICE, f"{solver}: released on {a.device}"
        np.testing.assert_allclose(to_numpy(a) if hasattr(a, "device") else a, b,
                                   rtol=1e-6, atol=1e-9)


def test_to_numpy_copies_a_torch_tensor_from_any_device():
    torch = pytest.importorskip("torch")
    t = torch.arange(3.0)
    assert np.array_equal(to_numpy(t), [0.0, 1.0, 2.0])
    if torch.cuda.is_available():  # pragma: no cover - GPU machines only
        assert np.array_equal(to_numpy(t.cuda()), [0.0, 1.0, 2.0])
