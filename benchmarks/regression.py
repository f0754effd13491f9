"""Benchmark of KLAdaptiveRegressor (issue 5): utility against epsilon, and the rate check.

Run (from the repository root)::

    python benchmarks/regression.py utility --data diabetes
    python benchmarks/regression.py utility --data generated --n 100000
    python benchmarks/regression.py rates
    python benchmarks/regression.py ablation --data generated --n 100000
    python benchmarks/regression.py mlp --n 20000 --seeds 3

``utility`` prints, for each epsilon in {0.1, 0.5, 1, 2, 5, inf} and 5 seeds
(each seed: its own 70/30 split and noise), the mean (and sd) test R^2 and
the mean excess empirical risk ``F(w) - F(w*)`` of every skdp solver, of
non-private sklearn ``LinearRegression``/``Ridge``, and of AdaSSP (Wang 2018,
"Revisiting differentially private linear regression", Alg. 2, implemented
here in zCDP with an even three-way budget split). ``F`` is half the mean
squared error on the training split *after* the public clipping, ``w*`` its
minimiser (so the excess is the optimisation error the privacy costs).
diffprivlib's ``LinearRegression`` is run when it imports (it is not
installed in the test environment; see ``shared/guides/anchors.md``).

Public preprocessing (no statistic of the private data is used):

* diabetes (n = 442, d = 10; sklearn's copy has unit-norm columns): features
  times the constant 4, so rows have l2 norm about 0.6, ``feature_bound=1``;
  targets (documented range 25..346) mapped affinely to [-1, 1]
  (R^2 is unchanged by that map).
* generated (d = 20): correlated Gaussian features scaled by a known constant,
  ``y = clip(0.5 x.w + 0.3 + 0.15 noise, -1, 1)``; bounds ``feature_bound=1``,
  ``target_bound=1`` are properties of the generator.

``rates`` fits the log-log slope of the median excess empirical risk against
n (n = 8k, 32k, 128k; unit-sphere features, rho = 1, 5 seeds) for a
least-squares problem (kappa = 2, d = 10) and a quartic-growth problem
``phi = (z - y)**4/4`` (kappa = 4/3, a power-family KL loss; d = 3 and ||w*|| = 1:
with d = 10 the quartic is so flat, ``F ~ 3/(4 d (d+2)) ||w - w*||**4``, that
no solver leaves the pre-asymptotic regime at these n), calling the solvers directly (no
preconditioning) with the KL constants computed non-privately (test only),
and prints the theory's slopes next to them.
"""

import argparse
import math
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import train_test_split

from skdp._backend import Backend
from skdp.solvers.losses.regression import SquaredLoss
from skdp.privacy.ledger import PrivacyLedger, approx_dp_to_zcdp, zcdp_to_approx_dp
from skdp.privacy.budget import Budget
from skdp.privacy.release import Release
from skdp.regression import SOLVER_SPECS, KLAdaptiveRegressor
from skdp.solvers.kl.models import LinearModel
from skdp.solvers.kl.problem import KLProblem, Objective, SolverConfig

EPSILONS = [0.1, 0.5, 1.0, 2.0, 5.0, math.inf]
RATE_MAX_ITER = 5000  # rate check: cap on gradient queries (the solvers' default is 1000-2000)
DELTA = 1e-6
SOLVERS = {
    "auto": dict(),
    "noisy_gd": dict(solver="noisy_gd"),
    "stationary_gd": dict(solver="stationary_gd"),
    "spider (alpha=1e-3)": dict(solver="spider", alpha=1e-3),
    "ppm": dict(solver="ppm"),
}


# ------------------------------------------------------------------ data
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return 4.0 * X, (y - 185.5) / 160.5


def generated(n, d=20, seed=0):
    rng = np.random.default_rng(seed)
    mix = np.random.default_rng(12345).normal(size=(d, d)) * 0.3 + np.eye(d)
    X = rng.normal(size=(n, d)) @ mix / 8.0
    w = np.random.default_rng(54321).normal(size=d)
    y = np.clip(0.5 * X @ w + 0.3 + 0.15 * rng.normal(size=n), -1.0, 1.0)
    return X, y


def clipped_design(X, y, bound=1.0):
    norms = np.maximum(np.linalg.norm(X, axis=1, keepdims=True) / bound, 1.0)
    return np.c_[X / norms, np.full(len(X), bound)], np.clip(y, -1.0, 1.0)


