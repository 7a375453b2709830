"""OpenCL does not survive fork (issue 12, defect 7): a process forked after its parent used dmlpy gets a clear
UnsupportedError from every call that would reach OpenCL, instead of hanging forever in the driver; processes
started with multiprocessing's "spawn" and "forkserver" methods work.

Each case runs a script in a subprocess of its own session with a timeout; on timeout the whole process group is
killed, so a hang (the defect) fails the test and leaves no process behind. A forked child reports through its
exit code, which its parent script passes on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")

TIMEOUT_S = 120

COMMON = textwrap.dedent(
    """
    import multiprocessing, os, sys
    import numpy as np
    import dmlpy as dml

    X = np.array([0.5, 1.5, 2.5, -2.5], np.float32)
    ROUNDED = [0.0, 2.0, 2.0, -2.0]

    def refused_with_advice(call):
        "0 when call() raises UnsupportedError saying OpenCL does not survive fork and naming spawn and forkserver."
        try:
            call()
        except dml.UnsupportedError as error:
            text = str(error)
            ok = "OpenCL does not survive fork" in text and '"spawn"' in text and '"forkserver"' in text
            return 0 if ok else 2
        except BaseException as error:
            print("unexpected", type(error).__name__, error, file=sys.stderr, flush=True)
            return 3
        return 4
    """
)

OS_FORK = COMMON + textwrap.dedent(
    """
    assert dml.round(X).tolist() == ROUNDED
    device = dml.default_device()
    buffer = device.upload(X)
    tensor = dml.BufferTensorDesc(data_type="FLOAT32", sizes=(1, 1, 1, 4))
    operator = device.create_operator(dml.ElementWiseRoundOperatorDesc(input_tensor=tensor, output_tensor=tensor))
    compiled = device.compile_operator(operator)
    device.create_operator_initializer([compiled]).initialize()
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(buffer)])
    table.bind_outputs([dml.BufferBinding(device.create_buffer(16))])
    recorder = device.create_command_recorder()
    calls = [
        lambda: dml.create_device(),
        lambda: dml.default_device(),
        lambda: dml.round(X),
        lambda: dml.round(X, device=device),
        lambda: device.create_buffer(16),
        lambda: device.upload(X),
        lambda: device.compile_operator(operator),
        lambda: recorder.record_dispatch(device.queue, compiled, table),
        lambda: buffer.read(np.float32, 4),
        lambda: buffer.write(X),
    ]
    pid = os.fork()
    if pid == 0:
        for index, call in enumerate(calls):
            code = refused_with_advice(call)
            if code:
                os._exit(10 * (index + 1) + code)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
    """
)

MULTIPROCESSING = COMMON + textwrap.dedent(
    """
    def forked_child():
        sys.exit(refused_with_advice(lambda: dml.round(X)))

    def fresh_child():
        sys.exit(0 if dml.round(X).tolist() == ROUNDED else 5)

    if __name__ == "__main__":
        method = sys.argv[1]
        assert dml.round(X).tolist() == ROUNDED  # the parent has initialised OpenCL
        context = multiprocessing.get_context(method)
        child = context.Process(target=forked_child if method == "fork" else fresh_child)
        child.start()
        child.join()
        sys.exit(child.exitcode)
    """
)


def _run(script: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "fork_script.py"
    path.write_text(script)
    with subprocess.Popen(
        [sys.executable, str(path), *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the script and every child it forked
            stdout, stderr = process.communicate()
            pytest.fail(f"the script hung for {TIMEOUT_S} s (a forked child blocked in OpenCL)\n{stdout}\n{stderr}")
        return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def test_os_fork_child_is_refused_with_advice(tmp_path: Path) -> None:
    result = _run(OS_FORK, tmp_path)
    assert result.returncode == 0, (
        f"exit {result.returncode}: call {result.returncode // 10} of the child's list was not refused "
        f"(2: wrong message, 3: another error, 4: no error)\n{result.stdout}\n{result.stderr}"
    )


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_multiprocessing_children(tmp_path: Path, method: str) -> None:
    """A "fork" child is refused with advice (exit 0 when it is); "spawn" and "forkserver" children round."""
    result = _run(MULTIPROCESSING, tmp_path, method)
    assert result.returncode == 0, f"{method} child: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
