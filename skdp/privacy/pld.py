"""Privacy-loss-distribution accounting of (Poisson-subsampled) Gaussian mechanisms.

The neighbouring relation is the estimators' one: **replace one record**, the
number of records ``n`` public. One step of the Poisson-subsampled Gaussian
mechanism keeps each row with probability ``q`` (independently, a fresh draw
per step), sums the kept rows' contributions, each clipped to l2 norm ``C``,
and adds ``N(0, sigma**2 I)``.

**Theorem (dominating pair).** Write ``c = C / sigma`` (the inverse noise
multiplier). Under replace-one, one step is dominated by the pair of
one-dimensional mixtures

    P = (1 - q) N(0, 1) + q N(-c, 1),      Q = (1 - q) N(0, 1) + q N(+c, 1),

that is ``H_a(M(D) || M(D')) <= H_a(P || Q)`` for every ``a >= 0`` and
neighbours ``D, D'``, where ``H_a(P || Q) = sup_S P(S) - a Q(S)`` is the hockey-stick
divergence. This is the pair of the REPLACE adjacency of dp-accounting's
Poisson-subsampled ``GaussianPrivacyLoss`` (its ``NeighborRel.REPLACE_ONE``),
the substitution pair of Zhu, Dong and Wang 2022 ("Optimal accounting of
differential privacy via characteristic function", Poisson subsampling under
replace-one) and of Lebeda, Regehr, Kamath and Steinke 2024 ("Avoiding
pitfalls for privacy accounting of subsampled mechanisms under composition",
substitution relation). Why: conditioned on the other rows, the changed row
is kept with probability ``q`` in both datasets, the other rows add the same
independent shift (post-processing), so a step is
``(1 - q) N(0) + q N(u)`` against ``(1 - q) N(0) + q N(v)`` with
``|u|, |v| <= C``; the worst case is ``v = -u``, ``|u| = C`` (reducing to
the plane of ``u`` and ``v``; tests/privacy/test_pld.py checks it by quadrature there
for several ``u, v``). The pair is
symmetric (swapping P and Q is ``x -> -x``), so the *add/remove* pitfall of
Lebeda et al. (the two directions composing to different curves) does not
arise: the same pair dominates both orders of every neighbouring pair, and
adaptive composition of ``T`` steps is dominated by ``(P^T, Q^T)`` (composition
of dominating pairs, Zhu et al. 2022; of trade-off functions, Dong, Roth and Su
2022, Thm 3.2). At ``q = 1`` it is the Gaussian pair ``N(-c)`` against
``N(c)``: ``2c``-GDP, the replace-one sensitivity ``2C``. The add/remove pair
``(1 - q) N(0) + q N(c)`` against ``N(0)`` is not valid here: a replaced
record moves the sum by up to ``2C``.

**Discretisation.** Each pair is discretised by the pessimistic
"connect-the-dots" construction (Doroshenko, Ghazi, Kamath, Kumar and
Manurangsi 2022, Algorithm 1 with a fixed gap ``h``): a discrete pair whose
hockey-stick curve equals the exact one at the grid ``eps_k = k h`` and lies
above it in between, so it dominates the continuous pair; mass below the grid
is placed on its lowest point (exact: total P-mass 1, Q-mass at most 1) and
the exact ``delta(eps_max)`` on ``+inf``. The discrete privacy-loss
distributions of all parts are composed by one FFT (Koskela, Jalko and
Honkela 2020): the product of their discrete Fourier transforms raised to the
parts' counts, on a window chosen by a Chernoff bound; the window's two tails
(at most ``1e-15`` each by that bound, their aliases only adding mass) are
added to the mass at ``+inf``, so every number read off is an upper bound of
the exact one up to floating-point error (about ``1e-13`` in delta).
``delta(eps) = sum_k p_k (1 - exp(eps - eps_k))_+ + p_inf`` and its inverse
are then read exactly.
"""

import functools
import math
import weakref

import numpy as np
from scipy import fft as sfft
from scipy import optimize, signal, special

__all__ = [
    "PrivacyLossDistribution",
    "compose_gaussian_parts",
    "subsampled_gaussian_delta",
    "subsampled_gaussian_epsilon",
    "subsampled_gaussian_sigma",
    "smallest_noise_multiplier",
]

