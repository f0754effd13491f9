"""DP solvers for Lipschitz, nonsmooth, nonconvex losses: Goldstein-stationary points (paper 001).

Kornowski, Liu, Talwar, "Improved sample complexity for private nonsmooth
nonconvex optimization" (paper 001). All three
solvers share the O2NC outer loop (paper 001 Alg. 2, Cutkosky–Mehta–Orabona
2023): online projected gradient descent on the *increment* ``Delta`` inside
the ball of radius ``D``, the gradient queried at a uniformly random point
``z_t`` of each segment ``[x_{t-1}, x_t]``, and the ``z_t`` averaged over
windows of ``M`` steps. The gradient oracle is for the randomized smoothing
``F_alpha(x) = E_{u ~ U(B_alpha)} F(x + u)`` (Fact 2.3), variance-reduced in
SPIDER style: an *anchor* minibatch gradient every ``Sigma`` steps, then
*differences* ``grad f(z_t) - grad f(z_{t-1})`` on fresh samples.

================== ================ ============================== =========================
solver             oracle           privacy                        paper
================== ================ ============================== =========================
``fo_single_pass`` gradients        tree mechanism, one pass       Alg. 2 + Alg. 5, Thm 6.1
``zo_single_pass`` loss values      tree mechanism, one pass       Alg. 2 + Alg. 3, Thm 3.1
``zo_multi_pass``  loss values      Gaussian per step, zCDP        Alg. 2 + Alg. 4, Thm 4.1
================== ================ ============================== =========================

Privacy is deterministic (clipping), not "with high probability" as in
the paper's Lemmas 3.4/3.5/6.3/6.4: every per-sample anchor estimate is
clipped to norm ``C1`` and every per-sample difference to ``C2`` (a
projection, so the bound holds whatever the concentration event), giving the
replace-one sensitivities ``s_a = 2 C1 / B1`` and ``s_d = 2 C2 / B2`` (the
paper's Lemma 6.3 writes ``L/B1``; the replace-one constant is 2, as in
the proof of Lemma 3.4). Difference steps use *shared* perturbations at ``z_t`` and ``z_{t-1}``
(a variance reduction of skdp's): still unbiased for ``grad F_alpha(z_t) - grad F_alpha(z_{t-1})``
and of far smaller variance.

* Single pass (Prop. 2.5): each sample is used once, in one increment of one
  period's tree; a fresh tree per period (``idx = ((t-1) mod Sigma) + 1``:
  Alg. 1's level range leaves ``t = Sigma`` out when Sigma is a power of 2).
  The record is in at most ``h = floor(log2 Sigma) + 1`` noisy node sums
  (:func:`~skdp.privacy.tree.max_nodes_per_leaf`), so the whole run
  is one Gaussian mechanism of l2-sensitivity ``s sqrt(h)``,
  ``s = max(s_a, s_d)``: ``rho = s**2 h / (2 sigma**2)``
  (:func:`~skdp.privacy.tree.tree_sigma`). Periods touch disjoint samples
  (parallel composition), and the output is post-processing.
* Multi pass (Lemma 4.3): ``K_a`` anchors of sensitivity ``2 C1 / n`` and
  ``K_d`` differences of sensitivity ``2 C2 / n``, each a Gaussian mechanism,
  composed in zCDP (Bun–Steinke 2016): ``rho = K_a s1**2/(2 sigma1**2) + K_d
  s2**2/(2 sigma2**2)``, with ``sigma1, sigma2`` minimising the injected
  variance ``d (sigma1**2 + Sigma sigma2**2)`` (Lemma 4.4; Lagrange).

Output: the average ``x_bar_K`` of the *last* window. The theory
draws a window uniformly (``output='random'``, kept for theory-faithful
runs); both are post-processing of the released gradients, so equally
private, but early windows are far from a stationary point (in a first
prototype: loss 1.17 for the random window vs 0.375 for the last, optimum 0.373).
``certificate`` is ``||(1/M) sum g~_t||`` over that window, a free (private)
proxy for ``||grad-bar_alpha F_alpha(x_bar)||``.

Constants (the paper gives none: only O~ and Theta~): ``theory=True`` uses the
Thm 3.1/6.1 (single pass) and Thm 4.1 with the dimensionally corrected
``D = alpha beta**2 / (64 L**2)``, ``T = Phi/(D beta)`` (the printed ones are not a length) with
constants 1; the practical defaults (``PRACTICAL``) are those
``benchmarks/robust.py --tune`` picked on a validation split.
"""

