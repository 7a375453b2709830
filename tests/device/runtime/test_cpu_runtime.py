"""dmlpy.runtime.cpu_runtime: Intel's OpenCL CPU runtime from PyPI, added only where no device builds a kernel
(or with --always), registered so that a new process finds it with no environment variable.

Where the runtime is installed (CI adds it with --always), the registration itself is checked: pyopencl's loader
lists its device in a process without LD_LIBRARY_PATH, and the device builds kernels."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyopencl as cl
import pytest

from dmlpy.errors import UnsupportedError
from dmlpy.runtime import cpu_runtime, platforms
from dmlpy.runtime.platforms import DeviceEntry
from tests.helpers.tools import missing_tool

REPO = Path(__file__).resolve().parents[3]


def test_the_packages_installed_are_the_cpu_extra_of_pyproject() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert sorted(cpu_runtime.extra_requirements()) == sorted(extras["cpu"])  # the metadata sorts them


def test_register_names_the_library_by_its_absolute_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    library = tmp_path / "lib" / "libintelocl.so"
    library.parent.mkdir()
    library.write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    icd = cpu_runtime.register(Path("lib/../lib/libintelocl.so"), tmp_path)
    assert icd == tmp_path / "intel-cpu.icd"
    assert icd.read_text(encoding="utf-8") == f"{library}\n"  # one line: what the loader dlopens


def fake_entry() -> DeviceEntry:
    cl_device = SimpleNamespace(int_ptr=id(object()), driver_version="3.0", platform=SimpleNamespace(version=""))
    return DeviceEntry(0, "Portable Computing Language", "cpu", "CPU", "OpenCL 3.0", cl_device)


@pytest.fixture
def pocl_that(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``pocl_that(builds=...)``: OpenCL lists one PoCL CPU device, whose compiler works or not."""

    def install(*, builds: bool) -> None:
        monkeypatch.setattr(cpu_runtime, "list_devices", lambda: [fake_entry()])
        monkeypatch.setattr(platforms, "compiler_failure", lambda _: None if builds else "error: unknown target CPU")

    return install


def test_nothing_is_installed_where_a_device_builds(
    pocl_that: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pocl_that(builds=True)
    monkeypatch.setattr(cpu_runtime, "add_runtime", lambda: pytest.fail("installed though a device builds"))
    assert cpu_runtime.main([]) == 0
    assert "builds kernels: Intel's CPU runtime is not needed" in capsys.readouterr().out


@pytest.mark.parametrize(("builds", "arguments"), [(False, []), (True, ["--always"])])
def test_it_is_added_where_no_device_builds_or_when_asked_always(
    pocl_that: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    builds: bool,
    arguments: list[str],
) -> None:
    pocl_that(builds=builds)
    monkeypatch.setattr(cpu_runtime, "add_runtime", lambda: "[1] AMD EPYC (CPU, Intel(R) OpenCL 2026.22)")
    assert cpu_runtime.main(arguments) == 0
    assert "Intel's OpenCL CPU runtime is ready: [1] AMD EPYC" in capsys.readouterr().out


def test_a_failure_to_add_it_is_one_line_and_status_1(
    pocl_that: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pocl_that(builds=False)

    def pip_fails() -> str:
        raise UnsupportedError("pip could not install intel-opencl-rt>=2026.2 (exit status 1)")

    monkeypatch.setattr(cpu_runtime, "add_runtime", pip_fails)
    assert cpu_runtime.main([]) == 1
    err = capsys.readouterr().err
    assert err == "python -m dmlpy.runtime.cpu_runtime: pip could not install intel-opencl-rt>=2026.2 (exit status 1)\n"


def test_the_loader_folder_is_where_the_bundled_pocl_is_registered() -> None:
    folder = cpu_runtime.loader_folder()
    assert folder == Path(cl.__file__).resolve().parent / ".libs"
    assert any(folder.glob("*.icd")), "pyopencl's wheel loader finds the bundled PoCL through an .icd file here"


def test_a_registered_runtime_is_found_without_any_environment_variable() -> None:
    library = cpu_runtime.installed_library()
    icd = cpu_runtime.loader_folder() / cpu_runtime.ICD_NAME
    if library is None or not icd.is_file():
        missing_tool("Intel's OpenCL CPU runtime is not installed (python -m dmlpy.runtime.cpu_runtime --always)")
    assert icd.read_text(encoding="utf-8") == f"{library}\n"
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH")}
    done = subprocess.run(
        [sys.executable, "-c", cpu_runtime.PROBE_IN_NEW_PROCESS], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    intel = [
        (described, error) for platform, described, error in json.loads(done.stdout) if platform == "Intel(R) OpenCL"
    ]
    assert len(intel) == 1 and intel[0][1] is None, intel
