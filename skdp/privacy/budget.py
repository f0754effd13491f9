"""What a solver may spend, and the one path it spends through: one budget type for every solver.

A :class:`Budget` carries the fit's ``(epsilon, delta)``, the zCDP share
``rho`` given to the solver, its Gaussian-DP share ``mu`` where the solver
owns a budget made of Gaussian releases only, and, private to it, the fit's
release path (:class:`~skdp.privacy.release.Release`: generator and ledger).
Solvers and estimators release only through its methods; no caller touches
the generator or the ledger (``tests/solvers/test_solvers.py`` checks the source).

It is a privacy filter in every currency it spends, and it refuses a release
that would overspend *before* any noise is drawn (fail closed):

* zCDP (:meth:`gaussian`, :meth:`gaussian_batch`, :meth:`select`): the
  running total stays within ``rho``. A zCDP (Renyi) filter with a fixed
  total is valid under fully adaptive composition (Whitehouse et al. 2023;
  Feldman–Zrnic 2021 for Renyi filters), so a solver may choose each cost
  from earlier noisy outputs.
* Gaussian DP (:meth:`gaussian_gdp`, :meth:`gaussian_gdp_batch`,
  :meth:`gaussian_gdp_blocks`, :meth:`disjoint_gdp`): a Gaussian release of sensitivity ``Delta`` at
  noise ``sigma`` is ``Delta/sigma``-GDP (Dong–Roth–Su 2022, Thm 2.7), and
  Gaussian mechanisms compose exactly, ``mu**2 = sum mu_i**2`` (Cor. 3.3),
  also adaptively with a fixed total (the GDP filter of Smith–Thakurta 2022,
  "Fully adaptive composition for Gaussian DP"); the total stays within
  ``mu``, and mu-GDP is (epsilon, delta)-DP iff ``delta >= delta_mu(epsilon)``
  (Cor. 2.13, :func:`~skdp.privacy.ledger.gdp_to_approx_dp`). The exact
  composition holds for Gaussian mechanisms only: after any other release
  through the budget the GDP filter is closed. Each GDP release is also
  charged ``mu_i**2 / 2`` to the zCDP total (exact for a Gaussian).
* (epsilon, delta) by the ledger's composition (:meth:`exponential_batch`,
  Poisson-subsampled Gaussian steps): the fit's ledger, with the new
  mechanisms, spends at most ``epsilon`` at ``delta``
  (:meth:`PrivacyLedger.spent <skdp.privacy.ledger.PrivacyLedger.spent>`);
  :meth:`exponential_filter` keeps the fully adaptive bound of 002 Thm 3.5
  (Rogers et al. 2016) for exponential samples whose epsilon changes from
  step to step.
* (epsilon, delta) of 'approx' mechanisms (:meth:`approx_dp`: a thresholded
  histogram's categories, a private search): their deltas stay within ``delta``,
  and composed (basic composition) with the zCDP the budget reserves, spent or
  not, the fit stays within ``(epsilon, delta)``; an untouched zCDP filter is
  narrowed to what they leave.

Poisson-subsampled Gaussian steps (:meth:`Budget.subsampled_gaussian`,
:meth:`Budget.subsampled_gaussian_batch`) are accounted by privacy loss
distributions (:mod:`skdp.privacy.pld`), which no zCDP share captures: in an
exclusive budget they are admitted while the fit's ledger, with them, spends
at most ``epsilon`` at ``delta``, and they close the zCDP filter (releases
charged in zCDP come first); in a shared budget they are charged to the zCDP
filter at their unamplified ``rho = (2C)**2 / (2 sigma**2)``, a valid upper
bound. A solver that knows its horizon declares it first
(:meth:`Budget.plan_subsampled`): one composition admits the ``T`` steps,
which then draw the plan down; otherwise the filter verifies a doubling
horizon as the steps come (O(log T) compositions).

A fit opens its budget with :meth:`Budget.for_fit`; :meth:`share` gives a
part of it its own filter on the same ledger (the estimator's split of the
fit's budget), :meth:`on_host` the same filter drawing NumPy arrays from the
same generator.
"""

