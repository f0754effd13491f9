"""Fit time and peak fit memory of the classifier and the regressor at large n (issue 18).

Run: ``OMP_NUM_THREADS=1 python benchmarks/scale.py [--n 100000 1000000] [--d 3 10 100]
[--dtype float32 float64] [--methods ...] [--timeout 600] [--out FILE.json]
[--plot docs/_static/scale.png] [--plot-grid docs/_static/scale_grid.png]
[--mem-guard 2.5]``
(``--load FILE.json ...``: re-tabulate / re-plot, run nothing). Defaults: n in {1e5, 1e6,
1e7}, d = 100, both dtypes, every method. ``--plot`` draws time and memory against n (one
d); ``--plot-grid`` the skdp defaults' ratios to scikit-learn against d, one line per
(estimator, n, dtype) (issue 31's grid: d in {3, 10, 100, 1000}).

Methods, each fitted on the same arrays in the same run: ``skdp_clf``
(:class:`~skdp.minimax.PrivateMinimaxClassifier`, defaults, epsilon = 1,
delta = 1e-6, ``feature_bound=1``, the public ``classes=[0, 1]``), ``skdp_reg``
(:class:`~skdp.regression.KLAdaptiveRegressor`, defaults, epsilon = 1,
delta = 1e-6, ``feature_bound=1``, ``target_bound=1``; ``skdp_ssp``: the same with
``solver='ssp'``), and scikit-learn's
``LogisticRegression()``, ``SGDClassifier(loss="log_loss")``, ``Ridge()``,
``SGDRegressor()`` and ``LinearRegression()`` (defaults, ``random_state=0`` where there
is one). Issue 31's targets at n = 1e6, d in {3, 10, 100, 1000}: each default's fit at
most 1.5x the time of scikit-learn's closest estimator (LogisticRegression; Ridge or
LinearRegression: the table's ``x reference`` takes the faster of the two), and each
fit's peak memory at most 1.2x the size of X.

Data (generated, seed 0, written once per (n, d, dtype) to ``.npy`` files in
``--tmp``, default /tmp, in chunks of 1e5 rows): rows ``z / sqrt(2 d)`` with
``z ~ N(0, I_d)`` (norm about 0.71), the few of norm above 1 scaled to 1; a
random unit direction ``u``; binary labels ``y ~ Bernoulli(sigmoid(3 sqrt(2 d)
x.u + 0.5))`` (margin standard deviation 3); regression targets
``clip(sqrt(2 d) x.u / 2 + N(0, 0.3**2), -1, 1)``.

Measurement: each (method, n, d, dtype) runs in a fresh interpreter with
``OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1`` and a threadpoolctl
limit of one thread, bounded by ``--timeout`` (a fit past it is reported as a
timeout). The child loads X and y fully into memory (not memory-mapped, so the
file's pages do not count), fits once on the first 2,000 rows (imports, BLAS
buffers), then:

* ``seconds``, ``cpu s``: wall and CPU (``process_time``) seconds of ``fit`` on all
  rows; with one thread they agree on a quiet machine, and on a loaded one the CPU
  seconds are the steadier (the ``x reference`` ratio uses them);
* ``rss x X`` (the number reported against the target): the peak extra resident
  memory of that fit, ``VmHWM`` after the fit minus ``VmRSS`` before it, with
  the high-water mark reset just before the fit (``/proc/self/clear_refs``;
  ``ru_maxrss`` deltas where that is not writable), divided by ``X.nbytes``.
  It counts everything the process touches: BLAS buffers, sklearn's copies,
  the interpreter's own growth;
* ``tm x X``: tracemalloc's peak over a second fit (same data), divided by
  ``X.nbytes``: the NumPy / Python allocations only (BLAS buffers are not
  seen), timed separately because tracing slows small allocations
  (``--no-traced`` skips it);
* ``score``: training accuracy (classifiers) or R^2 (regressors) on the first
  1e5 rows, a check that the fit is a fit.

``--mem-guard F`` (off by default): before each fit the parent reads ``MemAvailable``
(``/proc/meminfo``) and skips the fit, recorded as ``skipped (...)``, when less than
``F`` times X's bytes are available (``LinearRegression``: at least 3.2 times, X plus its
centred copy plus LAPACK's copy, 3.02x X measured at 1e6 x 100); for shared machines at
1e7 rows, where an out-of-memory kill would hit the neighbours. Every result also records
the load average and ``MemAvailable`` seen just before its fit (``load1``,
``mem_available``), whatever the guard.

Timings are wall-clock seconds on whatever machine runs it; on a shared
machine they are indicative only.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc
import warnings

import numpy as np

METHODS = ["skdp_clf", "LogisticRegression", "SGDClassifier", "skdp_reg", "skdp_ssp", "Ridge",
           "SGDRegressor", "LinearRegression"]
CLASSIFIERS = {"skdp_clf", "LogisticRegression", "SGDClassifier"}
ROWS = [100_000, 1_000_000, 10_000_000]
DTYPES = ["float32", "float64"]
CHUNK = 100_000
WARMUP = 2_000


def generate(n, d, dtype, tmp):
    """Write X, the labels and the targets of one size to ``.npy`` files; their paths."""
    stem = os.path.join(tmp, f"skdp_scale_{n}_{d}_{dtype}")
    paths = {key: f"{stem}_{key}.npy" for key in ("X", "labels", "targets")}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    rng = np.random.default_rng(0)
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    X = np.lib.format.open_memmap(paths["X"] + ".part", "w+", dtype, (n, d))
    labels, targets = np.empty(n, dtype=np.int64), np.empty(n, dtype=dtype)
    for start in range(0, n, CHUNK):
        rows = rng.standard_normal((min(CHUNK, n - start), d)) / np.sqrt(2 * d)
        rows /= np.maximum(np.linalg.norm(rows, axis=1), 1.0)[:, None]
        signal = np.sqrt(2 * d) * (rows @ u)
        end = start + rows.shape[0]
        X[start:end] = rows
        labels[start:end] = rng.random(rows.shape[0]) < 1 / (1 + np.exp(-3 * signal - 0.5))
        noise = 0.3 * rng.standard_normal(rows.shape[0])
        targets[start:end] = np.clip(signal / 2 + noise, -1, 1)
    X.flush()
    del X
    os.replace(paths["X"] + ".part", paths["X"])
    np.save(paths["labels"], labels)
    np.save(paths["targets"], targets)
    return paths


def make(method):
    """A fresh estimator and the extra ``fit`` keywords of ``method``."""
    from sklearn.linear_model import (LinearRegression, LogisticRegression, Ridge,
                                      SGDClassifier, SGDRegressor)

    from skdp.minimax import PrivateMinimaxClassifier
    from skdp.regression import KLAdaptiveRegressor

    if method == "skdp_clf":
        return PrivateMinimaxClassifier(epsilon=1.0, delta=1e-6, feature_bound=1.0,
                                        random_state=0), dict(classes=[0, 1])
    if method in ("skdp_reg", "skdp_ssp"):
        solver = {"skdp_ssp": "ssp"}.get(method, "auto")
        return KLAdaptiveRegressor(epsilon=1.0, delta=1e-6, feature_bound=1.0, target_bound=1.0,
                                   solver=solver, random_state=0), {}
    return {"LogisticRegression": LogisticRegression(),
            "SGDClassifier": SGDClassifier(loss="log_loss", random_state=0),
            "Ridge": Ridge(), "SGDRegressor": SGDRegressor(random_state=0),
            "LinearRegression": LinearRegression()}[method], {}


def _status_kb(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _reset_peak():
    """Reset VmHWM to the current RSS; False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_extra_bytes(fit):
    """Wall and CPU seconds of ``fit()`` and its peak extra resident bytes (see module doc)."""
    import gc

    gc.collect()
    if _reset_peak():
        before = _status_kb("VmRSS")
        seconds = _timed(fit)
        return seconds, 1024 * (_status_kb("VmHWM") - before), "VmHWM"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    seconds = _timed(fit)
    return seconds, 1024 * (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before), \
        "ru_maxrss"


