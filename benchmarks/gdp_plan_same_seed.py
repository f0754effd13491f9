"""Same-seed check of the synthesizer's budget plans (issue 30: one GDP plan).

Fits every solver x domain release kind x neighbouring relation x fine grid on/off on small
synthetic tables (300 rows, seed 0) and writes what each fit releases (the noisy
measurements and their sigmas, the fine grids' counts and spikes, the private domains,
the ledger, a 64-row sample) to a pickle. Run it on two checkouts, then compare::

    PYTHONPATH=/work/main python benchmarks/gdp_plan_same_seed.py run before.pkl
    PYTHONPATH=$PWD python benchmarks/gdp_plan_same_seed.py run after.pkl
    python benchmarks/gdp_plan_same_seed.py compare before.pkl after.pkl

``compare`` prints one line per configuration: ``identical`` (bit for bit), ``1e-12``
(every released float within a relative 1e-12), or ``CHANGED`` with the largest relative
change; and a fit that failed on one side only.
"""

import math
import pickle
import sys
import warnings

import numpy as np
import pandas as pd

N = 300
CATS = list("abcdef")


def _table(seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "c": rng.choice(CATS, size=N, p=[.4, .2, .15, .1, .1, .05]),
        "k": rng.choice(["x", "y"], size=N),
        "x": np.clip(rng.normal(size=N), -4.9, 4.9),          # float: equal fine cells, spikes
        "z": rng.integers(0, 21, size=N).astype(float),        # integers: a per-integer grid
    })


# domain release kind -> (columns, domain, extra parameters)
def _kinds():
    pub = {"c": CATS, "k": ["x", "y"]}
    return {
        "none_coded": (["c", "k"], pub, {}),                                       # fine off
        "none_float": (["x", "k"], {"x": (-5.0, 5.0), "k": ["x", "y"]}, {}),        # fine on
        "none_float_nofine": (["x", "k"], {"x": (-5.0, 5.0), "k": ["x", "y"]},
                              {"resolution": None}),
        "none_int": (["z", "k"], {"z": (0.0, 20.0), "k": ["x", "y"]}, {}),          # fine on
        "private": (["c", "k"], "private", {}),
        "private_numeric": (["x", "k"], "private", {}),                             # fine after
        "quantile": (["x", "k"], {"x": (-5.0, 5.0), "k": ["x", "y"]},
                     {"bin_strategy": "quantile"}),
        "compress": (["c", "k"], pub, {"max_categories": 3}),
    }


SOLVERS = ["smd", "smd_linf", "mst", "aim", "mwem", "smd_private_game", "smd_vertex", "auto"]


def _configs():
    for kind, (cols, domain, extra) in _kinds().items():
        for solver in SOLVERS:
            for width in (1, 2, 3):
                if width == 1 and solver not in ("mst", "smd"):
                    continue
                if width == 3 and solver not in ("mst", "smd", "aim"):
                    continue
                for relation in ("replace_one", "add_remove"):
                    for eps in (1.0, math.inf) if kind in ("none_float", "quantile") \
                            and solver in ("smd", "mst") and width == 2 else (1.0,):
                        yield kind, solver, width, relation, eps


