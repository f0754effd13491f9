"""One-pass linear regression on noisy sufficient statistics: AdaSSP.

Wang 2018, "Revisiting differentially private linear regression: optimal and
adaptive prediction & estimation" (NeurIPS 2018), Algorithm 2 (AdaSSP),
Theorem 3: release ``X^T X``, ``X^T y`` and a lower bound on
``lambda_min(X^T X)`` with the Gaussian mechanism, and solve the ridge problem
with the adaptive ``lambda`` the released lower bound gives. Arrays only
(NumPy or any Array API namespace: ``linalg.eigvalsh`` and ``linalg.solve``).
"""

import math

import numpy as np

from ..privacy.sampling import bernoulli_rows
from .shared.arrays import column_sums
from .shared.subsampling import AUTO_ROWS_REGRESSOR
from .spec import Option, SolverResult

AUTO_SSP_RATIO = 100.0  # auto runs ssp where rows * mu >= AUTO_SSP_RATIO * n_features**1.5

__all__ = ["adassp", "ADASSP_OPTIONS", "ssp", "SSP_OPTIONS", "RESIDUAL_GRID", "AUTO_SSP_RATIO",
           "ssp_applies"]

RESIDUAL_GRID = 13  # ssp's residual clip: target_bound * 2**(-k/2), k < RESIDUAL_GRID
QUANTILE_ROWS = 100_000  # ssp's residual quantile reads at most this many rows (a public subset)
# X's column counts at which ssp's residuals read X in transposed blocks (issue 31): BLAS's row
# kernel (X @ w, X C-contiguous) takes 6-7 ns a row at 3 columns; at 1, 2 and 4 it has faster
# paths than the blocks (measured, benchmarks/RESULTS.md)
BLOCKED_WIDTHS = frozenset({3})
BLOCK_BYTES = 1 << 19  # those blocks' size

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


def _checked(problem, name):
    """The problem's objective and config, after checking what a sufficient-statistics
    solver needs: the un-preconditioned in-memory design and public row / target bounds."""
    obj, cfg = problem.objective, problem.config
    if getattr(obj.X, "P", None) is not None or not hasattr(obj.X, "intercept"):
        raise RuntimeError(f"internal error: {name} needs the un-preconditioned in-memory design.")
    if cfg.row_sq is None or cfg.target_bound is None:
        raise RuntimeError(f"internal error: {name} needs the public row and target bounds.")
    return obj, cfg


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
    obj, cfg = _checked(problem, "adassp")
    xp, D, y = obj.xp, obj.X, obj.y
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


SSP_OPTIONS = (
    ADASSP_OPTIONS[2],
    Option("floor_scale", "float", 3.0, low=0.0, low_open=True,
           doc="ssp: the released X^T X's eigenvalues are floored at floor_scale * sigma * "
               "sqrt(p) (sigma its noise; the noise matrix's spectral norm is about 2 sigma "
               "sqrt(p)), in place of a ridge on every direction; chosen on the real-table "
               "suite's validation split"),
    Option("refine_steps", "int", 2, low=0, high=4,
           doc="ssp: private refinement steps (each one Gaussian release of X^T r, r the "
               "residuals clipped at a private quantile)"),
    Option("xtx_share", "float", 0.4, low=0.0, high=1.0, low_open=True, high_open=True,
           doc="ssp: share of the budget (after the quantile's) to X^T X; X^T y and each "
               "refinement step share the rest evenly"),
    Option("quantile_share", "float", 0.05, low=0.0, high=1.0, low_open=True, high_open=True,
           doc="ssp: share of the budget to the residuals' private quantile (with "
               "refine_steps > 0)"),
    Option("residual_quantile", "float", 0.95, low=0.0, high=1.0, low_open=True,
           high_open=True, doc="ssp: the quantile of |residual| the refinement clips at"),
)