_TAIL = 1e-15          # Chernoff bound on each tail of the composed window
_X_TAIL = 1e-20        # noise quantile setting a pair's grid (mass beyond: lowest point or +inf)
_H_MAX = 1e-4          # finest useful gap (dp-accounting's default)
_N_BINS = 2**20        # composed window (or single pair) size above which the gap grows
_MAX_C = 35.0          # c = C/sigma above which q exp(-c^2/2) underflows


# ---------------------------------------------------------------------------
# One pair: hockey-stick curve and its connect-the-dots discretisation
# ---------------------------------------------------------------------------
def _cutoff(eps, c, q):
    """``x`` where the privacy loss ``log P(x)/Q(x)`` of the pair equals ``eps``.

    With ``u = exp(-x c)`` the equation is ``a u**2 + (1-q)(1-r) u - r a = 0``,
    ``r = exp(eps)``, ``a = q exp(-c**2/2)``; its positive root is taken in
    the form that does not cancel on either side of ``eps = 0`` (``hypot``: no
    underflow of ``a**2`` at large ``c``).
    """
    eps = np.asarray(eps, dtype=float)
    a = q * math.exp(-c * c / 2.0)
    p0 = 1.0 - q
    if p0 == 0:                        # q = 1: u = sqrt(r)
        return -eps / (2.0 * c)
    pos = eps >= 0
    log_u = np.empty_like(eps)
    inv_r = np.exp(-eps[pos])          # eps >= 0: u / r = (p0 (1-1/r) + sqrt(.)) / (2a)
    b = p0 * (1.0 - inv_r)
    log_u[pos] = eps[pos] + np.log((b + np.hypot(b, 2.0 * a * np.sqrt(inv_r))) / (2.0 * a))
    r = np.exp(eps[~pos])              # eps < 0: u = 2 a r / (p0 (1-r) + sqrt(.))
    b = p0 * (1.0 - r)
    log_u[~pos] = np.log(2.0 * a * r / (b + np.hypot(b, 2.0 * a * np.sqrt(r))))
    return -log_u / c


def _pair_delta(eps, c, q):
    """Exact ``H_{exp(eps)}(P || Q)`` of the pair, vectorised in ``eps``.

    ``P(X <= x) - exp(eps) Q(X <= x)`` at the cutoff ``x`` (the loss is
    decreasing in ``x``), in log space as dp-accounting evaluates it.
    """
    eps = np.asarray(eps, dtype=float)
    x = _cutoff(eps, c, q)
    with np.errstate(divide="ignore"):
        log_p0, log_q = math.log1p(-q) if q < 1 else -np.inf, math.log(q)
    base = log_p0 + special.log_ndtr(x)
    log_p = np.logaddexp(base, log_q + special.log_ndtr(x + c))
    log_qq = np.logaddexp(base, log_q + special.log_ndtr(x - c))
    delta = np.exp(log_p) * -np.expm1(np.minimum(eps + log_qq - log_p, 0.0))
    return np.clip(delta, 0.0, 1.0)


def _pair_range(c, q):
    """Privacy losses at the noise quantiles ``_X_TAIL`` and ``1 - _X_TAIL`` of P."""
    z = -special.ndtri(_X_TAIL)
    x = np.array([-c - z, z])
    log_p = np.logaddexp(math.log1p(-q) if q < 1 else -np.inf,
                         math.log(q) - x * c - c * c / 2.0)
    log_q = np.logaddexp(math.log1p(-q) if q < 1 else -np.inf,
                         math.log(q) + x * c - c * c / 2.0)
    hi, lo = log_p - log_q
    return float(lo), float(hi)


