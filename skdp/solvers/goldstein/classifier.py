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
the solver (``budget.rho``), spent through the release path as the solvers of
:mod:`skdp.solvers.goldstein.o2nc` describe.
"""

from dataclasses import replace

import numpy as np

from ..._backend import array_api_compat
from .config import GOLDSTEIN_OPTIONS, goldstein_config
from .o2nc import GOLDSTEIN_SOLVERS
from .oracles import GLMProblem
from ..losses.classification import lipschitz, ramp_loss
from ..spec import SolverResult

__all__ = ["GOLDSTEIN_CLASSIFIERS", "CLASSIFIER_OPTIONS", "CLASSIFIER_GOLDSTEIN_OPTIONS"]

# Practical override for the (unpreconditioned) classifier: longer steps and the paper's
# largest smoothing radius alpha = Phi / L, picked on two synthetic validation tasks (a
# linear rule with 10% flipped labels; make_classification), 2 seeds, eps in {1, inf}.
# The ramp loss is flat where every margin is outside (0, 1): such regions are
# Goldstein-stationary, and a run can end in one (see the user guide).
CLASSIFIER_OPTIONS = dict(step_scale=4.0, radius_scale=1.0)

_OWN_DEFAULTS = {"radius_scale": "None: 1.0, or 0.1 with theory=True",
                 "step_scale": "None: 4.0; theory=True uses the paper's step"}


def _own_default(option):
    if option.name not in _OWN_DEFAULTS:
        return option
    return replace(option, default=None, none_ok=True,
                   doc=f"{option.doc} ({_OWN_DEFAULTS[option.name]})")


CLASSIFIER_GOLDSTEIN_OPTIONS = tuple(_own_default(o) for o in GOLDSTEIN_OPTIONS)
"""The paper-001 options as the classifier takes them: :data:`CLASSIFIER_OPTIONS` are the
defaults of ``radius_scale`` and ``step_scale`` (none with ``theory=True``)."""


def _design(data):
    """``[s_i x_i, c]``: the clipped rows with the intercept feature."""
    xp = data.xp
    A = data.scale[:, None] * data.X
    if data.intercept_scale > 0:
        A = xp.concat([A, xp.full((data.n, 1), data.intercept_scale, dtype=A.dtype,
                                  device=array_api_compat.device(A))], axis=1)
    return A


def _classifier(solver):
    def fit(problem, budget, options):
        """Fit ``W`` (k, p [+1]) by a paper-001 solver on the balanced ramp risk.

        ``budget.rho`` is the solver's zCDP budget; ``options`` the resolved
        :data:`CLASSIFIER_GOLDSTEIN_OPTIONS` (None: the classifier's default).
        Returns a :class:`~skdp.solvers.spec.SolverResult` whose ``info``
        holds the uniform ``group_weights``, the ``certificate`` and the
        resolved ``config``.
        """
        data = problem.data
        xp = budget.backend.xp
        m, k = data.n_groups, data.k
        sizes = np.asarray(problem.sizes, dtype=float)
        weights = data.n / (m * sizes)
        c = data.onehot @ budget.backend.asarray(weights, dtype=data.X.dtype)
        A = _design(data)
        glm = GLMProblem(A, data.targets, ramp_loss, k, xp, weights=c)
        L = float(weights.max()) * lipschitz(k) * data.augmented_bound
        given = {key: value for key, value in options.items() if value is not None}
        n_iter = problem.n_iter
        cfg = goldstein_config(
            solver, data.n, glm.d, budget.epsilon, budget.rho, L, 1.0,
            radius=problem.goldstein_radius, max_iter=None if n_iter == "auto" else int(n_iter),
            theory=problem.theory,
            options={**({} if problem.theory else CLASSIFIER_OPTIONS), **given},
            dtype=A.dtype, verbose=problem.verbose)
        w0 = xp.zeros(glm.d, dtype=A.dtype, device=budget.backend.device)
        result = GOLDSTEIN_SOLVERS[solver](glm, w0, cfg, budget, label=solver)
        W = xp.reshape(result.solution, (k, glm.p))
        coef = W[:, :data.p]
        intercept = (data.intercept_scale * W[:, data.p] if data.intercept_scale > 0
                     else xp.zeros(k, dtype=A.dtype, device=budget.backend.device))
        config = {key: value for key, value in vars(cfg).items() if key != "dtype"}
        return SolverResult(solution=(coef, intercept), n_iter=result.n_iter,
                            history=result.history,
                            info=dict(group_weights=np.full(m, 1.0 / m),
                                      certificate=result.info["certificate"], config=config))

    fit.__name__ = fit.__qualname__ = solver
    return fit


GOLDSTEIN_CLASSIFIERS = {name: _classifier(name) for name in GOLDSTEIN_SOLVERS}
"""The paper-001 solvers as classifier solvers: ``fn(problem, budget, options)``."""