def ssp_applies(rows, n_features, mu):
    """Whether the regressor's ``solver='auto'`` runs :func:`ssp` on a private, in-memory
    linear least-squares fit of ``rows`` rows, ``n_features`` columns at ``mu``-GDP (all
    public): from ``AUTO_ROWS_REGRESSOR = 5e4`` rows (where ``dpsgd_poisson`` takes over from
    the full-pass solvers) and where ``rows * mu >= AUTO_SSP_RATIO * n_features**1.5``.

    The second condition compares the signal of ``X^T X`` (its eigenvalues grow as ``rows /
    n_features`` for rows of bounded norm) with the floor ``3 sigma sqrt(p)`` (``sigma``
    proportional to ``1 / mu``): below it the floor covers the signal's directions and
    ``ssp`` shrinks them. ``AUTO_SSP_RATIO = 100`` was chosen on measurements
    (``benchmarks/RESULTS.md``, issue 31 item 1, fourth part): ``ssp`` within 0.0003 R^2 of
    ``dpsgd_poisson`` on the suite's flights table (validation split) from 5e4 rows, and
    within 0.0001 on generated data at ratios 90 to 240, 0.0003 to 0.0006 behind at 47 to 75.

    Examples
    --------
    >>> ssp_applies(10**6, 100, 0.2367), ssp_applies(10**5, 1000, 0.2367)
    (True, False)
    >>> ssp_applies(49_999, 3, 5.0)
    False
    """
    return rows >= AUTO_ROWS_REGRESSOR and rows * mu >= AUTO_SSP_RATIO * n_features ** 1.5