@functools.lru_cache(maxsize=32)
def _discretise(c, q, h):
    """Connect-the-dots pmf of the pair on ``k h`` (Doroshenko et al. 2022, Alg. 1).

    Remembered (the pmf read-only), by its public ``(c, q, h)``: a noise
    calibration composes the same plain Gaussian part (a fit's earlier
    releases) with each trial noise of its steps, on the same grid.

    Returns ``(offset, probs, p_inf)``: mass ``probs[j]`` at loss
    ``(offset + j) h`` and ``p_inf`` at ``+inf``. With ``d_k`` the exact
    curve at the grid points (and ``d_0 = 1`` at ``-inf``): the mass at a
    point is ``((d_{k+1} - d_k) - e^h (d_k - d_{k-1})) / (e^h - 1)``, at the
    top ``(d_n - d_{n-1}) / (e^{-h} - 1)``, and ``d_n`` goes to ``+inf``.
    """
    lo, hi = _pair_range(c, q)
    k_lo, k_hi = math.floor(lo / h), math.ceil(hi / h)
    if k_hi <= k_lo:
        k_hi = k_lo + 1
    d = np.minimum.accumulate(_pair_delta(np.arange(k_lo, k_hi + 1) * h, c, q))
    em1 = math.expm1(h)
    step = np.diff(d)                              # d_{k+1} - d_k (<= 0)
    probs = np.empty_like(d)
    probs[0] = (1.0 - d[0]) + step[0] / em1
    probs[1:-1] = (step[1:] - (em1 + 1.0) * step[:-1]) / em1
    probs[-1] = step[-1] / math.expm1(-h)
    probs = np.maximum(probs, 0.0)
    probs.setflags(write=False)
    return k_lo, probs, float(d[-1])


# ---------------------------------------------------------------------------
# Composition
# ---------------------------------------------------------------------------
_TS = np.geomspace(1e-3, 1e4, 36)
_NEAR = np.array([0.5, 0.7, 1.0, 1.4, 2.0])


_MEMO: dict[tuple, tuple] = {}  # a remembered pmf's results (read-only: _discretise's), by identity


def _memo(probs, key, compute):
    """``compute()``, remembered by ``key`` for the read-only ``probs``.

    A calibration composes the same plain Gaussian part with each trial noise of its
    steps: its log-mgf at the same ``t`` and its spectrum at the same size are then the
    same numbers. Keyed by the array's identity, held by a weak reference that must
    still point to it (an identity reused after the array is gone is not a hit).
    """
    if probs.flags.writeable:
        return compute()
    full = (id(probs), *key)
    hit = _MEMO.get(full)
    if hit is not None and hit[0]() is probs:
        return hit[1]
    if len(_MEMO) > 512:
        _MEMO.clear()
    value = compute()
    value.setflags(write=False)
    _MEMO[full] = (weakref.ref(probs), value)
    return value


def _log_mgf(offset, probs, h, ts):
    """``log sum_j p_j exp(t eps_j)`` at each ``t`` in ``ts`` (the finite part)."""
    return _memo(probs, ("mgf", offset, h, ts.tobytes()),
                 lambda: _compute_log_mgf(offset, probs, h, ts))


def _compute_log_mgf(offset, probs, h, ts):
    losses = (offset + np.arange(probs.size)) * h
    keep = probs > 0
    logs = np.log(probs[keep])[None, :] + ts[:, None] * losses[keep][None, :]
    top = logs.max(axis=1)
    return top + np.log(np.exp(logs - top[:, None]).sum(axis=1))


def _tail_bound(parts, h, ts, sign):
    """Chernoff bounds on the composed loss S: ``P(S >= hi), P(S <= lo) <= _TAIL``.

    ``P(S >= a) <= M(t)^T exp(-t a)`` and ``P(S <= a) <= M(-t)^T exp(t a)``
    for every ``t > 0``, ``M`` a part's moment generating function and its
    count ``T`` the power; the best ``t`` in ``ts`` is kept. Returns the
    bound (upper tail for ``sign = 1``, lower for ``-1``) and its ``t``.
    """
    total = sum(n * _log_mgf(o, p, h, sign * ts) for o, p, _, n in parts)
    values = (total - math.log(_TAIL)) / ts
    k = int(np.argmin(values))
    return sign * values[k], ts[k]


def _window(parts, h, t_hi, t_lo):
    """Index range ``[lo, hi]`` holding all but ``_TAIL`` of each composed tail.

    Also returns the first index of the support and the Chernoff ``t`` used.
    """
    hi, t_hi = _tail_bound(parts, h, t_hi, 1.0)
    lo, t_lo = _tail_bound(parts, h, t_lo, -1.0)
    first = sum(n * o for o, _, _, n in parts)
    last = sum(n * (o + p.size - 1) for o, p, _, n in parts)
    return max(first, math.floor(lo / h)), min(last, math.ceil(hi / h)), first, (t_hi, t_lo)


