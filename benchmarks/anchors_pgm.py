"""Upstream private-pgm MST and AIM (mbi >= 2.0) on our coded tables: the anchors of issue 17.

Three modes, two interpreters (mbi is never a dependency of skdp):

1. ``dump`` (the repository's python): write the coded tables of
   ``benchmarks/synth_real_tables.py`` (its four real tables, via ``coded``) and of
   ``benchmarks/synthesizer.py`` (``breast_cancer``, ``digits``) to ``DIR/*.npz``:
   ``codes`` (int64 n x d: the rows a mechanism is fitted on), ``cards`` (the domain
   sizes), ``holdout`` (the rows held out), ``target`` (the column the ML utility
   predicts, -1: none) and ``target_missing`` (the target's missing code, -1: none).
   The real tables are split as ``synth_real_tables.py`` splits them (``split``: 80%
   ``codes``, 20% ``holdout``, public seed); the two scikit-learn tables are whole, as
   ``synthesizer.py`` uses them (no holdout, no target)::

       PYTHONPATH=. python benchmarks/anchors_pgm.py dump --out /tmp/anchor_tables

2. ``run`` (a throw-away virtual environment outside the repository, no scikit-learn)::

       python -m venv /work/venv-mbi
       /work/venv-mbi/bin/pip install "mbi>=2" networkx disjoint-set pandas
       /work/venv-mbi/bin/python benchmarks/anchors_pgm.py run --dir /tmp/anchor_tables \\
           --mech mst --eps 0.5 1 5 --relation replace add --save /tmp/anchor_synth

   It prints one markdown row per (table, mechanism, relation, epsilon): mean and max
   2-way TV between ``n`` synthetic rows and ``codes`` (``tv`` below, numpy
   only, which ``benchmarks/synthesizer.py`` imports, so both sides use one metric) and
   fit+sample seconds; and saves each synthetic table to
   ``SAVE/TABLE__MECH-RELATION__epsEPS__seedSEED.npy`` (int64 codes), its seconds and
   notes beside it in a ``.json`` file of the same name.

3. ``score`` (the repository's python, with scikit-learn)::

       PYTHONPATH=. python benchmarks/anchors_pgm.py score --dir /tmp/anchor_tables \\
           --synth /tmp/anchor_synth

   It prints the rows of ``synth_real_tables.py`` (mean and max 2-way TV, mean 3-way
   TV, ML balanced accuracy on the holdout, seconds) for every saved synthetic table,
   with the metric code of ``synth_real_tables.py`` (imported), after each table's
   reference rows (the classifier trained on ``codes``; the majority class).

The mechanisms follow ``mechanisms/mst.py``, ``mechanisms/aim.py``, ``mechanisms/cdp2adp.py``
and ``mechanisms/mechanism.py`` of github.com/ryan112358/private-pgm, ported to the
registry's mbi 2.0 with call changes only:

* ``FactoredInference(domain, iters=N).estimate(log)`` ->
  ``estimation.MirrorDescent().estimate(domain, [LinearMeasurement], iters=N)``
  (AIM: ``warm_start=`` the previous model, as upstream's ``warm_start=True``);
* measurements are ``LinearMeasurement(y, clique, stddev)``; MST's compressed 1-way
  measurement is ``LinearMeasurement.compress`` (sum of the dropped cells scaled by
  ``1/sqrt(count)``, a ``WeightedQuery``: upstream's ``I2``);
* ``transform_data`` / ``reverse_data`` -> ``Dataset.compress`` / ``Dataset.decompress``
  (same mapping: supported values kept in order, the rest merged into one value,
  decompressed uniformly at random);
* ``domain.attrs`` -> ``domain.attributes``; ``GraphicalModel(domain, cliques).size`` ->
  ``junction_tree.hypothetical_model_size``; ``Dataset(df, domain)`` ->
  ``Dataset({col: int array}, domain)``; ``hdmm Identity`` -> the default query.
* ``model.synthetic_data()`` is mbi 2.0's sampler (junction-tree cliques, randomized
  rounding in random order; the mbi < 2 sampler bugs are fixed there).

``cdp_rho`` (zCDP -> (epsilon, delta)) is copied from ``cdp2adp.py``; delta = 1e-6.

Neighbouring relation. Upstream calibrates to add/remove-one (``--relation add``: a
marginal has l2 sensitivity 1 and its l1 error score sensitivity 1). skdp calibrates to
replace-one; ``--relation replace`` multiplies every Gaussian sigma by sqrt(2) (l2
sensitivity sqrt(2)) and every exponential-mechanism score sensitivity by 2 (l1
sensitivity 2), so the zCDP accounting of the upstream code is unchanged and the release
is rho-zCDP under replace-one.

JAX runs in float64 (``jax_enable_x64``) with its compilation cache off, as mbi asks.

Hash seed. Upstream AIM's candidates come from a Python set of column tuples
(``_downward_closure``), whose order follows the string hash, so the clique its exponential
mechanism picks for a given ``prng`` draw depends on ``PYTHONHASHSEED``. ``run`` pins it:
where ``PYTHONHASHSEED`` is not a number it starts itself again with
``PYTHONHASHSEED=--seed`` (``_pin_hash_seed``), and it prints the hash seed in its first line
(``<!-- PYTHONHASHSEED=N -->``) and writes it to each saved table's ``.json`` notes. A run is
repeated exactly by the same ``--seed`` (or the same explicit ``PYTHONHASHSEED``).
"""

