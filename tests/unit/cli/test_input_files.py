"""What `validate` and `explain` read (issue 42): a regular file only, opened without blocking, so a device, FIFO,
socket or directory is one line and status 2 at once (no endless read of /dev/zero, no wait for a FIFO's
writer); at most JSON_BYTES_LIMIT bytes of a file or of standard input; an ONNX model named as such. The commands
that may hang run as processes with a timeout and a bounded address space, so a regression fails instead of
hanging or filling the machine's memory."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dmlpy.cli import files
from tests.helpers.cli import EXAMPLES, Run, assert_one_line_error, run_dmlpy

ADVICE = "; give a regular file, or pipe the JSON to standard input as -"
QUICK = 60  # seconds: a Python start-up on a loaded machine; a blocked open or an endless read takes forever
MEMORY = 2**30  # far above what a command needs, far below what reading /dev/zero until the timeout would take


@pytest.mark.parametrize("command", ["validate", "explain"])
def test_dev_zero_is_refused_at_once_not_read(command: str) -> None:
    result = run_dmlpy(command, "/dev/zero", timeout=QUICK, memory=MEMORY)
    assert_one_line_error(result, 2, f"dmlpy {command}: /dev/zero: is a character device, not a JSON file{ADVICE}")


@pytest.mark.parametrize("command", ["validate", "explain"])
def test_a_fifo_nobody_writes_is_refused_at_once(tmp_path: Path, command: str) -> None:
    os.mkfifo(tmp_path / "fifo.json")
    result = run_dmlpy(command, str(tmp_path / "fifo.json"), timeout=QUICK)
    assert_one_line_error(result, 2, f"fifo.json: is a FIFO, not a JSON file{ADVICE}")


def test_a_fifo_among_several_files_is_reported_and_the_rest_checked(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.json")
    paths = [str(EXAMPLES / "round.json"), str(tmp_path / "fifo.json"), str(EXAMPLES / "round_refused.json")]
    result = run_dmlpy("validate", *paths, timeout=QUICK)
    assert result.returncode == 2, result.stderr  # the worst: unreadable (2) over refused (1)
    assert result.stderr == f"dmlpy validate: {paths[1]}: is a FIFO, not a JSON file{ADVICE}\n"
    verdicts = [line for line in result.stdout.splitlines() if not line.startswith("  ")]
    assert verdicts == [f"{paths[0]}: valid at DML_FEATURE_LEVEL_6_4", f"{paths[2]}: invalid at DML_FEATURE_LEVEL_6_4"]


@pytest.fixture
def listening_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "socket.json"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        yield path


@pytest.mark.parametrize("command", ["validate", "explain"])
def test_a_socket_is_refused(run: Run, listening_socket: Path, command: str) -> None:
    assert_one_line_error(run(command, str(listening_socket)), 2, f"socket.json: is a socket, not a JSON file{ADVICE}")


def test_a_directory_is_refused_with_the_same_words(run: Run, tmp_path: Path) -> None:
    assert_one_line_error(run("explain", str(tmp_path)), 2, f"{tmp_path}: is a directory, not a JSON file{ADVICE}")


def test_a_file_over_the_limit_is_refused_unread(run: Run, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(files.JSON_BYTES_LIMIT + 1)  # sparse: no disk used, and nothing here reads it
    for command in ("validate", "explain"):
        assert_one_line_error(
            run(command, str(big)),
            2,
            "big.json: holds 67108865 bytes (64 MiB), over the 67108864 bytes (64 MiB) dmlpy reads of a JSON "
            "descriptor; give a descriptor's JSON file",
        )


def test_a_file_at_the_limit_is_read(run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (EXAMPLES / "round.json").read_text(encoding="utf-8")
    size = len(text.encode("utf-8"))
    monkeypatch.setattr(files, "JSON_BYTES_LIMIT", size)
    assert run("validate", str(EXAMPLES / "round.json")).returncode == 0
    assert run("validate", "-", stdin=text).returncode == 0
    monkeypatch.setattr(files, "JSON_BYTES_LIMIT", size - 1)
    refused = run("validate", str(EXAMPLES / "round.json"))
    assert_one_line_error(refused, 2, f"round.json: holds {size} bytes, over the {size - 1} bytes dmlpy reads")


def test_standard_input_over_the_limit_is_refused(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "JSON_BYTES_LIMIT", 100)
    result = run("explain", "-", stdin=" " * 101)
    message = "dmlpy explain: -: over the 100 bytes dmlpy reads of a JSON descriptor; give a descriptor's JSON file"
    assert_one_line_error(result, 2, message)


def test_an_endless_standard_input_is_refused_after_the_limit() -> None:
    with open("/dev/zero", "rb") as zeros:
        result = subprocess.run(
            [sys.executable, "-m", "dmlpy", "validate", "-"],
            stdin=zeros,
            capture_output=True,
            text=True,
            timeout=QUICK,
            check=False,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY)),
        )
    assert_one_line_error(result, 2, "-: over the 67108864 bytes (64 MiB) dmlpy reads of a JSON descriptor")


# ------------------------------------------------------------------------------------------------ ONNX models


def _round_model() -> bytes:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    graph = helper.make_graph([helper.make_node("Round", ["x"], ["y"])], "round", [x], [y])
    model: bytes = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    onnx.checker.check_model(model)
    return model


# `dmlpy explain model.onnx` explains the model (tests/device/cli/test_explain_model.py): a device's work.
@pytest.mark.parametrize(
    ("command", "name"), [("validate", "model.onnx"), ("validate", "model.bin"), ("explain", "model.bin")]
)
def test_an_onnx_model_is_named_and_pointed_to_dmlpy_onnx(run: Run, tmp_path: Path, command: str, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(_round_model())  # .bin: known by its first byte, ir_version's field tag, not by its name
    assert_one_line_error(
        run(command, str(path)),
        2,
        f"dmlpy {command}: {path}: an ONNX model, not a DirectML descriptor (JSON); run it with dmlpy.onnx: "
        f"dmlpy.onnx.prepare('{path}').run(inputs) (see docs/api/onnx.md)",
    )


def test_an_onnx_model_on_standard_input_is_named() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "dmlpy", "validate", "-"], input=_round_model(), capture_output=True, timeout=QUICK
    )
    assert result.returncode == 2
    assert result.stderr.decode().strip() == (
        "dmlpy validate: -: an ONNX model, not a DirectML descriptor (JSON); run it with dmlpy.onnx: "
        "dmlpy.onnx.prepare('model.onnx').run(inputs) (see docs/api/onnx.md)"
    )


def test_an_ascii_only_onnx_file_is_named_too(run: Run, tmp_path: Path) -> None:
    # A small model can be all bytes below 0x80: UTF-8 text to the decoder, and only then refused by the JSON parser.
    path = tmp_path / "tiny"
    path.write_bytes(b"\x08\x08\x12\x05dmlpy")
    assert_one_line_error(run("validate", str(path)), 2, "tiny: an ONNX model, not a DirectML descriptor")


def test_json_in_a_file_named_onnx_is_read_as_json(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "round.onnx"
    path.write_bytes((EXAMPLES / "round.json").read_bytes())
    assert run("validate", str(path)).returncode == 0
    broken = tmp_path / "broken.onnx"
    broken.write_text("{", encoding="utf-8")
    assert_one_line_error(run("validate", str(broken)), 2, "broken.onnx: an ONNX model")
