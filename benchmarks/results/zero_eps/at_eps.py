"""``python at_eps.py EPS ARGS``: ``benchmarks/cli_api_gap.py ARGS`` at epsilon ``EPS`` (its
``EPSILON`` is a module constant used by the fits; the independent baseline reads
``synth_resolution.EPSILON``, so both are set; before 2026-11-28 only the first was: RESULTS)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import cli_api_gap  # noqa: E402
import synth_resolution  # noqa: E402

cli_api_gap.EPSILON = synth_resolution.EPSILON = float(sys.argv.pop(1))
print(f"<!-- epsilon {cli_api_gap.EPSILON} -->", flush=True)
cli_api_gap.main()
