"""A solver's own noise generator on the fit's budget: the same filter and ledger.

Some solvers split the fit's generator into independent streams (paper 001
draws data order, perturbations, loop draws and privacy noise from four
children, so that tests can couple neighbouring datasets).
Their privacy noise must still go through the release path:
:func:`drawing_from` gives them a :class:`~skdp.privacy.budget.Budget` that
draws from their noise stream and records in the fit's ledger, and charges
what it spent to the fit's budget when the solver is done.
"""

from contextlib import contextmanager

from .budget import Budget
from .release import Release

__all__ = ["drawing_from"]


@contextmanager
def drawing_from(budget, backend):
    """``budget``'s filter and ledger, drawing from ``backend``'s generator.

    Yields a :class:`~skdp.privacy.budget.Budget` holding what is left of
    ``budget`` (``budget.remaining``) whose releases draw from ``backend``
    and are recorded in ``budget``'s ledger; on exit its spend is added to
    ``budget.spent``. Composition is unchanged: the releases are the same
    mechanisms, charged to the same filter.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy.ledger import PrivacyLedger
    >>> fit = Backend.from_arrays(np.zeros(1), random_state=0)
    >>> budget = Budget(1.0, 1e-6, 0.5, release=Release(fit, PrivacyLedger()))
    >>> noise = Backend(fit.xp, fit.device, fit.rng.spawn(1)[0])
    >>> with drawing_from(budget, noise) as own:
    ...     _ = own.gaussian(np.zeros(3), 1.0, 2.0, label="mean")
    >>> budget.spent, len(budget.recorded().entries)
    (0.125, 1)
    """
    own = Budget(budget.epsilon, budget.delta, budget.remaining,
                 release=Release(backend, budget._release.ledger), mu=budget.mu,
                 exclusive=budget.exclusive)
    try:
        yield own
    finally:
        budget._filter.spent += own.spent
