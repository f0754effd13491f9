"""``FB='NAME=VALUE,...' python wrap.py SCRIPT ARGS``: set module constants of
``skdp._domain.fine_bins`` (``fine.NAME`` for ``skdp._domain.fine``; values as JSON) and run
``SCRIPT`` with ``ARGS``. Screens of RESULTS "DoctorContacts' CLI gap after the spike bins";
``INT_SPLIT``, ``INT_SIGMAS``, ``INT_EXEMPT`` and ``fine.TILT`` exist only with ``proto.diff``
(this folder) applied; ``SPIKE_HEAVY`` is main's."""
import json
import os
import runpy
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, ROOT)

from skdp._domain import fine, fine_bins  # noqa: E402

for part in filter(None, os.environ.get("FB", "").split(",")):
    key, value = part.split("=")
    module, key = (fine, key[5:]) if key.startswith("fine.") else (fine_bins, key)
    setattr(module, key, json.loads(value))
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
runpy.run_path(script, run_name="__main__")
