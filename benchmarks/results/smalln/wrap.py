"""``python wrap.py SET:module.NAME=value ... ARGS``: ``benchmarks/smalln_check.py ARGS``
with module constants set first (a screen's throw-away switch, e.g.
``SET:skdp._domain.fine.AUTO_MIN_CELLS=32``)."""
import ast
import importlib
import os
import runpy
import sys

sets = [a for a in sys.argv[1:] if a.startswith("SET:")]
sys.argv = [sys.argv[0]] + [a for a in sys.argv[1:] if not a.startswith("SET:")]
tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree]
for s in sets:
    path, val = s[4:].split("=")
    mod, name = path.rsplit(".", 1)
    setattr(importlib.import_module(mod), name, ast.literal_eval(val))
    print("set", path, val)
sys.argv[0] = os.path.join(tree, "benchmarks", "smalln_check.py")
runpy.run_path(sys.argv[0], run_name="__main__")
