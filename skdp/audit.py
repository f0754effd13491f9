"""Empirical privacy auditing: a statistical lower bound on an estimator's epsilon.

An audit fits an estimator many times on two neighbouring datasets ``D0`` and
``D1`` (one record replaced by a *canary* made to be easy to detect), turns
each fitted model into one number (the *statistic*), and runs the test
"guess ``D1`` when the statistic exceeds a threshold". If the estimator is
(epsilon, delta)-DP, every such test has (the hypothesis-testing
characterisation of DP, Kairouz, Oh, Viswanath 2015 §2; the audits of
Jagielski, Ullman, Oprea 2020 and Nasr, Song, Thakurta, Papernot, Carlini
2021)::

    FPR + exp(eps) FNR >= 1 - delta   and   FNR + exp(eps) FPR >= 1 - delta,

so the observed error rates bound epsilon from below::

    eps >= max( log((TPR - delta) / FPR), log((1 - delta - FPR) / (1 - TPR)) ).

The rates are replaced by their Clopper–Pearson bounds (TPR from below, FPR
from above, each at level ``alpha / 2``), which makes
:attr:`AuditResult.epsilon_lower_bound` a lower bound on the true epsilon with
probability at least ``1 - alpha`` over the audit's own randomness. The
threshold is chosen on a separate half of the fits, so the counts that enter
the bound are independent of it.

A lower bound above the claimed epsilon is proof (at that confidence) of a
bug; a lower bound below it proves nothing: black-box audits that see only the
final model are known to be loose (see ``docs/user_guide/audit.rst``).
"""

from contextlib import contextmanager
from dataclasses import dataclass, field
import math
import warnings

import numpy as np
from scipy import special, stats
from sklearn.base import clone, is_classifier, is_regressor

from . import _backend
from ._base import resolve_delta
from ._backend import make_rng, to_numpy
from .privacy.clipping import row_norms
from .privacy.accountant import BudgetAccountant

__all__ = ["AuditResult", "Canary", "audit_estimator", "audit_scores", "clopper_pearson",
           "default_statistic", "epsilon_lower_bound", "make_canary", "weakened_noise"]


