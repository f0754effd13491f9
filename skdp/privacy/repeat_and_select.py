"""Privacy of "repeat a private run a random number of times and keep the best".

Papernot and Steinke, *Hyperparameter Tuning with Renyi Differential Privacy*,
ICLR 2022 (arXiv:2110.03620; "PS22" below). A base run ``Q`` (pick
hyperparameters at random, train privately, score privately) is repeated ``K``
times, ``K`` drawn independently of the data, and only the best-scoring output
is released. PS22 bound the Renyi DP of that release:

* **Truncated negative binomial** ``K ~ D_{eta, gamma}`` (PS22 Definition 1):
  ``P[K = k] = (1-gamma)**k / (gamma**-eta - 1) * prod_{l<k} (l + eta)/(l + 1)``
  for ``eta in (-1, inf)``, ``eta != 0``, ``k >= 1``; ``eta = 0`` is the
  logarithmic distribution ``(1-gamma)**k / (k log(1/gamma))`` and ``eta = 1``
  the geometric one (Liu and Talwar 2019). Mean
  ``eta (1-gamma) / (gamma (1 - gamma**eta))`` (``(1/gamma - 1)/log(1/gamma)``
  at ``eta = 0``). **PS22 Theorem 2**: if ``Q`` is ``(lam, eps)``-RDP and
  ``(lam_hat, eps_hat)``-RDP (``lam > 1``, ``lam_hat >= 1``), the best of
  ``K`` runs is ``(lam, eps')``-RDP with ::

      eps' = eps + (1 + eta) (1 - 1/lam_hat) eps_hat
                 + (1 + eta) log(1/gamma) / lam_hat + log(E[K]) / (lam - 1).

* **Poisson** ``K ~ Poisson(mu)`` (``K = 0`` releases nothing). **PS22
  Theorem 6**: if ``Q`` is ``(lam, eps)``-RDP and ``(eps_hat, delta_hat)``-DP
  with ``exp(eps_hat) <= 1 + 1/(lam - 1)``, the best of ``K`` runs is
  ``(lam, eps + mu delta_hat + log(mu)/(lam - 1))``-RDP.

For a ``rho``-zCDP base run (``(lam, rho lam)``-RDP at every order, Bun and
Steinke 2016, Def. 1.1) the free order of Theorem 2 is optimised in closed form
(derived here): ``(1 - 1/l) rho l + L/l = rho (l - 1) + L/l`` with
``L = log(1/gamma)`` is smallest at ``l = sqrt(L/rho)``, giving
``2 sqrt(rho L) - rho`` when ``L >= rho`` and ``L`` (at ``l = 1``) otherwise.
In Theorem 6 ``delta_hat`` is the CKS 2020 (Prop. 12) delta of ``rho``-zCDP at
``eps_hat = log(1 + 1/(lam - 1))``, minimised over its order. The RDP curve is
converted to (epsilon, delta)-DP by Canonne, Kamath and Steinke 2020, Prop. 12
(an (alpha, tau)-RDP mechanism is (epsilon, delta)-DP with
``epsilon = tau + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1)``),
minimised over the order.

Sources: the paper could not be read where this was written; definition and
theorem numbers are those of arXiv:2110.03620v2 as cited by Google's
``dp_accounting`` (``rdp_privacy_accountant._compute_rdp_repeat_and_select``),
whose implementation of both theorems this module reproduces, and the
optimisation over ``lam_hat`` is derived above. ``tests/estimators/test_model_selection.py``
checks the numbers against ``dp_accounting`` (``RepeatAndSelectDpEvent``) and
checks that the exact Renyi divergence of the best of ``K`` outputs of a
discretised Gaussian score (from the probability generating function of ``K``)
stays below the bound.
"""

import math

import numpy as np
from scipy import optimize

__all__ = [
    "truncated_negative_binomial_mean",
    "truncated_negative_binomial_gamma",
    "sample_repetitions",
    "repeat_and_select_rdp",
    "repeat_and_select_epsilon",
    "repeat_and_select_rdp_curve",
    "repeat_and_select_epsilon_curve",
]

# Renyi orders for the conversion: dense in log(lam - 1), refined by a bounded search.
_LOG_ORDERS = np.linspace(math.log(1e-4), math.log(1e7), 400)


def _check_eta(eta):
    if not (eta > -1 and math.isfinite(eta)):
        raise ValueError(f"eta must be a finite number > -1, got {eta!r}.")


