"""Each command as a user runs it, a process of its own (`python -m dmlpy ...`): the other CLI tests run
``dmlpy.cli.main`` in the test's process (tests/helpers/cli.py's run_in_process), which captures what Python
writes but not what native code (an OpenCL implementation, its compiler) writes to the standard streams. Here the
whole output is the command's: a successful run prints what it should and nothing else."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.helpers.cli import EXAMPLES, run_dmlpy


def _commands(tmp_path: Path) -> dict[str, list[str]]:
    source = tmp_path / "x.npy"
    np.save(source, np.array([-2.5, -0.5, 0.5, 1.5, 2.5], np.float32))
    quantized = tmp_path / "q.npy"
    np.save(quantized, np.array([-128, 0, 127], np.int8))
    return {
        "round": ["round", str(source), str(tmp_path / "r.npy"), "--quiet"],
        "quantize": ["quantize", str(source), str(tmp_path / "q8.npy"), "--scale", "0.5", "--quiet"],
        "dequantize": ["dequantize", str(quantized), str(tmp_path / "d.npy"), "--scale", "0.5", "--quiet"],
        "validate": ["validate", str(EXAMPLES / "round_padded.json"), "-q"],
        "explain": ["explain", str(EXAMPLES / "round_padded.json")],
        "schema": ["schema"],
        "devices": ["devices"],
    }


@pytest.mark.parametrize("command", ["round", "quantize", "dequantize", "validate", "explain", "schema", "devices"])
def test_a_command_as_a_process_prints_only_its_own_output(tmp_path: Path, command: str) -> None:
    done = run_dmlpy(*_commands(tmp_path)[command])
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    quiet = command in {"round", "quantize", "dequantize", "validate"}
    assert (done.stdout == "") == quiet, done.stdout
