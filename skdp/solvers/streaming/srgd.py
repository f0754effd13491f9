"""Single-epoch streaming DP solvers of paper 003 (Choquette-Choo, Ganesh, Thakurta).

One loop, four solvers; every example is used in exactly one step, in a
data-independent order (a seeded permutation of each chunk), and the
per-example contributions are clipped explicitly, so privacy holds for any
loss and any data (paper 003 §4.2 assumes convexity and smoothness instead).

``"srgd"`` — Accelerated-DP-SRGD (paper 003 Alg. 1)
    ``eta_t = t + 1``; the per-example increment
    ``eta_t grad f(x_t, d) - eta_{t-1} grad f(x_{t-1}, d)`` (both at the
    *current* batch's examples) is clipped to ``G`` (theory: ``4L + 8MR``,
    Cor. 4.5), averaged over the public batch size ``B`` and fed to the
    binary-tree mechanism (:class:`~skdp.privacy.tree.TreeAggregator`, paper
    003 Lemma 4.3), which returns the noisy prefix sum ``S_t``; then
    ``grad_t = S_t / eta_t``, ``z <- P(z - eta_t grad_t / beta)``,
    ``y <- P(x - grad_t / beta)``, ``x <- (1 - tau) y + tau z`` with
    ``tau_{t+1} = 2 / (t + 3)``; the output is ``y_T`` (paper 003 Alg. 1: the
    same privatised gradient in both steps, noise added once). With
    ``theory=True``: ``B = min(sqrt n, Thm 4.10 bound)`` and
    ``beta = M + (8L + 16MR) n**1.5 / (R B**2)`` (Thm 4.10); otherwise
    ``B = ceil(2 sqrt n)``, ``beta = beta_scale x curvature`` and the clip is
    ``L / 4`` (the theory's ``beta`` is far too conservative in practice;
    both chosen on validation splits, benchmarks/srgd.py).
``"srg_memf"`` — DP-SRG-MEMF (paper 003 Alg. 3, corrected)
    ``Delta_t = (1/B) sum_d clip(grad l(x_t; d) - c grad l(x_{t-1}; d), G)``,
    ``Delta~_t = Delta_t + w_t`` with matrix-factorisation noise
    ``w = C^{-1} Z`` (:mod:`skdp.privacy.matrix`, banded square root of the
    workload ``M A L``), ``g_t = c g_{t-1} + Delta~_t`` and heavy-ball momentum
    on ``g_t`` — the noise enters once (Alg. 3 line 7 adds
    it a second time, against line 5 and the paper's workload ``M A L D``).
``"memf"``
    ``c = 0``: DP-FTRL / DP-MEMF (Alg. 2) with the square root of ``M A``.
``"dpsgd"``
    ``c = 0`` and independent noise (``C = I``): DP-SGD without amplification.

**Privacy.** Neighbouring datasets differ by replacing one record (the
estimators' model; paper 003 uses zero-out, which halves the sensitivity).
The record lies in one batch, whose clipped sum moves by at most ``2G``, so
each stream element ``D_t / B`` has l2-sensitivity ``2G / B`` (the public
``B`` divides even a shorter last batch). The whole stream of releases is the
linear Gaussian mechanism ``C (D / B) + Z`` with lower-triangular ``C``
(tree encoder, banded Toeplitz, or ``I``) on an adaptively chosen stream,
``mu = (2G / B) ||C||_col / sigma``-GDP (Denisov et al. 2022, Thm 2.1; paper
003 Lemma 4.3 for the tree), recorded as one Gaussian mechanism when the
stream starts (:class:`~skdp.privacy.tree.TreeMechanism`,
:class:`~skdp.privacy.matrix.MatrixMechanism`: the record and the noise come
from the same object); the iterates are post-processing. ``mu`` is calibrated to the
budget exactly (Dong–Roth–Su 2022, Cor. 2.13). Chunks that hold disjoint
records (``stream_chunks='disjoint'``, the chunks of a Dask fit) are one
stream: the banded MF noise runs on across chunks (its column norm does not
depend on the horizon) and the tree restarts per chunk at the same ``mu``
(parallel composition over a public partition), so the whole stream is
``mu``-GDP, whatever the number of chunks. A chunk that may hold records
read before (``stream_chunks='repeated'``, the default) is a new pass
(:func:`new_pass`): a new mechanism at ``mu``, recorded on its own, with
fresh noise (the MF noise restarts: the passes are independent mechanisms),
so ``k`` passes are ``mu sqrt(k)``-GDP (Dong–Roth–Su Cor. 3.3).

**Array API.** All four compute in the namespace and on the device of their
input (CuPy, torch, array-api-strict; ``tests/solvers/test_torch.py``): the tree's node
noises and the banded MF noise (:class:`~skdp.privacy.matrix.BandedToeplitzNoise`,
its ``band - 1`` past noises kept on the device, its coefficients Python floats)
are drawn by the fit's backend in the gradient's dtype. The loop over batches is
sequential host-side control flow (each step reads the last iterate); the batch
order is a host permutation (public), and the only value that crosses to the host
is srgd's projection norm, one scalar per step.
"""