def _fit(kind, solver, width, relation, eps):
    from skdp import SaddlePointSynthesizer

    cols, domain, extra = _kinds()[kind]
    X = _table()
    if width == 3:
        cols = cols + [c for c in ("c", "z", "x") if c not in cols][:1]
        if isinstance(domain, dict):
            domain = {**domain, **{c: (CATS if c == "c" else (0.0, 20.0) if c == "z"
                                        else (-5.0, 5.0)) for c in cols if c not in domain}}
    cols = cols[:width]
    if isinstance(domain, dict):
        domain = {c: domain[c] for c in cols}
    kw = dict(n_iter=30) if solver.startswith("smd") or solver == "mwem" else {}
    est = SaddlePointSynthesizer(epsilon=eps, delta=1e-6, solver=solver, domain=domain,
                                 neighbouring=relation, random_state=0, **kw, **extra)
    est.fit(X[cols])
    out = {"spent": np.array(est.privacy_spent_, dtype=float)}
    for i, m in enumerate(getattr(est, "measurements_", [])):
        out[f"m{i}"] = np.asarray(m["counts"], dtype=float)
        out[f"s{i}"] = np.atleast_1d(np.asarray(m["sigma"], dtype=float))
    for name, fine in (getattr(est, "resolution_", None) or {}).items():
        out[f"fine_{name}_cells"] = np.array([fine["cells"]], dtype=float)
        if fine.get("counts") is not None:
            out[f"fine_{name}_counts"] = np.asarray(fine["counts"], dtype=float)
        for key, value in (fine.get("spikes") or {}).items():
            out[f"fine_{name}_spike_{key}"] = np.asarray(value, dtype=float)
        if fine.get("spike_threshold") is not None:
            out[f"fine_{name}_thr"] = np.array([fine["spike_threshold"]], dtype=float)
    for name, edges in (getattr(est, "bin_edges_", None) or {}).items():
        out[f"edges_{name}"] = np.asarray(edges, dtype=float)
    out["domain"] = repr(est.domain_)
    for i, e in enumerate(est.privacy_ledger_.entries):
        out[f"ledger{i}"] = np.array([getattr(e, "mu", math.nan) or math.nan,
                                      getattr(e, "rho", math.nan) or math.nan,
                                      getattr(e, "delta", math.nan) or math.nan], dtype=float)
        out[f"ledger{i}_kind"] = e.kind
    sample = est.sample(64)
    for c in sample.columns:
        v = sample[c].to_numpy()
        out[f"sample_{c}"] = v.astype(float) if v.dtype.kind in "fiu" else repr(list(v))
    return out, est.solver_


def run(path):
    warnings.simplefilter("ignore")
    results = {}
    for config in _configs():
        try:
            results[config] = _fit(*config)
        except Exception as exc:  # noqa: BLE001 - a refused configuration is a result too
            results[config] = (f"{type(exc).__name__}: {exc}"[:160], None)
        print(config, results[config][1] if not isinstance(results[config][0], str)
              else results[config][0], flush=True)
    with open(path, "wb") as fh:
        pickle.dump(results, fh)


def _rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        return math.inf
    both = np.isfinite(a) & np.isfinite(b)
    if not np.array_equal(np.isfinite(a), np.isfinite(b)) or \
            not np.array_equal(a[~both], b[~both], equal_nan=True):
        return math.inf
    scale = np.maximum(np.abs(a[both]), 1e-300)
    return float(np.max(np.abs(a[both] - b[both]) / scale, initial=0.0))


def compare(before, after):
    with open(before, "rb") as fh:
        b = pickle.load(fh)
    with open(after, "rb") as fh:
        a = pickle.load(fh)
    counts = {}
    for config in b:
        (ob, sb), (oa, _) = b[config], a[config]
        if isinstance(ob, str) or isinstance(oa, str):
            verdict = "same error" if ob == oa else f"ERROR before={ob!r} after={oa!r}"
            worst = None
        elif set(ob) != set(oa):
            verdict, worst = "CHANGED (keys)", sorted(set(ob) ^ set(oa))
        else:
            worst, key_worst = 0.0, None
            for k in ob:
                if isinstance(ob[k], str) or isinstance(oa[k], str):
                    r = 0.0 if ob[k] == oa[k] else math.inf
                else:
                    r = 0.0 if np.array_equal(ob[k], oa[k], equal_nan=True) else _rel(ob[k],
                                                                                      oa[k])
                if r > worst:
                    worst, key_worst = r, k
            verdict = "identical" if worst == 0 else "1e-12" if worst <= 1e-12 else \
                f"CHANGED ({key_worst}: rel {worst:.3g})"
        counts[verdict.split(" ")[0]] = counts.get(verdict.split(" ")[0], 0) + 1
        print(*config, sb, verdict, sep=" | ")
    print("summary:", counts)


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2])
    else:
        compare(sys.argv[2], sys.argv[3])
