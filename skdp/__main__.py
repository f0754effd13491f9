"""Command line: ``python -m skdp synthesize`` and ``python -m skdp domain`` (see ``--help``).

The implementation lives in :mod:`skdp._cli`.
"""

import sys

from ._cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