from collections import deque
import copy
from dataclasses import dataclass, field, replace
import math

import numpy as np

from ..._backend import Backend
from ...privacy.matrix import MatrixMechanism, mf_sigma, sqrt_toeplitz_coefficients
from ...privacy.tree import TreeMechanism, tree_sigma
from ..spec import Option, deprecated_names

__all__ = ["STREAM_ALGORITHMS", "require_streaming", "StreamOptions", "StreamState", "new_pass",
           "run_stream", "theory_constants"]

STREAM_ALGORITHMS = ("srgd", "srg_memf", "memf", "dpsgd")
"""The algorithms :func:`run_stream` runs (``StreamOptions.solver``). Which of them an
estimator offers, and that they stream, is said by its registry's specs
(``SolverSpec.streaming``; ``partial_fit`` exists for those)."""

__getattr__ = deprecated_names(__name__, {
    "STREAMING_SOLVERS": (lambda: STREAM_ALGORITHMS,
                          "the estimator's solvers_with(SOLVER_SPECS, streaming=True)")})


def require_streaming(solver):
    """True if ``solver`` is an algorithm of :func:`run_stream`, else AttributeError.

    Examples
    --------
    >>> require_streaming("srg_memf")
    True
    """
    if solver not in STREAM_ALGORITHMS:
        raise AttributeError(f"partial_fit needs a streaming solver "
                             f"({', '.join(STREAM_ALGORITHMS)}); got solver={solver!r}.")
    return True

# Practical defaults (benchmarks/srgd.py; chosen on validation splits of the
# training data, see benchmarks/RESULTS.md, streaming section).
DECAY = math.exp(-2.5)  # paper 003 §5: c = e^{-5/2}
MOMENTUM = 0.9          # paper 003 §5: heavy ball 0.9
BAND = 64               # band of the square-root factorisation (O(BAND d) memory)
STEP_SCALE = 0.64       # learning rate = STEP_SCALE / curvature (before momentum)
CLIP_RATIO = 0.2        # clip G = CLIP_RATIO x Lipschitz bound
BATCH_FACTOR = 2.0      # batch size = ceil(BATCH_FACTOR sqrt(n)) (paper 003 Thm 4.6: sqrt n)
BETA_SCALE = 2.0        # srgd without theory: beta = BETA_SCALE x curvature
SRGD_CLIP_RATIO = 0.25  # srgd without theory: clip of the eta-weighted differences / L
SRGD_RADIUS = 10.0      # srgd: radius R of the l2 ball when none is given


