"""No import cycle inside any package of dmlpy: within each package (``dmlpy`` itself, ``dmlpy/runtime``,
``dmlpy/ops``, ...), the modules it holds directly import one another along a graph without cycles. A subpackage
is one node of its parent's graph (a cycle between two of its own modules belongs to the subpackage), and an import
of a package means its ``__init__``. Imports count at any depth (inside functions, under ``if TYPE_CHECKING:``), as
in test_layers.py: a function-level import that dodges a cycle at run time is still the cycle.

Device-free; the checker is tested on synthetic sources below, so a broken checker cannot pass quietly.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from tests.unit.descriptors.test_layers import PACKAGE, package_sources


def module_name(path: str) -> str:
    """``dmlpy/ops/_base.py`` -> ``dmlpy.ops._base``; a package's ``__init__.py`` is the package's name."""
    parts = Path(path).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: str, source: str, modules: set[str]) -> Iterable[str]:
    """The modules of ``modules`` that ``source`` imports, at any depth: ``from M import n`` means ``M.n`` when
    that is a module, else ``M``; ``import a.b`` means ``a.b`` or its longest prefix that is a module."""
    package = module_name(path).split(".")
    if Path(path).name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - (node.level - 1)] if node.level else []
            origin = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names = [
                f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in modules else origin for alias in node.names
            ]
        else:
            continue
        for name in names:
            parts = name.split(".")
            found = next(
                (".".join(parts[:n]) for n in range(len(parts), 0, -1) if ".".join(parts[:n]) in modules), None
            )
            if found is not None:
                yield found


def cycles(sources: Mapping[str, str]) -> dict[str, list[list[str]]]:
    """For each package in ``sources`` (``dmlpy/...`` path -> Python source), the sets of its direct members that
    import one another in a cycle (strongly connected components of two or more), members sorted; packages with
    none are left out. A member is a module directly in the package, a subpackage, or ``__init__``."""
    modules = {module_name(path): path for path in sources}
    packages = sorted(module_name(path) for path in sources if Path(path).name == "__init__.py")
    edges = {module: set(imports_of(path, sources[path], set(modules))) for module, path in modules.items()}
    found: dict[str, list[list[str]]] = {}
    for package in packages:
        depth = package.count(".") + 1

        def member(module: str, package: str = package, depth: int = depth) -> str | None:
            if module == package:
                return "__init__"
            if not module.startswith(package + "."):
                return None
            return module.split(".")[depth]

        graph: dict[str, set[str]] = {}
        for module, targets in edges.items():
            source_member = member(module)
            if source_member is None:
                continue
            graph.setdefault(source_member, set())
            for target in targets:
                target_member = member(target)
                if target_member is not None and target_member != source_member:
                    graph[source_member].add(target_member)
        components = [sorted(c) for c in strongly_connected(graph) if len(c) > 1]
        if components:
            found[package] = sorted(components)
    return found


def strongly_connected(graph: Mapping[str, set[str]]) -> list[set[str]]:
    """Tarjan's strongly connected components of ``graph`` (node -> successors)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph.get(node, ())):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


PACKAGES = sorted(module_name(path) for path in package_sources() if Path(path).name == "__init__.py")


def test_every_package_is_checked() -> None:
    assert PACKAGE in PACKAGES and f"{PACKAGE}.ops" in PACKAGES and f"{PACKAGE}.runtime" in PACKAGES


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_inside_the_package(package: str) -> None:
    found = cycles(package_sources()).get(package, [])
    assert not found, f"import cycles inside {package}: " + "; ".join(" <-> ".join(c) for c in found)


# ------------------------------------------------------------------------------------- the checker, on synthetic trees


@pytest.mark.parametrize(
    ("tree", "expected"),
    [
        pytest.param(
            {
                "dmlpy/p/__init__.py": "",
                "dmlpy/p/a.py": "from dmlpy.p.b import x\n",
                "dmlpy/p/b.py": "import dmlpy.p.a\n",
            },
            {"dmlpy.p": [["a", "b"]]},
            id="two-modules",
        ),
        pytest.param(
            {
                "dmlpy/p/__init__.py": "",
                "dmlpy/p/a.py": "def f():\n    from .b import x\n",
                "dmlpy/p/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import c\n",
                "dmlpy/p/c.py": "from .a import f\n",
            },
            {"dmlpy.p": [["a", "b", "c"]]},
            id="function-level-and-type-checking-relative",
        ),
        pytest.param(
            {"dmlpy/p/__init__.py": "from .a import x\n", "dmlpy/p/a.py": "from dmlpy.p import y\n"},
            {"dmlpy.p": [["__init__", "a"]]},
            id="through-the-package-init",
        ),
        pytest.param(
            {
                "dmlpy/__init__.py": "",
                "dmlpy/low.py": "from dmlpy.p.a import x\n",
                "dmlpy/p/__init__.py": "",
                "dmlpy/p/a.py": "from dmlpy import low\n",
            },
            {"dmlpy": [["low", "p"]]},
            id="a-subpackage-is-one-node-of-its-parent",
        ),
    ],
)
def test_checker_finds_a_cycle(tree: dict[str, str], expected: dict[str, list[list[str]]]) -> None:
    assert cycles(tree) == expected


def test_checker_accepts_a_chain_and_imports_from_outside() -> None:
    tree = {
        "dmlpy/__init__.py": "from dmlpy.p import a\nimport numpy\n",
        "dmlpy/low.py": "import numpy as np\n",
        "dmlpy/p/__init__.py": "from .a import x\nfrom .b import y\n",
        "dmlpy/p/a.py": "from .b import y\nfrom dmlpy.low import np\n",
        "dmlpy/p/b.py": "from dmlpy import low\nfrom dmlpy.p.c import z\n",
        "dmlpy/p/c.py": "from dmlpy.low import np\n",
    }
    assert cycles(tree) == {}