# -------------------------------------------------------------- baselines
def adassp(X, y, epsilon, delta, rng, bound=1.0, fail=0.05):
    """AdaSSP (Wang 2018, Alg. 2) in zCDP: three Gaussian releases at rho/3 each.

    Rows (with the intercept column) have norm <= B = sqrt(2) bound, |y| <= 1.
    Replace-one sensitivities: lambda_min(X^T X): B^2; X^T X (Frobenius):
    sqrt(2) B^2; X^T y: 2 B.
    """
    Xd, y = clipped_design(X, y, bound)
    n, p = Xd.shape
    B2 = 2.0 * bound**2
    if math.isinf(epsilon):
        return np.linalg.lstsq(Xd, y, rcond=None)[0]
    rho = approx_dp_to_zcdp(epsilon, delta) / 3.0
    s1, s2, s3 = (B2 / math.sqrt(2 * rho), math.sqrt(2) * B2 / math.sqrt(2 * rho),
                  2 * math.sqrt(B2) / math.sqrt(2 * rho))
    XtX, Xty = Xd.T @ Xd, Xd.T @ y
    lam_min = np.linalg.eigvalsh(XtX)[0]
    lam_tilde = max(lam_min + s1 * rng.normal() - s1 * math.sqrt(2 * math.log(1 / fail)), 0.0)
    lam = max(0.0, s2 * math.sqrt(p * math.log(2 * p**2 / fail)) - lam_tilde)
    E = rng.normal(size=(p, p)) * s2
    E = (E + E.T) / 2
    return np.linalg.solve(XtX + E + lam * np.eye(p), Xty + s3 * rng.normal(size=p))


def diffprivlib_model():
    try:
        from diffprivlib.models import LinearRegression as DPLinearRegression
    except Exception as exc:  # not installed, or does not import on this sklearn
        return None, f"{type(exc).__name__}: {exc}"
    return DPLinearRegression, ""


# ----------------------------------------------------------------- metrics
def r2(pred, y):
    return 1.0 - np.mean((y - pred) ** 2) / np.var(y)


def excess(w, Xd, y, w_star):
    def f(v):
        return 0.5 * np.mean((Xd @ v - y) ** 2)
    return f(w) - f(w_star)


def utility(args):
    if args.data == "diabetes":
        X, y = diabetes()
        name = "diabetes (n=442, d=10)"
    else:
        X, y = generated(args.n)
        name = f"generated (n={args.n}, d=20)"
    dp_cls, why = diffprivlib_model()
    rows = {}
    for seed in range(args.seeds):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed)
        Xd, yc = clipped_design(Xtr, ytr)
        w_star = np.linalg.lstsq(Xd, yc, rcond=None)[0]
        rng = np.random.default_rng(1000 + seed)
        for eps in EPSILONS:
            for label, kw in SOLVERS.items():
                t = time.time()
                reg = KLAdaptiveRegressor(epsilon=eps, delta=DELTA, random_state=seed, **kw)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    reg.fit(Xtr, ytr)
                w = np.r_[reg.coef_, reg.intercept_]
                rows.setdefault((label, eps), []).append(
                    (r2(reg.predict(Xte), yte), excess(w, Xd, yc, w_star), time.time() - t))
            w = adassp(Xtr, ytr, eps, DELTA, rng)
            rows.setdefault(("AdaSSP (Wang 2018)", eps), []).append(
                (r2(np.c_[clipped_design(Xte, yte)[0]] @ w, yte), excess(w, Xd, yc, w_star), 0))
            if dp_cls is not None and math.isfinite(eps):
                m = dp_cls(epsilon=eps, bounds_X=(-1, 1), bounds_y=(-1, 1), random_state=seed)
                m.fit(Xtr, ytr)
                rows.setdefault(("diffprivlib LinearRegression", eps), []).append(
                    (r2(m.predict(Xte), yte), math.nan, 0))
        for label, model in (("sklearn LinearRegression", LinearRegression()),
                             ("sklearn Ridge(alpha=1)", Ridge(alpha=1.0))):
            model.fit(Xtr, ytr)
            rows.setdefault((label, "-"), []).append((r2(model.predict(Xte), yte), math.nan, 0))
        print(f"seed {seed} done", file=sys.stderr, flush=True)
    print(f"\n### {name}: test R^2, mean (sd) over {args.seeds} seeds; delta={DELTA}\n")
    labels = list(dict.fromkeys(k[0] for k in rows))
    print("| method | " + " | ".join(f"eps={e}" for e in EPSILONS) + " |")
    print("|---" * (len(EPSILONS) + 1) + "|")
    for label in labels:
        cells = []
        for eps in EPSILONS:
            vals = rows.get((label, eps)) or rows.get((label, "-")) if label.startswith(
                "sklearn") else rows.get((label, eps))
            if not vals:
                cells.append("")
                continue
            r = np.array([v[0] for v in vals])
            cells.append(f"{r.mean():.3f} ({r.std():.3f})")
        print(f"| {label} | " + " | ".join(cells) + " |")
    print(f"\n### {name}: excess empirical risk F(w) - F(w*), mean over seeds\n")
    print("| method | " + " | ".join(f"eps={e}" for e in EPSILONS) + " | s/fit at eps=1 |")
    print("|---" * (len(EPSILONS) + 2) + "|")
    for label in labels:
        if label.startswith("sklearn") or label.startswith("diffprivlib"):
            continue
        cells = [f"{np.mean([v[1] for v in rows[(label, e)]]):.2e}" for e in EPSILONS]
        secs = np.mean([v[2] for v in rows[(label, 1.0)]])
        print(f"| {label} | " + " | ".join(cells) + f" | {secs:.2f} |")
    if dp_cls is None:
        print(f"\ndiffprivlib: skipped ({why}).")


