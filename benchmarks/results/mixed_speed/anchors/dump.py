"""``python dump.py DIR``: ``movies.py``'s split (``DIR``) coded for upstream MST / AIM.

The training rows and the holdout at the 10 quantile bins of the holdout (the user-side
binning of ``../baseline.py``: ``cli_draft_workflow._user_codes``, a column binned when the
domain file gives it bounds, missing a code of its own, categories as their codes), written
to ``DIR/upstream/movies.npz`` in ``benchmarks/anchors_pgm.py``'s format (``codes``,
``cards``, ``holdout``, no target), for::

    /tmp/venv-mbi/bin/python benchmarks/anchors_pgm.py run --dir DIR/upstream \\
        --tables movies --relation replace --eps 1 --mech mst --save DIR/upstream_synth
    PYTHONPATH=. python benchmarks/results/aim_upstream_mixed/skdp_coded.py --run DIR \\
        --tables movies --upstream DIR/upstream_synth
"""
import os
import sys

import numpy as np

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from cli_draft_workflow import _user_codes  # noqa: E402
from split import read  # noqa: E402

folder = sys.argv[1]
_, numeric, tr, ho = read(folder)
(h, t), cards = _user_codes([ho, tr], numeric, "quantile", 10)
os.makedirs(os.path.join(folder, "upstream"), exist_ok=True)
np.savez(os.path.join(folder, "upstream", "movies.npz"), codes=t.astype(np.int64),
         cards=np.array(cards), holdout=h.astype(np.int64), target=-1, target_missing=-1)
print(f"movies: {t.shape[0]} x {t.shape[1]} training rows, {h.shape[0]} held out; "
      f"cards {cards}; cells {float(np.prod(np.array(cards, dtype=float))):.3g}")
