"""Composite releases, built on :mod:`skdp.privacy.release`.

Shapes of release that :class:`~skdp.privacy.release.Release` does not cover
by itself (the worst-group classifier's solvers use them), each drawing and
recording in one place:

* :func:`host` -- the release path on the host: the same generator and ledger,
  NumPy arrays. Small released vectors that the solvers keep on the host
  (group sizes, group losses) draw their noise there whatever the data's
  namespace or device.
* :func:`gaussian_blocks` -- one Gaussian mechanism on a vector stored in
  several arrays (a model's weight and intercept blocks): recorded once,
  each block drawn in turn.
* :class:`DisjointGaussian` -- Gaussian releases on the parts of a
  data-independent partition (the batches of an epoch, the phases of a
  localisation), each ``mu``-GDP whatever its sensitivity: by parallel
  composition one mechanism, recorded once when the partition is done.
* :class:`ExponentialTally` -- exponential-mechanism samples whose per-sample
  epsilon changes from step to step, under the fully adaptive filter of 002
  Thm 3.5 (Rogers et al. 2016): each step charges its samples before drawing
  them (refused past the filter), and the tally is recorded by epsilon at the
  end.

Solvers and estimators reach these only through
:class:`~skdp.privacy.budget.Budget` (``on_host``, ``gaussian_gdp_blocks``,
``disjoint_gdp``, ``exponential_filter``), whose filter charges them first.

:func:`exponential_trial` is no release: a what-if ledger for a solver's
search of the largest per-sample epsilon that fits its budget.
"""

import math

import numpy as np

from .._backend import Backend
from .ledger import PrivacyLedger
from .release import Release, _add_normal

__all__ = ["host", "gaussian_blocks", "DisjointGaussian", "ExponentialTally",
           "exponential_trial"]


def host(release, xp=None):
    """``release`` with its noise drawn by NumPy (or ``xp``, a NumPy namespace) from the same
    generator, into host arrays.

    Examples
    --------
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> release = Release(Backend.from_arrays(np.zeros(2), random_state=0), PrivacyLedger())
    >>> host(release).gaussian(np.zeros(2), 1.0, 2.0, label="counts").shape
    (2,)
    """
    backend = release.backend
    if backend.is_numpy:
        return release
    return Release(Backend(np if xp is None else xp, None, backend.rng), release.ledger)


def _add_blocks(backend, blocks, sigma):
    return [_add_normal(backend, block, sigma) for block in blocks]


def gaussian_blocks(release, blocks, sensitivity, sigma, *, label):
    """``blocks + N(0, sigma**2 I)``: one Gaussian mechanism on their concatenation.

    ``sensitivity`` bounds the l2 change of all the blocks together; the
    mechanism is ``Delta**2 / (2 sigma**2)``-zCDP (Bun–Steinke 2016, Prop.
    1.6), recorded once. ``sigma = 0`` returns the blocks unchanged.
    """
    release.ledger.gaussian(sensitivity, sigma, label=label)
    return _add_blocks(release.backend, blocks, sigma)


class DisjointGaussian:
    """Gaussian releases on disjoint parts of the data, each ``mu``-GDP: one mechanism.

    Each call releases ``value + N(0, sigma**2 I)`` (``value`` an array or a
    list of blocks) with ``sigma = Delta / mu`` for its own sensitivity
    ``Delta``, so each release is ``mu``-GDP (Dong–Roth–Su 2022, Thm 2.7).
    The parts are fixed independently of the data and a record lies in one
    of them, so the releases together are ``mu``-GDP (parallel composition);
    :meth:`close` records them as one Gaussian mechanism, of the largest
    sensitivity seen at noise ``Delta_max / mu``.

    Parameters
    ----------
    release : Release
    mu : float
        GDP parameter of every release (``inf``: no noise).
    label : str

    Examples
    --------
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> release = Release(Backend.from_arrays(np.zeros(2), random_state=0), PrivacyLedger())
    >>> parts = DisjointGaussian(release, 0.5, label="batches")
    >>> _ = parts(np.zeros(2), 1.0), parts([np.zeros(2), np.zeros(1)], 2.0)
    >>> parts.close()
    >>> release.ledger.entries[0].mu
    0.5
    """

    def __init__(self, release, mu, *, label):
        self.release = release
        self.mu = float(mu)
        self.label = label
        self.sensitivity = 0.0

    def sigma(self, sensitivity):
        """Noise scale of a release of sensitivity ``sensitivity``: ``sensitivity / mu``."""
        return 0.0 if math.isinf(self.mu) else sensitivity / self.mu

    def __call__(self, value, sensitivity):
        """One release of the partition: ``value`` plus noise of scale ``sensitivity / mu``."""
        self.sensitivity = max(self.sensitivity, sensitivity)
        sigma = self.sigma(sensitivity)
        if isinstance(value, (list, tuple)):
            return _add_blocks(self.release.backend, value, sigma)
        return _add_normal(self.release.backend, value, sigma)

    def close(self):
        """Record the partition's releases as one Gaussian mechanism."""
        self.release.ledger.gaussian(self.sensitivity, self.sigma(self.sensitivity),
                                     label=self.label)


