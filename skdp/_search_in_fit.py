"""The private search inside a classifier's fit (``search=``): the best of a random number
of runs, accounted by Papernot and Steinke 2022, Theorem 2.

Below the estimators (it fits a :func:`~sklearn.base.clone` of the estimator it is given and
imports none of them), so that :mod:`skdp.minimax` and :mod:`skdp.model_selection` both use it
without importing each other. :mod:`skdp.model_selection` re-exports its public names.
"""

from contextlib import contextmanager
import functools
import math
from numbers import Real
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples

from ._backend import Backend, to_numpy
from .privacy.accountant import BudgetAccountant
from .privacy.budget import Budget
from .privacy.ledger import approx_dp_to_gdp
from .privacy.repeat_and_select import repeat_and_select_epsilon, sample_repetitions

__all__ = ["SEARCH_DEFAULTS", "SEARCH_GRID", "SEARCH_SCORINGS", "SEARCH_SOLVER", "check_search",
           "gdp_epsilon", "search_in_fit", "search_run_rho"]


@contextmanager
def _runs_warnings(hidden):
    """While the runs fit: with K hidden, collect their warnings and re-emit each
    distinct one once at the end (how many there are would count the runs)."""
    if not hidden:
        yield
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    seen = set()
    for w in caught:
        key = (w.category, str(w.message))
        if key not in seen:
            seen.add(key)
            warnings.warn(w.message, stacklevel=5)


SEARCH_GRID = {"clip_ratio": (0.03, 0.1, 0.3), "step_scale": (1.0, 4.0, 16.0)}
"""The default ``grid`` of a fit's ``search``: ``noisy_gd``'s clip and step (9 candidates)."""

SEARCH_DEFAULTS = dict(mean_runs=3.0, eta=0.0, validation_fraction=0.2, scoring="worst_group")
"""The default keys of a fit's ``search`` besides ``grid``."""

SEARCH_SCORINGS = ("worst_group", "balanced", "accuracy")
SEARCH_SOLVER = "noisy_gd"  # the solver the runs use (its options are the grid's keys)


def check_search(search, spec, estimator_params):
    """A fit's ``search`` parameter, checked and completed before any row is read.

    Parameters
    ----------
    search : dict
        Keys ``grid`` (dict: key -> non-empty list; each key a ``solver_options`` key of
        ``spec`` or one of ``estimator_params``; default :data:`SEARCH_GRID`),
        ``mean_runs`` (``E[K] > 1``), ``eta`` (> -1), ``validation_fraction`` (in (0, 1)),
        ``scoring`` (one of :data:`SEARCH_SCORINGS`).
    spec : SolverSpec
        The runs' solver.
    estimator_params : iterable of str
        Parameters of the estimator a grid key may set (``n_iter``).

    Returns
    -------
    search : dict
        Every key, ``grid`` as a list of candidate dicts ``{"options": ..., "params": ...}``.

    Examples
    --------
    >>> from skdp.minimax import SOLVER_SPECS
    >>> s = check_search({"grid": {"clip_ratio": [0.1, 0.3]}}, SOLVER_SPECS["noisy_gd"], ())
    >>> len(s["grid"]), s["mean_runs"]
    (2, 3.0)
    """
    if not isinstance(search, dict):
        raise ValueError(f"search must be None or a dict, got {search!r}.")
    unknown = set(search) - {"grid", *SEARCH_DEFAULTS}
    if unknown:
        raise ValueError(f"search has unknown keys {sorted(unknown)}; valid keys: "
                         f"{sorted(['grid', *SEARCH_DEFAULTS])}.")
    out = {**SEARCH_DEFAULTS, **{k: v for k, v in search.items() if k != "grid"}}
    mean, eta, frac = out["mean_runs"], out["eta"], out["validation_fraction"]
    if not (isinstance(mean, Real) and 1 < mean <= 1e6):
        raise ValueError(f"search['mean_runs'] must be a number in (1, 1e6], got {mean!r}.")
    if not (isinstance(eta, Real) and -1 < eta <= 1e6):
        raise ValueError(f"search['eta'] must be a number > -1, got {eta!r}.")
    if not (isinstance(frac, Real) and 0 < frac < 1):
        raise ValueError(f"search['validation_fraction'] must be in (0, 1), got {frac!r}.")
    if out["scoring"] not in SEARCH_SCORINGS:
        raise ValueError(f"search['scoring'] must be one of {list(SEARCH_SCORINGS)}, "
                         f"got {out['scoring']!r}.")
    grid = search.get("grid", SEARCH_GRID)
    if not isinstance(grid, dict) or not grid:
        raise ValueError(f"search['grid'] must be a non-empty dict, got {grid!r}.")
    options = {o.name for o in spec.options}
    for key, values in grid.items():
        if key not in options and key not in estimator_params:
            raise ValueError(f"search['grid'] key {key!r} is neither a solver_options key of "
                             f"solver={spec.name!r} ({sorted(options)}) nor one of "
                             f"{sorted(estimator_params)}.")
        if not isinstance(values, (list, tuple)) or not values:
            raise ValueError(f"search['grid'][{key!r}] must be a non-empty list, got "
                             f"{values!r}.")
    candidates = []
    for point in ParameterGrid({k: list(v) for k, v in grid.items()}):
        opts = {k: v for k, v in point.items() if k in options}
        spec.check_options(opts)
        candidates.append({"options": opts,
                           "params": {k: v for k, v in point.items() if k not in options}})
    out.update(grid=candidates, mean_runs=float(mean), eta=float(eta),
               validation_fraction=float(frac))
    return out


