"""The one path of every private release: draw the noise and record it, in one call.

A :class:`Release` binds a fit's :class:`~skdp._backend.Backend` (namespace,
device and generator) to its :class:`~skdp.privacy.ledger.PrivacyLedger`.
Each of its methods draws the privacy noise of one mechanism from the fit's
generator *and* records that mechanism in the ledger with the same
sensitivity and scale, so a draw without its record, or a record with another
scale than the draw, cannot be written. Solvers and estimators draw privacy
noise only through it; randomness that is public by construction (random
features, batch orders, Goldstein directions) uses the backend's ``public_*``
calls instead, so a reader sees at once which draws are private.

* :meth:`Release.gaussian`: ``value + N(0, sigma**2 I)`` with l2-sensitivity
  ``Delta``: ``Delta**2/(2 sigma**2)``-zCDP (Bun–Steinke 2016, Prop. 1.6) and
  ``Delta/sigma``-GDP (Dong–Roth–Su 2022, Thm 2.7).
* :meth:`Release.exponential`: the exponential mechanism (McSherry–Talwar
  2007; Dwork–Roth Thm 3.10) as report-noisy-max with Gumbel noise (the
  Gumbel-max trick gives exactly the softmax law); epsilon-DP and
  epsilon-bounded-range, hence ``epsilon**2/8``-zCDP (Cesar–Rogers 2021).
* :meth:`Release.poisson_sample` and :meth:`Release.subsampled_gaussian`: one
  step of the Poisson-subsampled Gaussian mechanism, the rows kept each with
  probability ``q`` drawn from the fit's generator (the sample is part of the
  mechanism and stays private), then the noisy sum of their clipped
  contributions; recorded with the sampling rate and accounted by privacy
  loss distributions under replace-one (:mod:`skdp.privacy.pld`).
* :meth:`Release.gaussian_batch` and :meth:`Release.exponential_batch`: the
  same mechanisms repeated in a loop, recorded once for the whole batch
  (``count`` releases at the same scale) when the batch is opened; every draw
  is counted against ``count`` and one more raises, so the record can never
  fall short of the draws.

The audit's broken variant (:func:`skdp.audit.weakened_noise`) weakens the
generator every one of these draws comes from, so it covers every release by
construction.
"""

import math

import numpy as np

from .sampling import bernoulli_rows

__all__ = ["Release", "GaussianBatch", "ExponentialBatch"]


class Release:
    """Noise drawn and recorded together: the release path of one fit.

    Parameters
    ----------
    backend : Backend
        The fit's namespace, device and generator.
    ledger : PrivacyLedger
        Where every release is recorded.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> release = Release(Backend.from_arrays(np.zeros(2), random_state=0), PrivacyLedger())
    >>> noisy = release.gaussian(np.zeros(2), sensitivity=1.0, sigma=2.0, label="mean")
    >>> release.ledger.rho   # 1 / (2 * 2**2), Bun–Steinke Prop. 1.6
    0.125
    >>> rows = release.poisson_sample(1000, 0.05)
    >>> step = release.subsampled_gaussian(np.zeros(2), 1.0, 4.0, 0.05, label="gradient")
    >>> release.ledger.entries[-1].kind, release.ledger.entries[-1].q
    ('subsampled_gaussian', 0.05)
    """

    def __init__(self, backend, ledger):
        self.backend = backend
        self.ledger = ledger

    def gaussian(self, value, sensitivity, sigma, *, label, replace_sensitivity=None):
        """``value + N(0, sigma**2 I)``, recorded as one Gaussian mechanism.

        ``sigma = 0`` (a non-private fit, epsilon = inf) returns ``value``
        unchanged and records an infinite cost. ``replace_sensitivity``: where
        ``sensitivity`` is stated under add/remove neighbours, the query's
        replace-one l2-sensitivity (between 1 and 2 times ``sensitivity``),
        recorded with the part so that a replace-one budget counts it at
        ``mu`` times their ratio rather than group privacy's ``2 mu``
        (:func:`~skdp.privacy.ledger.replace_ratio`). It changes no draw.
        """
        self.ledger.gaussian(sensitivity, sigma, label=label,
                             replace_sensitivity=replace_sensitivity)
        return _add_normal(self.backend, value, sigma)

    def exponential(self, scores, sensitivity, epsilon, *, label, monotonic=False):
        """Index drawn with probability proportional to ``exp(eps s_i / (2 Delta))``.

        With ``monotonic=True`` (every score moves the same way between
        neighbours) the exponent is ``eps s_i / Delta``. ``epsilon = inf``
        returns the argmax.
        """
        self.ledger.exponential(epsilon, label=label)
        return _noisy_argmax(self.backend, scores, sensitivity, epsilon, monotonic)

    def poisson_sample(self, n, sampling_rate):
        """Indices of the rows kept, each independently with probability ``sampling_rate``.

        Drawn from the fit's generator: the sample is part of the subsampled
        mechanism, so it is never returned to the caller of a fit. Returns
        an integer array of the backend's namespace (possibly empty).
        """
        if not 0 <= sampling_rate <= 1:
            raise ValueError(f"sampling_rate must be in [0, 1], got {sampling_rate!r}.")
        return self.backend.asarray(bernoulli_rows(self.backend.rng, int(n), sampling_rate))

    def subsampled_gaussian(self, value, sensitivity, sigma, sampling_rate, *, label):
        """``value + N(0, sigma**2 I)``, recorded as one Poisson-subsampled Gaussian step.

        ``value`` is the sum over the rows of :meth:`poisson_sample` of their
        contributions, each of l2 norm at most ``sensitivity`` (the clip
        ``C``); the step is accounted under replace-one by its dominating
        pair ``(1-q) N(0) + q N(-C/sigma)`` against ``(1-q) N(0) + q
        N(C/sigma)`` (:mod:`skdp.privacy.pld`).
        """
        self.ledger.subsampled_gaussian(sensitivity, sigma, sampling_rate, label=label)
        return _add_normal(self.backend, value, sigma)

    def subsampled_gaussian_batch(self, sensitivity, sigma, sampling_rate, count, *, label):
        """Open a batch of at most ``count`` subsampled Gaussian steps, recorded now as one entry.

        Each call of the batch adds ``N(0, sigma**2 I)`` to one step's sum.
        """
        self.ledger.subsampled_gaussian(sensitivity, sigma, sampling_rate, count=count,
                                        label=label)
        return GaussianBatch(self.backend, sigma, count, label)

    def gaussian_batch(self, sensitivity, sigma, count, *, label, replace_sensitivity=None):
        """Open a batch of at most ``count`` Gaussian releases, recorded now as one entry.

        ``replace_sensitivity`` as in :meth:`gaussian`.
        """
        self.ledger.gaussian(sensitivity, sigma, count=count, label=label,
                             replace_sensitivity=replace_sensitivity)
        return GaussianBatch(self.backend, sigma, count, label)

    def exponential_batch(self, epsilon, count, *, label):
        """Open a batch of at most ``count`` epsilon-DP samples, recorded now as one entry.

        Each sample is one exponential mechanism: a draw from ``softmax`` of
        logits already scaled by the caller (:meth:`ExponentialBatch.argmax`), or
        from a probability vector (:meth:`ExponentialBatch.counts`).
        """
        self.ledger.exponential(epsilon, count=count, label=label)
        return ExponentialBatch(self.backend, epsilon, count, label)


