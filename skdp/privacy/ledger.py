"""The privacy ledger (a fit's record of its mechanisms) and the privacy arithmetic it composes.

Three currencies are used, each with its exact conversion to (epsilon, delta):

* **zCDP** (rho), Bun and Steinke 2016. The Gaussian mechanism with
  l2-sensitivity ``Delta`` and noise ``sigma`` is ``Delta**2 / (2 sigma**2)``-zCDP
  (Bun–Steinke Prop. 1.6); zCDP composes by adding rho (Lemma 2.3). It converts
  to (epsilon, delta) by the conversion of Canonne, Kamath and Steinke 2020,
  Prop. 12 / Cor. 13 (the one RDP accountants use, also Asoodeh et al. 2020
  eq. 20)::

      epsilon(rho, delta) = inf_{alpha > 1} alpha rho + log(1 - 1/alpha)
                                            - (log delta + log alpha) / (alpha - 1)

* **Gaussian DP** (mu), Dong, Roth and Su 2022. The Gaussian mechanism is
  ``Delta/sigma``-GDP; mu composes as the l2 norm (Cor. 3.3); and mu-GDP is
  exactly (epsilon, delta)-DP for (Cor. 2.13)::

      delta(epsilon) = Phi(-epsilon/mu + mu/2) - exp(epsilon) Phi(-epsilon/mu - mu/2)

* **pure epsilon-DP**, for the exponential mechanism and report-noisy-max.
  An epsilon-DP exponential mechanism is epsilon-bounded-range, hence
  ``epsilon**2 / 8``-zCDP (Cesar and Rogers 2021, Lemma 3.2; Durfee and Rogers
  2019); a generic epsilon-DP mechanism is ``epsilon**2 / 2``-zCDP (Bun–Steinke
  Prop. 1.4). Pure mechanisms also compose by advanced composition: the
  heterogeneous form of Dwork, Rothblum and Vadhan 2010 (Dwork–Roth Thm 3.20),
  the fully adaptive filter of Whitehouse et al. 2023 (paper 002, Thm 3.5), and
  the per-step rule of paper 002, Cor. 3.6.

* **privacy loss distributions** (:mod:`skdp.privacy.pld`) for the
  Poisson-subsampled Gaussian mechanism under replace-one, whose exact
  composition no single parameter above captures: its dominating pair is
  discretised pessimistically and composed numerically.

:class:`PrivacyLedger` composes any mix of these adaptively and answers "how
much (epsilon, delta) has been spent" by the tightest of the valid rules.
"""

import dataclasses
from dataclasses import dataclass, field
import functools
import math
from typing import Any, ClassVar, Optional
import warnings

import numpy as np
from scipy import optimize, special

from .pld import COARSE_GAP, COARSER_GAP, compose_gaussian_parts, smallest_noise_multiplier

__all__ = [
    "subsampled_noise_within",
    "gaussian_rho",
    "gaussian_sigma",
    "zcdp_to_approx_dp",
    "approx_dp_to_zcdp",
    "gdp_delta",
    "gdp_to_approx_dp",
    "approx_dp_to_gdp",
    "bounded_range_rho",
    "pure_rho",
    "advanced_composition_epsilon",
    "fully_adaptive_epsilon",
    "advanced_composition_step_epsilon",
    "fully_adaptive_step_epsilon",
    "bounded_range_step_epsilon",
    "replace_ratio",
    "LedgerEntry",
    "GaussianEvent",
    "SubsampledGaussianEvent",
    "ZCDPEvent",
    "ExponentialEvent",
    "PureEvent",
    "ApproxEvent",
    "EVENT_KINDS",
    "PrivacyLedger",
    "gaussian_pld",
    "describe_composition",
]


def _check_delta(delta, *, allow_zero=True):
    if not (0 <= delta < 1 if allow_zero else 0 < delta < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"delta must be in {interval}, got {delta!r}.")


# ---------------------------------------------------------------------------
# Gaussian mechanism and zCDP
# ---------------------------------------------------------------------------
def gaussian_rho(sensitivity, sigma):
    """zCDP of the Gaussian mechanism: ``rho = sensitivity**2 / (2 sigma**2)``.

    Bun and Steinke 2016, Prop. 1.6. ``sigma = 0`` gives ``inf``.

    Examples
    --------
    >>> gaussian_rho(1.0, 2.0)
    0.125
    """
    if sensitivity < 0 or sigma < 0:
        raise ValueError("sensitivity and sigma must be non-negative.")
    if sensitivity == 0:
        return 0.0
    if sigma == 0:
        return math.inf
    return sensitivity**2 / (2.0 * sigma**2)


def gaussian_sigma(sensitivity, rho):
    """Noise scale of the Gaussian mechanism for a zCDP target ``rho``.

    Inverse of :func:`gaussian_rho`: ``sigma = sensitivity / sqrt(2 rho)``;
    ``rho = inf`` gives 0 (no noise).

    Examples
    --------
    >>> gaussian_sigma(1.0, 0.125)
    2.0
    """
    if sensitivity < 0 or rho <= 0:
        raise ValueError("sensitivity must be >= 0 and rho > 0.")
    if math.isinf(rho):
        return 0.0
    return sensitivity / math.sqrt(2.0 * rho)


def _cks_epsilon(rho, delta, alpha):
    """The CKS 2020 bound at one Renyi order alpha > 1 (Prop. 12)."""
    return (alpha * rho + math.log1p(-1.0 / alpha)
            - (math.log(delta) + math.log(alpha)) / (alpha - 1.0))


def zcdp_to_approx_dp(rho, delta, orders=None):
    """Tight conversion of rho-zCDP to (epsilon, delta)-DP.

    Canonne, Kamath and Steinke 2020, Prop. 12 (Cor. 13 in the published
    version): the infimum over Renyi orders alpha > 1 of
    ``alpha rho + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1)``,
    floored at 0. It is strictly tighter than the classic
    ``rho + 2 sqrt(rho log(1/delta))`` (Bun–Steinke Prop. 1.3).

    Parameters
    ----------
    rho : float
        zCDP parameter, ``>= 0``.
    delta : float
        Target delta in [0, 1). ``delta = 0`` gives ``inf`` unless ``rho = 0``.
    orders : sequence of float, default=None
        Minimise over these Renyi orders only (as RDP accountants do). ``None``
        minimises over all alpha > 1 (exact).

    Returns
    -------
    epsilon : float

    Examples
    --------
    >>> round(zcdp_to_approx_dp(1 / 32, 1e-3), 10)
    0.6880024555
    """
    if rho < 0:
        raise ValueError(f"rho must be non-negative, got {rho!r}.")
    _check_delta(delta)
    if rho == 0:
        return 0.0
    if math.isinf(rho) or delta == 0:
        return math.inf
    if orders is not None:
        values = [_cks_epsilon(rho, delta, a) for a in orders if a > 1.0]
        return max(0.0, min(values))
    return _cks_infimum(float(rho), float(delta))


