"""``python switch.py ON EPS SCRIPT ARGS``: ``benchmarks/SCRIPT ARGS`` with
``skdp._domain.fine_bins.SPIKE_EDGES`` set (ON 0: off, 1: on, another number: on with
``SPIKE_HEAVY`` that number) and the scripts' ``EPSILON`` at ``EPS``
(cli_api_gap's fits and baseline; synth_resolution's likewise)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", ".."), os.path.join(HERE, "..", "..", "..")]
import skdp._domain.fine_bins as fine_bins  # noqa: E402

on = float(sys.argv.pop(1))  # 0: off; 1: on (SPIKE_HEAVY = HEAVY); other: on at SPIKE_HEAVY
fine_bins.SPIKE_EDGES = on > 0
fine_bins.SPIKE_HEAVY = fine_bins.HEAVY if on in (0, 1) else on
eps = float(sys.argv.pop(1))
import cli_api_gap  # noqa: E402
import synth_resolution  # noqa: E402

cli_api_gap.EPSILON = synth_resolution.EPSILON = eps
script = sys.argv.pop(1)
print(f"<!-- SPIKE_EDGES {fine_bins.SPIKE_EDGES} (SPIKE_HEAVY {fine_bins.SPIKE_HEAVY}), "
      f"epsilon {eps}, {script} -->", flush=True)
sys.argv[0] = script
{"cli_api_gap.py": cli_api_gap.main, "synth_resolution.py": synth_resolution.main}[script]()
