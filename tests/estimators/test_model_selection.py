"""PrivateHyperparameterSearch and the repeat-and-select accounting
(skdp.privacy.repeat_and_select)."""

import math
import warnings

import numpy as np
import pytest
from scipy import special, stats
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.estimator_checks import check_param_validation, parametrize_with_checks

from skdp import (BudgetAccountant, BudgetExceededError, KLAdaptiveRegressor, PrivacyLeakWarning,
                  PrivateMinimaxClassifier)
from skdp.model_selection import PrivateHyperparameterSearch, fit_rho_bound
from skdp.privacy.ledger import approx_dp_to_gdp
from skdp.privacy.repeat_and_select import (repeat_and_select_epsilon, repeat_and_select_rdp,
                                            sample_repetitions, truncated_negative_binomial_gamma,
                                            truncated_negative_binomial_mean)
from _toy import NoisyMeanRegressor

TNB = "truncated_negative_binomial"

# most searches fit toy data without the public classes
# (tests/estimators/test_minimax.py tests the warning)
pytestmark = pytest.mark.filterwarnings(
    "ignore:The set of classes:skdp.exceptions.PrivacyLeakWarning")


# -- accounting -----------------------------------------------------------------
@pytest.mark.parametrize("rho, mean, shape, delta", [
    (0.01, 10.0, 1.0, 1e-6), (0.05, 10.0, 0.0, 1e-5), (0.5, 5.0, 0.5, 1e-6),
    (0.05, 10.0, math.inf, 1e-5), (0.005, 30.0, math.inf, 1e-6), (0.2, 3.0, 2.0, 1e-8)])
def test_epsilon_matches_dp_accounting(rho, mean, shape, delta):
    """dp_accounting's RepeatAndSelectDpEvent (PS22 Thms 2 and 6 on an order grid)
    agrees; ours optimises the orders continuously, so it is never larger."""
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    from dp_accounting.rdp import RdpAccountant
    orders = np.concatenate([np.linspace(1.01, 8, 300), np.geomspace(8, 5000, 300)])
    acc = RdpAccountant(orders=list(orders))
    base = dp_event.GaussianDpEvent(1 / math.sqrt(2 * rho))  # rho-zCDP
    acc.compose(dp_event.RepeatAndSelectDpEvent(base, mean, shape))
    ref = acc.get_epsilon(delta)
    poisson = math.isinf(shape)
    ours = repeat_and_select_epsilon(rho, delta, mean, 0.0 if poisson else shape,
                                     "poisson" if poisson else TNB)
    assert ref * (1 - 1e-3) <= ours <= ref * (1 + 1e-9)


def _pgf(s, mean, eta, distribution):
    if distribution == "poisson":
        return np.exp(mean * (s - 1))
    g = truncated_negative_binomial_gamma(mean, eta)
    if eta == 0:
        return np.log1p(-(1 - g) * s) / math.log(g)
    return ((1 - (1 - g) * s) ** (-eta) - 1) / (g ** (-eta) - 1)


def _best_of_k(p, mean, eta, distribution):
    """Exact law of the best of K i.i.d. outputs (ordered by index), plus 'nothing' when K = 0."""
    cdf = _pgf(np.concatenate([[0.0], np.cumsum(p)]), mean, eta, distribution)
    return np.concatenate([[cdf[0]], np.diff(cdf)])  # P[K = 0], then each output


def _renyi(p, q, lam):
    keep = p > 0
    return float(special.logsumexp(lam * np.log(p[keep]) + (1 - lam) * np.log(q[keep])) / (lam - 1))


@pytest.mark.parametrize("distribution, eta", [(TNB, -0.5), (TNB, 0.0), (TNB, 1.0), (TNB, 3.0),
                                               ("poisson", 0.0)])
