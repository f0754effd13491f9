"""``python weather_flip.py NEAR_EMPTY FINEMEAS ARGS``: ``synth_resolution.py ARGS`` with
``skdp._domain.fine_bins.NEAR_EMPTY`` set and, with ``FINEMEAS`` 0, commit 2eaeaac undone:
the fine release's 1-way measurement of the model (``synthesizer._fine_oneways``) left out
and values placed by one projection over the whole grid (``_within_bins`` a no-op): which
of the two changes since 3c79bd6 moved weather's ``fine`` against ``uniform`` (issue 30)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "..")]  # skdp from PYTHONPATH (main)
import skdp._domain.fine_bins as fine_bins  # noqa: E402
import skdp.synthesizer as synthesizer  # noqa: E402

fine_bins.NEAR_EMPTY = float(sys.argv.pop(1))
if not int(sys.argv.pop(1)):
    synthesizer._fine_oneways = lambda columns: None
    synthesizer.SaddlePointSynthesizer._within_bins = lambda self, columns: None
import synth_resolution  # noqa: E402

print(f"<!-- NEAR_EMPTY {fine_bins.NEAR_EMPTY}, fine 1-way measurement "
      f"{synthesizer._fine_oneways.__name__ != '<lambda>'} -->", flush=True)
synth_resolution.main()
