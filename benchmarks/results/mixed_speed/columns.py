"""``python columns.py HOLDOUT.csv SYN.csv...``: per column, the 1-way total variation of each
synthetic table against the holdout at 10 equal bins of the holdout's range / at 10 quantile
bins of the holdout (numeric columns; categories as they are), and the shares a curator would
look at first (``length`` above 600 minutes, ``votes`` below 5)."""
import sys

import numpy as np
import pandas as pd


def tv(real, syn, edges=None):
    if edges is None:
        p = real.astype(object).fillna("<missing>").astype(str).value_counts(normalize=True)
        q = syn.astype(object).fillna("<missing>").astype(str).value_counts(normalize=True)
    else:
        p = pd.Series(np.histogram(real.dropna(), edges)[0]) / len(real)
        q = pd.Series(np.histogram(syn.dropna(), edges)[0]) / len(syn)
        p[len(p)], q[len(q)] = real.isna().mean(), syn.isna().mean()
    return 0.5 * p.sub(q, fill_value=0).abs().sum()


hold = pd.read_csv(sys.argv[1])
tables = {path: pd.read_csv(path) for path in sys.argv[2:]}
print("| column | " + " | ".join(tables) + " |")
print("|---|" + "---|" * len(tables))
for col in hold.columns:
    numeric = hold[col].nunique() > 10
    equal = np.linspace(hold[col].min(), hold[col].max(), 11) if numeric else None
    quantile = None
    if numeric:
        quantile = np.unique(np.quantile(hold[col].dropna(), np.linspace(0, 1, 11)))
        quantile[0], quantile[-1] = -np.inf, np.inf
    print(f"| {col} | " + " | ".join(
        f"{tv(hold[col], t[col], equal):.3f}" + ("" if equal is None else
                                                 f" / {tv(hold[col], t[col], quantile):.3f}")
        for t in tables.values()) + " |")
for name, pick in [("length > 600", lambda t: t["length"] > 600),
                   ("votes < 5", lambda t: t["votes"] < 5)]:
    print(f"| share {name} (holdout {pick(hold).mean():.4f}) | " +
          " | ".join(f"{pick(t).mean():.4f}" for t in tables.values()) + " |")
