"""Selection and measurement on a graphical model: MST (one shot) and AIM (adaptive).

Both solvers measure marginals of the table with the Gaussian mechanism and
fit a graphical model to the noisy answers
(:func:`~skdp.solvers.synth.graphical.estimate`: private-pgm's estimation,
McKenna, Sheldon, Miklau 2019), which is post-processing; they differ in how
the marginals to measure are chosen, privately, by the exponential mechanism.
In the game view of paper 002 (§1.4 eq. (3)) the selection is the query
player (MWEM's and AIM's) and the graphical model the histogram player,
restricted to the exponential family over the measured cliques so that it fits
in memory on tables of any width.

``mst`` (McKenna, Miklau, Sheldon 2021, Alg. 1)
    The zCDP budget ``rho`` in thirds: every 1-way marginal measured in one
    Gaussian release; a maximum spanning tree over the column pairs, each of
    its ``d - 1`` edges chosen (Kruskal-style, among the pairs joining two
    components) by one exponential mechanism on the L1 error of the pair
    under the model of the 1-way measurements; the tree's 2-way marginals
    measured in one Gaussian release. With at most two columns there is no
    selection and both releases are Gaussian: the fit is planned in Gaussian DP
    (:mod:`skdp.privacy.gdp_plan`) and they split its ``mu`` (``sigma_i = Delta_i /
    mu_i``, ``mu_1**2 + mu_2**2 = mu**2``, Dong–Roth–Su 2022 Cor. 3.3), the
    composition the fit's ledger charges them by (:func:`mst_gdp_shares`), so that
    they spend the whole budget.

``aim`` (McKenna, Mullins, Sheldon, Miklau 2022, Alg. 1 and 2)
    The candidates are the workload and its downward closure, candidate ``r``
    weighted ``w_r = sum_W |r & W|``. Every 1-way marginal is measured first;
    then each round selects, by the exponential mechanism, the candidate of
    largest bias-corrected error ``w_r (||M_r(D) - M_r(p)||_1 - sqrt(2/pi)
    sigma n_r)`` among those whose addition keeps the model within
    ``max_model_size * rho_used / rho`` cells (or that are already inside a
    clique), measures it, and re-estimates the model from a warm start. When
    the new model's answer moved by less than the expected noise, the round
    budget is raised (``sigma /= 2``, ``epsilon *= 2``). The round that can no
    longer be paid twice spends exactly what remains.

Both measure the 1-way marginals in one release with the same noise for every column
(``solver_options['oneway_split'] = 'equal'``, the default), or ``'cells'``: one release per
column, its share of the same budget in proportion to ``k_i**(2/3)`` (``k_i`` its public
cells), the split of least expected L1 error (:func:`oneway_shares`).

Both combine each column's 1-way measurement with the 1-way measurement of that column
released before the solver ran, where the problem carries one (``TableProblem.released``:
the synthesizer's fine grid counts summed to the model's bins), by inverse-variance
weighting per cell (:mod:`.released`), before anything reads the 1-way measurements (the
domain compression, the first model, MST's tree and AIM's selection scores): a function of
released values, so post-processing with no charge.

Both hold as fixed zeros in their final estimation the numeric columns' cells (those with a
released measurement) whose combined 1-way measurement is below ``solver_options['zero_below']``
noise sds (default 1 for aim, 0 for mst: ``benchmarks/RESULTS.md``), never a column's largest,
in the columns whose noisy 1-way mean count a cell is at least ``solver_options['zero_spread']``
noise sds (default 12), and of those cells the runs at the column's ends and the clear holes
between two strong cells (:func:`.released.near_zero`, Base-Cut, Wang et al. 2020, gated by
size and by position): the model is refitted with those cells at 0 as around structural zeros,
and the sampler never draws them. A function of the released measurements and their sds: no charge.

Privacy (every release through :class:`~skdp.privacy.budget.Budget`, a zCDP
filter over ``rho``): a marginal's counts have l2-sensitivity ``sqrt 2``
under replace-one neighbours and 1 under add/remove, so ``k`` stacked
marginals ``sqrt(2 k)`` and ``sqrt(k)`` (Gaussian: ``Delta**2 / (2
sigma**2)``-zCDP, Bun–Steinke 2016 Prop. 1.6). An L1 error score moves by at
most 2 (replace-one; 1 under add/remove) times its weight, the model being
fixed by earlier releases; an epsilon-DP exponential mechanism is
``epsilon**2 / 8``-zCDP (bounded range, Cesar–Rogers 2021 Lemma 3.2). The
filter's fixed total makes the adaptive choices (AIM's annealing) valid
(fully adaptive composition, Whitehouse et al. 2023).

Under add/remove, each Gaussian measurement also records its replace-one
sensitivity (``sqrt 2`` times: :func:`~skdp.solvers.synth.marginals.replace_one_sensitivity`),
so a replace-one budget counts it at ``sqrt 2 mu``; the selections keep
group privacy's ``2 epsilon`` there, which is also what the exponential
mechanism's own bound gives (its epsilon is ``2 Delta`` times its logits'
scale, McSherry–Talwar 2007, and the L1 score's sensitivity ``Delta``
doubles, 1 to 2, between the relations): nothing tighter is claimed.
"""

