"""The README, the tour (docs/tour.md), the glossary (docs/glossary.md) and examples/ as tests: every example a
reader sees runs as written, and what the pages say is there is what the code has.

- Every ```python block of a page runs, in order, in one namespace per page (the tour builds on earlier steps),
  statement by statement. A shown value is checked: a ``print(...)`` line's trailing comment must be what that
  line printed, and so must the comment of an expression or ``name = ...`` statement that starts with a bracket,
  brace, ``<`` or quote (the value's ``str``). Whitespace is compared loosely (NumPy pads), ``...`` in a comment
  matches any text, and two spaces end the shown value: what follows is explanation.
- Every ```console block is a transcript: each ``$ command`` runs in bash from the repository root, and its stdout
  and stderr together must match the lines below it. A line ``...`` matches any number of lines, and ``...``
  inside a line matches any text. A page's transcripts start with ``$ . .venv/bin/activate``, and the test runs
  them that way: it sources the ``activate`` script of the interpreter under test (``.venv/bin/activate`` in
  ``make test``) for that line and before each later command, so ``dmlpy`` and ``python`` are the ones under test.
  Without an ``activate`` script (not a virtual environment) it does what the script does: the interpreter's bin
  directory first on PATH, VIRTUAL_ENV set.
- Every ```sh block runs line by line and must exit 0, except ``make`` lines (``make test`` is this test suite and
  ``make demo`` runs ``dmlpy demo``, tested in tests/device/cli), ``pip install`` lines (installing would change
  the environment under test; test_wheel_install.py installs the wheel into a folder of its own) and
  ``python -m build`` (test_wheel_install.py builds the wheel the same way, into a folder of its own), and the
  Round benchmark's smoke run (test_benchmark_smoke.py runs that very line and checks the report it writes). The
  README's wheel lines are checked as a sequence: install build, build, install the wheel of this version.
- ```cpp blocks are DirectML C++; each tour step pairs its Python with one. They are checked without a compiler,
  as one function body in page order (``CppChecker``): every name used is declared in its block or an earlier
  one, and declared once; ``.Get()``, ``.As()`` and ``->`` apply to ``ComPtr`` variables only; every ``DML_*``
  struct and field is DirectML.h's (the operator structs from tests/data/directml-elementwise/support.json, the
  others from ``HEADER_STRUCTS``), every ``DML_*`` enumerator one of dmlpy's enums (which carry DirectML.h's
  names and values: tests/unit/descriptors/test_enums.py); an aggregate initializer has at most as many values
  as its struct has fields; every call has an argument count its declaration takes (``FUNCTIONS``,
  ``INTERFACES``), and DirectMLX's functions take ``dml::Expression``s and a ``dml::Graph`` where DirectMLX.h
  says. A syntax check with ``g++ -fsyntax-only`` against stub headers was not chosen: the stubs would declare
  some forty names of DirectML.h, d3d12.h, WRL and DirectMLX.h by hand, a transcription no more authoritative than
  these tables, and need a compiler the suite does not otherwise need.
- The counts the pages state (operators, op types) are the code's: dmlpy.ops.OPERATORS, dmlpy.onnx.SUPPORTED_OPS
  and Microsoft's element-wise family (tests/data/directml-elementwise/support.json); what the README says does not
  run yet is absent from them.
- Every picture in docs/images is shown on the tour page (the README links to the tour).
- Every examples/*.py runs as a subprocess and must exit 0.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
import time
import tokenize
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import dmlpy as dml
from dmlpy.ops import OPERATORS
from tests.helpers.benchmarks import QUICK_ROUND_COMMAND
from tests.helpers.cpp_check import FENCE, HEADER_STRUCTS, check_cpp

REPO = Path(__file__).resolve().parents[3]
README = REPO / "README.md"
TOUR = REPO / "docs" / "tour.md"
GLOSSARY = REPO / "docs" / "glossary.md"
PAGES = (README, TOUR)
EXAMPLES = sorted((REPO / "examples").glob("*.py"))
NOT_RUN = ("make ", "python -m pip install ", "python -m build ")
"""Shell lines shown, not run (see the module docstring)."""
ACTIVATE = ". .venv/bin/activate"
"""The transcripts' first command: the virtual environment on PATH."""
ELEMENT_WISE = REPO / "tests" / "data" / "directml-elementwise" / "support.json"
"""Microsoft's element-wise operators (65 ELEMENT_WISE_*, CAST, 27 ACTIVATION_*), transcribed from DirectML.h and
the operator pages with their sources (tests/data/directml-elementwise/README.md)."""