class PrivacyLossDistribution:
    """A discrete privacy-loss distribution: mass ``probs[j]`` at ``(offset + j) h``.

    ``p_inf`` is the mass at ``+inf``. It reads ``delta(epsilon)`` and
    ``epsilon(delta)`` of the pair it describes exactly:
    ``delta(eps) = sum_j p_j (1 - exp(eps - eps_j))_+ + p_inf``.

    Examples
    --------
    >>> pld = compose_gaussian_parts(subsampled=[(2.0, 0.01, 1000)])
    >>> round(pld.epsilon(1e-5), 3)
    1.205
    >>> round(pld.delta(pld.epsilon(1e-5)) / 1e-5, 8)
    1.0
    """

    def __init__(self, offset, probs, p_inf, h):
        self.offset = int(offset)
        self.probs = np.asarray(probs, dtype=float)
        self.p_inf = float(p_inf)
        self.h = float(h)

    @property
    def losses(self):
        """The grid of finite privacy losses."""
        return (self.offset + np.arange(self.probs.size)) * self.h

    def delta(self, epsilon):
        """Smallest delta such that the pair is (epsilon, delta)-DP."""
        losses = self.losses
        above = losses > epsilon
        gap = -np.expm1(epsilon - losses[above])
        return float(min(1.0, self.probs[above] @ gap + self.p_inf))

    def epsilon(self, delta):
        """Smallest epsilon >= 0 such that the pair is (epsilon, delta)-DP.

        At grid point ``k``: ``delta_k = A_k - B_k + p_inf`` with ``A_k =
        sum_{j>k} p_j`` and ``B_k = sum_{j>k} p_j exp(eps_k - eps_j)``, the
        latter by the stable recurrence ``B_k = e^{-h} (B_{k+1} + p_{k+1})``.
        On ``(eps_{k-1}, eps_k]`` the curve is ``A_{k-1} - exp(eps - eps_k)
        (p_k + B_k) + p_inf``, so the crossing is solved exactly.
        """
        if not 0 <= delta <= 1:
            raise ValueError(f"delta must be in [0, 1], got {delta!r}.")
        if self.p_inf >= delta:
            return math.inf
        if self.delta(0.0) <= delta:
            return 0.0
        p = self.probs
        decay = math.exp(-self.h)
        rev = signal.lfilter([0.0, decay], [1.0, -decay], p[::-1])
        b_after = rev[::-1]                                  # B_k
        a_after = np.append(np.cumsum(p[::-1])[::-1][1:], 0.0)   # A_k
        meets = a_after - b_after + self.p_inf <= delta
        k = int(np.argmax(meets))          # the last point meets it: there delta = p_inf
        a_before = a_after[k] + p[k]                         # A_{k-1}
        eps_k = (self.offset + k) * self.h
        ratio = (a_before + self.p_inf - delta) / (p[k] + b_after[k])
        return float(max(0.0, eps_k + math.log(ratio)))


def _gap(parts_spec):
    """The grid gap and the Chernoff parameters, from a coarse discretisation.

    The gap is ``_H_MAX``, finer for narrow pairs, coarser when a pair or the
    composed window would exceed ``_N_BINS`` bins.
    """
    ranges = [np.subtract(*_pair_range(c, q)[::-1]) for c, q, _ in parts_spec]
    h = max(min(_H_MAX, min(ranges) / 2000.0), max(ranges) / _N_BINS)
    coarse = max(ranges) / 400.0
    parts = [(*_discretise(c, q, coarse), n) for c, q, n in parts_spec]
    lo, hi, _, ts = _window(parts, coarse, _TS, _TS)
    return max(h, (hi - lo + 2) * coarse / _N_BINS), ts


def _power(values, n):
    """``values ** n`` (``n >= 1``, complex) by repeated squaring: about ``2 log2 n`` products
    where NumPy's complex power takes a logarithm and an exponential (issue 31: 5x faster)."""
    result = None
    while True:
        if n & 1:
            result = values.copy() if result is None else np.multiply(result, values, out=result)
        n >>= 1
        if not n:
            return result
        values = values * values