def _timed(fit):
    """Wall and CPU seconds of ``fit()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    fit()
    return time.perf_counter() - wall, time.process_time() - cpu


def _traced_peak_bytes(fit):
    tracemalloc.start()
    fit()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def child(method, n, d, dtype, tmp, traced=True):
    """One configuration, in this process: prints one JSON line."""
    from threadpoolctl import threadpool_limits

    warnings.simplefilter("ignore")
    paths = generate(n, d, dtype, tmp)
    X = np.load(paths["X"])
    y = np.load(paths["labels" if method in CLASSIFIERS else "targets"])
    with threadpool_limits(1):
        est, kw = make(method)
        est.fit(X[:WARMUP], y[:WARMUP], **kw)
        est, kw = make(method)
        (seconds, cpu), rss, how = _peak_extra_bytes(lambda: est.fit(X, y, **kw))
        traced = _traced_peak_bytes(lambda: make(method)[0].fit(X, y, **kw)) if traced else None
        m = min(n, 100_000)
        score = float(est.score(X[:m], y[:m]))
    print(json.dumps(dict(method=method, n=n, d=d, dtype=dtype, status="ok", seconds=seconds,
                          cpu_seconds=cpu,
                          x_bytes=X.nbytes, rss_bytes=rss, rss_how=how, traced_bytes=traced,
                          score=score, n_iter=_n_iter(est),
                          solver=getattr(est, "solver_", None))), flush=True)


def _n_iter(est):
    n_iter = getattr(est, "n_iter_", None)
    return None if n_iter is None else int(np.max(n_iter))


MEM_NEED = {"LinearRegression": 3.2}


def _mem_available():
    """``MemAvailable`` in bytes (None where /proc/meminfo is not there)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return 1024 * int(line.split()[1])
    except OSError:
        pass
    return None


