"""Array namespace, device and random noise for the solvers.

Solvers compute in the namespace of their input when
``sklearn.set_config(array_api_dispatch=True)`` is on (CuPy arrays stay on
the GPU; array-api-strict stands in for CuPy in the CPU tests), and in NumPy
otherwise. All randomness comes from one :class:`numpy.random.Generator`
derived from the estimator's ``random_state``:

* for NumPy and every CPU namespace, noise is drawn on the host with that
  generator and moved to the input's device, so the same seed gives the same
  numbers whatever the namespace;
* for CuPy, a ``cupy.random`` generator seeded from it draws the noise on the
  GPU (large draws never cross the bus). Same seed, same result on the same
  GPU, but not bit-identical to the CPU draws;
* for torch on an accelerator (CUDA, MPS), a ``torch.Generator`` on that
  device seeded from it does the same (torch on the CPU is a CPU namespace:
  the NumPy generator's numbers, as above).

Note: NumPy's and CuPy's generators are not cryptographically secure, and the
noise is floating point (Mironov 2012's attack on textbook floating-point
Laplace applies in principle to any floating-point mechanism). The guarantee
is the mathematical one of the documented mechanism.
"""

import numpy as np
import sklearn
from sklearn.utils import check_random_state

try:  # the standalone package when installed, else scikit-learn's vendored copy
    import array_api_compat
except ImportError:  # pragma: no cover - depends on the environment
    from sklearn.externals import array_api_compat  # type: ignore[no-redef]

__all__ = ["Backend", "make_rng", "sampling_rng", "get_namespace", "is_numpy", "to_numpy"]


def make_rng(random_state):
    """A :class:`numpy.random.Generator` from an sklearn ``random_state``.

    ``None`` gives fresh OS entropy; an int seeds the generator; a
    ``RandomState`` gives a generator seeded from it (advancing it); a
    ``Generator`` is used as it is.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    rs = check_random_state(random_state)
    if isinstance(random_state, (int, np.integer)):
        return np.random.default_rng(int(random_state))
    return np.random.default_rng(rs.randint(0, 2**32 - 1, size=4))


SAMPLING_KEY = 0x53414D50
"""Spawn key of the sampling stream: ``SeedSequence(seed, spawn_key=(SAMPLING_KEY,))``."""


def sampling_rng(random_state):
    """The generator of published samples: never in a state that drew privacy noise.

    A fit's noise comes from :func:`make_rng` of its ``random_state``; the rows
    of a synthetic table are published, so they must not come from a generator
    that restarts where the noise's did (issue 28: ``sample()`` re-seeded from the
    fit's ``random_state`` drew its rows from the noise generator's starting
    state). An int seeds a child stream, ``SeedSequence(seed,
    spawn_key=(SAMPLING_KEY,))``, independent of ``default_rng(seed)`` (NumPy's
    spawned sequences hash the spawn key into the state); ``None`` is fresh OS
    entropy; a ``Generator`` or ``RandomState`` continues from its current
    state, after whatever the fit drew from it.

    Parameters
    ----------
    random_state : int, Generator, RandomState or None
        The seed of the sampling.

    Returns
    -------
    rng : numpy.random.Generator
        The sampling generator.

    Examples
    --------
    >>> a = sampling_rng(0).integers(0, 2**32, size=3)
    >>> b = make_rng(0).integers(0, 2**32, size=3)
    >>> bool((a == b).any()), bool((a == sampling_rng(0).integers(0, 2**32, size=3)).all())
    (False, True)
    """
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        seed = np.random.SeedSequence(int(random_state), spawn_key=(SAMPLING_KEY,))
        return np.random.default_rng(seed)
    return make_rng(random_state)


def get_namespace(*arrays):
    """Namespace of the arrays when array-API dispatch is on, else NumPy's."""
    if sklearn.get_config().get("array_api_dispatch", False):  # type: ignore[attr-defined]
        given = [a for a in arrays if a is not None and not isinstance(a, (int, float))]
        if given:
            return array_api_compat.array_namespace(*given)
    return array_api_compat.array_namespace(np.zeros(0))


def is_numpy(xp):
    """Whether the namespace ``xp`` is NumPy's (NumPy itself, or array-api-compat's wrapper,
    as :func:`get_namespace` gives with dispatch off).

    Examples
    --------
    >>> import numpy as np
    >>> is_numpy(np), is_numpy(get_namespace(np.zeros(1)))
    (True, True)
    """
    return "numpy" in getattr(xp, "__name__", "")


def to_numpy(x):
    """Copy an array of any supported namespace to a NumPy array."""
    if isinstance(x, np.ndarray):
        return x
    if array_api_compat.is_cupy_array(x):
        return x.get()
    if array_api_compat.is_torch_array(x):  # on any device (DLPack refuses CUDA tensors)
        return x.detach().cpu().numpy()
    try:
        return np.asarray(x)
    except (TypeError, ValueError, RuntimeError):
        return np.from_dlpack(x)


def _shape(shape):
    return tuple(int(n) for n in np.atleast_1d(shape))


def _is_cupy_namespace(xp):
    return "cupy" in getattr(xp, "__name__", "")