def blocks(language: str, page: Path) -> list[str]:
    return [body for lang, body in FENCE.findall(page.read_text(encoding="utf-8")) if lang == language]


def flat(text: str) -> str:
    """Text with every run of whitespace one space: a phrase wrapped across lines reads as one line."""
    return " ".join(text.split())


def section(page: Path, heading: str) -> str:
    """The text of a page's ``## heading`` section."""
    return page.read_text(encoding="utf-8").split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


# ------------------------------------------------------------------------------------- the Python blocks


def _loose(text: str) -> str:
    """Shown output compared loosely: whitespace runs as one space, none inside brackets' ends (NumPy pads)."""
    text = flat(text)
    return re.sub(r" ([\])}])", r"\1", re.sub(r"([\[({]) ", r"\1", text))


def shows(comment: str, output: str) -> bool:
    """Whether ``comment`` starts with ``output``: the comment up to two spaces (or its end), ``...`` any text."""
    ends = [match.start() for match in re.finditer("  ", comment)] + [len(comment)]
    for end in ends:
        pattern = ".*?".join(re.escape(piece) for piece in _loose(comment[:end]).split("..."))
        if re.fullmatch(pattern, _loose(output), flags=re.DOTALL):
            return True
    return False


SHOWN_VALUE = tuple("[({<'\"")
"""A comment on an expression or assignment that starts with one of these shows the value."""


def _comments(source: str) -> dict[int, str]:
    """Each line's trailing comment, without the ``#``."""
    found = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = token.string[1:].strip()
    return found


@dataclass
class Shown:
    where: str
    comment: str
    output: str


def run_page(page: Path) -> list[Shown]:
    """Runs the page's Python blocks in order and returns every shown value with what the code printed."""
    namespace: dict[str, Any] = {"__name__": page.stem}
    printed: dict[tuple[str, int], list[str]] = {}

    def recording_print(*values: object, sep: str | None = " ", end: str | None = "\n", **options: Any) -> None:
        caller = sys._getframe(1)
        if options.get("file") is None:
            key = (caller.f_code.co_filename, caller.f_lineno)
            printed.setdefault(key, []).append((sep if sep is not None else " ").join(map(str, values)))
        builtins.print(*values, sep=sep, end=end, **options)

    namespace["print"] = recording_print
    checks: list[Shown] = []
    for index, source in enumerate(blocks("python", page)):
        name = f"{page.relative_to(REPO)} python block {index + 1}"
        comments = _comments(source)
        for statement in ast.parse(source, name).body:
            line = statement.end_lineno or statement.lineno
            comment = comments.get(line, "")
            shows_value = comment.startswith(SHOWN_VALUE) and not _is_print(statement)
            if shows_value and isinstance(statement, ast.Expr):
                value = eval(compile(ast.Expression(statement.value), name, "eval"), namespace)
                checks.append(Shown(f"{name}, line {line}", comment, str(value)))
                continue
            exec(compile(ast.Module([statement], type_ignores=[]), name, "exec"), namespace)
            if shows_value and isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
                value = namespace[statement.targets[0].id]
                checks.append(Shown(f"{name}, line {line}", comment, str(value)))
        for number, text in enumerate(source.splitlines(), start=1):
            if re.match(r"\s*print\(", text) and number in comments:
                outputs = printed.get((name, number))
                assert outputs, f"{name}, line {number}: shows output, but the line printed nothing"
                checks += [Shown(f"{name}, line {number}", comments[number], output) for output in outputs]
    namespace.pop("print")
    return checks


def _is_print(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Call)
        and isinstance(statement.value.func, ast.Name)
        and statement.value.func.id == "print"
    )