def test_rdp_bound_holds_for_the_exact_best_of_k(distribution, eta):
    """Direct computation: a discretised Gaussian score, its best of K in closed form
    (P[max <= j] = E[F(j)**K], the pgf of K at F(j)); the exact Renyi divergence
    stays below PS22's bound for the base run's zCDP rho."""
    grid = np.arange(-16, 19) * 0.25  # tails kept where the pgf differences are exact
    p = np.exp(-grid**2 / 2)
    q = np.exp(-(grid - 0.5) ** 2 / 2)
    p, q = p / p.sum(), q / q.sum()
    lams = np.geomspace(1.01, 500, 300)
    rho = max(max(_renyi(p, q, a), _renyi(q, p, a)) / a for a in lams)  # base run is rho-zCDP
    mean = 8.0
    pk, qk = (_best_of_k(x, mean, eta, distribution) for x in (p, q))
    np.testing.assert_allclose([pk.sum(), qk.sum()], 1.0, rtol=1e-9)
    for lam in (1.5, 2.0, 4.0, 8.0, 16.0, 64.0):
        exact = max(_renyi(pk, qk, lam), _renyi(qk, pk, lam))
        bound = float(repeat_and_select_rdp([lam], rho, mean, eta, distribution)[0])
        assert exact <= bound, (lam, exact, bound)
    # the repetition does cost privacy: the exact computation sees it
    both = lambda a, b: max(_renyi(a, b, 8.0), _renyi(b, a, 8.0))  # noqa: E731
    assert both(pk, qk) > both(p, q)


@pytest.mark.parametrize("eta", [-0.5, 0.0, 1.0, 2.5])
def test_sampled_runs_follow_the_truncated_negative_binomial(eta):
    rng = np.random.default_rng(0)
    draws = np.array([sample_repetitions(rng, 4.0, eta) for _ in range(4000)])
    gamma = truncated_negative_binomial_gamma(4.0, eta)
    assert truncated_negative_binomial_mean(gamma, eta) == pytest.approx(4.0, rel=1e-9)
    assert draws.min() >= 1
    # P[K = 1] from PS22 Def. 1 against its frequency
    p1 = ((1 - gamma) / math.log(1 / gamma) if eta == 0
          else (1 - gamma) * eta / (gamma ** (-eta) - 1))
    assert np.mean(draws == 1) == pytest.approx(p1, abs=0.03)
    if eta > -0.5:  # finite variance: the mean is estimable
        assert draws.mean() == pytest.approx(4.0, rel=0.1)


def test_geometric_case_in_closed_form():
    """eta = 1, gamma = 1/E[K]: eps'(lam) = rho lam + 2 (2 sqrt(rho log E[K]) - rho)
    + log(E[K])/(lam - 1), by hand from PS22 Thm 2 with the optimal lam_hat."""
    rho, mean, lam = 0.02, 10.0, 5.0
    by_hand = (rho * lam + 2 * (2 * math.sqrt(rho * math.log(mean)) - rho)
               + math.log(mean) / (lam - 1))
    assert repeat_and_select_rdp([lam], rho, mean, 1.0)[0] == pytest.approx(by_hand, rel=1e-9)


# -- the search -------------------------------------------------------------------
def _data(n=400, seed=0):
    X, y = make_classification(n_samples=n, n_features=4, random_state=seed)
    return X / np.linalg.norm(X, axis=1).max(), y


def _clf(**kw):
    return PrivateMinimaxClassifier(epsilon=1.0, delta=1e-6, n_iter=10, solver="noisy_gd",
                                    group_sizes=[150, 150], **kw)


def test_total_is_the_theorem_and_is_charged_once():
    X, y = _data()
    acc = BudgetAccountant()
    search = PrivateHyperparameterSearch(
        _clf(), {"n_iter": [5, 10], "epsilon": [0.5, 1.0]}, mean_runs=4,
        delta=1e-6, accountant=acc, random_state=0).fit(X, y)
    # worst fit: epsilon = 1, a Gaussian (GDP-calibrated) fit of rho = mu**2/2
    fit_rho = approx_dp_to_gdp(1.0, 1e-6) ** 2 / 2
    assert fit_rho_bound(_clf()) == pytest.approx(fit_rho)
    expected = repeat_and_select_epsilon(fit_rho, 1e-6, 4.0, 0.0)
    assert search.privacy_spent_ == (pytest.approx(expected, rel=1e-12), 1e-6)
    assert search.run_rho_ == pytest.approx(fit_rho)
    assert "Thm 2" in search.privacy_method_
    assert len(acc.spends) == 1 and acc.total()[0] == pytest.approx(expected)
    assert not hasattr(search, "n_runs_") and search.best_params_["epsilon"] in (0.5, 1.0)
    assert search.best_estimator_.privacy_spent_[0] <= search.best_params_["epsilon"] + 1e-9
    # a refit on all rows composes one more fit
    refit = PrivateHyperparameterSearch(_clf(), {"n_iter": [5]}, mean_runs=4,
                                        refit=True, random_state=0).fit(X, y)
    assert refit.privacy_spent_[0] == pytest.approx(
        repeat_and_select_epsilon(fit_rho, 1e-6, 4.0, 0.0, extra_rho=fit_rho))
    assert refit.privacy_spent_[0] > expected and "refit" in refit.privacy_method_