def _cks_minimum(rho, delta):
    """:func:`zcdp_to_approx_dp` over all orders at ``rho > 0``, ``0 < delta < 1``."""
    # The minimiser is near alpha = 1 + sqrt(log(1/delta) / rho); search
    # log(alpha - 1) on a bracket wide enough for any rho and delta.
    centre = 0.5 * math.log(max(math.log(1.0 / delta), 1e-300) / rho)
    res = optimize.minimize_scalar(
        lambda u: _cks_epsilon(rho, delta, 1.0 + math.exp(u)),
        bounds=(centre - 12.0, centre + 12.0), method="bounded",
        options={"xatol": 1e-12, "maxiter": 500},
    )
    return max(0.0, float(res.fun))


# remembered (a pure function of two floats: every fit converts its epsilon and its spend
# again); the root finding below calls the plain one, so as not to fill the cache
_cks_infimum = functools.lru_cache(maxsize=256)(_cks_minimum)


def approx_dp_to_zcdp(epsilon, delta):
    """The largest rho whose zCDP guarantee implies (epsilon, delta)-DP.

    Exact inversion of :func:`zcdp_to_approx_dp` (which is increasing in
    rho) by root finding. ``epsilon = inf`` gives ``inf``.

    Examples
    --------
    >>> round(approx_dp_to_zcdp(0.6880024554878086, 1e-3), 8)
    0.03125
    """
    if not epsilon > 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
    _check_delta(delta, allow_zero=False)
    if math.isinf(epsilon):
        return math.inf
    return _zcdp_root(float(epsilon), float(delta))


@functools.lru_cache(maxsize=256)
def _zcdp_root(epsilon, delta):
    """:func:`approx_dp_to_zcdp`'s root, remembered (a pure function of its two floats)."""
    def eps(r):  # zcdp_to_approx_dp(r, delta), uncached
        return 0.0 if r == 0 else _cks_minimum(r, delta)

    hi = epsilon
    while eps(hi) < epsilon:
        hi *= 2.0
    return optimize.brentq(lambda r: eps(r) - epsilon,
                           0.0, hi, xtol=1e-15, rtol=1e-13)


# ---------------------------------------------------------------------------
# Gaussian differential privacy
# ---------------------------------------------------------------------------
def gdp_delta(mu, epsilon):
    """Exact delta of mu-GDP at a given epsilon (Dong–Roth–Su 2022, Cor. 2.13).

    ``delta = Phi(-eps/mu + mu/2) - exp(eps) Phi(-eps/mu - mu/2)``, evaluated in
    log space. It equals the analytic Gaussian mechanism's delta (Balle and
    Wang 2018, Thm 8) with ``mu = sensitivity / sigma``.

    Examples
    --------
    >>> round(gdp_delta(1.0, 0.0), 6)
    0.382925
    """
    if mu < 0:
        raise ValueError(f"mu must be non-negative, got {mu!r}.")
    if mu == 0:
        return 0.0
    if math.isinf(mu):
        return 1.0
    a = special.log_ndtr(-epsilon / mu + mu / 2.0)
    b = epsilon + special.log_ndtr(-epsilon / mu - mu / 2.0)
    if b >= a:
        return 0.0
    return float(math.exp(a) * -math.expm1(b - a))


def gdp_to_approx_dp(mu, delta):
    """Smallest epsilon such that mu-GDP implies (epsilon, delta)-DP.

    Inverts :func:`gdp_delta` (decreasing in epsilon) by root finding.

    Examples
    --------
    >>> round(gdp_to_approx_dp(1.0, 1e-5), 4)
    4.3772
    """
    if mu < 0:
        raise ValueError(f"mu must be non-negative, got {mu!r}.")
    _check_delta(delta)
    if mu == 0:
        return 0.0
    if math.isinf(mu) or delta == 0:
        return math.inf
    if gdp_delta(mu, 0.0) <= delta:
        return 0.0
    hi = 1.0
    while gdp_delta(mu, hi) > delta:
        hi *= 2.0
    log_delta = math.log(delta)

    def gap(eps):
        d = gdp_delta(mu, eps)
        return (math.log(d) if d > 0 else -math.inf) - log_delta

    return optimize.brentq(gap, 0.0, hi, xtol=1e-14, rtol=1e-13)


def approx_dp_to_gdp(epsilon, delta):
    """The largest mu such that mu-GDP implies (epsilon, delta)-DP.

    Examples
    --------
    >>> round(approx_dp_to_gdp(4.377178, 1e-5), 4)
    1.0
    """
    if not epsilon > 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
    _check_delta(delta, allow_zero=False)
    if math.isinf(epsilon):
        return math.inf
    hi = 1.0
    while gdp_delta(hi, epsilon) < delta:
        hi *= 2.0
    return optimize.brentq(lambda m: gdp_delta(m, epsilon) - delta, 1e-12, hi,
                           xtol=1e-14, rtol=1e-13)


# ---------------------------------------------------------------------------
# Pure DP: bounded range and advanced composition
# ---------------------------------------------------------------------------
def bounded_range_rho(epsilon):
    """zCDP of an epsilon-DP exponential mechanism: ``epsilon**2 / 8``.

    The exponential mechanism (and report-noisy-max with Gumbel noise) is
    epsilon-bounded-range, which implies ``epsilon**2/8``-zCDP (Cesar and
    Rogers 2021, Lemma 3.2).

    Examples
    --------
    >>> bounded_range_rho(2.0)
    0.5
    """
    if epsilon < 0:
        raise ValueError("epsilon must be non-negative.")
    return epsilon**2 / 8.0


def pure_rho(epsilon):
    """zCDP of any epsilon-DP mechanism: ``epsilon**2 / 2`` (Bun–Steinke Prop. 1.4).

    Examples
    --------
    >>> pure_rho(1.0)
    0.5
    """
    if epsilon < 0:
        raise ValueError("epsilon must be non-negative.")
    return epsilon**2 / 2.0


def advanced_composition_epsilon(epsilons, delta):
    """Advanced composition of pure-DP mechanisms (Dwork, Rothblum, Vadhan 2010).

    Adaptive composition of ``epsilon_i``-DP mechanisms is
    (epsilon, delta)-DP for ``epsilon = sqrt(2 log(1/delta) sum eps_i**2)
    + sum eps_i (exp(eps_i) - 1)`` (Dwork–Roth 2014, Thm 3.20, in its
    heterogeneous form).

    Examples
    --------
    >>> round(advanced_composition_epsilon([0.1] * 100, 1e-5), 4)
    5.8502
    """
    eps = np.asarray(epsilons, dtype=float)
    _check_delta(delta, allow_zero=False)
    return float(math.sqrt(2.0 * math.log(1.0 / delta) * np.sum(eps**2))
                 + np.sum(eps * np.expm1(eps)))


