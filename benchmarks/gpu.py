"""The GPU check: every Array-API solver on CuPy (or torch) input against NumPy (issue 31).

Run, on a machine with CUDA and CuPy (nothing is installed by the script)::

    SCIPY_ARRAY_API=1 python benchmarks/gpu.py [--xp cupy] [--n 100000 1000000] [--d 20]
        [--dtype float64 float32] [--cases minimax:noisy_gd ...] [--deadline 420]
        [--out gpu.json]

``--xp array_api_strict`` (or ``torch``, ``torch:cuda``) runs the same check on
another namespace: on a laptop it proves the script before a GPU session.

For every solver whose :class:`~skdp.solvers.spec.SolverSpec` lists
``'array_api'`` among its backends (each estimator's ``SOLVER_SPECS``), and for
each ``n``:

1. **Equal to NumPy** (at the smallest ``n``): the estimator is fitted at
   ``epsilon=inf`` (no noise: the same mathematics in both namespaces) on the
   host arrays and on the same arrays in the namespace under
   ``sklearn.config_context(array_api_dispatch=True)``, the algorithm's own
   random draws (Goldstein's perturbations, zeroth-order directions) made by
   NumPy's generator in both (:class:`HostDraws`); the released values
   (``coef_`` and ``intercept_``, or the synthesizer's ``histogram_``) must
   agree to a relative error (L2) of ``1e-6`` in float64 and ``1e-3`` in
   float32. A private fit cannot be compared value for value: CuPy draws its
   noise on the GPU (:mod:`skdp._backend`).
2. **Private fit, timed** (every ``n``): ``epsilon=1``, ``delta=1e-6``, the
   solver's defaults; wall seconds of ``fit`` (the device synchronised after
   it) in the namespace and in NumPy on the host (all its BLAS threads), the
   ratio, and the score of each (training accuracy, R^2, or the total
   variation between the released histogram and the true one) so that a fast
   wrong fit shows.
3. **Nothing left the device**: every copy to the host that skdp makes goes
   through :func:`skdp._backend.to_numpy` (CuPy itself refuses an implicit
   ``numpy.asarray`` of a device array); the check wraps it (and
   ``cupy.asnumpy``) during the namespace's fits and fails the case if a copy
   holds ``n`` elements or more (a column or the table), reporting the count
   and the largest copy. Scalars (step sizes, norms the ledger records) may
   cross. Two copies are skdp's design and are reported, not failed
   (``DECLARED_HOST``): the synthesizer bins its table on the host, and
   ``mlmc`` runs its small phase batches there.

The table is generated on the host (seed 0): rows ``z / sqrt(2 d)`` with their
norm capped at 1 (``feature_bound=1``), a random unit direction ``u``, labels
``Bernoulli(sigmoid(3 sqrt(2 d) x.u))`` and targets ``clip(sqrt(2 d) x.u / 2 +
N(0, 0.3^2), -1, 1)`` as in ``benchmarks/scale.py``; the synthesizer gets the
first 4 columns mapped to [0, 1] with public bounds, no missing cell and 8 bins. The public
parameters: ``classes=[0, 1]``, ``feature_bound=1``, ``target_bound=1``.

``--deadline`` (seconds) stops starting new cases past it and writes what it
has; a NumPy fit of 1e6 rows is skipped when the 1e5 one took over
``--cpu-cap`` seconds (its time is then extrapolated linearly and marked so).
Results print as a table and go to ``--out`` (JSON) after every case.
"""

import argparse
import json
import os
import sys
import time
import traceback
import warnings

os.environ.setdefault("SCIPY_ARRAY_API", "1")

import numpy as np  # noqa: E402
import sklearn  # noqa: E402

import skdp  # noqa: E402
from skdp import minimax, regression, synthesizer  # noqa: E402

REGISTRIES = {"minimax": minimax.SOLVER_SPECS, "regression": regression.SOLVER_SPECS,
              "synthesizer": synthesizer.SOLVER_SPECS}
TOLERANCE = {"float64": 1e-6, "float32": 1e-3}
# copies of n elements or more that skdp makes on purpose (reported, not failed)
DECLARED_HOST = {
    "skdp/synthesizer.py": "the table is binned on the host (the Array API has no bincount); "
                           "the histogram and the solver run on the device",
    "skdp/solvers/minimax/mlmc.py": "mlmc runs each phase's small batches vectorised on the host",
}
SYNTH_COLUMNS = 4
SYNTH_BINS = 8


def array_api_cases():
    """(estimator, solver) pairs whose spec claims the Array API."""
    return [(name, solver) for name, registry in REGISTRIES.items()
            for solver, spec in registry.items() if "array_api" in spec.backends]


