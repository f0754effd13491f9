"""Per numeric column, seed 0: cells m, the noisy mean count a cell (sum / m) over the median
noise sd, and how many cells Base-Cut k=1 would cut, at the CLI benchmark's sizes."""
import sys

import numpy as np

sys.path.insert(0, "benchmarks")
import cli_api_gap as g  # noqa: E402
from skdp.solvers.synth import mst_aim, released  # noqa: E402

orig = released.near_zero


def probe(ones, columns, k, *a, **kw):
    for m in ones:
        if len(m.cols) == 1 and m.cols[0] in columns:
            sd = np.median(np.broadcast_to(m.sigma, m.values.shape))
            print(f"  col {m.cols[0]:2d} m={m.values.size:3d} mean/sd={m.values.mean() / sd:6.2f} "
                  f"cut@1sd={(m.values < sd).sum()}")
    return orig(ones, columns, k, *a, **kw)


mst_aim.near_zero = probe
import pandas as pd  # noqa: E402

for rows in (1250, 3750, 15000):
    for item in ("DoctorContacts", "weather", "nassCDS"):
        _, train, hold = g.split(item, rows)
        cur, api, header = g.domains(item, train, "/tmp/zs_probe")
        train[header].to_csv("/tmp/zs_probe/t.csv", index=False)
        print(item, rows)
        g.fit_sample(pd.read_csv("/tmp/zs_probe/t.csv"), cur, 0,
                     {"solver_options": {"zero_below": 1}}, 10)