def _compose(parts, h, ts):
    """The parts' pmfs composed by one FFT on the Chernoff window (aliases only add mass)."""
    lo, hi, first, _ = _window(parts, h, ts[0] * _NEAR, ts[1] * _NEAR)
    size = sfft.next_fast_len(max(hi - lo + 1, max(p.size for _, p, _, _ in parts)), real=True)
    spectrum = np.ones(size // 2 + 1, dtype=complex)
    for _, p, _, n in parts:
        # remembered for a single release's pmf only (the plain Gaussian part, the same in
        # every trial of a calibration); a trial's steps are composed once (issue 31: the
        # spectra of every trial kept about 6 MB after one calibration)
        spectrum *= (_memo(p, ("rfft", size), lambda: sfft.rfft(p, size)) if n == 1
                     else _power(sfft.rfft(p, size), n))
    circular = sfft.irfft(spectrum, size)
    start = lo - first                                 # circular index of the window's start
    probs = np.maximum(np.roll(circular, -(start % size)), 0.0)
    finite = math.prod((1.0 - p_inf) ** n for _, _, p_inf, n in parts)
    p_inf = min(1.0, 1.0 - finite + 2.0 * _TAIL)
    return PrivacyLossDistribution(lo, probs, p_inf, h)


def compose_gaussian_parts(gaussian_mu=0.0, subsampled=(), gap_scale=1.0):
    """PLD of a mu-GDP Gaussian part composed with Poisson-subsampled Gaussian steps.

    Parameters
    ----------
    gaussian_mu : float, default=0.0
        The plain Gaussian mechanisms, already composed: ``mu = sqrt(sum
        (Delta_i / sigma_i)**2)`` (Dong–Roth–Su 2022, Cor. 3.3); its pair
        ``N(-mu/2)`` against ``N(mu/2)`` is the subsampled pair at ``q = 1``,
        ``c = mu/2``.
    subsampled : sequence of (noise_multiplier, sampling_rate, steps)
        Poisson-subsampled Gaussian steps under replace-one (see the module
        docstring): noise ``sigma = noise_multiplier * C`` with ``C`` the
        bound on one record's clipped contribution.
    gap_scale : float, default=1.0
        The grid gap times this (> 1: a coarser grid, still pessimistic: the
        connect-the-dots pair dominates at any gap, only less tightly; the
        noise calibration's first, cheaper search, :data:`COARSE_GAP`).

    Returns
    -------
    PrivacyLossDistribution
        Discrete, pessimistic (dominating) PLD of the whole composition.
        A noise multiplier below ``1/35`` (or 0) gives all mass at ``+inf``
        (epsilon ``inf``: conservative, where ``exp(-c**2/2)`` underflows).

    Examples
    --------
    >>> from skdp.privacy.ledger import gdp_to_approx_dp
    >>> pld = compose_gaussian_parts(gaussian_mu=1.0)
    >>> abs(pld.epsilon(1e-5) - gdp_to_approx_dp(1.0, 1e-5)) < 1e-3
    True
    """
    spec = [(1.0 / nm if nm > 0 else math.inf, float(q), int(n))
            for nm, q, n in subsampled if q > 0 and n > 0]
    if gaussian_mu > 0:
        spec.append((gaussian_mu / 2.0, 1.0, 1))
    if not spec:
        return PrivacyLossDistribution(0, np.ones(1), 0.0, _H_MAX)
    if any(not math.isfinite(c) or c > _MAX_C for c, _, _ in spec):
        return PrivacyLossDistribution(0, np.zeros(1), 1.0, _H_MAX)
    h, ts = _gap(spec)
    h *= gap_scale
    return _compose([(*_discretise(c, q, h), n) for c, q, n in spec], h, ts)


# ---------------------------------------------------------------------------
# The functions the solvers use
# ---------------------------------------------------------------------------
def _check(noise_multiplier, sampling_rate, steps):
    if not noise_multiplier >= 0:
        raise ValueError(f"noise_multiplier must be >= 0, got {noise_multiplier!r}.")
    if not 0 <= sampling_rate <= 1:
        raise ValueError(f"sampling_rate must be in [0, 1], got {sampling_rate!r}.")
    if steps < 0 or int(steps) != steps:
        raise ValueError(f"steps must be a non-negative integer, got {steps!r}.")


def subsampled_gaussian_epsilon(noise_multiplier, sampling_rate, steps, delta):
    """Epsilon of ``steps`` Poisson-subsampled Gaussian steps at ``delta`` (replace-one).

    PLD accounting of the dominating pair ``(1-q) N(0) + q N(-c)`` against
    ``(1-q) N(0) + q N(c)``, ``c = 1 / noise_multiplier`` (module docstring:
    Zhu–Dong–Wang 2022; Lebeda et al. 2024), discretised pessimistically by
    connect-the-dots (Doroshenko et al. 2022) and composed by FFT: an upper
    bound of the exact epsilon (checked against dp-accounting's REPLACE_ONE
    accountant in the tests).

    Parameters
    ----------
    noise_multiplier : float
        ``sigma / C``: the noise over the bound ``C`` on one record's clipped
        contribution to the noisy sum. 0 gives ``inf``.
    sampling_rate : float
        Poisson sampling probability ``q`` in [0, 1].
    steps : int
        Number of steps (adaptively composed).
    delta : float
        Target delta in [0, 1).

    Returns
    -------
    epsilon : float

    Examples
    --------
    >>> round(subsampled_gaussian_epsilon(2.0, 0.01, 1000, 1e-5), 3)
    1.205
    """
    _check(noise_multiplier, sampling_rate, steps)
    if sampling_rate == 0 or steps == 0:
        return 0.0
    if noise_multiplier == 0:
        return math.inf
    pld = compose_gaussian_parts(subsampled=[(noise_multiplier, sampling_rate, steps)])
    return pld.epsilon(delta)


def subsampled_gaussian_delta(noise_multiplier, sampling_rate, steps, epsilon):
    """Delta of ``steps`` Poisson-subsampled Gaussian steps at ``epsilon`` (replace-one).

    The same accounting as :func:`subsampled_gaussian_epsilon`, read the
    other way.

    Examples
    --------
    >>> round(subsampled_gaussian_delta(2.0, 0.01, 1000, 1.2052), 7)
    1e-05
    """
    _check(noise_multiplier, sampling_rate, steps)
    if sampling_rate == 0 or steps == 0:
        return 0.0
    if noise_multiplier == 0:
        return 1.0
    pld = compose_gaussian_parts(subsampled=[(noise_multiplier, sampling_rate, steps)])
    return pld.delta(epsilon)


def subsampled_gaussian_sigma(sampling_rate, steps, epsilon, delta, rtol=1e-9):
    """Smallest noise multiplier whose ``steps`` subsampled steps are (epsilon, delta)-DP.

    Root of :func:`subsampled_gaussian_epsilon` minus ``epsilon`` in
    ``log(noise_multiplier)`` (Brent's method, relative tolerance ``rtol``),
    returned on the side that meets the target: the result ``s`` has
    ``subsampled_gaussian_epsilon(s, q, steps, delta) <= epsilon``.
    ``epsilon = inf`` gives 0 (no noise).

    Examples
    --------
    >>> s = subsampled_gaussian_sigma(0.01, 1000, 1.0, 1e-5)
    >>> round(s, 4)
    2.3644
    >>> subsampled_gaussian_epsilon(s, 0.01, 1000, 1e-5) <= 1.0
    True
    """
    _check(1.0, sampling_rate, steps)
    if not epsilon > 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}.")
    if math.isinf(epsilon) or sampling_rate == 0 or steps == 0:
        return 0.0

    return smallest_noise_multiplier(
        lambda s: subsampled_gaussian_epsilon(s, sampling_rate, steps, delta) - epsilon,
        rtol=rtol)


