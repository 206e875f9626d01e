"""The import graph of the package: no cycle, and surfaces use only public names.

Imports flow one way (docs/conventions.md, "Layers"): measures <- estimator plumbing <-
tuning <- surfaces. The graph is read from the source with :mod:`ast` (every import, also
those inside functions, which is where the package imports lazily); ``from . import name`` is
resolved through ``predstab._EXPORTS`` to the module that defines ``name``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "src" / "predstab"


def _modules():
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()
# the command line (a package), the demo, the plots and the scikit-learn scorer
SURFACES = (*sorted(m for m in MODULES if m == "predstab.cli" or m.startswith("predstab.cli.")),
            "predstab._demo", "predstab.plotting", "predstab._scorer")
# what the surfaces may use of the core besides public names: files in and out, the gate that
# decides what an input means (issue 32: the CLI keeps no checks of its own), the progress bar,
# where warnings point and the quiet Ctrl-C while the command starts
IO_LAYER = ("predstab._core._reading", "predstab._core._writing", "predstab._core._progress",
            "predstab._core._exceptions", "predstab._core._gate", "predstab._core._startup")
# imports of private names by surfaces, as found when this test was written; the list may only
# shrink (a new private import fails the test). Empty now: keep it so.
KNOWN = set()


EXPORTS = {name: "predstab" + module for name, module in
           re.findall(r'"(\w+)": "(\.[\w.]+)"', (ROOT / "__init__.py").read_text(encoding="utf-8"))}


def _relative_base(name, path):
    """The package a module's relative imports start from."""
    return name if path.name == "__init__.py" else name.rsplit(".", 1)[0]


