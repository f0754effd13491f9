"""Tests of skdp.audit: the statistics against closed forms, the auditor on known
mechanisms, and every estimator and solver audited (issue 8, item 1).

The (estimator, solver) pairs are read from the registries, so a solver added
later is audited automatically: at epsilon 0.5 and 2 its audited lower bound
must stay below the claim, and with every noise source divided by 10
(:func:`skdp.audit.weakened_noise`) the audit must catch it (lower bound above
the claim), unless it is listed in ``LOW_POWER`` with the reason. A new solver
that needs parameters (or is slow with its defaults on 40 rows) gets them in
``SOLVER_PARAMS``, and more broken-variant fits in ``BROKEN_TRIALS`` (all in
tests/_audit_cases.py, shared with benchmarks/audit.py). Budget: about 2 s per
solver.
"""

import math
import warnings
from numbers import Real

import numpy as np
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import validate_data

from _audit_cases import (BROKEN_TRIALS, DOMAIN, ESTIMATORS, FIT_PARAMS, LOW_POWER, PAIRS,
                          SYNTH_KIND_CANARIES, X_LIN, X_TABLE, Y_CLASS, class_count_and_margin,
                          lone_label_case, make_case)
from skdp._backend import Backend
from skdp._base import PrivacyMixin
from skdp._validation import ACCOUNTANT_CONSTRAINT, DELTA_CONSTRAINT, EPSILON_CONSTRAINT
from skdp.audit import (NOISE_DRAWS, AuditResult, Canary, audit_estimator, audit_scores,
                        clopper_pearson, epsilon_lower_bound, make_canary, weakened_noise)
from skdp.exceptions import PrivacyLeakWarning
from skdp.minimax import PrivateMinimaxClassifier
from skdp.privacy.ledger import PrivacyLedger, approx_dp_to_gdp, gdp_to_approx_dp
from skdp.synthesizer import SaddlePointSynthesizer


# ---------------------------------------------------------------------------
# Clopper-Pearson and the epsilon bound against closed forms
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (57, 200), (1, 1)])
@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_clopper_pearson_matches_beta_quantiles(k, n, alpha):
    lo, hi = clopper_pearson(k, n, alpha)
    assert lo == (0.0 if k == 0 else pytest.approx(stats.beta.ppf(alpha / 2, k, n - k + 1)))
    assert hi == (1.0 if k == n else pytest.approx(stats.beta.ppf(1 - alpha / 2, k + 1, n - k)))
    # closed forms at the ends: (alpha/2) ** (1/n)
    if k == 0:
        assert hi == pytest.approx(1 - (alpha / 2) ** (1 / n))
    if k == n:
        assert lo == pytest.approx((alpha / 2) ** (1 / n))


def test_clopper_pearson_covers():
    """Coverage of the exact interval is at least 1 - alpha (here p = 0.3, n = 50)."""
    k = np.random.default_rng(0).binomial(50, 0.3, size=4000)
    lo, hi = clopper_pearson(k, 50, 0.1)
    assert np.mean((lo <= 0.3) & (0.3 <= hi)) >= 0.9


def test_epsilon_bound_closed_forms():
    n, alpha, delta = 100, 0.05, 1e-3
    a = (alpha / 2) ** (1 / n)  # perfect test: TPR_lo = a, FPR_hi = 1 - a
    expected = max(math.log((a - delta) / (1 - a)), math.log((1 - delta - (1 - a)) / (1 - a)))
    assert epsilon_lower_bound(n, n, 0, n, delta, alpha) == pytest.approx(expected)
    # general counts: the two hypothesis-testing inequalities of (eps, delta)-DP
    tp, fp = 80, 10
    tpr_lo = stats.beta.ppf(alpha / 2, tp, n - tp + 1)
    fpr_hi = stats.beta.ppf(1 - alpha / 2, fp + 1, n - fp)
    expected = max(math.log((tpr_lo - delta) / fpr_hi),
                   math.log((1 - delta - fpr_hi) / (1 - tpr_lo)))
    assert epsilon_lower_bound(tp, n, fp, n, delta, alpha) == pytest.approx(expected)
    assert epsilon_lower_bound(50, 100, 50, 100) == 0.0  # a coin flip shows nothing


def test_bad_counts_and_alpha():
    with pytest.raises(ValueError, match="successes <= trials"):
        clopper_pearson(5, 4)
    with pytest.raises(ValueError, match="alpha"):
        clopper_pearson(1, 4, alpha=1.5)