COARSE_GAP = 10.0
"""Grid gap of a calibration's coarse search (:func:`smallest_noise_multiplier`), times the
fine one: its compositions cost about a third (the default 1e6-row classifier's steps)."""
COARSER_GAP = 2.0 * COARSE_GAP
"""Grid gap of the cheaper search that starts a calibration when it is given ``coarser``."""
COARSE_XTOL = 1e-6
"""Step, in ``log s``, below which the coarse search's secant steps stop."""
_SLOPE_SPAN = 1e-3     # in log s: the coarse search's slope is read over at least this
_MAX_SPAN = 16.0       # in log s: how far the coarse search's doubling steps may go
_ROUGH = 1e-6          # in log s: the refinement's tolerance where the fine excess is rough
_FINE_TRIES = 16       # fine compositions before the refinement gives way to the bracketing search


def _richardson(at_coarse, at_coarser):
    """The fine grid's excess predicted from two coarse ones (Richardson, gap squared).

    The connect-the-dots pair interpolates a smooth curve between grid points, so a composed
    epsilon's excess over the exact one grows as the gap squared: with ``e_g = e_1 + A (g^2 - 1)``
    at gap scale ``g``, ``e_1 = e_a - (e_b - e_a) (a^2 - 1) / (b^2 - a^2)``. Measured at (q, T) =
    (0.0016, 250), (0.004, 1000), (0.016, 250), scales 2 to 40: the offsets follow ``g^2 - 1``
    within 15%; the prediction is then about 1e-6 from the fine epsilon. Only a starting point.
    """
    a2, b2 = COARSE_GAP**2, COARSER_GAP**2
    return at_coarse - (at_coarser - at_coarse) * (a2 - 1.0) / (b2 - a2)