def _from_module(node, package):
    """The absolute module of a ``from ... import`` node (relative ones resolved in ``package``)."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    return ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))


def _imports(name, path):
    """``[(target module, imported name or None)]`` of every import in the module."""
    package = _relative_base(name, path)
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(alias.name, None) for alias in node.names if alias.name.startswith("predstab")]
        elif isinstance(node, ast.ImportFrom):
            module = _from_module(node, package)
            if not module.startswith("predstab"):
                continue
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                if sub in MODULES:  # from . import _demo
                    out.append((sub, None))
                elif module == "predstab" and alias.name in EXPORTS:  # from . import phi
                    out.append((EXPORTS[alias.name], alias.name))
                else:
                    out.append((module, alias.name))
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def test_the_import_graph_has_no_cycle():
    # the package __init__ re-exports lazily (every public name): it is the top, not a layer
    edges = {m: {t for t, _ in targets if t in MODULES and t != "predstab" and t != m}
             for m, targets in GRAPH.items() if m != "predstab"}
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for t in sorted(edges.get(m, ())):
            if state.get(t) == "open":
                cycles.append(stack[stack.index(t):] + [t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = "done"

    for m in sorted(edges):
        if m not in state:
            visit(m)
    assert not cycles, " ; ".join(" -> ".join(c) for c in cycles)


def test_the_graph_reader_sees_lazy_imports():
    # the reader itself: the CLI's tuning commands import _demo inside a function (``from .. import
    # _demo``), _demo the public tune_num_learners
    assert ("predstab._demo", None) in GRAPH["predstab.cli._tuning"]
    assert ("predstab.ensembles._tune", "tune_num_learners") in GRAPH["predstab._demo"]


def _private_imports(surface, *, strict):
    """Imports of ``surface`` that reach past the public API (the I/O layer and other surfaces
    excepted): a name beginning with ``_``, a private module imported whole, and (``strict``) any
    name taken from a private module that the package does not export."""
    bad = set()
    for target, name in GRAPH[surface]:
        if target in IO_LAYER or target in SURFACES or target == surface or "." not in target:
            continue  # the I/O layer, another surface, or the package itself (its public names)
        private_module = target.rsplit(".", 1)[1].startswith("_")
        if name is None:
            if private_module:
                bad.add((surface, target, None))
        elif name.startswith("_") or (strict and private_module and EXPORTS.get(name) != target):
            bad.add((surface, target, name))
    return bad


@pytest.mark.parametrize("surface", SURFACES)
def test_surfaces_import_no_private_name_except_the_io_layer(surface):
    bad = _private_imports(surface, strict=False)
    assert bad <= KNOWN, sorted(bad - KNOWN)


@pytest.mark.parametrize("surface", [s for s in SURFACES if s.startswith(("predstab.cli", "predstab._demo"))])
def test_cli_and_demo_use_only_public_names(surface):
    # predstab tune / demo: tune_num_learners and the I/O layer, nothing of _tune / _pool / _twopl
    assert _private_imports(surface, strict=True) == set()


def _upward_imports(name, path):
    """Imports of a surface by a lower module, with the name of the enclosing function."""
    package = _relative_base(name, path)
    found = []

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.ImportFrom) and child.level:
                module = _from_module(child, package)
                targets = [module] + [f"{module}.{a.name}" for a in child.names]
                for t in targets:
                    if t in SURFACES:
                        found.append((t, function))
            elif isinstance(child, ast.Import):
                found.extend((a.name, function) for a in child.names if a.name in SURFACES)
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), None)
    return found


def test_lower_layers_reach_a_surface_only_from_a_plot_method():
    # results draw themselves (``res.plot()``, as pandas objects do): the one upward edge allowed
    # is a lazy import of predstab.plotting inside a method named ``plot``; nothing else of the
    # core imports a surface, and plotting imports none of the modules that do (no cycle above)
    upward = {}
    for name, path in MODULES.items():
        if name in SURFACES or name in ("predstab", "predstab.__main__"):  # __main__ runs the CLI
            continue
        for target, function in _upward_imports(name, path):
            upward.setdefault(name, set()).add((target, function))
    assert upward, "the reader found no result that plots itself"
    for name, edges in upward.items():
        assert edges <= {("predstab.plotting", "plot")}, (name, sorted(edges, key=str))


# ---------------------------------------------------------------------------- domain packages
# One house by domain (issue 24): the core is the floor; agreement coefficients sit on it,
# stability measures on those, ensembles (refits, pools, tuning) on top; compare stands beside
# them on the core alone. A package imports only itself and the packages below it (the lazy
# ``plot`` methods' import of predstab.plotting is checked above).
RANK = {"_core": 0, "agreement": 1, "stability": 2, "ensembles": 3}
ALLOWED = {package: {p for p, r in RANK.items() if r <= rank} for package, rank in RANK.items()}
ALLOWED["compare"] = {"_core", "compare"}


def _package(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else None  # predstab.<package>.<module>


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_domain_package_imports_only_itself_and_the_packages_below(package):
    bad = set()
    for name, targets in GRAPH.items():
        if _package(name) != package:
            continue
        for target, imported in targets:
            if target == "predstab.plotting":
                continue  # a result's plot method (test above)
            other = _package(target) if target.count(".") >= 2 else target.split(".")[-1]
            if target == "predstab" or other not in ALLOWED[package]:
                bad.add((name, target, imported))
    assert not bad, sorted(bad, key=str)


def test_every_module_lives_in_a_domain_package_or_is_one_of_few_at_the_top():
    # at most 10 modules loose at the top of src/predstab (issue 24); the command line is a
    # package of its own, a surface (checked above: public names and the I/O layer only)
    loose = sorted(p.name for p in ROOT.glob("*.py"))
    assert len(loose) <= 10, loose
    packages = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(ALLOWED) | {"cli"}, packages


# modules still over 800 lines while their owners split them (issue 24, phase 2); the list may
# only shrink: a module split below 800 lines must leave it (the test says so)
LONG_PENDING: set = set()  # every module is 800 lines or fewer


def test_no_module_is_longer_than_800_lines():
    # issue 24: a module a reader can hold in mind; split by what the code does, not at line 800
    long = {p.relative_to(ROOT).as_posix(): n for p in ROOT.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert set(long) <= LONG_PENDING, {m: n for m, n in long.items() if m not in LONG_PENDING}
    done = LONG_PENDING - set(long)
    assert not done, f"{sorted(done)} are 800 lines or fewer now: remove them from LONG_PENDING"


# ---------------------------------------------------------------------------- function shapes
# issue 24 item 4: no private function with more than 8 parameters (a frozen dataclass of
# inputs instead) and no function-level import of predstab modules, except a lazy import that
# breaks a cycle or defers a heavy optional dependency, listed with its reason.
MAX_PRIVATE_PARAMETERS = 8
LAZY_IMPORTS_ALLOWED = {
    # (module, function, imported module): why the import waits for the call
    ("predstab.compare._ranks", "plot", "predstab.plotting"):
        "a result draws itself: the one upward edge to a surface, from a plot method (matplotlib)",
    ("predstab.ensembles._tune_result", "plot", "predstab.plotting"):
        "a result draws itself: the one upward edge to a surface, from a plot method (matplotlib)",
    ("predstab.stability._result", "plot", "predstab.plotting"):
        "a result draws itself: the one upward edge to a surface, from a plot method (matplotlib)",
}
# what may still break the rules (empty: a new entry needs a reason and a plan)
SHAPES_PENDING: set = set()  # every private function has at most 8 parameters; no lazy import is pending


def _function_shapes(name, path):
    """``{(module, function, "parameters" or the imported predstab module)}``: private functions
    (not dunders) with more than 8 parameters besides ``self`` / ``cls`` (positional-only,
    positional and keyword-only), and imports of predstab modules inside any function."""
    package = _relative_base(name, path)
    found = set()

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = child.args
                params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs
                          if a.arg not in ("self", "cls")]
                dunder = child.name.startswith("__") and child.name.endswith("__")
                if child.name.startswith("_") and not dunder and len(params) > MAX_PRIVATE_PARAMETERS:
                    found.add((name, child.name, "parameters"))
                visit(child, child.name)
                continue
            if function is not None and isinstance(child, ast.ImportFrom):
                module = _from_module(child, package)
                if module.split(".")[0] == "predstab":
                    found.add((name, function, module))
            elif function is not None and isinstance(child, ast.Import):
                found.update((name, function, a.name) for a in child.names
                             if a.name.split(".")[0] == "predstab")
            visit(child, function)

    visit(ast.parse(path.read_text(encoding="utf-8")), None)
    return found


def test_private_functions_take_few_parameters_and_import_nothing_of_predstab_inside():
    found = set().union(*(_function_shapes(name, path) for name, path in MODULES.items()))
    # the reader itself: a nested function and a method are walked, a lazy import is seen
    assert ("predstab.stability._result", "plot", "predstab.plotting") in found
    bad = found - set(LAZY_IMPORTS_ALLOWED) - SHAPES_PENDING
    assert not bad, sorted(bad)
    done = SHAPES_PENDING - found
    assert not done, f"{sorted(done)} are fixed: remove them from SHAPES_PENDING"
    assert set(LAZY_IMPORTS_ALLOWED) <= found, sorted(set(LAZY_IMPORTS_ALLOWED) - found)
