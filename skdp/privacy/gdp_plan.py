"""The one plan of a fit whose every release is Gaussian: Gaussian DP, split in shares of ``mu**2``.

Rule (Dong–Roth–Su 2022, "Gaussian differential privacy", JRSS B): a fit whose every
release is a Gaussian mechanism is planned in Gaussian DP.

* Its total is ``mu = mu(epsilon, delta - delta_t)``, the exact GDP budget of the fit's
  ``(epsilon, delta)`` less the ``delta_t`` of the ``(0, delta_t)`` parts charged apart
  (stability thresholds, composed by basic composition): the largest ``mu`` whose
  ``delta_mu(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)`` is at
  most ``delta - delta_t`` (Cor. 2.13, inverted: :func:`exact_mu`). mu-GDP is then
  (epsilon, delta - delta_t)-DP with no conversion loss.
* Its releases take shares ``s_i`` (``sum s_i <= 1``) of ``mu**2``: ``mu_i = mu sqrt(s_i)``
  (:func:`gdp_shares`), a release of l2-sensitivity ``Delta_i`` drawn at ``sigma_i = Delta_i /
  mu_i`` is ``mu_i``-GDP (Thm 2.7), and the releases compose, adaptively too (the GDP filter
  of Smith–Thakurta 2022), to ``sqrt(sum mu_i**2) = mu sqrt(sum s_i) <= mu`` (Cor. 3.3).
  Each share's zCDP image is ``rho_i = mu_i**2 / 2`` (a Gaussian mechanism is ``rho``-zCDP
  exactly when it is ``sqrt(2 rho)``-GDP), which is what a release calibrated by ``rho``
  (``sigma = Delta / sqrt(2 rho)``, Bun–Steinke 2016 Prop. 1.6) is given (:func:`gdp_rho`).

Calibrating the same releases in zCDP (``rho = approx_dp_to_zcdp(epsilon, delta)``,
Canonne–Kamath–Steinke 2020) and charging them in GDP spends less than epsilon (about 0.93
of epsilon 1 at delta 1e-6): the conversion of zCDP is looser than GDP's exact one.

The estimators decide which of their fits are Gaussian only (public: the solver, the
columns, the parameters); this module only computes the plan, below the solvers, which split
their own share by :func:`gdp_shares` too (two-column ``mst``).
"""

import math

from .ledger import approx_dp_to_gdp

__all__ = ["exact_mu", "gdp_rho", "gdp_shares"]

_ROUND_OFF = 1e-12  # shares computed as differences (1 - 0.1 - 0.2) may exceed 1 by round-off


def exact_mu(epsilon, delta, slack=0.0):
    """The exact GDP budget of ``(epsilon, delta)``: the largest ``mu`` such that mu-GDP is
    (epsilon, delta)-DP (Dong–Roth–Su 2022 Cor. 2.13, inverted), shrunk by ``slack``
    (relative; 0 here). ``delta`` is the delta left to the Gaussian releases (the fit's less
    the thresholds' ``delta_t``). ``inf`` at ``epsilon = inf`` (the non-private fit).

    Examples
    --------
    >>> round(exact_mu(1.0, 1e-6), 6)
    0.236704
    >>> exact_mu(float("inf"), 1e-6)
    inf
    """
    return approx_dp_to_gdp(epsilon, delta) * (1.0 - slack)


def gdp_shares(mu, shares):
    """The GDP parameters of releases taking ``shares`` of ``mu**2``: ``mu_i = mu sqrt(s_i)``.

    They compose to ``mu sqrt(sum s_i) <= mu`` (Dong–Roth–Su 2022 Cor. 3.3); a share of 0 is
    a release that does not happen (``mu_i = 0``). ``mu = inf`` (not private) gives ``inf``
    for every positive share. Refuses (``ValueError``) shares that are negative or add up
    to more than 1 (beyond float round-off).

    Examples
    --------
    >>> [round(m, 6) for m in gdp_shares(0.5, (0.5, 0.5))]
    [0.353553, 0.353553]
    >>> gdp_shares(0.5, (1.0, 0.0))
    (0.5, 0.0)
    >>> gdp_shares(0.5, (0.7, 0.4))
    Traceback (most recent call last):
    ...
    ValueError: GDP shares must be >= 0 and add up to at most 1, got (0.7, 0.4).
    """
    shares = tuple(float(s) for s in shares)
    if any(not s >= 0.0 for s in shares) or sum(shares) > 1.0 + _ROUND_OFF:
        raise ValueError(f"GDP shares must be >= 0 and add up to at most 1, got {shares}.")
    if math.isinf(mu):
        return tuple(math.inf if s > 0 else 0.0 for s in shares)
    return tuple(mu * math.sqrt(s) for s in shares)


def gdp_rho(mu, share):
    """The zCDP image ``mu_i**2 / 2`` of the release taking ``share`` of ``mu**2``
    (:func:`gdp_shares`): a Gaussian mechanism is ``rho``-zCDP exactly when it is
    ``sqrt(2 rho)``-GDP (Dong–Roth–Su 2022 Thm 2.7 with Bun–Steinke 2016 Prop. 1.6), so a
    release calibrated by ``rho`` (``sigma = Delta / sqrt(2 rho)``) is ``mu_i``-GDP.
    ``inf`` when ``mu`` is.

    Examples
    --------
    >>> round(gdp_rho(0.5, 0.2), 12)
    0.025
    """
    (mu_i,) = gdp_shares(mu, (share,))
    return mu_i * mu_i / 2.0
