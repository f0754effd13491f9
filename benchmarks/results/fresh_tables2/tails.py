"""``python tails.py DIR T SEED COLUMN...``: where a fresh table's numeric columns lose their
1-way error (``DIR``: a ``cli_draft_workflow.py --curated`` output folder): the fit of the
CLI's default on ``DIR/T.train.csv`` with ``DIR/T.edited.json`` (seed ``SEED``), per column the
released spikes (value, noisy count, the training rows' count), the model's bins with the
training rows' and the synthetic rows' counts and the model's 1-way measurement (noisy counts,
sds), and the synthetic rows outside the training rows' range. Reads the private rows: a
diagnosis, not a release."""
import json
import sys

import numpy as np
import pandas as pd

from skdp import SaddlePointSynthesizer

folder, table, seed, columns = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
train = pd.read_csv(f"{folder}/{table}.train.csv")
domain = json.load(open(f"{folder}/{table}.edited.json"))
est = SaddlePointSynthesizer(epsilon=1, delta=1e-6, domain=domain, random_state=seed).fit(train)
syn = est.sample(len(train))
names = list(domain)
for c in columns:
    x, y = train[c].dropna().to_numpy(), pd.to_numeric(syn[c]).dropna().to_numpy()
    res = est.resolution_[c]
    spikes = res.get("spikes") or {"values": [], "counts": []}
    print(f"{c}: sigma {np.atleast_1d(res['sigma'])[0]:.1f}, threshold "
          f"{res.get('spike_threshold') or 0:.0f}, spikes (value, released, true) "
          f"{[(v, round(n), int((x == v).sum())) for v, n in zip(*spikes.values())]}")
    edges = np.asarray(est.bin_edges_[c], dtype=float)
    print(f"  model bins {np.round(edges).astype(int).tolist()}")
    print(f"  training  {np.histogram(x, edges)[0].tolist()}")
    print(f"  synthetic {np.histogram(y, edges)[0].tolist()}")
    for m in est.measurements_:
        if list(m["marginal"]) in ([c], [names.index(c)]):
            noisy = np.round(np.asarray(m["counts"], float)).astype(int).tolist()
            print(f"  1-way measurement {noisy}, sd {np.round(np.atleast_1d(m['sigma'])).tolist()}")
    print(f"  synthetic below / above the training range: {(y < x.min()).sum()} / "
          f"{(y > x.max()).sum()} of {len(y)}")
