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
           doc="adassp with theory=True: xi, the probability that the released lambda_min bound "
               "or the noise norm bound fails (Wang 2018's rho; only utility, never privacy)"),
    Option("ridge_scale", "float", 2.0, low=0.0, low_open=True,
           doc="adassp: the ridge is ridge_scale * sigma * sqrt(p), sigma the noise of X^T X "
               "(about the noise matrix's spectral norm at 2); chosen on the real-table "
               "suite's validation split; theory=True uses Wang's lambda_min rule instead"),
    Option("intercept_scale", "float", 0.5, low=0.0, low_open=True,
           doc="adassp: the intercept column's constant as a fraction of the design's "
               "(feature_bound): a smaller one lowers every sensitivity; chosen on the "
               "real-table suite's validation split (theory=True: 1)"),
)


def adassp(problem, budget, options):
    """AdaSSP (Wang 2018, Alg. 2, Thm 3) on the regressor's clipped design.

    The design ``D = [X, c' 1]`` (``X``'s rows of norm at most ``B``, the
    clipped targets ``|y| <= C = problem.config.target_bound``; ``c' =
    intercept_scale * c`` with ``c`` the regressor's intercept constant, so
    rows of ``D`` have norm at most ``R``, ``R**2 = B**2 + c'**2``) enters
    only through Gaussian releases (Bun–Steinke 2016, Prop. 1.6:
    ``Delta**2 / (2 sigma**2)``-zCDP each) with l2 sensitivities under
    replace-one neighbours:

    - ``D^T D``: ``sqrt(2) R**2`` in Frobenius norm (``||a a^T - b b^T||_F**2
      = ||a||**4 + ||b||**4 - 2 (a.b)**2 <= 2 R**4``). The whole matrix is
      released and its upper triangle mirrored (post-processing: the noise
      is i.i.d. on the upper triangle and symmetric);
    - ``D^T y``: ``2 R C``;
    - with ``theory=True`` only, ``lambda_min(D^T D)``: ``R**2`` (Weyl:
      ``|lambda_min(A + E) - lambda_min(A)| <= ||E||_2`` and ``||a a^T - b
      b^T||_2 <= R**2``).

    Each release gets an equal share of ``budget.rho`` (a half each; a third
    each with ``theory=True``, Wang's split of epsilon); on a budget
    calibrated in Gaussian DP (``fit_budget``: ``rho = mu**2 / 2``) they
    compose to ``mu``-GDP exactly (Dong–Roth–Su 2022, Cor. 3.3). What
    follows is post-processing of the releases and public quantities (``n``,
    ``p``, ``alpha``, the options): ``w = (D^T D^ + (lambda + n alpha)
    I)^{-1} D^T y^`` (``alpha``: the estimator's ridge, ``F(w) = mean loss +
    alpha/2 ||w||**2``), the intercept coefficient mapped back to the
    column ``c 1``. The ridge ``lambda``:

    - default: ``ridge_scale * sigma_G sqrt(p)`` with ``sigma_G`` the noise
      of ``D^T D`` (the spectral norm of its symmetric noise matrix is
      about ``2 sigma_G sqrt(p)``); ``ridge_scale = 2`` and
      ``intercept_scale = 0.5`` were chosen on the real-table suite's
      validation split (``benchmarks/RESULTS.md``, issue 31): better than
      Wang's rule on every table of 1,800 rows or more at epsilon 0.5, 1
      and 5, and it spends nothing on ``lambda_min``;
    - ``theory=True`` (Wang's Alg. 2 as published, ``intercept_scale`` 1):
      ``lambda_min~ = max(lambda_min^ - sigma_1 sqrt(2 log(2/xi)), 0)`` (a
      lower bound with probability ``1 - xi/2``) and ``lambda =
      max(sigma_G sqrt(p log(2 p**2 / xi)) - lambda_min~, 0)`` (the noise
      matrix's spectral-norm bound), ``xi = failure_prob``.
    """
    obj, cfg = problem.objective, problem.config
    xp, D, y = obj.xp, obj.X, obj.y
    if getattr(D, "P", None) is not None or not hasattr(D, "intercept"):
        raise RuntimeError("internal error: adassp needs the un-preconditioned in-memory design.")
    if cfg.row_sq is None or cfg.target_bound is None:
        raise RuntimeError("internal error: adassp needs the public row and target bounds.")
    theory = bool(cfg.theory)
    X, c = D.X, D.intercept
    if getattr(D, "scale", None) is not None:  # rows beyond the bound: clipped here (a copy)
        X = X * D.scale[:, None]
    n, p = int(D.shape[0]), int(D.shape[1])
    scale = 1.0 if (theory or c is None) else float(options["intercept_scale"])
    c_new = None if c is None else c * scale
    row_sq = float(cfg.row_sq) - (0.0 if c is None else c * c * (1.0 - scale * scale))
    C = float(cfg.target_bound)
    G, b = _statistics(X, y, c_new, xp)

    share = budget.rho / (3.0 if theory else 2.0)
    sens_G, sens_b = math.sqrt(2.0) * row_sq, 2.0 * math.sqrt(row_sq) * C
    sigma_G, sigma_b = budget.sigma(sens_G, share), budget.sigma(sens_b, share)
    step = {"sigma_xtx": sigma_G, "sigma_xty": sigma_b, "intercept_column": c_new}
    if theory:
        lam = _wang_ridge(G, p, row_sq, sigma_G, share, budget, float(options["failure_prob"]),
                          step, xp)
    else:
        lam = float(options["ridge_scale"]) * sigma_G * math.sqrt(p)
    G_hat = budget.gaussian(G, sens_G, sigma_G, label="adassp X^T X")
    idx = xp.arange(p, device=_device(X))
    G_hat = xp.where(idx[:, None] <= idx[None, :], G_hat, G_hat.T)  # upper triangle, mirrored
    b_hat = budget.gaussian(b, sens_b, sigma_b, label="adassp X^T y")

    ridge = lam + n * float(obj.alpha)
    A = G_hat + ridge * xp.eye(p, dtype=G_hat.dtype, device=_device(X))
    if c is not None and scale != 1.0:  # alpha's penalty on the design's intercept coefficient
        last = xp.astype(idx == p - 1, G_hat.dtype)
        A = A - n * float(obj.alpha) * (1.0 - scale * scale) * (last[:, None] * last[None, :])
    try:
        w = xp.linalg.solve(A, b_hat[:, None])[:, 0]
    except ValueError:  # singular (a non-private fit without ridge): the minimum-norm solution
        w = xp.linalg.pinv(A) @ b_hat
    if c is not None and scale != 1.0:  # the coefficient of c' 1 as that of the design's c 1
        w = xp.concat([w[:-1], w[-1:] * scale])
    step.update({"lambda": lam, "ridge": ridge})
    if cfg.verbose:
        print(f"adassp: lambda={lam:.4g}, ridge={ridge:.4g}")
    info = {"lambda": lam}
    if theory:
        info["lambda_min_tilde"] = step["lambda_min_tilde"]
    return SolverResult(w, 1, [step], info)


