"""OpenDP 0.16's MST and AIM (``opendp.extras.mbi``) on our coded tables: anchors of issue 17.

The library a careful curator would pick today for these mechanisms, run as shipped, beside
``anchors_pgm.py`` (the upstream private-pgm scripts). It runs in a throw-away virtual
environment outside the repository (OpenDP is never a dependency of skdp); mbi 1.1.0's
``Dataset.df`` (used by ``ContingencyTable.synthesize``) imports pandas, which ``opendp[mbi]``
does not pull in::

    python -m venv /work/venv-opendp
    /work/venv-opendp/bin/pip install "opendp[mbi]==0.16.0" pandas
    PYTHONPATH=. python benchmarks/anchors_pgm.py dump --out /tmp/anchor_split   # repo python
    /work/venv-opendp/bin/python benchmarks/anchors_opendp.py --dir /tmp/anchor_split \\
        --mech mst --eps 1 --relation replace add --save /tmp/anchor_synth_opendp
    PYTHONPATH=. python benchmarks/anchors_pgm.py score --dir /tmp/anchor_split \\
        --synth /tmp/anchor_synth_opendp

It reads the tables ``anchors_pgm.py dump`` writes (``DIR/*.npz``: ``codes`` int64 n x d,
``cards``), prints one markdown row per (table, mechanism, relation, epsilon) as
``anchors_pgm.py run`` does (mean and max 2-way TV between ``n`` synthetic rows and ``codes``,
with the same ``tv``, copied here; seconds of construction, release and sampling) and saves each
synthetic table to ``SAVE/TABLE__opendp-MECH-RELATION__epsEPS__seedSEED.npy`` (int64 codes)
with its seconds and notes in a ``.json`` of the same name, for ``anchors_pgm.py score``.

The OpenDP calls, per run:

* data: ``pl.LazyFrame`` of columns ``c0..c{d-1}`` (int64 codes), input domain
  ``dp.lazyframe_domain([dp.series_domain(c, dp.atom_domain(T="i64"))])``, input metric
  ``dp.frame_distance(dp.symmetric_distance())`` (the only metric ``make_stable_marginals``
  accepts);
* ``dp.mbi.make_contingency_table(domain, metric, dp.zero_concentrated_divergence(), d_in,
  rho, keys={c: list(range(card))}, algorithm=dp.mbi.MST() | dp.mbi.AIM(queries=2))``: the
  keys are the public domain, so no key is discovered from the data (OpenDP then requires
  zero delta: the table is rho-zCDP); OpenDP's defaults otherwise (half of rho on the 1-way
  marginals, MST/AIM ``measure_split=0.9``, mbi's ``mirror_descent`` with 1000 iterations,
  AIM ``rounds = 16 d``, ``max_size = 80`` MB). ``AIM(queries=2)`` is the workload of all
  2-way marginals, as ``anchors_pgm.py``'s AIM (``--aim-queries 3`` is OpenDP's default);
* (epsilon, delta = 1e-6): ``dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m), delta)``,
  OpenDP's zCDP -> approximate-DP conversion (its ``cdp_delta``: the Canonne, Kamath, Steinke
  2020 conversion of upstream's ``cdp2adp.py``; rho agrees with ``anchors_pgm.cdp_rho`` to
  1e-15 at epsilon 0.5, 1, 5); rho is the largest value whose conversion of a rho-zCDP Gaussian
  meets (epsilon, delta) (``dp.binary_search``), and the released measurement is checked with
  ``.check(d_in, (epsilon, delta))`` before it runs;
* ``ContingencyTable.synthesize(rows, method="sample")``: i.i.d. rows from the model.
  OpenDP's default ``method="round"`` (mbi 1.1.0's randomized rounding, ``--sampler round``)
  ranks the rows of each parent group in row order, not in a random order: every column it
  draws increases with the row index within its parent group, the row index acts as a shared
  latent variable, and columns that share no clique get spurious dependence. On
  openintro-yrbss, AIM at epsilon 1: mean 2-way TV 0.135 rounded, 0.052 sampled; MST at
  epsilon 1000: 0.21 rounded. mbi's sampler alone, on a tree model fitted to exact 1- and
  2-way counts of yrbss (no noise): 0.20 rounded, 0.069 sampled, where the model's own 2-way
  marginals are 0.062 from the data.

Neighbouring relation. ``--relation add`` is add/remove-one: ``d_in = [Bound(per_group=1)]``,
symmetric distance 1. ``--relation replace`` is skdp's replace-one: ``d_in =
[Bound(per_group=2)]``, symmetric distance 2, since replacing one row removes one and adds one
(OpenDP's own ``make_metric_unbounded`` maps ``change_one_distance`` 1 to ``symmetric_distance``
2; a frame metric has no change-one form in 0.16). OpenDP then bounds each marginal's l2
sensitivity by 2 where replace-one's is sqrt(2): its Gaussian noise is sqrt(2) larger than
skdp's (and ``anchors_pgm.py --relation replace``) at the same rho; its report-noisy-max score
sensitivity is 2, as skdp's.

Two more things of OpenDP 0.16 this script works around, both post-processing or public:

* every key set gets a latent ``null`` category (``_with_null``), which the noisy 1-way counts
  give some mass: synthetic rows with a null are dropped and more rows synthesized, then ``n``
  of the rest are kept at random (sampling from the model conditioned on no null; the share
  dropped is in the notes);
* MST's selection splits its budget ``d_select`` into ``k = d - 1`` equal parts
  ``prior(d_select / k)`` (one ulp below); OpenDP's adaptive composition sums them rounded up,
  and for many rho the sum exceeds ``d_select``, so the release fails after the 1-way
  marginals with "insufficient budget for query" (k = 12, at (1, 1e-6): every rho from the
  target down to 0.874 of it fails). ``mst_budget`` replays that arithmetic on public values only
  and picks the ``measure_split`` nearest OpenDP's 0.9 (steps of 0.0005, rho lowered by at
  most 9e-9 relative) at which it fits; the split is in the notes. The total rho is kept.

Randomness: OpenDP draws its noise from its own unseedable CSPRNG, so runs are not
reproducible; ``--seed`` seeds NumPy's global generator, which mbi's sampler uses.
"""