# ---------------------------------------------------------------------------
# The auditor on mechanisms whose epsilon is known exactly
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("mu", [0.5, 2.0])
def test_gaussian_mechanism_bound_is_valid_and_informative(mu):
    """mu-GDP (a Gaussian shift of mu noise sd): exact epsilon by Dong-Roth-Su Cor. 2.13."""
    delta = 1e-5
    true_eps = gdp_to_approx_dp(mu, delta)
    rng = np.random.default_rng(1)
    res = audit_scores(rng.normal(0, 1, 20000), rng.normal(mu, 1, 20000), delta=delta,
                       claimed_epsilon=true_eps, random_state=0)
    assert res.epsilon_lower_bound <= true_eps
    assert res.epsilon_lower_bound >= 0.4 * true_eps  # the auditor has power
    assert res.epsilon_interval[0] == res.epsilon_lower_bound <= res.epsilon_interval[1]
    assert res.tpr_interval[0] <= res.tpr <= res.tpr_interval[1]


def test_randomized_response_bound_approaches_epsilon():
    """Randomised response is exactly eps-DP, and the optimal test is its output."""
    eps = 1.0
    keep = math.exp(eps) / (1 + math.exp(eps))
    rng = np.random.default_rng(2)
    out = (rng.random(20000) > keep).astype(float)  # true bit 0
    inn = (rng.random(20000) < keep).astype(float)  # true bit 1
    res = audit_scores(out, inn, threshold=0.5)
    assert 0.9 * eps <= res.epsilon_lower_bound <= eps
    assert res.threshold_chosen_on == "given" and res.n_positive == 20000


class _GaussianMean(PrivacyMixin, RegressorMixin, BaseEstimator):
    """The Gaussian mechanism on the mean of y clipped to [-1, 1], calibrated by GDP:
    exactly (epsilon, delta)-DP (replace-one sensitivity 2/n, mu = 2 / (n sigma))."""

    _parameter_constraints = {"epsilon": EPSILON_CONSTRAINT, "delta": DELTA_CONSTRAINT,
                              "accountant": ACCOUNTANT_CONSTRAINT, "random_state": ["random_state"],
                              "scale": [Interval(Real, 0, None, closed="neither")]}

    def __init__(self, epsilon=1.0, delta=1e-5, scale=1.0, accountant=None, random_state=None):
        self.epsilon = epsilon
        self.delta = delta
        self.scale = scale
        self.accountant = accountant
        self.random_state = random_state

    def fit(self, X, y):
        accountant = self._check_budget()
        X, y = validate_data(self, X, y)
        backend = Backend.from_arrays(X, random_state=self.random_state)
        sens = 2.0 / len(y)
        sigma = sens / approx_dp_to_gdp(self.epsilon, self.delta)
        ledger = PrivacyLedger()
        ledger.gaussian(sens, sigma)  # scale != 1 is a bug: noise off, ledger unaware
        noise = backend.normal((1,), scale=self.scale * sigma)[0]
        self.mean_ = float(np.clip(y, -1, 1).mean() + noise)
        self._record_spend(accountant, ledger)
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def test_audit_estimator_on_an_exact_gaussian_mechanism():
    X, y = np.zeros((10, 1)), np.zeros(10)
    est = _GaussianMean(epsilon=2.0, delta=1e-5)
    kw = dict(n_trials=300, statistic=_mean, random_state=0)
    res = audit_estimator(est, X, y, **kw)
    assert res.epsilon_lower_bound <= 2.0
    with weakened_noise(10) as draws:
        broken = audit_estimator(est, X, y, **kw)
    assert broken.epsilon_lower_bound > 2.0 and broken.violation
    assert set(draws) == {"standard_normal"}
    # the same as a mechanism whose noise scale is wrong by 10
    tenth = audit_estimator(est.set_params(scale=0.1), X, y, **kw)
    assert tenth.epsilon_lower_bound == broken.epsilon_lower_bound


def _mean(est, canary):
    return est.mean_