def run(method, n, d, dtype, tmp, timeout, traced=True, mem_guard=None):
    """``child`` in a fresh interpreter, one thread, bounded by ``timeout`` seconds; skipped
    when ``mem_guard`` is given and less than that many times X's bytes are available."""
    available = _mem_available()
    seen = dict(load1=os.getloadavg()[0], mem_available=available)
    if mem_guard is not None and available is not None:
        need = max(mem_guard, MEM_NEED.get(method, 0.0)) * n * d * np.dtype(dtype).itemsize
        if available < need:
            return dict(method=method, n=n, d=d, dtype=dtype, **seen,
                        status=f"skipped (MemAvailable {available / 2**30:.1f} GiB < "
                               f"{need / 2**30:.1f} GiB)")
    return dict(_run(method, n, d, dtype, tmp, timeout, traced), **seen)


def _run(method, n, d, dtype, tmp, timeout, traced=True):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", method, str(n), str(d), dtype,
           "--tmp", tmp] + ([] if traced else ["--no-traced"])
    base = dict(method=method, n=n, d=d, dtype=dtype)
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(base, status=f"timeout ({timeout:g} s)")
    if out.returncode != 0:
        return dict(base, status=f"failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cpu(r):
    return r.get("cpu_seconds", r["seconds"])


def _ratio(num, den):
    return "-" if num is None else f"{num / den:.2f}"


REFERENCES = {"clf": ("LogisticRegression",), "reg": ("Ridge", "LinearRegression")}


def _reference(ref, r):
    """CPU seconds of scikit-learn's closest estimator in the same run: LogisticRegression
    for a classifier, the faster of Ridge and LinearRegression for a regressor."""
    names = REFERENCES["clf" if r["method"] in CLASSIFIERS else "reg"]
    times = [ref[key] for key in ((r["n"], r["d"], r["dtype"], m) for m in names) if key in ref]
    return min(times) if times else None


def table(results):
    """Markdown table; CPU-time ratios against LogisticRegression (classifiers) or the faster
    of Ridge and LinearRegression (regressors)."""
    ref = {(r["n"], r["d"], r["dtype"], r["method"]): _cpu(r) for r in results
           if r["status"] == "ok"}
    lines = ["| n | d | dtype | method | fit s | cpu s | x reference | rss x X | tm x X | score "
             "| n_iter |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    results = sorted(results, key=lambda r: (r["n"], r["d"], r["dtype"],
                                             METHODS.index(r["method"])))
    for r in results:
        head = f"| {r['n']:.0e} | {r['d']} | {r['dtype']} | {r['method']} |"
        if r["status"] != "ok":
            lines.append(f"{head} {r['status']} | - | - | - | - | - | - |")
            continue
        base = _reference(ref, r)
        ratio = f"{_cpu(r) / base:.2f}" if base else "-"
        lines.append(f"{head} {r['seconds']:.2f} | {_cpu(r):.2f} | {ratio} "
                     f"| {r['rss_bytes'] / r['x_bytes']:.2f} "
                     f"| {_ratio(r['traced_bytes'], r['x_bytes'])} | {r['score']:.3f} "
                     f"| {r['n_iter'] if r['n_iter'] is not None else '-'}"
                     f"{' (' + r['solver'] + ')' if r.get('solver') else ''} |")
    return "\n".join(lines)


