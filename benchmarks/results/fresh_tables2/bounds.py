"""``python bounds.py DIR TABLE...``: rows at exactly a public bound (or beyond it, clipped to it)
in the training rows and
in the synthetic rows of an ``at_eps.py`` output folder (``DIR``; config ``curated``, every seed
found), per numeric column where the synthetic rows hold at least 5 times as many at a bound as
the training rows (at least 1): what a curator sees as values at the bound that the data do not
have. Mean over seeds, and the total over the table's flagged columns."""
import glob
import json
import os
import sys

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..")]
from cli_draft_workflow import CURATED, curate  # noqa: E402

folder = sys.argv[1]
for table in sys.argv[2:]:
    domain = curate(json.load(open(f"{folder}/{table}.draft.json")), CURATED[table][1])
    train = pd.read_csv(f"{folder}/{table}.train.csv")
    synth = [pd.read_csv(p) for p in sorted(glob.glob(f"{folder}/{table}.curated.s*.csv"))]
    flagged, total = [], 0.0
    for name, entry in domain.items():
        if "low" not in entry:
            continue
        x = pd.to_numeric(train[name])  # a value beyond a bound is read as the bound
        real = [int((x <= entry["low"]).sum()), int((x >= entry["high"]).sum())]
        fake = [np.mean([(pd.to_numeric(s[name]) == entry[b]).sum() for s in synth])
                for b in ("low", "high")]
        if any(f >= 5 * max(r, 1) for r, f in zip(real, fake)):
            flagged.append(f"{name} [{entry['low']}, {entry['high']}]: training {real[0]} / "
                           f"{real[1]}, synthetic {fake[0]:.0f} / {fake[1]:.0f}")
            total += sum(f for r, f in zip(real, fake) if f >= 5 * max(r, 1))
    print(f"{table} ({len(synth)} seeds, {len(train)} rows): {total:.0f} rows at a bound "
          f"the data do not hold; " + ("; ".join(flagged) or "none"))