from dataclasses import dataclass, field
from itertools import combinations
import math

import numpy as np

from ...privacy.gdp_plan import gdp_shares
from ..spec import SolverResult
from . import graphical
from .compress import CompressedModel, compress, compress_codes, compress_zeros, protected
from .junction_tree import _min_fill_masks
from .marginals import replace_one_sensitivity
from .released import combine_oneways, near_zero, with_cut

__all__ = ["TableProblem", "PartitionTable", "marginal_counts", "solve_mst", "solve_aim",
           "downward_closure", "AIM_MODEL_SIZE", "model_cap"]

AIM_MODEL_SIZE = 200_000
"""The default cap on AIM's model cells (1.6 MB of float64; upstream AIM's is 80 MB, 10**7
cells): on the validation tables of ``benchmarks/synth_validation.py`` the smaller cap
gave the same 2-way error at 1/3 to 1/4 of the time."""
PREFETCH_CELLS = 10**7
"""On a partitioned table AIM counts all its candidates in one pass up front when their cells
(public) are at most this many (80 MB of float64); else each round counts, in one pass, the
admissible ones it lacks."""
ESTIMATE_ITER = 1000
"""Default iterations of MST's final estimation (private-pgm's)."""
AIM_ESTIMATE_ITER = 300
"""Default iterations of AIM's final estimation, warm started from its last round's model
(chosen on the validation tables of ``benchmarks/synth_validation.py``)."""


@dataclass
class TableProblem:
    """A table encoded column by column, for the graphical-model solvers.

    Parameters
    ----------
    shape : tuple of int
        Column cardinalities (public).
    workload : list of tuple of int
        The workload marginals as sorted column indices.
    codes : ndarray of shape (n, d)
        Each record's code in each column (host NumPy; private).
    relation : {'replace_one', 'add_remove'}
        Neighbouring relation of the guarantee.
    n_iter : int, default=None
        Iterations of the final estimation (``None``: 1000).
    progress : callable, default=None
        ``progress(template, *cliques)``, called once per round: ``template``
        holds one ``{}`` per clique (a tuple of column indices), which the
        caller fills with the columns' names (the estimator's feature names).
    zeros : dict, default=None
        Structural zeros (public, from the domain: :mod:`skdp._domain.forbid`):
        ``{cols: boolean mask}``, True on the cells that cannot occur. Every model
        the solvers estimate holds each ``cols`` as a clique with those cells fixed
        at probability 0 (:func:`~skdp.solvers.synth.graphical.estimate`): no
        measurement, no budget.
    released : dict, default=None
        1-way measurements of columns released before the solver's (``{column:
        Measurement}``: the fine grids' counts summed to the model's bins, public), each
        combined with the solver's own 1-way measurement of its column
        (:func:`~skdp.solvers.synth.released.combine_oneways`; post-processing, no
        budget) when the fit is private.

    Examples
    --------
    >>> import numpy as np
    >>> p = TableProblem((2, 3), [(0, 1)], np.array([[0, 2], [1, 2]]))
    >>> p.counts((1,)).tolist()
    [0.0, 0.0, 2.0]
    """

    shape: tuple
    workload: list
    codes: np.ndarray
    relation: str = "replace_one"
    n_iter: int | None = None
    progress: object = None
    zeros: dict | None = None
    released: dict | None = None
    _cache: dict = field(default_factory=dict, repr=False)
    partitioned = False  # a pass over the rows is cheap: count each marginal when needed

    @property
    def n(self):
        return int(self.codes.shape[0])

    @property
    def d(self):
        return len(self.shape)

    def cells(self, cols):
        return math.prod(self.shape[j] for j in cols)

    def counts(self, cols):
        """The data's counts on marginal ``cols`` (flat, C order; private)."""
        self.prefetch([cols])
        return self._cache[cols]

    def prefetch(self, cliques):
        """Count every marginal of ``cliques`` not counted yet, in one pass over the rows."""
        todo = [c for c in dict.fromkeys(map(tuple, cliques)) if c not in self._cache]
        if todo:
            self._cache.update(zip(todo, self._count(todo)))

    def _count(self, cliques):
        return marginal_counts({"codes": self.codes}, self.shape, cliques)

    def recode(self, shape, merges):
        """The problem on a compressed domain (:func:`.compress.compress_codes`)."""
        return TableProblem(shape, self.workload, compress_codes(self.codes, self.shape, merges),
                            self.relation, self.n_iter, self.progress,
                            compress_zeros(self.zeros, merges))

    def l2_sensitivity(self):
        """Of one marginal's counts: ``sqrt 2`` (replace-one) or 1 (add/remove)."""
        return math.sqrt(2.0) if self.relation == "replace_one" else 1.0

    def l1_sensitivity(self):
        """Of an L1 error against a fixed model: 2 (replace-one) or 1 (add/remove)."""
        return 2.0 if self.relation == "replace_one" else 1.0

    def say(self, template, *cliques):
        """Report progress: ``template`` has one ``{}`` per clique (column indices)."""
        if self.progress is not None:
            self.progress(template, *cliques)