from ..._backend import Backend
from ...privacy.own_noise import drawing_from
from ..spec import SolverResult
from .oracles import _Estimator, _MultiPassOracle, _SinglePassOracle

__all__ = ["o2nc", "fo_single_pass", "zo_single_pass", "zo_multi_pass", "GOLDSTEIN_SOLVERS"]


# ---------------------------------------------------------------- O2NC loop
def o2nc(oracle, w0, cfg, backend):
    """Paper 001 Alg. 2 (O2NC): OGD on increments in the D-ball, random segment points.

    ``x_t = x_{t-1} + Delta_t``, ``z_t = x_{t-1} + s_t Delta_t`` (``s_t ~
    U[0, 1]``), ``Delta_{t+1} = Proj_D(Delta_t - eta g~_t)``; the ``z_t`` are
    averaged over windows of ``M`` steps (the online learner is not reset).
    Returns ``(x_bar, certificate, history)`` for the window chosen by
    ``cfg.output`` (``'last'``, or ``'random'`` as in line 14).
    """
    xp = backend.xp
    T, M, D, eta = cfg.n_iter, cfg.window, cfg.max_step, cfg.learning_rate
    K = T // M
    pick = K - 1 if cfg.output == "last" else int(backend.public_rng.integers(K))
    x, delta, z_prev = w0, xp.zeros_like(w0), None
    z_sum, g_sum, history = None, None, []
    for t in range(K * M):
        s = float(backend.public_rng.random())
        z = x + s * delta
        x = x + delta
        g = oracle(z, z_prev)
        if oracle.problem.ridge:
            g = g + oracle.problem.ridge * z  # data-independent: added exactly, no noise
        v = delta - eta * g
        norm = float(xp.sqrt(xp.sum(v * v)))
        delta = v * min(1.0, D / norm) if norm > 0 else v
        z_prev = z
        if t // M == pick:
            z_sum = z if z_sum is None else z_sum + z
            g_sum = g if g_sum is None else g_sum + g
        if (t + 1) % M == 0:
            history.append(dict(step=t + 1, window=t // M))
            if cfg.verbose:
                print(f"[{_name(cfg)}] step {t + 1}/{K * M}, window {t // M + 1}/{K}, "
                      f"|x|={float(xp.sqrt(xp.sum(x * x))):.3g}", flush=True)
    certificate = float(xp.sqrt(xp.sum((g_sum / M) ** 2)))
    return z_sum / M, certificate, history


def _name(cfg):
    passes = "_multi_pass" if cfg.multi_pass else "_single_pass"
    return ("fo" if cfg.first_order else "zo") + passes


# ------------------------------------------------------------------ solvers
def _streams(backend):
    """Independent generators for data order, perturbations, O2NC draws and privacy noise.

    Separate streams let tests couple neighbouring datasets: the
    same seed gives both runs the same order, perturbations and noise.
    """
    order, dirs, loop, noise = backend.rng.spawn(4)
    make = lambda g: Backend(backend.xp, backend.device, g)  # noqa: E731
    return order, make(dirs), make(loop), make(noise)


def _result(w, oracle, cert, history, n_used, cfg):
    info = dict(certificate=cert, n_samples_used=n_used, config=cfg)
    return SolverResult(solution=w, n_iter=oracle.t, history=history, info=info)


def _single_pass(problem, w0, cfg, budget, label):
    order_rng, dirs, loop, noise = _streams(budget.backend)
    order = order_rng.permutation(problem.n)
    with drawing_from(budget, noise) as own:
        oracle = _SinglePassOracle(problem, cfg, _Estimator(problem, cfg, dirs), order, own,
                                   label)
        w, cert, history = o2nc(oracle, w0, cfg, loop)
    return _result(w, oracle, cert, history, oracle.used, cfg)


def fo_single_pass(problem, w0, cfg, budget, *, label):
    """First-order single pass: paper 001 Alg. 2 + Alg. 5 (Thm 6.1), tree mechanism.

    Privacy: Prop. 2.5 with the clipped sensitivity ``s = max(2 C1/B1, 2
    C2/B2)`` (module doc); one pass, no composition: one Gaussian release of
    sensitivity ``s sqrt(h)`` at ``cfg.sigma``, charged to ``budget`` and
    recorded as ``'<label> tree'``. Utility (Thm 6.1):
    ``E||grad-bar_{2 alpha} F(x_out)|| <= beta`` once
    ``n = O~(Phi L**2 sqrt(d)/(alpha beta**3) + Phi L d/(eps alpha beta**2))``
    with the theory constants.

    Parameters
    ----------
    problem : GLMProblem
    w0 : array of shape (d,)
        Starting point.
    cfg : GoldsteinConfig
        From :func:`~skdp.solvers.goldstein.config.goldstein_config` at ``budget.rho``.
    budget : Budget
        The solver's zCDP share and release path.
    label : str
        Prefix of the ledger's labels.

    Returns
    -------
    SolverResult
        ``solution`` the released point; ``info`` holds ``certificate``,
        ``n_samples_used`` and ``config``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> from skdp.privacy import Budget, PrivacyLedger, Release
    >>> from skdp.solvers.goldstein import GLMProblem, goldstein_config
    >>> def absolute(Z, T, xp):
    ...     return xp.abs(Z - T)[..., 0], xp.sign(Z - T)
    >>> rng = np.random.default_rng(0)
    >>> A = rng.normal(size=(4000, 2)) / 2
    >>> prob = GLMProblem(A, (A @ np.array([1.0, -1.0]))[:, None], absolute, 1, np)
    >>> cfg = goldstein_config("fo_single_pass", 4000, 2, np.inf, np.inf, 1.5, 1.0)
    >>> release = Release(Backend.from_arrays(A, random_state=0), PrivacyLedger())
    >>> budget = Budget(np.inf, 0.0, np.inf, release=release)
    >>> res = fo_single_pass(prob, np.zeros(2), cfg, budget, label="fo")
    >>> bool(np.linalg.norm(res.solution - [1.0, -1.0]) < 0.2)
    True
    """
    return _single_pass(problem, w0, cfg, budget, label)


def zo_single_pass(problem, w0, cfg, budget, *, label):
    """Zero-order single pass: paper 001 Alg. 2 + Alg. 3 (Thm 3.1), tree mechanism.

    Needs per-sample loss values only. Privacy and parameters as
    :func:`fo_single_pass` (clipping replaces Lemma 3.4's high-probability
    bound and its huge ``m``). Utility (Thm 3.1): the same sample
    complexity as Thm 6.1.
    """
    return _single_pass(problem, w0, cfg, budget, label)


def zo_multi_pass(problem, w0, cfg, budget, *, label, chunk=2048):
    """Zero-order multi pass (ERM): paper 001 Alg. 2 + Alg. 4 (Thm 4.1), zCDP composition.

    Privacy (Lemma 4.3): ``K_a`` full-batch anchors of sensitivity ``2 C1/n``
    at ``sigma1`` and ``K_d`` differences of sensitivity ``2 C2/n`` at
    ``sigma2``, composed in zCDP
    (:func:`~skdp.solvers.goldstein.config.multi_pass_sigmas`), charged to
    ``budget`` as two Gaussian batches (``'<label> anchor'``, ``'<label>
    difference'``). Utility (Thm 4.1, with Thm 4.1's ``D`` and ``T`` made dimensionally consistent):
    ``n = O~(sqrt(Phi) L d**(3/4)/(eps alpha**(1/2) beta**(3/2)))`` for the
    empirical objective. Parameters as :func:`fo_single_pass`; ``chunk``
    rows at a time.
    """
    _, dirs, loop, noise = _streams(budget.backend)
    with drawing_from(budget, noise) as own:
        oracle = _MultiPassOracle(problem, cfg, _Estimator(problem, cfg, dirs), own, label,
                                  chunk)
        w, cert, history = o2nc(oracle, w0, cfg, loop)
    return _result(w, oracle, cert, history, problem.n, cfg)


GOLDSTEIN_SOLVERS = {"fo_single_pass": fo_single_pass, "zo_single_pass": zo_single_pass,
                     "zo_multi_pass": zo_multi_pass}