def _statistics(X, y, c, xp):
    """``D^T D`` and ``D^T y`` of ``D = [X, c 1]`` without materialising ``D``."""
    G, b = X.T @ X, X.T @ y
    if c is None:
        return G, b
    n = int(X.shape[0])
    col = c * xp.sum(X, axis=0)
    corner = xp.full((1, 1), c * c * n, dtype=X.dtype, device=_device(X))
    G = xp.concat([xp.concat([G, col[:, None]], axis=1),
                   xp.concat([col[None, :], corner], axis=1)], axis=0)
    return G, xp.concat([b, xp.reshape(c * xp.sum(y), (1,))])


def _wang_ridge(G, p, row_sq, sigma_G, share, budget, xi, step, xp):
    """Wang 2018 Alg. 2's ridge from a released lower bound on ``lambda_min(D^T D)``."""
    sigma_min = budget.sigma(row_sq, share)
    lam_min = xp.reshape(xp.min(xp.linalg.eigvalsh(G)), (1,))
    lam_min = float(budget.gaussian(lam_min, row_sq, sigma_min,
                                    label="adassp lambda_min(X^T X)")[0])
    lam_tilde = max(lam_min - sigma_min * math.sqrt(2.0 * math.log(2.0 / xi)), 0.0)
    step.update({"sigma_lambda_min": sigma_min, "lambda_min_tilde": lam_tilde})
    return max(sigma_G * math.sqrt(p * math.log(2.0 * p * p / xi)) - lam_tilde, 0.0)

def _device(x):
    from .._backend import array_api_compat
    return array_api_compat.device(x)