def marginal_counts(part, shape, cliques):
    """The counts (float64, flat, C order) of every marginal of ``cliques`` on the rows
    ``part["codes"]`` (int array of shape (rows, d)): additive over row blocks, so the
    in-memory table and the partitions of a Dask table (:class:`PartitionTable`) share it.

    Examples
    --------
    >>> part = {"codes": np.array([[0, 2], [1, 2]])}
    >>> [c.tolist() for c in marginal_counts(part, (2, 3), [(0,), (1,)])]
    [[1.0, 1.0], [0.0, 0.0, 2.0]]
    """
    codes = part["codes"]
    out = []
    for cols in cliques:
        sub = tuple(shape[j] for j in cols)
        idx = np.ravel_multi_index(tuple(codes[:, j] for j in cols), sub)
        out.append(np.bincount(idx, minlength=math.prod(sub)).astype(np.float64))
    return out


def _recode_part(part, shape, merges):
    return {"codes": compress_codes(part["codes"], shape, merges)}


class PartitionTable(TableProblem):
    """A :class:`TableProblem` whose rows are the partitions of a Dask table.

    ``codes`` is a :class:`~skdp._partitions.Partitions` whose partitions hold
    ``{"codes": (rows, d)}`` (unsigned integers); every batch of counts is one reduction of
    :func:`marginal_counts` over the partitions, summed on the client. The solvers
    call :meth:`prefetch` with the marginals a step needs, so that a step is one pass.

    Examples
    --------
    >>> import dask.array as da
    >>> from skdp._partitions import Partitions
    >>> parts = Partitions.from_arrays({"codes": da.from_array(np.array([[0, 2], [1, 2]]),
    ...                                                        chunks=(1, 2))})
    >>> PartitionTable((2, 3), [(0, 1)], parts).counts((1,)).tolist()
    [0.0, 0.0, 2.0]
    """

    partitioned = True

    @property
    def n(self):
        return self.codes.n

    def _count(self, cliques):
        return self.codes.reduce(marginal_counts, self.shape, cliques)

    def recode(self, shape, merges):
        parts = self.codes.with_parts(_recode_part, self.shape, merges)
        return PartitionTable(shape, self.workload, parts, self.relation, self.n_iter,
                              self.progress, compress_zeros(self.zeros, merges))


def downward_closure(marginals):
    """Every non-empty subset of the marginals, sorted by size.

    Examples
    --------
    >>> downward_closure([(0, 1), (1, 2)])
    [(0,), (1,), (2,), (0, 1), (1, 2)]
    """
    out = {sub for m in marginals for k in range(1, len(m) + 1) for sub in combinations(m, k)}
    return sorted(out, key=lambda c: (len(c), c))


def _measure(problem, budget, marginals, rho, label, mu=None):
    """One Gaussian release of the stacked counts of ``marginals``, costing ``rho``
    (zCDP), or ``mu``-GDP when ``mu`` is given (``sigma = Delta / mu``: :func:`gdp_sigma`).

    l2-sensitivity ``sqrt(k) * problem.l2_sensitivity()``; returns the
    :class:`~skdp.solvers.synth.graphical.Measurement` list and sigma.
    """
    if not marginals:
        return [], 0.0
    sens = math.sqrt(len(marginals)) * problem.l2_sensitivity()
    replace = replace_one_sensitivity(sens, problem.relation)
    problem.prefetch(marginals)
    exact = np.concatenate([problem.counts(m) for m in marginals])
    if mu is None:
        sigma = budget.sigma(sens, rho)
        noisy = budget.gaussian(exact, sens, sigma, label=label, replace_sensitivity=replace)
    else:
        sigma = gdp_sigma(sens, mu)
        noisy = budget.gaussian_gdp(exact, sens, sigma, label=label,
                                    replace_sensitivity=replace)
    noisy = np.asarray(noisy, dtype=np.float64)
    out, start = [], 0
    for m in marginals:
        c = problem.cells(m)
        out.append(graphical.Measurement(m, noisy[start:start + c], _weight_sigma(sigma)))
        start += c
    return out, sigma


def oneway_shares(cells, split):
    """Each column's share of the first 1-way budget: ``'equal'`` (``1 / d``) or ``'cells'``
    (``k_i**(2/3) / sum_j k_j**(2/3)``, ``k_i`` the column's public number of cells).

    ``'cells'`` minimises the expected L1 error of the noisy counts, ``sqrt(2/pi) sum_i k_i
    sigma_i``, under the zCDP total ``sum_i Delta**2 / (2 sigma_i**2) = rho`` (Lagrange:
    ``k_i = 2 lambda sigma_i**-3``, so ``sigma_i`` is proportional to ``k_i**(-1/3)`` and
    ``rho_i`` to ``k_i**(2/3)``). The shares depend on the public domain only and sum to 1.

    Examples
    --------
    >>> np.round(oneway_shares([27, 8, 1], "cells"), 4).tolist()  # 9 : 4 : 1
    [0.6429, 0.2857, 0.0714]
    """
    cells = np.asarray(cells, dtype=np.float64)
    if split == "equal":
        return np.full(cells.shape, 1.0 / cells.size)
    weights = cells ** (2.0 / 3.0)
    return weights / weights.sum()


