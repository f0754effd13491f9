"""Side-by-side anchors: skdp against private-pgm (AIM, MST) and diffprivlib.

Each competitor runs in its own virtual environment (never in the test
environment); skdp runs from the system Python. One script, one ``--tool``
switch per environment; a ``tables`` step (system Python) writes the exact
discretised tables of ``benchmarks/synthesizer.py`` and the zCDP budgets, so
every tool sees the same data.

Setup (Python 3.11)::

    python -m venv /tmp/venv_mbi
    /tmp/venv_mbi/bin/pip install "mbi>=2" numpy scipy pandas   # pulls jax; got mbi 2.0.0
    python -m venv /tmp/venv_dpl
    /tmp/venv_dpl/bin/pip install diffprivlib==0.6.6 scikit-learn==1.7.2 numpy scipy

Run (from the repository root)::

    python benchmarks/anchors.py --tool tables --npz /tmp/anchor_tables.npz
    python benchmarks/anchors.py --tool skdp-synth --npz /tmp/anchor_tables.npz
    /tmp/venv_mbi/bin/python benchmarks/anchors.py --tool mbi --npz /tmp/anchor_tables.npz \
        --methods mst aim
    python benchmarks/anchors.py --tool skdp-reg
    /tmp/venv_dpl/bin/python benchmarks/anchors.py --tool diffprivlib

Options: ``--tables``, ``--epsilons``, ``--seeds``, ``--methods``.

Synthetic data: mean (and max) 2-way marginal total-variation distance
between ``n`` synthetic rows and the real table, seconds per fit (fit + sample),
delta = 1e-6. AIM and MST are written here on mbi 2.0's estimation API
(``MirrorDescent``, ``LinearMeasurement``) and its fixed sampler
(``mbi.extensions.synthetic_data``), following the papers: MST (McKenna,
Miklau, Sheldon 2021, §3: 1-way marginals, exponential-mechanism maximum
spanning tree on rho/3, tree marginals, rho split in thirds; the domain
compression step is omitted) and AIM (McKenna et al. 2022, Alg. 1: all 2-way
marginals as workload, downward-closure candidates weighted by overlap,
T = 16 d, 0.9/0.1 measure/select split, bias-corrected scores, annealing,
budget-exhausting final round; the model-size filter is vacuous here since
the whole domain has < 10^5 cells). Both are calibrated in zCDP with
add/remove-one sensitivity 1 per marginal, as the papers do; skdp's smd is
calibrated on replace-one (a stricter neighbouring relation: about sqrt 2
more noise for the same epsilon). epsilon -> rho by skdp's exact CKS
conversion (``approx_dp_to_zcdp``).

Regression: ``benchmarks/regression.py``'s generated table (n = 100,000,
d = 20, seed 0), 70/30 split ``random_state=seed``, test R^2. diffprivlib's
``LinearRegression`` gets the public bounds implied by skdp's
``feature_bound=1``/``target_bound=1`` (``bounds_X=(-1, 1)``,
``bounds_y=(-1, 1)``) and is pure epsilon-DP (no delta).
"""

import argparse
import itertools
import math
import os
import sys
import time
import warnings

import numpy as np

DELTA = 1e-6
HERE = os.path.dirname(os.path.abspath(__file__))


def tv(X, Y, cards):
    """Mean and max total-variation distance over all 2-way marginals."""
    errs = []
    for i, j in itertools.combinations(range(len(cards)), 2):
        k = cards[i] * cards[j]
        a = np.bincount(X[:, i] * cards[j] + X[:, j], minlength=k) / len(X)
        b = np.bincount(Y[:, i] * cards[j] + Y[:, j], minlength=k) / len(Y)
        errs.append(0.5 * np.abs(a - b).sum())
    return float(np.mean(errs)), float(np.max(errs))


def load_tables(path, names):
    z = np.load(path)
    return {n: (z[f"{n}_X"], [int(c) for c in z[f"{n}_cards"]]) for n in names}, z


def report(rows):
    for (table, method, eps), vals in rows.items():
        v = np.array(vals)
        print(f"| {table} | {method} | {eps:g} | {v[:, 0].mean():.4f} ± {v[:, 0].std():.4f} | "
              f"{v[:, 1].mean():.4f} | {v[:, 2].mean():.2f} | {len(v)} |", flush=True)


# ------------------------------------------------------------- system python
def tool_tables(args):
    sys.path.insert(0, HERE)
    import synthesizer
    from skdp.privacy.ledger import approx_dp_to_zcdp
    out = {}
    for name in synthesizer.TABLES:
        X, cards = synthesizer.TABLES[name]()
        out[f"{name}_X"], out[f"{name}_cards"] = X, np.array(cards)
    for eps in (0.5, 1.0, 5.0):
        out[f"rho_{eps:g}"] = approx_dp_to_zcdp(eps, DELTA)
    np.savez(args.npz, **out)
    print("wrote", args.npz, {k: v for k, v in out.items() if k.startswith("rho")})