def test_score_noise_has_the_stated_scale():
    """best_score_ is the max of K noisy scores of identical (exact 0) runs, so
    Phi(best/sigma)**K is uniform for the sigma of a score_rho Gaussian mechanism
    with replace-one sensitivity score_bound/n_val. Halving the noise fails this."""
    n, frac, score_rho, bound = 100, 0.2, 0.05, 2.0
    sigma = bound / (frac * n) / math.sqrt(2 * score_rho)  # computed here, not read back
    X, y = np.zeros((n, 1)), np.zeros(n)
    est = NoisyMeanRegressor(epsilon=1.0, target_bound=1e-90)  # predicts ~0 exactly
    u = []
    for seed in range(150):
        s = PrivateHyperparameterSearch(est, {"target_bound": [1e-90]}, mean_runs=2,
                                        score_rho=score_rho, score_bound=bound,
                                        validation_fraction=frac, accountant=BudgetAccountant(),
                                        random_state=seed, reveal_n_runs=True)
        with pytest.warns(PrivacyLeakWarning, match="reveal_n_runs"):
            s.fit(X, y)
        assert s.score_sigma_ == pytest.approx(sigma)
        u.append(stats.norm.cdf(s.best_score_ / sigma) ** s.n_runs_)
    assert stats.kstest(u, "uniform").pvalue > 1e-3


def test_budget_is_checked_before_the_data_are_touched():
    class Untouchable:
        """Its shape is public (a run's subsampled steps are planned from it); its values
        are not: any other access fails."""
        shape = (300, 4)

        def __len__(self):
            return 300

        def __getattr__(self, name):
            if name == "fit":
                raise AttributeError(name)
            raise AssertionError("the data were touched")

        def __getitem__(self, key):
            raise AssertionError("the data were touched")

        def __array__(self, *args, **kwargs):
            raise AssertionError("the data were touched")

    acc = BudgetAccountant(epsilon=1.0, delta=1e-5)
    search = PrivateHyperparameterSearch(_clf(), {"n_iter": [5]}, accountant=acc)
    with pytest.raises(BudgetExceededError, match="exceeded"):
        search.fit(Untouchable(), Untouchable())
    assert acc.spends == [] and not hasattr(search, "best_estimator_")


def test_same_seed_same_search():
    X, y = _data()
    space = {"n_iter": [5, 10, 20], "solver": ["noisy_gd", "sgda"]}
    a, b, c = (PrivateHyperparameterSearch(_clf(), space, mean_runs=3, random_state=s).fit(X, y)
               for s in (1, 1, 2))
    assert a.best_params_ == b.best_params_ and a.best_score_ == b.best_score_
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.best_score_ != c.best_score_


def test_pipeline_of_skdp_steps():
    X, y = _data()
    pipe = Pipeline([("scale", FunctionTransformer(lambda Z: Z / 2)), ("clf", _clf())])
    acc = BudgetAccountant()
    search = PrivateHyperparameterSearch(
        pipe, {"clf__n_iter": [5, 10], "clf__epsilon": [0.5, 1.0]}, mean_runs=3,
        accountant=acc, random_state=0).fit(X, y)
    fit_rho = approx_dp_to_gdp(1.0, 1e-6) ** 2 / 2
    assert search.privacy_spent_[0] == pytest.approx(repeat_and_select_epsilon(fit_rho, 1e-6, 3.0))
    assert len(acc.spends) == 1  # the inner fits were not charged to the user's accountant
    assert search.predict(X).shape == (400,) and set(search.classes_) == {0, 1}
    assert search.score(X, y) > 0.5
    leaky = Pipeline([("scale", StandardScaler()), ("clf", _clf())])
    with pytest.warns(PrivacyLeakWarning, match="scale"):
        PrivateHyperparameterSearch(leaky, {"clf__n_iter": [5]}, mean_runs=2,
                                    random_state=0).fit(X, y)


