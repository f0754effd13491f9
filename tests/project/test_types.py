"""The type check (pyproject's ``[tool.mypy]``) holds on the package.

Every module's annotated functions, and the unannotated bodies of the
privacy core (``skdp.privacy``, the backend, the audit). Run by the README's
test command, so CI enforces it; ``mypy`` in the repository root (or
pre-commit) shows the same findings locally.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_finds_nothing(tmp_path):
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not run from a source checkout")
    pytest.importorskip("mypy")  # the test extra installs it
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