def _measure_oneways(problem, budget, rho, label, split, mu=None):
    """Every column's 1-way marginal at ``rho`` zCDP in all (``mu``-GDP when given).

    ``split='equal'``: one release of the stacked marginals (:func:`_measure`). ``'cells'``:
    one release per column at ``rho_i = s_i rho`` (``mu_i = sqrt(s_i) mu``), ``s_i`` from
    :func:`oneway_shares`; they compose to ``sum_i rho_i = rho`` (zCDP composition,
    Bun–Steinke 2016 Lemma 2.3) or ``sqrt(sum_i mu_i**2) = mu`` (Dong–Roth–Su Cor. 3.3),
    the same total as the equal split. Returns the measurements and the noise sd (one
    float for ``'equal'``, an array of the columns' sds for ``'cells'``).
    """
    oneways = [(j,) for j in range(problem.d)]
    if split == "equal" or problem.d < 2:
        return _measure(problem, budget, oneways, rho, label, mu)
    shares = oneway_shares([problem.cells(m) for m in oneways], split)
    problem.prefetch(oneways)
    ones, sigmas = [], []
    for m, s in zip(oneways, shares):
        part, sigma = _measure(problem, budget, [m], s * rho, f"{label}: column {m[0]}",
                               None if mu is None else math.sqrt(s) * mu)
        ones += part
        sigmas.append(sigma)
    return ones, np.array(sigmas)


def gdp_sigma(sensitivity, mu):
    """The noise of a ``mu``-GDP Gaussian release: ``sigma = Delta / mu`` (Dong–Roth–Su 2022,
    Thm 2.7).

    Examples
    --------
    >>> gdp_sigma(2.0, 0.5)
    4.0
    """
    return sensitivity / mu


def mst_gdp_shares(budget, d):
    """The GDP parameters of MST's two Gaussian releases when they are all it releases, else None.

    With at most two columns MST selects nothing (:func:`mst_shares`: no exponential
    mechanism), so the fit's every release is Gaussian and it is planned in GDP (the one
    plan, :mod:`skdp.privacy.gdp_plan`): the budget carries the GDP filter ``mu`` (the
    exact ``mu`` of the fit's (epsilon, delta less the thresholds' delta), Dong–Roth–Su 2022
    Cor. 2.13, or the solver's share of it), and the shares of :func:`mst_shares` split
    ``mu**2`` by :func:`~skdp.privacy.gdp_plan.gdp_shares`: ``mu_1 = mu sqrt(s_1)``,
    ``mu_2 = mu sqrt(s_3)``, each release at ``sigma = Delta / mu_i``, composing to ``mu``
    (Cor. 3.3), which the ledger converts exactly. Returns ``(mu_1, mu_2)`` or None (three or
    more columns: the selections are exponential mechanisms, composed in zCDP, which is what
    the ledger charges them by; or a budget without a GDP filter, or not private).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> b = SimpleNamespace(private=True, mu=0.5, mu_remaining=0.5)  # a fresh budget's filter
    >>> [round(m, 6) for m in mst_gdp_shares(b, 2)], mst_gdp_shares(b, 3)
    ([0.353553, 0.353553], None)
    """
    mu = budget.mu
    one, sel, two = mst_shares(d)
    if not budget.private or mu is None or not math.isfinite(mu) or sel > 0:
        return None
    return gdp_shares(budget.mu_remaining, (one, two))


def _weight_sigma(sigma):
    """The sigma that weights a measurement in the estimate (1 when exact: epsilon = inf)."""
    return sigma if sigma > 0 else 1.0


def _total(problem, oneways):
    """The model's total: ``n`` (public under replace-one), else the mean noisy 1-way total."""
    if problem.relation == "replace_one" or not oneways:
        return float(problem.n)
    return max(1.0, float(np.mean([m.values.sum() for m in oneways])))


def _model_counts(model, marginals):
    """``{r: model.project_counts(r).ravel()}``: the pairs in no common clique from one
    sweep of the tree per column (:meth:`~.graphical.GraphicalModel.pair_counts`, equal
    to within rounding), the others one by one."""
    sets = [frozenset(c) for c in model.cliques]
    pairs = [r for r in marginals if len(r) == 2 and not any(r[0] in c and r[1] in c
                                                             for c in sets)]
    out = model.pair_counts(pairs) if pairs and hasattr(model, "pair_counts") else {}
    for r in marginals:
        if r not in out:
            out[r] = np.ravel(model.project_counts(r))
    return out


def _l1(problem, model, cols):
    return float(np.abs(problem.counts(cols) - np.ravel(model.project_counts(cols))).sum())


# ---------------------------------------------------------------------------
# MST
# ---------------------------------------------------------------------------
def mst_shares(d):
    """Budget shares (1-way, tree selection, tree measurement) of ``d`` columns.

    Thirds (MST Alg. 1); with two columns the one pair is the tree (no
    selection: halves); with one column, all to the 1-way marginal.

    Examples
    --------
    >>> mst_shares(5), mst_shares(2)
    ((0.3333333333333333, 0.3333333333333333, 0.3333333333333333), (0.5, 0.0, 0.5))
    """
    if d >= 3:
        return (1.0 / 3.0,) * 3
    return (0.5, 0.0, 0.5) if d == 2 else (1.0, 0.0, 0.0)