def fully_adaptive_epsilon(epsilons, delta, counts=None):
    """Fully adaptive composition of pure-DP mechanisms (paper 002, Thm 3.5).

    Whitehouse, Ramdas, Rogers and Wu 2023: mechanisms whose ``epsilon_i`` are
    chosen adaptively compose to (epsilon, delta)-DP with ``epsilon =
    sqrt(2 log(1/delta) sum eps_i**2) + sum eps_i**2 / 2``. The same
    expression is the stopping rule of the privacy filter. ``counts``
    (optional) says how many times each ``epsilons[i]`` ran.

    Examples
    --------
    >>> round(fully_adaptive_epsilon([0.1] * 100, 1e-5), 4)
    5.2985
    >>> round(fully_adaptive_epsilon([0.1], 1e-5, counts=[100]), 4)
    5.2985
    """
    eps = np.asarray(epsilons, dtype=float)
    _check_delta(delta, allow_zero=False)
    weights = np.ones_like(eps) if counts is None else np.asarray(counts, dtype=float)
    total = float(weights @ eps**2)
    return math.sqrt(2.0 * math.log(1.0 / delta) * total) + 0.5 * total


def advanced_composition_step_epsilon(epsilon, delta, n_steps):
    """Per-step epsilon by paper 002, Cor. 3.6: ``eps / (2 sqrt(2 T log(1/delta)))``.

    ``n_steps`` adaptive mechanisms, each epsilon'-DP with this epsilon', are
    (epsilon, delta)-DP. The corollary needs ``epsilon <= 8 log(1/delta)``.

    Examples
    --------
    >>> round(advanced_composition_step_epsilon(1.0, 1e-5, 2000), 5)
    0.00233
    """
    _check_delta(delta, allow_zero=False)
    if not 0 < epsilon <= 8.0 * math.log(1.0 / delta):
        raise ValueError("paper 002 Cor. 3.6 needs 0 < epsilon <= 8 log(1/delta).")
    return epsilon / (2.0 * math.sqrt(2.0 * n_steps * math.log(1.0 / delta)))


def fully_adaptive_step_epsilon(epsilon, delta, n_steps):
    """Largest equal per-step epsilon' that :func:`fully_adaptive_epsilon` allows.

    Solves ``sqrt(2 N L) e + N e**2 / 2 = epsilon`` with ``L = log(1/delta)``:
    ``e = (sqrt(2 N L + 2 N epsilon) - sqrt(2 N L)) / N`` (paper 002 Thm 3.5
    solved for equal steps).

    Examples
    --------
    >>> e = fully_adaptive_step_epsilon(1.0, 1e-5, 2000)
    >>> round(fully_adaptive_epsilon([e] * 2000, 1e-5), 12)
    1.0
    """
    _check_delta(delta, allow_zero=False)
    n, log_inv = float(n_steps), math.log(1.0 / delta)
    return (math.sqrt(2 * n * log_inv + 2 * n * epsilon)
            - math.sqrt(2 * n * log_inv)) / n


def bounded_range_step_epsilon(rho, n_steps):
    """Per-step epsilon' of ``n_steps`` exponential mechanisms within ``rho``-zCDP.

    ``n_steps * eps'**2 / 8 = rho`` (Cesar–Rogers 2021), so
    ``eps' = sqrt(8 rho / n_steps)``.

    Examples
    --------
    >>> bounded_range_step_epsilon(0.5, 8)
    0.7071067811865476
    """
    if rho < 0 or n_steps < 1:
        raise ValueError("rho must be >= 0 and n_steps >= 1.")
    return math.sqrt(8.0 * rho / n_steps)


def replace_ratio(sensitivity, replace_sensitivity):
    """A Gaussian part's replace-one over add/remove l2-sensitivity, checked to lie in [1, 2].

    ``sensitivity`` is the query's l2-sensitivity ``Delta_ar`` under add/remove
    neighbours (the one its noise is calibrated to), ``replace_sensitivity``
    its l2-sensitivity ``Delta_r`` under replace-one, as the mechanism's
    author claims it; the ratio is ``r = Delta_r / Delta_ar``. The Gaussian
    mechanism ``f(D) + N(0, sigma**2 I)`` is exactly ``Delta/sigma``-GDP for
    the relation ``Delta`` is stated under (Dong, Roth and Su 2022, Thm 2.7;
    Balle and Wang 2018, Thm 8, for its (epsilon, delta) curve), so a part
    that is ``mu``-GDP under add/remove is ``r mu``-GDP under replace-one (and
    ``r**2 rho``-zCDP), where group privacy would give ``2 mu``. Examples: a
    histogram or stacked marginal counts (one count per marginal moves):
    ``Delta_ar = sqrt(M)``, ``Delta_r = sqrt(2 M)``, ``r = sqrt 2``; a sum
    of values in ``[-1, 1]``: ``Delta_ar = 1``, ``Delta_r = 2``, ``r = 2``.

    ``r <= 2`` always holds (replacing a row is removing it and adding
    another: the triangle inequality), so a larger claim is an error. A
    ratio below 1 is possible (a row count has ``Delta_r = 0``) but no skdp
    mechanism needs it, and refusing it catches the two sensitivities given
    in swapped order: ``r < 1`` is refused too.

    Parameters
    ----------
    sensitivity : float
        The add/remove l2-sensitivity (>= 0).
    replace_sensitivity : float or None
        The replace-one l2-sensitivity; ``None``: not known.

    Returns
    -------
    ratio : float
        Rounded up to a multiple of ``2**-40``; ``nan`` when
        ``replace_sensitivity`` is ``None`` (group privacy's 2 applies) or
        both sensitivities are 0 (the part costs nothing).

    Examples
    --------
    >>> round(replace_ratio(2.0, math.sqrt(8.0)), 12)   # 4 marginals' counts
    1.414213562373
    >>> replace_ratio(1.0, None)
    nan
    """
    if replace_sensitivity is None:
        return math.nan
    sensitivity, replace_sensitivity = float(sensitivity), float(replace_sensitivity)
    if sensitivity == 0 and replace_sensitivity == 0:
        return math.nan
    ratio = replace_sensitivity / sensitivity if sensitivity > 0 else math.inf
    if not 1.0 - 1e-12 <= ratio <= 2.0 + 1e-12:
        raise ValueError(
            f"replace_sensitivity={replace_sensitivity!r} is {ratio!r} times the add/remove "
            f"sensitivity {sensitivity!r}: it must be between 1 and 2 times it (replacing a "
            "row is removing one and adding one).")
    # rounded up to a multiple of 2**-40: never below the claim (1e-12 relative at most),
    # and equal ratios computed different ways (sqrt(2 M) / sqrt(M)) compact to one part
    return min(max(math.ceil(ratio * 2.0**40) / 2.0**40, 1.0), 2.0)