def ablation(args):
    """Test R^2 at epsilon = 1 of the default with and without preconditioning."""
    X, y = generated(args.n) if args.data == "generated" else diabetes()
    print(f"\n### Preconditioning ablation, {args.data} (n={len(X)}), eps=1, "
          f"{args.seeds} seeds\n")
    print("| variant | test R^2 mean (sd) | n_iter_ | non-private OLS |")
    print("|---|---|---|---|")
    for share in (0.0, 0.2):
        scores, iters, exact = [], [], []
        for seed in range(args.seeds):
            Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed)
            reg = KLAdaptiveRegressor(epsilon=1.0, delta=DELTA,
                                      solver_options={"precondition": share},
                                      random_state=seed).fit(Xtr, ytr)
            scores.append(r2(reg.predict(Xte), yte))
            iters.append(reg.n_iter_)
            exact.append(r2(LinearRegression().fit(Xtr, ytr).predict(Xte), yte))
        print(f"| auto, precondition={share} | {np.mean(scores):.3f} ({np.std(scores):.3f}) | "
              f"{np.mean(iters):.1f} | {np.mean(exact):.3f} |")


def mlp(args):
    """Test R^2 of the one-hidden-layer model on a nonlinear generated table."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.7, 0.7, size=(args.n, 2))
    y = np.sin(3 * X[:, 0]) * 0.6 + 0.3 * X[:, 1] ** 2 + 0.05 * rng.normal(size=args.n)
    variants = {"linear, auto": dict(), "mlp, auto": dict(model="mlp"),
                "mlp, noisy_gd": dict(model="mlp", solver="noisy_gd"),
                "mlp, stationary_gd": dict(model="mlp", solver="stationary_gd")}
    epsilons = [0.5, 1.0, 2.0, math.inf]
    print(f"\n### mlp (16 tanh units) on y = 0.6 sin(3 x1) + 0.3 x2^2 + noise, n={args.n}: "
          f"test R^2, mean (sd) over {args.seeds} seeds\n")
    print("| model, solver | " + " | ".join(f"eps={e}" for e in epsilons) + " |")
    print("|---" * (len(epsilons) + 1) + "|")
    for label, kw in variants.items():
        cells = []
        for eps in epsilons:
            scores = []
            for seed in range(args.seeds):
                Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed)
                reg = KLAdaptiveRegressor(epsilon=eps, delta=DELTA, random_state=seed,
                                          **kw).fit(Xtr, ytr)
                scores.append(r2(reg.predict(Xte), yte))
            cells.append(f"{np.mean(scores):.3f} ({np.std(scores):.3f})")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


# ------------------------------------------------------------------- rates
class QuarticLoss(SquaredLoss):
    """``phi = (z - y)**4 / 4``: F = a ||w - w*||**4 in the realisable case, kappa = 4/3."""

    def value(self, z, y, xp):
        return 0.25 * (z - y) ** 4

    def derivative(self, z, y, xp):
        return (z - y) ** 3


def rate_problem(kind, n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    w_true = np.full(d, 0.5 / math.sqrt(d))
    if kind == "least squares":
        y = np.clip(X @ w_true + 0.1 * rng.normal(size=n), -1, 1)
        H = X.T @ X / n
        w_star = np.linalg.solve(H, X.T @ y / n)
        gamma = 1 / math.sqrt(2 * np.linalg.eigvalsh(H)[0])  # PL constant (test only)
        return X, y, SquaredLoss(), w_star, 2.0, gamma, 1.0
    w_true = w_true * 2.0  # ||w*|| = 1: a better-scaled quartic
    y = X @ w_true
    # a_min = min_u (1/4n) sum (x.u)^4 over the unit sphere, estimated by sampling
    U = rng.normal(size=(4000, d))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    a_min = np.min(np.mean((X[:2000] @ U.T) ** 4, axis=0)) / 4
    # smoothness on the sublevel set {F <= F(0)}: phi'' = 3 r**2 <= 3 ||w - w*||**2,
    # with ||w - w*|| <= (a_max/a_min)**(1/4) ||w*|| there
    a_max = np.max(np.mean((X[:2000] @ U.T) ** 4, axis=0)) / 4
    return X, y, QuarticLoss(), w_true, 4 / 3, 1 / (4 * a_min**0.25), 3 * math.sqrt(a_max / a_min)


def rates(args):
    sizes = [int(s) for s in args.sizes.split(",")]
    d, rho = 10, 1.0
    theory = {("least squares", "spider"): -2.0, ("least squares", "ppm"): -2.0,
              ("least squares", "adaptive_gd"): -1.0, ("quartic", "spider"): -4 / 3,
              ("quartic", "adaptive_gd"): -2 / 3}
    # Thm 4 (adaptive_gd): u**(2k/(4-k)) + (1/(n sqrt(rho)))**(k/2), u = sqrt(d)/(n sqrt(rho)):
    # slopes -2 and -1 at k = 2 (so -1), -1 and -2/3 at k = 4/3 (so -2/3 for large n)
    ppm_options = dict(prox_strength=0.05, max_outer=20, max_inner=100)
    print(f"\n### Rate check: median excess empirical risk over {args.seeds} seeds, "
          f"rho={rho} (d={d} for least squares, 3 for the quartic)\n")
    print("| problem | solver | " + " | ".join(f"n={n}" for n in sizes)
          + " | fitted slope | theory slope |")
    print("|---" * (len(sizes) + 4) + "|")
    for (kind, name), slope_theory in theory.items():
        if args.problem not in ("all", kind.split()[0]):
            continue
        medians = []
        for n in sizes:
            vals = []
            for seed in range(args.seeds):
                dim = d if kind == "least squares" else 3
                X, y, loss, w_star, kappa, gamma, smooth = rate_problem(kind, n, dim, seed)
                obj = Objective(X, y, loss, LinearModel(dim), 0.0, np)
                cfg = SolverConfig(clip=1.0, smoothness=smooth, n_params=dim, kl_gamma=gamma,
                                   max_iter=RATE_MAX_ITER,
                                   kl_kappa=kappa, loss_bound=obj.value(np.zeros(dim)))
                backend = Backend.from_arrays(X, random_state=seed)
                spec = SOLVER_SPECS[name]
                budget = Budget(zcdp_to_approx_dp(rho, 1e-6), 1e-6, rho,
                                release=Release(backend, PrivacyLedger()))
                res = spec.fn(KLProblem(obj, np.zeros(dim), cfg), budget,
                              spec.resolve_options(ppm_options if name == "ppm" else None))
                vals.append(obj.value(res.solution) - obj.value(w_star))
            medians.append(max(np.median(vals), 1e-300))
        slope = np.polyfit(np.log(sizes), np.log(medians), 1)[0]
        print(f"| {kind} (kappa={2 if kind == 'least squares' else '4/3'}) | {name} | "
              + " | ".join(f"{m:.2e}" for m in medians)
              + f" | {slope:.2f} | {slope_theory:.2f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=["utility", "rates", "ablation", "mlp"])
    parser.add_argument("--data", choices=["diabetes", "generated"], default="diabetes")
    parser.add_argument("--n", type=int, default=100000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--problem", choices=["all", "least", "quartic"], default="all",
                        help="rates: which problem")
    parser.add_argument("--sizes", default="8000,32000,128000", help="rates: sample sizes")
    args = parser.parse_args()
    {"utility": utility, "rates": rates, "ablation": ablation, "mlp": mlp}[args.task](args)


if __name__ == "__main__":
    main()
