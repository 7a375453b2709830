"""Run the ``dmlpy`` command as a subprocess, as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "descriptors"

Run = Callable[..., subprocess.CompletedProcess[str]]


def run_dmlpy(
    *args: str, cwd: Path = REPO, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m dmlpy ARGS`` with text output captured."""
    return subprocess.run(
        [sys.executable, "-m", "dmlpy", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], status: int, *fragments: str) -> None:
    """A failure reported as one line on stderr, no traceback, with the expected status and words."""
    assert result.returncode == status, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def hidden_characters(text: str) -> list[str]:
    """The characters of printed ``text`` that a terminal would act on or hide (controls, format characters such
    as bidi overrides, line separators, surrogates), other than the newlines the CLI writes between lines."""
    return [char for char in text if unicodedata.category(char) in {"Cc", "Cf", "Cs", "Zl", "Zp"} and char != "\n"]


@pytest.fixture
def run() -> Run:
    return run_dmlpy


@pytest.fixture
def write_json(tmp_path: Path) -> Callable[[Any], Path]:
    def write(value: Any, name: str = "desc.json") -> Path:
        path = tmp_path / name
        path.write_text(json.dumps(value), encoding="utf-8")
        return path

    return write


def round_desc(sizes: list[int], data_type: str = "FLOAT32", **extra: Any) -> dict[str, Any]:
    """A bare DML_ELEMENT_WISE_ROUND_OPERATOR_DESC in C field names."""
    tensor = {"DataType": data_type, "Sizes": sizes}
    return {"InputTensor": tensor, "OutputTensor": dict(tensor), **extra}
