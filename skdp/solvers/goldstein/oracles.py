"""The gradient oracles of the paper-001 solvers: the problem, the estimators, the releases.

:class:`GLMProblem` gives per-sample losses and gradients of a linear model;
the estimators turn them into per-sample estimates of ``grad f_alpha`` (first
or zero order, paper 001 Alg. 3-5); the oracles clip, average and release
them: a tree mechanism per period (single pass, Prop. 2.5) or a Gaussian
release per step (multi pass, Lemma 4.3), through the release path.
"""

import numpy as np

from ...privacy.clipping import clip_factors
from ...privacy.tree import TreeMechanism

__all__ = ["GLMProblem"]


class GLMProblem:
    """Per-sample losses ``f_i(w) = c_i phi(W a_i, t_i)`` of a linear model with k outputs.

    ``w`` is the flat ``(k, p)`` matrix ``W``; ``A`` the (clipped) design whose
    rows are ``a_i``; ``loss(Z, T, xp)`` returns ``(values, dvalues/dZ)`` for
    margins ``Z`` of shape ``(..., k)`` and targets ``T`` broadcastable to it.
    The per-sample gradient is ``c_i phi'(z_i) a_i^T``; its norm is
    ``c_i ||phi'|| ||a_i||``, so the Lipschitz constant is ``sup c_i ||phi'|| ||a||``.

    Examples
    --------
    >>> import numpy as np
    >>> def absolute(Z, T, xp):
    ...     return xp.abs(Z - T)[..., 0], xp.sign(Z - T)
    >>> prob = GLMProblem(np.eye(2), np.array([[1.0], [0.0]]), absolute, 1, np)
    >>> prob.full_gradient(np.zeros(2)).tolist()
    [-0.5, 0.0]
    """

    def __init__(self, A, targets, loss, k, xp, weights=None, ridge=0.0):
        self.A, self.targets, self.loss, self.k, self.xp = A, targets, loss, int(k), xp
        self.n, self.p = int(A.shape[0]), int(A.shape[1])
        self.d = self.k * self.p
        self.weights = weights
        self.ridge = float(ridge)

    def _take(self, arr, idx):
        return arr if idx is None else self.xp.take(arr, idx, axis=0)

    def _margins(self, w, Y, idx):
        """Margins at ``w + Y[b, j]`` for the rows ``idx``: shape (B, m, k)."""
        xp = self.xp
        a = self._take(self.A, idx)
        W = xp.reshape(w, (self.k, self.p))
        base = a @ W.T
        if Y is None:
            return base[:, None, :]
        B, m = Y.shape[0], Y.shape[1]
        Yk = xp.reshape(Y, (B, m, self.k, self.p))
        return base[:, None, :] + xp.sum(Yk * a[:, None, None, :], axis=-1)

    def _weighted(self, v, idx):
        if self.weights is None:
            return v
        c = self._take(self.weights, idx)
        return v * xp_expand(c, v.ndim, self.xp)

    def values(self, w, Y, idx):
        """Per-sample losses at ``w + Y[b, j]``: shape (B, m)."""
        targets = self._take(self.targets, idx)[:, None, :]
        val, _ = self.loss(self._margins(w, Y, idx), targets, self.xp)
        return self._weighted(val, idx)

    def residuals(self, w, Y, idx):
        """``c_i dphi/dz`` at ``w + Y[b, j]``: shape (B, m, k)."""
        targets = self._take(self.targets, idx)[:, None, :]
        _, der = self.loss(self._margins(w, Y, idx), targets, self.xp)
        return self._weighted(der, idx)

    def expand(self, R, idx):
        """Per-sample gradients ``r_b a_b^T`` flattened: (B, k) -> (B, d)."""
        a = self._take(self.A, idx)
        B = R.shape[0]
        return self.xp.reshape(R[:, :, None] * a[:, None, :], (B, self.d))

    def full_gradient(self, w, points=None):
        """Exact gradient of the empirical loss (plus ridge) at ``w`` or at each of ``points``.

        Not private: for :func:`~skdp.solvers.goldstein.certificate.goldstein_gap` and tests.
        """
        xp = self.xp
        if points is None:
            return self.full_gradient(None, xp.reshape(w, (1, self.d)))[0]
        out = []
        for q in range(points.shape[0]):
            r = self.residuals(points[q], None, None)[:, 0, :]
            g = xp.reshape(r.T @ self.A, (self.d,)) / self.n
            out.append(g + self.ridge * points[q])
        return xp.stack(out)

    def objective(self, w):
        """Exact empirical loss (plus ridge); diagnostics only."""
        xp = self.xp
        return float(xp.mean(self.values(w, None, None))) + 0.5 * self.ridge * float(
            xp.sum(w * w))