def _log_mass_ratio(eta, log_inv_gamma):
    """``log(eta / (gamma**-eta - 1))`` (``-log log(1/gamma)`` at ``eta = 0``)."""
    x = eta * log_inv_gamma
    if abs(x) < 1e-12:
        return -math.log(log_inv_gamma)
    return math.log(eta / math.expm1(x))


def truncated_negative_binomial_mean(gamma, eta):
    """Mean of the truncated negative binomial ``D_{eta, gamma}`` (PS22 Def. 1).

    ``eta (1 - gamma) / (gamma (1 - gamma**eta))``, and
    ``(1/gamma - 1) / log(1/gamma)`` for ``eta = 0`` (logarithmic distribution).

    Parameters
    ----------
    gamma : float
        Stopping parameter in (0, 1).
    eta : float
        Shape, > -1 (0: logarithmic, 1: geometric).

    Returns
    -------
    mean : float
        ``E[K]``.

    Examples
    --------
    >>> round(truncated_negative_binomial_mean(0.1, 1.0), 12)  # geometric: 1/gamma
    10.0
    """
    _check_eta(eta)
    if not 0 < gamma < 1:
        raise ValueError(f"gamma must be in (0, 1), got {gamma!r}.")
    log_inv = -math.log(gamma)
    # E[K] = (1-gamma)/gamma * eta/(gamma**-eta - 1) * gamma**-eta
    return math.exp(math.log1p(-gamma) - math.log(gamma) + _log_mass_ratio(eta, log_inv)
                    + eta * log_inv)


def truncated_negative_binomial_gamma(mean, eta):
    """The ``gamma`` of ``D_{eta, gamma}`` whose mean is ``mean`` (root finding).

    Parameters
    ----------
    mean : float
        Target ``E[K]``, > 1.
    eta : float
        Shape, > -1.

    Returns
    -------
    gamma : float
        In (0, 1).

    Examples
    --------
    >>> round(truncated_negative_binomial_gamma(10.0, 1.0), 12)
    0.1
    """
    _check_eta(eta)
    if not (mean > 1 and math.isfinite(mean)):
        raise ValueError(f"the mean number of runs must be finite and > 1, got {mean!r}.")
    target = math.log(mean)

    def gap(log_gamma):  # decreasing in gamma
        return math.log(truncated_negative_binomial_mean(math.exp(log_gamma), eta)) - target

    lo = -1.0
    while gap(lo) < 0:
        lo *= 2.0
    return math.exp(optimize.brentq(gap, lo, -1e-12, xtol=1e-15, rtol=1e-14))


def sample_repetitions(rng, mean, eta=0.0, distribution="truncated_negative_binomial"):
    """Draw the number of runs ``K`` (independently of any data).

    The truncated negative binomial is drawn by inversion of its CDF with the
    mass recursion ``p_{k+1} = p_k (1 - gamma)(k + eta)/(k + 1)`` (PS22 Def. 1),
    from one uniform; Poisson by NumPy.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness.
    mean : float
        ``E[K]``, > 1.
    eta : float, default=0.0
        Shape of the truncated negative binomial (ignored for Poisson).
    distribution : {'truncated_negative_binomial', 'poisson'}
        Law of ``K``.

    Returns
    -------
    k : int
        Number of runs (``>= 1``; Poisson may give 0).

    Examples
    --------
    >>> import numpy as np
    >>> sample_repetitions(np.random.default_rng(0), 5.0, eta=1.0)
    5
    """
    if distribution == "poisson":
        return int(rng.poisson(mean))
    gamma = truncated_negative_binomial_gamma(mean, eta)
    u = rng.uniform()
    mass = math.exp(math.log1p(-gamma) + _log_mass_ratio(eta, -math.log(gamma)))
    k, cdf = 1, mass
    while cdf < u and mass > 0:
        mass *= (1.0 - gamma) * (k + eta) / (k + 1)
        cdf += mass
        k += 1
    return k


def _zcdp_delta(rho, epsilon):
    """Smallest CKS 2020 Prop. 12 delta of rho-zCDP at ``epsilon``."""
    if rho == 0:
        return 0.0

    def log_delta(u):
        a = 1.0 + math.exp(u)
        return (a - 1) * (a * rho - epsilon) + (a - 1) * math.log1p(-1 / a) - math.log(a)

    centre = math.log(max(epsilon, 1e-12) / (2 * rho) + 1e-12)
    res = optimize.minimize_scalar(log_delta, bounds=(centre - 20, centre + 20), method="bounded",
                                   options={"xatol": 1e-10})
    return min(1.0, math.exp(min(res.fun, log_delta(centre))))


