"""Streaming solvers of paper 003 for the one-group (average-risk) classifier.

Thin adapters from :class:`~skdp.solvers.minimax.data.LinearData` to
:func:`skdp.solvers.streaming.srgd.run_stream` (see :mod:`skdp.solvers.streaming.srgd` for the
algorithms and their privacy). They minimise the average logistic /
multinomial loss, so they need one group: the worst-group objective would
need private group weights (a max-player) that a single pass with one use per
example does not provide.
"""

import numpy as np

from ..spec import SolverResult
from .problems import ClassificationProblem
from .srgd import STREAM_ALGORITHMS, StreamOptions, run_stream

__all__ = ["STREAM_CLASSIFIERS"]


def _classifier(name):
    def fit(problem, budget, options):
        """One pass of a paper-003 streaming solver, continuing ``problem.state``.

        A new stream, or a new pass over records read before (a state from
        :func:`~skdp.solvers.streaming.srgd.new_pass`), is ``budget.mu``-GDP,
        its mechanism opened on a share of ``budget``; a continued one
        keeps the stream's ``mu`` (its chunks hold disjoint records).
        ``options``: the resolved :data:`~skdp.solvers.streaming.srgd.STREAM_OPTIONS`.
        """
        data, state = problem.data, problem.state
        if data.n_groups != 1:
            raise ValueError(f"solver={name!r} minimises the average risk (one group); "
                             "set group_by=None and pass no groups.")
        glm = ClassificationProblem(data)
        opts = StreamOptions.from_dict(name, options, lipschitz=glm.lipschitz,
                                       smoothness=glm.smoothness, curvature=glm.curvature,
                                       radius=problem.radius, theory=problem.theory,
                                       verbose=problem.verbose)
        mu = state.mu if state is not None and state.mechanism is not None else budget.mu
        state = run_stream(glm, opts, mu=mu, epsilon=budget.epsilon, delta=budget.delta,
                           budget=budget, state=state)
        coef, intercept = glm.coef(state.theta)
        return SolverResult(solution=(coef, intercept), n_iter=state.step,
                            info=dict(group_weights=np.ones(1)), state=state)

    fit.__name__ = fit.__qualname__ = name
    return fit


STREAM_CLASSIFIERS = {name: _classifier(name) for name in STREAM_ALGORITHMS}
"""The streaming solvers as classifier solvers: ``fn(problem, budget, options)``."""