class _Batch:
    def __init__(self, backend, count, label):
        self.backend = backend
        self.count = int(count)
        self.label = label
        self.used = 0

    def _take(self, n):
        if self.used + n > self.count:
            raise RuntimeError(f"internal error: batch {self.label!r} draws more than the "
                               f"{self.count} releases it recorded.")
        self.used += n


class GaussianBatch(_Batch):
    """Up to ``count`` Gaussian releases at noise ``sigma``, already recorded.

    Opened by :meth:`Release.gaussian_batch` (or
    :meth:`~skdp.privacy.budget.Budget.gaussian_batch`), which records the
    ``count`` releases as one ledger entry; each call draws one release, and a
    call beyond ``count`` raises.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    >>> step = release.gaussian_batch(1.0, sigma=2.0, count=8, label="gradient")
    >>> noisy = [step(np.zeros(3)) for _ in range(8)]
    >>> release.ledger.rho      # 8 x 1 / (2 * 2**2)
    1.0
    """

    def __init__(self, backend, sigma, count, label):
        super().__init__(backend, count, label)
        self.sigma = float(sigma)

    def __call__(self, value):
        """``value + N(0, sigma**2 I)``: one release of the batch."""
        self._take(1)
        return _add_normal(self.backend, value, self.sigma)


class ExponentialBatch(_Batch):
    """Up to ``count`` samples of epsilon-DP exponential mechanisms, already recorded.

    The caller computes the logits (``epsilon * score / (2 Delta)``, or the
    step sizes of a mirror-descent player whose draw the paper proves
    epsilon-DP); the batch draws.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> release = Release(Backend.from_arrays(np.zeros(1), random_state=0), PrivacyLedger())
    >>> draws = release.exponential_batch(0.1, count=3, label="vertex")
    >>> draws.argmax(np.array([0.0, 50.0, 0.0]))
    1
    >>> int(draws.counts(2, np.array([0.5, 0.5])).sum())
    2
    """

    def __init__(self, backend, epsilon, count, label):
        super().__init__(backend, count, label)
        self.epsilon = float(epsilon)

    def argmax(self, logits):
        """One index ``~ softmax(logits)`` by Gumbel-max."""
        self._take(1)
        xp = self.backend.xp
        noise = self.backend.gumbel((logits.shape[0],), dtype=logits.dtype)
        return int(xp.argmax(logits + noise))

    def counts(self, n, p):
        """Counts of ``n`` iid indices ``~ p`` (``n`` samples of the batch), as NumPy."""
        self._take(int(n))
        return self.backend.rng.multinomial(int(n), p)


def _add_normal(backend, value, sigma):
    if sigma == 0:
        return value
    if isinstance(value, (float, int, np.floating)):
        return value + sigma * backend.rng.standard_normal()
    return value + backend.normal(tuple(value.shape), scale=sigma, dtype=value.dtype)


def _noisy_argmax(backend, scores, sensitivity, epsilon, monotonic):
    xp = backend.xp
    if math.isinf(epsilon):
        return int(xp.argmax(scores))
    scale = epsilon / (sensitivity if monotonic else 2.0 * sensitivity)
    noise = backend.gumbel((scores.shape[0],), dtype=scores.dtype)
    return int(xp.argmax(scale * scores + noise))