@pytest.mark.parametrize(
    ("page", "at_least"),
    [(README, (1, 4)), (TOUR, (10, 10)), (GLOSSARY, (3, 4))],
    ids=lambda v: getattr(v, "name", ""),
)
def test_python_blocks_run_in_order_and_print_what_they_show(page: Path, at_least: tuple[int, int]) -> None:
    assert len(blocks("python", page)) >= at_least[0], f"{page.name} has lost its code"
    started = time.perf_counter()
    checks = run_page(page)
    assert time.perf_counter() - started < 60, f"the code of {page.name} should run in seconds"
    assert len(checks) >= at_least[1], f"{page.name} shows fewer values than it did: {checks}"
    wrong = [check for check in checks if not shows(check.comment, check.output)]
    assert not wrong, "\n".join(
        f"{c.where}: the comment shows {c.comment!r}; the code printed {c.output!r}" for c in wrong
    )


def test_shown_output_is_compared_as_documented() -> None:
    assert shows("[-2. -2. -0.  0.  2.  2.]  halves to even", "[-2. -2. -0.  0.  2.  2.]")
    assert shows("[[5 -10 15] [50 -100 127]]  int8", "[[   5  -10   15]\n [  50 -100  127]]")
    assert shows("<dmlpy.Device ... at DML_FEATURE_LEVEL_6_4>  a note", "<dmlpy.Device x (y) at DML_FEATURE_LEVEL_6_4>")
    assert not shows("[-2. -2. -0.  0.  2.  2.]", "[-2. -2.  0.  0.  2.  2.]")
    assert not shows("valid", "invalid")


def test_every_tour_step_pairs_python_with_cpp() -> None:
    steps = [
        step
        for step in re.split(r"^## ", TOUR.read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]
        if re.match(r"\d+\. ", step)
    ]
    assert len(steps) >= 13
    for step in steps:
        title = step.splitlines()[0]
        languages = [lang for lang, _ in FENCE.findall(step)]
        assert "cpp" in languages, f"tour step {title!r} shows no DirectML C++"
        if "python" not in languages:
            assert "// DirectML has no" in step, f"tour step {title!r} has no Python"


def test_the_tour_names_what_its_dask_block_needs() -> None:
    """The Dask block fails in `make demo`'s .venv (dmlpy alone): the text right above it says which extra."""
    text = TOUR.read_text(encoding="utf-8")
    before = text[: text.index("```python\nimport dask")].rsplit("```", 1)[-1]
    assert "`dask` extra" in before and "'.[dask]'" in before and "make test" in before


# ------------------------------------------------------------------------------------- the transcripts


def _pattern(expected: list[str]) -> re.Pattern[str]:
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:.*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.compile("".join(parts))


def _transcripts() -> list[tuple[str, list[str], bool]]:
    """Each command of each page's console blocks, its expected lines, and whether the venv is active for it."""
    commands: list[tuple[str, list[str], bool]] = []
    for page in PAGES:
        active = False
        for body in blocks("console", page):
            for line in body.splitlines():
                if line.startswith("$ "):
                    commands.append((line[2:], [], active))
                    active = active or line[2:] == ACTIVATE
                else:
                    assert commands, f"a console block must start with a command: {line!r}"
                    commands[-1][1].append(line)
    return commands


def test_the_transcripts_start_by_activating_the_venv() -> None:
    first = next(line for body in blocks("console", TOUR) for line in body.splitlines())
    assert first == f"$ {ACTIVATE}", "the tour's transcripts need the virtual environment on PATH; say so first"


def shell(command: str, active: bool) -> tuple[list[str], dict[str, str]]:
    """bash running ``command`` from the repository root, after the venv's activate script where ``active`` (or
    the page's own activation line, given the interpreter under test's script)."""
    env = {key: value for key, value in os.environ.items() if key != "DMLPY_TRACEBACK"}
    bin_dir = Path(sys.executable).parent
    script = bin_dir / "activate"
    if command == ACTIVATE:
        command = f". {shlex.quote(str(script))}" if script.is_file() else "true"
    elif active and script.is_file():
        command = f". {shlex.quote(str(script))} && ({command})"
    elif active:  # not a virtual environment: what activate does
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = sys.prefix
    return ["bash", "-c", f"({command}) 2>&1"], env


@pytest.mark.parametrize(("command", "expected", "active"), _transcripts(), ids=lambda value: str(value)[:60])
def test_console_transcripts(command: str, expected: list[str], active: bool) -> None:
    argv, env = shell(command, active)
    result = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
    output = result.stdout
    assert "Traceback" not in output
    assert _pattern(expected).fullmatch(output), (
        f"$ {command}\n--- expected\n" + "\n".join(expected) + (f"\n--- got\n{output}")
    )


