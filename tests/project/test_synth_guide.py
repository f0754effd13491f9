"""The synthesizer's user guide (docs/user_guide/synthesizer.rst; issue 30, Acceptance):
resolution, the ``auto`` rule, structural zeros and the report each have a runnable
example, and every ``>>>`` example of the page runs and prints what the page says.

The Sphinx build does not run doctests (it executes the gallery), so this test does:
the page's examples in order, sharing one namespace, as ``doctest.testfile`` runs them.
"""

import doctest
import re
import warnings
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "user_guide" / "synthesizer.rst"
SECTIONS = {  # the label above each section that must hold a runnable example
    "synthesizer_forbid": "Structural zeros",
    "synthesizer_resolution": "Numeric columns at the resolution of the data",
    "synthesizer_report": "The release report",
}


def _section(text, title):
    """The text of the section (or subsection) titled ``title``, up to the next title of
    any level."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines[:-1])
                 if line.strip() == title and re.fullmatch(r"([=\-~^])\1{3,}", lines[i + 1]))
    end = next((i for i in range(start + 2, len(lines) - 1)
                if lines[i].strip() and re.fullmatch(r"([=\-~^])\1{3,}", lines[i + 1])
                and len(lines[i + 1]) >= len(lines[i].rstrip())), len(lines))
    return "\n".join(lines[start:end])


@pytest.mark.parametrize("title", list(SECTIONS.values()) + ["The ``auto`` rule"])
def test_each_topic_has_an_example(title):
    section = _section(GUIDE.read_text(encoding="utf-8"), title)
    assert ">>> " in section, f"section {title!r} of {GUIDE.name} has no runnable example"


def test_labels_point_at_the_sections():
    text = GUIDE.read_text(encoding="utf-8")
    for label, title in SECTIONS.items():
        assert re.search(rf"\.\. _{label}:\n\n{re.escape(title)}\n=+\n", text), label


def test_the_examples_run():
    pytest.importorskip("pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the examples' own warnings are not their output
        result = doctest.testfile(str(GUIDE), module_relative=False, report=True,
                                  optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 20
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