# ---------------------------------------------------------------------------
# Namespaces
# ---------------------------------------------------------------------------
class Namespace:
    """Moves host arrays to a namespace's device and waits for its work."""

    def __init__(self, spec):
        self.name, _, self.device = spec.partition(":")
        if self.name == "cupy":
            import cupy

            self.xp, self.device = cupy, None
        elif self.name == "torch":
            from sklearn.externals.array_api_compat import torch as xp_torch

            self.xp, self.device = xp_torch, self.device or "cpu"
        elif self.name == "array_api_strict":
            import array_api_strict

            # "array_api_strict:device1" puts the inputs on a device of its own: an array
            # made without the input's device then fails as it would on a GPU
            self.xp = array_api_strict
            self.device = array_api_strict.Device(self.device) if self.device else None
        else:
            raise SystemExit(f"--xp: unknown namespace {spec!r} (cupy, torch[:DEVICE], "
                             "array_api_strict)")

    def put(self, a):
        if a is None:
            return None
        if self.device is None:
            return self.xp.asarray(a)
        return self.xp.asarray(a, device=self.device)

    def sync(self):
        if self.name == "cupy":
            self.xp.cuda.runtime.deviceSynchronize()
        elif self.name == "torch" and self.device.startswith("cuda"):
            import torch

            torch.cuda.synchronize()

    def describe(self):
        if self.name == "cupy":
            props = self.xp.cuda.runtime.getDeviceProperties(0)
            return f"cupy {self.xp.__version__} on {props['name'].decode()}"
        version = getattr(self.xp, "__version__", "")
        if self.name == "torch":  # array-api-compat's wrapper has no version of its own
            import torch

            version = torch.__version__
        return f"{self.name} {version} on {self.device or 'its default device'}".strip()


class TransferLog:
    """Counts the copies to the host that skdp makes, by wrapping ``to_numpy``."""

    def __init__(self):
        self.sizes = []
        self.largest = (0, "")
        self._patched = []

    def __enter__(self):
        from skdp import _backend

        original = _backend.to_numpy

        def counted(x):
            if not isinstance(x, np.ndarray):
                self._add(int(np.prod(getattr(x, "shape", ()) or (1,))))
            return original(x)

        for module in [m for k, m in sys.modules.items() if k.startswith("skdp") and m]:
            if getattr(module, "to_numpy", None) is original:
                self._patched.append((module, "to_numpy", original))
                module.to_numpy = counted
        if "cupy" in sys.modules:
            cupy = sys.modules["cupy"]
            asnumpy = cupy.asnumpy
            self._patched.append((cupy, "asnumpy", asnumpy))
            cupy.asnumpy = lambda a, *args, **kw: (self._add(int(a.size)),
                                                   asnumpy(a, *args, **kw))[1]
        return self

    def _add(self, size):
        frame = sys._getframe(2)
        where = f"{os.path.relpath(frame.f_code.co_filename)}:{frame.f_lineno}"
        self.sizes.append(size)
        if size > self.largest[0]:
            self.largest = (size, where)

    def __exit__(self, *exc):
        for module, name, original in self._patched:
            setattr(module, name, original)


