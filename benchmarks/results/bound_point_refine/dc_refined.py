"""``python dc_refined.py CHECKOUT``: which DoctorContacts columns get a refined fine grid at
3,600 training rows, epsilon 0.5 (``smalln_check.py``'s split and domain; seeds 0-3), with the
skdp of CHECKOUT: the ledger's refinement entries and the refined columns (issue 30, "a
bound's point cell left out of the mass the cells spread", not adopted)."""
import os
import sys
import tempfile
import warnings

tree = os.path.abspath(sys.argv[1])
here = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path[:0] = [tree, here]
import pandas as pd  # noqa: E402
import skdp  # noqa: E402,F401  (the checkout's, before smalln_check puts this tree first)
import cli_api_gap as gap  # noqa: E402
import smalln_check as sc  # noqa: E402
from skdp.synthesizer import SaddlePointSynthesizer  # noqa: E402
from synth_real_tables import TABLES  # noqa: E402
from synth_resolution import DELTA, domain_of  # noqa: E402

assert skdp.__file__.startswith(tree), skdp.__file__
item = "DoctorContacts"
train, _ = sc.split(item, 3600)
bounds = dict(TABLES[(gap.PACKAGES[item], item)][0])
header = [c for c in train.columns if c not in TABLES[(gap.PACKAGES[item], item)][1]]
dom = domain_of(train[header], bounds)
src = os.path.join(tempfile.mkdtemp(), "train.csv")  # read back as smalln_check fits it
train[header].to_csv(src, index=False)
X = pd.read_csv(src)
for seed in range(4):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = SaddlePointSynthesizer(epsilon=0.5, delta=DELTA, domain=dom,
                                     random_state=seed).fit(X)
    refined = [c for c, r in est.resolution_.items() if r and r.get("refinement") is not None]
    print(seed, [e.label for e in est.privacy_ledger_.entries if "refine" in e.label], refined)
