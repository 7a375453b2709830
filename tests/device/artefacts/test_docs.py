"""The documentation: the API reference site builds in strict mode, every public name has a docstring that
names what it mirrors in DirectML (or says it is dmlpy's own), every public name has a place in the API
reference, and ``dir(dmlpy)`` / ``help(dmlpy)`` show the whole API, the lazily loaded runtime included, without
importing pyopencl.
"""

from __future__ import annotations

import ast
import html
import importlib.util
import inspect
import itertools
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dmlpy
from dmlpy.about import ARRAY_NAMES, RUNTIME_NAMES
from dmlpy.graph.operators import BUILDERS

REPO = Path(__file__).resolve().parents[3]
PACKAGE_DIR = REPO / "dmlpy"
API_PAGES = sorted((REPO / "docs" / "api").glob("*.md"))

MIRRORS = re.compile(
    r"DML_|IDML|DMLCalc|DMLCreate|HRESULT|DXGI_ERROR_|E_INVALIDARG|E_OUTOFMEMORY"  # what DirectML calls it
    r"|dmlpy extension|not DirectML|dmlpy's"  # or: dmlpy's own
)


def public_names() -> list[str]:
    return [name for name in dir(dmlpy) if not name.startswith("_")]


def _attribute_docstrings() -> dict[str, str]:
    """Module-level ``NAME = value`` followed by a string, in every module of dmlpy: how constants (ints,
    dicts) carry docstrings, as mkdocstrings reads them."""
    docs: dict[str, str] = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        for node, following in itertools.pairwise(body):
            target = node.target if isinstance(node, ast.AnnAssign) else None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
            if (
                isinstance(target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs.setdefault(target.id, following.value.value)
    return docs


def docstring_of(name: str, attribute_docs: dict[str, str]) -> str | None:
    value = getattr(dmlpy, name)
    if inspect.isclass(value):
        return value.__dict__.get("__doc__")  # its own, not a base class's
    if inspect.isroutine(value) or inspect.ismodule(value):
        return value.__doc__
    return attribute_docs.get(name)


# ------------------------------------------------------------------------------------------ docstrings of the API


def test_every_public_name_has_a_docstring_naming_what_it_mirrors() -> None:
    attribute_docs = _attribute_docstrings()
    names = public_names()
    assert set(RUNTIME_NAMES) <= set(names) and "BufferTensorDesc" in names
    missing = [name for name in names if not (docstring_of(name, attribute_docs) or "").strip()]
    assert not missing, f"public names without a docstring: {missing}"
    unnamed = [name for name in names if not MIRRORS.search(docstring_of(name, attribute_docs) or "")]
    assert not unnamed, (
        f"these docstrings name no DirectML struct, enum or call (DML_..., IDML..., DMLCalc..., an HRESULT) and "
        f"do not say they are dmlpy's own ('dmlpy extension', 'not DirectML', \"dmlpy's\"): {unnamed}"
    )


def api_entries() -> set[str]:
    """The names the API reference pages give an entry (``::: dmlpy.X``)."""
    return {
        line.removeprefix("::: ").strip()
        for page in API_PAGES
        for line in page.read_text(encoding="utf-8").splitlines()
        if line.startswith("::: ")
    }


def test_every_public_name_is_in_the_api_reference() -> None:
    documented = api_entries()
    absent = [
        name
        for name in public_names()
        if not {f"dmlpy.{name}", f"dmlpy.runtime.{name}", f"dmlpy.arrays.{name}", f"dmlpy.extensions.{name}"}
        & documented
    ]
    assert not absent, f"public names with no ::: entry in docs/api/: {absent}"
    # The graph builder's functions come from the operator table: each has its entry too.
    undocumented = [name for name in BUILDERS if f"dmlpy.graph.{name}" not in documented]
    assert not undocumented, f"dml.graph functions with no ::: entry in docs/api/: {undocumented}"
    # The subpackages a user imports by name: every name their __all__ offers.
    import dmlpy.onnx

    for package in (dmlpy.graph, dmlpy.onnx):
        missing = [
            name
            for name in package.__all__
            if f"{package.__name__}.{name}" not in documented
            and not (f"dmlpy.{name}" in documented and getattr(dmlpy, name, None) is getattr(package, name))
        ]
        assert not missing, f"{package.__name__} names with no ::: entry in docs/api/: {missing}"


def test_a_field_typo_raises_a_documented_class() -> None:
    with pytest.raises(dmlpy.DmlError) as raised:
        dmlpy.BufferTensorDesc(data_typ="FLOAT32", sizes=(1, 2))
    assert "did you mean DataType?" in str(raised.value)
    name = type(raised.value).__name__
    assert getattr(dmlpy, name) is type(raised.value) and name in dmlpy.__all__
    assert f"dmlpy.{name}" in api_entries()


# ------------------------------------------------------------------------------ dir() and help() without OpenCL

INTROSPECT = """
import pydoc
import sys

import dmlpy
from dmlpy.about import LAZY_NAMES, RUNTIME_NAMES

names = dir(dmlpy)
for name in ("round", "create_device", "Buffer", "Device", "quantize_linear", "BufferTensorDesc", "validate"):
    assert name in names, name
assert set(LAZY_NAMES) <= set(names)
assert "pyopencl" not in sys.modules and "dmlpy.runtime" not in sys.modules and "dmlpy.arrays" not in sys.modules

text = pydoc.render_doc(dmlpy, renderer=pydoc.plaintext)
for name in LAZY_NAMES:
    assert f"dmlpy.{name}" in text, name
for name in ("BufferTensorDesc", "ElementWiseRoundOperatorDesc", "validate", "RoundingMode"):
    assert name in text, name
assert "pyopencl" not in sys.modules and "dmlpy.runtime" not in sys.modules, "help(dmlpy) loaded the runtime"

assert dmlpy.round is __import__("dmlpy.arrays").arrays.round   # and the names still work
assert dmlpy.Device is __import__("dmlpy.runtime").runtime.Device
print("OK")
"""


def test_dir_and_help_show_the_runtime_names_without_importing_pyopencl(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(INTROSPECT)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "OK"


@pytest.mark.parametrize(("package", "names"), [("runtime", RUNTIME_NAMES), ("arrays", ARRAY_NAMES)])
def test_the_lazy_packages_export_exactly_their_names(package: str, names: tuple[str, ...]) -> None:
    # dmlpy.runtime's __all__ is RUNTIME_NAMES and dmlpy.arrays's ARRAY_NAMES; type checkers read their
    # `import X as X` re-exports instead, so those must be the same names.
    module = importlib.import_module(f"dmlpy.{package}")

    assert list(module.__all__) == list(names)
    tree = ast.parse((PACKAGE_DIR / package / "__init__.py").read_text(encoding="utf-8"))
    reexported = {
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.asname == alias.name
    }
    assert reexported == set(names)
    assert len(set(names)) == len(names)
    assert not set(RUNTIME_NAMES) & set(ARRAY_NAMES)


# ------------------------------------------------------------------------------------------------- the site


def test_docs_build_in_strict_mode(tmp_path: Path) -> None:
    """What `make docs` runs. Strict: any warning (a broken link or anchor, an API entry mkdocstrings cannot
    find, a page left out of the nav) fails the build."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings_handlers") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("mkdocs and mkdocstrings[python] are dev dependencies: pip install -e '.[dev]'")
        pytest.skip("mkdocs or mkdocstrings[python] is not installed (pip install -e '.[dev]')")
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    pages = {path.relative_to(site).as_posix() for path in site.rglob("index.html")}
    expected = {"index.html", "tour/index.html", "glossary/index.html", "modes/index.html", "conformance/index.html"}
    expected |= {"architecture/index.html", "reliability/index.html", "api/index.html"}
    expected |= {f"api/{page.stem}/index.html" for page in API_PAGES if page.stem != "index"}
    assert expected <= pages, sorted(expected - pages)
    one_liners = (site / "api" / "one-liners" / "index.html").read_text(encoding="utf-8")
    assert 'id="dmlpy.arrays.quantize_linear"' in one_liners
    tour = (site / "tour" / "index.html").read_text(encoding="utf-8")
    assert "DMLCalcBufferTensorSize" in tour and "DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC" in tour
    # Every ::: entry rendered: its heading's id is on its page.
    for page in API_PAGES:
        html = (site / "api" / ("" if page.stem == "index" else page.stem) / "index.html").read_text(encoding="utf-8")
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("::: "):
                assert f'id="{line.removeprefix("::: ").strip()}"' in html, (page.name, line)
    # A descriptor's signature lists its fields (docs/hooks/griffe_builders.py), not pydantic's **data.
    graphs = html_text((site / "api" / "graphs" / "index.html").read_text(encoding="utf-8"))
    assert "GraphDesc(**data" not in graphs
    assert re.search(r"GraphDesc\(\s*\*,\s*input_count: UInt32 = 0,\s*output_count: UInt32 = 0,", graphs), graphs[:2000]
    descriptors = html_text((site / "api" / "descriptors" / "index.html").read_text(encoding="utf-8"))
    assert re.search(r"BufferTensorDesc\(\s*\*,\s*data_type: TensorDataType \| ExtTensorDataType,", descriptors)
    assert "rounding_mode: RoundingMode = RoundingMode.HALVES_TO_NEAREST_EVEN" in descriptors


def html_text(page: str) -> str:
    """A page's text as a reader sees it: tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


# ------------------------------------------------------------------------------------------ the operator list


def test_the_docs_operator_list_is_the_operator_table() -> None:
    """docs/operators/index.md lists what dmlpy.ops.OPERATORS declares (scripts/operator_list.py writes it), and
    names every operator of the table, its builder function and its ONNX op types."""
    spec = importlib.util.spec_from_file_location("operator_list", REPO / "scripts" / "operator_list.py")
    assert spec is not None and spec.loader is not None
    operator_list = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(operator_list)
    page = (REPO / "docs" / "operators" / "index.md").read_text(encoding="utf-8")
    assert operator_list.with_list(page) == page, "run python scripts/operator_list.py to rewrite the list"
    from dmlpy.ops import OPERATORS

    rows = [line for line in page.splitlines() if line.startswith("| ") and "`" in line.split("|")[1]]
    assert len(rows) == len(OPERATORS)
    for row, (operator_type, desc) in zip(rows, OPERATORS.items(), strict=True):
        assert f"`{operator_type.c_name}`" in row and f"`{desc.__name__}`" in row
        assert (f"`{desc.BUILDER_NAME}`" if desc.BUILDER_NAME else "| - |") in row
        assert all(op_type in row for op_type in desc.ONNX_OPS)


# --------------------------------------------------------------------------- what every package has: its metadata


def test_version_license_and_changelog_agree_with_pyproject() -> None:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    version = project["version"]
    assert dmlpy.__version__ == version, "reinstall (pip install -e '.[dev]') after changing pyproject's version"
    result = subprocess.run(
        [sys.executable, "-m", "dmlpy", "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, f"dmlpy {version}\n", "")

    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    assert (REPO / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")

    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "Keep a Changelog" in changelog
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", changelog, flags=re.MULTILINE)
    assert releases and releases[0][0] == version, f"CHANGELOG.md's newest release is {releases[:1]}, not {version}"
    # Keep a Changelog's order: what is not released yet on top, then each release, newest first.
    headings = re.findall(r"^## (.+)$", changelog, flags=re.MULTILINE)
    assert headings[0] == "[Unreleased]" and len(headings) == len(releases) + 1, headings
    numbers = [tuple(int(part) for part in number.split(".")) for number, _ in releases]
    dates = [date for _, date in releases]
    assert numbers == sorted(numbers, reverse=True) and dates == sorted(dates, reverse=True), releases