def ssp(problem, budget, options):
    """Sufficient statistics with an eigenvalue floor and private refinement steps (issue 31).

    AdaSSP's releases (Wang 2018, Alg. 2; :func:`adassp`) on the same design ``D = [X, c'
    1]`` (rows of norm at most ``R``, ``R**2 = B**2 + c'**2``; ``|y| <= C``), then a
    Gaussian release of the gradient at the first solution, the classic iterative
    refinement of a linear solve. Every release is a Gaussian mechanism (Bun–Steinke 2016,
    Prop. 1.6: ``Delta**2 / (2 sigma**2)``-zCDP, i.e. ``Delta / sigma``-GDP) with its
    l2 sensitivity under replace-one neighbours, in this order:

    1. ``D^T D`` (``sqrt(2) R**2``, Frobenius; upper triangle mirrored) at ``xtx_share``
       of ``rho_rest``, and ``D^T y`` (``2 R C``) at ``(1 - xtx_share) / (1 +
       refine_steps)`` of ``rho_rest``. First solution ``w_0 = A^{-1} b^`` with ``A =
       floor(G^) + n alpha I``: ``G^``'s eigenvalues raised to ``tau = floor_scale *
       sigma_G sqrt(p)`` (post-processing; a ridge only where the noise, whose spectral
       norm is about ``2 sigma_G sqrt(p)``, could make ``G^`` singular, not on the
       well-determined directions, which a ridge ``lambda I`` biases);
    2. with ``refine_steps >= 1``: the residuals ``r_i = y_i - d_i.w_0`` (``w_0`` is
       post-processing of step 1's releases, so ``r_i`` depends on row ``i`` and
       released values only), the ``residual_quantile`` quantile of ``|r_i|`` on the grid
       ``C 2**(-k/2)``, ``k < RESIDUAL_GRID`` (:func:`~skdp.privacy.quantile.
       private_quantile`: one Gaussian histogram, sensitivity ``sqrt(2)``) at
       ``quantile_share`` of ``rho``, whose value ``tau_r`` clips the residuals. Above
       ``QUANTILE_ROWS`` rows the histogram counts a random subset of them: each row kept
       independently with probability ``QUANTILE_ROWS / n`` (Poisson sampling,
       :func:`~skdp.privacy.sampling.bernoulli_rows`; about ``QUANTILE_ROWS`` rows, the
       size Binomial), drawn from the public generator before and independently of the
       data. It stays DP: given the subset (a public value), the histogram is the
       Gaussian mechanism on the subset's rows, and neighbouring tables give
       neighbouring subsets (replacing one record changes at most one counted value, so
       the sensitivity is unchanged; the fractions are over the subset's size, which is
       public); the guarantee holds for every subset, hence on the table. No
       amplification by subsampling is claimed. (Since issue 31 the subset is Poisson,
       not ``Generator.choice`` of exactly ``QUANTILE_ROWS``: another public subset, so
       other released values for the same seed, at a fifth of the cost.)
    3. per step ``t``: ``D^T clip(r, tau_r)`` (``2 R tau_r``: one row moves it by at
       most ``||d_i|| tau_r + ||d'_i|| tau_r``) at the same share as ``D^T y``, and
       ``w_{t+1} = w_t + A^{-1} g^_t`` (post-processing; the same ``A``).

    ``rho_rest = (1 - quantile_share) rho`` (``rho`` without refinement). The shares sum
    to ``rho``; on a budget calibrated in Gaussian DP (``fit_budget``, ``rho = mu**2 /
    2``) the releases compose to ``mu``-GDP exactly (Dong–Roth–Su 2022, Cor. 3.3; each
    release's noise is fixed by public shares, its sensitivity by public or released
    values: ``tau_r``), i.e. ``(epsilon, delta)``-DP. The intercept column and ``alpha``
    as in :func:`adassp`. Not private (``epsilon = inf``): the exact ridge (or
    minimum-norm least squares) solution, no refinement.
    """
    from .kl.models import Design

    obj, cfg = _checked(problem, "ssp")
    xp, D, y = obj.xp, obj.X, obj.y
    c = D.intercept
    n, p = int(D.shape[0]), int(D.shape[1])
    scale = 1.0 if c is None else float(options["intercept_scale"])
    c_new = None if c is None else c * scale
    # the design [X, c' 1] as an operator on the user's X: rows beyond the bound are scaled
    # on the fly (no copy of X)
    Dn = Design(D.X, c_new, None, xp, getattr(D, "scale", None))
    row_sq = float(cfg.row_sq) - (0.0 if c is None else c * c * (1.0 - scale * scale))
    R, C = math.sqrt(row_sq), float(cfg.target_bound)
    private = budget.private
    steps = int(options["refine_steps"]) if private else 0
    rho_q = float(options["quantile_share"]) * budget.rho if steps else 0.0
    rest = budget.rho - rho_q
    rho_G = float(options["xtx_share"]) * rest
    rho_b = (rest - rho_G) / (1 + steps)
    work = _work_array(Dn, y)  # one (n,) array for y's scaled copy, then every residual
    if _blocked(Dn, y):
        G, b = _small_d_statistics(Dn, y)
    else:
        G, b = _gram(Dn, xp), _rmatmul_targets(Dn, y, work, xp)
    sens_G, sens_b = math.sqrt(2.0) * row_sq, 2.0 * R * C
    sigma_G, sigma_b = budget.sigma(sens_G, rho_G), budget.sigma(sens_b, rho_b)
    tau = float(options["floor_scale"]) * sigma_G * math.sqrt(p)
    step = {"sigma_xtx": sigma_G, "sigma_xty": sigma_b, "intercept_column": c_new,
            "floor": tau}
    G_hat = budget.gaussian(G, sens_G, sigma_G, label="ssp X^T X")
    dev = _device(D.X)
    idx = xp.arange(p, device=dev)
    G_hat = xp.where(idx[:, None] <= idx[None, :], G_hat, G_hat.T)  # upper triangle, mirrored
    b_hat = budget.gaussian(b, sens_b, sigma_b, label="ssp X^T y")
    if tau > 0:
        evals, V = xp.linalg.eigh(G_hat)
        G_hat = (V * xp.maximum(evals, xp.asarray(tau, dtype=evals.dtype, device=dev))) @ V.T
    A = G_hat + n * float(obj.alpha) * xp.eye(p, dtype=G_hat.dtype, device=dev)
    if c is not None and scale != 1.0:  # alpha's penalty on the design's intercept coefficient
        last = xp.astype(idx == p - 1, G_hat.dtype)
        A = A - n * float(obj.alpha) * (1.0 - scale * scale) * (last[:, None] * last[None, :])
    w = _solve(A, b_hat, xp)
    history = [step]
    if steps:
        from ..privacy.quantile import private_quantile

        grid = [C * 2.0 ** (-k / 2.0) for k in reversed(range(RESIDUAL_GRID))]
        r = _residuals(y, Dn, w, xp, out=work)
        sub = r
        if n > QUANTILE_ROWS:  # a public random subset (drawn independently of the data)
            pick = bernoulli_rows(budget.backend.public_rng, n, QUANTILE_ROWS / n)
            sub = xp.take(r, budget.backend.asarray(pick), axis=0)
        tau_r, _ = private_quantile(xp.abs(sub), float(options["residual_quantile"]), grid,
                                    budget, rho_q, label="ssp |residual| histogram")
        step["residual_clip"] = tau_r
        sens_r = 2.0 * R * tau_r
        sigma_r = budget.sigma(sens_r, rho_b)
        for t in range(steps):
            if t:  # written over the last residuals (one (n,) array at a time)
                r = _residuals(y, Dn, w, xp, out=r)
            g = _rmatmul_own(Dn, _clip_own(r, tau_r, xp), xp)
            g_hat = budget.gaussian(g, sens_r, sigma_r, label="ssp X^T r (refinement)")
            w = w + _solve(A, g_hat, xp)
            history.append({"sigma_xtr": sigma_r, "residual_clip": tau_r})
    if c is not None and scale != 1.0:  # the coefficient of c' 1 as that of the design's c 1
        w = xp.concat([w[:-1], w[-1:] * scale])
    if cfg.verbose:
        print(f"ssp: floor={tau:.4g}, refinement steps={steps}")
    info = {"floor": tau, "residual_clip": step.get("residual_clip")}
    return SolverResult(w, 1 + steps, history, info)


