"""The import graph of the whole tree (``skdp/`` and ``benchmarks/``), read with :mod:`ast`.

* **Layers**: no module imports a module of a higher layer (an *upward* import), at
  module level or inside a function: the privacy core knows nothing of solvers, the
  solvers nothing of estimators, the estimators nothing of the command line
  (``LAYERS`` below, the order of docs/developer_guide.rst's "Layers").
* **No cycle**: no modules import each other, at module level or inside a function
  (a lazy import hides a cycle from the interpreter, not from the reader).
* **Self-contained solver families**: a module of one family (``skdp/solvers/<family>/``)
  imports no private (underscore) name of another family, and no private module of it;
  what several families need is public, in ``skdp/solvers/shared/`` (or the spec).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# bottom to top; a module belongs to the first rule whose prefix it starts with
LAYERS = [
    ("foundation", ("skdp.exceptions", "skdp._backend")),
    ("privacy core", ("skdp.privacy",)),
    ("solvers", ("skdp.solvers",)),
    ("estimator support", ("skdp._base", "skdp._validation", "skdp._partial_fit",
                           "skdp._dask", "skdp._partitions", "skdp._domain", "skdp._synth",
                           "skdp._search_in_fit")),
    ("estimators", ("skdp.minimax", "skdp.regression", "skdp.synthesizer",
                    "skdp.model_selection", "skdp.audit")),
    ("command line", ("skdp._cli", "skdp.__main__")),
    ("benchmarks", ("benchmarks",)),
]


def _modules():
    """``{dotted name: path}`` of every module of ``skdp/`` and ``benchmarks/``."""
    out = {}
    for path in sorted((ROOT / "skdp").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        out[f"benchmarks.{path.stem}"] = path
    return out


MODULES = _modules()


def _lazy_exports():
    """``{name: module}`` of ``skdp/__init__.py``'s ``_LAZY`` (``from skdp import X`` loads it)."""
    for node in ast.parse((ROOT / "skdp" / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "_LAZY":
            return {k: "skdp" + v for k, v in ast.literal_eval(node.value).items()}
    return {}


LAZY = _lazy_exports()


def _is_package(name):
    return MODULES[name].name == "__init__.py"


def _resolve(importer, node):
    """The modules of the tree an ``Import`` / ``ImportFrom`` node of ``importer`` loads,
    each with the names it takes from it and the dotted path as written (made absolute):
    ``[(module, names, path)]``."""
    if isinstance(node, ast.Import):
        targets = []
        for alias in node.names:
            name = alias.name
            if importer.startswith("benchmarks.") and f"benchmarks.{name}" in MODULES:
                name = f"benchmarks.{name}"  # a benchmark run as a script imports its siblings
            written = name
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name:
                targets.append((name, (), written))
        return targets
    if node.level:
        package = importer if _is_package(importer) else importer.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{node.module}" if node.module else package
    elif importer.startswith("benchmarks.") and f"benchmarks.{node.module}" in MODULES:
        base = f"benchmarks.{node.module}"
    else:
        base = node.module
    targets, names = [], []
    for alias in node.names:
        if f"{base}.{alias.name}" in MODULES:  # from package import submodule
            targets.append((f"{base}.{alias.name}", (), f"{base}.{alias.name}"))
        elif base == "skdp" and alias.name in LAZY:  # from skdp import KLAdaptiveRegressor
            targets.append((LAZY[alias.name], (alias.name,), LAZY[alias.name]))
        else:
            names.append(alias.name)
    written = base
    while base and base not in MODULES:
        base = base.rpartition(".")[0]
    if base and (names or not targets):
        targets.append((base, tuple(names), written))
    return targets


def _imports(name):
    """``[(line, target, names, at_module_level, path as written)]`` of the module ``name``."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    out = []

    def visit(node, top):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                for target, names, written in _resolve(name, child):
                    if target != name:
                        out.append((child.lineno, target, names, top, written))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, False)
            else:
                visit(child, top)  # if / try / with / class bodies run at import

    visit(tree, True)
    return out


IMPORTS = {name: _imports(name) for name in MODULES}


def _layer(name):
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return rank
    return None


def test_every_module_has_a_layer():
    missing = [name for name in MODULES if name != "skdp" and _layer(name) is None]
    assert not missing, f"modules in no layer of LAYERS: {missing}"


def test_no_upward_import():
    offenders = []
    for name, imports in IMPORTS.items():
        low = _layer(name)
        for line, target, *_ in imports:
            high = _layer(target)
            if low is not None and high is not None and high > low:
                offenders.append(f"{MODULES[name].relative_to(ROOT)}:{line}: {LAYERS[low][0]} "
                                 f"imports {target} ({LAYERS[high][0]})")
    assert not offenders, "upward imports:\n" + "\n".join(offenders)


def _cycles(edges):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return out


def test_no_import_cycle():
    edges = {name: sorted({target for _, target, *_ in imports})
             for name, imports in IMPORTS.items()}
    cycles = _cycles(edges)
    assert not cycles, "modules that import each other:\n" + "\n".join(
        " <-> ".join(cycle) for cycle in cycles)


def test_the_layer_check_sees_an_upward_import():
    node = ast.parse("from skdp import KLAdaptiveRegressor").body[0]
    ((target, names, _),) = _resolve("skdp.solvers.kl.gd", node)
    assert target == "skdp.regression" and _layer(target) > _layer("skdp.solvers.kl.gd")
    node = ast.parse("from ...privacy import Budget").body[0]
    ((target, names, _),) = _resolve("skdp.solvers.kl.gd", node)
    assert target == "skdp.privacy" and names == ("Budget",)


def test_the_cycle_check_sees_a_cycle():
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]


# ---------------------------------------------------------------------------
# Solver families
# ---------------------------------------------------------------------------
SHARED = {"spec", "shared"}  # below the families: what several of them use


def _family(name):
    parts = name.split(".")
    if len(parts) >= 3 and parts[:2] == ["skdp", "solvers"] and parts[2] not in SHARED:
        return parts[2]
    return None


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def _private_reaches(importer, target, names, written):
    """The private names, or private modules, of another family that an import takes."""
    other = _family(target)
    if other is None or other == _family(importer):
        return []
    private = [n for n in names if _private(n)]
    if any(_private(part) for part in written.split(".")[3:]):
        private.append(written)
    return private


def test_no_solver_family_imports_a_private_name_of_another():
    offenders = [f"{MODULES[name].relative_to(ROOT)}:{line}: "
                 f"{', '.join(private)} of solvers/{_family(target)}"
                 for name, imports in IMPORTS.items() if name.startswith("skdp.solvers.")
                 for line, target, names, _, written in imports
                 for private in [_private_reaches(name, target, names, written)] if private]
    assert not offenders, ("a solver family reaches into another's private names (make the "
                           "helper public in skdp/solvers/shared/):\n" + "\n".join(offenders))


@pytest.mark.parametrize("source, bad", [
    ("from ..minimax.euclidean import _grad", True),
    ("from skdp.solvers.minimax.euclidean import _grad", True),
    ("from ..minimax._helpers import grad", True),
    ("import skdp.solvers.minimax._helpers", True),
    ("from ..minimax.euclidean import grad", False),
    ("from .models import _private", False),
    ("from ..shared import _shared_but_private", False),
])
def test_the_family_check_sees_a_private_import(source, bad):
    node = ast.parse(source).body[0]
    found = [p for target, names, written in _resolve("skdp.solvers.kl.gd", node)
             for p in _private_reaches("skdp.solvers.kl.gd", target, names, written)]
    assert bool(found) == bad