def xp_expand(c, ndim, xp):
    """``c`` of shape (B,) reshaped to broadcast against an array of ``ndim`` dims."""
    return xp.reshape(c, (c.shape[0],) + (1,) * (ndim - 1))


# ----------------------------------------------------------------- sampling
def _sphere(backend, shape, d, dtype):
    """Uniform directions on the unit sphere S^{d-1} (Gaussian, normalised)."""
    xp = backend.xp
    G = backend.public_normal(tuple(shape) + (d,), dtype=dtype)
    norms = xp.sqrt(xp.sum(G * G, axis=-1, keepdims=True))
    return G / xp.maximum(norms, xp.full_like(norms, float(xp.finfo(G.dtype).smallest_normal)))


def _ball(backend, shape, d, radius, dtype):
    """Uniform points of the ball B_radius: ``radius U**(1/d) * direction``.

    Eq. (10)'s ball (Alg. 3-5 print the ball and the sphere inconsistently).
    """
    U = backend.public_uniform(tuple(shape) + (1,), dtype=dtype)
    return radius * U ** (1.0 / d) * _sphere(backend, shape, d, dtype)


def _clip(V, bound, xp):
    """Rows of ``V`` projected onto the ball of radius ``bound``.

    How many rows moved is not counted: that count depends on the private
    rows with no noise, so it must not leave the fit (issue 15).
    """
    norms = xp.sqrt(xp.sum(V * V, axis=1))
    return V * clip_factors(norms, bound, xp)[:, None]


# --------------------------------------------------------------- estimators
class _Estimator:
    """Per-sample estimates of ``grad f_alpha`` (anchor) and of its differences.

    ``first_order=True``: paper 001 Alg. 5 (anchor: one ball perturbation per
    sample, eq. (10) with the ball of Fact 2.3(iv), not Alg. 5's ``grad f(x + y)``; difference:
    ``m2`` perturbations shared by ``z_t`` and ``z_{t-1}``). ``False``: the
    two-point zero-order estimator (4), ``(d/(2 alpha)) (f(x + alpha u) -
    f(x - alpha u)) u`` with ``u`` on the sphere (Alg. 3 prints the ball), ``m1``
    directions at anchors, ``m2`` shared ones in differences.
    """

    def __init__(self, problem, cfg, backend):
        self.problem, self.cfg, self.backend = problem, cfg, backend
        self.first_order = cfg.first_order

    def anchor(self, w, idx):
        prob, cfg, b = self.problem, self.cfg, self.backend
        B = int(idx.shape[0])
        if self.first_order:
            Y = _ball(b, (B, cfg.anchor_directions), prob.d, cfg.radius, cfg.dtype)
            R = prob.residuals(w, Y, idx)
            return prob.expand(b.xp.mean(R, axis=1), idx)
        U = _sphere(b, (B, cfg.anchor_directions), prob.d, cfg.dtype)
        return self._zo(w, None, U, idx)

    def difference(self, w1, w0, idx):
        prob, cfg, b = self.problem, self.cfg, self.backend
        B = int(idx.shape[0])
        if self.first_order:
            Y = _ball(b, (B, cfg.diff_directions), prob.d, cfg.radius, cfg.dtype)
            R = prob.residuals(w1, Y, idx) - prob.residuals(w0, Y, idx)
            return prob.expand(b.xp.mean(R, axis=1), idx)
        U = _sphere(b, (B, cfg.diff_directions), prob.d, cfg.dtype)
        return self._zo(w1, w0, U, idx)

    def _zo(self, w1, w0, U, idx):
        xp, prob, a = self.backend.xp, self.problem, self.cfg.radius
        h = a * U
        spread = prob.values(w1, h, idx) - prob.values(w1, -h, idx)
        if w0 is not None:
            spread = spread - (prob.values(w0, h, idx) - prob.values(w0, -h, idx))
        scale = prob.d / (2.0 * a * U.shape[1])
        return scale * xp.sum(spread[:, :, None] * U, axis=1)


