"""Array backend: namespaces, devices, reproducible noise."""

import numpy as np
import pytest
import sklearn

from skdp._backend import Backend, get_namespace, make_rng, to_numpy

array_api_strict = pytest.importorskip("array_api_strict")


def test_same_seed_same_draws_and_none_is_fresh():
    assert make_rng(3).normal() == make_rng(3).normal()
    assert make_rng(None).normal() != make_rng(None).normal()
    rs = np.random.RandomState(0)
    assert make_rng(rs).normal() != make_rng(rs).normal()  # the RandomState advances
    g = np.random.default_rng(1)
    assert make_rng(g) is g


def test_numpy_when_dispatch_is_off():
    x = array_api_strict.asarray([1.0, 2.0])
    assert "numpy" in get_namespace(x).__name__


def test_array_api_strict_draws_equal_numpy_draws():
    host = Backend.from_arrays(np.zeros(3), random_state=7)
    with sklearn.config_context(array_api_dispatch=True):
        strict = Backend.from_arrays(array_api_strict.asarray([0.0, 0.0]), random_state=7)
        assert strict.xp is array_api_strict or "array_api_strict" in strict.xp.__name__
        for draw in ("normal", "gumbel", "public_normal", "public_uniform"):
            a = getattr(host, draw)((4, 2))
            b = getattr(strict, draw)((4, 2))
            assert not isinstance(b, np.ndarray)
            np.testing.assert_array_equal(a, to_numpy(b))


def test_cupy_backend_draws_on_the_gpu():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed (needs the gpu extra)")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception:  # pragma: no cover - depends on the machine
        pytest.skip("no CUDA device available")
    with sklearn.config_context(array_api_dispatch=True):
        b1 = Backend.from_arrays(cupy.zeros(3), random_state=0)
        b2 = Backend.from_arrays(cupy.zeros(3), random_state=0)
        a, c = b1.normal((1000,)), b2.normal((1000,))
        assert isinstance(a, cupy.ndarray)
        cupy.testing.assert_array_equal(a, c)
        assert abs(float(a.std()) - 1.0) < 0.1