import argparse
import glob
import itertools
import json
import math
import os
import sys
import time

import numpy as np

from _common import save_synthetic, tv  # numpy only: runs in the anchors' venv


# --------------------------------------------------------------- dump and score modes
def _benchmarks():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import synth_real_tables
    import synthesizer

    return synth_real_tables, synthesizer


def _tables():
    """name -> (codes, cards, holdout, target, target_missing) of every table."""
    S, synthesizer = _benchmarks()
    tables = {}
    for (package, item) in S.TABLES:
        X, cards, missing = S.coded(package, item)
        train, test = S.split(len(X))
        j = S.target_index(package, item)
        tables[f"{package}-{item}"] = (X[train], cards, X[test], j, missing[j])
    for name, fn in synthesizer.TABLES.items():
        X, cards = fn()
        tables[name] = (X, cards, X[:0], -1, -1)
    return tables


def dump(out):
    os.makedirs(out, exist_ok=True)
    for name, (X, cards, test, target, missing) in _tables().items():
        path = os.path.join(out, f"{name}.npz")
        np.savez(path, codes=np.asarray(X, dtype=np.int64),
                 cards=np.asarray(cards, dtype=np.int64), holdout=np.asarray(test, dtype=np.int64),
                 target=target, target_missing=missing)
        print(f"{path}: {X.shape[0]} x {X.shape[1]} (holdout {len(test)}, target {target}), "
              f"cards {list(cards)}")
    return 0


def _saved(synth):
    """(table, method, epsilon, seconds, path) of every saved synthetic table."""
    out = []
    for path in sorted(glob.glob(os.path.join(synth, "*.npy"))):
        table, method, eps, _ = os.path.basename(path)[:-4].split("__")
        info = path[:-4] + ".json"
        seconds = math.nan
        if os.path.exists(info):
            with open(info) as fh:
                seconds = json.load(fh)["seconds"]
        out.append((table, method, float(eps[3:]), seconds, path))
    return out


def score(args):
    S, _ = _benchmarks()
    import warnings

    warnings.simplefilter("ignore")
    print(S.HEADER)
    done = set()
    for table, method, eps, seconds, path in _saved(args.synth):
        z = np.load(os.path.join(args.dir, f"{table}.npz"))
        X, test, cards = z["codes"], z["holdout"], [int(k) for k in z["cards"]]
        target, missing = int(z["target"]), int(z["target_missing"])
        shape = f"{len(X)} / {len(test)} x {X.shape[1]}"
        cells = float(np.prod(np.asarray(cards, dtype=float)))
        if table not in done and target >= 0:
            print("\n".join(S.references(table, shape, cells, X, test, target, missing)))
        done.add(table)
        result = S.score(np.load(path), X, test, cards, target, missing)
        print(S.row(table, shape, cells, f"upstream {method}", eps, [result], seconds),
              flush=True)
    return 0