# ---------------------------------------------------------------------------
# Ledger events: one immutable record per mechanism kind
# ---------------------------------------------------------------------------
_FLAT_ORDER = ("count", "epsilon", "delta", "rho", "mu", "q", "label", "replace_ratio")
"""The fields of the one flat entry of skdp before typed events (issue 29), in its order: the
stored format of a spend's parts (:func:`~skdp.privacy.store.encode_parts`), which an older
skdp sharing a budget store still reads."""


def _unset(name, value):
    """Whether a flat field holds its "does not apply" value (``nan``, or ``delta = 0``)."""
    if name == "delta":
        return value == 0
    return value is None or (isinstance(value, float) and math.isnan(value))


class _EventType(type):
    """Calling :class:`LedgerEntry` itself (the one flat dataclass of skdp before issue 29,
    ``LedgerEntry(kind, count, epsilon=..., ...)``) still builds the event of that kind, with a
    FutureWarning, for one release."""

    def __call__(cls, *args, **kwargs):
        if cls is LedgerEntry:
            warnings.warn("LedgerEntry(kind, ...) is deprecated: a ledger's entries are typed "
                          "events (GaussianEvent, SubsampledGaussianEvent, ZCDPEvent, "
                          "ExponentialEvent, PureEvent, ApproxEvent); construct one of them, "
                          "or record through PrivacyLedger's methods.", FutureWarning,
                          stacklevel=2)
            return LedgerEntry.from_fields(**dict(zip(("kind",) + _FLAT_ORDER, args)), **kwargs)
        return super().__call__(*args, **kwargs)


