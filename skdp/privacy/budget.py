"""What a solver may spend, and the path it spends through: one budget type for every solver.

A :class:`Budget` carries the fit's ``(epsilon, delta)``, the zCDP share
``rho`` given to the solver, its Gaussian-DP share ``mu`` where the solver
owns a budget made of Gaussian releases only, and the fit's
:class:`~skdp.privacy.release.Release` (generator and ledger). It is also a
privacy filter: :meth:`Budget.gaussian` and :meth:`Budget.select` refuse a
release that would take the zCDP total past ``rho``. A zCDP (Renyi) filter
with a fixed total is valid under fully adaptive composition (Whitehouse et
al. 2023; Feldman–Zrnic 2021 for Renyi filters), so a solver may choose each
cost from earlier noisy outputs.

Poisson-subsampled Gaussian steps (:meth:`Budget.subsampled_gaussian`,
:meth:`Budget.subsampled_gaussian_batch`) are accounted by privacy loss
distributions (:mod:`skdp.privacy.pld`), which no zCDP share captures: in an
exclusive budget they are admitted while the fit's ledger, with them, spends
at most ``epsilon`` at ``delta`` (:meth:`PrivacyLedger.spent
<skdp.privacy.accounting.PrivacyLedger.spent>`), and they close the zCDP
filter (releases charged in zCDP come first); in a shared budget they are
charged to the zCDP filter at their unamplified ``rho = (2C)**2 / (2
sigma**2)``, a valid upper bound.
"""

import math

from .accounting import PrivacyLedger, bounded_range_rho, gaussian_rho, gaussian_sigma
from .release import GaussianBatch, Release

__all__ = ["Budget"]

_SLACK = 1.0 + 1e-12  # float round-off when costs are computed from the remaining budget