def _is_torch_accelerator(xp, device):
    """torch on a device other than the CPU (CUDA, MPS...): its noise is drawn there."""
    return array_api_compat.is_torch_namespace(xp) and getattr(device, "type", "cpu") != "cpu"


class _TorchDraws:
    """The draws :class:`Backend` makes, by a ``torch.Generator`` on the input's device.

    Seeded from the fit's NumPy generator (like CuPy's): the same seed gives the
    same numbers on the same device, not the CPU's numbers. Draws are float64.
    """

    def __init__(self, torch, device, seed):
        self.torch, self.device = torch, device
        self.generator = torch.Generator(device=device)
        self.generator.manual_seed(seed)

    def standard_normal(self, shape):
        return self.torch.randn(shape, generator=self.generator, device=self.device,
                                dtype=self.torch.float64)

    def random(self, shape):
        return self.torch.rand(shape, generator=self.generator, device=self.device,
                               dtype=self.torch.float64)


class Backend:
    """Namespace, device and noise generator of one fit.

    Parameters
    ----------
    xp : namespace
        Array namespace (array-API compatible).
    device : object
        Device of the input arrays.
    rng : numpy.random.Generator
        The fit's generator; every draw flows from it.

    Examples
    --------
    >>> import numpy as np
    >>> b = Backend.from_arrays(np.ones(3), random_state=0)
    >>> b.normal((2, 3)).shape
    (2, 3)
    """

    def __init__(self, xp, device, rng):
        self.xp = xp
        self.device = device
        self.rng = rng
        self._gpu_rng = None

    @classmethod
    def from_arrays(cls, *arrays, random_state=None):
        """Backend of the given arrays' namespace and device."""
        xp = get_namespace(*arrays)
        device = None
        for a in arrays:
            if a is not None and hasattr(a, "shape"):
                device = array_api_compat.device(a)
                break
        return cls(xp, device, make_rng(random_state))

    @property
    def is_numpy(self):
        return array_api_compat.is_numpy_namespace(self.xp)

    def asarray(self, x, dtype=None):
        """Put host data into this backend's namespace and device."""
        if self.is_numpy:
            return np.asarray(x, dtype=dtype)
        return self.xp.asarray(x, dtype=dtype, device=self.device)

    def _gpu(self):
        if self._gpu_rng is None:
            import cupy

            self._gpu_rng = cupy.random.default_rng(int(self.rng.integers(2**63)))
        return self._gpu_rng

    def move(self, x):
        """An array of any namespace (``y`` beside ``X``) in this backend's namespace and device.

        scikit-learn's ``move_to`` where it has one (DLPack, no host copy when the
        devices allow), else through the host.
        """
        if self.is_numpy:
            return np.asarray(to_numpy(x))
        try:
            from sklearn.utils._array_api import move_to
        except ImportError:  # pragma: no cover - scikit-learn < 1.8
            return self.asarray(to_numpy(x))
        return move_to(x, xp=self.xp, device=self.device)

    def _torch(self):
        if self._gpu_rng is None:
            import torch

            self._gpu_rng = _TorchDraws(torch, self.device, int(self.rng.integers(2**63)))
        return self._gpu_rng

    def _draw(self, host_draw, gpu_draw, dtype):
        if _is_cupy_namespace(self.xp):
            return gpu_draw(self._gpu()).astype(dtype or "float64", copy=False)
        if _is_torch_accelerator(self.xp, self.device):
            return self.xp.astype(gpu_draw(self._torch()), dtype or self.xp.float64)
        return self.asarray(host_draw(self.rng), dtype=dtype)

    # -- privacy noise: drawn only by skdp.privacy (its Release records every draw) --
    def normal(self, shape, scale=1.0, dtype=None):
        """Gaussian privacy noise ``N(0, scale**2)`` of the given shape.

        Only :mod:`skdp.privacy` calls this (through
        :class:`~skdp.privacy.release.Release`, which records the draw);
        public randomness uses :meth:`public_normal`.
        """
        shape = _shape(shape)
        return self._draw(lambda g: g.standard_normal(shape) * scale,
                          lambda g: g.standard_normal(shape) * scale, dtype)

    def gumbel(self, shape, dtype=None):
        """Standard Gumbel privacy noise (report-noisy-max); only :mod:`skdp.privacy` calls it."""
        shape = _shape(shape)
        return self._draw(lambda g: g.gumbel(size=shape),
                          lambda g: -self.xp.log(-self.xp.log(g.random(shape))), dtype)

    # -- public randomness: data-independent by construction, never privacy noise --
    def public_normal(self, shape, scale=1.0, dtype=None):
        """Gaussian draws that are public by construction (random features, directions).

        The same generator and the same numbers as :meth:`normal`; the
        separate name says that nothing private is released through them.
        """
        return self.normal(shape, scale=scale, dtype=dtype)

    def public_uniform(self, shape, dtype=None):
        """Uniform draws on [0, 1) that are public by construction."""
        shape = _shape(shape)
        return self._draw(lambda g: g.random(shape), lambda g: g.random(shape), dtype)

    @property
    def public_rng(self):
        """The fit's generator, for data-independent sampling (orders, batches, levels)."""
        return self.rng