def plot(results, path):
    """Fit time and peak extra memory (x X's size) against n, log-log."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    keys = sorted({(r["method"], r["dtype"]) for r in results}, key=lambda k: (
        METHODS.index(k[0]) if k[0] in METHODS else 99, k[1]))
    for method, dtype in keys:
        ok = sorted((r for r in results if r["method"] == method and r["dtype"] == dtype
                     and r["status"] == "ok"), key=lambda r: r["n"])
        color = f"C{METHODS.index(method)}" if method in METHODS else None
        style = dict(color=color, marker="o" if dtype == "float64" else "s",
                     ls="-" if dtype == "float64" else "--", label=f"{method} {dtype}")
        axes[0].plot([r["n"] for r in ok], [_cpu(r) for r in ok], **style)
        axes[1].plot([r["n"] for r in ok], [r["rss_bytes"] / r["x_bytes"] for r in ok], **style)
    axes[0].set_ylabel("fit CPU time (s, one thread)")
    axes[1].set_ylabel("peak extra RSS of the fit / size of X")
    axes[1].axhline(1.2, color="grey", ls=":", lw=0.8)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rows n (d = 100)")
    axes[1].legend(fontsize=7)
    fig.suptitle("fit time and memory, epsilon = 1 (dotted: the 1.2x target)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def plot_grid(results, path):
    """The skdp defaults' fit time over scikit-learn's (``x reference``) and peak memory over
    X's size, against d: one line per (estimator, n, dtype); dotted: the 1.5x / 1.2x targets."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ref = {(r["n"], r["d"], r["dtype"], r["method"]): _cpu(r) for r in results
           if r["status"] == "ok"}
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    keys = sorted({(r["method"], r["n"], r["dtype"]) for r in results
                   if r["method"] in ("skdp_clf", "skdp_reg")})
    for i, (method, n, dtype) in enumerate(keys):
        ok = sorted((r for r in results if (r["method"], r["n"], r["dtype"]) == (method, n, dtype)
                     and r["status"] == "ok" and _reference(ref, r)), key=lambda r: r["d"])
        style = dict(color="C0" if method == "skdp_clf" else "C3",
                     marker="o" if n < 10**6 else "s", ls="-" if dtype == "float64" else "--",
                     alpha=0.6 if n < 10**6 else 1.0,
                     label=f"{'classifier' if method == 'skdp_clf' else 'regressor'} "
                           f"n={n:.0e} {dtype}")
        axes[0].plot([r["d"] for r in ok], [_cpu(r) / _reference(ref, r) for r in ok], **style)
        axes[1].plot([r["d"] for r in ok], [r["rss_bytes"] / r["x_bytes"] for r in ok], **style)
    axes[0].axhline(1.5, color="grey", ls=":", lw=0.8)
    axes[1].axhline(1.2, color="grey", ls=":", lw=0.8)
    axes[0].set_ylabel("fit CPU s / scikit-learn's")
    axes[1].set_ylabel("peak extra RSS / size of X")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("features d")
    axes[1].legend(fontsize=6)
    fig.suptitle("skdp defaults (epsilon 1) against LogisticRegression / the faster of Ridge "
                 "and LinearRegression", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=70)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=4, metavar=("METHOD", "N", "D", "DTYPE"))
    parser.add_argument("--n", type=float, nargs="*", default=ROWS)
    parser.add_argument("--d", type=int, nargs="*", default=[100])
    parser.add_argument("--dtype", nargs="*", default=DTYPES, choices=DTYPES)
    parser.add_argument("--methods", nargs="*", default=METHODS, choices=METHODS)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per fit")
    parser.add_argument("--tmp", default="/tmp", help="where the generated .npy files go")
    parser.add_argument("--out", help="write the raw results as JSON here")
    parser.add_argument("--plot", help="write the figure here (docs/_static/scale.png)")
    parser.add_argument("--plot-grid", help="write the grid figure (ratios against d) here")
    parser.add_argument("--no-traced", dest="traced", action="store_false",
                        help="skip the tracemalloc fit (halves the time; tm x X shows -)")
    parser.add_argument("--mem-guard", type=float, default=None, metavar="F",
                        help="skip a fit when MemAvailable < F x X's bytes (see module doc)")
    parser.add_argument("--load", nargs="*", help="re-tabulate / re-plot JSON files, run nothing")
    args = parser.parse_args(argv)
    if args.child:
        method, n, d, dtype = args.child
        child(method, int(n), int(d), dtype, args.tmp, args.traced)
        return 0
    results = []
    for path in args.load or []:
        with open(path) as fh:
            results += json.load(fh)
    sizes = [(int(n), d) for n in args.n for d in args.d]
    for n, d in [] if args.load else sizes:
        for dtype in args.dtype:
            generate(n, d, dtype, args.tmp)
            for method in args.methods:
                results.append(run(method, n, d, dtype, args.tmp, args.timeout, args.traced,
                                   args.mem_guard))
                print(json.dumps(results[-1]), file=sys.stderr, flush=True)
                if args.out:
                    with open(args.out, "w") as fh:
                        json.dump(results, fh, indent=1)
    print(table(results))
    if args.plot:
        plot(results, args.plot)
    if args.plot_grid:
        plot_grid(results, args.plot_grid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
