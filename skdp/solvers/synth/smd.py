"""Select-measure-solve: the dense estimator of the marginal game (paper 002 §1.4).

``smd`` measures every workload marginal once
(:func:`~skdp.solvers.synth.measure.measure`, the only private step), then
*estimates* a distribution on the dense domain ``Z`` from the noisy answers
``q~`` by solving the game of paper 002 §1.4 eq. (3) on them,

    min_x max_y  < y, q~ - Q x >,

by entropic mirror-prox on both players (Nemirovski 2004) until the duality
gap is below ``tol`` or the residual reaches the noise level. The estimation
never reads the data: its privacy is the measurement's (post-processing).
Two query sets:

* ``query_set='box'`` (``'smd'``, the default): one query player per marginal
  cell with ``y_j`` in ``[-1, 1]`` (the product of the 2-simplices
  ``{q_j, -q_j}``, a polytope, paper 002 footnote 1). The value is the mean
  l1 error of the marginals, twice their mean total-variation error.
* ``query_set='simplex'`` (``'smd_linf'``): the paper's ``y`` on the simplex
  over ``Q u -Q``; the value is the max cell error.

The dense histogram costs ``O(|Z|)`` memory, hence the ``10**7``-cell cap of
:data:`~skdp.solvers.synth.marginals.MAX_CELLS`. An estimator that scales past
it (a graphical model fitted to the same noisy marginals, as private-pgm does)
goes in its own module beside this one, ``skdp/solvers/synth/<name>.py``: it
calls :func:`~skdp.solvers.synth.measure.measure` and replaces
:func:`mirror_prox`, and is registered in ``skdp.synthesizer.SOLVER_SPECS``.
"""

import math

from ..spec import SolverResult
from .marginals import _device, softmax
from .measure import measure

__all__ = ["solve_smd", "solve_smd_linf", "mirror_prox", "duality_gap", "noise_level"]