class Budget:
    """A solver's share of the fit's budget, and its release path.

    Parameters
    ----------
    epsilon, delta : float
        The fit's (epsilon, delta).
    rho : float
        zCDP budget of the solver (``inf``: not private, no noise).
    release : Release
        The fit's release path (its generator and ledger).
    mu : float, default=None
        Gaussian-DP budget (Dong–Roth–Su 2022), given when the solver owns
        the whole (epsilon, delta) and spends it on Gaussian releases only: it
        then calibrates on mu-GDP exactly (Cor. 2.13).
    exclusive : bool, default=True
        No other mechanism shares the fit's (epsilon, delta).

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.accounting import PrivacyLedger
    >>> release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    >>> budget = Budget(1.0, 1e-6, rho=0.5, release=release)
    >>> sigma = budget.sigma(1.0, 0.125)      # Delta / sqrt(2 rho_step)
    >>> _ = budget.gaussian(np.zeros(3), 1.0, sigma, label="mean")
    >>> sigma, budget.remaining
    (2.0, 0.375)
    """

    def __init__(self, epsilon, delta, rho, *, release, mu=None, exclusive=True):
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.rho = float(rho)
        self.mu = None if mu is None else float(mu)
        self.exclusive = bool(exclusive)
        self.release = release
        self.spent = 0.0
        self._ahead = {}          # subsampled steps already verified, by (C/sigma, q)

    @property
    def backend(self):
        return self.release.backend

    @property
    def ledger(self):
        return self.release.ledger

    @property
    def private(self):
        return math.isfinite(self.rho)

    @property
    def remaining(self):
        """zCDP left in the filter (``inf`` when not private)."""
        return math.inf if not self.private else max(self.rho - self.spent, 0.0)

    def sigma(self, sensitivity, rho_step):
        """Noise of a Gaussian release costing ``rho_step`` (0 when not private)."""
        if not self.private:
            return 0.0
        return gaussian_sigma(sensitivity, rho_step)

    def _charge(self, cost, label):
        if self.spent + cost > self.rho * _SLACK:
            raise RuntimeError(f"internal error: release {label!r} would overspend "
                               f"({self.spent} + {cost} > {self.rho}).")
        self.spent += cost

    def gaussian(self, value, sensitivity, sigma, *, label, replace_sensitivity=None):
        """``value + N(0, sigma**2 I)``, charged and recorded (Bun–Steinke Prop. 1.6).

        Charged at ``sensitivity`` (the relation the fit is stated under);
        ``replace_sensitivity`` (add/remove fits: the query's replace-one
        l2-sensitivity) is only recorded, for a replace-one budget's
        conversion (:meth:`Release.gaussian
        <skdp.privacy.release.Release.gaussian>`).
        """
        if not self.private:
            return value
        self._charge(gaussian_rho(sensitivity, sigma), label)
        return self.release.gaussian(value, sensitivity, sigma, label=label,
                                     replace_sensitivity=replace_sensitivity)

    def select(self, scores, sensitivity, rho_step, *, label):
        """Exponential mechanism at ``epsilon = sqrt(8 rho_step)``; the argmax when not private.

        An epsilon-DP exponential mechanism is epsilon-bounded-range, hence
        ``epsilon**2/8``-zCDP (Cesar–Rogers 2021, Lemma 3.2): it costs
        exactly ``rho_step``.
        """
        if not self.private:
            return int(self.backend.xp.argmax(scores))
        epsilon = math.sqrt(8.0 * rho_step)
        self._charge(bounded_range_rho(epsilon), label)
        return self.release.exponential(scores, sensitivity, epsilon, label=label)

    def gaussian_batch(self, sensitivity, sigma, count, *, label, replace_sensitivity=None):
        """Up to ``count`` Gaussian releases at ``sigma``, charged and recorded now as one entry.

        ``count`` releases of sensitivity ``Delta`` compose to ``count Delta**2
        / (2 sigma**2)``-zCDP (Bun–Steinke Prop. 1.6, Lemma 2.3). Not private:
        a batch that adds no noise and records nothing. ``replace_sensitivity``
        as in :meth:`gaussian`.
        """
        if not self.private:
            return GaussianBatch(self.backend, 0.0, count, label)
        self._charge(count * gaussian_rho(sensitivity, sigma), label)
        return self.release.gaussian_batch(sensitivity, sigma, count, label=label,
                                           replace_sensitivity=replace_sensitivity)

    def poisson_sample(self, n, sampling_rate):
        """Indices of the rows kept by Poisson sampling (:meth:`Release.poisson_sample`).

        All ``n`` rows when not private at ``sampling_rate = 1``; the draw
        is from the fit's generator either way.
        """
        return self.release.poisson_sample(n, sampling_rate)

    def subsampled_gaussian(self, value, sensitivity, sigma, sampling_rate, *, label):
        """One Poisson-subsampled Gaussian step, charged and recorded (replace-one, by PLD).

        ``value`` is the sum of the clipped contributions (norm at most
        ``sensitivity``) of the rows of :meth:`poisson_sample`. Not private:
        ``value`` unchanged.
        """
        if not self.private:
            return value
        self._charge_subsampled(sensitivity, sigma, sampling_rate, 1, label)
        return self.release.subsampled_gaussian(value, sensitivity, sigma, sampling_rate,
                                                label=label)

    def subsampled_gaussian_batch(self, sensitivity, sigma, sampling_rate, count, *, label):
        """Up to ``count`` subsampled Gaussian steps, charged and recorded now as one entry."""
        if not self.private:
            return GaussianBatch(self.backend, 0.0, count, label)
        self._charge_subsampled(sensitivity, sigma, sampling_rate, count, label)
        return self.release.subsampled_gaussian_batch(sensitivity, sigma, sampling_rate, count,
                                                      label=label)

    def _charge_subsampled(self, sensitivity, sigma, sampling_rate, count, label):
        if not self.exclusive:
            self._charge(count * gaussian_rho(2.0 * sensitivity, sigma), label)
            return
        self.spent = max(self.spent, self.rho)        # the zCDP filter is closed
        key = (sensitivity / sigma if sigma > 0 else math.inf, float(sampling_rate))
        left, span = self._ahead.get(key, (0, 0))
        if left >= count:
            self._ahead[key] = (left - count, span)
            return
        # verify a horizon twice the last one; failing that, the longest that fits
        # (bisection): O(log T) PLD evaluations for T steps
        ahead = max(count, 2 * span)
        if not self._fits(key, sensitivity, sigma, sampling_rate, ahead):
            if not self._fits(key, sensitivity, sigma, sampling_rate, count):
                raise RuntimeError(f"internal error: release {label!r} would overspend "
                                   f"(epsilon {self.epsilon} at delta {self.delta}).")
            lo, hi = count, ahead
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if self._fits(key, sensitivity, sigma, sampling_rate,
                                                 mid) else (lo, mid)
            ahead = lo
        self._ahead[key] = (ahead - count, ahead)

    def _fits(self, key, sensitivity, sigma, sampling_rate, count):
        trial = PrivacyLedger(list(self.ledger.entries))
        trial.subsampled_gaussian(sensitivity, sigma, sampling_rate, count=count)
        for other, (left, _) in self._ahead.items():  # verified earlier, not yet drawn
            if other != key and left:
                trial.subsampled_gaussian(1.0, 1.0 / other[0], other[1], count=left)
        return trial.epsilon(self.delta) <= self.epsilon * _SLACK