STREAM_OPTIONS = (
    Option("batch_size", "int", None, low=1, doc="examples per step (None: ceil(2 sqrt(n)))"),
    Option("learning_rate", "float", None, low=0, low_open=True, high=math.inf, high_open=True,
           doc="step size (None: from the curvature)"),
    Option("momentum", "float", MOMENTUM, low=0, high=1, high_open=True, doc="heavy-ball momentum"),
    Option("decay", "float", DECAY, low=0, high=1, high_open=True, doc="learning-rate decay"),
    Option("clip", "float", None, low=0, low_open=True, high=math.inf, high_open=True,
           doc="per-example gradient clip"),
    Option("band", "int", BAND, low=1, doc="band of the matrix-factorisation noise"),
    Option("workload", "str", "true", choices=("true", "ones"),
           doc="matrix-factorisation workload"),
    Option("beta_scale", "float", BETA_SCALE, low=0, low_open=True, high=math.inf,
           high_open=True, doc="scale of the SRGD averaging weight"),
    Option("n_rows", "int", None, low=1,
           doc="public length of the whole stream (its rows over every partial_fit), which "
               "calibrates the batch size (None: the first chunk's size)"),
)
"""Accepted ``solver_options`` of every streaming solver (paper 003), as a solver-spec tuple."""


@dataclass
class StreamOptions:
    """Public constants of a streaming run (from bounds and parameters only).

    ``lipschitz`` and ``smoothness`` are per-example bounds ``L`` and ``M``
    (worst case, for theory mode); ``curvature`` the practical curvature
    scale behind the learning rate.
    """

    solver: str
    lipschitz: float
    smoothness: float
    curvature: float
    batch_size: int | None = None
    learning_rate: float | None = None
    momentum: float = MOMENTUM
    decay: float = DECAY
    clip: float | None = None
    band: int = BAND
    n_rows: int | None = None
    workload: str = "true"
    radius: float | None = None
    beta_scale: float = BETA_SCALE
    theory: bool = False
    verbose: int = 0

    @classmethod
    def from_dict(cls, solver, options, **bounds):
        """Options from a user dict, checked against :data:`STREAM_OPTIONS` (ValueError)."""
        by_name = {o.name: o for o in STREAM_OPTIONS}
        options = dict(options or {})
        unknown = set(options) - set(by_name)
        if unknown:
            raise ValueError(f"unknown solver_options for solver={solver!r}: "
                             f"{sorted(unknown)}; known: {sorted(by_name)}.")
        checked = {k: by_name[k].check(v, solver) for k, v in options.items()}
        return cls(solver=solver, **bounds, **checked)


@dataclass
class StreamState:
    """Everything a stream carries between ``partial_fit`` calls (picklable). **Secret**:
    ``rng`` and ``noise_past`` give the noise in the released iterates.

    ``theta`` is the released model (the last iterate, ``y_T`` for srgd).
    ``mechanism`` None: a new pass is due (:func:`new_pass`); ``passes``
    counts the passes (each a mechanism of its own).
    """

    theta: object
    rng: np.random.Generator
    mu: float
    batch_size: int
    clip: float
    learning_rate: float
    sigma: float = 0.0
    step: int = 0
    prev: object = None          # x_{t-1}
    current: object = None       # x_t
    grad: object = None          # SRG estimate g_{t-1}
    velocity: object = None      # heavy-ball velocity
    z: object = None             # srgd
    prefix: object = None        # srgd: noisy prefix sum S at the end of the last chunk
    beta: float | None = None           # srgd
    coef: np.ndarray | None = None      # MF coefficients
    mechanism: object = None     # TreeMechanism or MatrixMechanism: recorded, public constants
    noise_past: deque = field(default_factory=deque)
    n_seen: int = 0
    calls: int = 0
    passes: int = 1


