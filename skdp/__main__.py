"""Command line: ``python -m skdp synthesize [INPUT.csv] -o OUT.csv --epsilon 1 --delta 1e-6``.

Releases a differentially private synthetic copy of a CSV table with
:class:`~skdp.synthesizer.SaddlePointSynthesizer`. Without ``INPUT`` it runs on
a bundled real table (scikit-learn's breast-cancer data: six measurements cut
into bins on public round bounds, and the diagnosis), so the command works on
a fresh machine with no download. Needs only NumPy, SciPy and scikit-learn
(``--plot`` also needs matplotlib).

The report prints the privacy spent and how it composed. It never prints an
error measured on the training table (that would leak); ``--holdout FILE``
prints the synthetic marginals' error against a held-out table instead.
"""

import argparse
import csv
import json
import math
import sys
import warnings

import numpy as np

__all__ = ["main"]

# public round bounds chosen for the demo (not read from the data)
DEMO_COLUMNS = {
    "mean radius": (5.0, 30.0),
    "mean texture": (5.0, 40.0),
    "mean perimeter": (40.0, 200.0),
    "mean area": (100.0, 2600.0),
    "mean smoothness": (0.05, 0.17),
    "mean concavity": (0.0, 0.45),
}
DEMO_BINS = 6


def demo_table():
    """The bundled table: header and rows (breast cancer, 569 rows, 7 columns)."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    names = list(data.feature_names)
    idx = [names.index(c) for c in DEMO_COLUMNS]
    header = list(DEMO_COLUMNS) + ["diagnosis"]
    labels = np.asarray(data.target_names)[data.target]
    rows = [[float(v) for v in data.data[i, idx]] + [str(labels[i])]
            for i in range(data.data.shape[0])]
    domain = dict(DEMO_COLUMNS)
    domain["diagnosis"] = [str(c) for c in data.target_names]
    return header, rows, domain


def _parse(cell):
    for cast in (int, float):
        try:
            return cast(cell)
        except ValueError:
            pass
    return cell


def read_csv(path):
    """Header and typed rows of a CSV file (ints, floats, or strings per cell)."""
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise ValueError(f"{path} is empty.") from None
        rows = []
        for i, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(header):
                raise ValueError(f"{path}, line {i}: {len(row)} fields, expected {len(header)}.")
            for name, cell in zip(header, row):
                if cell.strip() == "" or cell.strip().lower() in ("nan", "na", "null"):
                    raise ValueError(f"{path}, line {i}: missing value in column {name!r}.")
            rows.append([_parse(c.strip()) for c in row])
    if not rows:
        raise ValueError(f"{path} has no data rows.")
    # a column of ints and floats is numeric: make it all floats
    for j in range(len(header)):
        col = [r[j] for r in rows]
        numeric = all(isinstance(v, (int, float)) for v in col)
        if numeric and any(isinstance(v, float) for v in col):
            for r in rows:
                r[j] = float(r[j])
        elif any(isinstance(v, str) for v in col):
            for r in rows:
                r[j] = str(r[j])
    return header, rows


def _array(rows):
    arr = np.empty((len(rows), len(rows[0])), dtype=object)
    for i, r in enumerate(rows):
        arr[i, :] = r
    return arr


def _domain_by_index(domain, header):
    """Domain keyed by column index (the estimator sees an unnamed array)."""
    out = {}
    for key, spec in domain.items():
        if key not in header:
            raise ValueError(f"the domain names column {key!r}, which the CSV does not have.")
        out[header.index(key)] = spec
    return out


def write_csv(path, header, table, integer_columns):
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        for row in table:
            writer.writerow([int(round(float(v))) if j in integer_columns else
                             (repr(float(v)) if isinstance(v, (float, np.floating)) else v)
                             for j, v in enumerate(row)])


def _plot(path, est, header, synth_table, reference, label):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise SystemExit("--plot needs matplotlib (pip install matplotlib).")
    cols = est._columns
    fig, axes = plt.subplots(1, len(cols), figsize=(3.2 * len(cols), 3), squeeze=False)
    for j, (ax, col) in enumerate(zip(axes[0], cols)):
        k = col.cardinality
        ref = np.bincount(col.encode(reference[:, j]), minlength=k) / len(reference)
        syn = np.bincount(col.encode(synth_table[:, j]), minlength=k) / len(synth_table)
        pos = np.arange(k)
        ax.bar(pos - 0.2, ref, width=0.4, label=label)
        ax.bar(pos + 0.2, syn, width=0.4, label="synthetic")
        ax.set_title(str(header[j]), fontsize=9)
        ticks = [str(c) for c in col.categories] if col.categorical else \
            [f"{col.low + i * (col.high - col.low) / k:.3g}" for i in range(k)]
        ax.set_xticks(pos, ticks, rotation=60, fontsize=7)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def synthesize(args):
    from .synthesizer import SaddlePointSynthesizer

    if args.input is None:
        header, rows, domain = demo_table()
        n_bins = args.n_bins or DEMO_BINS
        source = "bundled table: scikit-learn breast cancer (569 rows, 7 columns)"
    else:
        header, rows = read_csv(args.input)
        domain, n_bins, source = None, args.n_bins or 10, args.input
    if args.domain:
        with open(args.domain) as fh:
            domain = json.load(fh)
    X = _array(rows)
    est = SaddlePointSynthesizer(
        epsilon=args.epsilon, delta=args.delta, solver=args.solver, workload=args.workload,
        domain=None if domain is None else _domain_by_index(domain, header), n_bins=n_bins,
        random_state=args.seed, verbose=0 if args.quiet else 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    table = est.sample(args.n_samples)
    integer_columns = {j for j, c in enumerate(est._columns) if not c.categorical and c.integer}
    integer_columns |= {j for j in range(len(header))
                        if all(isinstance(r[j], int) for r in rows[:100]) and
                        not est._columns[j].categorical}
    write_csv(args.output, header, table, integer_columns)
    eps, delta = est.privacy_spent_
    print(f"input: {source}")
    print(f"wrote {len(table)} synthetic rows to {args.output}")
    print(f"privacy spent: epsilon={eps:.4f}, delta={delta:g} "
          f"(composition: {est.privacy_method_}; budget epsilon={args.epsilon:g})")
    print(f"solver: {args.solver}, {len(est.marginals_)} marginals, "
          f"{math.prod(est.domain_shape_)} cells, {est.n_iter_} iterations")
    reference, label = None, None
    if args.holdout:
        h_header, h_rows = read_csv(args.holdout)
        if h_header != header:
            raise SystemExit(f"the holdout's columns {h_header} differ from {header}.")
        reference, label = _array(h_rows), "holdout"
        errors = est.workload_error(reference)
        values = np.array(list(errors.values()))
        print(f"holdout marginal error (total variation): mean={values.mean():.4f}, "
              f"max={values.max():.4f} over {len(values)} marginals")
    if args.plot:
        if reference is None:
            reference, label = X, "training (private: do not publish)"
            print("note: without --holdout the plot shows the private training data; "
                  "do not publish it.")
        _plot(args.plot, est, header, np.asarray(table, dtype=object), reference, label)
        print(f"plot: {args.plot}")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m skdp",
                                     description="skdp: differentially private estimators.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("synthesize", help="release a DP synthetic copy of a CSV table",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", nargs="?", help="CSV with a header row (default: bundled table)")
    p.add_argument("-o", "--output", required=True, help="synthetic CSV to write")
    p.add_argument("--epsilon", type=float, default=1.0)
    p.add_argument("--delta", type=float, default=1e-6)
    p.add_argument("--workload", type=int, default=2, help="all k-way marginals (default 2)")
    p.add_argument("--domain", help="JSON: column -> list of categories or [low, high] bounds "
                                    "(write bounds as {\"low\": l, \"high\": h})")
    p.add_argument("--n-bins", type=int, default=None, help="bins per numeric column")
    p.add_argument("--solver", default="smd",
                   choices=["smd", "smd_linf", "smd_private_game", "smd_vertex", "mwem"])
    p.add_argument("--n-samples", type=int, default=None, help="rows to write (default: n)")
    p.add_argument("--holdout", help="held-out CSV: print the synthetic marginals' error on it")
    p.add_argument("--plot", help="PNG with the 1-way marginals side by side")
    p.add_argument("--seed", type=int, default=None,
                   help="random seed (for reproducible tests only; omit for real releases)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv=None):
    """Entry point of ``python -m skdp`` and of the ``skdp`` script."""
    args = build_parser().parse_args(argv)
    try:
        return synthesize(args)
    except (ValueError, TypeError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
