"""Matrix-factorisation (MF) noise for prefix sums of a stream: banded square-root Toeplitz.

A linear query ``W x`` on a stream ``x_1, x_2, ...`` (``W`` lower-triangular:
prefix sums ``A``, or their decayed / momentum versions) is answered by
factorising ``W = B C`` and releasing ``B (C x + Z)``, i.e. adding the
correlated noise ``w = C^{-1} Z`` to the stream itself (paper 003 §2.3,
Alg. 2-3). Everything after ``C x + Z`` is post-processing.

**Privacy** (Denisov, McMahan, Rush, Smith, Thakurta 2022, Thm 2.1: the
adaptive-stream mechanism is as private as the non-adaptive Gaussian
mechanism, for lower-triangular ``C``). If neighbouring streams differ in one element
``x_j`` by at most ``Delta`` in l2 norm (single participation), ``C x + Z``
with ``Z ~ N(0, sigma**2 I)`` is a Gaussian mechanism of l2-sensitivity
``Delta max_j ||C[:, j]||_2``: ``mu = Delta ||C||_col / sigma``-GDP and
``Delta**2 ||C||_col**2 / (2 sigma**2)``-zCDP. For a lower-triangular
Toeplitz ``C`` with non-negative coefficients ``c_0, ..., c_{b-1}`` (band
``b``) the longest column is the first, so ``||C||_col = sqrt(sum_j c_j**2)``
for *every* horizon ``T >= b`` (smaller for ``T < b``): the stream may run
on without a fixed end (what ``partial_fit`` needs).

**Factorisation.** ``C = W**(1/2)``, the square root of the Toeplitz
workload: for ``W`` with generating function ``prod_k (1 - a_k x)**(-1)``
(``a = (1,)``: prefix sums; paper 003's workloads ``M A L`` (§5) add the
momentum ``m`` and the SRG decay ``c``) the coefficients of
``prod_k (1 - a_k x)**(-1/2)``; for ``a = (1,)`` they are
``binom(2j, j) / 4**j`` and ``C C = A`` exactly. Truncating them to a band
``b`` gives the banded square-root factorisation (Kalinin, Lampert 2024),
whose noise ``w_t = (Z_t - sum_{j=1}^{b-1} c_j w_{t-j}) / c_0`` streams in
``O(b d)`` memory (:class:`BandedToeplitzNoise`).

**Error.** The noise in the answer is ``W C^{-1} Z``; its coordinate ``t``
has variance ``sigma**2 ||(W C^{-1})[t, :]||**2``
(:func:`workload_noise_variance`). With ``b = 1``, ``C = I``: independent
noise (DP-SGD).

Solvers open a :class:`MatrixMechanism` on their release path: it records
``C x + Z`` when opened and gives the :class:`BandedToeplitzNoise` of each
chunk of the stream.
"""

from collections import deque
import math

import numpy as np

from .ledger import gaussian_rho

__all__ = ["sqrt_toeplitz_coefficients", "workload_coefficients", "toeplitz_matrix",
           "column_norm", "mf_sigma", "mf_rho", "workload_noise_variance",
           "BandedToeplitzNoise", "MatrixMechanism"]


def _power_series(decays, n, power):
    """Coefficients of ``prod_k (1 - a_k x)**(-power)`` up to ``x**(n-1)``."""
    out = np.zeros(n)
    out[0] = 1.0
    j = np.arange(1, n)
    # (1 - a x)**(-power) = sum_j binom(j + power - 1, j) a**j x**j
    ratio = (j - 1 + power) / j
    base = np.concatenate([[1.0], np.cumprod(ratio)])
    for a in decays:
        series = base * float(a) ** np.arange(n)
        out = np.convolve(out, series)[:n]
    return out


def workload_coefficients(n, decays=(1.0,)):
    """First column of the Toeplitz workload ``prod_k (I - a_k S)**(-1)`` (``S``: shift).

    ``decays=(1,)`` is the prefix-sum matrix ``A`` (all ones);
    ``(1, m)`` heavy-ball momentum ``m`` applied to prefix sums (``M A``);
    ``(1, m, c)`` adds the SRG decay ``c`` (``M A L``, paper 003 §5).

    Parameters
    ----------
    n : int
        Number of coefficients (the horizon).
    decays : sequence of float, default=(1.0,)
        The ``a_k``, each in [0, 1].

    Returns
    -------
    coef : ndarray of shape (n,)

    Examples
    --------
    >>> workload_coefficients(4).tolist()
    [1.0, 1.0, 1.0, 1.0]
    >>> workload_coefficients(3, (1.0, 0.5)).tolist()
    [1.0, 1.5, 1.75]
    """
    return _power_series(_check_decays(decays), int(n), 1.0)


