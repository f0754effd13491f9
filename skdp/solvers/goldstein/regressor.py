"""The paper-001 Goldstein solvers for :class:`~skdp.regression.KLAdaptiveRegressor`.

Thin adapter from the regressor's :class:`~skdp.solvers.kl.problem.KLProblem` (the clipped
design of a linear model, its loss, the public constants) to the solvers of
:mod:`skdp.solvers.goldstein.o2nc` (paper 001 Alg. 2 with Alg. 5, 3 or 4): the objective
as a :class:`~skdp.solvers.goldstein.oracles.GLMProblem` (``k = 1``), the constants
resolved from public bounds by :func:`~skdp.solvers.goldstein.config.goldstein_config`,
every release drawn through the solver's ``budget`` (``budget.rho``-zCDP, as
:mod:`skdp.solvers.goldstein.o2nc` describes).
"""

from ..kl.models import Design
from .config import goldstein_config
from .o2nc import GOLDSTEIN_SOLVERS
from .oracles import GLMProblem

__all__ = ["goldstein_solver", "regression_glm"]


def goldstein_solver(name):
    """``fn(problem, budget, options)`` of a paper-001 solver on the clipped design (linear
    model): its constants resolved from public bounds, its releases drawn through
    ``budget``; ``info`` holds the certificate and the resolved constants."""

    def fn(problem, budget, options):
        obj, cfg = problem.objective, problem.config
        glm = regression_glm(obj)
        given = {key: value for key, value in options.items()
                 if value is not None and key != "radius"}  # radius: cfg.radius
        gcfg = goldstein_config(
            name, obj.n, glm.d, budget.epsilon, budget.rho, cfg.clip, cfg.loss_bound,
            radius=cfg.radius, max_iter=cfg.max_iter, theory=cfg.theory, options=given,
            dtype=problem.w0.dtype, verbose=cfg.verbose)
        result = GOLDSTEIN_SOLVERS[name](glm, problem.w0, gcfg, budget, label=name)
        result.info["config"] = {k: v for k, v in vars(gcfg).items() if k != "dtype"}
        return result

    fn.__name__ = name
    return fn


def regression_glm(obj):
    """The regression objective as a :class:`~skdp.solvers.goldstein.oracles.GLMProblem`
    (k = 1)."""
    loss, xp = obj.loss, obj.xp

    def phi(Z, T, xp):
        return loss.value(Z[..., 0], T[..., 0], xp), loss.derivative(Z, T, xp)

    X = obj.X.dense() if isinstance(obj.X, Design) else obj.X
    return GLMProblem(X, xp.reshape(obj.y, (-1, 1)), phi, 1, xp, ridge=obj.alpha)
