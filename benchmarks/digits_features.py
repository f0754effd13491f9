"""Digits at small epsilon: data-independent feature maps, private PCA and classifier options.

Run (one BLAS thread)::

    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/digits_features.py --seeds 10   # all rows
    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/digits_features.py --seeds 30 --eps 0.5 1 5 \\
        --match "pca64 whiten share=0.1"                                        # a few rows
    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/digits_features.py --split test --seeds 30 \\
        --eps 0.5 1 5 --configs baseline "baseline fit_intercept=False" \\
        "pca64 whiten share=0.1 n_iter=auto no intercept"                       # once, at the end

Data: ``load_digits``, pixels divided by their public maximum 16 (as in
``benchmarks/minimax.py`` and the user guide). One fixed public split
(stratified, ``random_state=0``): 30% test; the other 70% split 5:2 into train
(898 rows) and validation (359 rows). ``--split validation`` (the default)
fits on train and scores on validation: choose here. ``--split test`` fits on
train + validation (1257 rows, the user guide's training size) and scores on
test; it must never choose anything. Seeds vary the privacy noise and the
random feature maps; the split stays fixed.

Every model is ``PrivateMinimaxClassifier`` (average risk, ``group_by=None``,
``solver='noisy_gd'`` unless the row says otherwise, ``delta = 1e-6`` as in
the user guide, ``classes`` passed as public) behind a feature map in a
``Pipeline``; each map ends with ``Normalizer()`` (rows scaled to l2 norm 1,
a per-row public function), so ``feature_bound = 1`` clips nothing:

* data-independent maps (no privacy cost): 2x2 / 4x2 pixel pooling,
  ``GaussianRandomProjection`` and ``RBFSampler`` (public ``gamma``, random
  state = the seed; both read only the data's width);
* private PCA (:class:`PrivatePCA` below): rows scaled to norm 1, the
  second-moment matrix ``X^T X / n`` released with the Gaussian mechanism
  (replace-one Frobenius sensitivity ``sqrt(2) / n``, as
  ``skdp.solvers.kl.preconditioner.private_preconditioner``) through
  ``skdp.privacy.release.Release`` at GDP ``mu_pca = sqrt(share) mu``, the rows
  projected on the top ``k`` eigenvectors (``whiten``: divided by
  ``sqrt(lambda_i + shift)``, the shift ``1.5 sqrt(2 p) sigma`` as in
  ``private_preconditioner``; with ``k = 64`` this is a private whitening,
  not a reduction); the classifier gets the
  ``(epsilon', delta)`` of ``mu_clf = sqrt(1 - share) mu``, where ``mu`` is the
  GDP parameter of the target ``(epsilon, delta)`` (Dong-Roth-Su 2022,
  Cor. 2.13). Both parts are Gaussian, so the pipeline is
  ``sqrt(mu_pca**2 + mu_clf**2) = mu``-GDP (Cor. 3.3); the composed ledger is
  checked against ``epsilon`` on every fit.

Prints one markdown table: accuracy mean (std) over seeds per epsilon. Results
and the rows chosen on validation: ``benchmarks/RESULTS.md``.
"""

import argparse
import math
import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.datasets import load_digits
from sklearn.kernel_approximation import RBFSampler
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, Normalizer
from sklearn.random_projection import GaussianRandomProjection

from skdp._backend import Backend
from skdp.minimax import PrivateMinimaxClassifier
from skdp.privacy.ledger import PrivacyLedger, approx_dp_to_gdp, gdp_to_approx_dp
from skdp.privacy.release import Release

DELTA = 1e-6
CLASSES = np.arange(10)
PCA_SEED = 1_000_003


def load(split):
    """(X_fit, y_fit, X_score, y_score) of the fixed public split."""
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    X_rest, X_test, y_rest, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                      stratify=y)
    if split == "test":
        return X_rest, y_rest, X_test, y_test
    X_tr, X_val, y_tr, y_val = train_test_split(X_rest, y_rest, test_size=2 / 7, random_state=0,
                                                stratify=y_rest)
    return X_tr, y_tr, X_val, y_val


