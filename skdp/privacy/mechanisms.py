"""The mechanisms as plain functions, for one-off releases and their tests.

The same draws as :class:`~skdp.privacy.release.Release` (they share its
implementation); fits use a :class:`~skdp.privacy.release.Release` or a
:class:`~skdp.privacy.budget.Budget`, which record every draw.
"""

from .ledger import gaussian_sigma
from .release import _add_normal, _noisy_argmax

__all__ = ["gaussian_mechanism", "exponential_mechanism", "report_noisy_max"]


def gaussian_mechanism(value, sensitivity, backend, *, sigma=None, rho=None, ledger=None,
                       label="gaussian", replace_sensitivity=None):
    """Release ``value + N(0, sigma**2 I)``.

    With l2-sensitivity ``sensitivity`` this is ``sensitivity**2/(2 sigma**2)``-zCDP
    (Bun–Steinke 2016, Prop. 1.6) and ``sensitivity/sigma``-GDP (Dong–Roth–Su
    2022, Thm 2.7). Give either ``sigma`` or a zCDP target ``rho``.

    Parameters
    ----------
    value : array
        The exact statistic, in the backend's namespace.
    sensitivity : float
        Its l2-sensitivity under the neighbouring relation in use.
    backend : Backend
        Namespace and generator for the noise.
    sigma : float, default=None
        Noise standard deviation.
    rho : float, default=None
        zCDP target; sets ``sigma = sensitivity / sqrt(2 rho)``.
    ledger : PrivacyLedger, default=None
        If given, the release is recorded in it.
    label : str, default='gaussian'
        Name of the release in the ledger.
    replace_sensitivity : float, default=None
        Where ``sensitivity`` is stated under add/remove neighbours: the
        statistic's replace-one l2-sensitivity (1 to 2 times ``sensitivity``;
        a histogram's is ``sqrt 2`` times), recorded with the release so that
        a replace-one budget counts it at ``mu`` times their ratio, not group
        privacy's ``2 mu`` (:func:`~skdp.privacy.ledger.replace_ratio`).
        Needs ``ledger``.

    Returns
    -------
    noisy : array
        Same shape, namespace and device as ``value``.
    sigma : float
        The noise standard deviation used.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> b = Backend.from_arrays(np.zeros(2), random_state=0)
    >>> noisy, sigma = gaussian_mechanism(np.zeros(2), 1.0, b, rho=0.5)
    >>> sigma
    1.0
    """
    if (sigma is None) == (rho is None):
        raise ValueError("give exactly one of sigma and rho.")
    if sigma is None:
        sigma = gaussian_sigma(sensitivity, rho)
    if ledger is not None:
        ledger.gaussian(sensitivity, sigma, label=label, replace_sensitivity=replace_sensitivity)
    return _add_normal(backend, value, sigma), sigma


def exponential_mechanism(scores, sensitivity, epsilon, backend, *, monotonic=False,
                          ledger=None, label="exponential"):
    """Index sampled with probability proportional to ``exp(eps s_i / (2 Delta))``.

    The exponential mechanism (McSherry–Talwar 2007; Dwork–Roth Thm 3.10) is
    epsilon-DP; when every score moves in the same direction between
    neighbours (``monotonic=True``) the exponent is ``eps s_i / Delta``. It is
    epsilon-bounded-range, so ``epsilon**2/8``-zCDP (Cesar–Rogers 2021). It is
    implemented as report-noisy-max with Gumbel noise (the Gumbel-max trick:
    ``argmax_i(c s_i + G_i)`` has exactly the softmax law).

    Parameters
    ----------
    scores : array of shape (k,)
        Utility of each candidate (higher is better).
    sensitivity : float
        Largest change of any score between neighbouring datasets.
    epsilon : float
        Privacy parameter; ``inf`` returns the argmax.
    backend : Backend
        Namespace and generator.
    monotonic : bool, default=False
        Scores all move the same way between neighbours.
    ledger : PrivacyLedger, default=None
        If given, the selection is recorded in it.
    label : str, default='exponential'
        Name of the selection in the ledger.

    Returns
    -------
    index : int

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> b = Backend.from_arrays(np.zeros(3), random_state=0)
    >>> exponential_mechanism(np.array([0.0, 100.0, 0.0]), 1.0, 10.0, b)
    1
    """
    if ledger is not None:
        ledger.exponential(epsilon, label=label)
    return _noisy_argmax(backend, scores, sensitivity, epsilon, monotonic)


report_noisy_max = exponential_mechanism
"""Report-noisy-max with Gumbel noise: the same mechanism as
:func:`exponential_mechanism`."""