def repeat_and_select_rdp(orders, rho, mean, eta=0.0, distribution="truncated_negative_binomial"):
    """RDP of the best of ``K`` runs of a ``rho``-zCDP base run (PS22 Thm 2 / Thm 6).

    Parameters
    ----------
    orders : array-like of float
        Renyi orders ``lam > 1``.
    rho : float
        zCDP of one base run (fit and score together).
    mean : float
        ``E[K]``, > 1.
    eta : float, default=0.0
        Shape of the truncated negative binomial.
    distribution : {'truncated_negative_binomial', 'poisson'}
        Law of ``K``.

    Returns
    -------
    rdp : ndarray
        ``eps'(lam)`` at each order.

    Examples
    --------
    >>> rdp = repeat_and_select_rdp([2.0, 8.0], rho=0.01, mean=10.0, eta=1.0)
    >>> rdp.round(4).tolist()
    [2.9096, 0.9959]
    """
    lam = np.asarray(orders, dtype=float)
    if np.any(lam <= 1):
        raise ValueError("Renyi orders must be > 1.")
    base = rho * lam + math.log(mean) / (lam - 1)
    if distribution == "poisson":  # PS22 Theorem 6, exp(eps_hat) = 1 + 1/(lam - 1)
        deltas = np.array([_zcdp_delta(rho, math.log1p(1 / (a - 1))) for a in lam])
        return base + mean * deltas
    log_inv_gamma = -math.log(truncated_negative_binomial_gamma(mean, eta))
    if rho == 0:
        extra = 0.0
    elif log_inv_gamma >= rho:  # optimal lam_hat = sqrt(L / rho) >= 1
        extra = 2 * math.sqrt(rho * log_inv_gamma) - rho
    else:  # lam_hat = 1
        extra = log_inv_gamma
    return base + (1 + eta) * extra  # PS22 Theorem 2


def repeat_and_select_epsilon(rho, delta, mean, eta=0.0,
                              distribution="truncated_negative_binomial", extra_rho=0.0):
    """(epsilon, delta)-DP of the best of ``K`` runs of a ``rho``-zCDP base run.

    The RDP curve of :func:`repeat_and_select_rdp`, plus ``extra_rho * lam``
    for a ``extra_rho``-zCDP release composed after the selection (a refit),
    converted by Canonne–Kamath–Steinke 2020, Prop. 12, minimised over the
    order ``lam > 1``.

    Parameters
    ----------
    rho : float
        zCDP of one base run.
    delta : float
        Target delta in (0, 1).
    mean : float
        ``E[K]``, > 1.
    eta : float, default=0.0
        Shape of the truncated negative binomial.
    distribution : {'truncated_negative_binomial', 'poisson'}
        Law of ``K``.
    extra_rho : float, default=0.0
        zCDP of a release composed after the selection.

    Returns
    -------
    epsilon : float
        The total epsilon at ``delta``.

    Examples
    --------
    >>> round(repeat_and_select_epsilon(0.01, 1e-6, mean=10.0, eta=1.0), 3)
    1.277
    """
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}.")
    if math.isinf(rho) or math.isinf(extra_rho):
        return math.inf

    def eps_at(log_am1):
        lam = 1.0 + np.exp(np.atleast_1d(log_am1))
        tau = repeat_and_select_rdp(lam, rho, mean, eta, distribution) + extra_rho * lam
        return tau + np.log1p(-1 / lam) - (math.log(delta) + np.log(lam)) / (lam - 1)

    grid = eps_at(_LOG_ORDERS)
    i = int(np.argmin(grid))
    lo, hi = _LOG_ORDERS[max(i - 1, 0)], _LOG_ORDERS[min(i + 1, len(_LOG_ORDERS) - 1)]
    res = optimize.minimize_scalar(lambda u: float(eps_at(u)[0]), bounds=(lo, hi),
                                   method="bounded", options={"xatol": 1e-10})
    return max(0.0, min(float(res.fun), float(grid[i])))