def new_pass(state):
    """``state``, marked to start a new pass over records the stream may have read already.

    The next :func:`run_stream` on it opens (and records) a new mechanism
    calibrated to its ``mu`` and draws fresh noise: the matrix-factorisation
    noise of the previous pass is not continued, so that the passes are
    independent mechanisms and compose (Gaussian DP: ``mu sqrt(k)`` over
    ``k`` passes). The model (iterate, momentum, SRG estimate, srgd's
    sequences) continues. ``state`` itself is not modified.

    Parameters
    ----------
    state : StreamState
        A stream's state.

    Returns
    -------
    state : StreamState
        A shallow copy, its mechanism cleared.

    Examples
    --------
    >>> import numpy as np
    >>> state = StreamState(theta=np.zeros(2), rng=np.random.default_rng(0), mu=1.0,
    ...                     batch_size=4, clip=1.0, learning_rate=0.1, mechanism="recorded")
    >>> new_pass(state).mechanism is None, state.mechanism
    (True, 'recorded')
    """
    return replace(state, mechanism=None)


def theory_constants(L, M, R, n, d, epsilon, delta):
    """Batch size, beta and clip of paper 003 Thm 4.10 / Cor. 4.5.

    ``B = min(sqrt n, (L + 2MR) n**1.5 eps / (4 sqrt2 R sqrt d log2(T)**1.5
    sqrt(ln(4T/delta) ln(2.5/delta))))`` (the printed ``ln(2.5)/delta`` is a
    typo), ``beta = M + (8L + 16MR) n**1.5 / (R B**2)``,
    clip ``4L + 8MR`` on the eta-weighted differences.

    Examples
    --------
    >>> B, beta, clip = theory_constants(1.41, 0.5, 10.0, 60000, 7850, 1.0, 1e-6)
    >>> B, round(clip, 1)
    (85, 45.6)
    """
    B = max(1, math.isqrt(int(n)))
    if math.isfinite(epsilon):
        T = max(2.0, n / B)
        cap = ((L + 2 * M * R) * n**1.5 * epsilon
               / (4 * math.sqrt(2) * R * math.sqrt(d) * math.log2(T) ** 1.5
                  * math.sqrt(math.log(4 * T / delta) * math.log(2.5 / delta))))
        B = max(1, min(B, int(cap)))
    beta = M + (8 * L + 16 * M * R) * n**1.5 / (R * B**2)
    return B, beta, 4 * L + 8 * M * R


def _say(opts, text):
    if opts.verbose:
        print(text, flush=True)


def _project(theta, radius, xp):
    if radius is None or math.isinf(radius):
        return theta
    norm = float(xp.sqrt(xp.sum(theta * theta)))
    return theta * (radius / norm) if norm > radius else theta


def _mf_coefficients(opts, decay):
    if opts.solver == "dpsgd":
        return np.ones(1)
    decays = (1.0,) if opts.workload == "ones" else (1.0, opts.momentum, decay)
    return sqrt_toeplitz_coefficients(int(opts.band), tuple(a for a in decays if a > 0))


def _start(problem, opts, n, mu, epsilon, delta, rng, xp):
    """The state of a new stream: calibrated once, from the stream's public length
    (``opts.n_rows``, else the first chunk's size)."""
    n = int(opts.n_rows or n)
    theory = opts.solver == "srgd" and opts.theory
    if opts.solver == "srgd":
        R = opts.radius if opts.radius is not None else SRGD_RADIUS
        B, beta, clip = theory_constants(opts.lipschitz, opts.smoothness, R, n,
                                         problem.n_params, epsilon, delta)
        if not theory:
            B = max(1, math.ceil(BATCH_FACTOR * math.sqrt(n)))
            beta = opts.beta_scale * opts.curvature
            clip = SRGD_CLIP_RATIO * opts.lipschitz
        B = int(opts.batch_size or B)
        clip = float(opts.clip or clip)
        lr = 1.0 / beta
    else:
        B = int(opts.batch_size or max(1, math.ceil(BATCH_FACTOR * math.sqrt(n))))
        clip = float(opts.clip or CLIP_RATIO * opts.lipschitz)
        lr = float(opts.learning_rate or STEP_SCALE / opts.curvature)
        beta = None
    theta = problem.initial()
    state = StreamState(theta=theta, rng=rng, mu=float(mu), batch_size=B, clip=clip,
                        learning_rate=lr, beta=beta)
    if opts.solver != "srgd":
        state.coef = _mf_coefficients(opts, opts.decay if opts.solver == "srg_memf" else 0.0)
        state.sigma = mf_sigma(_sensitivity(state), mu, state.coef)
        state.noise_past = deque(maxlen=state.coef.shape[0] - 1)
    state.current = theta
    return state


