"""``python pair.py BEFORE.jsonl AFTER.jsonl``: the targets rows of two ``reserved_check.py``
raw files paired by table, domain, epsilon and seed: the mean 2-way TV over the DP baseline at
e10 / q10 before and after, the mean difference, its standard error and the seeds lower."""
import json
import sys

import numpy as np


def load(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        if r.get("part") == "targets":
            out[(r["table"], r["domain"], r["eps"], r["seed"])] = r
    return out


def paired(a, b, keys, how):
    ra = np.array([a[k][how]["two"] / a[k][how]["indep"] for k in keys])
    rb = np.array([b[k][how]["two"] / b[k][how]["indep"] for k in keys])
    d = rb - ra
    se = d.std(ddof=1) / np.sqrt(len(d))
    return f"{ra.mean():.3f}", f"{rb.mean():.3f}", \
        f"{d.mean():+.3f} ({se:.3f}), {int((d < 0).sum())}/{len(d)}"


def main(before, after):
    a, b = load(before), load(after)
    groups = {}
    for k in sorted(set(a) & set(b)):
        groups.setdefault(k[:3], []).append(k)
    print("| table | domain | eps | seeds | before e10 / q10 (x) | after e10 / q10 (x) | "
          "diff e10 (se), lower | diff q10 (se), lower |")
    print("|---|---|---|---|---|---|---|---|")
    for (table, domain, eps), keys in groups.items():
        e, q = paired(a, b, keys, "equal"), paired(a, b, keys, "quantile")
        print(f"| {table} | {domain} | {eps:g} | {len(keys)} | {e[0]} / {q[0]} | {e[1]} / {q[1]} "
              f"| {e[2]} | {q[2]} |")


if __name__ == "__main__":
    main(*sys.argv[1:3])