def repeat_and_select_rdp_curve(orders, rdp, mean, eta=0.0,
                                distribution="truncated_negative_binomial"):
    """RDP of the best of ``K`` runs of a base run with a given RDP curve (PS22 Thm 2 / Thm 6).

    The general form of :func:`repeat_and_select_rdp`, for base runs with no
    useful zCDP bound (Poisson-subsampled Gaussian runs,
    :mod:`skdp.privacy.rdp`). Theorem 2 at order ``lam`` takes the best free
    order ``lam_hat`` among ``orders`` and ``lam_hat = 1`` (where its
    ``(1 - 1/lam_hat) eps_hat`` term vanishes); Theorem 6 needs the base run
    ``(eps_hat, delta_hat)``-DP at ``eps_hat = log(1 + 1/(lam - 1))``, its
    ``delta_hat`` read off the curve (:func:`~skdp.privacy.rdp.rdp_to_delta`).

    Parameters
    ----------
    orders : array-like of float
        Renyi orders ``> 1``.
    rdp : array-like of float
        The base run's ``eps(lam)`` at those orders.
    mean : float
        ``E[K]``, > 1.
    eta : float, default=0.0
        Shape of the truncated negative binomial.
    distribution : {'truncated_negative_binomial', 'poisson'}
        Law of ``K``.

    Returns
    -------
    rdp : ndarray
        ``eps'(lam)`` at each order.

    Examples
    --------
    >>> import numpy as np
    >>> orders = np.array([2.0, 8.0])
    >>> curve = repeat_and_select_rdp_curve(orders, 0.01 * orders, mean=10.0, eta=1.0)
    >>> bool(np.all(curve >= repeat_and_select_rdp(orders, 0.01, 10.0, 1.0) - 1e-12))
    True
    """
    from .rdp import rdp_to_delta

    lam, tau = np.asarray(orders, dtype=float), np.asarray(rdp, dtype=float)
    if np.any(lam <= 1):
        raise ValueError("Renyi orders must be > 1.")
    base = tau + math.log(mean) / (lam - 1)
    if distribution == "poisson":  # PS22 Theorem 6
        deltas = np.array([rdp_to_delta(lam, tau, math.log1p(1 / (a - 1))) for a in lam])
        return base + mean * deltas
    log_inv_gamma = -math.log(truncated_negative_binomial_gamma(mean, eta))
    with np.errstate(invalid="ignore"):
        hat = (1 - 1 / lam) * tau + log_inv_gamma / lam
    extra = min(log_inv_gamma, float(np.nanmin(hat)))  # lam_hat = 1 gives log(1/gamma)
    return base + (1 + eta) * extra  # PS22 Theorem 2


def repeat_and_select_epsilon_curve(orders, rdp, delta, mean, eta=0.0,
                                    distribution="truncated_negative_binomial", extra_rdp=None):
    """(epsilon, delta)-DP of the best of ``K`` runs of a base run with a given RDP curve.

    :func:`repeat_and_select_rdp_curve` plus ``extra_rdp`` (a release composed
    after the selection, such as a refit), converted by Canonne–Kamath–Steinke
    2020, Prop. 12, minimised over ``orders``.

    Parameters
    ----------
    orders, rdp : array-like of float
        The base run's RDP curve.
    delta : float
        Target delta in (0, 1).
    mean : float
        ``E[K]``, > 1.
    eta : float, default=0.0
        Shape of the truncated negative binomial.
    distribution : {'truncated_negative_binomial', 'poisson'}
        Law of ``K``.
    extra_rdp : array-like of float, default=None
        RDP curve (same orders) of a release composed after the selection.

    Returns
    -------
    epsilon : float
        The total epsilon at ``delta``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.privacy.rdp import RDP_ORDERS
    >>> orders = np.array(RDP_ORDERS)
    >>> eps = repeat_and_select_epsilon_curve(orders, 0.01 * orders, 1e-6, 10.0, eta=1.0)
    >>> bool(repeat_and_select_epsilon(0.01, 1e-6, 10.0, eta=1.0) <= eps < 1.4)
    True
    """
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}.")
    lam = np.asarray(orders, dtype=float)
    tau = repeat_and_select_rdp_curve(lam, rdp, mean, eta, distribution)
    if extra_rdp is not None:
        tau = tau + np.asarray(extra_rdp, dtype=float)
    if not np.any(np.isfinite(tau)):
        return math.inf
    eps = tau + np.log1p(-1 / lam) - (math.log(delta) + np.log(lam)) / (lam - 1)
    return max(0.0, float(np.nanmin(np.where(np.isfinite(eps), eps, np.inf))))
