"""``python paired_zero.py MAIN.md BRANCH.md CONFIG``: ``cli_api_gap.py`` output of main
(``curated``) against the branch's ``CONFIG``, per table, paired by seed: mean ratio (e10 / q10
against the holdout), difference (its standard error), seeds on which the branch is better;
ratios from the 4-decimal TVs over each seed's baseline (TV / printed ratio, mean over both
files). Then the numeric columns' 1-way TV (mean of the seeds, against the holdout) with the
baseline's, and how many are at most the baseline's."""
import collections
import re
import sys

import numpy as np


def read(path):
    rows = collections.defaultdict(lambda: collections.defaultdict(dict))
    ones = collections.defaultdict(lambda: collections.defaultdict(dict))
    table = cur = None
    for line in open(path):
        t = re.match(r"## (\w+):", line)
        if t:
            table = t.group(1)
        m = re.match(r"\| (curated[^|]*?) \| (\d+) \| (.*)", line)
        if m:
            found = re.findall(r"([\d.]+) \(([\d.]+)x\)", m.group(3))[:2]
            cur = (m.group(1), int(m.group(2)))
            rows[table][cur[0]][cur[1]] = [(float(v), float(r)) for v, r in found]
        c = re.match(r"\s+(\S+)\s+num (.*)", line)
        if c and cur:
            pairs = re.findall(r"\(([\d.]+)x\), ([\d.]+)/([\d.]+)", c.group(2))[:2]
            ones[table][(cur[0], c.group(1))][cur[1]] = [(float(a), float(b)) for _, a, b in pairs]
    return rows, ones


def paired_row(name, f, g):
    """One table row: the mean ratios (e10 / q10) of ``f`` and ``g`` (seeds x 2), their
    paired difference (its standard error) and the seeds on which ``g`` is lower."""
    d = g - f
    se = d.std(axis=0, ddof=1) / np.sqrt(len(d))
    better = (d < 0).sum(axis=0)
    return (f"| {name} | {len(d)} | {f[:, 0].mean():.3f} / {f[:, 1].mean():.3f} | "
            f"{g[:, 0].mean():.3f} / {g[:, 1].mean():.3f} | " +
            " | ".join(f"{d[:, k].mean():+.3f} ({se[k]:.3f}), {better[k]}/{len(d)}"
                       for k in (0, 1)) + " |")


def main():
    main_path, branch_path, config = sys.argv[1:4]
    (rm, om), (rb, ob) = read(main_path), read(branch_path)
    counts = []  # per numeric column: [[main e10, q10], [branch e10, q10]] 1-way / baseline
    for table in rm:
        a, b = rm[table]["curated"], rb[table][config]
        ss = sorted(set(a) & set(b))
        base = {s: np.mean([[v / r for v, r in x[s]] for x in (a, b)], axis=0) for s in ss}
        f = np.array([[v for v, _ in a[s]] / base[s] for s in ss])
        g = np.array([[v for v, _ in b[s]] / base[s] for s in ss])
        print(paired_row(table, f, g))
        cols = [c for (n, c) in om[table] if n == "curated"]
        for c in cols:
            x, y = om[table][("curated", c)], ob[table][(config, c)]
            if c != "precip":  # 0 at q10 (one bin holds the holdout): left out, as before
                    counts.append([[np.mean([v[s][k][0] for s in ss]) /
                                np.mean([v[s][k][1] for s in ss]) for k in (0, 1)]
                               for v in (x, y)])
            x, y = om[table][("curated", c)], ob[table][(config, c)]
            mx = np.mean([x[s] for s in ss], axis=0)  # [[fit, base] e10, [fit, base] q10]
            my = np.mean([y[s] for s in ss], axis=0)
            print(f"    {table} {c}: 1-way e10 main {mx[0][0]:.4f} branch {my[0][0]:.4f} "
                  f"base {mx[0][1]:.4f} | q10 main {mx[1][0]:.4f} branch {my[1][0]:.4f} "
                  f"base {mx[1][1]:.4f}")
    r = np.array(counts)
    print(f"numeric 1-way at most the baseline's, e10 / q10: main {(r[:, 0] <= 1).sum(axis=0)}, "
          f"branch {(r[:, 1] <= 1).sum(axis=0)} of {len(r)}; geometric mean of the ratios: main "
          f"{np.exp(np.log(r[:, 0]).mean(axis=0)).round(2)}, branch "
          f"{np.exp(np.log(r[:, 1]).mean(axis=0)).round(2)}")


if __name__ == "__main__":
    main()
