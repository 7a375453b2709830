"""A machine like a new user's AMD Zen 5: no system OpenCL, and the PoCL inside the pyopencl wheels unable to
build any kernel. The commands must mark that device, never pick it, say what is usable, and treat a DMLPY_DEVICE
naming it as a usage error (exit status 2) everywhere.

Simulated in a subprocess: OCL_ICD_VENDORS names an empty folder (the pyopencl wheels' loader then reads no system
ICD file, only those in pyopencl's .libs: the bundled PoCL, and Intel's CPU runtime where the set-up registered
it), POCL_EXTRA_BUILD_FLAGS makes PoCL's compiler fail every build (Zen 5's "unknown target CPU 'generic'" comes
from LLVM instead; dmlpy sees the same: a listed CPU device whose every build fails), and XDG_CACHE_HOME is
empty, so no cached binary hides the failure. The devices expected come from pyopencl itself, in the same
environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.helpers.cli import REPO, assert_one_line_error
from tests.helpers.tools import missing_tool

POCL = "Portable Computing Language"
INTEL = "Intel(R) OpenCL"
SIMULATED_FAILURE = "-D__kernel=simulated_unknown_cpu"
"""Turns every kernel's ``__kernel`` keyword into an unknown type: PoCL's compiler fails each build."""


@pytest.fixture
def zen5_env(tmp_path: Path) -> dict[str, str]:
    hidden = tmp_path / "no-system-icd"
    hidden.mkdir()
    env = {
        **os.environ,
        "OCL_ICD_VENDORS": str(hidden),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "POCL_EXTRA_BUILD_FLAGS": SIMULATED_FAILURE,
    }
    for variable in ("DMLPY_DEVICE", "PYOPENCL_CTX", "PYTHONPATH"):
        env.pop(variable, None)
    return env


def run_in(env: dict[str, str], *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


LIST_WITH_PYOPENCL = (
    "import json, pyopencl as cl; print(json.dumps([p.name for p in cl.get_platforms() for d in p.get_devices()]))"
)


def platforms_listed(env: dict[str, str]) -> list[str]:
    """The platform of each device pyopencl lists in ``env``, in order: what ``dmlpy devices`` numbers."""
    done = run_in(env, "-c", LIST_WITH_PYOPENCL)
    assert done.returncode == 0, done.stderr
    names: list[str] = json.loads(done.stdout)
    assert POCL in names, f"the bundled PoCL is missing from {names}"
    return names


def device_blocks(stdout: str) -> list[list[str]]:
    """``dmlpy devices``'s output cut into one block of lines per device."""
    blocks: list[list[str]] = []
    for line in stdout.splitlines():
        if line[:3] in ("* [", "  ["):
            blocks.append([line])
        elif blocks and line.startswith("      "):
            blocks[-1].append(line)
    return blocks


def test_a_device_whose_compiler_fails_is_marked_and_never_the_default(zen5_env: dict[str, str]) -> None:
    listed = platforms_listed(zen5_env)
    result = run_in(zen5_env, "-m", "dmlpy", "devices")
    blocks = device_blocks(result.stdout)
    assert len(blocks) == len(listed)
    for platform, block in zip(listed, blocks, strict=True):
        assert f" | {platform} " in block[0], block
        failing = platform == POCL
        assert any(line.strip().startswith("compiler fails: ") for line in block) == failing, block
        if failing:
            assert not block[0].startswith("*"), block
            assert "simulated_unknown_cpu" in block[1]
    if INTEL in listed:  # the set-up registered Intel's CPU runtime here (CI does): the default falls back to it
        assert result.returncode == 0, result.stderr
        defaults = [block[0] for block in blocks if block[0].startswith("*")]
        assert len(defaults) == 1 and f" | {INTEL} " in defaults[0]
    else:  # the devices above the error, and the error names the one command that adds a working CPU device
        assert_one_line_error(result, 1, "no OpenCL device here can build a kernel", "-m dmlpy.runtime.cpu_runtime")


@pytest.mark.parametrize("command", ["devices", "demo", "round"])
def test_dmlpy_device_naming_a_failing_device_is_a_usage_error_that_lists_the_usable(
    zen5_env: dict[str, str], tmp_path: Path, command: str
) -> None:
    listed = platforms_listed(zen5_env)
    failing = listed.index(POCL)
    source = tmp_path / "in.npy"
    np.save(source, np.array([0.5, 1.5], np.float32))
    arguments = [str(source), str(tmp_path / "out.npy")] if command == "round" else []
    result = run_in({**zen5_env, "DMLPY_DEVICE": str(failing)}, "-m", "dmlpy", command, *arguments)
    usable = f"usable device ([{listed.index(INTEL)}] " if INTEL in listed else "usable device (none"
    assert_one_line_error(result, 2, f"DMLPY_DEVICE is '{failing}': device [{failing}] ", "cannot build", usable)
    assert not (tmp_path / "out.npy").exists()
    result = run_in({**zen5_env, "DMLPY_DEVICE": "first"}, "-m", "dmlpy", command, *arguments)
    assert_one_line_error(result, 2, "DMLPY_DEVICE is 'first': not a device index")


def test_choosing_a_failing_device_with_the_device_option_lists_the_usable(
    zen5_env: dict[str, str], tmp_path: Path
) -> None:
    listed = platforms_listed(zen5_env)
    failing = listed.index(POCL)
    source, target = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(source, np.array([0.5, 1.5], np.float32))
    result = run_in(zen5_env, "-m", "dmlpy", "round", str(source), str(target), "--device", str(failing))
    assert_one_line_error(result, 2, f"--device {failing}: [{failing}] ", "cannot build kernels", "usable: ")
    assert not target.exists()


ROUND_CHECK = """
import json, numpy as np, dmlpy as dml
x = np.concatenate([np.arange(-1024, 1024, dtype=np.float32) + 0.5, np.random.default_rng(5).standard_normal(4096)
                    .astype(np.float32) * 100])
h = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
h = h[~np.isnan(h)]
print(json.dumps({"device": dml.default_device().name,
                  "float32": dml.round(x).view(np.uint32).tolist() == np.rint(x).view(np.uint32).tolist(),
                  "float16": dml.round(h).view(np.uint16).tolist() == np.rint(h).view(np.uint16).tolist()}))
"""


def test_where_the_bundled_pocl_fails_intels_runtime_rounds_bit_exactly(zen5_env: dict[str, str]) -> None:
    if INTEL not in platforms_listed(zen5_env):
        missing_tool("Intel's OpenCL CPU runtime is not registered (python -m dmlpy.runtime.cpu_runtime --always)")
    done = run_in(zen5_env, "-c", ROUND_CHECK)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert result["device"].endswith(f"({INTEL})"), result
    assert result["float32"] and result["float16"], result