# ------------------------------------------------------------- cdp2adp.py (upstream copy)
def cdp_delta(rho, eps):
    if rho == 0:
        return 0
    amin, amax = 1.01, (eps + 1) / (2 * rho) + 2
    for _ in range(1000):
        alpha = (amin + amax) / 2
        derivative = (2 * alpha - 1) * rho - eps + math.log1p(-1.0 / alpha)
        if derivative < 0:
            amin = alpha
        else:
            amax = alpha
    exponent = (alpha - 1) * (alpha * rho - eps) + alpha * math.log1p(-1 / alpha)
    delta = math.exp(exponent) / (alpha - 1.0)
    return min(delta, 1.0)


def cdp_rho(eps, delta):
    rhomin, rhomax = 0.0, eps + 1
    for _ in range(1000):
        rho = (rhomin + rhomax) / 2
        if cdp_delta(rho, eps) <= delta:
            rhomin = rho
        else:
            rhomax = rho
    return rhomin


# ------------------------------------------------------------------------- the ports
def _setup_jax():
    import jax

    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_enable_compilation_cache", False)


def exponential_mechanism(q, eps, sensitivity, prng, monotonic=False):
    """mst.py's exponential mechanism (0.5 coefficient unless monotonic)."""
    from scipy.special import logsumexp

    coef = 1.0 if monotonic else 0.5
    scores = coef * eps / sensitivity * np.asarray(q, dtype=float)
    probas = np.exp(scores - logsumexp(scores))
    return prng.choice(q.size, p=probas)


def _vec(factor):
    return np.asarray(factor.datavector(), dtype=float)


def mst(data, epsilon, delta, scale, prng, rows=None, final_iters=5000, select_iters=1000):
    """mst.py ``MST``; ``scale`` = (sigma multiplier, EM-sensitivity multiplier)."""
    from disjoint_set import DisjointSet
    import networkx as nx
    from mbi import estimation

    s_sigma, s_em = scale
    rho = cdp_rho(epsilon, delta)
    sigma = np.sqrt(3 / (2 * rho)) * s_sigma
    cliques = [(col,) for col in data.domain]
    log1 = measure(data, cliques, sigma, prng)
    # compress_domain
    mapping, new_log1 = {}, []
    for m in log1:
        col = m.clique[0]
        y = np.asarray(m.noisy_measurement)
        sup = y >= 3 * m.stddev
        if sup.all():
            new_log1.append(m)
            continue
        size = int(sup.sum())
        mp = np.full(y.size, size, dtype=np.int64)
        mp[sup] = np.arange(size)
        mapping[col] = mp
        new_log1.append(m.compress({col: mp}, data.domain))
    cdata = data.compress(mapping) if mapping else data
    # select
    est = estimation.MirrorDescent().estimate(cdata.domain, new_log1, iters=select_iters)
    weights = {}
    candidates = list(itertools.combinations(cdata.domain.attributes, 2))
    for a, b in candidates:
        weights[a, b] = np.linalg.norm(_vec(cdata.project([a, b])) - _vec(est.project([a, b])), 1)
    T = nx.Graph()
    T.add_nodes_from(cdata.domain.attributes)
    ds = DisjointSet()
    r = len(list(nx.connected_components(T)))
    eps_em = np.sqrt(8 * (rho / 3.0) / (r - 1))
    for _ in range(r - 1):
        candidates = [e for e in candidates if not ds.connected(*e)]
        wgts = np.array([weights[e] for e in candidates])
        e = candidates[exponential_mechanism(wgts, eps_em, 1.0 * s_em, prng)]
        T.add_edge(*e)
        ds.union(*e)
    log2 = measure(cdata, list(T.edges), sigma, prng)
    model = estimation.MirrorDescent().estimate(cdata.domain, new_log1 + log2, iters=final_iters)
    synth = model.synthetic_data(rows=rows)
    return synth.decompress(mapping) if mapping else synth