class ExponentialTally:
    """Exponential-mechanism samples at per-step epsilons, recorded by epsilon at the end.

    A solver that chooses each step's per-sample epsilon from earlier outputs
    (under a privacy filter, e.g. 002 Thm 3.5) charges the step's samples
    with :meth:`charge` before drawing them with :meth:`counts`; drawing
    more samples than were charged raises. :meth:`close` records, for each
    epsilon, one entry of all the samples charged at it.

    Examples
    --------
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> release = Release(Backend.from_arrays(np.zeros(2), random_state=0), PrivacyLedger())
    >>> tally = ExponentialTally(release, label="vertices")
    >>> tally.charge(0.1, 3)
    >>> int(tally.counts(3, np.array([0.5, 0.5])).sum())
    3
    >>> tally.close()
    >>> [(e.epsilon, e.count) for e in release.ledger.entries]
    [(0.1, 3)]
    """

    def __init__(self, release, *, label, epsilon=math.inf, delta=None):
        self.release = release
        self.label = label
        self.charged = {}
        self.allowed = 0
        self.epsilon = float(epsilon)
        self.delta = delta
        self.sq_sum = 0.0  # sum of the squared per-sample epsilons charged

    def bound(self, sq_sum):
        """002 Thm 3.5: ``sqrt(2 log(1/delta) S) + S/2`` for ``S`` the sum of squared epsilons."""
        return math.sqrt(2.0 * math.log(1.0 / self.delta) * sq_sum) + 0.5 * sq_sum

    def fits(self, epsilon, count):
        """Whether ``count`` more samples at ``epsilon`` stay within the filter's epsilon."""
        if math.isinf(self.epsilon):
            return True
        return not self.bound(self.sq_sum + count * epsilon**2) > self.epsilon

    def charge(self, epsilon, count):
        """Charge ``count`` samples, each ``epsilon``-DP; refused (raises) past the filter."""
        if not self.fits(epsilon, count):
            raise RuntimeError(f"internal error: {self.label!r} would overspend "
                               f"(epsilon {self.epsilon} at delta {self.delta}).")
        self.sq_sum = self.sq_sum + count * epsilon**2
        self.charged[epsilon] = self.charged.get(epsilon, 0) + count
        self.allowed += int(count)

    def counts(self, n, p):
        """Counts of ``n`` iid indices ``~ p`` (``n`` charged samples), as NumPy."""
        n = int(n)
        if n > self.allowed:
            raise RuntimeError(f"internal error: {self.label!r} draws more samples than "
                               "it charged.")
        self.allowed -= n
        return self.release.backend.rng.multinomial(n, p)

    def close(self):
        """Record every epsilon's samples (samples at epsilon 0 release nothing)."""
        for epsilon, count in sorted(self.charged.items()):
            if epsilon > 0:
                self.release.ledger.exponential(float(epsilon), count=int(count),
                                                label=self.label)


def exponential_trial(epsilon, count):
    """A ledger of ``count`` epsilon-DP exponential mechanisms that nothing draws.

    For budget searches (:func:`skdp.solvers.minimax.common.largest_within`):
    the solver composes it with the fit's ledger to see whether a per-sample
    epsilon fits, then opens the real batch at the epsilon chosen.

    Examples
    --------
    >>> exponential_trial(0.1, count=5).entries[0].count
    5
    """
    trial = PrivacyLedger()
    trial.exponential(epsilon, count=count, label="trial")
    return trial
