"""aim's (or mst's) first 1-way measurements split equally or by the columns' cells (issue 30).

On the validation tables of ``synth_validation.py`` (none a benchmark or reserved table):
``SaddlePointSynthesizer(solver=S, solver_options=dict(oneway_split=SPLIT))``, every other
option at its default; per fit one JSON line with the mean 2-way TV of ``sample()`` against
the table and the mean workload error (the model's own 2-way marginals), as
``aim_round_iter.py`` reports them. One stream per split::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/aim_oneway_split.py --split cells
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aim_round_iter import common_args, run  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["equal", "cells"], required=True)
    parser.add_argument("--solver", choices=["aim", "mst"], default="aim")
    common_args(parser)
    args = parser.parse_args(argv)
    run(args, args.solver, dict(oneway_split=args.split), split=args.split)
    return 0


if __name__ == "__main__":
    sys.exit(main())
