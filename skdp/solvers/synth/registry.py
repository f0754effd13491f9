"""The synthesizer's solver registry, ``SOLVER_SPECS`` (re-exported by :mod:`skdp.synthesizer`).

Each solver is named by a :class:`~skdp.solvers.spec.SolverRef` and imported
on its first call, so this module imports nothing but the spec: the command
line's ``--solver`` choices and help are read from it without loading SciPy or
scikit-learn.
"""

from ..spec import Option, SolverRef, SolverSpec

__all__ = ["SOLVER_SPECS", "AUTO_MST_BELOW", "resolve_solver"]

_PGM = "the model estimated as in McKenna-Sheldon-Miklau 2019 (private-pgm, post-processing)"
_MODEL_SIZE = Option("max_model_size", "int", None, low=1,
                     doc="cap on the graphical model's cells (None: 2e5, or the largest "
                         "workload marginal if larger; upstream AIM's is 1e7)")
_BOTH = ("replace_one", "add_remove")  # n public, or released (add_remove: issue 28)


def _ref(module, name):
    return SolverRef(f"skdp.solvers.synth.{module}", name)


_ONEWAY_SPLIT = Option(
    "oneway_split", "str", "equal", choices=("equal", "cells"),
    doc="how the first 1-way measurements share their budget: 'equal' (one release, the "
        "same noise for every column) or 'cells' (one release per column, rho_i in "
        "proportion to k_i^(2/3), k_i its cells: the least expected L1 error)")


def _compress_option(default):
    return Option("compress", "float", default, low=0.0,
                  doc="merge a column's values whose noisy 1-way count is below this many "
                      "noise sds (MST §4; 0: never)")


def _zero_below_option(default):
    return Option(
        "zero_below", "float", default, low=0.0,
        doc="fix at 0 in the final estimation a numeric column's cells whose noisy 1-way "
            "count (the solver's and the fine release's, combined) is below this many noise "
            "sds (Base-Cut, Wang et al. 2020; post-processing; 0: never), in the columns "
            "that pass zero_spread; of those cells, the runs at a column's ends (tails) and "
            "the interior runs between two cells of 3 noise sds whose total is within k of "
            "its sd (clear holes). Measured (benchmarks/RESULTS.md, issue 30, 'tails and "
            "holes'): 1 better at equal bins at 12,000 rows at epsilon 1 and 5, level "
            "elsewhere (aim's default); the mst default 0 (not measured with the gate)")


def _zero_spread_option(default):
    return Option(
        "zero_spread", "float", default, low=0.0,
        doc="zero_below cuts only the numeric columns whose noisy 1-way total, spread evenly "
            "over their cells, is at least this many noise sds a cell (0: every column)")


_GAME_SPLIT = ("largest per-step epsilon of Cor. 3.6, Thm 3.5 or bounded-range zCDP "
               "(Cesar-Rogers 2021)")