def measure(data, cliques, sigma, prng):
    """mst.py ``measure`` with unit weights normalised to l2 norm 1: each of the k
    cliques gets sigma * sqrt(k), so one call spends 0.5 / sigma**2 (rho / 3)."""
    from mbi import LinearMeasurement

    wgt = 1.0 / np.sqrt(len(cliques))
    out = []
    for proj in cliques:
        x = _vec(data.project(proj))
        y = x + prng.normal(0, sigma / wgt, size=x.size)
        out.append(LinearMeasurement(y, tuple(proj), sigma / wgt))
    return out


def _powerset(s):
    s = list(s)
    return itertools.chain.from_iterable(itertools.combinations(s, r) for r in range(1, len(s) + 1))


def _downward_closure(Ws):
    ans = set()
    for proj in Ws:
        ans.update(_powerset(proj))
    return list(sorted(ans, key=len))


def _maps():
    """How many memory mappings this process holds (Linux; -1 elsewhere): JAX's compiled
    programs each take some, and the kernel stops at ``vm.max_map_count``."""
    try:
        with open("/proc/self/maps") as fh:
            return sum(1 for _ in fh)
    except OSError:
        return -1


def _progress(t0, c0, text):
    """One line on stderr: UTC time, wall and CPU seconds since the fit began, maps, text."""
    print(f"{time.strftime('%H:%M:%S', time.gmtime())} wall {time.perf_counter() - t0:7.1f}s "
          f"cpu {time.process_time() - c0:7.1f}s maps {_maps()} {text}", file=sys.stderr,
          flush=True)