def mirror_prox(problem, answers, xp, *, query_set="box", band=0.0, n_iter=1000, tol=1e-3,
                target=None, check_every=10, progress=None, step=1.0):
    """Entropic mirror-prox for ``min_x max_y <y, a - Q x> - band ||y||_1`` (Nemirovski 2004).

    ``answers`` are per-marginal target vectors ``a`` (probability scale). The
    value is normalised by the number of marginals ``M``:

    * ``'box'``: ``y = p+ - p-`` with ``p+, p-`` in ``[0, 1]^cells`` (each
      coordinate a 2-simplex), ``F = (1/M) sum_k <p+_k - p-_k, a_k - Q_k x>
      - (band/M) sum_k <p+_k + p-_k, 1>``, so ``max_y F = (1/M) sum_k
      sum_j (|a_kj - (Q_k x)_j| - band)_+``: with ``band = 0`` the mean l1
      error of the marginals, twice their mean total-variation error; with a
      band of the order of the measurement noise, errors inside the noise are
      free and the entropic start (the uniform histogram) is kept where the
      answers do not contradict it (a dead-zone variant of the game);
    * ``'simplex'`` (the paper's eq. (3)): ``y`` on the simplex over
      ``Q u -Q``, ``max_y F = max_j |a_j - (Q x)_j|``.

    Both players take entropic steps (multiplicative weights on ``x``,
    sigmoid/softmax of cumulative gradients on ``y``) of size ``step``; the
    ergodic averages of the extrapolated points are returned with their
    duality gap, computed exactly every ``check_every`` iterations. Stops at
    gap ``<= tol``, or when the value ``max_y F(x_bar, y)`` (the residual of
    ``x_bar``) is ``<= target`` when a target is given (the discrepancy
    principle, Morozov 1966: a residual below the noise's own size only fits
    the noise).

    Returns
    -------
    x_bar : array, the averaged histogram
    gap : float
    n_iter : int, iterations run
    """
    tol = -math.inf if tol is None else tol
    M = len(problem.marginals)
    like = answers[0]
    size = problem.size
    box = query_set == "box"
    scale = 1.0 / M if box else 1.0
    log_x = xp.zeros((size,), dtype=like.dtype, device=_device(like)) - math.log(size)
    log_x = log_x + problem.log_prior(xp, log_x)  # structural zeros: never any mass
    init = -math.log(2.0) if box else 0.0
    lam_p = [xp.zeros_like(a) + init for a in answers]
    lam_n = [xp.zeros_like(a) + init for a in answers]
    eta = float(step)
    x_sum = xp.zeros_like(log_x)
    y_sum = [xp.zeros_like(a) for a in answers]
    half = problem.n_cells

    def y_of(lp, ln):
        if box:
            return [_sigmoid(p, xp) - _sigmoid(n, xp) for p, n in zip(lp, ln)]
        w = softmax(xp.concat(lp + ln), xp)
        out, start = [], 0
        for k in range(M):
            c = problem.cells(k)
            out.append(w[start:start + c] - w[half + start:half + start + c])
            start += c
        return out

    def grads(x, y):
        gx = problem.adjoint(y, xp, log_x) * scale  # -grad_x F (x descends)
        r = [a - q for a, q in zip(answers, problem.answer(x, xp))]
        return gx, r

    def step_y(lp, ln, r, h):
        if box:
            return ([p + h * (g - band) for p, g in zip(lp, r)],
                    [n + h * (-g - band) for n, g in zip(ln, r)])
        return [p + h * g for p, g in zip(lp, r)], [n - h * g for n, g in zip(ln, r)]

    gap, t = math.inf, 0
    for t in range(1, n_iter + 1):
        x, y = softmax(log_x, xp), y_of(lam_p, lam_n)
        gx, r = grads(x, y)
        lw = log_x + eta * gx
        wp, wn = step_y(lam_p, lam_n, r, eta)
        xw, yw = softmax(lw, xp), y_of(wp, wn)
        gxw, rw = grads(xw, yw)
        log_x = log_x + eta * gxw
        log_x = log_x - xp.max(log_x)
        lam_p, lam_n = step_y(lam_p, lam_n, rw, eta)
        x_sum = x_sum + xw
        y_sum = [s + v for s, v in zip(y_sum, yw)]
        if t % check_every == 0 or t == n_iter:
            gap, value = duality_gap(problem, answers, x_sum / t, [s / t for s in y_sum], xp,
                                     query_set=query_set, band=band)
            if progress is not None:
                progress(t, n_iter, gap)
            if gap <= tol or (target is not None and value <= target):
                break
    return x_sum / t, gap, t


def _sigmoid(v, xp):
    return 0.5 * (xp.tanh(0.5 * v) + 1.0)


def duality_gap(problem, answers, x, y, xp, *, query_set="box", band=0.0):
    """``max_y' F(x, y') - min_x' F(x', y)`` of the game of :func:`mirror_prox`.

    ``min_x' F(x', y) = <y, a> - band ||y||_1 - max_z (Q^T y)_z`` (a linear
    function on the simplex is minimised at a vertex; for the box, ``y`` is read
    as the feasible point ``p+ = max(y, 0)``, ``p- = max(-y, 0)``, so the gap
    is that of a feasible pair and bounds the suboptimality of ``x``);
    ``max_y' F(x, y')`` is the mean dead-zone l1 error (box) or the max
    absolute error (simplex).

    Returns
    -------
    gap : float
    value : float
        ``max_y' F(x, y')``, the residual of ``x``.
    """
    M = len(problem.marginals)
    resid = [a - q for a, q in zip(answers, problem.answer(x, xp))]
    if query_set == "box":
        scale = 1.0 / M
        upper = sum(float(xp.sum(xp.clip(xp.abs(r) - band, min=0.0))) for r in resid) * scale
        pen = band * sum(float(xp.sum(xp.abs(v))) for v in y)
    else:
        scale, pen = 1.0, 0.0
        upper = max(float(xp.max(xp.abs(r))) for r in resid)
    ya = sum(float(xp.sum(v * a)) for v, a in zip(y, answers))
    # min over the histograms on the allowed cells (structural zeros excluded)
    lower = (ya - pen - float(xp.max(problem.adjoint(y, xp, x) + problem.log_prior(xp, x)))) \
        * scale
    return upper - lower, upper


