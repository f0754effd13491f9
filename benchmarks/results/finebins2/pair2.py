# ruff: noqa: E501
"""python pair2.py BASE.txt NEW.txt: per table, paired by seed (x-baseline ratios from the
4-decimal TVs, the baseline being the same seeds' independent DP baseline in both files)."""

import collections
import re
import sys
import numpy as np


def read(path):
    out = collections.defaultdict(dict)
    one = collections.defaultdict(lambda: collections.defaultdict(list))
    table = None
    for line in open(path):
        m = re.match(r"## (\S+):", line)
        if m:
            table = m.group(1)
            continue
        m = re.match(r"\| (curated[^|]*?) \| (\d+) \| (.*)", line)
        import os

        if (
            m
            and os.environ.get("CFG")
            and m.group(1) != os.environ["CFG_" + ("A" if path == sys.argv[1] else "B")]
        ):
            continue
        False if m else globals().get("skip", False)
        if m:
            found = re.findall(r"([\d.]+) \(([\d.]+)x\)", m.group(3))[:2]
            out[table][int(m.group(2))] = [float(v) / (float(v) / float(r)) for v, r in found]
            out[table][int(m.group(2))] = [(float(v), float(v) / float(r)) for v, r in found]
            continue
        m = re.match(r"\s+(\S+)\s+num (.*)", line)
        if m and table and not globals().get("skip", False):
            parts = re.findall(r"\(([\d.]+)x\), ([\d.]+)/([\d.]+)", m.group(2))[:2]
            one[table][m.group(1)].append([(float(a), float(b)) for _, a, b in parts])
    return out, one


(b, b1), (n, n1) = read(sys.argv[1]), read(sys.argv[2])
for t in n:
    ss = sorted(set(b[t]) & set(n[t]))
    base = np.array([[bs for _, bs in b[t][s]] for s in ss])  # baseline TVs (same seeds)
    fb = np.array([[v for v, _ in b[t][s]] for s in ss]) / base
    fn = np.array([[v for v, _ in n[t][s]] for s in ss]) / base
    d = fn - fb
    se = d.std(axis=0, ddof=1) / np.sqrt(len(ss))
    better = (d < 0).sum(axis=0)
    print(
        f"| {t} | {len(ss)} | {fb[:, 0].mean():.3f} / {fb[:, 1].mean():.3f} | {fn[:, 0].mean():.3f} / {fn[:, 1].mean():.3f} | "
        + " | ".join(f"{d[:, k].mean():+.3f} ({se[k]:.3f}), {better[k]}/{len(ss)}" for k in (0, 1))
        + " |"
    )
    for name, one in (("base", b1), ("new", n1)):
        cols = one[t]
        ok = [0, 0]
        g = [[], []]
        for c, vals in cols.items():
            a = np.array(vals)  # seeds x 2 x (fit, base)
            m = a.mean(axis=0)
            for k in (0, 1):
                ok[k] += m[k, 0] <= m[k, 1]
                if m[k, 0] > 0 and m[k, 1] > 0:
                    g[k].append(m[k, 0] / m[k, 1])  # precip's q10 (0.000) left out
        print(
            f"    numeric 1-way {name}: within baseline e10 {ok[0]}/{len(cols)}, q10 {ok[1]}/{len(cols)};"
            f" geo-mean ratio {np.exp(np.mean(np.log(g[0]))):.2f} / {np.exp(np.mean(np.log(g[1]))):.2f}"
        )
    if len(sys.argv) > 3:
        for c in n1[t]:
            a = np.array(b1[t][c]).mean(axis=0)
            z = np.array(n1[t][c]).mean(axis=0)
            print(
                f"      {c:12s} 1-way e10 {a[0, 0]:.3f}->{z[0, 0]:.3f} (base {a[0, 1]:.3f})  q10 {a[1, 0]:.3f}->{z[1, 0]:.3f} (base {a[1, 1]:.3f})"
            )