def aim(data, epsilon, delta, scale, prng, max_iters=1000, max_model_size=80, rounds=None,
        degree=2, max_cells=10000, rows=None, clear_caches=False, clear_above=0,
        progress=False, eager_queries=False):
    """aim.py ``AIM.run`` on the workload of all ``degree``-way marginals (weight 1).

    ``clear_caches``: ``jax.clear_caches()`` after every round; ``clear_above``: only when
    the process holds more than that many memory mappings (0: never). Neither changes a
    released value (same programs, compiled again). ``progress``: a line per round on
    stderr (time, rounds, rho spent, the clique chosen, the model's size).
    ``eager_queries``: the model's marginals of the candidates (``model.project``) computed
    under ``jax.disable_jit()``: mbi 2.0 compiles a variable-elimination program per
    unsupported clique and model structure, about 100 programs (50-65 CPU seconds) a round
    on 15 columns; eagerly the same sums take about 4 seconds after the first round and
    agree to 1e-14 (relative). The estimation stays compiled."""
    import contextlib

    import jax

    queries = jax.disable_jit if eager_queries else contextlib.nullcontext
    from mbi import LinearMeasurement, estimation
    from mbi.junction_tree import hypothetical_model_size

    s_sigma, s_em = scale
    rho = cdp_rho(epsilon, delta)
    workload = [cl for cl in itertools.combinations(data.domain.attributes, degree)
                if data.domain.size(cl) <= max_cells]
    weights = {cl: 1.0 for cl in workload}
    candidates = {cl: sum(weights[w] * len(set(cl) & set(w)) for w in workload)
                  for cl in _downward_closure(workload)}
    answers = {cl: _vec(data.project(cl)) for cl in candidates}
    rounds = rounds or 16 * len(data.domain)
    oneway = [cl for cl in candidates if len(cl) == 1]
    sigma = np.sqrt(rounds / (2 * 0.9 * rho))  # unit-sensitivity sigma (accounting)
    eps = np.sqrt(8 * 0.1 * rho / rounds)
    measurements = []
    rho_used = len(oneway) * 0.5 / sigma ** 2
    for cl in oneway:
        x = answers[cl]
        measurements.append(LinearMeasurement(x + prng.normal(0, sigma * s_sigma, x.size), cl,
                                              sigma * s_sigma))
    t0, c0 = time.perf_counter(), time.process_time()
    engine = estimation.MirrorDescent()
    model = engine.estimate(data.domain, measurements, iters=max_iters)
    if progress:
        _progress(t0, c0, f"1-way model fitted ({len(oneway)} measurements); at most "
                  f"{rounds} rounds, rho {rho:.5f}, rho used {rho_used:.5f}")
    terminate, t = False, 0
    while not terminate:
        t += 1
        if rho - rho_used < 2 * (0.5 / sigma ** 2 + 1.0 / 8 * eps ** 2):
            remaining = rho - rho_used
            sigma = np.sqrt(1 / (2 * 0.9 * remaining))
            eps = np.sqrt(8 * 0.1 * remaining)
            terminate = True
        rho_used += 1.0 / 8 * eps ** 2 + 0.5 / sigma ** 2
        size_limit = max_model_size * rho_used / rho
        free = set(_downward_closure(model.cliques))
        small = {cl: w for cl, w in candidates.items()
                 if cl in free or hypothetical_model_size(data.domain, list(model.cliques) + [cl])
                 <= size_limit}
        # worst_approximated
        keys = list(small)
        with queries():
            errors = np.array([small[cl] * (np.linalg.norm(answers[cl] - _vec(model.project(cl)), 1)
                                            - np.sqrt(2 / np.pi) * sigma * s_sigma
                                            * data.domain.size(cl)) for cl in keys])
        sens = max(abs(small[cl]) for cl in keys) * s_em
        q = errors - errors.max()
        from scipy.special import softmax
        cl = keys[prng.choice(len(keys), p=softmax(0.5 * eps / sens * q))]
        n = data.domain.size(cl)
        x = answers[cl]
        measurements.append(LinearMeasurement(x + prng.normal(0, sigma * s_sigma, n), cl,
                                              sigma * s_sigma))
        with queries():
            z = _vec(model.project(cl))
        model = engine.estimate(data.domain, measurements, iters=max_iters, warm_start=model)
        maps = _maps()
        if clear_caches or (clear_above and maps > clear_above):
            jax.clear_caches()  # each round compiles new programs; their code maps pile up
        with queries():
            w = _vec(model.project(cl))
        halved = np.linalg.norm(w - z, 1) <= sigma * s_sigma * np.sqrt(2 / np.pi) * n
        if halved:
            sigma /= 2
            eps *= 2
        if progress:
            size = hypothetical_model_size(data.domain, list(model.cliques))
            _progress(t0, c0, f"round {t} rho used {rho_used / rho:.3f} clique {cl} "
                      f"({n} cells) model {size:.3f} MB of {size_limit:.2f}"
                      f"{' sigma halved' if halved else ''} maps before clear {maps}")
    model = engine.estimate(data.domain, measurements, iters=max_iters, warm_start=model)
    if progress:
        _progress(t0, c0, f"final estimate done after {t} rounds")
    return model.synthetic_data(rows=rows), t


def _pin_hash_seed(seed, argv):
    """Start this script again with ``PYTHONHASHSEED`` set to ``seed`` (mod 2**32) unless it
    is already a number (the user's pin is kept); returns the hash seed in force."""
    value = os.environ.get("PYTHONHASHSEED", "")
    if value.isdigit():
        return int(value)
    env = dict(os.environ, PYTHONHASHSEED=str(seed % 2 ** 32))
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), *argv], env)


