"""The paper-001 Goldstein solvers for PrivateMinimaxClassifier with ``loss='ramp'``.

The ramp loss is Lipschitz but neither smooth nor convex, so the classifier
fits it with the solvers of :mod:`skdp.solvers.goldstein.o2nc` (paper 001 Alg. 2
with Alg. 5, 3 or 4). They minimise the *group-balanced* risk
``(1/m) sum_g L_g(theta)``, i.e. per-sample losses weighted by
``c_i = n / (m N_g(i))`` with the public (or privately released) group sizes
``N_g``; the max over groups is not run (the weights are fixed and reported as
uniform ``group_weights``). The per-sample loss is then
``max_g c_g * lip * A``-Lipschitz (``lip`` = 1 binary, ``sqrt 2`` multiclass,
``A`` the augmented row bound), which is the anchor clip ``C1``, and
``Phi = 1`` (every ramp loss is 1 at ``theta = 0`` and >= 0).

Privacy: the budget left in the ledger (Gaussian mechanisms only, so exact
mu-GDP composition, Dong–Roth–Su Cor. 3.3) is ``rho = mu**2 / 2``-zCDP for
the solver, spent through the release path as the solvers of
:mod:`skdp.solvers.goldstein.o2nc` describe.
"""

import math

import numpy as np

from ..losses.classification import lipschitz, ramp_loss
from ...privacy.budget import Budget
from ...privacy.release import Release
from ..goldstein.o2nc import GOLDSTEIN_SOLVERS, GLMProblem, goldstein_config
from .common import SolverResult, remaining_gdp

__all__ = ["goldstein_classifier", "CLASSIFIER_OPTIONS"]

# Practical override for the (unpreconditioned) classifier: longer steps and the paper's
# largest smoothing radius alpha = Phi / L, picked on two synthetic validation tasks (a
# linear rule with 10% flipped labels; make_classification), 2 seeds, eps in {1, inf}.
# The ramp loss is flat where every margin is outside (0, 1): such regions are
# Goldstein-stationary, and a run can end in one (see the user guide).
CLASSIFIER_OPTIONS = dict(step_scale=4.0, radius_scale=1.0)


def _design(data):
    """``[s_i x_i, c]``: the clipped rows with the intercept feature."""
    xp = data.xp
    A = data.scale[:, None] * data.X
    if data.intercept_scale > 0:
        A = xp.concat([A, xp.full((data.n, 1), data.intercept_scale, dtype=A.dtype)], axis=1)
    return A


def goldstein_classifier(solver, data, sizes, *, epsilon, delta, ledger, backend,
                         goldstein_radius=None, n_iter="auto", theory=False, options=None,
                         verbose=0):
    """Fit ``W`` (k, p [+1]) by a paper-001 solver on the balanced ramp risk.

    Returns a :class:`~skdp.solvers.minimax.common.SolverResult` with the
    certificate and the resolved configuration.
    """
    xp = backend.xp
    m, k = data.n_groups, data.k
    sizes = np.asarray(sizes, dtype=float)
    mu = remaining_gdp(ledger, epsilon, delta)
    rho = math.inf if math.isinf(mu) else mu * mu / 2.0
    weights = data.n / (m * sizes)
    c = data.onehot @ backend.asarray(weights, dtype=data.X.dtype)
    A = _design(data)
    problem = GLMProblem(A, data.targets, ramp_loss, k, xp, weights=c)
    L = float(weights.max()) * lipschitz(k) * data.augmented_bound
    cfg = goldstein_config(solver, data.n, problem.d, epsilon, rho, L, 1.0,
                           radius=goldstein_radius,
                           max_iter=None if n_iter == "auto" else int(n_iter), theory=theory,
                           options={**({} if theory else CLASSIFIER_OPTIONS), **(options or {})},
                           dtype=A.dtype, verbose=verbose)
    w0 = xp.zeros(problem.d, dtype=A.dtype)
    budget = Budget(epsilon, delta, rho, release=Release(backend, ledger))
    result = GOLDSTEIN_SOLVERS[solver](problem, w0, cfg, budget, label=solver)
    W = xp.reshape(result.solution, (k, problem.p))
    coef = W[:, :data.p]
    intercept = (data.intercept_scale * W[:, data.p] if data.intercept_scale > 0
                 else xp.zeros(k, dtype=A.dtype))
    return SolverResult(coef=coef, intercept=intercept, group_weights=np.full(m, 1.0 / m),
                        n_iter=result.n_iter, certificate=result.info["certificate"],
                        config={k_: v for k_, v in vars(cfg).items() if k_ != "dtype"},
                        problem=problem, w=result.solution)