@functools.lru_cache(maxsize=256)
def search_run_rho(epsilon, delta, mean_runs, eta):
    """The zCDP ``rho`` of one run such that the best of ``K`` runs spends ``epsilon``.

    The largest ``rho`` with :func:`~skdp.privacy.repeat_and_select.repeat_and_select_epsilon`
    ``(rho, delta, mean_runs, eta) <= epsilon`` (PS22 Thm 2 on a ``rho``-zCDP run, converted
    by Canonne–Kamath–Steinke 2020 Prop. 12), by bisection in ``log rho`` (the bound
    increases with ``rho``).

    Examples
    --------
    >>> rho = search_run_rho(1.0, 1e-6, 3.0, 0.0)
    >>> from skdp.privacy.repeat_and_select import repeat_and_select_epsilon
    >>> round(rho, 5), repeat_and_select_epsilon(rho, 1e-6, 3.0, 0.0) <= 1.0
    (0.01173, True)
    """
    def eps_at(rho):
        return repeat_and_select_epsilon(rho, delta, mean_runs, eta)

    target = float(epsilon) * (1.0 - 1e-9)
    lo, hi = 1e-12, max(1.0, float(epsilon) ** 2)
    if eps_at(lo) > target:
        raise ValueError(f"search: epsilon={epsilon} is too small for mean_runs={mean_runs} "
                         f"(the repeat-and-select overhead alone exceeds it).")
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if eps_at(mid) <= target else (lo, mid)
        if hi / lo < 1 + 1e-10:
            break
    return lo


@functools.lru_cache(maxsize=256)
def gdp_epsilon(rho, delta):
    """The ``epsilon`` whose exact GDP ``mu`` (:func:`~skdp.privacy.ledger.approx_dp_to_gdp`
    at ``delta``) has ``mu**2 / 2 <= rho``: what a run's fit is given, so that its
    Gaussian-only ledger is ``rho``-zCDP (Dong–Roth–Su 2022 Cor. 3.3 and Bun–Steinke 2016
    Prop. 1.6: a ``mu``-GDP Gaussian mechanism is ``mu**2 / 2``-zCDP)."""
    mu = math.sqrt(2.0 * rho)
    lo, hi = 1e-9, 1.0
    while approx_dp_to_gdp(hi, delta) < mu:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if approx_dp_to_gdp(mid, delta) <= mu else (lo, mid)
        if hi - lo < 1e-13 * hi:
            break
    return lo


def _search_score(model, X, y, groups, scoring, n_val, n_train):
    """``(exact score, l2 sensitivity)`` of a run's model on the validation rows.

    ``s_g`` = the run's released group size (its ``group_sizes_``, post-processing of the
    run) times ``n_val / n_train``, floored at 1: public given the run's output.
    ``worst_group``: ``min_g correct_g / s_g`` (sensitivity ``1 / min s_g``: a replaced
    row moves two counts by one each, each term by at most ``1 / s_g``); ``balanced``:
    ``mean_g correct_g / s_g`` (``2 / (m min s_g)``); ``accuracy``: ``mean(correct)``
    (``1 / n_val``). A row whose group the run does not know counts in no term.
    """
    correct = np.asarray(to_numpy(model.predict(X)) == np.asarray(y))
    if scoring == "accuracy" or model.group_labels_.shape[0] == 1:
        return float(np.mean(correct)), 1.0 / n_val
    labels = model.group_labels_
    keys = np.asarray(y if groups is None else groups)
    s = np.maximum(np.asarray(model.group_sizes_, dtype=float) * n_val / n_train, 1.0)
    hits = np.array([np.sum(correct[keys == g]) for g in labels], dtype=float) / s
    if scoring == "worst_group":
        return float(hits.min()), 1.0 / float(s.min())
    return float(hits.mean()), 2.0 / (labels.shape[0] * float(s.min()))