def _gram(D, xp):
    """``[X, c 1]^T [X, c 1]`` of a :class:`~skdp.solvers.kl.models.Design` without ``P``, the
    rows beyond the bound scaled by their factors ``s_i`` (``D.scale``) without a copy of X:
    ``X^T X`` plus the correction ``X_b^T diag(s_b**2 - 1) X_b`` over those rows only."""
    from .kl.models import second_moment_block

    G = second_moment_block({"X": D.X}, None, 1)
    s = D.scale
    if s is not None:
        rows = xp.nonzero(s < 1)[0]
        Xb, sb = xp.take(D.X, rows, axis=0), xp.take(s, rows, axis=0)
        G = G + (Xb * (sb * sb - 1)[:, None]).T @ Xb
    if D.intercept is None:
        return G
    sums = column_sums(D.X, xp) if s is None else s @ D.X
    return _with_intercept(G, sums, D.intercept, D.shape[0], xp)


def _with_intercept(G, sums, c, n, xp):
    """``[X, c 1]^T [X, c 1]`` from ``G = X^T X`` and ``X``'s column sums ``sums``."""
    col = c * sums
    corner = xp.full((1, 1), c * c * n, dtype=G.dtype, device=_device(G))
    return xp.concat([xp.concat([G, col[:, None]], axis=1),
                      xp.concat([col[None, :], corner], axis=1)], axis=0)


def _blocked(D, y):
    """Whether ``ssp`` reads the design in transposed blocks (:func:`_small_d_statistics`,
    :func:`_small_d_residuals`): NumPy arrays of one dtype, no ``P``, a C-contiguous ``X``
    of ``BLOCKED_WIDTHS`` columns."""
    return _own_arrays(D, y) and D.d in BLOCKED_WIDTHS and D.X.flags.c_contiguous


def _small_d_statistics(D, y):
    """:func:`_gram` and :func:`_rmatmul_targets` of the design (:func:`_blocked`) in one
    pass, in blocks of about ``BLOCK_BYTES``: each block's rows copied transposed into one
    buffer and scaled by their factors there (the clipped rows ``s_i x_i``), then the block's
    ``X_b^T X_b``, its column sums (with an intercept) and ``X_b^T y_b`` added to the totals
    while it is in cache (``X^T X`` of a C-contiguous ``X`` of 3 columns costs about 7 ms at
    1e6 rows, and the two products read ``X`` twice more: issue 31, ``benchmarks/RESULTS.md``,
    "1e6 x 3, the regressor's residual passes and the classifier's second scan"). The same
    sums added in another order: equal up to rounding."""
    X, s, d, c = D.X, D.scale, D.d, D.intercept
    G, b, sums = (np.zeros((d, d), dtype=X.dtype), np.zeros(d, dtype=X.dtype),
                  np.zeros(d, dtype=X.dtype))
    for rows, block in _transposed_blocks(X):
        if s is not None:
            np.multiply(block, s[rows], out=block)
        G += block @ block.T
        b += block @ y[rows]
        if c is not None:
            sums += np.sum(block, axis=1)
    if c is None:
        return G, b
    G = _with_intercept(G, sums, c, int(X.shape[0]), np)
    return G, np.concatenate([b, np.reshape(c * np.sum(y), (1,))])