def run(args):
    print(f"<!-- PYTHONHASHSEED={args.hash_seed} -->", flush=True)
    _setup_jax()
    import warnings

    warnings.simplefilter("ignore")
    from mbi import Dataset, Domain

    paths = sorted(glob.glob(os.path.join(args.dir, "*.npz")))
    if args.tables:
        paths = [p for p in paths if os.path.basename(p)[:-4] in args.tables]
    print("| table | rows x cols | method | relation | epsilon | mean 2-way TV | max TV | seconds "
          "| notes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        name = os.path.basename(path)[:-4]
        z = np.load(path)
        X, cards = z["codes"], [int(k) for k in z["cards"]]
        attrs = [f"c{j}" for j in range(len(cards))]
        domain = Domain(attrs, cards)
        data = Dataset({a: X[:, j] for j, a in enumerate(attrs)}, domain)
        for mech in args.mech:
            for relation in args.relation:
                scale = (math.sqrt(2), 2.0) if relation == "replace" else (1.0, 1.0)
                for eps in args.eps:
                    prng = np.random.RandomState(args.seed)
                    np.random.seed(args.seed)  # Dataset.decompress draws from np.random
                    t0 = time.perf_counter()
                    note = ""
                    if mech == "mst":
                        synth = mst(data, eps, args.delta, scale, prng, rows=len(X))
                    else:
                        synth, rounds = aim(data, eps, args.delta, scale, prng,
                                            max_iters=args.max_iters, rows=len(X),
                                            max_model_size=args.max_model_size,
                                            clear_caches=args.clear_caches,
                                            clear_above=args.clear_above,
                                            progress=args.progress,
                                            eager_queries=args.eager_queries)
                        note = (f"max_iters={args.max_iters}, max_model_size="
                                f"{args.max_model_size:g}, {rounds} rounds"
                                f"{', eager queries' if args.eager_queries else ''}")
                    secs = time.perf_counter() - t0
                    Y = np.column_stack([np.asarray(synth.data[a], dtype=np.int64) for a in attrs])
                    if args.save:
                        stem = f"{name}__{mech}-{relation}__eps{eps:g}__seed{args.seed}"
                        save_synthetic(args.save, stem, Y, {"seconds": secs, "note": note,
                                                            "hash_seed": args.hash_seed})
                    mean, top = tv(X, Y, cards)
                    print(f"| {name} | {X.shape[0]} x {X.shape[1]} | upstream {mech} "
                          f"| {relation} | "
                          f"{eps:g} | {mean:.4f} | {top:.3f} | {secs:.1f} | {note} rows={len(Y)} |",
                          flush=True)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    d = sub.add_parser("dump")
    d.add_argument("--out", default="/tmp/anchor_tables")
    r = sub.add_parser("run")
    r.add_argument("--dir", default="/tmp/anchor_tables")
    r.add_argument("--tables", nargs="*")
    r.add_argument("--mech", nargs="*", default=["mst"], choices=["mst", "aim"])
    r.add_argument("--eps", type=float, nargs="*", default=[1.0])
    r.add_argument("--relation", nargs="*", default=["replace", "add"], choices=["replace", "add"])
    r.add_argument("--delta", type=float, default=1e-6)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--max-iters", type=int, default=1000, help="AIM's max_iters (upstream 1000)")
    r.add_argument("--clear-caches", action="store_true",
                   help="AIM: jax.clear_caches() every round (keeps the process under "
                        "vm.max_map_count)")
    r.add_argument("--clear-above", type=int, default=0,
                   help="AIM: jax.clear_caches() only in rounds that end above this many "
                        "memory mappings (0: never; vm.max_map_count is often 65530)")
    r.add_argument("--max-model-size", type=float, default=80,
                   help="AIM's max_model_size in MB (upstream 80)")
    r.add_argument("--eager-queries", action="store_true",
                   help="AIM: the candidates' model marginals under jax.disable_jit() (same "
                        "values to 1e-14, no program compiled per clique)")
    r.add_argument("--progress", action="store_true",
                   help="AIM: a line per round on stderr (time, CPU, rho used, clique)")
    r.add_argument("--save", default="/tmp/anchor_synth",
                   help="folder of the synthetic tables (.npy) for `score`; '' saves none")
    s = sub.add_parser("score")
    s.add_argument("--dir", default="/tmp/anchor_tables")
    s.add_argument("--synth", default="/tmp/anchor_synth")
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if args.mode == "run":
        args.hash_seed = _pin_hash_seed(args.seed, argv)
    return {"dump": lambda: dump(args.out), "run": lambda: run(args),
            "score": lambda: score(args)}[args.mode]()


if __name__ == "__main__":
    sys.exit(main())
