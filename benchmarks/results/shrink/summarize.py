"""``python summarize.py FILE...``: paired differences (on - off) of ``paired.py``'s output:
the 2-way ratios over the baseline at e10 and q10 (mean, se, seeds where on is lower), then
each numeric column's 1-way TV (mean off, mean on, mean difference and se, seeds lower).
``A+B`` reads the rows of both files (the same table, domain and epsilon; other seeds)."""
import sys

import numpy as np


def _stats(off, on):
    d = np.asarray(on) - np.asarray(off)
    se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
    return f"{d.mean():+.4f} ({se:.4f}), {int((d < 0).sum())}/{len(d)} lower, " \
           f"{int((d > 0).sum())} higher"


for path in sys.argv[1:]:
    lines = []
    for part in path.split("+"):
        with open(part) as fh:
            lines += fh.read().splitlines()
    head = lines[0]
    names = head.split("numeric: ")[1].strip("[]").replace("'", "").split(", ")
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines
            if ln.startswith("| ") and not ln.startswith("| seed")]
    print(f"{head} ({len(rows)} seeds)")
    for k, label in ((1, "2-way e10 ratio"), (3, "2-way q10 ratio")):
        off, on = [float(r[k]) for r in rows], [float(r[k + 1]) for r in rows]
        print(f"  {label}: off {np.mean(off):.4f} on {np.mean(on):.4f}  diff {_stats(off, on)}")
    for k, kind in ((5, "e10"), (6, "q10")):
        per = np.array([[[float(x) for x in cell.split("/")] for cell in r[k].split()]
                        for r in rows])  # seeds x columns x (off, on, base)
        for j, name in enumerate(names):
            off, on, base = per[:, j, 0], per[:, j, 1], per[:, j, 2]
            if np.array_equal(off, on):
                print(f"  1-way {kind} {name}: identical ({off.mean():.4f}; "
                      f"base {base.mean():.4f})")
                continue
            print(f"  1-way {kind} {name}: off {off.mean():.4f} on {on.mean():.4f} "
                  f"(base {base.mean():.4f})  diff {_stats(off, on)}")
