"""``FB=NAME[,NAME] python switch.py EPS ARGS``: ``cli_api_gap.py ARGS`` at epsilon ``EPS`` with
the module switches of ``skdp._domain.fine_bins`` named in ``FB`` set True. The switches were
uncommitted work on branch ``finebins`` (RESULTS, issue 30: ``fine`` at other ``n_bins``):
``GROW`` (``_split_and_merge`` splits a heavy bin without a merge when no pair is near-empty),
``NEIGHBOURS`` (a heavy bin's spikes judged with the nearest spike on either side), ``MODE``
(as NEIGHBOURS, a grid's mode still starts a bin), ``MODE,NARROW`` (MODE for bins of one or
two spikes only: the committed rule, which ignores the switches; ``FB=""`` is main's code)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..", ".."), os.path.join(HERE, "..", "..")]
import cli_api_gap  # noqa: E402
import synth_resolution  # noqa: E402
from skdp._domain import fine_bins  # noqa: E402

for name in filter(None, os.environ.get("FB", "").split(",")):
    setattr(fine_bins, name, True)
cli_api_gap.EPSILON = synth_resolution.EPSILON = float(sys.argv.pop(1))
print(f"<!-- epsilon {cli_api_gap.EPSILON}, switches {os.environ.get('FB', '')} -->", flush=True)
cli_api_gap.main()