def _transposed_blocks(X):
    """``(rows, block)`` over ``X`` in blocks of about ``BLOCK_BYTES``: each block of rows
    copied transposed (``d`` rows) into one reused buffer (:func:`_small_d_statistics`,
    :func:`_small_d_residuals`)."""
    n, d = int(X.shape[0]), int(X.shape[1])
    step = max(1, BLOCK_BYTES // (max(d, 1) * X.itemsize))
    cols = np.empty((d, min(step, n)), dtype=X.dtype)
    for start in range(0, n, step):
        rows = slice(start, min(start + step, n))
        block = cols[:, :rows.stop - start]
        np.copyto(block, X[rows].T)
        yield rows, block


def _own_arrays(D, y):
    """Whether ``ssp`` computes on ``y`` and ``D``'s arrays in (n,) arrays of its own: NumPy
    arrays of one dtype, no ``P``."""
    return (isinstance(D.X, np.ndarray) and isinstance(y, np.ndarray) and D.P is None
            and D.X.dtype == y.dtype)


def _work_array(D, y):
    """An uninitialised (n,) array of ``y``'s dtype for :func:`_rmatmul_targets` and then
    :func:`_residuals` to write into (NumPy, rows scaled by factors), else None (the first
    residuals make their own array). One array written several times instead of several
    fresh ones: about 5 ms of a 58 ms first fit at 1e6 x 3 float64 (issue 31,
    ``benchmarks/RESULTS.md``)."""
    return np.empty_like(y) if _own_arrays(D, y) and D.scale is not None else None


def _rmatmul_targets(D, y, out, xp):
    """``D.rmatmul(y)``, the product ``y * scale`` written into ``out`` (an (n,) array of the
    solver's own, :func:`_work_array`) where there is one: the same elementwise products and
    the same ``@`` (the intercept's entry sums ``y`` itself, as ``rmatmul``)."""
    if out is None:
        return D.rmatmul(y)
    A = np.multiply(y, D.scale, out=out) @ D.X
    if D.intercept is None:
        return A
    return xp.concat([A, xp.reshape(D.intercept * xp.sum(y, axis=-1), (1,))], axis=-1)


def _residuals(y, D, w, xp, out=None):
    """``y - D @ w`` (``D`` a :class:`~skdp.solvers.kl.models.Design` without ``P``): on
    NumPy, in one (n,) array (the design's products and the subtraction in place: the same
    elementwise operations in the same order, so the same numbers, without the two
    temporaries of the expression), written into ``out`` where given (an (n,) array of the
    solver's own: the last residuals or :func:`_work_array`); at ``BLOCKED_WIDTHS`` columns
    (C-contiguous) by :func:`_small_d_residuals` (equal up to rounding); elsewhere the
    expression itself."""
    X = D.X
    if not (_own_arrays(D, y) and isinstance(w, np.ndarray) and X.dtype == w.dtype):
        return y - D @ w
    if _blocked(D, y):
        return _small_d_residuals(y, D, w, np.empty_like(y) if out is None else out)
    r = np.matmul(X, w[:D.d], out=out)
    if D.scale is not None:
        np.multiply(D.scale, r, out=r)
    if D.intercept is not None:
        r += D.intercept * w[D.d]
    return np.subtract(y, r, out=r)


def _small_d_residuals(y, D, w, r):
    """:func:`_residuals` (NumPy, C-contiguous ``X`` of ``BLOCKED_WIDTHS`` columns) written
    into ``r``, in blocks of about ``BLOCK_BYTES``: each block of ``X`` is copied transposed
    (``d`` rows) into one buffer and multiplied by BLAS's column kernel (``w @ X_b^T``), then
    the block's factor, intercept and subtraction are applied while it is in cache. At 1e6 x
    3 a residual pass takes about 4-5 ms this way against 6-7 by ``X @ w`` (issue 31,
    ``benchmarks/RESULTS.md``, "1e6 x 3, the regressor's residual passes and the
    classifier's second scan"). The dot products may be rounded in another order: the
    residuals equal the expression's up to rounding, not bit for bit."""
    d = D.d
    wd = w[:d]
    shift = None if D.intercept is None else D.intercept * w[d]
    for rows, block in _transposed_blocks(D.X):
        rb = np.matmul(wd, block, out=r[rows])
        if D.scale is not None:
            np.multiply(D.scale[rows], rb, out=rb)
        if shift is not None:
            rb += shift
        np.subtract(y[rows], rb, out=rb)
    return r


def _rmatmul_own(D, r, xp):
    """``D.rmatmul(r)`` for a residual array of this solver's own (not read again): on NumPy
    the rows' factors are applied to ``r`` in place (the same products, without the (n,)
    temporary ``r * scale``); the intercept's entry sums ``r`` before, as ``rmatmul``."""
    if not isinstance(r, np.ndarray) or D.scale is None or D.P is not None:
        return D.rmatmul(r)
    last = None if D.intercept is None else D.intercept * xp.sum(r, axis=-1)
    A = np.multiply(r, D.scale, out=r) @ D.X
    if last is None:
        return A
    return xp.concat([A, xp.reshape(last, (*A.shape[:-1], 1))], axis=-1)


def _clip_own(r, tau, xp):
    """``xp.clip(r, -tau, tau)``, in place on NumPy (``r``: a residual array of this solver's
    own, not read again)."""
    if isinstance(r, np.ndarray):
        return np.clip(r, -tau, tau, out=r)
    return xp.clip(r, -tau, tau)


def _solve(A, b, xp):
    try:
        return xp.linalg.solve(A, b[:, None])[:, 0]
    except ValueError:  # singular (a non-private fit without ridge): the minimum-norm solution
        return xp.linalg.pinv(A) @ b


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