def test_seeds_flow_from_random_state():
    X, y = np.zeros((10, 1)), np.zeros(10)
    est = _GaussianMean(epsilon=1.0)
    a = audit_estimator(est, X, y, n_trials=20, statistic=_mean, random_state=3)
    b = audit_estimator(est, X, y, n_trials=20, statistic=_mean, random_state=3)
    c = audit_estimator(est, X, y, n_trials=20, statistic=_mean, random_state=4)
    np.testing.assert_array_equal(a.scores_in, b.scores_in)
    assert not np.array_equal(a.scores_in, c.scores_in)
    assert not np.array_equal(a.scores_in, a.scores_out)  # independent seeds per dataset


def test_user_canary_and_statistic():
    X, y = np.zeros((10, 1)), np.zeros(10)
    y_in = y.copy()
    y_in[0] = 1.0
    canary = Canary(X, y, X, y_in, (X[:1], 0.0), (X[:1], 1.0))
    res = audit_estimator(_GaussianMean(epsilon=1.0), X, y, n_trials=20, canary=canary,
                          statistic=lambda est, c: est.mean_, random_state=0)
    assert isinstance(res, AuditResult) and res.statistic == "<lambda>"
    assert "epsilon >=" in res.summary()


def test_bad_arguments():
    X, y = np.zeros((10, 1)), np.zeros(10)
    est = _GaussianMean()
    with pytest.raises(ValueError, match="n_trials"):
        audit_estimator(est, X, y, n_trials=2)
    with pytest.raises(TypeError, match="canary"):
        audit_estimator(est, X, y, n_trials=4, canary=3)
    with pytest.raises(TypeError, match="statistic"):
        audit_estimator(est, X, y, n_trials=4, statistic=3)
    with pytest.raises(ValueError, match="finite"):
        audit_estimator(est, X, y, n_trials=4, statistic=lambda e, c: math.nan)
    with pytest.raises(ValueError, match="threshold"):
        audit_scores([0, 1], [0, 1], threshold="best")
    with pytest.raises(ValueError, match="index"):
        make_canary(est, X, y, index=10)
    with pytest.raises(ValueError, match="factor"):
        with weakened_noise(0):
            pass


# ---------------------------------------------------------------------------
# Every estimator and solver, from the registries
# ---------------------------------------------------------------------------
# the pairs, their data and audit parameters: tests/_audit_cases.py (shared with
# benchmarks/audit.py)


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
@pytest.mark.parametrize("name, solver", PAIRS)
def test_audited_bound_below_claim(name, solver, epsilon):
    est, X, y = make_case(name, solver, epsilon)
    res = audit_estimator(est, X, y, n_trials=50, fit_params=FIT_PARAMS.get(name),
                          random_state=0)
    assert res.claimed_epsilon == epsilon
    assert res.epsilon_lower_bound <= epsilon, res.summary()


@pytest.mark.parametrize("name, solver", PAIRS)
def test_noise_flows_through_the_weakened_generator(name, solver):
    """Every solver's noise comes from the patched generator (which raises on a method
    it does not cover), and the patch at factor 1 changes nothing."""
    est, X, y = make_case(name, solver, 1.0)
    params = FIT_PARAMS.get(name, {})
    fit = (lambda e: e.fit(X)) if y is None else (lambda e: e.fit(X, y, **params))
    plain = _release(fit(est.set_params(random_state=0)))
    with weakened_noise(1.0) as draws:
        same = _release(fit(est.set_params(random_state=0)))
    assert set(draws) & set(NOISE_DRAWS), f"{solver} drew no noise from the generator: {draws}"
    np.testing.assert_allclose(same, plain, rtol=1e-9, atol=1e-12)


def _release(est):
    if hasattr(est, "histogram_"):
        return np.asarray(est.histogram_, dtype=float).ravel()
    if hasattr(est, "model_"):  # a graphical model: its marginals on the workload
        return np.concatenate([np.ravel(est.model_.marginal(m)) for m in est._marginal_index])
    return np.r_[np.ravel(est.coef_), np.ravel(est.intercept_)]


@pytest.mark.parametrize("name, solver", PAIRS)
def test_broken_variant_is_caught(name, solver):
    if (name, solver) in LOW_POWER:
        pytest.skip(LOW_POWER[(name, solver)])
    est, X, y = make_case(name, solver, 2.0)
    with warnings.catch_warnings(), weakened_noise(10.0):
        warnings.simplefilter("ignore")
        res = audit_estimator(est, X, y, n_trials=BROKEN_TRIALS.get((name, solver), 200),
                              split=0.3, fit_params=FIT_PARAMS.get(name), random_state=0)
    assert res.epsilon_lower_bound > 2.0, res.summary()


