"""`dmlpy demo` (what `make demo` runs) and `dmlpy devices`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers.cli import REPO, Run


def test_demo_prints_every_mode_on_the_seed_example(run: Run) -> None:
    result = run("demo")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for mode in ("HALVES_TO_NEAREST_EVEN", "TOWARD_ZERO", "TOWARD_INFINITY"):
        assert mode in out
    # The seed row -4.5 -> -4 (even), -4 (truncate), -5 (halves away from zero).
    row = next(line for line in out.splitlines() if line.split()[:1] == ["-4.5"])
    assert row.split()[1:] == ["-4.0", "-4.0", "-5.0"]
    row = next(line for line in out.splitlines() if line.split()[:1] == ["2.5"])
    assert row.split()[1:] == ["2.0", "2.0", "3.0"]
    assert "DimensionCount is 5; DML_FEATURE_LEVEL_2_1 allows exactly 4" in out
    assert "not ceil" in out


def test_console_script_runs_the_same_main() -> None:
    script = Path(sys.executable).with_name("dmlpy")
    if not script.exists():  # pragma: no cover - only without an installed entry point
        return
    result = subprocess.run([str(script), "--help"], cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 0
    for command in ("demo", "devices", "validate", "explain", "round", "schema"):
        assert command in result.stdout


def test_devices_lists_the_default_and_what_is_supported(run: Run) -> None:
    result = run("devices")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    defaults = [line for line in lines if line.startswith("* [")]
    assert len(defaults) == 1
    assert "DML_FEATURE_LEVEL_6_4" in result.stdout
    assert "FLOAT32, FLOAT16" in result.stdout
    assert lines[-1].startswith("* = the default device")


def test_devices_tell_two_implementations_of_one_platform_apart(run: Run) -> None:
    """Each device's line names its platform with the driver version pyopencl reports (a system PoCL and the
    bundled one share the platform name), and the LLVM version where the platform version gives it."""
    import re

    import pyopencl as cl

    listed = [line for line in run("devices").stdout.splitlines() if line[:3] in ("* [", "  [")]
    devices = [(p, d) for p in cl.get_platforms() for d in p.get_devices()]
    assert len(listed) == len(devices)
    for line, (platform, device) in zip(listed, devices, strict=True):
        llvm = re.search(r"LLVM ([0-9][\w.+-]*)", platform.version)
        runtime = f"{platform.name} {device.driver_version}" + (f", LLVM {llvm[1]}" if llvm else "")
        assert line.split(" | ")[2] == runtime, (line, platform.version)


def test_unknown_command_is_a_one_line_error(run: Run) -> None:
    result = run("frobnicate")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "frobnicate" in result.stderr
