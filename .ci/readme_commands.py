"""The README's two commands, for ``.ci/run``; and a check of the main job's output.

``python .ci/readme_commands.py README.md`` prints the two commands of the
section "On a fresh machine: two commands" (the non-comment lines of its first
bash block), one per line: the main job, then the test command.
``python .ci/readme_commands.py --check-output synthetic.csv`` exits non-zero
unless the file is a CSV with a header and at least one row.
"""

import csv
import re
import sys

HEADING = "## On a fresh machine: two commands"


def commands(path):
    text = open(path, encoding="utf-8").read()
    section = text.split(HEADING, 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    lines = [line.strip() for line in block.splitlines()]
    found = [line for line in lines if line and not line.startswith("#")]
    if len(found) != 2:
        raise SystemExit(f"{path}: expected two commands under {HEADING!r}, found {found}")
    return found


def check_output(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    if len(rows) < 2 or not all(rows[0]):
        raise SystemExit(f"{path}: expected a header and rows, got {len(rows)} lines")
    print(f"{path}: {len(rows) - 1} rows of {len(rows[0])} columns")


if __name__ == "__main__":
    if sys.argv[1] == "--check-output":
        check_output(sys.argv[2])
    else:
        print("\n".join(commands(sys.argv[1])))