def _renew(state, opts, mu):
    """Calibrate a new pass's noise to ``mu`` (its calibration constants, batch size and clip,
    are the stream's); the banded noise restarts (no past shared with an earlier pass)."""
    state.mu = float(mu)
    state.passes += 1
    if opts.solver != "srgd":
        state.sigma = mf_sigma(_sensitivity(state), state.mu, state.coef)
        state.noise_past = deque(maxlen=state.coef.shape[0] - 1)


def _batches(n, B, rng):
    order = rng.permutation(n)  # data-independent: public seed, public n
    return [order[s:s + B] for s in range(0, n, B)]


def run_stream(problem, opts, *, mu, epsilon, delta, budget, state=None):
    """One pass over ``problem``'s examples, continuing ``state`` (None: a new stream).

    Parameters
    ----------
    problem : object
        Gives ``n``, ``shape``, ``dtype``, ``n_params``, ``initial()``, ``batch(idx)``,
        ``residuals(batch, theta)``, ``clipped_sum(batch, a, res1, c, res0, clip)``
        and ``penalty(theta)`` (see :mod:`skdp.solvers.streaming.problems`).
    opts : StreamOptions
    mu : float
        GDP parameter of the whole stream (inf: no noise).
    epsilon, delta : float
        The budget (only the Thm 4.10 batch size uses them).
    budget : Budget
        The fit's budget (its namespace, generator and ledger). A new stream
        takes the generator and opens its mechanism on a share of the budget
        (``mu``-GDP, recorded in the fit's ledger); so does a new
        pass (a state from :func:`new_pass`: a new mechanism at ``mu``, its
        noise fresh, drawn from the state's generator). A continued stream
        records nothing: its records are new, its noise the same mechanism.
    state : StreamState, default=None
        Not modified: the continued state is a copy.

    Returns
    -------
    state : StreamState
    """
    n, xp = int(problem.n), budget.backend.xp
    if state is None:
        state = _start(problem, opts, n, mu, epsilon, delta, budget.backend.rng, xp)
        state.mechanism = _open(budget, opts, state, n, epsilon, delta)
    else:  # all or nothing: a chunk that fails leaves the caller's state (and rng) untouched
        state = copy.deepcopy(state)
        if state.mechanism is None:  # a new pass: a mechanism of its own, fresh noise
            _renew(state, opts, mu)
            state.mechanism = _open(budget, opts, state, n, epsilon, delta)
    backend = Backend(xp, getattr(problem, "device", None), state.rng)
    batches = _batches(n, state.batch_size, state.rng)
    if opts.solver == "srgd":
        _srgd_chunk(problem, opts, state, batches, backend)
    else:
        _momentum_chunk(problem, opts, state, batches, backend)
    state.n_seen += n
    state.calls += 1
    return state


def _sensitivity(state):
    """l2-sensitivity of one stream element: a replaced record moves its batch's clipped sum
    by at most ``2G``, divided by the public batch size."""
    return 2.0 * state.clip / state.batch_size


def _tree_node_sigma(state, n_batches):
    """Per-node sigma making a chunk's tree ``mu``-GDP (``rho = mu**2 / 2``, Lemma 4.3)."""
    return tree_sigma(_sensitivity(state), state.mu**2 / 2.0, max(1, n_batches))