DISCREPANCY = 0.9
"""Stop when the residual is this fraction of the noise's expected size.

Chosen on exploratory runs (other discretisations of the digits and breast
cancer tables, recorded in ``benchmarks/RESULTS.md``): the 2-way
error of the iterates was lowest slightly below the noise level (0.75-0.97)."""


def noise_level(problem, sigma, n_est, query_set="box"):
    """Expected value of the game at the data's own histogram: the noise's size.

    ``box``: ``E (1/M) sum_k ||noise_k||_1 = sqrt(2/pi) (sigma/n) * mean cells``;
    ``simplex``: ``E max_j |noise_j| ~ (sigma/n) sqrt(2 log(2 m))``. Public (it
    depends on sigma, n and the domain only).
    """
    scale = sigma / n_est
    if query_set == "box":
        return math.sqrt(2.0 / math.pi) * scale * problem.n_cells / len(problem.marginals)
    return scale * math.sqrt(2.0 * math.log(2.0 * problem.n_cells))


def solve_smd(problem, budget, options, *, query_set="box"):
    """Select-measure-solve: Gaussian measurement of the workload, then the game.

    Privacy: one Gaussian mechanism on the stacked marginal counts with
    l2-sensitivity ``sqrt(2M)`` (replace-one) or ``sqrt(M)`` (add/remove),
    ``rho = Delta**2 / (2 sigma**2)`` (Bun–Steinke Prop. 1.6), or, when it is the
    fit's only mechanism, ``Delta / sigma = mu`` with ``mu`` the exact
    Gaussian-DP budget of (epsilon, delta) (Dong–Roth–Su 2022, Cor. 2.13)
    (:func:`~skdp.solvers.synth.measure.measure`). The game solve is
    post-processing.

    ``problem.tol='auto'`` stops mirror-prox by the discrepancy principle (the
    residual reaches ``DISCREPANCY`` times :func:`noise_level`); a float stops it
    at that duality gap. ``problem.n_iter`` caps the iterations (default 500).
    ``options``: none.

    Returns
    -------
    SolverResult
        ``solution`` the flat histogram; ``info`` the noise scale, the stopping
        rule, ``duality_gap``, ``n_estimate`` (the ``n`` of the measurement) and
        ``measurements`` (the noisy counts of each workload marginal: the release).
    """
    xp = budget.backend.xp
    answers, sigma, n_est = measure(problem, budget)
    # structural zeros: the noise on their cells is post-processed away (public facts)
    answers = [problem.clear_zeros(k, a, xp) for k, a in enumerate(answers)]
    n_iter = 500 if problem.n_iter is None else problem.n_iter
    tol = problem.tol
    if tol == "auto":
        target = DISCREPANCY * noise_level(problem, sigma, n_est, query_set)
        gap_tol = 1e-4
    else:
        target, gap_tol = None, float(tol)
    x, gap, t = mirror_prox(problem, answers, xp, query_set=query_set, n_iter=n_iter,
                            tol=gap_tol, target=target, progress=problem.progress)
    return SolverResult(x, t, info=dict(noise_std_counts=sigma, query_set=query_set, tol=tol,
                                        stop_residual=target, duality_gap=gap,
                                        n_estimate=n_est,
                                        measurements=[a * n_est for a in answers]))


def solve_smd_linf(problem, budget, options):
    """:func:`solve_smd` with the paper's query player on the simplex (max cell error)."""
    return solve_smd(problem, budget, options, query_set="simplex")