def pool(X, rows=2, cols=2):
    """Sum the 8x8 image over blocks of ``rows x cols`` pixels (a fixed linear map)."""
    images = X.reshape(len(X), 8 // rows, rows, 8 // cols, cols)
    return images.sum(axis=(2, 4)).reshape(len(X), -1)


class PrivatePCA(TransformerMixin, BaseEstimator):
    """Projection on the top eigenvectors of a Gaussian-noised second-moment matrix.

    Rows are scaled to l2 norm 1; ``S = X^T X / n`` moves by at most
    ``sqrt(2) / n`` in Frobenius norm when one row is replaced, so the release
    ``S + N(0, sigma**2)`` (upper triangle symmetrised: post-processing) with
    ``sigma = sqrt(2) / (n mu)`` is ``mu``-GDP (Dong-Roth-Su 2022, Thm 2.7).
    The eigenvectors, hence ``transform``, are post-processing.

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(200, 5))
    >>> PrivatePCA(n_components=2, mu=1.0, random_state=0).fit_transform(X).shape
    (200, 2)
    """

    def __init__(self, n_components=16, mu=1.0, whiten=False, random_state=None):
        self.n_components = n_components
        self.mu = mu
        self.whiten = whiten
        self.random_state = random_state

    def fit(self, X, y=None):
        X = Normalizer().transform(X)
        n = len(X)
        self.ledger_ = PrivacyLedger()
        release = Release(Backend.from_arrays(X, random_state=self.random_state), self.ledger_)
        sens = math.sqrt(2.0) / n
        sigma = 0.0 if math.isinf(self.mu) else sens / self.mu
        S = release.gaussian(X.T @ X / n, sens, sigma, label="second-moment matrix")
        evals, evecs = np.linalg.eigh(0.5 * (S + S.T))
        top = np.argsort(evals)[::-1][: self.n_components]
        self.components_ = evecs[:, top].T
        if self.whiten:  # as private_preconditioner: floor at 0, shift by the noise's norm
            shift = 1.5 * math.sqrt(2 * X.shape[1]) * sigma + 1e-6
            self.components_ /= np.sqrt(np.maximum(evals[top], 0.0) + shift)[:, None]
        return self

    def transform(self, X):
        return Normalizer().transform(X) @ self.components_.T


# name -> (feature map kind or None, private PCA (k, share of mu**2, whiten) or None,
#          classifier options over solver="noisy_gd", group_by=None)
CONFIGS = {
    "baseline": (None, None, {}),
    "baseline n_iter=10": (None, None, dict(n_iter=10)),
    "baseline n_iter=40": (None, None, dict(n_iter=40)),
    "baseline n_iter=80": (None, None, dict(n_iter=80)),
    "baseline sgda": (None, None, dict(solver="sgda")),
    "baseline sgda n_iter=2": (None, None, dict(solver="sgda", n_iter=2)),
    "baseline group_by=class": (None, None, dict(group_by="class")),
    "baseline fit_intercept=False": (None, None, dict(fit_intercept=False)),
    "pixels + constant 1, no intercept": ("const1", None, dict(fit_intercept=False)),
    "pixels + constant 0.5, no intercept": ("const0.5", None, dict(fit_intercept=False)),
    "raw, feature_bound=2": ("raw", None, dict(feature_bound=2.0)),
    "raw, feature_bound=4": ("raw", None, dict(feature_bound=4.0)),
    "pool 2x2": ("pool2x2", None, {}),
    "pool 2x2 n_iter=40": ("pool2x2", None, dict(n_iter=40)),
    "pool 4x2": ("pool4x2", None, {}),
    "pool 2x2 + pixels": ("pool+raw", None, {}),
    "sqrt pixels": ("sqrt", None, {}),
    "gauss proj 16": ("grp16", None, {}),
    "gauss proj 32": ("grp32", None, {}),
    "rff 256 gamma=1": ("rff256_1", None, {}),
    "rff 256 gamma=4": ("rff256_4", None, {}),
    "rff 1024 gamma=2": ("rff1024_2", None, {}),
    "pca8 share=0.2": (None, (8, 0.2, False), {}),
    "pca16 share=0.1": (None, (16, 0.1, False), {}),
    "pca16 share=0.2": (None, (16, 0.2, False), {}),
    "pca16 share=0.4": (None, (16, 0.4, False), {}),
    "pca24 share=0.2": (None, (24, 0.2, False), {}),
    "pca32 share=0.2": (None, (32, 0.2, False), {}),
    "pca16 share=0.2 n_iter=40": (None, (16, 0.2, False), dict(n_iter=40)),
}
for _k in (16, 32, 48, 64):
    for _share in (0.05, 0.1, 0.15, 0.2, 0.3):
        for _n_iter in ("auto", 5, 10, 20, 40):
            _opts = {} if _n_iter == "auto" else dict(n_iter=_n_iter)
            CONFIGS[f"pca{_k} whiten share={_share} n_iter={_n_iter}"] = (
                None, (_k, _share, True), _opts)
            CONFIGS[f"pca{_k} whiten share={_share} n_iter={_n_iter} no intercept"] = (
                None, (_k, _share, True), dict(_opts, fit_intercept=False))
for _n_iter in (10, 20, 30, 40, 60):
    CONFIGS[f"baseline n_iter={_n_iter} no intercept"] = (
        None, None, dict(n_iter=_n_iter, fit_intercept=False))
    CONFIGS[f"pool 2x2 + pixels n_iter={_n_iter} no intercept"] = (
        "pool+raw", None, dict(n_iter=_n_iter, fit_intercept=False))
    CONFIGS[f"rff 256 gamma=1 n_iter={_n_iter} no intercept"] = (
        "rff256_1", None, dict(n_iter=_n_iter, fit_intercept=False))


def feature_map(kind, seed):
    """A data-independent map (fitting it reads only the width), rows scaled to norm 1."""
    if kind in (None, "raw"):  # the user guide's setup: the estimator scales rows down
        return []
    if kind.startswith("pool"):
        rows = 4 if kind == "pool4x2" else 2
        pooled = FunctionTransformer(pool, kw_args=dict(rows=rows))
        if kind == "pool+raw":
            pooled = FunctionTransformer(lambda X: np.hstack([pool(X) / 4.0, X]))
        return [pooled, Normalizer()]
    if kind.startswith("const"):  # an intercept as a public constant column
        value = float(kind[5:])
        const = FunctionTransformer(lambda X: np.hstack([Normalizer().transform(X),
                                                         np.full((len(X), 1), value)]))
        return [const, Normalizer()]
    if kind == "sqrt":
        return [FunctionTransformer(np.sqrt), Normalizer()]
    if kind.startswith("grp"):
        return [GaussianRandomProjection(int(kind[3:]), random_state=seed), Normalizer()]
    width, gamma = kind[3:].split("_")
    return [Normalizer(), RBFSampler(gamma=float(gamma), n_components=int(width),
                                     random_state=seed), Normalizer()]


def build(name, eps, seed):
    """The pipeline of one row and the GDP parameter its PCA step spends (0 without)."""
    kind, pca, options = CONFIGS[name]
    options = dict(dict(solver="noisy_gd", group_by=None), **options)
    steps = feature_map(kind, seed)
    eps_clf, mu_pca = eps, 0.0
    if pca is not None:
        k, share, whiten = pca
        mu = approx_dp_to_gdp(eps, DELTA) if math.isfinite(eps) else math.inf
        mu_pca = math.sqrt(share) * mu
        eps_clf = gdp_to_approx_dp(math.sqrt(1.0 - share) * mu, DELTA)
        # its own noise stream: a seed shared with the classifier would repeat its draws
        steps = [PrivatePCA(k, mu_pca, whiten, random_state=PCA_SEED + seed), Normalizer()]
    clf = PrivateMinimaxClassifier(epsilon=eps_clf, delta=DELTA, random_state=seed, **options)
    return make_pipeline(*steps, clf)


def spent(pipe):
    """(epsilon, delta)-DP of the whole pipeline: every release's ledger composed."""
    ledger = PrivacyLedger()
    for step in pipe:
        for attr in ("ledger_", "privacy_ledger_"):
            if hasattr(step, attr):
                ledger.extend(getattr(step, attr))
    return ledger.spent(DELTA)


def run(names, eps_list, seeds, split):
    X_fit, y_fit, X_score, y_score = load(split)
    rows = {}
    for name in names:
        for eps in eps_list:
            for seed in range(seeds):
                pipe = build(name, eps, seed)
                start = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    pipe.fit(X_fit, y_fit, privateminimaxclassifier__classes=CLASSES)
                seconds = time.process_time() - start
                eps_spent, method = spent(pipe)
                assert eps_spent <= eps * (1 + 1e-6), (name, eps, eps_spent, method)
                rows.setdefault((name, eps), []).append((pipe.score(X_score, y_score), seconds))
        print(line(name, rows, eps_list), flush=True)
    return rows


def line(name, rows, eps_list):
    cells = []
    for eps in eps_list:
        a = np.asarray(rows[(name, eps)])
        cells.append(f"{a[:, 0].mean():.3f} ({a[:, 0].std():.3f})")
    seconds = np.median([r[1] for eps in eps_list for r in rows[(name, eps)]])
    return f"| {name} | " + " | ".join(cells) + f" | {seconds:.2g}s |"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--eps", type=float, nargs="+", default=[1.0])
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS),
                        metavar="CONFIG")
    parser.add_argument("--match", default="", help="only the configs whose name contains this")
    parser.add_argument("--split", choices=["validation", "test"], default="validation")
    args = parser.parse_args()
    print(f"### digits, {args.split} accuracy, mean (std) over {args.seeds} seeds, "
          f"delta = {DELTA:g}; median fit CPU seconds\n")
    print("| features / options | " + " | ".join(f"eps={e:g}" for e in args.eps)
          + " | fit |")
    print("|" + "---|" * (len(args.eps) + 2))
    run([c for c in args.configs if args.match in c], args.eps, args.seeds, args.split)


if __name__ == "__main__":
    main()
