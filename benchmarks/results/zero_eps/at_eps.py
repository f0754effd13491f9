"""``python at_eps.py EPS ARGS``: ``benchmarks/cli_api_gap.py ARGS`` at epsilon ``EPS`` (its
``EPSILON`` is a module constant, used by the fits and the independent baseline alike)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import cli_api_gap  # noqa: E402

cli_api_gap.EPSILON = float(sys.argv.pop(1))
print(f"<!-- epsilon {cli_api_gap.EPSILON} -->", flush=True)
cli_api_gap.main()