def _open(fit, opts, state, n, epsilon, delta):
    """The stream's mechanism, on a ``state.mu``-GDP share of ``fit`` (nothing when ``mu = inf``).

    srgd: a tree per chunk at ``mu`` (the first chunk's tree is the record;
    later chunks hold other records: parallel composition). Others: ``C x +
    Z`` over the whole stream.
    """
    budget = fit.share(state.mu**2 / 2.0, mu=state.mu, exclusive=True, epsilon=epsilon,
                       delta=delta, gdp_only=True)
    sens = _sensitivity(state)
    if opts.solver == "srgd":
        n_batches = math.ceil(n / state.batch_size)
        return TreeMechanism.open(budget, sens, _tree_node_sigma(state, n_batches),
                                  max(1, n_batches),
                                  label="srgd: binary-tree prefix sums (paper 003 Lemma 4.3)")
    return MatrixMechanism.open(budget, sens, state.sigma, state.coef,
                                label=f"{opts.solver}: MF noise (Denisov et al. 2022 Thm 2.1)")


def _momentum_chunk(problem, opts, state, batches, backend):
    """srg_memf / memf / dpsgd (paper 003 Alg. 3 corrected, Alg. 2)."""
    xp = backend.xp
    c = opts.decay if opts.solver == "srg_memf" else 0.0
    noise = state.mechanism.noise(problem.shape, backend, past=state.noise_past)
    B = state.batch_size
    for i, idx in enumerate(batches):
        batch = problem.batch(idx)
        x = state.current
        res1 = problem.residuals(batch, x)
        if c > 0 and state.prev is not None:
            res0 = problem.residuals(batch, state.prev)
            delta = problem.clipped_sum(batch, 1.0, res1, c, res0, state.clip) / B
        else:
            delta = problem.clipped_sum(batch, 1.0, res1, 0.0, None, state.clip) / B
        if state.sigma > 0:
            delta = delta + noise.next(dtype=delta.dtype)
        g = delta if (c == 0 or state.grad is None) else c * state.grad + delta
        step = g + problem.penalty(x)
        v = step if state.velocity is None else opts.momentum * state.velocity + step
        new = _project(x - state.learning_rate * v, opts.radius, xp)
        state.prev, state.current, state.grad, state.velocity = x, new, g, v
        state.step += 1
        if opts.verbose and (i % max(len(batches) // 10, 1) == 0 or i == len(batches) - 1):
            _say(opts, f"[{opts.solver}] step {state.step} ({i + 1}/{len(batches)} of this "
                       f"chunk), noise sigma={state.sigma:.3g}")
    state.noise_past = noise.past
    state.theta = state.current


def _srgd_chunk(problem, opts, state, batches, backend):
    """Accelerated-DP-SRGD (paper 003 Alg. 1), eta_t = t + 1 over the whole stream."""
    xp = backend.xp
    B, R = state.batch_size, (opts.radius if opts.radius is not None else SRGD_RADIUS)
    sigma = _tree_node_sigma(state, len(batches))
    tree = state.mechanism.aggregator(problem.shape, len(batches), backend, sigma=sigma)
    if state.z is None:
        state.z = state.current
    for i, idx in enumerate(batches):
        t = state.step
        eta, eta_prev = float(t + 1), float(t)
        batch = problem.batch(idx)
        x = state.current
        res1 = problem.residuals(batch, x)
        if t > 0:
            res0 = problem.residuals(batch, state.prev)
            inc = problem.clipped_sum(batch, eta, res1, eta_prev, res0, state.clip) / B
        else:  # eta_{-1} = 0: a plain batch gradient
            inc = problem.clipped_sum(batch, eta, res1, 0.0, None, state.clip) / B
        S = tree.add(inc)
        if state.prefix is not None:
            S = S + state.prefix
        grad = S / eta + problem.penalty(x)
        state.z = _project(state.z - (eta / state.beta) * grad, R, xp)
        y = _project(x - grad / state.beta, R, xp)
        tau = 2.0 / (t + 3.0)
        state.prev, state.current = x, (1.0 - tau) * y + tau * state.z
        state.theta = y
        state.step += 1
        if opts.verbose and (i % max(len(batches) // 10, 1) == 0 or i == len(batches) - 1):
            _say(opts, f"[srgd] step {state.step} ({i + 1}/{len(batches)} of this chunk), "
                       f"tree node sigma={sigma:.3g}")
    state.prefix = S
