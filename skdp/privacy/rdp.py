"""Renyi differential privacy of (Poisson-subsampled) Gaussian mechanisms and of ledgers.

The Renyi divergence of order ``a > 1`` is
``D_a(P || Q) = log(integral P**a Q**(1 - a)) / (a - 1)``; a mechanism is
``(a, eps)``-RDP when ``D_a(M(D) || M(D')) <= eps`` for all neighbours
(Mironov 2017). RDP composes adaptively by adding the curves (Mironov 2017,
Prop. 1). :class:`~skdp.model_selection.PrivateHyperparameterSearch` needs
each run's curve (Papernot and Steinke 2022 are stated in RDP), and a
Poisson-subsampled Gaussian run has no useful zCDP bound (its unamplified
``rho = 2 mu**2`` per step ignores the sampling) but a computable curve.

**One subsampled step.** With ``c = C / sigma`` (one record's clip over the
noise, the inverse noise multiplier) and rate ``q``:

* ``relation='add_remove'`` (the pair ``N(0, 1)`` against
  ``(1 - q) N(0, 1) + q N(c, 1)``, Mironov, Talwar and Zhang 2019, "Renyi
  differential privacy of the sampled Gaussian mechanism", Sec. 3): at an
  integer order ``a`` the exact binomial expansion
  ``A_a = sum_k binom(a, k) (1 - q)**(a - k) q**k exp((k**2 - k) c**2 / 2)``,
  ``eps(a) = log(A_a) / (a - 1)`` (their Sec. 3.3), in log space; at other
  orders the larger of the two directions by quadrature (below). This is the
  relation of dp-accounting's ``RdpAccountant`` with
  ``PoissonSampledDpEvent(GaussianDpEvent)``, against which
  ``tests/privacy/test_search_subsampled.py`` checks it.
* ``relation='replace_one'`` (skdp's relation, :mod:`skdp.privacy.pld`): the
  dominating pair ``P = (1 - q) N(0, 1) + q N(-c, 1)`` against
  ``Q = (1 - q) N(0, 1) + q N(c, 1)``. It dominates every hockey-stick
  divergence of the mechanism (:mod:`skdp.privacy.pld`, both orders of each
  neighbouring pair: it is symmetric), hence every f-divergence (an
  f-divergence is an integral of hockey-stick divergences, Liese and Vajda
  2006, "On divergences and informations in statistics and information
  theory"; Zhu, Dong and Wang 2022 use it for dominating pairs), hence
  every Renyi divergence (a monotone function of the f-divergence with
  ``f(t) = t**a``). No closed form: ``integral P**a Q**(1 - a)`` by the
  trapezoidal rule in log space on a uniform grid of step ``1/64`` reaching
  40 standard deviations past ``|x| = a c``, where the integrand's mass lies
  (its log is ``-x**2/2`` plus terms of slope at most ``a c``). At ``q = 1``
  it is the Gaussian of sensitivity ``2c``: ``2 a c**2``. The same
  quadrature reproduces the exact add/remove expansion to about 1e-12
  relative, and scipy's adaptive quadrature of the replace-one integral to
  1e-8 (``tests/privacy/test_search_subsampled.py``).

**A ledger.** :func:`ledger_rdp` adds the curves of a
:class:`~skdp.privacy.ledger.PrivacyLedger`'s entries: Gaussian
(``a mu**2 / 2``), zCDP (``a rho``), pure and exponential (``min(eps, a rho)``:
an epsilon-DP mechanism is ``(a, epsilon)``-RDP, and ``rho``-zCDP with the
ledger's ``rho``, Bun and Steinke 2016, Prop. 1.4), subsampled Gaussian
(the replace-one curve above, times its count); an ``'approx'`` entry has no
finite RDP (``inf``).
"""

import functools
import math

import numpy as np
from scipy import special

__all__ = ["RDP_ORDERS", "subsampled_gaussian_rdp", "ledger_rdp", "rdp_to_delta"]