import argparse
import glob
import itertools
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import save_synthetic, tv  # noqa: E402  (numpy only: runs in this venv)


# ------------------------------------------------------------------------ OpenDP calls
def _dp():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _to_approx(m, delta):
    dp = _dp()
    return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m), delta)


def rho_for(eps, delta):
    """Largest rho whose OpenDP zCDP -> (eps, delta) conversion meets (eps, delta)."""
    dp = _dp()

    def ok(rho):
        gauss = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False),
                                   dp.absolute_distance(T=float), scale=1 / math.sqrt(2 * rho))
        return _to_approx(gauss, delta).check(1.0, (eps, delta))

    return dp.binary_search(ok, bounds=(1e-12, eps + 1.0))


def _algorithm(mech, aim_queries, measure_split):
    dp = _dp()
    if mech == "mst":
        return dp.mbi.MST(measure_split=measure_split)
    return dp.mbi.AIM(queries=aim_queries)


def measurement(cols, cards, d_in, rho, algorithm):
    """``make_contingency_table`` on the public domain, rho-zCDP under ``d_in``."""
    dp = _dp()
    domain = dp.lazyframe_domain([dp.series_domain(c, dp.atom_domain(T="i64")) for c in cols])
    metric = dp.frame_distance(dp.symmetric_distance())
    keys = {c: list(range(k)) for c, k in zip(cols, cards)}
    m, _, _ = dp.mbi.make_contingency_table(domain, metric, dp.zero_concentrated_divergence(),
                                            d_in, rho, keys=keys, algorithm=algorithm)
    return m


def _prior(x):
    return float(np.nextafter(x, -np.inf))


def mst_select_fits(rho, k, measure_split):
    """Whether OpenDP 0.16's MST selection fits its budget at ``rho`` (``k`` selections).

    The arithmetic of ``make_contingency_table`` (half of rho on the 1-way marginals),
    ``MST.make_marginals`` and ``_make_mst_select``, replayed on a dummy space: ``k`` equal
    parts ``prior(d_select / k)``, summed by OpenDP's adaptive composition (rounded up), must
    not exceed ``d_select``. Depends on public values only.
    """
    dp = _dp()
    d_multi = _prior(_prior(rho - rho * 0.5))
    d_select = _prior(_prior(d_multi - d_multi * measure_split))
    part = _prior(d_select / k)
    comp = dp.c.make_adaptive_composition(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
        dp.zero_concentrated_divergence(), 1.0, [part] * k)
    return comp.map(1.0) <= d_select


