"""Streaming solvers of paper 003 for :class:`~skdp.regression.KLAdaptiveRegressor`.

Thin adapter from the regressor's :class:`~skdp.solvers.kl.problem.KLProblem`
(clipped design, loss, model, public constants, the stream to continue) to
:func:`skdp.solvers.streaming.srgd.run_stream` (algorithms and privacy:
:mod:`skdp.solvers.streaming.srgd`). Each example is used once, so the private
preconditioner (a second pass over the data) is not used.
"""

from ..spec import SolverResult, deprecated_names
from .srgd import STREAM_ALGORITHMS, StreamOptions, run_stream
from .problems import RegressionProblem

__all__ = ["stream_solver"]

__getattr__ = deprecated_names(__name__, {
    "STREAMING_SOLVERS": (lambda: STREAM_ALGORITHMS,
                          "skdp.regression's solvers_with(SOLVER_SPECS, streaming=True)")})


def stream_solver(name):
    """``fn(problem, budget, options)`` running the paper-003 solver ``name``.

    One pass over ``problem.objective``'s rows, continuing ``problem.state``
    (None: a new stream from ``problem.w0``). ``config.clip`` is the
    per-example gradient bound (the clip's scale and ``L``),
    ``config.diff_clip`` the per-example ``M``, ``config.smoothness`` the step
    scale. The whole stream is one Gaussian mechanism at ``budget.mu``-GDP,
    recorded by a new stream on a share of ``budget``; so is each new pass
    over records read before (a state from
    :func:`~skdp.solvers.streaming.srgd.new_pass`). ``options``:
    ``STREAM_OPTIONS`` and ``radius``. The result's ``state`` is what
    ``partial_fit`` continues.
    """

    def fn(problem, budget, options):
        obj, cfg = problem.objective, problem.config
        stream = RegressionProblem(obj.X, obj.y, obj.loss, obj.model, obj.alpha, obj.xp,
                                   clip=cfg.clip, smoothness=cfg.diff_clip,
                                   curvature=cfg.smoothness, w0=problem.w0)
        options = dict(options)
        radius = options.pop("radius", None)
        opts = StreamOptions.from_dict(name, options, lipschitz=stream.lipschitz,
                                       smoothness=stream.smoothness, curvature=stream.curvature,
                                       radius=radius, theory=cfg.theory, verbose=cfg.verbose)
        state = run_stream(stream, opts, mu=budget.mu, epsilon=budget.epsilon,
                           delta=budget.delta, budget=budget, state=problem.state)
        return SolverResult(solution=state.theta, n_iter=state.step, state=state)

    fn.__name__ = name
    return fn
