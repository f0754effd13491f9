"""The linter's rules (pyproject's ``[tool.ruff]``) hold on the whole tree.

Run by the README's test command, so CI enforces them; ``ruff check .`` (or
pre-commit, ``.pre-commit-config.yaml``) shows the same findings locally.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _ruff():
    exe = shutil.which("ruff")
    if exe is not None:
        return [exe]
    pytest.importorskip("ruff")  # the test extra installs it
    return [sys.executable, "-m", "ruff"]


def test_ruff_finds_nothing():
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not run from a source checkout")
    done = subprocess.run([*_ruff(), "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
