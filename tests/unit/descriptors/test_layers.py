"""dmlpy's modules import only downward: each module belongs to a layer, and no module imports a module of a
higher layer (the same layer is fine). Only ``dmlpy/runtime`` and ``dmlpy/arrays`` import pyopencl. Every
``.py`` file under ``dmlpy/`` is parsed with ``ast``; imports count at any depth (inside functions, under
``if TYPE_CHECKING:``).

Device-free; the checker itself is tested on synthetic sources below, so a broken checker cannot pass quietly.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

import dmlpy

PACKAGE = "dmlpy"
PACKAGE_DIR = Path(dmlpy.__file__).resolve().parent

LAYERS: tuple[tuple[str, ...], ...] = (
    # about: the version, lazy names; lru: the one cache; nibbles: 4-bit packing; attribute_docs: the models' field
    # descriptions, from the docstrings under the fields; ml_types: ml_dtypes' types, imported when first needed
    ("errors", "about", "lru", "ml_types", "nibbles", "attribute_docs"),
    # enum_base: DmlEnum, DmlFlag; problems: the translation of pydantic's errors into C field paths the models apply
    ("enum_base", "enums", "problems"),
    ("model",),
    ("dtypes", "drawing"),  # drawing (a package): SVG pictures from plain numbers, below every model that shows one
    ("tensor", "quantization_blocks", "quantization_values"),  # blocked quantization's split shapes (ints only);
    # quantization_values: a scale's or zero point's values checked as their type holds them
    ("support",),
    ("kernels",),  # the package: KernelSpec, coalescing, launch profiles, the element-wise source generator
    ("binding",),
    ("modes",),
    ("ops",),  # the package dmlpy/ops, every module in it
    ("extensions",),  # a façade over ops for the operators that are not DirectML's
    ("graph",),  # the package: DML_GRAPH_DESC and its rules, the fusion plan, the DirectMLX-style builder
    ("messages", "layout", "descriptors_json", "cpp"),  # pure helpers; cpp: DirectML C++ for a descriptor (printing)
    ("runtime",),  # the package: the DirectML object model on OpenCL
    ("arrays",),  # the package: the one-liners over host and device arrays, Dask, devices= splitting
    ("cli", "onnx"),  # the command line; the ONNX backend (a package, every module in it)
    ("__init__", "__main__"),  # the package root
)
"""Lowest first. A name is a top-level module or package of dmlpy, and each one exists (a test below checks)."""
LAYER_OF = {name: index for index, names in enumerate(LAYERS) for name in names}
OPENCL_UNITS = ("runtime", "arrays")
OPENCL_ONLY = " and ".join(f"dmlpy/{unit}" for unit in OPENCL_UNITS)


def unit_of(path: str) -> str:
    """The layer unit of a file given as ``dmlpy/...``: its top-level module or package under dmlpy."""
    parts = Path(path).with_suffix("").parts
    assert parts[0] == PACKAGE, path
    return "__init__" if len(parts) == 2 and parts[1] == "__init__" else parts[1]


def _module_of(path: str) -> tuple[str, ...]:
    """The dotted module name of a file, as parts (``dmlpy/ops/__init__.py`` -> ``("dmlpy", "ops")``)."""
    parts = Path(path).with_suffix("").parts
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported_modules(path: str, tree: ast.AST, units: set[str]) -> Iterable[tuple[int, str]]:
    """(line, absolute dotted name) of every module ``tree`` imports, at any depth. ``from X import name``
    yields ``X.name`` when ``name`` is one of dmlpy's top-level ``units`` imported from the package root."""
    package = _module_of(path) if Path(path).name == "__init__.py" else _module_of(path)[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            else:
                module = node.module or ""
            if module == PACKAGE:
                for alias in node.names:
                    yield node.lineno, f"{PACKAGE}.{alias.name}" if alias.name in units else PACKAGE
            else:
                yield node.lineno, module


def violations(sources: Mapping[str, str]) -> list[str]:
    """Every upward import and every import of pyopencl outside the runtime in ``sources`` (``dmlpy/...`` path
    -> Python source), and every module with no layer; one line each, naming file, line and both layers."""
    units = {unit_of(path) for path in sources}
    problems = [
        f"{path}: module {unit_of(path)!r} has no layer; add it to LAYERS in {Path(__file__).name}"
        for path in sorted(sources)
        if unit_of(path) not in LAYER_OF
    ]
    for path, source in sorted(sources.items()):
        unit = unit_of(path)
        if unit not in LAYER_OF:
            continue
        for line, module in imported_modules(path, ast.parse(source, filename=path), units):
            top = module.split(".")[0]
            if top == "pyopencl" and unit not in OPENCL_UNITS:
                problems.append(f"{path}:{line}: {unit!r} imports {module}; only {OPENCL_ONLY} may")
            if top != PACKAGE:
                continue
            parts = module.split(".")
            target = parts[1] if len(parts) > 1 else "__init__"
            if target not in LAYER_OF:
                continue  # reported above when it is a module of the tree; else the import fails by itself
            if LAYER_OF[target] > LAYER_OF[unit]:
                problems.append(
                    f"{path}:{line}: {unit!r} (layer {LAYER_OF[unit]}) imports {module} "
                    f"({target!r}, layer {LAYER_OF[target]}): a lower layer must not import a higher one"
                )
    return problems


def package_sources() -> dict[str, str]:
    files = sorted(PACKAGE_DIR.rglob("*.py"))
    return {f"{PACKAGE}/{f.relative_to(PACKAGE_DIR).as_posix()}": f.read_text(encoding="utf-8") for f in files}


def test_the_package_is_found() -> None:
    sources = package_sources()
    assert f"{PACKAGE}/__init__.py" in sources and f"{PACKAGE}/enums.py" in sources
    assert any(path.startswith(f"{PACKAGE}/ops/") for path in sources)
    assert any(path.startswith(f"{PACKAGE}/runtime/") for path in sources)


def test_every_layer_name_is_a_module_of_the_package() -> None:
    units = {unit_of(path) for path in package_sources()}
    assert not set(LAYER_OF) - units, f"LAYERS names modules dmlpy no longer has: {sorted(set(LAYER_OF) - units)}"


def test_modules_import_only_lower_or_same_layers_and_only_the_runtime_imports_pyopencl() -> None:
    problems = violations(package_sources())
    assert not problems, f"{len(problems)} layering problems:\n" + "\n".join(problems)


# ------------------------------------------------------------------------------------- the checker, on synthetic trees


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        pytest.param(
            "dmlpy/tensor.py",
            "from dmlpy.extensions import ExtTensorDataType\n",
            "dmlpy/tensor.py:1: 'tensor' (layer 4) imports dmlpy.extensions ('extensions', layer 10)",
            id="from-import",
        ),
        pytest.param(
            "dmlpy/enums.py",
            "import dmlpy.runtime.device\n",
            "dmlpy/enums.py:1: 'enums' (layer 1) imports dmlpy.runtime.device ('runtime', layer 13)",
            id="plain-import",
        ),
        pytest.param(
            "dmlpy/ops/_base.py",
            "def f():\n    from dmlpy.cli import main\n",
            "dmlpy/ops/_base.py:2: 'ops' (layer 9) imports dmlpy.cli ('cli', layer 15)",
            id="inside-a-function",
        ),
        pytest.param(
            "dmlpy/modes.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from dmlpy.extensions import X\n",
            "dmlpy/modes.py:3: 'modes' (layer 8) imports dmlpy.extensions ('extensions', layer 10)",
            id="type-checking",
        ),
        pytest.param(
            "dmlpy/ops/element_wise_round.py",
            "from ..runtime import device\n",
            "dmlpy/ops/element_wise_round.py:1: 'ops' (layer 9) imports dmlpy.runtime ('runtime', layer 13)",
            id="relative",
        ),
        pytest.param(
            "dmlpy/kernels/spec.py",
            "from dmlpy import runtime\n",
            "dmlpy/kernels/spec.py:1: 'kernels' (layer 6) imports dmlpy.runtime ('runtime', layer 13)",
            id="from-package-root-a-submodule",
        ),
        pytest.param(
            "dmlpy/binding.py",
            "from dmlpy import BufferTensorDesc\n",
            "dmlpy/binding.py:1: 'binding' (layer 7) imports dmlpy ('__init__', layer 16)",
            id="from-package-root-a-name",
        ),
        pytest.param(
            "dmlpy/kernels/spec.py",
            "import pyopencl as cl\n",
            "dmlpy/kernels/spec.py:1: 'kernels' imports pyopencl; only dmlpy/runtime and dmlpy/arrays may",
            id="pyopencl",
        ),
        pytest.param(
            "dmlpy/cli/devices.py",
            "def f():\n    import pyopencl.tools\n",
            "dmlpy/cli/devices.py:2: 'cli' imports pyopencl.tools; only dmlpy/runtime and dmlpy/arrays may",
            id="pyopencl-lazily",
        ),
        pytest.param(
            "dmlpy/runtime/device.py",
            "from dmlpy.arrays.runner import run\n",
            "dmlpy/runtime/device.py:1: 'runtime' (layer 13) imports dmlpy.arrays.runner ('arrays', layer 14)",
            id="the-object-model-imports-the-one-liners",
        ),
    ],
)
def test_checker_reports_a_bad_import(path: str, source: str, expected: str) -> None:
    tree = {path: source, "dmlpy/runtime/__init__.py": "", "dmlpy/cli/__init__.py": ""}
    problems = violations(tree)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_checker_names_a_module_without_a_layer() -> None:
    problems = violations({"dmlpy/newthing.py": "import numpy\n", "dmlpy/enums.py": "from dmlpy import newthing\n"})
    assert problems == ["dmlpy/newthing.py: module 'newthing' has no layer; add it to LAYERS in test_layers.py"]


