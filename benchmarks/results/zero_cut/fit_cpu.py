"""``python fit_cpu.py TREE SEED...``: CPU seconds (process time) of the default fit of
``cli_api_gap.py`` (12,000 rows, curated domain, epsilon 1) on DoctorContacts, weather and
nassCDS, with the tree ``TREE`` first on the path."""
import os
import sys
import time
import warnings

tree = os.path.abspath(sys.argv[1])
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
import pandas as pd  # noqa: E402
import cli_api_gap as g  # noqa: E402
from skdp.synthesizer import SaddlePointSynthesizer  # noqa: E402

out = "/tmp/zc_fit_cpu"
os.makedirs(out, exist_ok=True)
for item in ("DoctorContacts", "weather", "nassCDS"):
    _, train, _ = g.split(item, 15000)
    cur, _, header = g.domains(item, train, out)
    train[header].to_csv(f"{out}/{item}.csv", index=False)
    train = pd.read_csv(f"{out}/{item}.csv")
    for seed in map(int, sys.argv[2:]):
        t0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain=cur,
                                   random_state=seed).fit(train)
        print(f"{item} {seed} {time.process_time() - t0:.2f}", flush=True)