def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def spanning_tree(problem, budget, model, rho):
    """``d - 1`` edges, each chosen by one exponential mechanism costing ``rho / (d - 1)``.

    Kruskal-style (MST Alg. 1, after Kruskal with a private choice): the
    candidates of a step are the pairs joining two components of the edges so
    far (union-find); the score of a pair is its L1 error under ``model``
    (fixed: the 1-way model), sensitivity :meth:`TableProblem.l1_sensitivity`.
    """
    d = problem.d
    pairs = list(combinations(range(d), 2))
    if d == 2:
        return pairs
    problem.prefetch(pairs)
    scores = np.array([_l1(problem, model, p) for p in pairs])
    parent = list(range(d))
    edges = []
    for step in range(d - 1):
        cand = [k for k, (a, b) in enumerate(pairs) if _find(parent, a) != _find(parent, b)]
        pick = budget.select(scores[cand], problem.l1_sensitivity(), rho / (d - 1),
                             label=f"MST edge {step + 1}/{d - 1} (exponential mechanism)")
        a, b = pairs[cand[pick]]
        parent[_find(parent, a)] = _find(parent, b)
        edges.append((a, b))
        problem.say(f"edge {step + 1}/{d - 1}: {{}}", (a, b))
    return sorted(edges)


def solve_mst(problem, budget, options):
    """MST (McKenna, Miklau, Sheldon 2021, Alg. 1) on a :class:`TableProblem`.

    Budget split by :func:`mst_shares` (thirds): the 1-way marginals, the
    tree's edges (:func:`spanning_tree`), the tree's 2-way marginals; the
    model is estimated from all of them (post-processing). Between the 1-way
    and the pair measurements every column's values whose noisy count is below
    ``compress`` noise standard deviations are merged (MST §4,
    :mod:`.compress`; post-processing of the 1-way release), and the model is
    fitted on the compressed domain and read on the original one
    (:class:`~skdp.solvers.synth.compress.CompressedModel`). ``options``:
    ``estimate_iter`` (iterations of the 1-way model the tree is scored on),
    ``compress`` (the threshold in noise sds; 0: none).

    Returns
    -------
    SolverResult
        ``solution``: the :class:`~skdp.solvers.synth.graphical.GraphicalModel`
        (a :class:`~skdp.solvers.synth.compress.CompressedModel` when a column
        was compressed); ``info``: noise scales, the measured marginals and their
        noisy ``measurements`` (:class:`~.graphical.Measurement`, on the compressed
        domain), ``n_estimate``, the compressed cardinalities.
    """
    rho = budget.rho
    one, sel, two = mst_shares(problem.d)
    mu1, mu2 = mst_gdp_shares(budget, problem.d) or (None, None)
    oneways = [(j,) for j in range(problem.d)]
    ones, sigma1 = _measure_oneways(problem, budget, one * rho, "MST: 1-way marginals",
                                    options["oneway_split"], mu1)
    total = _total(problem, ones)
    ones = _with_released(problem, budget, ones)
    data, merges, ones = _compress(problem, budget, ones, options["compress"])
    edges = []
    if problem.d >= 2:
        base = graphical.estimate(data.shape, ones, total=total,
                                  n_iter=options["estimate_iter"], zeros=data.zeros)
        edges = spanning_tree(data, budget, base, sel * rho)
    pairs, sigma2 = _measure(data, budget, edges, two * rho, "MST: tree 2-way marginals", mu2)
    n_iter = ESTIMATE_ITER if problem.n_iter is None else problem.n_iter
    model = graphical.estimate(data.shape, ones + pairs, total=total, n_iter=n_iter,
                               zeros=_zero_cut(problem, budget, ones, data.zeros, options))
    return SolverResult(_read_back(model, problem, merges), n_iter, info=dict(
        noise_std_oneway=sigma1, noise_std_tree=sigma2, measured=oneways + edges,
        measurements=ones + pairs, n_estimate=total, compressed_shape=data.shape))


def _with_released(problem, budget, ones):
    """The 1-way measurements ``ones`` combined with ``problem.released`` (the releases made
    before the solver's, :mod:`.released`) when the fit is private: post-processing. The
    row-count estimate ``_total`` is taken before, from the solver's own 1-way release."""
    if not budget.private:
        return ones
    return combine_oneways(ones, problem.released)


def _zero_cut(problem, budget, ones, zeros, options):
    """The final estimation's fixed zeros: ``zeros`` (the structural ones, on the model's
    domain) and the cells of the numeric columns (those of ``problem.released``) whose combined
    1-way measurement in ``ones`` (on the model's domain) is below ``options['zero_below']``
    noise sds, in the columns whose noisy mean count a cell is at least
    ``options['zero_spread']`` noise sds (:func:`.released.near_zero`: Base-Cut, post-processing
    of released values); ``zeros`` unchanged when ``zero_below`` is 0 or the fit is not
    private."""
    k = options["zero_below"]
    if not (k > 0 and budget.private and problem.released):
        return zeros
    return with_cut(zeros, near_zero(ones, set(problem.released), k, options["zero_spread"]))


