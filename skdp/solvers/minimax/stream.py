"""Streaming solvers of paper 003 for the one-group (average-risk) classifier.

Thin adapters from :class:`~skdp.solvers.losses.classification.LinearData` to
:func:`skdp.solvers.streaming.srgd.run_stream` (see :mod:`skdp.solvers.streaming.srgd` for the
algorithms and their privacy). They minimise the average logistic /
multinomial loss, so they need one group: the worst-group objective would
need private group weights (a max-player) that a single pass with one use per
example does not provide.
"""

import numpy as np

from ...privacy.release import Release
from .common import SolverResult, remaining_gdp
from ..streaming.srgd import STREAMING_SOLVERS, StreamOptions, run_stream
from ..streaming.problems import ClassificationProblem

__all__ = ["STREAM_SOLVERS"]


def _make(name):
    def solver(data, sizes, *, epsilon, delta, ledger, backend, radius=None, n_iter="auto",
               theory=False, verbose=0, options=None, state=None):
        if data.n_groups != 1:
            raise ValueError(f"solver={name!r} minimises the average risk (one group); "
                             "set group_by=None and pass no groups.")
        problem = ClassificationProblem(data)
        opts = StreamOptions.from_dict(name, options, lipschitz=problem.lipschitz,
                                       smoothness=problem.smoothness,
                                       curvature=problem.curvature, radius=radius,
                                       theory=theory, verbose=verbose)
        mu = state.mu if state is not None else remaining_gdp(ledger, epsilon, delta)
        state = run_stream(problem, opts, mu=mu, epsilon=epsilon, delta=delta,
                           release=Release(backend, ledger), state=state)
        coef, intercept = problem.coef(state.theta)
        return SolverResult(coef=coef, intercept=intercept, group_weights=np.ones(1),
                            n_iter=state.step, state=state)

    solver.__name__ = name
    solver.__doc__ = f"Streaming solver {name!r} (see :mod:`skdp.solvers.streaming.srgd`)."
    return solver


STREAM_SOLVERS = {name: _make(name) for name in STREAMING_SOLVERS}