SOLVER_SPECS = {
    "smd": SolverSpec(
        "smd", _ref("smd", "solve_smd"), family="synth",
        paper="002 §1.4 eq. (3), box query set; Bun-Steinke Prop. 1.6 / Dong-Roth-Su Cor. 2.13",
        budget="one Gaussian release of all workload marginals; the mirror-prox solve is "
               "post-processing",
        dask=True, neighbourings=_BOTH),
    "smd_linf": SolverSpec(
        "smd_linf", _ref("smd", "solve_smd_linf"), family="synth",
        paper="002 §1.4 eq. (3), simplex query set; Bun-Steinke Prop. 1.6 / Dong-Roth-Su "
              "Cor. 2.13",
        budget="one Gaussian release of all workload marginals; the mirror-prox solve is "
               "post-processing",
        dask=True),
    "smd_private_game": SolverSpec(
        "smd_private_game", _ref("games", "solve_private_game"), family="synth",
        paper="002 Thm 1.1 variant of Alg. 1 (reconstructed), Thm 3.4",
        budget=f"T query-player exponential draws, each 2 tau_y / B-DP <= the {_GAME_SPLIT}"),
    "smd_vertex": SolverSpec(
        "smd_vertex", _ref("games", "solve_vertex"), family="synth",
        paper="002 Alg. 1 (K = 1), Prop. 3.3",
        budget=f"4T vertex draws, each 4 tau / B-DP <= the {_GAME_SPLIT}"),
    "mwem": SolverSpec(
        "mwem", _ref("mwem", "solve_mwem"), family="synth",
        paper="Hardt-Ligett-McSherry 2012 Alg. 1, in zCDP",
        budget="rho / T per round, half to the exponential-mechanism selection (bounded "
               "range), half to the Gaussian measurement",
        dask=True),
    "mst": SolverSpec(
        "mst", _ref("mst_aim", "solve_mst"), family="synth",
        paper="McKenna-Miklau-Sheldon 2021 (MST) Alg. 1, as the query player of 002 §1.4 "
              f"eq. (3); {_PGM}",
        budget="rho in thirds: one Gaussian release of the 1-way marginals; d - 1 "
               "exponential-mechanism edges (bounded range, eps^2/8 each); one Gaussian "
               "release of the tree's 2-way marginals; with at most 2 columns (no "
               "selection) the two Gaussian releases split the exact GDP mu in halves of "
               "mu^2 (Dong-Roth-Su Cor. 3.3), the composition the ledger charges",
        options=(Option("estimate_iter", "int", 200, low=1,
                        doc="estimation iterations of the 1-way model the edges are scored on"),
                 _compress_option(3.0), _ONEWAY_SPLIT, _zero_below_option(0.0),
                 _zero_spread_option(12.0)),
        backends=("numpy",), dask=True, auto=True, neighbourings=_BOTH, graphical_model=True),
    "aim": SolverSpec(
        "aim", _ref("mst_aim", "solve_aim"), family="synth",
        paper="McKenna-Mullins-Sheldon-Miklau 2022 (AIM) Alg. 1-2, the private game of 002 "
              f"§1.4 eq. (3) with a compact histogram player; {_PGM}",
        budget="the 1-way marginals at min(0.9 d / T, 1/2) rho, then rounds of rho / T "
               "(0.1 to the exponential-mechanism selection at eps^2/8, 0.9 to the Gaussian "
               "measurement), times 4 when annealed; the last round spends what remains",
        options=(_MODEL_SIZE,
                 Option("max_rounds", "int", None, low=1,
                        doc="T of the initial per-round budget rho / T (None: 16 d)"),
                 Option("measure_share", "float", 0.9, low=0.0, high=1.0, low_open=True,
                        high_open=True, doc="share of a round's budget to the measurement"),
                 Option("round_iter", "int", 25, low=1,
                        doc="estimation iterations per intermediate round (warm started; "
                            "the final estimation keeps its n_iter); 50 before 2026-11-27"),
                 _compress_option(0.0), _ONEWAY_SPLIT, _zero_below_option(1.0),
                 _zero_spread_option(12.0),
                 Option("max_candidates", "int", 50_000, low=1,
                        doc="refuse up front a workload with more candidate marginals (its "
                            "downward closure, every one scored each round; all 2-way "
                            "marginals of d columns: d (d + 1) / 2)"),
                 Option("tol", "float", 1e-6, low=0.0,
                        doc="an estimation stops when a step lowers the loss by less than "
                            "tol times the loss")),
        backends=("numpy",), dask=True, auto=True, neighbourings=_BOTH, graphical_model=True),
}
"""The synthesizer's solvers: name -> :class:`~skdp.solvers.spec.SolverSpec`; each is called
``spec.fn(problem, budget, options)`` with a
:class:`~skdp.solvers.synth.marginals.MarginalProblem` (a
:class:`~skdp.solvers.synth.mst_aim.TableProblem` for the graphical ones) and returns a
:class:`~skdp.solvers.spec.SolverResult` (``solution``: the flat histogram, or the graphical
model). The facts the synthesizer decides by: ``auto`` (what :func:`resolve_solver` may pick:
``'mst'`` or ``'aim'``), ``dask`` (those that read the table only through counts; the private
games read single records), ``neighbourings`` (``'add_remove'``: those that release ``n`` or
never use it) and ``graphical_model`` (a graphical model of :mod:`skdp.solvers.synth.mst_aim`
instead of a dense histogram)."""


AUTO_MST_BELOW = 1000.0
"""``solver='auto'`` runs ``'mst'`` where ``epsilon * n`` is below this (``n`` public), else
``'aim'`` (:func:`resolve_solver`)."""


def resolve_solver(epsilon, n=None):
    """The solver ``solver='auto'`` runs: ``'mst'`` when ``n`` is public (replace-one
    neighbours; ``None`` under add/remove, where ``n`` is private) and ``epsilon * n <``
    :data:`AUTO_MST_BELOW`, else ``'aim'``. Public inputs only: the fit's ``epsilon`` and the
    public row count, so the choice is public too.

    Rule (issue 30 item 3; measured in ``benchmarks/RESULTS.md``, "Issue 30 item 3"): on the
    validation tables (coded column subsets of 2e4-3e4 cells through the API, at 500, 2,000
    and all rows; mixed tables through the CLI, scored at the holdout's bins; epsilon 0.5, 1
    and 5; 2 seeds) ``'aim'`` had the lowest mean 2-way TV of smd / aim / mst in every cell
    with ``epsilon * n >= 1000`` but one near tie (2%), 1.1-6x below ``'smd'``; at
    ``epsilon * n <= 500`` (500 rows at epsilon 0.5 and 1) ``'mst'`` was lowest in 5 of 8
    cells and 4% lower on their mean (aim twice, smd once: wvs_usa_abortion, where mst was
    worst), and ``'smd'`` was lowest in no other cell. ``'smd'`` was also slower than
    ``'aim'`` in most cells, and far slower past 1e5 cells (250 s against aim's 30 s at 6.9e5
    cells), so the rule no longer picks it: the dense solvers stay available by name.

    Examples
    --------
    >>> resolve_solver(1.0, 500), resolve_solver(1.0, 20_000), resolve_solver(0.5, None)
    ('mst', 'aim', 'aim')
    >>> resolve_solver(float("inf"), 10)
    'aim'
    """
    if n is not None and epsilon * n < AUTO_MST_BELOW:
        return "mst"
    return "aim"