def test_checker_accepts_downward_and_same_layer_imports() -> None:
    tree = {
        "dmlpy/__init__.py": "from dmlpy import ops\nfrom dmlpy.runtime import *\n",
        "dmlpy/__main__.py": "from dmlpy.cli import main\n",
        "dmlpy/ops/__init__.py": "from dmlpy.ops._base import X\nfrom . import _base\n",
        "dmlpy/ops/_base.py": "from dmlpy.kernels import coalesce\nfrom dmlpy.enums import OperatorType\n",
        "dmlpy/messages.py": "from dmlpy.layout import describe\nfrom dmlpy.modes import ALIAS_OF\n",
        "dmlpy/runtime/device.py": "import pyopencl as cl\nfrom dmlpy.ops import OperatorDesc\n",
        "dmlpy/cli/round.py": "def f():\n    from dmlpy.arrays import round\n",
        "dmlpy/arrays/runner.py": "import pyopencl as cl\nfrom dmlpy.runtime.device import Device\n",
        "dmlpy/kernels/spec.py": "import numpy\nfrom typing import TYPE_CHECKING\n",
    }
    assert violations(tree) == []


def test_relative_imports_resolve_against_the_package() -> None:
    tree = ast.parse("from . import x\nfrom .y import z\nfrom .. import w\n")
    found = list(imported_modules("dmlpy/ops/sub.py", tree, {"ops", "w"}))
    assert found == [(1, "dmlpy.ops"), (2, "dmlpy.ops.y"), (3, "dmlpy.w")]
    found = list(imported_modules("dmlpy/ops/__init__.py", tree, {"ops", "w"}))
    assert found == [(1, "dmlpy.ops"), (2, "dmlpy.ops.y"), (3, "dmlpy.w")]
