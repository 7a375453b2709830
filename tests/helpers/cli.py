"""Run the ``dmlpy`` command: in this process through ``dmlpy.cli.main`` (the ``run`` fixture: what the command
prints and returns, without a Python start-up and ``import dmlpy`` per call, which cost about a second each), or as
a subprocess, as a user would (``run_dmlpy``: for what only a process shows, such as ``python -m dmlpy``'s exit
status, signals, a closed standard input, the terminal's encoding, a command that opens an OpenCL device from
tests/unit)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import subprocess
import sys
import unicodedata
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dmlpy.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "descriptors"

Run = Callable[..., subprocess.CompletedProcess[str]]


def run_dmlpy(
    *args: str, cwd: Path = REPO, stdin: str | None = None, timeout: float = 120, memory: int | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m dmlpy ARGS`` with text output captured; ``memory`` bounds its address space (bytes), so that a
    command that reads without end fails with MemoryError instead of taking the machine's memory first."""

    def bound_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-m", "dmlpy", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=None if memory is None else bound_memory,
    )


def run_in_process(
    *args: str, cwd: Path = REPO, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``dmlpy ARGS`` as ``dmlpy.cli.main`` runs it here, in ``cwd``, with ``stdin`` (empty when None) as standard
    input, standard output and error captured as UTF-8 text streams (as a process's, so the commands escape what
    the encoding cannot hold) and Python's default warning filters (pytest's show deprecations a command would
    not), returned as ``run_dmlpy`` returns them (``timeout`` is ``run_dmlpy``'s, unused here). What native code
    writes to file descriptors 1 and 2 is not captured: test_process.py runs each command as a process too."""
    out, err = _text_stream(), _text_stream()
    redirected = contextlib.redirect_stdout(out), contextlib.redirect_stderr(err)
    with _working_directory(cwd), _standard_input(stdin or ""), redirected[0], redirected[1], _default_warnings():
        try:
            status = main(list(args))
        except SystemExit as exit_:  # argparse's usage errors and --help
            status = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
    return subprocess.CompletedProcess(["dmlpy", *args], status, _text_of(out), _text_of(err))


def _text_stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\n")


def _text_of(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")


@contextlib.contextmanager
def _default_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.resetwarnings()
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
            warnings.simplefilter("ignore", category)
        yield


@contextlib.contextmanager
def _working_directory(path: Path) -> Iterator[None]:
    previous = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


@contextlib.contextmanager
def _standard_input(text: str) -> Iterator[None]:
    previous = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin = previous


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
    """``run(*args)``: the command in this process (run_in_process)."""
    return run_in_process


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
