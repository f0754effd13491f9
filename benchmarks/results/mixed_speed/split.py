"""``movies.py``'s split read back for scoring: ``read(folder)`` gives the header, which
columns are numeric (the domain file gives them bounds), the training rows and the holdout
(``cli_draft_workflow._read_csv_rows``). The importing script puts the repository and
``benchmarks/`` on ``sys.path`` first."""
import json
import os

from cli_draft_workflow import _read_csv_rows


def read(folder):
    with open(os.path.join(folder, "domain.json")) as fh:
        domain = json.load(fh)
    with open(os.path.join(folder, "train.csv")) as fh:
        header = fh.readline().strip().split(",")
    numeric = ["low" in domain[c] for c in header]
    return (header, numeric, _read_csv_rows(os.path.join(folder, "train.csv")),
            _read_csv_rows(os.path.join(folder, "holdout.csv")))