def search_in_fit(estimator, X, y, groups, fit_params, search, budget, rng):
    """Run the private search of a fit and return its best run: ``(model, params, score)``.

    The rows are split once, at random (``rng``, independently of their values), into a
    training part and a validation part (``search['validation_fraction']``). ``K`` is
    drawn from the truncated negative binomial ``D_{eta, gamma}`` of mean ``mean_runs``
    (PS22 Def. 1, :func:`~skdp.privacy.repeat_and_select.sample_repetitions`). Each run
    draws a candidate uniformly from the grid, fits a clone of ``estimator`` (``search``
    off, its own throw-away accountant and seed, at the epsilon :func:`gdp_epsilon` of the
    run's ``rho``: :func:`search_run_rho`) on the training part, and releases its
    validation score (:func:`_search_score`) with Gaussian noise of GDP ``sqrt(2 rho)``.
    The fit and the score read disjoint rows, so the run is ``rho``-zCDP (parallel
    composition); each run's ledger is checked against ``rho``. The best noisy score's run
    is returned; the others are dropped. ``budget`` records the whole search as one
    ``(epsilon, delta)`` mechanism: PS22 Theorem 2 (:func:`repeat_and_select_epsilon`).
    """
    n = _num_samples(X)
    n_val = int(round(search["validation_fraction"] * n))
    if n_val < 1 or n - n_val < 2:
        raise ValueError(f"search: validation_fraction={search['validation_fraction']} of "
                         f"n={n} samples leaves no training or no validation rows.")
    rho = search_run_rho(float(budget.epsilon), float(budget.delta), search["mean_runs"],
                         search["eta"])
    eps_total = repeat_and_select_epsilon(rho, budget.delta, search["mean_runs"], search["eta"])
    run_eps = gdp_epsilon(rho, budget.delta)
    perm = rng.permutation(n)  # independent of the rows' values
    val, train = np.sort(perm[:n_val]), np.sort(perm[n_val:])
    n_train = n - n_val
    k_runs = sample_repetitions(rng, search["mean_runs"], search["eta"])
    # one (epsilon, delta) entry for the whole search, recorded before any run reads a row
    budget.approx_dp(eps_total, budget.delta,
                     label=f"private search in fit (Papernot-Steinke 2022 Thm 2, "
                           f"E[K]={search['mean_runs']:g}, eta={search['eta']:g})")
    scores = Budget.for_fit(Backend(np, None, rng), math.inf, budget.delta, math.inf,
                            mu=math.inf)
    mu_score = math.sqrt(2.0 * rho)
    X_tr, y_tr = _safe_indexing(X, train), _safe_indexing(y, train)
    X_val, y_val = _safe_indexing(X, val), _safe_indexing(y, val)
    g_tr = None if groups is None else _safe_indexing(groups, train)
    g_val = None if groups is None else _safe_indexing(groups, val)
    sizes = estimator.group_sizes
    if sizes is not None:  # public sizes of all rows: those of the training part, expected
        scale = n_train / n
        sizes = ({g: max(1.0, v * scale) for g, v in sizes.items()} if isinstance(sizes, dict)
                 else [max(1.0, float(v) * scale) for v in np.ravel(sizes)])
    best = (None, None, None)
    with _runs_warnings(hidden=True):
        for _ in range(k_runs):
            cand = search["grid"][int(rng.integers(len(search["grid"])))]
            options = {**(estimator.solver_options or {}), **cand["options"]}
            run = clone(estimator).set_params(
                search=None, solver=SEARCH_SOLVER, solver_options=options, epsilon=run_eps,
                delta=budget.delta, group_sizes=sizes, accountant=BudgetAccountant(),
                random_state=int(rng.integers(2**31 - 1)), verbose=0, **cand["params"])
            fit_kw = dict(fit_params)
            if g_tr is not None:
                fit_kw["groups"] = g_tr
            run.fit(X_tr, y_tr, **fit_kw)
            ledger = run.privacy_ledger_
            if any(e.kind != "gaussian" for e in ledger.entries):
                raise RuntimeError("internal error: a search run released a non-Gaussian "
                                   "mechanism.")
            used = float(sum(e.count * e.mu ** 2 for e in ledger.entries)) / 2.0
            if used > rho * (1 + 1e-9):
                raise RuntimeError(f"internal error: a search run spent rho={used} > {rho}.")
            raw, sens = _search_score(run, X_val, y_val, g_val, search["scoring"], n_val,
                                      n_train)
            noisy = float(scores.gaussian_gdp(np.asarray(raw), sens, sens / mu_score,
                                              label="validation score"))
            if best[0] is None or noisy > best[0]:
                best = (noisy, {**cand["options"], **cand["params"]}, run)
    score, params, model = best
    return model, params, score, dict(run_rho=rho, run_epsilon=run_eps, n_val=n_val,
                                      score_mu=mu_score)