def _compress(problem, budget, ones, factor):
    """``(problem, merges, ones)`` on the domain compressed at ``factor`` noise sds.

    Post-processing of the 1-way release ``ones`` (:func:`.compress.compress`);
    unchanged when ``factor`` is 0 or the fit is not private.
    """
    if not (factor > 0 and budget.private):
        return problem, {}, ones
    shape, merges, ones = compress(problem.shape, ones, factor,
                                   protect=protected(problem.shape, problem.zeros))
    return problem.recode(shape, merges), merges, ones


def _read_back(model, problem, merges):
    """The model read on ``problem``'s domain (a :class:`CompressedModel` if any merge)."""
    return CompressedModel(model, problem.shape, merges) if merges else model


# ---------------------------------------------------------------------------
# AIM
# ---------------------------------------------------------------------------
def candidate_weights(workload):
    """AIM's candidates (the workload's downward closure) and weights ``sum_W |r & W|``.

    Examples
    --------
    >>> candidate_weights([(0, 1), (1, 2)])
    {(0,): 1.0, (1,): 2.0, (2,): 1.0, (0, 1): 3.0, (1, 2): 3.0}
    """
    work = sorted(set(workload))
    # sum_W |r & W| = sum_{j in r} #{W : j in W}: linear in the candidates (a double loop
    # over candidates and workload took a minute at 200 columns)
    per_column = {}
    for w in work:
        for j in set(w):
            per_column[j] = per_column.get(j, 0) + 1
    return {r: float(sum(per_column.get(j, 0) for j in set(r))) for r in downward_closure(work)}


def model_cap(shape, workload, cap):
    """The model-size cap: ``cap``, or when ``None`` the larger of :data:`AIM_MODEL_SIZE`
    and the largest workload marginal (so that no workload marginal is refused).

    Examples
    --------
    >>> model_cap((10, 10), [(0, 1)], None), model_cap((1000, 1000), [(0, 1)], None)
    (200000, 1000000)
    """
    if cap is not None:
        return cap
    return max([AIM_MODEL_SIZE] + [math.prod(shape[j] for j in m) for m in workload])


def check_model_size(shape, workload, cap, names=None):
    """Refuse a workload marginal larger than ``cap`` cells, naming its columns and sizes.

    Examples
    --------
    >>> check_model_size((10, 10, 10), [(0, 1)], 100)
    >>> check_model_size((10, 10, 10), [(0, 1, 2)], 100,
    ...                  names=["a", "b", "c"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the workload marginal ('a', 'b', 'c') has 1000 cells (a: 10, b: 10, c: 10), ...
    """
    names = list(range(len(shape))) if names is None else list(names)
    for m in workload:
        cells = math.prod(shape[j] for j in m)
        if cells > cap:
            sizes = ", ".join(f"{names[j]}: {shape[j]}" for j in m)
            raise ValueError(
                f"the workload marginal {tuple(names[j] for j in m)} has {cells} cells "
                f"({sizes}), more than max_model_size={cap}: pass a smaller workload, fewer "
                "bins or categories, or a larger solver_options['max_model_size'].")


SECONDS_PER_CANDIDATE = 0.005
"""About the time of scoring one candidate marginal on a wide model (200 columns, one core
of a shared 2-core machine, issue 30): the refusal's estimate of a round's time."""


def count_candidates(n_columns, workload):
    """The number of AIM's candidates (:func:`candidate_weights`) of a workload: an int
    ``k`` (all k-way marginals of ``n_columns`` columns: ``sum_{i<=k} C(d, i)``, counted
    without listing them) or a list of marginals (column tuples).

    Examples
    --------
    >>> count_candidates(200, 2), count_candidates(4, [(0, 1), (1, 2)])
    (20100, 5)
    """
    if isinstance(workload, int):
        k = min(int(workload), n_columns)
        return sum(math.comb(n_columns, i) for i in range(1, k + 1))
    return len(downward_closure([tuple(m) for m in workload]))


def check_candidates(n_columns, workload, cap):
    """Refuse up front an AIM workload with more than ``cap`` candidates, naming the
    estimate and the parameters to change (a wide table ran for hours: issue 30)."""
    if not isinstance(workload, int) and len(workload) > cap:
        n = len(workload)  # at least this many: no need to list the closure
    else:
        n = count_candidates(n_columns, workload)
    if n > cap:
        minutes = n * SECONDS_PER_CANDIDATE / 60.0
        raise ValueError(
            f"aim scores every candidate marginal (the workload's marginals and their "
            f"subsets) in every round: this workload on {n_columns} columns has "
            f"{n if n < 10**9 else format(n, '.3g')} of them, more than "
            f"solver_options['max_candidates']={cap}; at about {SECONDS_PER_CANDIDATE * 1e3:g} "
            f"ms each a round would take about {minutes:.3g} minutes. Pass a smaller "
            "workload (fewer columns, or a list of the marginals that matter), "
            "solver='mst' (it scores the pairs once), or raise "
            "solver_options['max_candidates'].")


def _admissible(shape, cliques, candidates, limit, cache=None):
    """Candidates inside a measured clique, or whose addition keeps the model within ``limit``.

    The model size with a candidate is computed on the connected components the candidate
    touches only (:class:`_ComponentSizes`): the same number as
    ``graphical.model_size(shape, cliques + [r])``, without a junction tree of every
    column per candidate (200 columns: 0.15 s each, 20,100 candidates a round). ``cache``
    (a dict kept across AIM's rounds) remembers each component graph's size.
    """
    free = set(downward_closure(cliques))
    sizes = _ComponentSizes(shape, cliques, cache)
    return [r for r in candidates if r in free or sizes.with_clique(r) <= limit]