# ---------------------------------------------------------------------------
# Statistics: Clopper-Pearson and the epsilon bound
# ---------------------------------------------------------------------------
def clopper_pearson(successes, trials, alpha=0.05):
    """Two-sided Clopper–Pearson (exact binomial) confidence interval.

    ``lo = Beta(alpha/2; k, n - k + 1)`` and ``hi = Beta(1 - alpha/2; k + 1,
    n - k)`` quantiles (0 and 1 at the ends), Clopper and Pearson 1934. Each
    end alone is a one-sided bound at level ``alpha / 2``.

    Parameters
    ----------
    successes : int or array-like of int
        Number of successes ``k``.
    trials : int or array-like of int
        Number of trials ``n`` (> 0).
    alpha : float, default=0.05
        One minus the confidence level, in (0, 1).

    Returns
    -------
    lo, hi : float or ndarray
        Bounds of the interval for the success probability.

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 100, alpha=0.05)
    >>> float(lo), round(float(hi), 4)
    (0.0, 0.0362)
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if np.any(n <= 0) or np.any(k < 0) or np.any(k > n):
        raise ValueError(f"need 0 <= successes <= trials and trials > 0, got {successes!r}, "
                         f"{trials!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
    with np.errstate(invalid="ignore"):
        lo = np.where(k > 0, stats.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
        hi = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def _log_ratio(num, den):
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(num > 0, np.log(np.maximum(num, 1e-300)) - np.log(den), -np.inf)


def _epsilon_from_rates(tpr, fpr, delta):
    """``max(0, log((TPR - delta)/FPR), log((1 - delta - FPR)/(1 - TPR)))``."""
    one = _log_ratio(np.asarray(tpr) - delta, fpr)
    two = _log_ratio(1.0 - delta - np.asarray(fpr), 1.0 - np.asarray(tpr))
    return np.maximum(0.0, np.maximum(one, two))


def epsilon_lower_bound(true_positives, n_positive, false_positives, n_negative, delta=0.0,
                        alpha=0.05):
    """Epsilon lower bound of one distinguishing test, at confidence ``1 - alpha``.

    With ``TPR_lo`` the lower Clopper–Pearson bound of the true-positive rate
    and ``FPR_hi`` the upper bound of the false-positive rate (each at level
    ``alpha / 2``, so both hold together with probability ``1 - alpha``)::

        eps_lb = max(0, log((TPR_lo - delta) / FPR_hi),
                        log((1 - delta - FPR_hi) / (1 - TPR_lo)))

    the two inequalities that (epsilon, delta)-DP imposes on any test
    (the hypothesis-testing characterisation, Kairouz, Oh, Viswanath 2015
    §2), as used by the audits of Jagielski
    et al. 2020 (Clopper–Pearson bounds on FPR/FNR) and Nasr et al. 2021.

    Parameters
    ----------
    true_positives : int or array-like of int
        Fits on ``D1`` (canary in) that the test flagged.
    n_positive : int
        Fits on ``D1``.
    false_positives : int or array-like of int
        Fits on ``D0`` that the test flagged.
    n_negative : int
        Fits on ``D0``.
    delta : float, default=0.0
        The delta of the guarantee being audited.
    alpha : float, default=0.05
        One minus the confidence level.

    Returns
    -------
    eps_lb : float or ndarray
        The lower bound (0 when the test shows nothing).

    Examples
    --------
    >>> round(float(epsilon_lower_bound(100, 100, 0, 100, alpha=0.05)), 3)
    3.281
    """
    tpr_lo, _ = clopper_pearson(true_positives, n_positive, alpha)
    _, fpr_hi = clopper_pearson(false_positives, n_negative, alpha)
    eps = _epsilon_from_rates(tpr_lo, fpr_hi, delta)
    return float(eps) if np.ndim(eps) == 0 else eps


@dataclass
class AuditResult:
    """Outcome of an audit: the epsilon lower bound and the test behind it.

    Returned by :func:`audit_estimator` and :func:`audit_scores`. Only
    ``epsilon_lower_bound`` is a statement about the audited mechanism (valid
    with probability ``confidence``); the other fields describe the test
    that produced it, for reporting and plotting.

    Parameters
    ----------
    epsilon_lower_bound : float
        Lower bound on the estimator's true epsilon, valid with probability
        ``confidence`` (0 when the test shows nothing).
    epsilon_interval : tuple of float
        ``(epsilon_lower_bound, upper end)``: the epsilon shown by the
        Clopper–Pearson interval's ends (the upper end uses the optimistic
        rates, so it is what this test could show at best, *not* a bound on
        the true epsilon, which may be far larger).
    epsilon_estimate : float
        The bound at the observed rates (may be inf when the test is perfect).
    claimed_epsilon : float
        The estimator's ``epsilon``.
    delta : float
        The delta used in the bound (the estimator's ``delta``).
    confidence : float
        ``1 - alpha``.
    tpr, fpr : float
        Observed rates on the evaluation fits.
    tpr_interval, fpr_interval : tuple of float
        Their two-sided Clopper–Pearson intervals at level ``1 - alpha``.
    true_positives, false_positives : int
        Flagged fits on ``D1`` and on ``D0`` among the evaluation fits.
    n_positive, n_negative : int
        Evaluation fits on ``D1`` and on ``D0``.
    threshold : float
        The test flags a fit when ``direction * statistic > direction * threshold``.
    direction : int
        +1 (large values flag the canary) or -1.
    statistic : str
        Name of the statistic.
    scores_out, scores_in : ndarray
        The statistic of every fit on ``D0`` and on ``D1`` (selection and
        evaluation fits).
    threshold_chosen_on : str
        ``'split'`` (on separate fits) or ``'given'``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> out, inn = rng.normal(0, 1, 2000), rng.normal(3, 1, 2000)  # a 3-GDP mechanism
    >>> result = audit_scores(out, inn, delta=1e-5, random_state=0)
    >>> 1.0 < result.epsilon_lower_bound < 6.3  # true epsilon of 3-GDP at 1e-5: 6.3
    True
    """

    epsilon_lower_bound: float
    epsilon_interval: tuple
    epsilon_estimate: float
    claimed_epsilon: float
    delta: float
    confidence: float
    tpr: float
    fpr: float
    tpr_interval: tuple
    fpr_interval: tuple
    true_positives: int
    false_positives: int
    n_positive: int
    n_negative: int
    threshold: float
    direction: int
    statistic: str
    scores_out: np.ndarray = field(repr=False)
    scores_in: np.ndarray = field(repr=False)
    threshold_chosen_on: str = "split"

    @property
    def violation(self):
        """Whether the lower bound exceeds the claimed epsilon (a proven bug).

        Returns
        -------
        bool
            ``epsilon_lower_bound > claimed_epsilon``.
        """
        return bool(self.epsilon_lower_bound > self.claimed_epsilon)

    def summary(self):
        """One line: bound, claim and the test's counts.

        Returns
        -------
        str
            A human-readable summary.
        """
        return (f"epsilon >= {self.epsilon_lower_bound:.3f} at {self.confidence:.0%} confidence "
                f"(claimed {self.claimed_epsilon:g}, delta {self.delta:g}); statistic "
                f"{self.statistic!r}, TPR {self.true_positives}/{self.n_positive}, "
                f"FPR {self.false_positives}/{self.n_negative}")


def _best_threshold(out, inn, delta, alpha):
    """Threshold and direction that maximise the bound on the selection fits.

    Every observed value is a candidate, scored by the Clopper–Pearson bound
    of its own selection counts: a tail threshold backed by a handful of fits
    scores low, which keeps the choice from chasing noise.
    """
    best = (-1.0, float(np.median(np.concatenate([out, inn]))), 1)
    for direction in (1, -1):
        o, i = np.sort(direction * out), np.sort(direction * inn)
        cands = np.unique(np.concatenate([o, i]))
        fp = o.size - np.searchsorted(o, cands, side="right")
        tp = i.size - np.searchsorted(i, cands, side="right")
        eps = epsilon_lower_bound(tp, i.size, fp, o.size, delta, alpha)
        j = int(np.argmax(eps))
        if eps[j] > best[0]:
            best = (float(eps[j]), float(direction * cands[j]), direction)
    return best[1], best[2]


def audit_scores(scores_out, scores_in, *, delta=0.0, alpha=0.05, threshold="split",
                 split=0.5, claimed_epsilon=math.nan, statistic="statistic", random_state=None):
    """Epsilon lower bound from the statistics of fits on two neighbouring datasets.

    The core of :func:`audit_estimator`, usable on any mechanism's outputs.
    With ``threshold='split'`` each list is shuffled and cut in two: the first
    ``split`` share chooses the threshold and its direction (the one that
    maximises the bound), the rest is counted, so the counts are independent
    of the choice and the Clopper–Pearson bound of
    :func:`epsilon_lower_bound` holds as stated.

    Parameters
    ----------
    scores_out : array-like of shape (n_out,)
        Statistic of each fit on ``D0`` (canary out).
    scores_in : array-like of shape (n_in,)
        Statistic of each fit on ``D1`` (canary in).
    delta : float, default=0.0
        The delta of the audited guarantee.
    alpha : float, default=0.05
        One minus the confidence level of the bound.
    threshold : 'split' or float, default='split'
        ``'split'``: chosen on half of the fits (see above). A float: fixed
        in advance (flag when ``statistic > threshold``); all fits are counted.
    split : float, default=0.5
        Share of the fits that choose the threshold (``threshold='split'``).
    claimed_epsilon : float, default=nan
        Recorded in the result.
    statistic : str, default='statistic'
        Name recorded in the result.
    random_state : int, Generator, RandomState or None, default=None
        Seeds the shuffle before the split.

    Returns
    -------
    AuditResult
        The bound, the rates and their intervals, the counts and the test.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> res = audit_scores(rng.normal(0, 1, 1000), rng.normal(1, 1, 1000), random_state=0)
    >>> res.epsilon_lower_bound < 1.4  # a 1-GDP mechanism is (1.4, 1e-2)-DP, say
    True
    """
    out = np.asarray(scores_out, dtype=float).ravel()
    inn = np.asarray(scores_in, dtype=float).ravel()
    if out.size < 2 or inn.size < 2:
        raise ValueError("need at least 2 scores on each dataset.")
    if not (np.all(np.isfinite(out)) and np.all(np.isfinite(inn))):
        raise ValueError("the statistic must be finite for every fit.")
    if not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}.")
    if isinstance(threshold, str):
        if threshold != "split":
            raise ValueError(f"threshold must be 'split' or a float, got {threshold!r}.")
        if not 0 < split < 1:
            raise ValueError(f"split must be in (0, 1), got {split!r}.")
        rng = make_rng(random_state)
        out, inn = rng.permutation(out), rng.permutation(inn)
        h0 = min(max(1, int(round(split * out.size))), out.size - 1)
        h1 = min(max(1, int(round(split * inn.size))), inn.size - 1)
        eval_out, eval_in = out[h0:], inn[h1:]
        thr, direction = _best_threshold(out[:h0], inn[:h1], delta, alpha)
        chosen = "split"
    else:
        thr, direction, chosen = float(threshold), 1, "given"
        eval_out, eval_in = out, inn
    tp = int(np.sum(direction * eval_in > direction * thr))
    fp = int(np.sum(direction * eval_out > direction * thr))
    n1, n0 = eval_in.size, eval_out.size
    tpr_int = clopper_pearson(tp, n1, alpha)
    fpr_int = clopper_pearson(fp, n0, alpha)
    lower = epsilon_lower_bound(tp, n1, fp, n0, delta, alpha)
    upper = float(_epsilon_from_rates(tpr_int[1], fpr_int[0], delta))
    estimate = float(_epsilon_from_rates(tp / n1, fp / n0, delta))
    return AuditResult(
        epsilon_lower_bound=lower, epsilon_interval=(lower, upper), epsilon_estimate=estimate,
        claimed_epsilon=float(claimed_epsilon), delta=float(delta), confidence=1.0 - alpha,
        tpr=tp / n1, fpr=fp / n0, tpr_interval=tpr_int, fpr_interval=fpr_int,
        true_positives=tp, false_positives=fp, n_positive=n1, n_negative=n0,
        threshold=thr, direction=direction, statistic=statistic,
        scores_out=np.asarray(scores_out, dtype=float),
        scores_in=np.asarray(scores_in, dtype=float),
        threshold_chosen_on=chosen)


# ---------------------------------------------------------------------------
# Canaries and statistics
# ---------------------------------------------------------------------------
@dataclass
class Canary:
    """Two neighbouring datasets and the records in which they differ.

    Built by :func:`make_canary` (the default), or by hand for a custom audit:
    ``D0 = (X_out, y_out)`` and ``D1 = (X_in, y_in)`` must differ in one row
    (replace-one neighbours), and a statistic may read the two records.

    Parameters
    ----------
    X_out, y_out : array-like
        ``D0``: the data with row ``index`` replaced by ``record_out``.
    X_in, y_in : array-like
        ``D1``: the data with row ``index`` replaced by ``record_in``.
    record_out, record_in : tuple
        ``(x, y)`` of the replaced row in ``D0`` and ``D1`` (``x`` a 1-row
        table of the fitted kind; ``y`` None without targets).
    index : int
        The replaced row.
    kind : str
        What built it: ``'classifier'``, ``'regressor'``, ``'table'`` or ``'user'``.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.regression import KLAdaptiveRegressor
    >>> X, y = np.zeros((5, 2)), np.zeros(5)
    >>> X[:, 0] = 0.5
    >>> c = make_canary(KLAdaptiveRegressor(), X, y)
    >>> c.record_in[0].tolist(), float(c.record_in[1]), float(c.record_out[1])
    ([[0.0, 1.0]], 1.0, -1.0)
    """

    X_out: object
    y_out: object
    X_in: object
    y_in: object
    record_out: tuple
    record_in: tuple
    index: int = 0
    kind: str = "user"


def _quiet_direction(X, index):
    """Unit vector of least energy of the other rows (an orthogonal direction when n <= p)."""
    rest = np.delete(np.asarray(X, dtype=float), index, axis=0)
    rest = rest / (np.max(np.abs(rest), initial=0.0) or 1.0)  # the same directions, no overflow
    _, vecs = np.linalg.eigh(rest.T @ rest)
    v = vecs[:, 0]
    return v * (1.0 if v[np.argmax(np.abs(v))] > 0 else -1.0)


def _numeric_bound(value, fallback):
    try:
        value = float(value)
    except (TypeError, ValueError):
        return fallback
    return value if math.isfinite(value) and value > 0 else fallback


def _replace_row(X, index, row):
    if hasattr(X, "iloc"):
        X = X.copy()
        X.iloc[index] = row.iloc[0] if hasattr(row, "iloc") else row
        return X
    X = np.array(X, copy=True)
    X[index] = row
    return X


def _row(X, index):
    return X.iloc[index:index + 1] if hasattr(X, "iloc") else X[index:index + 1]


def _linear_canary(estimator, X, y, index, kind):
    X = np.asarray(X, dtype=float)
    scale = _numeric_bound(getattr(estimator, "feature_bound", None),
                           float(np.max(row_norms(X))) or 1.0)
    x = scale * _quiet_direction(X, index)
    y = np.asarray(y)
    if kind == "classifier":
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError("the canary needs y with at least 2 classes.")
        y_out, y_in = classes[0], classes[-1]
    else:
        bound = _numeric_bound(getattr(estimator, "target_bound", None),
                               float(np.max(np.abs(y))) or 1.0)
        low = 0.0 if getattr(estimator, "loss", None) == "sigmoid" else -bound
        high = 1.0 if getattr(estimator, "loss", None) == "sigmoid" else bound
        y_out, y_in = low, high
    X_c = _replace_row(X, index, x)
    y_out_arr, y_in_arr = np.array(y, copy=True), np.array(y, copy=True)
    if kind == "regressor":
        y_out_arr, y_in_arr = y_out_arr.astype(float), y_in_arr.astype(float)
    y_out_arr[index], y_in_arr[index] = y_out, y_in
    rec = X_c[index:index + 1]
    return Canary(X_c, y_out_arr, X_c.copy(), y_in_arr, (rec, y_out_arr[index]),
                  (rec, y_in_arr[index]), index, kind)


def _column_candidates(estimator, X, j, name):
    """Values a column may take: the public domain's categories or bounds, else the data's."""
    domain = getattr(estimator, "domain", None)
    spec = None
    if isinstance(domain, dict):
        spec = domain.get(name, domain.get(str(name)))
    if isinstance(spec, dict) and "categories" in spec:
        spec = spec["categories"]
    if isinstance(spec, dict) and "low" in spec:
        spec = (spec["low"], spec["high"])
    if isinstance(spec, (list, np.ndarray)) and len(spec):
        return list(spec)
    if isinstance(spec, tuple):
        return [spec[0], spec[1]]
    column = X.iloc[:, j] if hasattr(X, "iloc") else np.asarray(X)[:, j]
    return list(dict.fromkeys(column.tolist()))


def _table_canary(estimator, X, index):
    """Rows in the rarest cells: each column takes its least frequent public value
    in ``record_in`` and its second least frequent in ``record_out``."""
    names = list(X.columns) if hasattr(X, "columns") else list(range(np.shape(X)[1]))
    row_out, row_in = [], []
    for j, name in enumerate(names):
        column = X.iloc[:, j] if hasattr(X, "iloc") else np.asarray(X)[:, j]
        rest = np.delete(np.asarray(column, dtype=object), index)
        cands = _column_candidates(estimator, X, j, name)
        counts = [int(np.sum([_same(r, c) for r in rest])) for c in cands]
        order = np.argsort(counts, kind="stable")
        row_in.append(cands[order[0]])
        row_out.append(cands[order[1]] if len(cands) > 1 else cands[order[0]])
    X_out = _set_row(X, index, row_out)
    X_in = _set_row(X, index, row_in)
    return Canary(X_out, None, X_in, None, (_row(X_out, index), None),
                  (_row(X_in, index), None), index, "table")


def _same(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _set_row(X, index, values):
    if hasattr(X, "iloc"):
        X = X.copy()
        for j, v in enumerate(values):
            X.iloc[index, j] = v
        return X
    X = np.array(X, copy=True)
    X[index] = np.asarray(values, dtype=X.dtype)
    return X


def make_canary(estimator, X, y=None, index=0):
    """Two neighbouring datasets built to be told apart (the default canary).

    Row ``index`` of the data is replaced by two different records:

    * classifier: ``x`` in the direction of least energy of the other rows
      (orthogonal to them when ``n <= p`` or a column is constant 0) at the
      public norm ``feature_bound``, with the first class in ``D0`` and the last
      in ``D1``: the gradients of the two records point opposite ways along a
      direction no other record moves, the largest change one record can make;
    * regressor: the same ``x`` with target ``-target_bound`` in ``D0`` and
      ``+target_bound`` in ``D1`` (``0`` and ``1`` for ``loss='sigmoid'``);
    * synthesizer (a table without ``y``): every column takes its least
      frequent value in ``D1`` and its second least frequent in ``D0``
      (values from the public ``domain``: its categories, or its bounds), so
      every workload marginal cell of the canary is a rare one.

    Parameters
    ----------
    estimator : estimator
        The estimator to audit (its public bounds and domain are read).
    X : array-like or DataFrame
        The data.
    y : array-like, default=None
        Targets (None for a synthesizer).
    index : int, default=0
        Row to replace.

    Returns
    -------
    Canary
        The two datasets and the two records.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.minimax import PrivateMinimaxClassifier
    >>> X = np.array([[0.5, 0.0], [-0.5, 0.0], [0.3, 0.0], [-0.2, 0.0]])
    >>> c = make_canary(PrivateMinimaxClassifier(), X, np.array([1, 0, 1, 0]))
    >>> c.record_in[0].tolist(), int(c.record_out[1]), int(c.record_in[1])
    ([[0.0, 1.0]], 0, 1)
    """
    index = int(index)
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    if not 0 <= index < n:
        raise ValueError(f"index {index} is not a row of X ({n} rows).")
    if is_classifier(estimator):
        return _linear_canary(estimator, X, y, index, "classifier")
    if is_regressor(estimator):
        return _linear_canary(estimator, X, y, index, "regressor")
    if y is None:
        return _table_canary(estimator, X, index)
    raise TypeError(f"no default canary for {type(estimator).__name__}: pass canary=.")


def _margin(fitted, canary):
    x = np.asarray(canary.record_in[0], dtype=float)
    z = np.asarray(to_numpy(fitted.decision_function(x)), dtype=float)
    z0 = np.asarray(to_numpy(fitted.decision_function(np.zeros_like(x))), dtype=float)
    z = (z - z0)[0]
    if z.ndim == 0:  # binary: the margin of classes_[1]
        sign = 1.0 if canary.record_in[1] == fitted.classes_[-1] else -1.0
        return sign * float(z)
    classes = list(fitted.classes_)
    return float(z[classes.index(canary.record_in[1])] - z[classes.index(canary.record_out[1])])


def _prediction(fitted, canary):
    x = np.asarray(canary.record_in[0], dtype=float)
    p = to_numpy(fitted.predict(x))[0] - to_numpy(fitted.predict(np.zeros_like(x)))[0]
    return float(p) * (1.0 if canary.record_in[1] >= canary.record_out[1] else -1.0)


def _cell_mass(fitted, canary):
    return float(fitted.score(canary.record_in[0]) - fitted.score(canary.record_out[0]))


def default_statistic(estimator):
    """The statistic :func:`audit_estimator` uses by default for an estimator.

    * classifier: the canary's margin ``f(x) - f(0)`` (decision function of
      the canary's class in ``D1`` minus that of its class in ``D0``): the
      model's coefficients projected on the canary's direction, free of the
      intercept's noise;
    * regressor: ``predict(x) - predict(0)`` (oriented towards the ``D1``
      target);
    * synthesizer: ``score(record_in) - score(record_out)``, i.e. the mean
      over the workload marginals of the released mass in the canary's cells
      in ``D1`` minus that in ``D0``.

    Parameters
    ----------
    estimator : estimator
        The estimator to audit.

    Returns
    -------
    statistic : callable
        ``statistic(fitted_estimator, canary) -> float``, with a ``__name__``.

    Examples
    --------
    >>> from skdp.regression import KLAdaptiveRegressor
    >>> default_statistic(KLAdaptiveRegressor()).__name__
    'prediction_at_canary'
    """
    if is_classifier(estimator) and hasattr(estimator, "decision_function"):
        fn, name = _margin, "margin_at_canary"
    elif is_regressor(estimator):
        fn, name = _prediction, "prediction_at_canary"
    elif hasattr(estimator, "score") and hasattr(estimator, "sample"):
        fn, name = _cell_mass, "mass_in_canary_cells"
    else:
        raise TypeError(f"no default statistic for {type(estimator).__name__}: pass "
                        "statistic=callable(fitted_estimator, canary) -> float.")

    def statistic(fitted, canary):
        return fn(fitted, canary)

    statistic.__name__ = name
    return statistic


# ---------------------------------------------------------------------------
# The audit
# ---------------------------------------------------------------------------
def _fit_scores(estimator, X, y, seeds, canary, statistic, fit_params, progress):
    params = estimator.get_params(deep=False)
    est = clone(estimator)
    scores = np.empty(len(seeds))
    for t, seed in enumerate(seeds):
        update: dict = {"random_state": int(seed)}
        if "accountant" in params:
            update["accountant"] = BudgetAccountant()  # a throwaway: audit fits are not releases
        est.set_params(**update)
        if y is None:
            est.fit(X, **fit_params)
        else:
            est.fit(X, y, **fit_params)
        scores[t] = statistic(est, canary)
        progress()
    return scores


def audit_estimator(estimator, X, y=None, *, n_trials=200, canary="auto", statistic="auto",
                    threshold="split", split=0.5, alpha=0.05, fit_params=None,
                    random_state=None, verbose=0):
    """Audit an estimator's differential privacy empirically.

    Fits ``estimator`` ``n_trials`` times on each of two neighbouring datasets
    ``D0`` and ``D1`` (see :func:`make_canary`), each fit with its own seed
    drawn from ``random_state``, computes ``statistic`` on every fit, and
    converts the error rates of the best threshold test into a lower bound on
    epsilon (:func:`audit_scores`, :func:`epsilon_lower_bound`) at the
    estimator's ``delta``.

    The audit's fits are throwaways: each is charged to a fresh unlimited
    :class:`~skdp.BudgetAccountant`, not to the estimator's. Audit synthetic
    or public data: the fits themselves are not private releases of ``X``
    (2 * ``n_trials`` of them compose to far more than one budget).

    Parameters
    ----------
    estimator : estimator
        An unfitted estimator with ``random_state`` (and ``epsilon``,
        ``delta``) parameters; it is cloned.
    X : array-like or DataFrame
        Data on which the canary is planted (small: the audit fits
        ``2 * n_trials`` times).
    y : array-like, default=None
        Targets; None for a synthesizer.
    n_trials : int, default=200
        Fits per dataset. With ``threshold='split'`` half of them choose the
        threshold; the bound of a perfect test on ``m`` evaluation fits per
        side is at most about ``log(m / log(2 / alpha))`` (3.3 for ``m = 100``,
        5.6 for ``m = 1000`` at ``alpha = 0.05``).
    canary : 'auto', Canary or callable, default='auto'
        ``'auto'``: :func:`make_canary`; a callable ``canary(estimator, X, y)``
        returning a :class:`Canary`.
    statistic : 'auto' or callable, default='auto'
        ``statistic(fitted_estimator, canary) -> float``, larger (or, as
        chosen by the split, smaller) when the canary is in. ``'auto'``:
        :func:`default_statistic`.
    threshold : 'split' or float, default='split'
        See :func:`audit_scores`.
    split : float, default=0.5
        Share of the fits that choose the threshold (see :func:`audit_scores`).
    alpha : float, default=0.05
        The bound holds with probability at least ``1 - alpha``.
    fit_params : dict, default=None
        Extra arguments of ``fit`` (e.g. ``groups``), the same for every fit.
    random_state : int, Generator, RandomState or None, default=None
        Seeds every fit and the split.
    verbose : int, default=0
        Print progress every 10% of the fits.

    Returns
    -------
    AuditResult
        The epsilon lower bound, its Clopper–Pearson rates, counts, threshold
        and statistic.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp.regression import KLAdaptiveRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = np.c_[rng.normal(size=(30, 2)) / 3, np.zeros(30)]
    >>> y = np.clip(X[:, 0], -1, 1)
    >>> reg = KLAdaptiveRegressor(epsilon=1.0, solver="noisy_gd", max_iter=5)
    >>> result = audit_estimator(reg, X, y, n_trials=50, random_state=0)
    >>> result.epsilon_lower_bound <= 1.0
    True
    """
    if not (isinstance(n_trials, (int, np.integer)) and n_trials >= 4):
        raise ValueError(f"n_trials must be an int >= 4, got {n_trials!r}.")
    if "random_state" not in estimator.get_params(deep=False):
        raise TypeError(f"{type(estimator).__name__} has no random_state parameter: the "
                        "audit needs a seed per fit.")
    if isinstance(canary, str) and canary == "auto":
        canary = make_canary(estimator, X, y)
    elif callable(canary) and not isinstance(canary, Canary):
        canary = canary(estimator, X, y)
    if not isinstance(canary, Canary):
        raise TypeError(f"canary must be 'auto', a Canary or a callable, got {canary!r}.")
    if isinstance(statistic, str) and statistic == "auto":
        statistic = default_statistic(estimator)
    if not callable(statistic):
        raise TypeError(f"statistic must be 'auto' or a callable, got {statistic!r}.")
    rng = make_rng(random_state)
    seeds = rng.integers(0, 2**32 - 1, size=(2, n_trials))
    done, total = [0], 2 * n_trials

    def progress():
        done[0] += 1
        if verbose and done[0] % max(1, total // 10) == 0:
            print(f"[audit] {done[0]}/{total} fits")

    fit_params = dict(fit_params or {})
    with warnings.catch_warnings():
        warnings.simplefilter("once")
        out = _fit_scores(estimator, canary.X_out, canary.y_out, seeds[0], canary, statistic,
                          fit_params, progress)
        inn = _fit_scores(estimator, canary.X_in, canary.y_in, seeds[1], canary, statistic,
                          fit_params, progress)
    params = estimator.get_params(deep=False)
    # delta='auto': what it resolves to on the throwaway accountant of the audit's fits
    delta = resolve_delta(params.get("delta", 0.0) or 0.0, params.get("epsilon", math.inf),
                          BudgetAccountant())
    return audit_scores(out, inn, delta=float(delta), alpha=alpha,
                        threshold=threshold, split=split,
                        claimed_epsilon=float(params.get("epsilon", math.nan)),
                        statistic=getattr(statistic, "__name__", "statistic"), random_state=rng)


# ---------------------------------------------------------------------------
# A deliberately broken variant, to check that an audit has power
# ---------------------------------------------------------------------------
NOISE_DRAWS = ("standard_normal", "normal", "gumbel", "laplace", "multinomial")
"""Generator methods :func:`weakened_noise` weakens (every privacy noise of skdp)."""
PASS_THROUGH = ("permutation", "integers", "choice", "geometric", "binomial", "random",
                "shuffle", "uniform", "bit_generator", "standard_exponential")
"""Generator methods it leaves alone: data-independent sampling (batches, levels, the
Poisson samples' geometric gaps, drawn as standard exponentials)."""


class WeakenedGenerator:
    """A :class:`numpy.random.Generator` whose privacy noise is ``factor`` times weaker.

    The broken variant of :func:`weakened_noise`: tests and audits only.
    """

    def __init__(self, rng, factor, record):
        self._rng, self._factor, self._record = rng, float(factor), record

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        self._record.append("standard_normal")
        return self._rng.standard_normal(size, dtype=dtype) / self._factor

    def normal(self, loc=0.0, scale=1.0, size=None):
        self._record.append("normal")
        return loc + self._rng.normal(0.0, scale, size) / self._factor

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        self._record.append("gumbel")
        return loc + self._rng.gumbel(0.0, scale, size) / self._factor

    def laplace(self, loc=0.0, scale=1.0, size=None):
        self._record.append("laplace")
        return loc + self._rng.laplace(0.0, scale, size) / self._factor

    def multinomial(self, n, pvals, size=None):
        # a draw from softmax(l) is argmax(l + Gumbel): dividing that Gumbel noise by
        # `factor` draws from softmax(factor * l), i.e. p ** factor renormalised
        self._record.append("multinomial")
        logp = self._factor * np.log(np.maximum(np.asarray(pvals, dtype=float), 1e-300))
        p = special.softmax(np.where(np.asarray(pvals) > 0, logp, -np.inf))
        return self._rng.multinomial(n, p, size)

    def spawn(self, n_children):
        # children draw the noise of the solvers that split their stream (paper 001's)
        self._record.append("spawn")
        return [WeakenedGenerator(child, self._factor, self._record)
                for child in self._rng.spawn(n_children)]

    def __getattr__(self, name):
        if name in PASS_THROUGH:
            self._record.append(name)
            return getattr(self._rng, name)
        raise AttributeError(
            f"weakened_noise does not cover Generator.{name}: add it to NOISE_DRAWS (with "
            "its weakened form) or to PASS_THROUGH (data-independent sampling) in "
            "skdp/audit.py.")


@contextmanager
def weakened_noise(factor=10.0):
    """Make every skdp fit's privacy noise ``factor`` times smaller (a broken variant).

    For checking that an audit has the power to catch a real bug: inside the
    context, the generator of every :class:`~skdp._backend.Backend` (so every
    Gaussian, Gumbel and tree-aggregation draw, and direct
    ``backend.rng.standard_normal`` calls) returns noise divided by
    ``factor``, and exponential-mechanism samples drawn with
    ``rng.multinomial(n, p)`` come from ``p ** factor`` renormalised (the
    Gumbel-max noise divided by ``factor``). Accounting is untouched, so the
    estimators keep claiming their ``epsilon``. Data-independent sampling
    (permutations, batch indices, the Poisson samples of subsampled Gaussian
    steps) is unchanged, the noise of those steps weakened like any other;
    any other generator method
    raises, so a solver drawing noise some other way is noticed. Host (NumPy)
    noise only: CuPy draws are not weakened.

    Never use it outside tests and audits.

    Parameters
    ----------
    factor : float, default=10.0
        Noise divisor (> 0; 1 changes nothing).

    Yields
    ------
    draws : list of str
        Names of the generator methods called inside the context, in order.

    Examples
    --------
    >>> import numpy as np
    >>> from skdp._backend import Backend
    >>> with weakened_noise(10.0) as draws:
    ...     noise = Backend.from_arrays(np.zeros(1), random_state=0).normal((10000,))
    >>> round(float(noise.std()), 2), draws
    (0.1, ['standard_normal'])
    """
    if not factor > 0:
        raise ValueError(f"factor must be > 0, got {factor!r}.")
    original = _backend.make_rng
    record: list = []

    def weak_rng(random_state):
        return WeakenedGenerator(original(random_state), factor, record)

    _backend.make_rng = weak_rng
    try:
        yield record
    finally:
        _backend.make_rng = original