def mst_budget(rho, k, steps=200):
    """(rho, measure_split) nearest OpenDP's (rho, 0.9) whose MST selection fits its budget.

    ``measure_split`` moves by 0.0005 away from 0.9, alternately up and down; at each, rho is
    lowered by up to 9 relative steps of 1e-9.
    """
    for i in range(steps):
        split = 0.9 + 0.0005 * ((i + 1) // 2) * (1 if i % 2 else -1)
        for j in range(10):
            r = rho * (1 - 1e-9 * j)
            if mst_select_fits(r, k, split):
                return r, split
    raise RuntimeError(f"no measure_split within {steps} steps of 0.9 fits at rho={rho}")


def sample(table, n, rng_seed, method="sample"):
    """``n`` rows of ``table.synthesize(method=method)`` with no latent null; the null share."""
    np.random.seed(rng_seed)  # mbi's sampler draws from np.random
    rows, drawn, dropped = n, 0, 0
    while True:
        df = table.synthesize(rows, method=method)
        kept = df.drop_nulls()
        drawn, dropped = drawn + len(df), dropped + len(df) - len(kept)
        if len(kept) >= n:
            break
        rows = int(1.2 * rows * rows / max(len(kept), 1)) + 1
    pick = np.sort(np.random.choice(len(kept), n, replace=False))
    return kept.to_numpy()[pick].astype(np.int64), dropped / drawn


def release(X, cards, mech, relation, eps, delta, aim_queries, seed, method):
    """(synthetic codes, seconds, notes) of one OpenDP release at (eps, delta), ``relation``."""
    import polars as pl

    dp = _dp()
    cols = [f"c{j}" for j in range(len(cards))]
    d_in = [dp.polars.Bound(per_group=2 if relation == "replace" else 1)]
    t0 = time.perf_counter()
    rho, split = rho_for(eps, delta), 0.9
    if mech == "mst":
        rho, split = mst_budget(rho, len(cols) - 1)
    algorithm = _algorithm(mech, aim_queries, split)
    m = _to_approx(measurement(cols, cards, d_in, rho, algorithm), delta)
    assert m.check(d_in, (eps, delta)), m.map(d_in)
    table = m(pl.LazyFrame({c: X[:, j] for j, c in enumerate(cols)}))
    Y, null_share = sample(table, len(X), seed, method)
    secs = time.perf_counter() - t0
    multi = [cl for cl in table.marginals.cliques() if len(cl) > 1]
    note = (f"rho={rho:.9g}, {len(multi)} multi-way marginals, null rows dropped "
            f"{100 * null_share:.1f}%")
    if mech == "mst":
        note += f", measure_split={split:g}"
    return Y, secs, note


def run(args):
    import warnings

    warnings.simplefilter("ignore")
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
        for mech, relation, eps in itertools.product(args.mech, args.relation, args.eps):
            Y, secs, note = release(X, cards, mech, relation, eps, args.delta, args.aim_queries,
                                    args.seed, args.sampler)
            if mech == "aim":
                note = f"queries={args.aim_queries}, {note}"
            if args.save:
                rounded = "-round" if args.sampler == "round" else ""
                stem = f"{name}__opendp-{mech}{rounded}-{relation}__eps{eps:g}__seed{args.seed}"
                save_synthetic(args.save, stem, Y, {"seconds": secs, "note": note})
            mean, top = tv(X, Y, cards)
            label = f"opendp {mech}" + (" (round)" if args.sampler == "round" else "")
            print(f"| {name} | {X.shape[0]} x {X.shape[1]} | {label} | {relation} | "
                  f"{eps:g} | {mean:.4f} | {top:.3f} | {secs:.1f} | {note} |", flush=True)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default="/tmp/anchor_split")
    parser.add_argument("--tables", nargs="*")
    parser.add_argument("--mech", nargs="*", default=["mst"], choices=["mst", "aim"])
    parser.add_argument("--eps", type=float, nargs="*", default=[1.0])
    parser.add_argument("--relation", nargs="*", default=["replace", "add"],
                        choices=["replace", "add"])
    parser.add_argument("--delta", type=float, default=1e-6)
    parser.add_argument("--seed", type=int, default=0, help="NumPy seed of mbi's sampler")
    parser.add_argument("--aim-queries", type=int, default=2,
                        help="AIM's workload degree (OpenDP's default 3)")
    parser.add_argument("--sampler", default="sample", choices=["sample", "round"],
                        help="ContingencyTable.synthesize method (OpenDP's default: round)")
    parser.add_argument("--save", default="/tmp/anchor_synth_opendp",
                        help="folder of the synthetic tables (.npy) for `anchors_pgm.py score`; "
                             "'' saves none")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