def tool_skdp_synth(args):
    sys.path.insert(0, HERE)
    import synthesizer
    warnings.simplefilter("ignore")
    tables, _ = load_tables(args.npz, args.tables)
    rows = {}
    for name, (X, cards) in tables.items():
        for eps in args.epsilons:
            for seed in range(args.seeds):
                res = synthesizer.run_method(args.solver, X, cards, eps, seed)
                rows.setdefault((name, f"skdp {args.solver}", eps), []).append(res)
                print(name, eps, seed, res, file=sys.stderr, flush=True)
    report(rows)


def tool_skdp_reg(args):
    sys.path.insert(0, HERE)
    import regression
    from sklearn.model_selection import train_test_split
    from skdp.regression import KLAdaptiveRegressor
    warnings.simplefilter("ignore")
    X, y = regression.generated(100000)
    print(f"data checksum {X.sum():.10f} {y.sum():.10f}", file=sys.stderr)
    reg_report(args, X, y, train_test_split,
               lambda eps, seed: KLAdaptiveRegressor(epsilon=eps, delta=DELTA, random_state=seed),
               "skdp KLAdaptiveRegressor() (auto)")
    from sklearn.linear_model import LinearRegression
    args.epsilons = [math.inf]
    reg_report(args, X, y, train_test_split, lambda eps, seed: LinearRegression(),
               "sklearn LinearRegression (not private)")


def reg_report(args, X, y, split, make, label):
    for eps in args.epsilons:
        scores, secs = [], []
        for seed in range(args.seeds):
            Xtr, Xte, ytr, yte = split(X, y, test_size=0.3, random_state=seed)
            t = time.perf_counter()
            model = make(eps, seed).fit(Xtr, ytr)
            secs.append(time.perf_counter() - t)
            scores.append(1.0 - np.mean((yte - model.predict(Xte)) ** 2) / np.var(yte))
        s = np.array(scores)
        print(f"| {label} | {eps:g} | {s.mean():.4f} ± {s.std():.4f} | {s.min():.4g} | "
              f"{np.mean(secs):.2f} |", flush=True)


# ------------------------------------------------------------ diffprivlib venv
def generated(n, d=20, seed=0):
    """Copy of benchmarks/regression.py's generator (that module imports skdp)."""
    rng = np.random.default_rng(seed)
    mix = np.random.default_rng(12345).normal(size=(d, d)) * 0.3 + np.eye(d)
    X = rng.normal(size=(n, d)) @ mix / 8.0
    w = np.random.default_rng(54321).normal(size=d)
    y = np.clip(0.5 * X @ w + 0.3 + 0.15 * rng.normal(size=n), -1.0, 1.0)
    return X, y


def tool_diffprivlib(args):
    from diffprivlib.models import LinearRegression
    from sklearn.model_selection import train_test_split
    warnings.simplefilter("ignore")
    X, y = generated(100000)
    print(f"data checksum {X.sum():.10f} {y.sum():.10f}", file=sys.stderr)
    reg_report(args, X, y, train_test_split,
               lambda eps, seed: LinearRegression(epsilon=eps, bounds_X=(-1, 1),
                                                  bounds_y=(-1, 1), random_state=seed),
               "diffprivlib 0.6.6 LinearRegression")


# ------------------------------------------------------------------- mbi venv
def _mbi():
    import jax
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_enable_compilation_cache", False)
    import mbi
    from mbi.extensions.synthetic_data import synthetic_data
    return mbi, synthetic_data


def measure(mbi, data, cl, sigma, rng):
    x = np.asarray(data.project(cl).datavector())
    return mbi.LinearMeasurement(x + rng.normal(0, sigma, x.size), cl, stddev=sigma)


def gumbel_select(scores, eps, sensitivity, rng):
    """Exponential mechanism (non-monotone: eps / (2 sensitivity)) by Gumbel-max."""
    s = 0.5 * eps / sensitivity * np.asarray(scores)
    return int(np.argmax(s + rng.gumbel(size=s.size)))


def mst(mbi, data, rho, rng, iters):
    """MST (McKenna, Miklau, Sheldon 2021): rho/3 on 1-ways, selection, tree marginals."""
    attrs = list(data.domain.attributes)
    sigma = math.sqrt(3.0 / (2.0 * rho))
    est = mbi.estimation.MirrorDescent()
    log = [measure(mbi, data, (a,), sigma, rng) for a in attrs]
    model = est.estimate(data.domain, log, iters=1000)
    pairs = list(itertools.combinations(attrs, 2))
    weight = {p: np.abs(np.asarray(data.project(p).datavector())
                        - np.asarray(model.project(p).datavector())).sum() for p in pairs}
    parent = {a: a for a in attrs}

    def root(a):
        while parent[a] != a:
            a = parent[a]
        return a

    eps_step = math.sqrt(8 * (rho / 3.0) / (len(attrs) - 1))
    edges = []
    for _ in range(len(attrs) - 1):
        cand = [p for p in pairs if root(p[0]) != root(p[1])]
        e = cand[gumbel_select([weight[p] for p in cand], eps_step, 1.0, rng)]
        parent[root(e[0])] = root(e[1])
        edges.append(e)
    log += [measure(mbi, data, e, sigma, rng) for e in edges]
    return est.estimate(data.domain, log, iters=iters)