RDP_ORDERS = (1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 10.0,
              12.0, 14.0, 16.0, 20.0, 24.0, 28.0, 32.0, 48.0, 64.0, 96.0, 128.0, 256.0)
"""The orders at which :class:`~skdp.model_selection.PrivateHyperparameterSearch` tracks
RDP curves (dp-accounting's default grid, thinned)."""

_STEP = 1.0 / 64.0  # quadrature step (the integrand has unit-scale curvature)
_PAD = 40.0  # standard deviations past the integrand's mass


def _log_mixture(x, q, mean):
    """``log((1 - q) N(x; 0, 1) + q N(x; mean, 1))`` less the common ``log N(x; 0, 1)``."""
    if q >= 1.0:
        return mean * x - mean * mean / 2.0
    return np.logaddexp(math.log1p(-q), math.log(q) + mean * x - mean * mean / 2.0)


def _quadrature_log_integral(a, c, q, relation):
    """``log integral P**a Q**(1 - a)`` by the trapezoidal rule (log space)."""
    reach = a * c + _PAD  # the integrand's mass lies within |x| <= a c + a few
    x = np.arange(-reach, reach + _STEP, _STEP)
    if relation == "replace_one":
        log_p, log_q = _log_mixture(x, q, -c), _log_mixture(x, q, c)
    else:  # add_remove, the direction whose moment the binomial expansion gives
        log_p, log_q = _log_mixture(x, q, c), np.zeros_like(x)
    log_f = a * log_p + (1.0 - a) * log_q - x * x / 2.0 - 0.5 * math.log(2 * math.pi)
    return float(special.logsumexp(log_f) + math.log(_STEP))


def _binomial_log_moment(a, c, q):
    """``log A_a`` of Mironov, Talwar and Zhang 2019 (integer ``a``), exact in log space."""
    k = np.arange(a + 1, dtype=float)
    log_terms = (special.gammaln(a + 1) - special.gammaln(k + 1) - special.gammaln(a - k + 1)
                 + (a - k) * (math.log1p(-q) if q < 1 else -np.inf)
                 + k * math.log(q) + (k * k - k) * c * c / 2.0)
    if q >= 1:
        log_terms = np.where(k == a, (a * a - a) * c * c / 2.0, -np.inf)
    return float(special.logsumexp(log_terms))


@functools.lru_cache(maxsize=4096)
def _step_rdp(a, c, q, relation):
    if q == 0 or c == 0:
        return 0.0
    if math.isinf(c):
        return math.inf
    if relation == "replace_one":
        if q >= 1:
            return 2.0 * a * c * c
        return max(0.0, _quadrature_log_integral(a, c, q, relation) / (a - 1.0))
    if float(a).is_integer():
        return max(0.0, _binomial_log_moment(int(a), c, q) / (a - 1.0))
    # non-integer order: both directions by quadrature (the other one: swap the roles)
    forward = _quadrature_log_integral(a, c, q, relation)
    reach = a * c + _PAD
    x = np.arange(-reach, reach + _STEP, _STEP)
    log_f = ((1.0 - a) * _log_mixture(x, q, c) - x * x / 2.0 - 0.5 * math.log(2 * math.pi))
    backward = float(special.logsumexp(log_f) + math.log(_STEP))
    return max(0.0, max(forward, backward) / (a - 1.0))


