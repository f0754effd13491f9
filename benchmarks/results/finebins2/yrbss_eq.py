import sys
import os
import warnings
import hashlib

sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "benchmarks")]
import pandas as pd
from synth_resolution import domain_of, TABLES, raw_table
from skdp.synthesizer import SaddlePointSynthesizer

t = ("openintro", "yrbss")
df = raw_table(*t)
dom = domain_of(df, TABLES[t][0])
for seed in (0, 1):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = SaddlePointSynthesizer(epsilon=1.0, delta=1e-6, domain=dom, random_state=seed).fit(df)
    out = s.sample(len(df), random_state=seed)
    print(
        seed,
        {k: len(v) for k, v in s.bin_edges_.items()},
        {k: r.get("cells", len(r.get("values", []))) for k, r in s.resolution_.items()},
        hashlib.sha1(pd.util.hash_pandas_object(out, index=True).values.tobytes()).hexdigest()[:12],
    )
