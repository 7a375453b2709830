"""`dmlpy round` and the JSON readers against hostile or unlucky files (issue 12): planted symlinks, modes,
links and special files as OUT, signals and truncation mid-run, and inputs that used to escape as internal
errors. Every bad input is exit 2 with one line on stderr."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.helpers.cli import Run, assert_one_line_error, round_desc

REPO = Path(__file__).resolve().parents[3]  # this checkout's dmlpy, for the subprocesses' PYTHONPATH

SEED = np.array([-4.5, -1.9, -1.5, 0.5, 0.9, 1.5, 2.3, 2.5], dtype=np.float32)
ROUNDED = [-4, -2, -2, 0, 1, 2, 2, 2]

# `python -m dmlpy` with chosen signal dispositions first (a test run under nohup inherits SIGHUP ignored).
LAUNCHER = """
import signal, sys
from dmlpy.cli import main
for setting in filter(None, sys.argv[1].split(",")):
    name, action = setting.split("=")
    signal.signal(getattr(signal, name), signal.SIG_IGN if action == "ignore" else signal.SIG_DFL)
sys.exit(main(sys.argv[2:]))
"""


def header_only(path: Path, shape: tuple[int, ...], descr: str = "<f4") -> None:
    """A .npy header declaring ``shape`` with no data after it."""
    with path.open("wb") as handle:
        np.lib.format.write_array_header_1_0(handle, {"descr": descr, "fortran_order": False, "shape": shape})


def temporaries(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir() if path.name.endswith(".tmp"))


# 8. The temporary file


@pytest.mark.parametrize("data", [SEED, np.zeros((0, 3), np.float32)], ids=["data", "empty"])
def test_symlink_planted_at_the_old_temporary_name_is_not_followed(tmp_path: Path, data: np.ndarray) -> None:
    np.save(tmp_path / "in.npy", data)
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    # The name the command used to write, `.OUT.npy.PID.tmp`, is predictable: plant a link there in the process.
    plant = (
        "import os, sys\n"
        "os.symlink('victim.txt', f'.out.npy.{os.getpid()}.tmp')\n"
        "from dmlpy.cli import main\n"
        "sys.exit(main(['round', 'in.npy', 'out.npy', '--quiet']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", plant], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert victim.read_bytes() == b"precious"
    out = tmp_path / "out.npy"
    assert not out.is_symlink() and stat.S_ISREG(out.lstat().st_mode)
    np.testing.assert_array_equal(np.load(out), np.rint(data))
    planted = [path for path in tmp_path.iterdir() if path.is_symlink()]
    assert len(planted) == 1 and os.readlink(planted[0]) == "victim.txt"  # left alone, not written through


# 9. Replacing keeps what writing would keep


def test_modes_are_kept_and_new_files_get_the_umask_default(run: Run, tmp_path: Path) -> None:
    source, target, fresh = tmp_path / "in.npy", tmp_path / "out.npy", tmp_path / "new.npy"
    np.save(source, SEED)
    np.save(target, SEED)
    source.chmod(0o600)
    target.chmod(0o640)
    assert run("round", str(source), "--in-place", "--quiet").returncode == 0
    assert stat.S_IMODE(source.stat().st_mode) == 0o600
    assert np.load(source).tolist() == ROUNDED
    assert run("round", str(source), str(target), "--quiet", "--force").returncode == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert run("round", str(source), str(fresh), "--quiet").returncode == 0
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask


def test_symlinks_are_written_through_and_left_in_place(run: Run, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    real_in, real_out = data / "real-in.npy", data / "real-out.npy"
    np.save(real_in, SEED)
    np.save(real_out, np.zeros(2, np.float32))
    link_in, link_out, dangling = tmp_path / "in.npy", tmp_path / "out.npy", tmp_path / "made.npy"
    link_in.symlink_to(Path("data") / "real-in.npy")
    link_out.symlink_to(real_out)
    dangling.symlink_to(Path("data") / "made-real.npy")

    assert run("round", str(link_in), str(link_out), "--quiet", "--force").returncode == 0
    assert link_out.is_symlink() and os.readlink(link_out) == str(real_out)
    assert np.load(real_out).tolist() == ROUNDED

    assert run("round", str(link_in), "--in-place", "--mode", "toward_zero", "--quiet").returncode == 0
    assert link_in.is_symlink() and os.readlink(link_in) == str(Path("data") / "real-in.npy")
    assert np.load(real_in).tolist() == [-4, -1, -1, 0, 0, 1, 2, 2]

    assert run("round", str(real_out), str(dangling), "--quiet").returncode == 0  # as `>` would: creates it
    assert dangling.is_symlink() and np.load(data / "made-real.npy").tolist() == ROUNDED
    assert temporaries(tmp_path) == temporaries(data) == []


def _fifo(path: Path) -> Callable[[], object]:
    os.mkfifo(path)
    return lambda: stat.S_ISFIFO(path.lstat().st_mode)


def _socket(path: Path) -> Callable[[], object]:
    server = socket.socket(socket.AF_UNIX)
    server.bind(path.name)  # relative: the socket path limit is 108 bytes, tmp_path can be longer
    server.close()
    return lambda: stat.S_ISSOCK(path.lstat().st_mode)


def _link_to_dev_null(path: Path) -> Callable[[], object]:
    # Through a link, so that the code before the fix replaced the link, never /dev/null itself.
    path.symlink_to(os.devnull)
    return lambda: path.is_symlink() and stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.parametrize(
    ("make", "kind"),
    [(_fifo, "is a FIFO"), (_socket, "is a socket"), (_link_to_dev_null, "is a character device")],
    ids=["fifo", "socket", "device"],
)
def test_non_regular_outputs_are_refused(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], Callable[[], object]], kind: str
) -> None:
    monkeypatch.chdir(tmp_path)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, SEED)
    unchanged = make(target)
    assert_one_line_error(
        run("round", str(source), str(target)), 2, f"{target}: {kind}, not a regular file; refusing to replace it"
    )
    assert unchanged()
    assert temporaries(tmp_path) == []


@pytest.mark.parametrize("command", [["round", "in.npy", "-"], ["validate", "desc.json", "--svg", "-"]])
def test_a_dash_output_is_refused_not_written_as_a_file(run: Run, tmp_path: Path, command: list[str]) -> None:
    # "-" is standard input where dmlpy reads a descriptor; as an output it would have made a file named "-".
    np.save(tmp_path / "in.npy", SEED)
    (tmp_path / "desc.json").write_text(json.dumps(round_desc([2, 3])), encoding="utf-8")
    assert_one_line_error(run(*command, cwd=tmp_path), 2, "- is not an output here", "give a file name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["desc.json", "in.npy"]


# 10. Signals and truncation mid-run


def _start_round(tmp_path: Path, dispositions: str = "SIGTERM=default,SIGHUP=default") -> subprocess.Popen[str]:
    """`round` on a 64 MiB input in 4 KiB chunks (thousands of them), once its temporary file exists."""
    source = tmp_path / "in.npy"
    np.save(source, np.zeros(16 * 2**20, np.float32))
    command = [sys.executable, "-c", LAUNCHER, dispositions, "round", "in.npy", "out.npy", "--chunk-bytes", "4096"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not temporaries(tmp_path):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"no temporary file appeared (status {process.wait()}): {process.communicate()[1]}")
        time.sleep(0.005)
    return process


def _finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    _, stderr = process.communicate(timeout=120)
    return process.returncode, stderr


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_signal_mid_run_removes_the_temporary(tmp_path: Path, signum: signal.Signals) -> None:
    process = _start_round(tmp_path)
    process.send_signal(signum)
    status, stderr = _finish(process)
    assert status == 128 + signum, stderr
    assert stderr.strip().splitlines() == [f"dmlpy round: terminated by {signum.name}"]
    assert temporaries(tmp_path) == []
    assert not (tmp_path / "out.npy").exists()


def test_ignored_sighup_stays_ignored(tmp_path: Path) -> None:
    process = _start_round(tmp_path, "SIGHUP=ignore")  # as under nohup
    process.send_signal(signal.SIGHUP)
    status, stderr = _finish(process)
    assert status == 0, stderr
    assert np.load(tmp_path / "out.npy").shape == (16 * 2**20,)
    assert temporaries(tmp_path) == []


def test_input_truncated_mid_run_is_a_one_line_error(tmp_path: Path) -> None:
    process = _start_round(tmp_path)
    source = tmp_path / "in.npy"
    with source.open("rb") as handle:  # cut the file between its header and its data
        np.lib.format.read_magic(handle)
        np.lib.format.read_array_header_1_0(handle)
        os.truncate(source, handle.tell())
    status, stderr = _finish(process)
    assert status == 2, stderr  # not killed by SIGBUS
    expected = f"dmlpy round: in.npy: truncated: expected {64 * 2**20} bytes of data, found 0"
    assert stderr.strip().splitlines() == [expected]
    assert temporaries(tmp_path) == []
    assert not (tmp_path / "out.npy").exists()


# 11. Every bad input is exit 2 with one line


def _deep_json(tmp_path: Path) -> list[str]:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    return ["validate", str(path)]


def _deep_json_explain(tmp_path: Path) -> list[str]:
    return ["explain", _deep_json(tmp_path)[1]]


def _long_integer(tmp_path: Path) -> list[str]:
    path = tmp_path / "long.json"
    text = json.dumps(round_desc([1, 2])).replace("[1, 2]", "[1, " + "9" * 5000 + "]", 1)
    path.write_text(text, encoding="utf-8")
    return ["validate", str(path)]


def _loop(tmp_path: Path) -> Path:
    path = tmp_path / "loop.npy"
    path.symlink_to(path.name)
    return path


def _loop_validate(tmp_path: Path) -> list[str]:
    return ["validate", str(_loop(tmp_path))]


def _loop_round_input(tmp_path: Path) -> list[str]:
    return ["round", str(_loop(tmp_path)), str(tmp_path / "out.npy")]


def _loop_round_output(tmp_path: Path) -> list[str]:
    np.save(tmp_path / "in.npy", SEED)
    return ["round", str(tmp_path / "in.npy"), str(_loop(tmp_path))]


def _huge_header(tmp_path: Path) -> list[str]:
    header_only(tmp_path / "huge.npy", (2**62,))
    return ["round", str(tmp_path / "huge.npy"), str(tmp_path / "out.npy")]


def _short_data(tmp_path: Path) -> list[str]:
    header_only(tmp_path / "short.npy", (8,))
    return ["round", str(tmp_path / "short.npy"), str(tmp_path / "out.npy")]


def _negative_shape(tmp_path: Path) -> list[str]:
    header_only(tmp_path / "negative.npy", (-1,))
    return ["round", str(tmp_path / "negative.npy"), str(tmp_path / "out.npy")]


def _fifo_input(tmp_path: Path) -> list[str]:
    os.mkfifo(tmp_path / "fifo.npy")  # opening it for reading used to wait for a writer forever
    return ["round", str(tmp_path / "fifo.npy"), str(tmp_path / "out.npy")]


def _dev_zero_input(tmp_path: Path) -> list[str]:
    return ["round", "/dev/zero", str(tmp_path / "out.npy")]


BAD_INPUTS: list[tuple[Callable[[Path], list[str]], str]] = [
    (_deep_json, "deep.json: not usable JSON: arrays or objects nested too deeply"),
    (_deep_json_explain, "deep.json: not usable JSON: arrays or objects nested too deeply"),
    (_long_integer, f"long.json: not usable JSON: an integer has more than {sys.get_int_max_str_digits()} digits"),
    (_loop_validate, "loop.npy: cannot read: Too many levels of symbolic links"),
    (_loop_round_input, "loop.npy: cannot read: Too many levels of symbolic links"),
    (_loop_round_output, "loop.npy: cannot write: Too many levels of symbolic links"),
    (_huge_header, f"huge.npy: truncated: expected {2**64} bytes of data, found 0"),
    (_short_data, "short.npy: truncated: expected 32 bytes of data, found 0"),
    (_negative_shape, "negative.npy: not a readable .npy file (negative dimension in shape (-1,))"),
    (_fifo_input, "fifo.npy: is a FIFO, not a .npy file"),
    (_dev_zero_input, "/dev/zero: is a character device, not a .npy file"),
]


@pytest.mark.parametrize(
    ("arguments", "fragment"), BAD_INPUTS, ids=[arguments.__name__.strip("_") for arguments, _ in BAD_INPUTS]
)
def test_bad_input_is_exit_2_with_one_line(
    run: Run, tmp_path: Path, arguments: Callable[[Path], list[str]], fragment: str
) -> None:
    result = run(*arguments(tmp_path), timeout=60)
    assert_one_line_error(result, 2, fragment)
    assert "Warning" not in result.stderr
    assert not (tmp_path / "out.npy").exists()
    assert temporaries(tmp_path) == []


def test_a_signal_another_thread_receives_while_the_temporary_is_made_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race CI once hit: the main thread blocks SIGTERM while it creates the temporary, but the kernel hands a
    process-directed signal to a thread that does not block it (an OpenCL runtime's), and Python then runs the
    handler in the main thread at its next line, inside mkstemp. A thread started before (its mask is open)
    sends SIGTERM just after the file exists; the temporary must still be removed."""
    from dmlpy.cli.common import Terminated
    from dmlpy.cli.output import plan_output, replacing, signals_raise

    go, sent = threading.Event(), threading.Event()

    def sender() -> None:
        go.wait(30)
        os.kill(os.getpid(), signal.SIGTERM)
        sent.set()

    real_mkstemp = tempfile.mkstemp

    def mkstemp_then_signal(*args: Any, **kwargs: Any) -> tuple[int, str]:
        made = real_mkstemp(*args, **kwargs)
        go.set()
        sent.wait(30)
        for _ in range(1000):  # bytecodes for the main thread to run the handler on, as it would inside mkstemp
            pass
        return made

    thread = threading.Thread(target=sender)
    thread.start()
    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_then_signal)
    with pytest.raises(Terminated), signals_raise(), replacing(plan_output(tmp_path / "out.npy")) as handle:
        handle.write(b"never finished")
    thread.join()
    assert list(tmp_path.iterdir()) == []
