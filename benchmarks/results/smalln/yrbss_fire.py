"""``python yrbss_fire.py``: whether either rule (``resolution_share='auto'``,
``resolution_refine='auto'``) fires on yrbss (the API benchmark's whole table, its public
bounds; seed 0, epsilon 0.5 / 1 / 5): the fine releases in the ledger and their share of the
fit's zCDP."""
import os
import sys
import warnings

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
import synth_resolution as sr  # noqa: E402
from synth_real_tables import TABLES, raw_table  # noqa: E402

from skdp.synthesizer import SaddlePointSynthesizer  # noqa: E402

table = next(t for t in TABLES if t[1] == "yrbss")
df = raw_table(*table)
dom = sr.domain_of(df, TABLES[table][0])
for eps in (0.5, 1.0, 5.0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SaddlePointSynthesizer(epsilon=eps, delta=1e-6, domain=dom,
                                     random_state=0).fit(df)
    entries = est.privacy_ledger_.entries
    tot = sum(e.rho * e.count for e in entries if hasattr(e, "rho"))
    print(eps, len(df), [(e.label, round(e.rho * e.count / tot, 3)) for e in entries
                         if "fine" in e.label])
