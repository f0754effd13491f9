"""``python pair.py BASE.md ALT.md``: two ``cli_scan.py`` runs of the same tables, paired by
table: the mean difference of the 2-way TV at 10 quantile bins (ALT - BASE), its standard
error, the tables lower and higher, and the same over the tables of 2,000 rows or more."""
import sys

import numpy as np


def rows(path):
    out = {}
    for line in open(path):
        cells = [x.strip() for x in line.split("|")]
        if len(cells) > 8 and "/" in cells[1] and cells[8]:
            out[cells[1]] = (float(cells[8].split(" / ")[0]), int(cells[2]))
    return out


base, alt = rows(sys.argv[1]), rows(sys.argv[2])
common = [k for k in base if k in alt]
d = np.array([alt[k][0] - base[k][0] for k in common])
big = np.array([base[k][1] >= 2000 for k in common])
print(f"{sys.argv[2]}: {len(common)} tables, mean diff {d.mean():+.4f} "
      f"(se {d.std(ddof=1) / np.sqrt(len(d)):.4f}), lower on {int((d < 0).sum())}, higher on "
      f"{int((d > 0).sum())}; >= 2000 rows: {int(big.sum())} tables, mean {d[big].mean():+.4f}, "
      f"lower on {int((d[big] < 0).sum())}")