# -- what the search releases: nothing about K or the losing runs (issue 15, item 4) ------
class _Spy(PrivateMinimaxClassifier):
    """Records the accountant (and its spends so far) and the seed of every fit."""

    fits = []

    def fit(self, X, y, groups=None, classes=None):
        _Spy.fits.append((self.accountant, len(self.accountant.spends), self.random_state))
        return super().fit(X, y, groups=groups, classes=classes)


def _revealed_k(seed, **kw):
    with pytest.warns(PrivacyLeakWarning, match="reveal_n_runs"):
        return _search(seed, reveal_n_runs=True, **kw).n_runs_


def _search(seed, estimator=None, **kw):
    X, y = _data(200)
    est = estimator if estimator is not None else _clf()
    search = PrivateHyperparameterSearch(est, {"n_iter": [2, 3]}, mean_runs=5,
                                         random_state=seed, **kw)
    return search.fit(X, y, classes=[0, 1])


@pytest.mark.parametrize("refit", [False, True])
def test_best_estimator_carries_no_trace_of_other_runs(refit):
    """Each run (and the refit) has its own throw-away accountant and seed; the released
    model gets the user's back. The old code gave every run one accountant, so
    best_estimator_.accountant.spends counted K (and held every losing run's ledger),
    and best_estimator_.random_state was the seed of its noise."""
    seed = next(s for s in range(20) if _revealed_k(s) > 1)
    mine = BudgetAccountant()
    _Spy.fits = []
    user = _Spy(epsilon=1.0, n_iter=3, solver="noisy_gd", group_sizes=[80, 80], accountant=mine,
                random_state=7, verbose=0)
    search = _search(seed, user, refit=refit)
    assert len(_Spy.fits) == _revealed_k(seed) + refit > 2
    accountants = [a for a, _, _ in _Spy.fits]
    assert len({id(a) for a in accountants}) == len(accountants)  # one each, kept alive here
    assert all(spent == 0 for _, spent, _ in _Spy.fits) and mine not in accountants
    assert len({state for _, _, state in _Spy.fits}) == len(_Spy.fits) and 7 not in {
        state for _, _, state in _Spy.fits}
    best = search.best_estimator_
    assert best.accountant is mine and mine.spends == [] and best.random_state == 7
    assert best.get_params() == clone(user).set_params(**search.best_params_).get_params()


def test_best_step_of_a_pipeline_gets_the_users_parameters_back():
    pipe = Pipeline([("scale", FunctionTransformer(lambda Z: Z / 2)),
                     ("clf", _clf(accountant=None, random_state=None))])
    X, y = _data(200)
    search = PrivateHyperparameterSearch(pipe, {"clf__n_iter": [2, 3]}, mean_runs=4,
                                         random_state=0).fit(X, y, clf__classes=[0, 1])
    step = search.best_estimator_.named_steps["clf"]
    assert step.accountant is None and step.random_state is None


def test_sampled_estimators_are_not_fitted_in_place():
    """An estimator among the candidates is cloned for each run. The old search fitted
    the object itself: it ended up holding whichever run fitted it last (a losing one,
    maybe), with that run's accountant, and best_estimator_ shared it."""
    candidate = _clf()
    pipe = Pipeline([("scale", FunctionTransformer()), ("clf", _clf())])
    search = PrivateHyperparameterSearch(pipe, {"clf": [candidate]}, mean_runs=6,
                                         random_state=1).fit(*_data(200), clf__classes=[0, 1])
    assert not hasattr(candidate, "coef_") and candidate.accountant is None
    step = search.best_estimator_.named_steps["clf"]
    assert step is not candidate and step.accountant is None and hasattr(step, "coef_")


def test_n_runs_only_behind_the_opt_in():
    """The old search always set n_runs_ = K."""
    search = _search(0)
    assert not hasattr(search, "n_runs_")
    with pytest.warns(PrivacyLeakWarning, match="K hidden"):
        search.set_params(reveal_n_runs=True).fit(*_data(200), classes=[0, 1])
    assert search.n_runs_ >= 1
    search.set_params(reveal_n_runs=False).fit(*_data(200), classes=[0, 1])
    assert not hasattr(search, "n_runs_")  # not left over from the previous fit


