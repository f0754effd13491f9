"""One-pass linear regression on noisy sufficient statistics: AdaSSP.

Wang 2018, "Revisiting differentially private linear regression: optimal and
adaptive prediction & estimation" (NeurIPS 2018), Algorithm 2 (AdaSSP),
Theorem 3: release ``X^T X``, ``X^T y`` and a lower bound on
``lambda_min(X^T X)`` with the Gaussian mechanism, and solve the ridge problem
with the adaptive ``lambda`` the released lower bound gives. Arrays only
(NumPy or any Array API namespace: ``linalg.eigvalsh`` and ``linalg.solve``).
"""

import math

from .spec import Option, SolverResult

__all__ = ["adassp", "ADASSP_OPTIONS"]

ADASSP_OPTIONS = (
    Option("failure_prob", "float", 0.05, low=0.0, high=1.0, low_open=True, high_open=True,
           doc="adassp: xi, the probability that the released lambda_min bound or the noise "
               "norm bound fails (Wang 2018's rho; only utility, never privacy)"),
)


def adassp(problem, budget, options):
    """AdaSSP (Wang 2018, Alg. 2, Thm 3) on the regressor's clipped design.

    The design ``D = [X, c 1]`` (rows of norm at most ``R``, ``R**2 =
    problem.config.row_sq``: the feature bound squared, plus ``c**2 = B**2``
    with the intercept column) and the clipped targets (``|y| <= C =
    problem.config.target_bound``) enter only through three Gaussian
    releases (Bun–Steinke 2016, Prop. 1.6: ``Delta**2 / (2 sigma**2)``-zCDP
    each), each of a third of ``budget.rho`` (Wang's equal split of
    epsilon), with l2 sensitivities under replace-one neighbours:

    - ``D^T D``: ``sqrt(2) R**2`` in Frobenius norm (``||a a^T - b b^T||_F**2
      = ||a||**4 + ||b||**4 - 2 (a.b)**2 <= 2 R**4``). The whole matrix is
      released and its upper triangle mirrored (post-processing: the noise
      is i.i.d. on the upper triangle and symmetric);
    - ``lambda_min(D^T D)``: ``R**2`` (Weyl: ``|lambda_min(A + E) -
      lambda_min(A)| <= ||E||_2`` and ``||a a^T - b b^T||_2 <= R**2``);
    - ``D^T y``: ``2 R C``.

    On a budget calibrated in Gaussian DP (``fit_budget``: ``rho = mu**2 /
    2``) the three compose to ``mu``-GDP exactly (Dong–Roth–Su 2022, Cor.
    3.3). What follows is post-processing of the releases and public
    quantities (``n``, ``p``, ``alpha``, ``xi = failure_prob``):
    ``lambda_min~ = max(lambda_min^ - sigma_1 sqrt(2 log(2/xi)), 0)`` (a lower
    bound with probability ``1 - xi/2``), ``lambda = max(sigma_G sqrt(p
    log(2 p**2 / xi)) - lambda_min~, 0)`` (Wang's rule: the noise matrix's
    spectral-norm bound, with ``sigma_G`` the noise of ``D^T D``), and ``w =
    (D^T D^ + (lambda + n alpha) I)^{-1} D^T y^`` (``alpha``: the
    estimator's ridge, ``F(w) = mean loss + alpha/2 ||w||**2``).
    """
    obj, cfg = problem.objective, problem.config
    xp, D, y = obj.xp, obj.X, obj.y
    if getattr(D, "P", None) is not None or not hasattr(D, "intercept"):
        raise RuntimeError("internal error: adassp needs the un-preconditioned in-memory design.")
    if cfg.row_sq is None or cfg.target_bound is None:
        raise RuntimeError("internal error: adassp needs the public row and target bounds.")
    X, c = D.X, D.intercept
    n, p = int(D.shape[0]), int(D.shape[1])
    row_sq, C = float(cfg.row_sq), float(cfg.target_bound)
    xi = float(options["failure_prob"])

    # the sufficient statistics of [X, c 1] without materialising the design
    G = X.T @ X
    b = X.T @ y
    if c is not None:
        col = c * xp.sum(X, axis=0)
        corner = xp.full((1, 1), c * c * n, dtype=X.dtype, device=_device(X))
        G = xp.concat([xp.concat([G, col[:, None]], axis=1),
                       xp.concat([col[None, :], corner], axis=1)], axis=0)
        b = xp.concat([b, xp.reshape(c * xp.sum(y), (1,))])

    third = budget.rho / 3.0
    sens_G, sens_min, sens_b = math.sqrt(2.0) * row_sq, row_sq, 2.0 * math.sqrt(row_sq) * C
    sigma_G, sigma_min, sigma_b = (budget.sigma(s, third) for s in (sens_G, sens_min, sens_b))

    lam_min = xp.reshape(xp.min(xp.linalg.eigvalsh(G)), (1,))
    lam_min = float(budget.gaussian(lam_min, sens_min, sigma_min,
                                    label="adassp lambda_min(X^T X)")[0])
    G_hat = budget.gaussian(G, sens_G, sigma_G, label="adassp X^T X")
    idx = xp.arange(p, device=_device(X))
    G_hat = xp.where(idx[:, None] <= idx[None, :], G_hat, G_hat.T)  # upper triangle, mirrored
    b_hat = budget.gaussian(b, sens_b, sigma_b, label="adassp X^T y")

    lam_tilde = max(lam_min - sigma_min * math.sqrt(2.0 * math.log(2.0 / xi)), 0.0)
    lam = max(sigma_G * math.sqrt(p * math.log(2.0 * p * p / xi)) - lam_tilde, 0.0)
    ridge = lam + n * float(obj.alpha)
    A = G_hat + ridge * xp.eye(p, dtype=G_hat.dtype, device=_device(X))
    try:
        w = xp.linalg.solve(A, b_hat[:, None])[:, 0]
    except ValueError:  # singular (a non-private fit without ridge): the minimum-norm solution
        w = xp.linalg.pinv(A) @ b_hat
    step = {"lambda": lam, "lambda_min_tilde": lam_tilde, "ridge": ridge, "sigma_xtx": sigma_G,
            "sigma_lambda_min": sigma_min, "sigma_xty": sigma_b}
    if cfg.verbose:
        print(f"adassp: lambda={lam:.4g} (lambda_min~={lam_tilde:.4g}), ridge={ridge:.4g}")
    return SolverResult(w, 1, [step], {"lambda": lam, "lambda_min_tilde": lam_tilde})


def _device(x):
    from .._backend import array_api_compat
    return array_api_compat.device(x)
