"""``python paired.py FILE...``: from ``cli_api_gap.py`` output, each config against the same
config with ``bin_strategy=uniform``, paired by seed: mean ratio (e10 / q10 against the
holdout), difference (its standard error) and the seeds on which the config is better. The
ratios are recomputed from the 4-decimal TVs over each seed's baseline (the mean of TV / ratio
over the configs), not from the 2-decimal ratios."""
import collections
import re
import sys

import numpy as np


def read(path):
    rows = collections.defaultdict(dict)
    for line in open(path):
        m = re.match(r"\| (curated[^|]*?) \| (\d+) \| (.*)", line)
        if m:
            found = re.findall(r"([\d.]+) \(([\d.]+)x\)", m.group(3))[:2]
            rows[m.group(1)][int(m.group(2))] = [(float(v), float(r)) for v, r in found]
    return rows


def main():
    for path in sys.argv[1:]:
        rows = read(path)
        seeds = sorted({s for r in rows.values() for s in r})
        base = {s: np.mean([[v / r for v, r in rows[n][s]] for n in rows if s in rows[n]],
                           axis=0) for s in seeds}
        print("##", path.split("/")[-1])
        for n in rows:
            u = n + (",bin_strategy=uniform" if ":" in n else ":bin_strategy=uniform")
            if "bin_strategy=uniform" in n or u not in rows:
                continue
            ss = sorted(set(rows[n]) & set(rows[u]))
            f = np.array([[v for v, _ in rows[n][s]] / base[s] for s in ss])
            g = np.array([[v for v, _ in rows[u][s]] / base[s] for s in ss])
            d = f - g
            se = d.std(axis=0, ddof=1) / np.sqrt(len(ss))
            better = (d < 0).sum(axis=0)
            print(f"| {n.partition(':')[2] or 'default'} | {len(ss)} | "
                  f"{f[:, 0].mean():.3f} / {f[:, 1].mean():.3f} | "
                  f"{g[:, 0].mean():.3f} / {g[:, 1].mean():.3f} | " +
                  " | ".join(f"{d[:, k].mean():+.3f} ({se[k]:.3f}), {better[k]}/{len(ss)}"
                             for k in (0, 1)) + " |")


if __name__ == "__main__":
    main()