def sqrt_toeplitz_coefficients(n, decays=(1.0,)):
    """Coefficients of the square root of the workload of :func:`workload_coefficients`.

    The lower-triangular Toeplitz ``C`` with these coefficients satisfies
    ``C @ C == W`` exactly (power series of ``prod_k (1 - a_k x)**(-1/2)``);
    all coefficients are positive and decreasing for ``decays=(1,)``
    (``binom(2j, j) / 4**j``).

    Parameters
    ----------
    n : int
        Number of coefficients (the band, at most the horizon).
    decays : sequence of float, default=(1.0,)
        Workload decays, each in [0, 1].

    Returns
    -------
    coef : ndarray of shape (n,)

    Examples
    --------
    >>> sqrt_toeplitz_coefficients(4).tolist()
    [1.0, 0.5, 0.375, 0.3125]
    """
    return _power_series(_check_decays(decays), int(n), 0.5)


def _check_decays(decays):
    decays = tuple(float(a) for a in decays)
    if not decays or any(not 0.0 <= a <= 1.0 for a in decays):
        raise ValueError(f"decays must be a non-empty sequence in [0, 1], got {decays!r}.")
    return decays


def toeplitz_matrix(coef, horizon):
    """The ``horizon x horizon`` lower-triangular Toeplitz matrix of ``coef`` (banded).

    Parameters
    ----------
    coef : array-like of shape (b,)
        First column; entries past ``b`` are 0.
    horizon : int

    Returns
    -------
    C : ndarray of shape (horizon, horizon)

    Examples
    --------
    >>> toeplitz_matrix([1.0, 0.5], 3).tolist()
    [[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, 0.5, 1.0]]
    """
    coef = np.asarray(coef, dtype=float)
    col = np.zeros(int(horizon))
    m = min(coef.shape[0], int(horizon))
    col[:m] = coef[:m]
    idx = np.arange(int(horizon))
    diff = idx[:, None] - idx[None, :]
    return np.where(diff >= 0, col[np.clip(diff, 0, None)], 0.0)


def column_norm(coef, horizon=None):
    """Largest column l2 norm of the banded Toeplitz ``C``: the sensitivity factor.

    For non-negative coefficients the first column is the longest; its norm
    is ``sqrt(sum_{j < min(b, horizon)} c_j**2)`` and never exceeds the
    ``horizon=None`` (unbounded stream) value.

    Parameters
    ----------
    coef : array-like of shape (b,)
        Non-negative coefficients.
    horizon : int, default=None
        Stream length; None: any length.

    Returns
    -------
    norm : float

    Examples
    --------
    >>> round(column_norm([1.0, 0.5, 0.375, 0.3125]), 4), column_norm([3.0, 4.0], horizon=1)
    (1.22, 3.0)
    """
    coef = np.asarray(coef, dtype=float)
    if np.any(coef < 0):
        raise ValueError("column_norm needs non-negative coefficients.")
    m = coef.shape[0] if horizon is None else min(coef.shape[0], int(horizon))
    return float(np.sqrt(np.sum(coef[:m] ** 2)))


def mf_sigma(sensitivity, mu, coef):
    """Std of ``Z`` that makes ``C x + Z`` ``mu``-GDP for per-element sensitivity ``sensitivity``.

    ``sigma = sensitivity * column_norm(coef) / mu`` (Dong–Roth–Su 2022, Thm
    2.7; Denisov et al. 2022, Thm 2.1 for adaptive streams). ``mu = inf``
    gives 0.

    Examples
    --------
    >>> mf_sigma(2.0, 1.0, [1.0])
    2.0
    """
    if not mu > 0:
        raise ValueError("mu must be > 0.")
    if math.isinf(mu):
        return 0.0
    return float(sensitivity) * column_norm(coef) / float(mu)


def mf_rho(sensitivity, sigma, coef):
    """zCDP of ``C x + Z``: ``(sensitivity * column_norm(coef))**2 / (2 sigma**2)``.

    Examples
    --------
    >>> mf_rho(1.0, 1.0, [1.0, 0.0])
    0.5
    """
    return gaussian_rho(float(sensitivity) * column_norm(coef), sigma)