def _secant_root(f, x, xtol):
    """Near-root of a decreasing ``f`` by secant steps from ``x``: ``(x, f(x), slope)``.

    A step outside the bracket seen so far (``f(lo) > 0 >= f(hi)``), or one that the secant
    cannot give (an infinite value), is replaced by a doubling step towards the root (``None``
    past :data:`_MAX_SPAN`: no root found) or by bisection; it stops when a step is shorter
    than ``xtol``. The slope is the secant to the
    nearest earlier point at least ``_SLOPE_SPAN`` away (the last steps are too short to read
    a slope through the grid's rounding), or to one more point that far.
    """
    fx = f(x)
    lo, hi = (x, math.inf) if fx > 0 else (-math.inf, x)
    px, pf, step = None, None, 0.25
    seen = [(x, fx)]
    for _ in range(100):
        new = None
        if pf is not None and math.isfinite(fx) and math.isfinite(pf) and fx != pf:
            new = x - fx * (x - px) / (fx - pf)
        if new is None or not lo < new < hi:
            if math.isinf(hi) or math.isinf(lo):
                if step > _MAX_SPAN:
                    return None
                new, step = (lo + step, 2.0 * step) if math.isinf(hi) else (hi - step, 2.0 * step)
            else:
                new = (lo + hi) / 2.0
        px, pf, x = x, fx, new
        fx = f(x)
        seen.append((x, fx))
        if fx > 0:
            lo = max(lo, x)
        else:
            hi = min(hi, x)
        if abs(x - px) < xtol or hi - lo < xtol:
            break
    far = [(abs(v - x), v, fv) for v, fv in seen if _SLOPE_SPAN <= abs(v - x) and math.isfinite(fv)]
    _, v, fv = min(far) if far and min(far)[0] < 10 * _SLOPE_SPAN else (0, x + _SLOPE_SPAN, None)
    fv = f(v) if fv is None else fv
    slope = (fv - fx) / (v - x) if math.isfinite(fv - fx) else -1.0
    return x, fx, slope if slope < 0 else -1.0


def _refine(gap, x, predicted, slope, rtol):
    """The fine root from a predicted excess at ``x``: Newton steps in ``log s``, certified.

    Each step aims ``rtol`` above the root its line predicts, the slope first the coarse
    grid's, then the secant of the fine points (when at least 1e-7 apart). Returns the first
    point whose fine excess is ``<= 0`` and at most ``2 rtol`` above its own predicted root;
    or at most :data:`_ROUGH` above it once a step misses its aim by more than a tenth of the
    step before's miss (no progress: the fine excess is not monotone below its rounding, about
    1e-9 in ``log s`` at delta 1e-6, 1e-7 at 1e-9) and the point is that close, where a step
    that falls short then aims as far above as it missed. From the fourth composition on,
    the lowest point that meets the target is taken when a point that does not is less than
    :data:`_ROUGH` below it, and a step that leaves that bracket bisects it. ``None`` after
    :data:`_FINE_TRIES` compositions or before a step longer than 1 in ``log s``.
    """
    aim, last, missed = rtol, None, math.inf
    lo, hi = -math.inf, math.inf                 # fine points: over the target, within it
    x = x - predicted / slope + aim
    for tries in range(1, _FINE_TRIES + 1):
        e = gap(x)
        if not math.isfinite(e):
            return None
        if e > 0:
            lo = max(lo, x)
        else:
            hi = min(hi, x)
        above = e / slope                        # how far above its root the line puts x
        miss = abs(above - aim)
        rough = miss > missed / 10.0 and abs(above) <= _ROUGH
        if e <= 0 and above <= (_ROUGH if rough else 2.0 * rtol):
            return x
        if tries >= 4 and hi - lo <= _ROUGH:
            return hi
        if last is not None and abs(x - last[0]) > 1e-7 and (e - last[1]) / (x - last[0]) < 0:
            slope = (e - last[1]) / (x - last[0])
        last, missed = (x, e), miss
        aim = max(rtol, -above) if rough and e > 0 else rtol
        if abs(e / slope) > 1.0:                 # a unit step: the prediction was poor
            return None
        x = x - e / slope + aim
        if tries >= 4 and not lo < x < hi and math.isfinite(lo + hi):
            x = (lo + hi) / 2.0
    return None


