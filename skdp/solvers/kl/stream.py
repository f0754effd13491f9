"""Streaming solvers of paper 003 for :class:`~skdp.regression.KLAdaptiveRegressor`.

Thin adapter from the regressor's clipped design, loss and model to
:func:`skdp.solvers.streaming.srgd.run_stream` (algorithms and privacy:
:mod:`skdp.solvers.streaming.srgd`). Each example is used once, so the private
preconditioner (a second pass over the data) is not used.
"""

from ...privacy.release import Release
from ..streaming.srgd import STREAMING_SOLVERS, StreamOptions, run_stream
from ..streaming.problems import RegressionProblem

__all__ = ["stream_fit", "STREAMING_SOLVERS"]


def stream_fit(solver, X, y, loss, model, alpha, *, clip, smoothness, curvature, mu, epsilon,
               delta, ledger, backend, w0=None, theory=False, options=None, state=None,
               verbose=0):
    """One pass of ``solver`` over ``(X, y)``, continuing ``state``; returns the state.

    ``clip`` is the per-example gradient bound (the clip's scale and ``L``),
    ``smoothness`` the per-example ``M``, ``curvature`` the step scale;
    ``mu`` the GDP level of the whole stream.
    """
    problem = RegressionProblem(X, y, loss, model, alpha, backend.xp, clip=clip,
                                smoothness=smoothness, curvature=curvature, w0=w0)
    options = dict(options or {})
    radius = options.pop("radius", None)
    opts = StreamOptions.from_dict(solver, options, lipschitz=problem.lipschitz,
                                   smoothness=problem.smoothness, curvature=problem.curvature,
                                   radius=radius, theory=theory, verbose=verbose)
    return run_stream(problem, opts, mu=mu, epsilon=epsilon, delta=delta,
                      release=Release(backend, ledger), state=state)