class LedgerEntry(metaclass=_EventType):
    """One (possibly repeated) mechanism recorded in a :class:`PrivacyLedger`: the events' base.

    Each mechanism kind is its own frozen dataclass, holding only the
    parameters that apply to it: :class:`GaussianEvent`,
    :class:`SubsampledGaussianEvent`, :class:`ZCDPEvent`,
    :class:`ExponentialEvent`, :class:`PureEvent`, :class:`ApproxEvent`. Every
    event has

    Attributes
    ----------
    kind : str
        Its kind, read-only (a class attribute): ``'gaussian'``,
        ``'subsampled_gaussian'``, ``'zcdp'``, ``'exponential'``, ``'pure'`` or
        ``'approx'``, the words of the stored format and of
        :meth:`PrivacyLedger.log`.
    count : int
        How many times it ran.
    label : str
        What it released, for the per-step log.

    Events are immutable (assigning a field raises
    :class:`dataclasses.FrozenInstanceError`) and hashable; two are equal when
    they are of the same kind with equal fields.

    Examples
    --------
    >>> ledger = PrivacyLedger()
    >>> ledger.exponential(0.5, count=2, label="select")
    >>> ledger.entries[0]
    ExponentialEvent(epsilon=0.5, count=2, label='select')
    >>> ledger.entries[0].kind, ledger.entries[0].rho
    ('exponential', 0.03125)
    >>> isinstance(ledger.entries[0], LedgerEntry)
    True
    """

    kind: ClassVar[str] = ""
    count: int
    label: str

    @staticmethod
    def from_fields(kind, **fields):
        """The event of ``kind`` from the flat fields of the stored format.

        ``fields`` are those of the one flat entry of skdp before typed events
        (``count, epsilon, delta, rho, mu, q, label, replace_ratio``): a field
        that does not apply to the kind must hold its "not set" value (``nan``,
        ``delta = 0``), and a derived one (the zCDP ``rho`` of an exponential or
        pure event) must equal its formula's value; otherwise ``ValueError``
        (dropping it could change the composition). ``TypeError`` for a field
        name it does not know.

        Examples
        --------
        >>> LedgerEntry.from_fields("zcdp", count=2, rho=0.5, delta=0.0)
        ZCDPEvent(rho=0.5, count=2, label='')
        """
        cls = _EVENTS.get(kind)
        if cls is None:
            raise ValueError(f"unknown ledger event kind {kind!r}; known: {sorted(_EVENTS)}.")
        unknown = set(fields) - set(_FLAT_ORDER)
        if unknown:
            raise TypeError(f"ledger events have no field(s) {sorted(unknown)}.")
        own = {f.name for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {name: (None if name == "replace_ratio" and _unset(name, value)
                                         else value)
                                  for name, value in fields.items() if name in own}
        event = cls(**values)
        for name, value in fields.items():
            if name in own or _unset(name, value):
                continue
            derived = getattr(event, name, None)
            if derived is None or not math.isclose(value, derived, rel_tol=1e-12, abs_tol=0.0):
                raise ValueError(f"a {kind!r} event has no field {name!r} (got {value!r}).")
        return event

    def flat(self):
        """The event as the one flat entry of the stored format: a dict, fields in order.

        ``kind`` first, then ``count, epsilon, delta, rho, mu, q, label,
        replace_ratio`` where they apply (a derived ``rho`` included; ``delta``
        always, 0 for the kinds that have none), exactly as skdp wrote an entry
        before typed events, so that an older skdp sharing a budget store reads it.

        Examples
        --------
        >>> PureEvent(0.1).flat()
        {'kind': 'pure', 'count': 1, 'epsilon': 0.1, 'delta': 0.0, 'rho': 0.005000000000000001, \
'label': ''}
        """
        out = {"kind": self.kind}
        for name in _FLAT_ORDER:
            value = getattr(self, name, None)
            if name == "delta" and value is None:
                value = 0.0
            if value is not None:
                out[name] = value
        return out

    def __setstate__(self, state):
        # a LedgerEntry pickled by skdp before typed events (one dataclass with a kind)
        # becomes the event of its kind; an event's own pickle restores its fields
        if type(self) is LedgerEntry and "kind" in state:
            event = LedgerEntry.from_fields(**state)
            object.__setattr__(self, "__class__", type(event))
            state = vars(event)
        self.__dict__.update(state)


@dataclass(frozen=True)
class GaussianEvent(LedgerEntry):
    """``count`` Gaussian mechanisms, each ``mu``-GDP and ``rho``-zCDP.

    The Gaussian mechanism of l2-sensitivity ``Delta`` and noise ``sigma`` is
    ``mu = Delta / sigma``-GDP (Dong, Roth and Su 2022, Thm 2.7) and
    ``rho = Delta**2 / (2 sigma**2) = mu**2 / 2``-zCDP (Bun and Steinke 2016,
    Prop. 1.6); both are kept as computed.

    Attributes
    ----------
    mu, rho : float
        Per run.
    replace_ratio : float or None
        For a part stated under add/remove neighbours: the query's replace-one
        l2-sensitivity over its add/remove one, as the mechanism claims it
        (in ``[1, 2]``; :func:`replace_ratio`). A replace-one budget counts the
        part at ``mu * replace_ratio`` (exact) instead of group privacy's
        ``2 mu`` (:func:`~skdp.privacy.accountant.add_remove_as_replace_one`).
        ``None``: not recorded (group privacy).
    count, label
        See :class:`LedgerEntry`.

    Examples
    --------
    >>> ledger = PrivacyLedger()
    >>> ledger.gaussian(1.0, sigma=2.0)
    >>> ledger.entries[0]
    GaussianEvent(mu=0.5, rho=0.125, replace_ratio=None, count=1, label='')
    """

    kind: ClassVar[str] = "gaussian"
    mu: float
    rho: float
    replace_ratio: Optional[float] = None
    count: int = 1
    label: str = ""

    def __post_init__(self):
        if self.replace_ratio is not None and not 1.0 <= self.replace_ratio <= 2.0:
            raise ValueError(f"replace_ratio must be in [1, 2] or None, got "
                             f"{self.replace_ratio!r}.")


@dataclass(frozen=True)
class SubsampledGaussianEvent(LedgerEntry):
    """``count`` Poisson-subsampled Gaussian steps under replace-one.

    One step at sampling rate ``q`` adds Gaussian noise ``sigma`` to a sum of
    records clipped to ``C``: its dominating pair is ``(1-q) N(0, 1) + q N(-mu,
    1)`` against ``(1-q) N(0, 1) + q N(mu, 1)`` with ``mu = C / sigma``
    (:mod:`skdp.privacy.pld`; composed by PLD, or by RDP in
    :func:`~skdp.privacy.rdp.ledger_rdp`).

    Attributes
    ----------
    mu : float
        ``C / sigma`` (``inf`` without noise).
    q : float
        The sampling rate, in ``[0, 1]``.
    rho : float
        The unamplified zCDP of one step, ``(2C)**2 / (2 sigma**2) = 2 mu**2``
        (0 at ``q = 0``): an upper bound the zCDP rules use (subsampling never
        raises a Renyi divergence).
    count, label
        See :class:`LedgerEntry`.

    Examples
    --------
    >>> ledger = PrivacyLedger()
    >>> ledger.subsampled_gaussian(1.0, sigma=2.0, sampling_rate=0.01, count=100)
    >>> ledger.entries[0]
    SubsampledGaussianEvent(mu=0.5, q=0.01, rho=0.5, count=100, label='')
    """

    kind: ClassVar[str] = "subsampled_gaussian"
    mu: float
    q: float
    rho: float
    count: int = 1
    label: str = ""


@dataclass(frozen=True)
class ZCDPEvent(LedgerEntry):
    """``count`` mechanisms, each ``rho``-zCDP (Bun and Steinke 2016, Def. 1.1).

    Attributes
    ----------
    rho : float
        Per run; composes by adding (Bun–Steinke Lemma 2.3).
    count, label
        See :class:`LedgerEntry`.

    Examples
    --------
    >>> ZCDPEvent(0.25, count=2).rho
    0.25
    """

    kind: ClassVar[str] = "zcdp"
    rho: float
    count: int = 1
    label: str = ""


@dataclass(frozen=True)
class ExponentialEvent(LedgerEntry):
    """``count`` epsilon-DP exponential mechanisms (or report-noisy-max), bounded range.

    An epsilon-DP exponential mechanism is epsilon-bounded-range, hence
    ``rho = epsilon**2 / 8``-zCDP (Cesar and Rogers 2021, Lemma 3.2;
    :func:`bounded_range_rho`).

    Attributes
    ----------
    epsilon : float
        Per run.
    rho : float
        Read-only, derived: ``epsilon**2 / 8``.
    count, label
        See :class:`LedgerEntry`.

    Examples
    --------
    >>> ExponentialEvent(2.0).rho
    0.5
    """

    kind: ClassVar[str] = "exponential"
    epsilon: float
    count: int = 1
    label: str = ""

    @property
    def rho(self):
        return bounded_range_rho(self.epsilon)


@dataclass(frozen=True)
class PureEvent(LedgerEntry):
    """``count`` epsilon-DP mechanisms of any kind.

    An epsilon-DP mechanism is ``rho = epsilon**2 / 2``-zCDP (Bun and Steinke
    2016, Prop. 1.4; :func:`pure_rho`); pure parts also compose by advanced
    composition (:func:`fully_adaptive_epsilon`).

    Attributes
    ----------
    epsilon : float
        Per run.
    rho : float
        Read-only, derived: ``epsilon**2 / 2``.
    count, label
        See :class:`LedgerEntry`.

    Examples
    --------
    >>> PureEvent(1.0).rho
    0.5
    """

    kind: ClassVar[str] = "pure"
    epsilon: float
    count: int = 1
    label: str = ""

    @property
    def rho(self):
        return pure_rho(self.epsilon)


@dataclass(frozen=True)
class ApproxEvent(LedgerEntry):
    """``count`` (epsilon, delta)-DP mechanisms: no zCDP guarantee, basic composition only.

    Composes by adding the epsilons and the deltas (Dwork and Roth 2014,
    Thm 3.16).

    Attributes
    ----------
    epsilon, delta : float
        Per run.
    count, label
        See :class:`LedgerEntry`.

    Examples
    --------
    >>> event = ApproxEvent(0.5, 1e-6, label="domain")
    >>> event.kind, event.epsilon, event.delta
    ('approx', 0.5, 1e-06)
    """

    kind: ClassVar[str] = "approx"
    epsilon: float
    delta: float
    count: int = 1
    label: str = ""


_EVENTS = {cls.kind: cls for cls in (GaussianEvent, SubsampledGaussianEvent, ZCDPEvent,
                                     ExponentialEvent, PureEvent, ApproxEvent)}
EVENT_KINDS = tuple(_EVENTS)
"""The kinds of ledger events, in the order of the stored format's documentation."""


# ---------------------------------------------------------------------------
# Adaptive composition of everything
# ---------------------------------------------------------------------------
@dataclass
class PrivacyLedger:
    """Adaptive composition of mechanisms of any kind.

    Record each mechanism as it runs (its parameters may depend on earlier
    outputs); :meth:`epsilon` then returns the smallest epsilon, at a given
    total delta, among these valid composition rules:

    * ``'gdp'``: when every part is Gaussian, the exact mu-GDP curve of the
      composition (Dong–Roth–Su Cor. 3.3 and 2.13);
    * ``'pld'``: when a Poisson-subsampled Gaussian part is present, all the
      Gaussian parts (plain and subsampled) composed by their privacy loss
      distribution (:func:`~skdp.privacy.pld.compose_gaussian_parts`: the
      replace-one dominating pairs, discretised pessimistically, composed by
      FFT); with other parts present, ``'pld+<rule>'``: the Gaussian parts by
      PLD at ``delta_1``, the others by the best rule below at ``delta_2``,
      ``delta_1 + delta_2`` the total and the split optimised. Valid because
      the two groups are interactive mechanisms run concurrently, and
      concurrent composition has the guarantees of basic composition (Vadhan
      and Wang 2021; Lyu 2022; Vadhan and Zhang 2023);
    * ``'zcdp'``: every part converted to zCDP (exponential mechanisms at
      ``eps**2/8``, other pure ones at ``eps**2/2``), rho summed, and the CKS
      conversion;
    * ``'zcdp+advanced'``: Gaussian/zCDP parts by zCDP, pure parts by fully
      adaptive composition (002 Thm 3.5) or basic composition, with the
      delta split between them optimised;

    ``'approx'`` parts always compose by basic composition (their epsilons and
    deltas add). A subsampled step enters the zCDP rules at its unamplified
    ``rho = (2C)**2 / (2 sigma**2)`` (subsampling never raises a Renyi
    divergence: joint convexity of ``exp((alpha-1) D_alpha)``), an upper
    bound. :meth:`spent` says which rule won.

    Examples
    --------
    >>> ledger = PrivacyLedger()
    >>> ledger.gaussian(sensitivity=1.0, sigma=5.0, count=10, label="gradient")
    >>> ledger.exponential(epsilon=0.1, count=5, label="select")
    >>> eps, method = ledger.spent(1e-6)
    >>> round(eps, 3), method
    (3.185, 'zcdp')
    """

    entries: list = field(default_factory=list)

    # recording -------------------------------------------------------------
    def gaussian(self, sensitivity, sigma, count=1, label="", replace_sensitivity=None):
        """Record ``count`` Gaussian mechanisms of l2-sensitivity and noise sigma.

        ``replace_sensitivity``: where ``sensitivity`` is the query's
        sensitivity under add/remove neighbours, its l2-sensitivity under
        replace-one, recorded as the part's ``replace_ratio``
        (:func:`replace_ratio`); ``None``: not recorded.
        """
        rho = gaussian_rho(sensitivity, sigma)
        mu = math.inf if math.isinf(rho) else math.sqrt(2.0 * rho)
        ratio = replace_ratio(sensitivity, replace_sensitivity)
        self.entries.append(GaussianEvent(mu, rho, None if math.isnan(ratio) else ratio,
                                          count=int(count), label=label))

    def subsampled_gaussian(self, sensitivity, sigma, sampling_rate, count=1, label=""):
        """Record ``count`` Poisson-subsampled Gaussian steps (replace-one).

        ``sensitivity`` is ``C``, the bound on one record's clipped
        contribution to the noisy sum over the sampled rows (not ``2C``):
        the step's dominating pair is ``(1-q) N(0) + q N(-C/sigma)`` against
        ``(1-q) N(0) + q N(C/sigma)`` (:mod:`skdp.privacy.pld`).
        """
        if not 0 <= sampling_rate <= 1:
            raise ValueError(f"sampling_rate must be in [0, 1], got {sampling_rate!r}.")
        rho = 0.0 if sampling_rate == 0 else gaussian_rho(2.0 * sensitivity, sigma)
        mu = math.inf if math.isinf(rho) else sensitivity / sigma if sensitivity > 0 else 0.0
        self.entries.append(SubsampledGaussianEvent(mu, float(sampling_rate), rho,
                                                    count=int(count), label=label))

    def zcdp(self, rho, count=1, label=""):
        """Record ``count`` rho-zCDP mechanisms."""
        self.entries.append(ZCDPEvent(float(rho), count=int(count), label=label))

    def exponential(self, epsilon, count=1, label=""):
        """Record ``count`` epsilon-DP exponential mechanisms (bounded range)."""
        bounded_range_rho(epsilon)  # checks epsilon >= 0
        self.entries.append(ExponentialEvent(float(epsilon), count=int(count), label=label))

    def pure(self, epsilon, count=1, label=""):
        """Record ``count`` epsilon-DP mechanisms of any kind."""
        pure_rho(epsilon)  # checks epsilon >= 0
        self.entries.append(PureEvent(float(epsilon), count=int(count), label=label))

    def approx(self, epsilon, delta, count=1, label=""):
        """Record ``count`` (epsilon, delta)-DP mechanisms (basic composition)."""
        self.entries.append(ApproxEvent(float(epsilon), float(delta), count=int(count),
                                        label=label))

    def extend(self, other):
        """Append every entry of another ledger (sequential composition)."""
        self.entries.extend(other.entries)

    # totals ----------------------------------------------------------------
    def _of(self, *kinds):
        return [e for e in self.entries if e.kind in kinds]

    @property
    def rho(self):
        """Total zCDP of the non-'approx' parts (pure parts converted)."""
        return float(sum(e.count * e.rho for e in self.entries if e.kind != "approx"))

    @property
    def is_zcdp(self):
        """True when every part has a zCDP guarantee (no 'approx' part)."""
        return not self._of("approx")

    def _approx_totals(self):
        parts = self._of("approx")
        return (sum(e.count * e.epsilon for e in parts),
                sum(e.count * e.delta for e in parts))

    def spent(self, delta):
        """Smallest valid epsilon at total ``delta`` and the rule that gave it.

        Returns
        -------
        epsilon : float
        method : str
            One of ``'none'``, ``'gdp'``, ``'pld'``, ``'zcdp'``,
            ``'zcdp+advanced'``, ``'zcdp+basic'``, ``'pld+'`` one of the
            others; prefixed by ``'basic+'`` when 'approx' parts are present.
        """
        _check_delta(delta)
        eps_a, delta_a = self._approx_totals()
        rest = [e for e in self.entries if e.kind != "approx"]
        prefix = "basic+" if self._of("approx") else ""
        if not rest:
            return (eps_a, prefix + "none") if delta_a <= delta else (math.inf, prefix + "none")
        if delta_a > delta:
            return math.inf, prefix + "none"
        delta_r = delta - delta_a
        if self._of("subsampled_gaussian"):
            eps, method = self._spent_pld(rest, delta_r)
            return eps + eps_a, prefix + method
        candidates = {"zcdp": zcdp_to_approx_dp(self.rho, delta_r)}
        if all(e.kind == "gaussian" for e in rest) and delta_r > 0:
            mu = math.sqrt(sum(e.count * e.mu**2 for e in rest))
            candidates["gdp"] = gdp_to_approx_dp(mu, delta_r)
        pure = [e for e in rest if e.kind in ("exponential", "pure")]
        if pure:
            candidates.update(self._split_pure(pure, rest, delta_r))
        method = min(candidates, key=lambda name: candidates[name])
        return candidates[method] + eps_a, prefix + method

    def _spent_pld(self, rest, delta_r):
        """PLD of the Gaussian parts; the other parts at a share of delta, split optimised."""
        kinds = ("gaussian", "subsampled_gaussian")
        pld = gaussian_pld([e for e in rest if e.kind in kinds])
        others = PrivacyLedger([e for e in rest if e.kind not in kinds])
        if not others.entries:
            return pld.epsilon(delta_r), "pld"
        if delta_r == 0:
            return math.inf, "pld+none"

        def total(log_share):
            share = 1.0 / (1.0 + math.exp(-log_share))
            return pld.epsilon(delta_r * share) + others.spent(delta_r * (1.0 - share))[0]

        res = optimize.minimize_scalar(total, bounds=(-20.0, 20.0), method="bounded",
                                       options={"xatol": 1e-3})
        share = 1.0 / (1.0 + math.exp(-res.x))
        candidates = {"pld+" + others.spent(delta_r * (1.0 - share))[1]: float(res.fun),
                      "zcdp": zcdp_to_approx_dp(self.rho, delta_r)}
        method = min(candidates, key=lambda name: candidates[name])
        return candidates[method], method

    @staticmethod
    def _split_pure(pure, rest, delta_r):
        # by kind, not `e not in pure` (quadratic dataclass comparisons), and
        # the epsilons weighted by their counts, never expanded one per run
        rho_other = sum(e.count * e.rho for e in rest if e.kind not in ("exponential", "pure"))
        eps_list = np.array([e.epsilon for e in pure])
        counts = np.array([e.count for e in pure], dtype=float)
        basic = float(counts @ eps_list) + zcdp_to_approx_dp(rho_other, delta_r)
        out = {"zcdp+basic": basic}
        if delta_r <= 0:
            return out

        def total(log_share):
            share = 1.0 / (1.0 + math.exp(-log_share))
            d_pure = delta_r * share
            d_other = delta_r - d_pure
            e_other = zcdp_to_approx_dp(rho_other, d_other) if rho_other > 0 else 0.0
            return fully_adaptive_epsilon(eps_list, d_pure, counts) + e_other

        if rho_other == 0:
            out["zcdp+advanced"] = fully_adaptive_epsilon(eps_list, delta_r, counts)
        else:
            res = optimize.minimize_scalar(total, bounds=(-20.0, 20.0), method="bounded")
            out["zcdp+advanced"] = float(res.fun)
        return out

    def epsilon(self, delta):
        """Smallest valid epsilon at total ``delta`` (see :meth:`spent`)."""
        return self.spent(delta)[0]

    def log(self):
        """Per-mechanism log: a list of dicts, one per recorded entry.

        Each holds ``kind``, ``count``, ``label`` and the parameters that apply
        to its kind (a derived zCDP ``rho`` included): ``mu, rho`` (and
        ``replace_ratio`` where recorded) for ``'gaussian'``, ``mu, q, rho``
        for ``'subsampled_gaussian'``, ``rho`` for ``'zcdp'``, ``epsilon, rho``
        for ``'exponential'`` and ``'pure'``, ``epsilon, delta`` for
        ``'approx'``.

        Examples
        --------
        >>> ledger = PrivacyLedger()
        >>> ledger.approx(0.5, 1e-6, label="domain")
        >>> ledger.log()
        [{'kind': 'approx', 'count': 1, 'epsilon': 0.5, 'delta': 1e-06, 'label': 'domain'}]
        """
        return [{k: v for k, v in e.flat().items() if k != "delta" or hasattr(e, "delta")}
                for e in self.entries]


_RULE_WORDS = {
    "gdp": ("Gaussian DP (Dong-Roth-Su): the releases' Gaussian noise is composed exactly, "
            "as one Gaussian mechanism, at the total delta"),
    "pld": ("privacy loss distributions: the Gaussian releases (subsampled ones included) are "
            "composed numerically, their privacy loss distributions convolved and rounded "
            "pessimistically, at the total delta"),
    "zcdp": ("zero-concentrated DP (Bun-Steinke): every release is converted to zCDP, their "
             "rho added up and converted back to epsilon at the total delta "
             "(Canonne-Kamath-Steinke)"),
    "zcdp+advanced": ("the Gaussian releases by zero-concentrated DP and the selections "
                      "(exponential mechanism, pure epsilon-DP) by fully adaptive advanced "
                      "composition (Whitehouse et al.), the total delta split between the two "
                      "where it gives the least epsilon"),
    "zcdp+basic": ("the Gaussian releases by zero-concentrated DP at the total delta, plus "
                   "the epsilons of the selections (pure epsilon-DP) added up"),
}
_OTHERS_WORDS = {  # the non-Gaussian parts beside a PLD ('pld+<rule>')
    "zcdp": " by zero-concentrated DP",
    "zcdp+advanced": (": the zCDP ones by zero-concentrated DP and the selections by fully "
                      "adaptive advanced composition (Whitehouse et al.)"),
    "zcdp+basic": (": the zCDP ones by zero-concentrated DP and the selections' epsilons added "
                   "up"),
}


def _rule_words(rule):
    """The words of a rule of :meth:`PrivacyLedger.spent` without its ``'basic+'`` prefix."""
    if rule in _RULE_WORDS:
        return _RULE_WORDS[rule]
    if rule == "pld+none":
        return ("the Gaussian releases by their privacy loss distributions, with no delta left "
                "for the other releases (the epsilon is then infinite)")
    if rule.startswith("pld+") and rule[4:] in _OTHERS_WORDS:
        return ("the Gaussian releases (subsampled ones included) by their privacy loss "
                "distributions, composed numerically, and the other releases"
                f"{_OTHERS_WORDS[rule[4:]]}; the two groups run side by side (concurrent "
                "composition) and the total delta is split between them where it gives the "
                "least epsilon")
    return None


def describe_composition(method):
    """One sentence that says in words how a composed (epsilon, delta) was obtained.

    For every rule that :meth:`PrivacyLedger.spent` and
    :meth:`~skdp.BudgetAccountant.composition` return (``'none'``,
    ``'basic'``, ``'gdp'``, ``'pld'``, ``'zcdp'``, ``'zcdp+advanced'``,
    ``'zcdp+basic'``, ``'pld+'`` one of these, each possibly prefixed by
    ``'basic+'``), so that a report can say why a total is not the sum of the
    epsilons it lists. Any other text (e.g. the theorem of
    :class:`~skdp.model_selection.PrivateHyperparameterSearch`) is quoted as is.

    Parameters
    ----------
    method : str
        A composition rule.

    Returns
    -------
    sentence : str
        Plain words, ending with a full stop.

    Examples
    --------
    >>> describe_composition("basic")
    "Basic composition: the spends' epsilons and deltas added up."
    >>> describe_composition("gdp").startswith("Gaussian DP (Dong-Roth-Su)")
    True
    """
    method = str(method)
    if method == "none":
        return "Nothing composed: no spend is counted."
    if method in ("basic", "basic+none"):
        return "Basic composition: the spends' epsilons and deltas added up."
    approx = method.startswith("basic+")
    words = _rule_words(method[6:] if approx else method)
    if words is None:
        return f"Composed by the rule {method!r}."
    words = words[0].upper() + words[1:]
    if approx:
        words += ("; the releases known only by their (epsilon, delta) are added on top "
                  "(basic composition)")
    return words + "."


def gaussian_pld(entries, gap_scale=1.0):
    """The composed privacy loss distribution of Gaussian ledger entries.

    Plain Gaussian entries compose to ``mu = sqrt(sum count mu_i**2)``-GDP
    (Dong–Roth–Su 2022, Cor. 3.3); subsampled ones with equal ``(mu, q)`` are
    merged (their counts add); then :func:`~skdp.privacy.pld.compose_gaussian_parts`
    (its grid gap times ``gap_scale``: a coarser, still pessimistic, composition).

    Examples
    --------
    >>> ledger = PrivacyLedger()
    >>> ledger.subsampled_gaussian(1.0, sigma=2.0, sampling_rate=0.01, count=1000)
    >>> round(gaussian_pld(ledger.entries).epsilon(1e-5), 3)
    1.205
    """
    plain = sum(e.count * e.mu**2 for e in entries if e.kind == "gaussian")
    steps: dict = {}
    for e in entries:
        if e.kind == "subsampled_gaussian" and e.mu > 0 and e.q > 0:
            steps[(e.mu, e.q)] = steps.get((e.mu, e.q), 0) + e.count
    if math.isinf(plain) or any(math.isinf(mu) for mu, _ in steps):
        return _composed(math.inf, ())
    return _composed(math.sqrt(plain), tuple(sorted((1.0 / mu, q, n)
                                                    for (mu, q), n in steps.items())),
                     gap_scale)


@functools.lru_cache(maxsize=8)
def _composed(gaussian_mu, parts, gap_scale=1.0):
    """:func:`~skdp.privacy.pld.compose_gaussian_parts`, remembered: a fit's filter and its
    accountant ask for the same composition many times (a few MB per entry)."""
    return compose_gaussian_parts(gaussian_mu=gaussian_mu, subsampled=list(parts),
                                  gap_scale=gap_scale)


PLD_MARGIN = 1e-8
""":func:`subsampled_noise_within` aims this far (relative) below epsilon: the PLD grid moves a
composed epsilon by about 1e-9 relative when the released ``mu = C / (z C)`` differs from ``1 / z``
in its last digit."""


def subsampled_noise_within(entries, planned, sampling_rate, steps, epsilon, delta):
    """Smallest noise multiplier ``z`` that keeps a ledger within (epsilon, delta).

    The ledger is ``entries`` (what a fit has released), the Gaussian
    mechanisms ``planned`` (``(sensitivity, sigma, count)`` triples, released
    later) and ``steps`` Poisson-subsampled Gaussian releases at rate
    ``sampling_rate`` and noise multiplier ``z``; its epsilon at ``delta`` is
    the ledger's own composition (:meth:`PrivacyLedger.spent`: PLD when a
    subsampled part is present), decreasing in ``z``. The root search
    (:func:`~skdp.privacy.pld.smallest_noise_multiplier`, started at the
    central-limit guess of Bu, Dong, Long and Su 2020, Thm 5, only a starting
    point; where every part is Gaussian, first solved on two coarser PLD grids whose
    roots predict the fine one, only where the fine Newton steps start) returns ``z`` whose
    ledger, evaluated at ``z`` on the fine grid, spends at most ``epsilon (1 -
    PLD_MARGIN)``, within about 1e-9 relative of it (1e-6 where the fine grid's rounding is
    coarser, e.g. delta 1e-9). Raises ``ValueError``
    when the other parts alone leave nothing. Everything it reads is public,
    so it is cached.

    Examples
    --------
    >>> z = subsampled_noise_within([], [], 0.1, 20, 1.0, 1e-6)
    >>> ledger = PrivacyLedger()
    >>> ledger.subsampled_gaussian(1.0, z, 0.1, count=20)
    >>> 1.0 - 1e-6 < ledger.spent(1e-6)[0] <= 1.0
    True
    """
    return _calibrate(tuple(entries), tuple(tuple(float(v) for v in p) for p in planned),
                      float(sampling_rate), int(steps), float(epsilon), float(delta))


@functools.lru_cache(maxsize=128)
def _calibrate(entries, planned, q, steps, epsilon, delta):
    others = PrivacyLedger(list(entries))
    for sens, sigma, count in planned:
        others.gaussian(sens, sigma, count=int(count))
    target = epsilon * (1.0 - PLD_MARGIN)
    if others.entries and others.spent(delta)[0] >= target:
        raise ValueError("no privacy budget left for the subsampled gradient steps.")

    seen = {}  # the root search asks some noise multipliers more than once

    def with_steps(z):
        ledger = PrivacyLedger(list(others.entries))
        ledger.subsampled_gaussian(1.0, z, q, count=steps)
        return ledger

    def excess(z):
        if z not in seen:
            seen[z] = with_steps(z).spent(delta)[0] - target
        return seen[z]

    def coarse(z, scale=COARSE_GAP):  # spent's PLD rule (all parts Gaussian) on a coarser grid
        return gaussian_pld(with_steps(z).entries, scale).epsilon(delta) - target

    def coarser(z):
        return coarse(z, COARSER_GAP)

    gaussian = all(e.kind in ("gaussian", "subsampled_gaussian") for e in others.entries)
    mu = approx_dp_to_gdp(epsilon, delta)
    guess = 1.0 / math.sqrt(math.log1p(mu * mu / (q * q * steps)))
    if not gaussian:
        return smallest_noise_multiplier(excess, start=guess)
    return smallest_noise_multiplier(excess, start=guess, coarse=coarse, coarser=coarser)


def __getattr__(name):
    """``Spend``: the deprecated name of :class:`LedgerEntry` (FutureWarning), for one release."""
    if name == "Spend":
        import warnings
        warnings.warn("Spend is deprecated: a ledger's entries are "
                      "LedgerEntry; Spend will be removed in the next release.", FutureWarning,
                      stacklevel=2)
        return LedgerEntry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
