"""``python rows.py TAG FILE...``: one table row per ``skdp synthesize --holdout`` output
(files named ``*_EPS_sSEED.txt``): epsilon, seed, and the 1-way / 2-way mean TV at 10 equal
and 10 quantile bins of the holdout (mean/max as the CLI prints them)."""
import re
import sys

tag = sys.argv[1]
print("| checkout | eps | seed | 1-way e10 | 2-way e10 | 1-way q10 | 2-way q10 |")
print("|---|---|---|---|---|---|---|")
for path in sys.argv[2:]:
    eps, seed = re.search(r"_([0-9.]+)_s(\d+)\.txt$", path).groups()
    text = open(path).read()
    cells = [re.search(rf"10 {kind} bins\s+(\S+)\s+(\S+)", text).groups()
             for kind in ("equal", "quantile")]
    print(f"| {tag} | {eps} | {seed} | {cells[0][0]} | {cells[0][1]} | {cells[1][0]} | "
          f"{cells[1][1]} |")