def test_verbose_and_warnings_do_not_count_the_runs(capsys):
    """One printed line and one warning of each kind, whatever K (the old search printed
    a line per run, and every run's fit printed and warned)."""
    seeds = [s for s in range(30) if _revealed_k(s) > 1][:2]
    chatty = _clf(verbose=1)
    for seed in seeds:
        capsys.readouterr()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            X, y = _data(200)
            PrivateHyperparameterSearch(chatty, {"n_iter": [2, 3]}, mean_runs=5, verbose=1,
                                        random_state=seed).fit(X, y)  # classes from y: warns
        lines = capsys.readouterr().out.splitlines()
        assert len(lines) == 1 and "best noisy score" in lines[0]
        assert sum("set of classes" in str(w.message) for w in caught) == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search = PrivateHyperparameterSearch(chatty, {"n_iter": [2, 3]}, mean_runs=5,
                                             verbose=1, random_state=seeds[0],
                                             reveal_n_runs=True).fit(*_data(200))
    lines = capsys.readouterr().out.splitlines()
    k = search.n_runs_
    assert sum(line.startswith("[PrivateHyperparameterSearch] run") for line in lines) == k
    assert sum("set of classes" in str(w.message) for w in caught) == k


def test_row_indexed_fit_params_are_split():
    X, y = _data()
    groups = np.where(X[:, 0] > 0, "a", "b")
    clf = PrivateMinimaxClassifier(n_iter=5, solver="noisy_gd", group_sizes={"a": 150, "b": 150})
    search = PrivateHyperparameterSearch(clf, {"radius": [1.0, None]}, mean_runs=2,
                                         random_state=0).fit(X, y, groups=groups)
    assert list(search.best_estimator_.group_labels_) == ["a", "b"]


def test_plain_grid_search_costs_every_fit():
    """What the docs state: GridSearchCV's fits are all charged, and compose."""
    X, y = _data()
    acc = BudgetAccountant()
    GridSearchCV(_clf(accountant=acc), {"n_iter": [5, 10], "epsilon": [0.5, 1.0]},
                 cv=3).fit(X, y)
    assert len(acc.spends) == 4 * 3 + 1  # + the refit
    eps, delta = acc.total()
    # 13 fits composed: more than a private search with as many runs on average
    assert eps > repeat_and_select_epsilon(fit_rho_bound(_clf()), delta, 13.0) > 1.0


def test_poisson_can_run_nothing():
    X, y = _data()
    seed = next(s for s in range(100)  # the search draws K right after the split
                if sample_repetitions(_after_split(s, len(X)), 1.5, distribution="poisson") == 0)
    with pytest.warns(UserWarning, match="K = 0"):
        s = PrivateHyperparameterSearch(_clf(), {"n_iter": [5]}, mean_runs=1.5,
                                        distribution="poisson", random_state=seed).fit(X, y)
    assert s.best_estimator_ is None
    assert "Thm 6" in s.privacy_method_
    with pytest.raises(NotFittedError, match="K = 0"):
        s.predict(X)


def _after_split(seed, n):
    rng = np.random.default_rng(seed)
    rng.permutation(n)
    return rng


@pytest.mark.parametrize("params, match", [
    (dict(param_distributions={"nope": [1]}), "not a parameter"),
    (dict(param_distributions={"n_iter": []}), "non-empty list"),
    (dict(param_distributions=[]), "non-empty list of dicts"),
    (dict(param_distributions={"epsilon": stats.uniform(0.1, 1)}), "must be a list"),
    (dict(validation_fraction=0.001), "no training or no validation"),
])
def test_bad_search_parameters_are_refused(params, match):
    X, y = _data(100)
    kw = dict(estimator=_clf(), param_distributions={"n_iter": [5]}, accountant=BudgetAccountant())
    kw.update(params)
    with pytest.raises(ValueError, match=match):
        PrivateHyperparameterSearch(**kw).fit(X, y)
    assert kw["accountant"].spends == []


@pytest.mark.parametrize("params", [dict(mean_runs=1.0), dict(eta=-1.0), dict(delta=0.0),
                                    dict(distribution="uniform"), dict(validation_fraction=1.0),
                                    dict(score_rho=0.0), dict(scoring="r2"),
                                    dict(estimator="clf")])