def smallest_noise_multiplier(excess, start=1.0, rtol=1e-9, coarse=None, coarser=None):
    """Smallest noise multiplier ``s >= 1 / 35`` with ``excess(s) <= 0``, ``excess`` decreasing.

    Without ``coarse``: brackets the root in ``log s`` by unit steps from ``log start``, solves
    by Brent's method (relative tolerance ``rtol``) and returns the root on the side that meets
    the target (``excess(s) <= 0``, nudged up by ``rtol`` steps if the solver lands just
    short). ``excess`` is a composed epsilon minus its target: the calibrations of
    :func:`subsampled_gaussian_sigma` and :func:`skdp.privacy.ledger.subsampled_noise_within`
    share it.

    ``coarse`` (optional): the same excess on a coarser grid (:data:`COARSE_GAP`), decreasing
    too; ``coarser`` (optional, with ``coarse``): the same at :data:`COARSER_GAP`. The root
    of the coarsest given is found by secant steps in ``log s`` from ``start``
    (:data:`COARSE_XTOL`); with ``coarser``, ``coarse`` is read once there and the fine
    excess predicted by Richardson extrapolation (:func:`_richardson`), else taken as the
    coarse one. Newton steps on the fine ``excess`` then start from that prediction
    (:func:`_refine`; issue 31: 2-3 fine compositions instead of 5-14). Whatever the coarse
    grids return, the result is a point where ``excess`` itself was evaluated ``<= 0``
    (the certification at the fine grid), at most ``2 rtol`` in ``log s`` above the root that
    the last fine points predict (:func:`_refine`: at most :data:`_ROUGH` where the fine
    grid's rounding is coarser than ``rtol``); where the Newton steps do not settle, the
    bracketing search above runs from the coarse root (or from ``start`` if none was found).

    Examples
    --------
    >>> round(smallest_noise_multiplier(lambda s: 2.0 / s - 1.0), 6)
    2.0
    >>> round(smallest_noise_multiplier(lambda s: 2.0 / s - 1.0,
    ...                                 coarse=lambda s: 2.001 / s - 1.0), 6)
    2.0
    """
    if coarse is not None:
        def gap(log_s):
            return excess(math.exp(log_s))

        first = coarser if coarser is not None else coarse
        found = _secant_root(lambda v: first(math.exp(v)), math.log(start), COARSE_XTOL)
        if found is not None:
            x, e, slope = found
            if coarser is not None:
                e = _richardson(coarse(math.exp(x)), e)
            root = _refine(gap, x, e, slope, rtol) if math.isfinite(e) else None
            if root is not None:
                return math.exp(root)
            start = math.exp(x)
    return _bracketed_root(excess, start, rtol)


def _bracketed_root(excess, start, rtol):
    """Unit steps in ``log s`` from ``log start`` to a bracket, Brent's method, nudged up."""
    step = 1.0

    def gap(log_s):
        return excess(math.exp(log_s))

    hi = math.log(start)
    while gap(hi) > 0:
        hi += step
    lo = hi - step
    while gap(lo) <= 0 and lo > math.log(1.0 / _MAX_C):
        lo -= step
    if gap(lo) <= 0:
        return math.exp(lo)
    root = optimize.brentq(gap, lo, hi, xtol=rtol, rtol=rtol)
    for _ in range(60):
        if gap(root) <= 0:
            return math.exp(root)
        root += rtol
    return math.exp(hi)
