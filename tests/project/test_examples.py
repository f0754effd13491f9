"""The examples show their figures on a display and save them where there is none.

Every ``examples/plot_*.py`` ends with the same block (hidden from the rendered gallery by
sphinx-gallery's ignore markers): with an interactive matplotlib backend it calls
``plt.show()``; with a non-interactive one (Agg on a headless machine) it saves each open
figure as ``<example>_<k>.png`` in the current directory and prints the path; under
sphinx-gallery, which captures the figures itself, it writes nothing. The block is tested
here on a tiny script under the three conditions, and once in a real example.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("plot_*.py"))
BLOCK = re.compile(r"\n# sphinx_gallery_start_ignore\n.*?# sphinx_gallery_end_ignore\n", re.S)
TIMEOUT = 120  # seconds: a generous cap, never a timing assertion

# A backend module with a display of its own: its show() prints instead of opening a window.
FAKE_GUI = '''
from matplotlib.backend_bases import FigureManagerBase
from matplotlib.backends.backend_agg import FigureCanvasAgg as FigureCanvas

FigureManager = FigureManagerBase


def show(*args, **kwargs):
    print("shown")
'''


def _block(path):
    blocks = BLOCK.findall(path.read_text(encoding="utf-8"))
    assert len(blocks) == 1, f"{path.name}: expected one show-or-save block, found {len(blocks)}"
    return blocks[0]


def _run(args, cwd, backend=None, extra_path=()):
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "DISPLAY")}
    env["PYTHONPATH"] = os.pathsep.join([*map(str, extra_path), str(ROOT),
                                         env.get("PYTHONPATH", "")])
    env["OMP_NUM_THREADS"] = "1"
    if backend is not None:
        env["MPLBACKEND"] = backend
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT)


def test_every_example_ends_with_the_same_show_or_save_block():
    assert EXAMPLES, "no examples found"
    first = _block(EXAMPLES[0])
    for path in EXAMPLES:
        text = path.read_text(encoding="utf-8")
        assert _block(path) == first, f"{path.name}: its show-or-save block differs"
        assert text.endswith(first), f"{path.name}: the block must close the script"
        rest = BLOCK.sub("\n", text)
        assert "plt.show(" not in rest and ".savefig(" not in rest, (
            f"{path.name}: figures are shown or saved only by the closing block")


@pytest.fixture
def tiny(tmp_path):
    """A two-figure script ending with the examples' block, named like an example."""
    pytest.importorskip("matplotlib")
    script = tmp_path / "plot_tiny.py"
    script.write_text("import matplotlib.pyplot as plt\n\nplt.figure()\nplt.plot([0, 1])\n"
                      "plt.figure()\n" + _block(EXAMPLES[0]), encoding="utf-8")
    (tmp_path / "fakegui.py").write_text(FAKE_GUI, encoding="utf-8")
    return script


def _pngs(folder):
    return sorted(p.name for p in Path(folder).glob("*.png"))


def test_headless_saves_each_figure_in_the_current_directory(tiny, tmp_path):
    cwd = tmp_path / "run"
    cwd.mkdir()
    proc = _run([str(tiny)], cwd, backend="Agg")
    assert proc.returncode == 0, proc.stderr
    assert _pngs(cwd) == ["plot_tiny_1.png", "plot_tiny_2.png"]
    assert proc.stdout.split() == ["saved", "plot_tiny_1.png", "saved", "plot_tiny_2.png"]
    assert _pngs(tmp_path) == []  # not next to the script


def test_a_display_shows_and_saves_nothing(tiny, tmp_path):
    proc = _run([str(tiny)], tmp_path, backend="module://fakegui", extra_path=[tmp_path])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "shown"
    assert _pngs(tmp_path) == []


def test_under_sphinx_gallery_nothing_is_written(tiny, tmp_path):
    # sphinx-gallery runs an example in its source folder with the Agg backend and scrapes
    # the figures itself: the block must not add PNG files to the source tree.
    code = ("import runpy, sys, types; sys.modules['sphinx_gallery'] = "
            f"types.ModuleType('sphinx_gallery'); runpy.run_path({str(tiny)!r})")
    proc = _run(["-c", code], tmp_path, backend="Agg")
    assert proc.returncode == 0, proc.stderr
    assert _pngs(tmp_path) == [] and "saved" not in proc.stdout


def test_a_real_example_saves_its_figures_headless(tmp_path):
    pytest.importorskip("matplotlib")
    # the fastest example (about 7 s on a shared 2-core machine): three figures
    proc = _run([str(ROOT / "examples" / "plot_privacy_accounting.py")], tmp_path,
                backend="Agg")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _pngs(tmp_path) == [f"plot_privacy_accounting_{k}.png" for k in (1, 2, 3)]
    assert all((tmp_path / name).stat().st_size > 1000 for name in _pngs(tmp_path))