def aim(mbi, data, rho, rng, iters, final_iters):
    """AIM (McKenna et al. 2022, Alg. 1) with the 2-way workload, weights 1."""
    attrs = list(data.domain.attributes)
    workload = list(itertools.combinations(attrs, 2))
    cands = {c: sum(len(set(c) & set(w)) for w in workload)
             for c in [(a,) for a in attrs] + workload}
    answers = {c: np.asarray(data.project(c).datavector()) for c in cands}
    size = {c: int(np.prod([data.domain.size(a) for a in c])) for c in cands}
    T = 16 * len(attrs)
    sigma = math.sqrt(T / (2 * 0.9 * rho))
    eps = math.sqrt(8 * 0.1 * rho / T)
    est = mbi.estimation.MirrorDescent()
    log = [measure(mbi, data, (a,), sigma, rng) for a in attrs]
    used = len(attrs) / (2 * sigma**2)
    model = est.estimate(data.domain, log, iters=iters)
    rounds, done = 0, False
    while not done:
        rounds += 1
        if rho - used < 2 * (0.5 / sigma**2 + eps**2 / 8):
            rest = rho - used
            sigma, eps, done = math.sqrt(1 / (2 * 0.9 * rest)), math.sqrt(8 * 0.1 * rest), True
        used += eps**2 / 8 + 0.5 / sigma**2
        keys = list(cands)
        est_marg = {c: np.asarray(model.project(c).datavector()) for c in keys}
        scores = [cands[c] * (np.abs(answers[c] - est_marg[c]).sum()
                              - math.sqrt(2 / math.pi) * sigma * size[c]) for c in keys]
        cl = keys[gumbel_select(scores, eps, max(cands.values()), rng)]
        log.append(measure(mbi, data, cl, sigma, rng))
        model = est.estimate(data.domain, log, iters=iters, warm_start=model)
        w = np.asarray(model.project(cl).datavector())
        if np.abs(w - est_marg[cl]).sum() <= math.sqrt(2 / math.pi) * sigma * size[cl]:
            sigma, eps = sigma / 2, eps * 2
    model = est.estimate(data.domain, log, iters=final_iters, warm_start=model)
    return model, rounds


def tool_mbi(args):
    mbi, synthetic_data = _mbi()
    tables, z = load_tables(args.npz, args.tables)
    rows = {}
    for name, (X, cards) in tables.items():
        attrs = [f"c{j}" for j in range(len(cards))]
        domain = mbi.Domain(attrs, cards)
        data = mbi.Dataset({a: X[:, j] for j, a in enumerate(attrs)}, domain)
        for method in args.methods:
            for eps in args.epsilons:
                rho = float(z[f"rho_{eps:g}"])
                for seed in range(args.seeds):
                    rng = np.random.default_rng(seed)
                    t = time.perf_counter()
                    if method == "mst":
                        model, info = mst(mbi, data, rho, rng, iters=args.final_iters), ""
                    else:
                        model, info = aim(mbi, data, rho, rng, args.iters, args.final_iters)
                    syn = synthetic_data(model, len(X), seed=seed)
                    Y = np.column_stack([np.asarray(syn.data[a]) for a in attrs])
                    res = (*tv(X, Y, cards), time.perf_counter() - t)
                    rows.setdefault((name, f"mbi 2.0 {method}", eps), []).append(res)
                    print(name, method, eps, seed, res, "rounds", info, file=sys.stderr,
                          flush=True)
    report(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tool", required=True,
                   choices=["tables", "skdp-synth", "mbi", "skdp-reg", "diffprivlib"])
    p.add_argument("--solver", default="smd", help="skdp-synth: SaddlePointSynthesizer solver"
                   " (or 'independent', the DP independent-columns baseline)")
    p.add_argument("--npz", default="/tmp/anchor_tables.npz")
    p.add_argument("--tables", nargs="*", default=["breast_cancer", "digits"])
    p.add_argument("--methods", nargs="*", default=["mst", "aim"])
    p.add_argument("--epsilons", nargs="*", type=float, default=None)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--iters", type=int, default=1000, help="AIM: mirror-descent steps per round")
    p.add_argument("--final-iters", type=int, default=2500, help="final estimate steps")
    args = p.parse_args(argv)
    if args.epsilons is None:
        args.epsilons = [1.0, 5.0] if args.tool in ("skdp-reg", "diffprivlib") else [1.0]
    {"tables": tool_tables, "skdp-synth": tool_skdp_synth, "mbi": tool_mbi,
     "skdp-reg": tool_skdp_reg, "diffprivlib": tool_diffprivlib}[args.tool](args)


if __name__ == "__main__":
    main()