class _ComponentSizes:
    """Model sizes of ``cliques`` plus one more clique, component by component.

    The junction tree's size is a sum over the connected components of the graph joining
    columns that share a clique: the greedy min-fill order (costs ``(fill, weight,
    column)``, each a function of a column's neighbours, ties broken by the column index)
    eliminates each component's columns in the order it would alone, so each component's
    maximal cliques are those of the component alone. Adding a clique changes only the
    components it touches, merged into one.

    Examples
    --------
    >>> sizes = _ComponentSizes((10, 10, 10, 5), [(0, 1), (2,), (3,)])
    >>> sizes.with_clique((1, 2)), graphical.model_size((10, 10, 10, 5), [(0, 1), (1, 2),
    ...                                                                  (2,), (3,)])
    (205, 205)
    """

    def __init__(self, shape, cliques, cache=None):
        self.shape = tuple(int(s) for s in shape)
        self.cache = {} if cache is None else cache
        self.cliques = [tuple(c) for c in cliques]
        parent = list(range(len(self.shape)))
        for c in self.cliques:
            for j in c[1:]:
                parent[_find(parent, j)] = _find(parent, c[0])
        self.root = [_find(parent, j) for j in range(len(self.shape))]
        self.members, self.of = {}, {}
        for j, r in enumerate(self.root):
            self.members.setdefault(r, []).append(j)
        for i, c in enumerate(self.cliques):
            self.of.setdefault(self.root[c[0]], []).append(i)
        self.size = {r: self._size(self.members[r], [self.cliques[i] for i in self.of.get(r, [])])
                     for r in self.members}
        self.total = sum(self.size.values())

    def _size(self, columns, cliques):
        """The model size of the columns (sorted) alone, relabelled in their order.

        ``model_size`` reads the cliques only through the graph joining the columns that
        share one (the min-fill triangulation of that graph), so the size is remembered by
        the columns' cardinalities and the graph's adjacency bit masks: the same graph in a
        later round (AIM measuring a marginal inside a clique adds no edge; a component the
        round's clique did not touch keeps its graph) is not triangulated again.
        """
        index = {j: k for k, j in enumerate(columns)}
        relabelled = [tuple(index[j] for j in c) for c in cliques]
        masks = [0] * len(columns)
        for c in relabelled:
            bits = 0
            for k in c:
                bits |= 1 << k
            for k in c:
                masks[k] |= bits
        key = (tuple(self.shape[j] for j in columns), tuple(masks))
        size = self.cache.get(key)
        if size is None:  # graphical.model_size(key[0], relabelled), from the masks
            size = self.cache[key] = sum(
                math.prod(key[0][k] for k in clique)
                for clique in _min_fill_masks(key[0], [m & ~(1 << k) for k, m in
                                                       enumerate(masks)]))
        return size

    def with_clique(self, r):
        """``graphical.model_size(shape, cliques + [r])``."""
        touched = sorted({self.root[j] for j in r})
        columns = sorted(j for t in touched for j in self.members[t])
        cliques = [self.cliques[i] for t in touched for i in self.of.get(t, [])] + [tuple(r)]
        return self.total - sum(self.size[t] for t in touched) + self._size(columns, cliques)


@dataclass
class _Schedule:
    """AIM's per-round zCDP: ``rho_sel = eps**2 / 8`` and ``rho_meas = 1 / (2 s**2)``."""

    rho: float
    rho_sel: float
    rho_meas: float
    share: float

    def next_round(self, spent):
        """This round's (rho_sel, rho_meas, final): all that remains when two rounds do not fit."""
        remaining = self.rho - spent
        if remaining < 2.0 * (self.rho_sel + self.rho_meas):
            return (1.0 - self.share) * remaining, self.share * remaining, True
        return self.rho_sel, self.rho_meas, False

    def anneal(self):
        """``sigma /= 2`` and ``epsilon *= 2``: both costs times 4."""
        self.rho_sel *= 4.0
        self.rho_meas *= 4.0


def _aim_start(problem, budget, options):
    T = options["max_rounds"] or 16 * problem.d
    share = options["measure_share"]
    rho_init = budget.rho * min(share * problem.d / T, 0.5)
    schedule = _Schedule(budget.rho, (1.0 - share) * budget.rho / T, share * budget.rho / T,
                         share)
    ones, sigma = _measure_oneways(problem, budget, rho_init, "AIM: 1-way marginals",
                                   options["oneway_split"])
    return T, schedule, ones, sigma


