"""The README, the tour (docs/tour.md) and examples/ as tests: every example a reader sees runs.

- Every ```python block of a page runs, in order, in one namespace per page (the tour builds on earlier steps).
- Every ```console block is a transcript: each ``$ command`` runs in bash from the repository root with this
  interpreter's ``dmlpy`` and ``python`` first on PATH, and its stdout and stderr together must match the lines
  below it. A line ``...`` matches any number of lines, and ``...`` inside a line matches any text.
- Every ```sh block runs line by line and must exit 0, except ``make`` lines (``make test`` is this test suite and
  ``make demo`` runs ``dmlpy demo``, tested in tests/device/cli) and ``pip install`` lines (installing would
  change the environment under test; test_wheel_install.py installs the wheel into a folder of its own).
- ```cpp blocks are DirectML C++ for reading; each tour step must pair its Python with one.
- Every picture in docs/images is shown on the tour page (the README links to the tour).
- Every examples/*.py runs as a subprocess and must exit 0.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
README = REPO / "README.md"
TOUR = REPO / "docs" / "tour.md"
PAGES = (README, TOUR)
EXAMPLES = sorted((REPO / "examples").glob("*.py"))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
NOT_RUN = ("make ", "python -m pip install ")
"""Shell lines shown, not run (see the module docstring)."""


def blocks(language: str, page: Path) -> list[str]:
    return [body for lang, body in FENCE.findall(page.read_text(encoding="utf-8")) if lang == language]


def shell_env() -> dict[str, str]:
    """PATH with this interpreter's bin directory first, so `dmlpy` and `python` are the ones under test."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.pop("DMLPY_TRACEBACK", None)
    return env


@pytest.mark.parametrize(("page", "at_least"), [(README, 1), (TOUR, 10)], ids=lambda value: getattr(value, "name", ""))
def test_python_blocks_run_in_order(page: Path, at_least: int) -> None:
    sources = blocks("python", page)
    assert len(sources) >= at_least, f"{page.name} has lost its code"
    namespace: dict[str, object] = {"__name__": page.stem}
    started = time.perf_counter()
    for index, source in enumerate(sources):
        code = compile(source, f"{page.relative_to(REPO)} python block {index + 1}", "exec")
        exec(code, namespace)
    assert time.perf_counter() - started < 60, f"the code of {page.name} should run in seconds"


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


def _pattern(expected: list[str]) -> re.Pattern[str]:
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:.*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.compile("".join(parts))


def _transcripts() -> list[tuple[str, list[str]]]:
    commands: list[tuple[str, list[str]]] = []
    for body in (body for page in PAGES for body in blocks("console", page)):
        for line in body.splitlines():
            if line.startswith("$ "):
                commands.append((line[2:], []))
            else:
                assert commands, f"a console block must start with a command: {line!r}"
                commands[-1][1].append(line)
    return commands


@pytest.mark.parametrize(("command", "expected"), _transcripts(), ids=lambda value: str(value)[:60])
def test_console_transcripts(command: str, expected: list[str]) -> None:
    result = subprocess.run(
        ["bash", "-c", f"({command}) 2>&1"],
        cwd=REPO,
        env=shell_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = result.stdout
    assert "Traceback" not in output
    assert _pattern(expected).fullmatch(output), (
        f"$ {command}\n--- expected\n" + "\n".join(expected) + (f"\n--- got\n{output}")
    )


def _sh_lines() -> list[str]:
    lines = []
    for body in (body for page in PAGES for body in blocks("sh", page)):
        for line in body.splitlines():
            command = line.split("  #", 1)[0].strip()  # comments follow two spaces, as the pages write them
            if command and not command.startswith(NOT_RUN):
                lines.append(command)
    return lines


@pytest.mark.parametrize("command", _sh_lines())
def test_shell_lines(command: str) -> None:
    venv = REPO / ".venv" / "bin"
    if not venv.is_dir():  # another environment: use the interpreter under test
        command = command.replace(".venv/bin/", f"{Path(sys.executable).parent}/")
    result = subprocess.run(
        ["bash", "-c", command], cwd=REPO, env=shell_env(), capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def test_readme_keeps_the_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "## Set-up: two commands" in text
    setup = text.split("## Set-up: two commands", 1)[1]
    first = next(body for lang, body in FENCE.findall(setup) if lang == "sh")
    assert [line.split("#")[0].strip() for line in first.splitlines()] == ["make demo", "make test"]


def test_the_readme_installs_this_version() -> None:
    version = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    install = README.read_text(encoding="utf-8").split("## Install", 1)[1].split("\n## ", 1)[0]
    assert f"python -m pip install dmlpy-{version}-py3-none-any.whl" in install
    assert set(re.findall(r"^\| `(\w+)` \|", install, flags=re.MULTILINE)) == set(
        tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    ), "the README's table of extras is pyproject's"


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