# ------------------------------------------------------------------------------------- the shell lines


def _sh_lines() -> list[str]:
    lines = []
    for body in (body for page in PAGES for body in blocks("sh", page)):
        for line in body.splitlines():
            command = line.split("  #", 1)[0].strip()  # comments follow two spaces, as the pages write them
            if command and not command.startswith(NOT_RUN) and command != QUICK_ROUND_COMMAND:
                lines.append(command)
    return lines


@pytest.mark.parametrize("command", _sh_lines())
def test_shell_lines(command: str) -> None:
    venv = REPO / ".venv" / "bin"
    if not venv.is_dir():  # another environment: use the interpreter under test
        command = command.replace(".venv/bin/", f"{Path(sys.executable).parent}/")
    env = {key: value for key, value in os.environ.items() if key != "DMLPY_TRACEBACK"}
    result = subprocess.run(
        ["bash", "-c", command], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_readme_keeps_the_two_setup_commands() -> None:
    setup = section(README, "Set-up: two commands")
    first = next(body for lang, body in FENCE.findall(setup) if lang == "sh")
    assert [line.split("#")[0].strip() for line in first.splitlines()] == ["make demo", "make test"]


def test_the_readme_builds_and_installs_this_version() -> None:
    """The wheel lines run in a fresh venv as written: `build` is installed before `python -m build` (which a
    fresh venv lacks: "No module named build"), and the wheel installed is this version's, where build writes it
    (`{srcdir}/dist`, as its --help says). test_wheel_install.py builds and installs the wheel itself."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    install = section(README, "Install")
    lines = [
        line.split("  #")[0].strip()
        for lang, body in FENCE.findall(install)
        if lang == "sh"
        for line in body.splitlines()
    ]
    wheel = f"dmlpy/dist/dmlpy-{project['version']}-py3-none-any.whl"
    sequence = ["python -m pip install build", "python -m build --wheel ./dmlpy", f"python -m pip install {wheel}"]
    assert all(line in lines for line in sequence), (sequence, lines)
    assert [lines.index(line) for line in sequence] == sorted(lines.index(line) for line in sequence), lines
    if importlib.util.find_spec("build") is not None:
        usage = subprocess.run([sys.executable, "-m", "build", "--help"], capture_output=True, text=True, check=True)
        assert "{srcdir}/dist" in flat(usage.stdout), "build no longer writes to {srcdir}/dist by default"
    assert set(re.findall(r"^\| `(\w+)` \|", install, flags=re.MULTILINE)) == set(project["optional-dependencies"]), (
        "the README's table of extras is pyproject's"
    )


# ------------------------------------------------------------------------------------- what the pages count


def onnx_op_types() -> list[str]:
    """The ONNX op types dmlpy.onnx runs: the table's ONNX_OPS, which are SUPPORTED_OPS (needs the onnx extra)."""
    types = [op_type for desc in OPERATORS.values() for op_type in desc.ONNX_OPS]
    if importlib.util.find_spec("onnx") is not None:
        from dmlpy.onnx import SUPPORTED_OPS

        assert sorted(SUPPORTED_OPS) == sorted(types)
    return types


def test_the_readme_says_what_runs_in_the_codes_numbers() -> None:
    microsoft = {op["enum"] for op in json.loads(ELEMENT_WISE.read_text(encoding="utf-8"))["ops"]}
    running = {operator: desc for operator, desc in OPERATORS.items() if desc.runs()}
    directml = {operator.c_name for operator, desc in running.items() if not desc.is_extension()}
    assert microsoft <= directml, f"the element-wise family is not whole: {sorted(microsoft - directml)}"
    structured = directml - microsoft - {"DML_OPERATOR_QUANTIZE", "DML_OPERATOR_DEQUANTIZE"}
    named: set[str] = set()
    families = ("**Data movement", "**Indexing and generators", "**Reductions", "**Normalizations", "**Matrix products")
    for family in families:
        bullet = flat(section(README, "What runs, and what does not yet")).split(family)[1].split("- **")[0]
        listed = {f"DML_OPERATOR_{name}" for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", bullet)}
        assert f"{len(listed)} operators" in bullet, family
        named |= listed
    assert named == structured, sorted(named ^ structured)

    def count(prefix: str) -> int:
        return sum(name.startswith(prefix) for name in microsoft)

    extensions = sum(desc.is_extension() for desc in OPERATORS.values())
    bounded = sum(desc.FLOAT32_ULPS > 0 for desc in OPERATORS.values())
    runs = flat(section(README, "What runs, and what does not yet"))
    for phrase in (
        f"DirectML's whole element-wise family, {len(microsoft)} operators",
        f"the {count('DML_OPERATOR_ELEMENT_WISE_')} `DML_OPERATOR_ELEMENT_WISE_*`",
        "`DML_OPERATOR_CAST`",
        f"the {count('DML_OPERATOR_ACTIVATION_')} `DML_OPERATOR_ACTIVATION_*`",
        "`DML_OPERATOR_QUANTIZE` and `DML_OPERATOR_DEQUANTIZE`",
        f"With {extensions} extensions",
        f"{len(running)} operators; [the operator list](docs/operators/index.md)",
        f"except in the {bounded} operators that compute a transcendental function",
        f"made of the {len(onnx_op_types())} ONNX op types",
    ):
        assert phrase in runs, f"the README should say {phrase!r}, as the code counts"
    assert count("DML_OPERATOR_ELEMENT_WISE_") + count("DML_OPERATOR_ACTIVATION_") + 1 == len(microsoft)


def test_what_the_readme_says_does_not_run_is_not_there() -> None:
    runs = flat(section(README, "What runs, and what does not yet"))
    validated_only = runs.split("**Described and validated")[1].split("**Not yet**")[0]
    named = {f"DML_OPERATOR_{name}" for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", validated_only)}
    not_run = {operator.c_name for operator, desc in OPERATORS.items() if not desc.runs()}
    assert f": {len(not_run)} of DirectML's operators that are not element-wise" in validated_only
    assert len(named) >= 10 and named <= not_run, sorted(named - not_run)
    op_types = re.findall(r"`([A-Z][a-z][A-Za-z]*)`", runs.split("**Not yet**")[1])
    assert len(op_types) >= 5 and not set(op_types) & set(onnx_op_types())
    assert "Loop" in op_types


def test_the_glossary_states_the_codes_constants_and_levels() -> None:
    """The glossary's alignment table gives dmlpy's constants (DirectML.h's values, tests/unit/descriptors), and its
    feature-level table names every dml.FeatureLevel with its value, once."""
    text = GLOSSARY.read_text(encoding="utf-8")
    for name in (
        "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT",
        "DML_TEMPORARY_BUFFER_ALIGNMENT",
        "DML_PERSISTENT_BUFFER_ALIGNMENT",
    ):
        assert f"| `{name}` | {getattr(dml, name)} |" in text, name
    table = section(GLOSSARY, "Feature level").split("\n| level |", 1)[1].split("\n\n", 1)[0]
    named = re.findall(r"`(\d_\d)`", table)
    values = re.findall(r"0x[0-9a-f]{4}", table)
    assert sorted(named) == sorted(level.name.removeprefix("FL_") for level in dml.FeatureLevel)
    assert sorted(values) == sorted(f"{level.value:#x}" for level in dml.FeatureLevel)
    assert [f"{int(v, 16):#x}"[2:3] + "_" + f"{int(v, 16):#x}"[3:4] for v in values] == named


def test_the_tour_counts_the_onnx_op_types() -> None:
    text = flat(TOUR.read_text(encoding="utf-8"))
    assert f"made of the {len(onnx_op_types())} ONNX op types of `dmlpy.onnx.SUPPORTED_OPS`" in text
    refused = re.search(r"a node of any other op type \(([^)]*)\)", text)
    assert refused is not None
    assert not set(re.findall(r"`(\w+)`", refused.group(1))) & set(onnx_op_types())
    assert "does not implement" not in text.split("## 13.")[0].split("## 11.")[1], "step 11: QUANTIZE is there"


# ------------------------------------------------------------------------------------- the C++ blocks


def test_the_tours_cpp_is_directml_as_declared() -> None:
    assert len(blocks("cpp", TOUR)) >= 14
    assert check_cpp(TOUR.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("cpp", "problem"),
    [
        ("DML_OPERATOR_DESC opDesc = {};\nopDesc.Get();", "opDesc.Get(): opDesc is a DML_OPERATOR_DESC, not a ComPtr"),
        ("DML_GRAPH_NODE_DESC node = {DML_GRAPH_NODE_TYPE_OPERATOR, roundOp.Get()};", "roundOp is used but not"),
        ("DML_TENSOR_DESC t = {};\nt->Desc;", "t->Desc: `->` on DML_TENSOR_DESC, not a ComPtr"),
        ("DML_TENSOR_DESC t = {};\nt.Sizes = nullptr;", "t.Sizes: DML_TENSOR_DESC has no field Sizes"),
        ("DML_ROUND_OPERATOR_DESC r = {};", "DML_ROUND_OPERATOR_DESC: no such struct or enum"),
        ("UINT n = DML_ROUNDING_MODE_HALF_UP;", "DML_ROUNDING_MODE_HALF_UP: no such enumerator"),
        ("DML_SCALE_BIAS sb = {1.0f, 0.0f, 2.0f};", "3 values initialize DML_SCALE_BIAS, which has 2 fields"),
        ("UINT a = 0;\nUINT a = 1;", "a is declared twice"),
        ("ComPtr<IDMLDevice> d;", "ComPtr without `using Microsoft::WRL::ComPtr`"),
        ("using Microsoft::WRL::ComPtr;\nComPtr<IDMLDevice> d;\nd->CompileGraph(nullptr);", "has no method"),
        ("using Microsoft::WRL::ComPtr;\nComPtr<IDMLDevice> d;\nd->CreateOperator(nullptr, nullptr);", "takes 3"),
        ("DML_TENSOR_DESC t = {};\ndml::Expression e = dml::Round(t);", "dml::Round takes dml::Expression there"),
        ("UINT p = 0;\nDMLCreateDevice1(nullptr, 0, 0, IID_PPV_ARGS(&p));", "IID_PPV_ARGS takes &comPtr"),
    ],
)
def test_the_cpp_check_finds_what_would_not_compile(cpp: str, problem: str) -> None:
    found = check_cpp(f"```cpp\n{cpp}\n```\n")
    assert any(problem in text for text in found), found


def test_the_header_tables_agree_with_dmlpys_mirrors() -> None:
    """HEADER_STRUCTS, transcribed from DirectML.h, against dmlpy's models of the same structs (their C aliases, in
    C order): two transcriptions that must agree."""
    mirrors: dict[str, Any] = {
        "DML_BUFFER_TENSOR_DESC": dml.BufferTensorDesc,
        "DML_SCALE_BIAS": dml.ScaleBias,
        "DML_BUFFER_BINDING": dml.BufferBinding,
        "DML_GRAPH_DESC": dml.GraphDesc,
        "DML_OPERATOR_GRAPH_NODE_DESC": dml.OperatorGraphNodeDesc,
        "DML_INPUT_GRAPH_EDGE_DESC": dml.InputGraphEdgeDesc,
        "DML_OUTPUT_GRAPH_EDGE_DESC": dml.OutputGraphEdgeDesc,
        "DML_INTERMEDIATE_GRAPH_EDGE_DESC": dml.IntermediateGraphEdgeDesc,
    }
    for struct, model in mirrors.items():
        aliases = tuple(field.alias or name for name, field in model.model_fields.items())
        assert aliases == HEADER_STRUCTS[struct], struct


# ------------------------------------------------------------------------------------- pictures, examples


def test_every_picture_is_shown_on_the_tour_page() -> None:
    """Moved from tests/device/pictures/test_readme_pictures.py with the tour: the README links to the tour, the
    tour shows the pictures."""
    shown = set(re.findall(r"\]\(images/([\w]+)\.svg\)", TOUR.read_text(encoding="utf-8")))
    assert shown == {image.stem for image in (REPO / "docs" / "images").glob("*.svg")}


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda path: path.name)
def test_example_runs(script: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip(), "an example should show what it did"


def test_examples_exist() -> None:
    assert {path.name for path in EXAMPLES} >= {"describe_and_validate.py", "object_model.py", "round_modes.py"}