def test_invalid_parameter_values(params):
    X, y = _data(100)
    kw = dict(estimator=_clf(), param_distributions={"n_iter": [5]})
    kw.update(params)
    with pytest.raises(InvalidParameterError):
        PrivateHyperparameterSearch(**kw).fit(X, y)


def test_non_private_estimator_is_refused():
    X, y = _data(100)
    with pytest.raises(ValueError, match="not private"):
        PrivateHyperparameterSearch(LogisticRegression(), {"C": [1.0]}).fit(X, y)


def test_constraints_cover_the_parameters():
    check_param_validation("PrivateHyperparameterSearch", PrivateHyperparameterSearch(
        NoisyMeanRegressor(), {"target_bound": [1.0]}, mean_runs=2))


@parametrize_with_checks(
    [PrivateHyperparameterSearch(NoisyMeanRegressor(), {"target_bound": [0.5, 1.0]},
                                 mean_runs=2, random_state=0),
     PrivateHyperparameterSearch(PrivateMinimaxClassifier(n_iter=5, solver="noisy_gd"),
                                 {"radius": [1.0, None]}, mean_runs=2, random_state=0),
     PrivateHyperparameterSearch(KLAdaptiveRegressor(max_iter=5), {"alpha": [0.0, 0.1]},
                                 mean_runs=2, random_state=0)],
    expected_failed_checks=lambda est: est._expected_failed_checks(), xfail_strict=True)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


# -- a NumPy Generator as random_state (issue 28) ---------------------------------
def _regression_table():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(200, 3))
    return X, np.clip(X @ np.array([0.5, -0.5, 0.2]), -1, 1)


def test_generator_random_state_is_accepted_by_every_estimator():
    from skdp import SaddlePointSynthesizer
    X, y = _regression_table()
    KLAdaptiveRegressor(max_iter=5, random_state=np.random.default_rng(1)).fit(X, y)
    PrivateMinimaxClassifier(n_iter=5, random_state=np.random.default_rng(1)).fit(
        X, (X[:, 0] > 0).astype(int), classes=[0, 1])
    Xs = np.random.default_rng(0).integers(0, 3, size=(100, 2))
    SaddlePointSynthesizer(domain={0: 3, 1: 3}, random_state=np.random.default_rng(1)).fit(Xs)


def test_generator_state_is_the_noise_seed():
    from skdp._base import noise_seed
    g = np.random.default_rng(3)
    before = noise_seed(g)
    assert before == noise_seed(clone(KLAdaptiveRegressor(random_state=g)).random_state)
    g.normal()
    assert noise_seed(g) != before
    assert noise_seed(np.random.default_rng(4)) != before


def test_grid_search_folds_sharing_a_cloned_generator_warn():
    """GridSearchCV clones the estimator, deep-copying its Generator: every fold draws the
    same noise, which the accountant detects from the Generator's state."""
    X, y = _regression_table()
    acc = BudgetAccountant()
    est = KLAdaptiveRegressor(max_iter=5, accountant=acc, random_state=np.random.default_rng(0))
    with pytest.warns(PrivacyLeakWarning, match="drew the same noise"):
        GridSearchCV(est, {"alpha": [0.1]}, cv=2, refit=False).fit(X, y)


def test_a_fresh_generator_per_fit_does_not_warn():
    X, y = _regression_table()
    acc = BudgetAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        for seed in (0, 1):
            KLAdaptiveRegressor(max_iter=5, accountant=acc,
                                random_state=np.random.default_rng(seed)).fit(X, y)
        shared = np.random.default_rng(2)  # one instance advances: fresh noise each fit
        for _ in range(2):
            KLAdaptiveRegressor(max_iter=5, accountant=acc, random_state=shared).fit(X, y)


def test_search_accepts_a_generator():
    X, y = _regression_table()
    search = PrivateHyperparameterSearch(KLAdaptiveRegressor(max_iter=5), {"alpha": [0.1, 1.0]},
                                         mean_runs=2, accountant=BudgetAccountant(),
                                         random_state=np.random.default_rng(0)).fit(X, y)
    assert search.best_estimator_ is not None
