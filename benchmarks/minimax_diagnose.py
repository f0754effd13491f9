"""The classifier's default on the real tables (issue 18): skdp, its noise-free run, yardsticks.

Uses the tables, preprocessing and public split of ``benchmarks/real_tables.py``
(validation split by default). Rows per table:

* ``skdp``: ``PrivateMinimaxClassifier(epsilon, delta=1e-6, feature_bound=1.0)``, the default,
  over ``--seeds`` noise seeds, with ``n_iter_`` and the smallest released class size;
* ``noise-free`` (``--noise-free``): the same ``noisy_gd`` path with no noise, to separate the
  optimiser from the noise. ``epsilon=inf`` alone takes the exact L-BFGS path, so this row fits
  ``epsilon=inf`` with ``n_iter`` set to the step count the default takes at that epsilon
  (``n_iter_`` of the seed-0 private fit): the public-parameter
  route into ``noisy_gd``'s loop with every sigma 0 and exact class sizes. No monkeypatch;
  non-private, a diagnostic only;
* ``logreg_bal``: non-private ``LogisticRegression(class_weight='balanced')`` on the box encoding;
* ``dpgd_cw`` (``--dpgd``): a class-weighted DP-GD written here as a yardstick, tuned on the
  validation split (balanced accuracy) over a small grid (steps, clip; step 1 / smoothness),
  exact class sizes (so not a private release of them), GDP calibration of the steps. Its best
  grid point is reported (a tuned reference, not a private method).

Run::

    OMP_NUM_THREADS=1 python benchmarks/minimax_diagnose.py --tables HMDA Caravan --eps 1 \
        --noise-free --dpgd
"""

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import real_tables as rt  # noqa: E402

CLF = [n for n, s in rt.TABLES.items() if s["task"] == "clf"]


def load(name, which):
    spec = rt.TABLES[name]
    Z, y, R = rt.encode(spec, rt.load_frame(spec))
    X = rt.scale(spec, Z, R, "box")
    is_str = isinstance(spec["classes"][0], str)
    classes = np.asarray(spec["classes"], dtype=object if is_str else None)
    y = y.astype(classes.dtype)
    tr, ev = rt.split(name, len(y), "train"), rt.split(name, len(y), which)
    return Z, X, y, classes, tr, ev


def dpgd_cw(X, y, classes, eps, seed, steps, clip):
    """Class-weighted DP-GD (binary or multinomial), intercept feature 1, last-half average."""
    from skdp.privacy.ledger import approx_dp_to_gdp

    n = X.shape[0]
    codes = np.searchsorted(classes, y) if classes.dtype != object else \
        np.asarray([list(classes).index(v) for v in y])
    K = len(classes)
    A = np.hstack([X, np.ones((n, 1))])
    counts = np.bincount(codes, minlength=K).astype(float)
    w = (1.0 / (K * counts))[codes]  # sum_i w_i = 1, class-balanced
    T = np.eye(K)[codes]
    mu = approx_dp_to_gdp(eps, rt.DELTA) if math.isfinite(eps) else math.inf
    sigma = 0.0 if math.isinf(mu) else 2 * clip * w.max() / (mu / math.sqrt(steps))
    rng = np.random.default_rng(seed)
    theta = np.zeros((A.shape[1], K))
    lr = 1.0  # 1 / (smoothness 1/2 x augmented bound**2 = 2)
    avg, cnt = np.zeros_like(theta), 0
    for t in range(steps):
        Zm = A @ theta
        P = np.exp(Zm - Zm.max(1, keepdims=True))
        P /= P.sum(1, keepdims=True)
        r = P - T
        gn = np.linalg.norm(r, axis=1) * np.linalg.norm(A, axis=1)
        f = np.minimum(1.0, clip / np.maximum(gn, 1e-12))
        g = A.T @ ((w * f)[:, None] * r)
        g += sigma * rng.standard_normal(g.shape)
        theta -= lr * g
        if t >= steps // 2:
            avg += theta
            cnt += 1
    theta = avg / cnt
    return lambda Xe: classes[np.argmax(np.hstack([Xe, np.ones((Xe.shape[0], 1))]) @ theta, axis=1)]


def fit_skdp(X, y, classes, eps, seed, **kw):
    from skdp import PrivateMinimaxClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        m = PrivateMinimaxClassifier(epsilon=eps, delta=rt.DELTA, feature_bound=1.0,
                                     random_state=seed, **kw).fit(X, y, classes=classes)
    return m, time.perf_counter() - t0


def _ms(v):
    if not v:
        return "—"
    return f"{np.mean(v):.3f}" + (f" ± {np.std(v, ddof=1):.3f}" if len(v) > 1 else "")


def row(name, method, eps, scores, extra=""):
    cols = [_ms([s[k] for s in scores]) for k in ("acc", "worst", "bal")]
    e = "inf" if math.isinf(eps) else f"{eps:g}"
    print(f"| {name} | {method} | {e} | {' | '.join(cols)} | {extra} |", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="+", choices=CLF, default=CLF)
    ap.add_argument("--eps", nargs="+", type=float, default=[0.5, 1.0, 5.0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--split", choices=["validation", "test"], default="validation")
    ap.add_argument("--noise-free", action="store_true")
    ap.add_argument("--dpgd", action="store_true")
    ap.add_argument("--no-ref", action="store_true")
    a = ap.parse_args(argv)
    print(f"# minimax_diagnose split={a.split} eps={a.eps} seeds={a.seeds} "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}\n")
    print("| table | method | eps | accuracy | worst-class acc | balanced acc | notes |")
    print("|---|---|---|---|---|---|---|")
    for name in a.tables:
        Z, X, y, classes, tr, ev = load(name, a.split)
        if not a.no_ref:
            from sklearn.linear_model import LogisticRegression

            ref = LogisticRegression(class_weight="balanced", max_iter=2000).fit(Z[tr], y[tr])
            row(name, "logreg_bal", math.inf, [rt.class_scores(y[ev], ref.predict(Z[ev]), classes)])
        for eps in a.eps:
            scores, iters, secs, small = [], [], [], []
            for seed in range(a.seeds):
                m, sec = fit_skdp(X[tr], y[tr], classes, eps, seed)
                scores.append(rt.class_scores(y[ev], m.predict(X[ev]), classes))
                iters.append(m.n_iter_)
                secs.append(sec)
                small.append(float(m.group_sizes_.min()))
            row(name, "skdp", eps, scores, f"T={iters[0]} min size {np.mean(small):.0f} "
                f"(true {np.bincount(np.unique(y[tr], return_inverse=True)[1]).min()}) "
                f"{np.mean(secs):.2f}s")
            if a.noise_free:
                T = iters[0]
                m, sec = fit_skdp(X[tr], y[tr], classes, math.inf, 0, n_iter=T)
                row(name, "noise-free", eps, [rt.class_scores(y[ev], m.predict(X[ev]), classes)],
                    f"T={T} weights {np.round(m.group_weights_, 2).tolist()}")
            if a.dpgd:
                best = None
                for steps in (100, 300, 1000):
                    for clip in (0.1, 0.5):
                        sc = []
                        for s in range(a.seeds):
                            model = dpgd_cw(X[tr], y[tr], classes, eps, s, steps, clip)
                            sc.append(rt.class_scores(y[ev], model(X[ev]), classes))
                        key = np.mean([s["bal"] for s in sc])
                        if best is None or key > best[0]:
                            best = (key, sc, steps, clip)
                row(name, "dpgd_cw", eps, best[1], f"tuned: T={best[2]} clip={best[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