def subsampled_gaussian_rdp(noise_multiplier, sampling_rate, orders, steps=1,
                            relation="replace_one"):
    """RDP curve of ``steps`` Poisson-subsampled Gaussian steps.

    Parameters
    ----------
    noise_multiplier : float
        ``z = sigma / C`` (noise standard deviation over one record's clip), >= 0.
    sampling_rate : float
        Poisson rate ``q`` in [0, 1].
    orders : array-like of float
        Renyi orders ``a > 1``.
    steps : int, default=1
        Number of steps (composition: the curve is multiplied by it).
    relation : {'replace_one', 'add_remove'}, default='replace_one'
        Neighbouring relation (see the module doc).

    Returns
    -------
    rdp : ndarray
        ``eps(a)`` at each order.

    Examples
    --------
    >>> subsampled_gaussian_rdp(1.0, 1.0, [2.0, 4.0]).tolist()  # q = 1: 2 a / z**2
    [4.0, 8.0]
    >>> rdp = subsampled_gaussian_rdp(2.0, 0.01, [2.0, 8.0], relation="add_remove")
    >>> [f"{v:.3e}" for v in rdp]
    ['2.840e-05', '1.158e-04']
    """
    if relation not in ("replace_one", "add_remove"):
        raise ValueError(f"relation must be 'replace_one' or 'add_remove', got {relation!r}.")
    z, q = float(noise_multiplier), float(sampling_rate)
    if not (z >= 0 and 0 <= q <= 1):
        raise ValueError(f"need noise_multiplier >= 0 and sampling_rate in [0, 1], got {z}, {q}.")
    lam = np.asarray(orders, dtype=float)
    if np.any(lam <= 1):
        raise ValueError("Renyi orders must be > 1.")
    c = math.inf if z == 0 else 1.0 / z
    return np.array([_step_rdp(float(a), c, q, relation) for a in lam.ravel()]) * int(steps)


def ledger_rdp(entries, orders):
    """RDP curve of a ledger's entries, composed (added), under replace-one.

    Parameters
    ----------
    entries : iterable of LedgerEntry
        :attr:`PrivacyLedger.entries <skdp.privacy.ledger.PrivacyLedger>`.
    orders : array-like of float
        Renyi orders ``a > 1``.

    Returns
    -------
    rdp : ndarray
        ``eps(a)`` at each order (``inf`` with an ``'approx'`` entry).

    Examples
    --------
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> ledger = PrivacyLedger()
    >>> ledger.gaussian(1.0, sigma=2.0, count=2)
    >>> ledger_rdp(ledger.entries, [2.0, 4.0]).tolist()  # 2 * a / (2 sigma**2)
    [0.5, 1.0]
    """
    lam = np.asarray(orders, dtype=float)
    total = np.zeros(lam.shape)
    steps: dict = {}
    for e in entries:
        if e.kind == "gaussian":
            total = total + e.count * lam * e.mu**2 / 2.0
        elif e.kind == "zcdp":
            total = total + e.count * lam * e.rho
        elif e.kind in ("pure", "exponential"):
            total = total + e.count * np.minimum(e.epsilon, lam * e.rho)
        elif e.kind == "subsampled_gaussian":
            if e.mu > 0 and e.q > 0:
                steps[(e.mu, e.q)] = steps.get((e.mu, e.q), 0) + e.count
        else:  # 'approx': no finite Renyi divergence
            return np.full(lam.shape, math.inf)
    for (mu, q), count in steps.items():
        z = 0.0 if math.isinf(mu) else 1.0 / mu
        total = total + subsampled_gaussian_rdp(z, q, lam, steps=count)
    return total


def rdp_to_delta(orders, rdp, epsilon):
    """Smallest delta at ``epsilon`` of a mechanism with the given RDP curve.

    Canonne, Kamath and Steinke 2020, Prop. 12:
    ``log delta = (a - 1)(eps(a) - epsilon + log(1 - 1/a)) - log a``, minimised
    over the orders.

    Parameters
    ----------
    orders, rdp : array-like of float
        The curve.
    epsilon : float
        Target epsilon >= 0.

    Returns
    -------
    delta : float
        In [0, 1].

    Examples
    --------
    >>> round(rdp_to_delta([2.0, 4.0, 8.0], [0.02, 0.04, 0.08], 1.0), 6)
    7.8e-05
    """
    lam, tau = np.asarray(orders, dtype=float), np.asarray(rdp, dtype=float)
    with np.errstate(invalid="ignore"):
        log_delta = (lam - 1) * (tau - epsilon + np.log1p(-1 / lam)) - np.log(lam)
    log_delta = np.where(np.isnan(log_delta), np.inf, log_delta)
    return float(min(1.0, math.exp(min(0.0, float(np.min(log_delta))))))
