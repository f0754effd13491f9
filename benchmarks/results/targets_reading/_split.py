"""``cli_targets.py``'s split of ``TABLE`` in ``OUT`` read back: ``read(out, item)`` gives the
file prefix, the curated domain's header and numeric columns, the training rows and the
holdout. The importing script puts the repository and ``benchmarks/`` on ``sys.path`` first."""
import json
import os

from cli_draft_workflow import _read_csv_rows


def read(out, item):
    path = os.path.join(out, item)
    with open(f"{path}.curated.json") as fh:
        cur = json.load(fh)
    header = list(cur)
    return (path, header, ["low" in cur[c] for c in header],
            _read_csv_rows(f"{path}.train.csv"), _read_csv_rows(f"{path}.holdout.csv"))