def _aim_round(problem, budget, state, t, rho_sel, rho_meas):
    """Select (exponential mechanism) and measure (Gaussian) one candidate."""
    model, cands, weights = state["model"], state["candidates"], state["weights"]
    sens = problem.l2_sensitivity()
    sigma = budget.sigma(sens, rho_meas)
    limit = state["cap"] * min(1.0, (budget.spent + rho_sel + rho_meas) / budget.rho) \
        if budget.private else state["cap"]
    ok = _admissible(problem.shape, state["cliques"], cands, limit, state["sizes"])
    bias = math.sqrt(2.0 / math.pi) * sigma
    problem.prefetch(ok)
    counts = _model_counts(model, ok)
    scores = np.array([weights[r] * (float(np.abs(problem.counts(r) - counts[r]).sum())
                                     - bias * problem.cells(r)) for r in ok])
    sens_sel = problem.l1_sensitivity() * max(weights[r] for r in ok)
    r = ok[budget.select(scores, sens_sel, rho_sel, label=f"AIM round {t}: select")]
    noisy = budget.gaussian(problem.counts(r), sens, sigma, label=f"AIM round {t}: measure",
                            replace_sensitivity=replace_one_sensitivity(sens, problem.relation))
    return r, graphical.Measurement(r, np.asarray(noisy, dtype=np.float64),
                                    _weight_sigma(sigma)), sigma


def solve_aim(problem, budget, options):
    """AIM (McKenna et al. 2022, Alg. 1) on a :class:`TableProblem`; see the module docstring.

    ``options``: ``max_model_size`` (cells; ``None``: :func:`model_cap`), ``max_rounds``
    (``T`` of the initial per-round budget ``rho / T``; ``None``: ``16 d``),
    ``measure_share`` (of each round's budget, to the measurement; AIM's
    0.9), ``round_iter`` (estimation iterations of the first and every
    intermediate round, warm started; 25 by default, 50 before issue 30 item 4's
    fifth part, measured in ``benchmarks/RESULTS.md``: post-processing, the
    accounting is the same for any value),
    ``tol`` (each estimation stops when a step lowers the loss by less than
    ``tol`` times the loss). The final estimation runs ``problem.n_iter``
    iterations (``None``: :data:`AIM_ESTIMATE_ITER`) from the last round's model.
    Not private (``epsilon = inf``): ``T`` rounds of exact measurements.

    Returns
    -------
    SolverResult
        ``solution``: the :class:`~skdp.solvers.synth.graphical.GraphicalModel`;
        ``n_iter``: rounds; ``history``: per round the marginal, its sigma and
        whether the budget was raised; ``info``: the noisy ``measurements``
        (:class:`~.graphical.Measurement`) among others.
    """
    cap = model_cap(problem.shape, problem.workload, options["max_model_size"])
    check_model_size(problem.shape, problem.workload, cap)
    T, schedule, ones, sigma1 = _aim_start(problem, budget, options)
    total = _total(problem, ones)
    ones = _with_released(problem, budget, ones)
    original = problem
    problem, merges, ones = _compress(problem, budget, ones, options["compress"])
    measurements = list(ones)
    model = graphical.estimate(problem.shape, measurements, total=total,
                               n_iter=options["round_iter"], tol=options["tol"],
                               zeros=problem.zeros, probability=True)
    weights = candidate_weights(problem.workload)
    if problem.partitioned and sum(problem.cells(r) for r in weights) <= PREFETCH_CELLS:
        problem.prefetch(list(weights))  # every candidate's counts in one pass
    # the structural zeros' cliques are in every model: counted in its size
    state = dict(model=model, candidates=list(weights), weights=weights,
                 cliques=[m.cols for m in ones] + list(problem.zeros or {}), cap=cap,
                 sizes={})
    history, t, final = [], 0, False
    while not final:
        t += 1
        if budget.private:
            rho_sel, rho_meas, final = schedule.next_round(budget.spent)
        else:
            rho_sel, rho_meas, final = math.inf, math.inf, t >= T
        r, meas, sigma = _aim_round(problem, budget, state, t, rho_sel, rho_meas)
        measurements.append(meas)
        state["cliques"].append(r)
        before = np.ravel(state["model"].project_counts(r))
        state["model"] = graphical.estimate(problem.shape, measurements, total=total,
                                            n_iter=options["round_iter"], tol=options["tol"],
                                            warm_start=state["model"], probability=True)
        moved = float(np.abs(np.ravel(state["model"].project_counts(r)) - before).sum())
        raise_budget = not final and moved <= math.sqrt(2.0 / math.pi) * sigma * problem.cells(r)
        if raise_budget and budget.private:
            schedule.anneal()
        history.append(dict(round=t, marginal=r, sigma=sigma, raised=raise_budget))
        problem.say(f"round {t}: measured {{}} ({problem.cells(r)} cells), sigma={sigma:.4g}"
                    + (", budget per round raised" if raise_budget else "")
                    + (f", {100 * budget.spent / budget.rho:.0f}% of the budget spent"
                       if budget.private else ""), r)
    n_iter = AIM_ESTIMATE_ITER if problem.n_iter is None else problem.n_iter
    zeros = _zero_cut(original, budget, ones, problem.zeros, options)
    model = graphical.estimate(problem.shape, measurements, total=total, n_iter=n_iter,
                               tol=options["tol"], warm_start=state["model"], probability=True,
                               zeros=zeros)
    return SolverResult(_read_back(model, original, merges), t, history=history, info=dict(
        noise_std_oneway=sigma1, rounds=t, initial_rounds=T,
        measured=[m.cols for m in measurements], measurements=measurements, n_estimate=total))