def workload_noise_variance(coef, horizon, sigma=1.0, decays=(1.0,)):
    """Per-coordinate variance of each answer's noise: ``sigma**2 ||(W C^{-1})[t]||**2``.

    Parameters
    ----------
    coef : array-like of shape (b,)
        Coefficients of ``C`` (``c_0 > 0``).
    horizon : int
    sigma : float, default=1.0
        Std of ``Z``.
    decays : sequence of float, default=(1.0,)
        The workload ``W`` (:func:`workload_coefficients`); ``(1,)``: prefix sums.

    Returns
    -------
    var : ndarray of shape (horizon,)

    Examples
    --------
    >>> workload_noise_variance([1.0], 3).tolist()  # independent noise: t + 1
    [1.0, 2.0, 3.0]
    """
    C = toeplitz_matrix(coef, horizon)
    W = toeplitz_matrix(workload_coefficients(horizon, decays), horizon)
    B = np.linalg.solve(C.T, W.T).T  # W C^{-1}
    return sigma**2 * np.sum(B**2, axis=1)


class BandedToeplitzNoise:
    """Streaming MF noise ``w = C^{-1} Z`` for a banded lower-triangular Toeplitz ``C``.

    Each call to :meth:`next` returns the next ``w_t`` (shape ``shape``) by
    forward substitution ``w_t = (Z_t - sum_{j=1}^{b-1} c_j w_{t-j}) / c_0``
    with ``Z_t ~ N(0, sigma**2 I)``, keeping only the last ``b - 1`` noises
    (``O(b d)`` memory). Adding ``w_t`` to the ``t``-th stream element
    releases ``C^{-1}(C x + Z)``: the privacy of ``C x + Z`` (see the module
    doc and :func:`mf_sigma`). No horizon: the stream may go on.

    Parameters
    ----------
    shape : tuple of int
    coef : array-like of shape (b,)
        Coefficients of ``C``, ``c_0 > 0`` (1 coefficient: independent noise).
    sigma : float
        Std of ``Z``.
    backend : Backend
        Namespace, device and generator.
    past : deque, default=None
        The ``past`` of an earlier instance, to continue its stream.

    Attributes
    ----------
    t : int
        Noises drawn so far.
    past : deque
        The last ``b - 1`` noises, newest first.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> backend = Backend.from_arrays(np.zeros(1), random_state=0)
    >>> noise = BandedToeplitzNoise((2,), [1.0, 0.5], 1.0, backend)
    >>> noise.next().shape
    (2,)
    """

    def __init__(self, shape, coef, sigma, backend, past=None):
        coef = np.asarray(coef, dtype=float)
        if coef.ndim != 1 or coef.shape[0] < 1 or not coef[0] > 0:
            raise ValueError("coef must be a 1-D array with coef[0] > 0.")
        self.shape = tuple(shape)
        self.coef = coef
        self.sigma = float(sigma)
        self.backend = backend
        self.t = 0
        self.past = deque(past or (), maxlen=max(coef.shape[0] - 1, 0))  # w_{t-1}, ...

    def next(self, dtype=None):
        """Draw the next noise ``w_t``."""
        w = self.backend.normal(self.shape, scale=self.sigma, dtype=dtype)
        for c, past in zip(self.coef[1:].tolist(), self.past):  # Python floats: any namespace
            if c != 0:
                w = w - c * past
        w = w / float(self.coef[0])
        if self.past.maxlen:
            self.past.appendleft(w)
        self.t += 1
        return w


class MatrixMechanism:
    """``C x + Z`` over a whole stream, recorded once when opened.

    One Gaussian mechanism of l2-sensitivity ``sensitivity *
    column_norm(coef)`` at noise ``sigma`` (Denisov et al. 2022, Thm 2.1;
    module doc), however many chunks the stream has: the banded noise runs on
    across chunks (:meth:`noise` continues from the last chunk's ``past``).
    Holds only public constants (picklable); each chunk draws from the
    generator it is given.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> from skdp.privacy.release import Release
    >>> backend = Backend.from_arrays(np.zeros(2), random_state=0)
    >>> release = Release(backend, PrivacyLedger())
    >>> mech = MatrixMechanism.open(release, 1.0, 2.0, [1.0], label="steps")
    >>> mech.noise((2,), backend).next().shape, release.ledger.rho
    ((2,), 0.125)
    """

    def __init__(self, coef, sigma):
        self.coef = np.asarray(coef, dtype=float)
        self.sigma = float(sigma)

    @classmethod
    def open(cls, path, sensitivity, sigma, coef, *, label):
        """Record the mechanism on ``path`` (a Budget: charged; a Release) and return it.

        The record is one Gaussian release of l2-sensitivity ``sensitivity *
        column_norm(coef)`` at ``sigma``. A non-private Budget records nothing
        and gives ``sigma = 0``.
        """
        batch = path.gaussian_batch(sensitivity * column_norm(coef), sigma, 1, label=label)
        return cls(coef, batch.sigma)

    def noise(self, shape, backend, past=None):
        """Noise of the stream's next chunk, continuing ``past`` (:class:`BandedToeplitzNoise`)."""
        return BandedToeplitzNoise(shape, self.coef, self.sigma, backend, past=past)