import math

from .ledger import (PrivacyLedger, approx_dp_to_zcdp, bounded_range_rho, gaussian_rho,
                     gaussian_sigma)
from .composite import DisjointGaussian, ExponentialTally, gaussian_blocks, host
from .release import GaussianBatch, Release

__all__ = ["Budget"]

_SLACK = 1.0 + 1e-12  # float round-off when costs are computed from the remaining budget


class _Filter:
    """The running totals of one budget (shared by its :meth:`Budget.on_host` view)."""

    def __init__(self, rho, mu):
        self.rho = rho
        self.mu = mu
        self.spent = 0.0          # zCDP
        self.mu_spent2 = 0.0      # sum of mu_i**2 of the GDP releases
        self.delta_spent = 0.0    # (0, delta_i) mechanisms
        self.gdp_closed = False   # a non-Gaussian release went through: GDP no longer exact
        self.rho_cap = None       # zCDP left to the filter by an approx_dp release (or None)
        self.shared = False       # a share() of this budget was handed out
        # subsampled steps admitted ahead of their release (verified, or charged in a shared
        # budget: the step-by-step horizon or a plan), by (C/sigma, q): (left, horizon)
        self.ahead = {}


class Budget:
    """A solver's share of the fit's budget, and its only release path.

    Parameters
    ----------
    epsilon, delta : float
        The fit's (epsilon, delta).
    rho : float
        zCDP budget of the solver (``inf``: not private, no noise).
    release : Release
        The fit's release path (its generator and ledger), private to the
        budget from then on. Estimators open one with :meth:`for_fit`.
    mu : float, default=None
        Gaussian-DP budget (Dong–Roth–Su 2022), given when the solver owns
        a budget spent on Gaussian releases only: it then calibrates on
        mu-GDP exactly (Cor. 2.13) through :meth:`gaussian_gdp`.
    exclusive : bool, default=True
        No other mechanism shares the fit's (epsilon, delta).
    gdp_only : bool, default=False
        ``rho`` is only ``mu**2 / 2``, the image of a GDP budget whose ``mu``
        is exact for the fit's (epsilon, delta). Gaussian releases charged in
        zCDP stay exact there (a Gaussian mechanism is ``rho``-zCDP exactly when
        it is ``sqrt(2 rho)``-GDP, and both compose by adding ``rho``:
        Dong–Roth–Su 2022 Thm 2.7, Cor. 3.3); a non-Gaussian zCDP release
        (:meth:`select`) is refused, because ``rho``-zCDP alone does not bound
        the fit by (epsilon, delta) (the zCDP conversion is looser than GDP's).
        The mechanisms checked against the ledger's (epsilon, delta) remain.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> budget = Budget.for_fit(Backend.from_arrays(np.zeros(1), random_state=0), 1.0, 1e-6,
    ...                         rho=0.5)
    >>> sigma = budget.sigma(1.0, 0.125)      # Delta / sqrt(2 rho_step)
    >>> _ = budget.gaussian(np.zeros(3), 1.0, sigma, label="mean")
    >>> sigma, budget.remaining
    (2.0, 0.375)
    >>> gdp = Budget.for_fit(Backend.from_arrays(np.zeros(1), random_state=0), 1.0, 1e-6,
    ...                      rho=0.125, mu=0.5)
    >>> _ = gdp.gaussian_gdp(np.zeros(3), 1.0, 4.0, label="mean")   # 0.25-GDP
    >>> round(gdp.mu_spent, 12), round(gdp.mu_remaining ** 2, 12)
    (0.25, 0.1875)
    """

    def __init__(self, epsilon, delta, rho, *, release, mu=None, exclusive=True,
                 gdp_only=False):
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.rho = float(rho)
        self.mu = None if mu is None else float(mu)
        self.exclusive = bool(exclusive)
        self.gdp_only = bool(gdp_only)
        self._release = release
        self._filter = _Filter(self.rho, self.mu)

    @classmethod
    def for_fit(cls, backend, epsilon, delta, rho, *, mu=None, exclusive=True, ledger=None,
                gdp_only=False):
        """The fit's budget: a new release path on ``backend`` and a new ledger (or ``ledger``)."""
        ledger = PrivacyLedger() if ledger is None else ledger
        return cls(epsilon, delta, rho, release=Release(backend, ledger), mu=mu,
                   exclusive=exclusive, gdp_only=gdp_only)

    def share(self, rho, *, mu=None, exclusive=False, epsilon=None, delta=None, gdp_only=False):
        """A part of this budget with its own filter, recording in the same ledger.

        The caller's split (``rho`` of this budget's, ``mu`` of its GDP) is
        the composition: the parts' totals add up to at most the whole.
        """
        self._filter.shared = True
        return Budget(self.epsilon if epsilon is None else epsilon,
                      self.delta if delta is None else delta, rho, release=self._release,
                      mu=mu, exclusive=exclusive, gdp_only=gdp_only)

    def on_host(self, xp=None):
        """This budget (the same filter and ledger) drawing NumPy arrays from the same generator.

        For small released vectors that a solver keeps on the host (group
        sizes, group losses), or a NumPy-only solver given another namespace's
        data: the draws are the same generator's, in the same order.
        """
        if self._release.backend.is_numpy:
            return self
        view = Budget.__new__(Budget)
        view.__dict__.update(self.__dict__)
        view._release = host(self._release, xp)
        return view

    @property
    def backend(self):
        return self._release.backend

    @property
    def ledger(self):
        """A copy of the fit's ledger (:meth:`recorded`), for reading: nothing is written to it."""
        return self.recorded()

    def recorded(self):
        """A copy of the fit's ledger (what has been released so far): read-only for callers."""
        return PrivacyLedger(list(self._release.ledger.entries))

    @property
    def private(self):
        return math.isfinite(self.rho)

    @property
    def spent(self):
        """zCDP charged so far (GDP releases included at ``mu_i**2 / 2``)."""
        return self._filter.spent

    @property
    def remaining(self):
        """zCDP left in the filter (``inf`` when not private)."""
        return math.inf if not self.private else max(self.rho - self.spent, 0.0)

    @property
    def mu_spent(self):
        """GDP spent so far: ``sqrt(sum mu_i**2)`` of the GDP releases (Dong–Roth–Su Cor. 3.3)."""
        return math.sqrt(self._filter.mu_spent2)

    @property
    def mu_remaining(self):
        """GDP left: ``sqrt(mu**2 - sum mu_i**2)`` (``inf`` when ``mu`` is)."""
        if self.mu is None:
            return 0.0
        if math.isinf(self.mu):
            return math.inf
        return math.sqrt(max(self.mu * self.mu - self._filter.mu_spent2, 0.0))

    def sigma(self, sensitivity, rho_step):
        """Noise of a Gaussian release costing ``rho_step`` (0 when not private)."""
        if not self.private:
            return 0.0
        return gaussian_sigma(sensitivity, rho_step)

    # ------------------------------------------------------------- filters
    def _charge(self, cost, label, gaussian=False):
        """Charge ``cost`` zCDP; a non-Gaussian mechanism is refused on a GDP-only budget."""
        f = self._filter
        if self.gdp_only and not gaussian and self.private:
            raise RuntimeError(f"internal error: release {label!r} is not Gaussian and is "
                               "charged in zCDP on a GDP-only budget (rho = mu**2 / 2 bounds "
                               "Gaussian releases only).")
        limit = self.rho if f.rho_cap is None else min(self.rho, f.rho_cap)
        if f.spent + cost > limit * _SLACK:
            raise RuntimeError(f"internal error: release {label!r} would overspend "
                               f"({f.spent} + {cost} > {limit}).")
        f.spent += cost
        f.gdp_closed = True

    def _charge_gdp(self, mu_step, count, label):
        """Refuse, before any draw, a GDP release past ``mu`` (or on a budget without one)."""
        f = self._filter
        if self.mu is None:
            raise RuntimeError(f"internal error: release {label!r} is calibrated in GDP but the "
                               "budget has no mu.")
        if f.gdp_closed:
            raise RuntimeError(f"internal error: release {label!r} is calibrated in GDP after a "
                               "non-Gaussian release of the same budget.")
        step2 = count * mu_step * mu_step
        if not math.isinf(self.mu) and f.mu_spent2 + step2 > self.mu * self.mu * _SLACK:
            raise RuntimeError(f"internal error: release {label!r} would overspend "
                               f"(mu**2: {f.mu_spent2} + {step2} > {self.mu * self.mu}).")
        f.mu_spent2 += step2
        f.spent += step2 / 2.0

    def _check_ledger(self, trial, label):
        """Refuse, before any draw, mechanisms that take the ledger past (epsilon, delta)."""
        self._filter.gdp_closed = True
        if math.isinf(self.epsilon):
            return
        if trial.spent(self.delta)[0] > self.epsilon * _SLACK:
            raise RuntimeError(f"internal error: release {label!r} would overspend "
                               f"(epsilon {self.epsilon} at delta {self.delta}).")

    # ------------------------------------------------------------- zCDP
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
        self._charge(gaussian_rho(sensitivity, sigma), label, gaussian=True)
        return self._release.gaussian(value, sensitivity, sigma, label=label,
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
        return self._release.exponential(scores, sensitivity, epsilon, label=label)

    def gaussian_batch(self, sensitivity, sigma, count, *, label, replace_sensitivity=None):
        """Up to ``count`` Gaussian releases at ``sigma``, charged and recorded now as one entry.

        ``count`` releases of sensitivity ``Delta`` compose to ``count Delta**2
        / (2 sigma**2)``-zCDP (Bun–Steinke Prop. 1.6, Lemma 2.3). Not private:
        a batch that adds no noise and records nothing. ``replace_sensitivity``
        as in :meth:`gaussian`.
        """
        if not self.private:
            return GaussianBatch(self.backend, 0.0, count, label)
        self._charge(count * gaussian_rho(sensitivity, sigma), label, gaussian=True)
        return self._release.gaussian_batch(sensitivity, sigma, count, label=label,
                                            replace_sensitivity=replace_sensitivity)

    # ------------------------------------------------------------- GDP
    def gaussian_gdp(self, value, sensitivity, sigma, *, label, replace_sensitivity=None):
        """``value + N(0, sigma**2 I)``, a ``Delta/sigma``-GDP release (Dong–Roth–Su Thm 2.7).

        Charged to the GDP filter before the draw, then drawn and recorded.
        ``sigma = 0`` (only within ``mu = inf``) returns ``value`` and
        records an infinite cost, as every GDP release is recorded.
        ``replace_sensitivity`` as in :meth:`gaussian` (recorded only).
        """
        self._charge_gdp(_gdp(sensitivity, sigma), 1, label)
        return self._release.gaussian(value, sensitivity, sigma, label=label,
                                      replace_sensitivity=replace_sensitivity)

    def gaussian_gdp_blocks(self, blocks, sensitivity, sigma, *, label):
        """One GDP release of a vector stored in blocks (a model's weights and intercept).

        ``sensitivity`` bounds the l2 change of the blocks together; recorded
        once, each block drawn in turn (:func:`~skdp.privacy.composite.gaussian_blocks`).
        """
        self._charge_gdp(_gdp(sensitivity, sigma), 1, label)
        return gaussian_blocks(self._release, blocks, sensitivity, sigma, label=label)

    def gaussian_gdp_batch(self, sensitivity, sigma, count, *, label):
        """Up to ``count`` GDP releases at ``sigma``, charged and recorded now as one entry.

        ``count`` Gaussian releases of sensitivity ``Delta`` compose to
        ``sqrt(count) Delta / sigma``-GDP (Dong–Roth–Su Cor. 3.3). Returns a
        :class:`~skdp.privacy.release.GaussianBatch`; a draw beyond ``count``
        raises.
        """
        self._charge_gdp(_gdp(sensitivity, sigma), count, label)
        return self._release.gaussian_batch(sensitivity, sigma, count, label=label)

    def disjoint_gdp(self, mu, *, label):
        """Gaussian releases on the parts of a data-independent partition, ``mu``-GDP in all.

        Each part's release is ``mu``-GDP whatever its sensitivity (noise
        ``Delta / mu``), and a record lies in one part, so together they are
        ``mu``-GDP (parallel composition): charged ``mu`` now, recorded as one
        Gaussian mechanism when closed
        (:class:`~skdp.privacy.composite.DisjointGaussian`).
        """
        self._charge_gdp(float(mu), 1, label)
        return DisjointGaussian(self._release, mu, label=label)

    # ------------------------------------------------------------- (epsilon, delta)
    def exponential_batch(self, epsilon, count, *, label):
        """Up to ``count`` epsilon-DP exponential-mechanism samples, recorded now as one entry.

        Refused before any draw unless they fit: in an exclusive budget, the
        fit's ledger with them spends at most ``epsilon`` at ``delta`` (its
        tightest composition rule, :meth:`PrivacyLedger.spent
        <skdp.privacy.ledger.PrivacyLedger.spent>`); in a shared one, they
        are charged ``count epsilon**2 / 8`` to the zCDP filter (bounded range,
        Cesar–Rogers 2021, Lemma 3.2). Returns an
        :class:`~skdp.privacy.release.ExponentialBatch`.
        """
        if self.exclusive:
            trial = self.recorded()
            trial.exponential(epsilon, count=count, label=label)
            self._add_ahead(trial)      # subsampled steps admitted ahead count as spent
            self._check_ledger(trial, label)
        elif self.private:
            self._charge(count * bounded_range_rho(epsilon), label)
        return self._release.exponential_batch(epsilon, count, label=label)

    def exponential_filter(self, epsilon, delta, *, label):
        """Exponential samples at per-step epsilons under 002 Thm 3.5's filter.

        ``(epsilon, delta)`` is the pure-DP part of the budget the solver
        gives the samples (what its other releases left); the returned
        :class:`~skdp.privacy.composite.ExponentialTally` admits a step's
        samples only while ``sqrt(2 log(1/delta) S) + S/2 <= epsilon``,
        ``S`` the sum of their squared epsilons (fully adaptive composition,
        Rogers et al. 2016; 002 Thm 3.5), and records them by epsilon when
        closed.
        """
        self._filter.gdp_closed = True
        return ExponentialTally(self._release, label=label, epsilon=epsilon, delta=delta)

    def approx_dp(self, epsilon, delta, *, label):
        """Record an ``(epsilon, delta)``-DP mechanism that draws nothing here (a threshold's
        delta, a private search's whole guarantee).

        Admitted, before anything is recorded, only if the fit stays within its
        ``(epsilon, delta)`` once composed with the rest: the 'approx' parts add up
        (basic composition, Dwork and Roth 2014 Thm 3.16) to ``(eps_a, delta_a)``, and
        the zCDP this budget may still spend (its ``rho`` less what the ledger holds:
        reserved, spent or not) converts at the delta left, so the check is the
        ledger's composition with that reservation,
        ``eps_a + zcdp_to_approx_dp(rho, delta - delta_a) <= epsilon`` in the
        zCDP-only case (Bun and Steinke 2016 Prop. 1.3; the ledger takes the
        smallest of its valid bounds). Where the reservation does not fit but this
        budget has released nothing and handed out no share (the zCDP is still
        unspent), its zCDP filter is narrowed instead to the largest ``rho`` that
        fits, ``approx_dp_to_zcdp(epsilon - eps_a, delta - delta_a)`` less what the
        ledger holds (0 when nothing is left), and later zCDP charges are refused
        past it. Otherwise refused (``RuntimeError``). Called on the fit's budget
        (whose ``rho`` is the fit's). On a ``gdp_only`` budget (``rho = mu**2 / 2`` and
        every release to come Gaussian) the reservation is recorded as the
        ``sqrt(2 rho)``-GDP Gaussian mechanism it bounds (Dong–Roth–Su 2022 Thm 2.7), so
        that the check composes it exactly (Cor. 3.3 and 2.13).
        """
        f = self._filter
        if f.delta_spent + delta > self.delta * _SLACK:
            raise RuntimeError(f"internal error: release {label!r} would overspend delta "
                               f"({f.delta_spent} + {delta} > {self.delta}).")
        if self.private and math.isfinite(self.epsilon):
            self._check_approx(epsilon, delta, label)
        f.delta_spent += delta
        f.gdp_closed = True
        self._release.ledger.approx(epsilon, delta, label=label)

    def _check_approx(self, epsilon, delta, label):
        """:meth:`approx_dp`'s composition check (and the narrowing of the zCDP filter)."""
        f = self._filter
        trial = self.recorded()
        held = trial.rho  # zCDP of what the fit has released so far (its shares' too)
        trial.approx(epsilon, delta, label=label)
        reserved = max(self.rho - held, 0.0)
        if f.rho_cap is not None:
            reserved = min(reserved, max(f.rho_cap - f.spent, 0.0))
        if reserved > 0 and self.gdp_only:  # only Gaussian releases to come: GDP exactly
            trial.gaussian(1.0, 1.0 / math.sqrt(2.0 * reserved), label="GDP reserved, not yet "
                           "spent")
        elif reserved > 0:
            trial.zcdp(reserved, label="zCDP reserved, not yet spent")
        if trial.spent(self.delta)[0] <= self.epsilon * _SLACK:
            return
        eps_a, delta_a = trial._approx_totals()
        untouched = not (f.spent or f.shared or f.ahead or held)
        if untouched and eps_a <= self.epsilon * _SLACK and delta_a <= self.delta * _SLACK:
            eps_left, delta_left = self.epsilon - eps_a, self.delta - delta_a
            f.rho_cap = approx_dp_to_zcdp(eps_left, delta_left) \
                if eps_left > 0 and delta_left > 0 else 0.0
            return
        raise RuntimeError(f"internal error: release {label!r} would overspend: with the "
                           f"zCDP reserved ({reserved}) the fit would spend epsilon "
                           f"{trial.spent(self.delta)[0]} > {self.epsilon} at delta "
                           f"{self.delta}.")

    # ------------------------------------------------------------- subsampled
    def poisson_sample(self, n, sampling_rate):
        """Indices of the rows kept by Poisson sampling (:meth:`Release.poisson_sample`).

        All ``n`` rows when not private at ``sampling_rate = 1``; the draw
        is from the fit's generator either way.
        """
        return self._release.poisson_sample(n, sampling_rate)

    def subsampled_gaussian(self, value, sensitivity, sigma, sampling_rate, *, label):
        """One Poisson-subsampled Gaussian step, charged and recorded (replace-one, by PLD).

        ``value`` is the sum of the clipped contributions (norm at most
        ``sensitivity``) of the rows of :meth:`poisson_sample`. Not private:
        ``value`` unchanged.
        """
        if not self.private:
            return value
        self._charge_subsampled(sensitivity, sigma, sampling_rate, 1, label)
        return self._release.subsampled_gaussian(value, sensitivity, sigma, sampling_rate,
                                                 label=label)

    def subsampled_gaussian_batch(self, sensitivity, sigma, sampling_rate, count, *, label):
        """Up to ``count`` subsampled Gaussian steps, charged and recorded now as one entry."""
        if not self.private:
            return GaussianBatch(self.backend, 0.0, count, label)
        self._charge_subsampled(sensitivity, sigma, sampling_rate, count, label)
        return self._release.subsampled_gaussian_batch(sensitivity, sigma, sampling_rate, count,
                                                       label=label)

    def plan_subsampled(self, sensitivity, sigma, sampling_rate, steps, *, label):
        """Declare ``steps`` subsampled Gaussian steps up front: verified now, drawn down later.

        A solver that knows its whole horizon (DP-SGD's ``T`` steps at one
        noise and one rate) states it before its first step. In an exclusive
        budget the plan is admitted only if the fit's ledger with the
        ``steps`` steps, and with every step verified earlier and not yet
        released, spends at most ``epsilon`` at ``delta`` — the same check
        (:meth:`PrivacyLedger.spent <skdp.privacy.ledger.PrivacyLedger.spent>`,
        PLD composition) that :meth:`subsampled_gaussian` runs on an
        undeclared horizon, once instead of O(log T) times; in a shared
        budget the steps' unamplified ``rho = steps (2C)**2 / (2 sigma**2)``
        is charged to the zCDP filter now (the same bound as step by step).
        Refused (``RuntimeError``, before any draw) when it would overspend.

        Releases of the same ``(C / sigma, q)`` through :meth:`subsampled_gaussian`
        or :meth:`subsampled_gaussian_batch` then draw the plan down without
        another composition; each is still recorded in the ledger as before,
        so a planned fit's ledger and released values are those of the same
        fit unplanned. A release beyond the plan, or at another ``(C / sigma,
        q)``, goes through the step-by-step verification (with what is left of
        the plan counted as spent), and is refused if it would overspend.
        The plan is a valid filter for the same reason the step-by-step check
        is: the admitted steps' composition is bounded before the first of
        them is drawn, and the ledger composes them adaptively (composition of
        dominating pairs, Zhu, Dong and Wang 2022; :mod:`skdp.privacy.pld`).
        Nothing is reserved when not private.
        """
        steps = int(steps)
        if not self.private or steps <= 0:
            return
        f = self._filter
        key = _step_key(sensitivity, sigma, sampling_rate)
        left, span = f.ahead.get(key, (0, 0))
        total = left + steps
        if not self.exclusive:
            self._charge(steps * gaussian_rho(2.0 * sensitivity, sigma), label, gaussian=True)
        else:
            f.spent = max(f.spent, self.rho)    # the zCDP filter is closed
            f.gdp_closed = True
            if not self._fits(key, sensitivity, sigma, sampling_rate, total):
                raise RuntimeError(f"internal error: the plan of {steps} steps {label!r} would "
                                   f"overspend (epsilon {self.epsilon} at delta {self.delta}).")
        f.ahead[key] = (total, max(span, total))

    def _charge_subsampled(self, sensitivity, sigma, sampling_rate, count, label):
        f = self._filter
        key = _step_key(sensitivity, sigma, sampling_rate)
        left, span = f.ahead.get(key, (0, 0))
        if left >= count:                       # verified (exclusive) or charged (shared) ahead
            f.ahead[key] = (left - count, span)
            return
        if not self.exclusive:
            self._charge(count * gaussian_rho(2.0 * sensitivity, sigma), label, gaussian=True)
            return
        f.spent = max(f.spent, self.rho)        # the zCDP filter is closed
        f.gdp_closed = True
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
        f.ahead[key] = (ahead - count, ahead)

    def _fits(self, key, sensitivity, sigma, sampling_rate, count):
        trial = self.recorded()
        trial.subsampled_gaussian(sensitivity, sigma, sampling_rate, count=count)
        self._add_ahead(trial, skip=key)
        return trial.epsilon(self.delta) <= self.epsilon * _SLACK

    def _add_ahead(self, trial, skip=None):
        """Record in ``trial`` the subsampled steps verified or planned but not yet drawn."""
        for other, (left, _) in self._filter.ahead.items():
            if other != skip and left:
                trial.subsampled_gaussian(1.0, 1.0 / other[0], other[1], count=left)


def _step_key(sensitivity, sigma, sampling_rate):
    """``(C / sigma, q)``: what a subsampled Gaussian step's privacy depends on."""
    return (sensitivity / sigma if sigma > 0 else math.inf, float(sampling_rate))


def _gdp(sensitivity, sigma):
    """``Delta / sigma``: the GDP parameter of a Gaussian release (0 without sensitivity)."""
    if sensitivity == 0:
        return 0.0
    return math.inf if sigma == 0 else sensitivity / sigma