# ---------------------------------------------------------------------------
# Data and estimators
# ---------------------------------------------------------------------------
def make_table(n, d, dtype):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d)) / np.sqrt(2 * d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    margin = np.sqrt(2 * d) * (X @ u)
    y_class = (rng.random(n) < 1 / (1 + np.exp(-3 * margin))).astype(np.int64)
    y_reg = np.clip(margin / 2 + 0.3 * rng.standard_normal(n), -1, 1)
    table = np.clip(0.5 + X[:, :SYNTH_COLUMNS] * np.sqrt(2 * d) / 6, 0, 1)
    return X.astype(dtype), y_class, y_reg.astype(dtype), table.astype(dtype)


# what a solver needs beyond the defaults: the streaming solvers minimise the average risk
# (one group); the paper-001 solvers fit the classifier's ramp loss only;
# spider needs the KL constants (alpha > 0 makes them public)
SOLVER_PARAMS = {**{("minimax", name): dict(group_by=None)
                    for name in ("srgd", "srg_memf", "memf", "dpsgd")},
                 **{("minimax", name): dict(loss="ramp")
                    for name in ("fo_single_pass", "zo_single_pass", "zo_multi_pass")},
                 ("regression", "spider"): dict(alpha=0.01)}


def make_estimator(name, solver, epsilon):
    common = dict(solver=solver, epsilon=epsilon, random_state=0,
                  **SOLVER_PARAMS.get((name, solver), {}))
    if name == "minimax":
        return minimax.PrivateMinimaxClassifier(feature_bound=1.0, delta=1e-6, **common)
    if name == "regression":
        return regression.KLAdaptiveRegressor(feature_bound=1.0, target_bound=1.0,
                                              delta=1e-6, **common)
    domain = {j: {"low": 0.0, "high": 1.0, "missing": False} for j in range(SYNTH_COLUMNS)}
    return synthesizer.SaddlePointSynthesizer(domain=domain, n_bins=SYNTH_BINS, delta=1e-6,
                                             **common)


def fit(est, name, X, y, table):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "synthesizer":
            return est.fit(table)
        if name == "minimax":
            return est.fit(X, y, classes=[0, 1])
        return est.fit(X, y)


def released(est):
    from skdp._backend import to_numpy

    if hasattr(est, "histogram_"):
        return np.asarray(to_numpy(est.histogram_), dtype=float).ravel()
    return np.r_[np.ravel(to_numpy(est.coef_)), np.ravel(to_numpy(est.intercept_))]


def score(est, name, X, y, table):
    """Training accuracy / R^2 on the host arrays, or the released histogram's TV."""
    if name == "synthesizer":
        hist = released(est)
        codes = np.minimum((table * SYNTH_BINS).astype(int), SYNTH_BINS - 1)
        flat = np.ravel_multi_index(codes.T, (SYNTH_BINS,) * SYNTH_COLUMNS)
        true = np.bincount(flat, minlength=hist.size) / len(table)
        return 0.5 * float(np.abs(hist / max(hist.sum(), 1e-300) - true).sum())
    w = released(est)
    pred = X[:100_000].astype(float) @ w[:-1].reshape(-1) + w[-1] if w.size == X.shape[1] + 1 \
        else None
    if pred is None:
        return float("nan")
    if name == "minimax":
        return float(np.mean((pred > 0) == (y[:100_000] == 1)))
    t = y[:100_000].astype(float)
    return float(1 - np.mean((t - pred) ** 2) / np.var(t))


# ---------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------
def timed_fit(est, name, arrays, ns=None):
    start = time.perf_counter()
    if ns is None:
        fit(est, name, *arrays)
    else:
        with sklearn.config_context(array_api_dispatch=True):
            fit(est, name, *[ns.put(a) for a in arrays])
        ns.sync()
    return est, time.perf_counter() - start


class HostDraws:
    """The fit's random draws made by its NumPy generator and moved to the device.

    At ``epsilon=inf`` no noise is drawn, but some algorithms draw numbers of
    their own (Goldstein's perturbation points, zeroth-order directions): on a
    GPU those come from the device's generator, whose numbers differ from
    NumPy's. For the equality check only, both fits draw NumPy's numbers, so
    what is compared is the mathematics; the private, timed fit draws on the
    device as usual.
    """

    def __enter__(self):
        from skdp._backend import Backend

        self._original = Backend._draw
        Backend._draw = lambda backend, host_draw, gpu_draw, dtype: backend.asarray(
            host_draw(backend.rng), dtype=dtype)
        return self

    def __exit__(self, *exc):
        from skdp._backend import Backend

        Backend._draw = self._original


def equality(name, solver, arrays, ns, dtype):
    host = timed_fit(make_estimator(name, solver, np.inf), name, arrays)[0]
    with HostDraws():
        dev = timed_fit(make_estimator(name, solver, np.inf), name, arrays, ns)[0]
    a, b = released(host), released(dev)
    err = float(np.linalg.norm(a - b) / max(np.linalg.norm(a), 1e-12))
    return {"rel_error": err, "max_abs_diff": float(np.max(np.abs(a - b), initial=0.0)),
            "equal": bool(err <= TOLERANCE[dtype])}


def private(name, solver, arrays, ns, n, cpu_cap, last_cpu):
    with TransferLog() as log:
        dev, dev_s = timed_fit(make_estimator(name, solver, 1.0), name, arrays, ns)
    result = {"dev_s": dev_s, "dev_score": score(dev, name, *arrays),
              "copies": len(log.sizes), "largest_copy": log.largest[0],
              "largest_copy_at": log.largest[1]}
    result["stayed_on_device"] = result["largest_copy"] < n
    result["host_by_design"] = next((why for path, why in DECLARED_HOST.items()
                                     if log.largest[1].startswith(path)), None)
    if last_cpu is not None and last_cpu[1] > cpu_cap:
        result.update(cpu_s=last_cpu[1] * n / last_cpu[0], cpu_extrapolated=True,
                      cpu_score=float("nan"))
    else:
        host, cpu_s = timed_fit(make_estimator(name, solver, 1.0), name, arrays)
        result.update(cpu_s=cpu_s, cpu_extrapolated=False,
                      cpu_score=score(host, name, *arrays))
    result["speedup"] = result["cpu_s"] / result["dev_s"]
    return result


def run(args):
    ns = Namespace(args.xp)
    cases = array_api_cases()
    if args.cases:
        named = {f"{c[0]}:{c[1]}": c for c in cases}
        unknown = [c for c in args.cases if c not in named]
        if unknown:
            raise SystemExit(f"--cases: {unknown} claim no Array API (or do not exist); "
                             f"known: {sorted(named)}")
        cases = [named[c] for c in args.cases]  # in the order given
    header = {"xp": ns.describe(), "numpy": np.__version__, "sklearn": sklearn.__version__,
              "skdp": getattr(skdp, "__version__", "?"), "cpus": os.cpu_count(),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "results": []}
    print(f"# {header['xp']}; numpy {np.__version__}, scikit-learn {sklearn.__version__}, "
          f"{os.cpu_count()} CPUs", flush=True)
    last = {}  # (estimator, solver, dtype) -> (n, NumPy seconds) of the last size run
    start = time.perf_counter()
    for i, n in enumerate(args.n):  # every case at the smallest n first, then the next n
        for dtype in args.dtype:
            X, y_class, y_reg, table = make_table(n, args.d, dtype)
            for name, solver in cases:
                if time.perf_counter() - start > args.deadline:
                    print(f"deadline: {name}:{solver} n={n} {dtype} not run", flush=True)
                    continue
                arrays = (X, y_class if name == "minimax" else y_reg, table)
                row = {"estimator": name, "solver": solver, "n": n, "d": args.d, "dtype": dtype}
                last_cpu = last.get((name, solver, dtype))
                try:
                    if i == 0:  # also warms the namespace's kernels up before the timed fit
                        row.update(equality(name, solver, arrays, ns, dtype))
                        timed_fit(make_estimator(name, solver, 1.0), name,
                                  [a[:2000] for a in arrays], ns)
                    row.update(private(name, solver, arrays, ns, n, args.cpu_cap, last_cpu))
                    last[(name, solver, dtype)] = (n, row["cpu_s"])
                except Exception as exc:  # noqa: BLE001 - reported per case, the run goes on
                    row["error"] = f"{type(exc).__name__}: {exc}"[:300] + where(exc)
                    traceback.print_exc(file=sys.stdout)
                print(format_row(row), flush=True)
                header["results"].append(row)
                if args.out:
                    with open(args.out, "w") as fh:
                        json.dump(header, fh, indent=1)
    failed = [r for r in header["results"]
              if "error" in r or not r.get("equal", True)
              or not (r.get("stayed_on_device", True) or r.get("host_by_design"))]
    print(f"# {len(header['results'])} cases, {len(failed)} failed, "
          f"{time.perf_counter() - start:.0f} s", flush=True)
    return 1 if failed else 0


def where(exc):
    """The last three frames of an error's traceback (file:line), to find it from a log."""
    frames = traceback.extract_tb(exc.__traceback__)[-3:]
    return " at " + " < ".join(f"{os.path.relpath(f.filename)}:{f.lineno}"
                               for f in reversed(frames))


def format_row(r):
    head = f"{r['estimator']:>11} {r['solver']:<17} n={r['n']:<8} {r['dtype']:<7}"
    if "error" in r:
        return f"{head} ERROR {r['error']}"
    eq = f"eq {r['rel_error']:.1e}{'' if r['equal'] else ' FAIL'}" if "rel_error" in r else ""
    cpu = f"{r['cpu_s']:7.2f}{'~' if r['cpu_extrapolated'] else ' '}"
    moved = "" if r["stayed_on_device"] else \
        f" {'host by design' if r['host_by_design'] else 'LEFT-DEVICE'} at {r['largest_copy_at']}"
    return (f"{head} dev {r['dev_s']:7.2f} s  cpu {cpu}s  x{r['speedup']:6.1f}  "
            f"score {r['dev_score']:.3f}/{r['cpu_score']:.3f}  copies {r['copies']} "
            f"(max {r['largest_copy']}){moved}  {eq}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--xp", default="cupy")
    p.add_argument("--n", type=int, nargs="+", default=[100_000, 1_000_000])
    p.add_argument("--d", type=int, default=20)
    p.add_argument("--dtype", nargs="+", default=["float64", "float32"])
    p.add_argument("--cases", nargs="*", help="estimator:solver pairs (default: all)")
    p.add_argument("--deadline", type=float, default=420.0)
    p.add_argument("--cpu-cap", type=float, default=20.0)
    p.add_argument("--out")
    return run(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