def test_broken_variant_caught_for_every_estimator():
    caught = {name for name, solver in PAIRS if (name, solver) not in LOW_POWER}
    assert caught == set(ESTIMATORS)


def test_default_canaries():
    c = make_canary(PrivateMinimaxClassifier(), X_LIN, Y_CLASS)
    np.testing.assert_allclose(np.abs(c.record_in[0]), [[0, 0, 1]])  # the empty direction
    assert (c.record_out[1], c.record_in[1]) == (0, 1)
    assert np.sum(c.X_in != X_LIN) <= 3 and np.sum(c.y_in != c.y_out) == 1
    t = make_canary(SaddlePointSynthesizer(domain=DOMAIN), X_TABLE)
    rest = X_TABLE[1:]
    for j in range(3):  # the canary's value is the rarest of its column
        counts = [np.sum(rest[:, j] == v) for v in range(3)]
        assert counts[t.record_in[0][0, j]] == min(counts)
        assert t.record_in[0][0, j] != t.record_out[0][0, j]


def test_table_canary_on_a_dataframe():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"city": ["Lyon"] * 6 + ["Paris"] * 3 + ["Rome"],
                       "age": np.arange(20, 30)})
    est = SaddlePointSynthesizer(domain={"city": ["Lyon", "Paris", "Rome"], "age": (18, 90)})
    c = make_canary(est, df, index=0)
    assert list(c.record_in[0]["city"]) == ["Rome"] and list(c.record_out[0]["city"]) == ["Paris"]
    assert list(c.X_in.columns) == ["city", "age"] and (c.X_in.iloc[1:] == df.iloc[1:]).all().all()
    res = audit_estimator(est, df, n_trials=4, random_state=0)
    assert res.statistic == "mass_in_canary_cells"


# ---------------------------------------------------------------------------
# The review's canaries (issue 15)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_lone_label_row_with_public_classes(epsilon):
    """A row alone in its class: with classes given, the audit stays below the claim."""
    est, canary, fit_params = lone_label_case(epsilon)
    res = audit_estimator(est, canary.X_out, canary.y_out, n_trials=50, canary=canary,
                          statistic=class_count_and_margin, fit_params=fit_params,
                          random_state=0)
    assert res.epsilon_lower_bound <= epsilon, res.summary()


def test_lone_label_row_caught_when_classes_come_from_y():
    """The same audit without classes (the code before issue 15, now warned) tells the
    neighbours apart every time: the most 25 evaluation fits per side can show."""
    est, canary, _ = lone_label_case(1.0)
    with warnings.catch_warnings(record=True) as caught:
        res = audit_estimator(est, canary.X_out, canary.y_out, n_trials=50, canary=canary,
                              statistic=class_count_and_margin, random_state=0)
    assert any(issubclass(w.category, PrivacyLeakWarning) for w in caught)
    assert res.epsilon_lower_bound > 1.0 and res.tpr == 1.0 and res.fpr == 0.0, res.summary()
@pytest.mark.parametrize("name", sorted(SYNTH_KIND_CANARIES))
def test_synthesizer_kind_canaries_stay_below_the_claim(name):
    """Issue 15, item 2: the column kind and integer flag no longer read the values."""
    est, canary, statistic = SYNTH_KIND_CANARIES[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = audit_estimator(est, canary.X_out, canary=canary, statistic=statistic,
                              n_trials=100, random_state=0)
    assert res.epsilon_lower_bound <= est.epsilon, res.summary()


# ---------------------------------------------------------------------------
# The synthesizer's fine-grid releases (issue 30): the grid (item 1), its spikes (one row
# moved from a spike to a value no other row holds), its second level (one row moved between
# two refined sub-cells)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["fine_grid_case", "spike_case", "refine_case"])
def test_synth_fine_grid_release_audit(case):
    """Its claim holds at the canary, and a noise divided by 10 is caught."""
    import _audit_cases

    est, canary, statistic = getattr(_audit_cases, case)(2.0)
    kw = dict(n_trials=200, canary=canary, statistic=statistic, split=0.3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = audit_estimator(est, canary.X_out, **kw)
        assert res.epsilon_lower_bound <= 2.0, res.summary()
        with weakened_noise(10.0):
            broken = audit_estimator(est, canary.X_out, **kw)
    assert broken.epsilon_lower_bound > 2.0, broken.summary()