# ------------------------------------------------------------------ oracles
class _SinglePassOracle:
    """Alg. 3 / Alg. 5: anchors on ``B1`` unused samples every ``Sigma`` steps,
    differences on ``B2`` unused samples, noisy prefix sums from a fresh tree
    per period (Prop. 2.5). Each sample is consumed once, in a fixed
    data-independent order.

    ``path`` (a Budget, charged, or a Release) records the whole run when the
    oracle is built: one tree mechanism over the periods
    (:class:`~skdp.privacy.tree.TreeMechanism`), node noise ``cfg.sigma``."""

    def __init__(self, problem, cfg, estimator, order, path, label):
        self.problem, self.cfg, self.est = problem, cfg, estimator
        self.order, self.noise = order, path.backend
        self.used, self.t, self.tree = 0, 0, None
        self.trees = TreeMechanism.open(path, cfg.extra["sensitivity"], cfg.sigma, cfg.period,
                                        label=f"{label} tree")

    def _take(self, size):
        idx = self.order[self.used:self.used + size]
        self.used += size
        return self.noise.asarray(idx)

    def __call__(self, z, z_prev):
        cfg, xp = self.cfg, self.noise.xp
        pos = self.t % cfg.period  # 0: anchor (paper: t mod Sigma = 1)
        self.t += 1
        if pos == 0:
            horizon = min(cfg.period, cfg.n_iter - self.t + 1)
            self.tree = self.trees.aggregator((self.problem.d,), horizon, self.noise)
            idx = self._take(cfg.anchor_batch)
            V = _clip(self.est.anchor(z, idx), cfg.clip, xp)
        else:
            idx = self._take(cfg.diff_batch)
            V = _clip(self.est.difference(z, z_prev, idx), cfg.diff_clip, xp)
        return self.tree.add(xp.mean(V, axis=0))


class _MultiPassOracle:
    """Alg. 4: full-batch anchors every ``Sigma`` steps with ``N(0, sigma1**2)``;
    otherwise ``g~_t = g~_{t-1} + (clipped full-batch difference) + N(0, sigma2**2)``
    (the recursion on the *noisy* estimate, line 15).

    ``path`` (a Budget, charged, or a Release) records the ``K_a`` anchor and
    ``K_d`` difference releases (Lemma 4.3) when the oracle is built, as two
    Gaussian batches."""

    def __init__(self, problem, cfg, estimator, path, label, chunk):
        self.problem, self.cfg, self.est, self.noise = problem, cfg, estimator, path.backend
        self.t, self.g, self.chunk = 0, None, chunk
        e = cfg.extra
        self.anchors = path.gaussian_batch(e["s_anchor"], cfg.sigmas[0], e["n_anchor"],
                                           label=f"{label} anchor")
        self.diffs = (path.gaussian_batch(e["s_diff"], cfg.sigmas[1], e["n_diff"],
                                          label=f"{label} difference") if e["n_diff"] else None)

    def _mean(self, fn, bound):
        xp, n = self.noise.xp, self.problem.n
        total = None
        for start in range(0, n, self.chunk):
            idx = self.noise.asarray(np.arange(start, min(start + self.chunk, n)))
            V = _clip(fn(idx), bound, xp)
            s = xp.sum(V, axis=0)
            total = s if total is None else total + s
        return total / n

    def __call__(self, z, z_prev):
        cfg = self.cfg
        pos = self.t % cfg.period
        self.t += 1
        if pos == 0:
            value = self.anchors(self._mean(lambda idx: self.est.anchor(z, idx), cfg.clip))
        else:
            value = self.g + self._mean(lambda idx: self.est.difference(z, z_prev, idx),
                                        cfg.diff_clip)
            value = self.diffs(value)
        self.g = value
        return value
