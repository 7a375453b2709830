"""dmlpy's default device among the devices OpenCL lists (dmlpy.runtime.platforms.preferred_device), on made-up
device lists, so every case of the rule runs on any machine: among the devices whose compiler builds a kernel,
the first GPU, else the first PoCL CPU device, else the first other device; a device whose compiler fails is never
the default; DMLPY_DEVICE picks by index and names only a usable device.

The real devices' side (a real failing compiler, a real second runtime) is in
tests/device/cli/test_unusable_devices.py."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import pytest

from dmlpy.errors import DeviceSettingError, UnsupportedError
from dmlpy.runtime import platforms
from dmlpy.runtime.platforms import DeviceEntry

POCL = "Portable Computing Language"
INTEL = "Intel(R) OpenCL"
NVIDIA = "NVIDIA CUDA"
FAILS = "error: unknown target CPU 'generic'"

_pointers = itertools.count(1)


def device(platform: str, kind: str, *, fails: bool = False, version: str = "OpenCL 3.0") -> dict[str, Any]:
    return {"platform": platform, "kind": kind, "fails": fails, "version": version}


@pytest.fixture
def listed(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``listed(*devices)``: make OpenCL list these devices (in this order), with these compilers."""

    def install(*devices: dict[str, Any]) -> list[DeviceEntry]:
        entries, failures = [], {}
        for index, d in enumerate(devices):
            cl_device = SimpleNamespace(
                int_ptr=next(_pointers),
                driver_version="1.0",
                platform=SimpleNamespace(version=d["version"]),
            )
            failures[cl_device.int_ptr] = FAILS if d["fails"] else None
            entries.append(DeviceEntry(index, d["platform"], f"device {index}", d["kind"], "OpenCL 3.0", cl_device))
        monkeypatch.setattr(platforms, "list_devices", lambda: list(entries))
        monkeypatch.setattr(platforms, "compiler_failure", lambda cl_device: failures[cl_device.int_ptr])
        monkeypatch.delenv(platforms.DEVICE_VARIABLE, raising=False)
        return entries

    return install


@pytest.mark.parametrize(
    ("devices", "default"),
    [
        # a GPU first, wherever it is listed
        ([device(POCL, "CPU"), device(NVIDIA, "GPU")], 1),
        # a GPU whose compiler fails is passed over
        ([device(NVIDIA, "GPU", fails=True), device(POCL, "CPU")], 1),
        # PoCL's CPU device before Intel's CPU runtime, even listed after it
        ([device(INTEL, "CPU"), device(POCL, "CPU")], 1),
        # the system PoCL is listed before the bundled one: the first PoCL that builds
        ([device(POCL, "CPU"), device(POCL, "CPU"), device(INTEL, "CPU")], 0),
        # Zen 5 with the bundled PoCL only: Intel's runtime, the fallback
        ([device(POCL, "CPU", fails=True), device(INTEL, "CPU")], 1),
        # a system PoCL that builds and the bundled one that does not
        ([device(POCL, "CPU"), device(POCL, "CPU", fails=True)], 0),
        ([device(POCL, "CPU", fails=True), device(POCL, "CPU")], 1),
        # an accelerator only where nothing else builds
        ([device("Oclgrind", "ACCELERATOR"), device(INTEL, "CPU", fails=True)], 0),
    ],
)
def test_the_default_is_the_most_preferred_device_whose_compiler_works(
    listed: Any, devices: list[dict[str, Any]], default: int
) -> None:
    listed(*devices)
    assert platforms.preferred_device().index == default


def test_no_device_that_builds_is_an_error_naming_each_failure_and_the_command_that_adds_one(listed: Any) -> None:
    listed(device(POCL, "CPU", fails=True))
    with pytest.raises(UnsupportedError) as raised:
        platforms.preferred_device()
    message = str(raised.value)
    assert f"[0] device 0 (CPU, {POCL} 1.0): compiler fails: {FAILS}" in message
    assert message.endswith("-m dmlpy.runtime.cpu_runtime")


def test_no_device_at_all_names_the_command_too(listed: Any) -> None:
    listed()
    with pytest.raises(UnsupportedError, match=r"^no OpenCL device found\. .*-m dmlpy\.runtime\.cpu_runtime$"):
        platforms.preferred_device()


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("abc", "'abc': not a device index"),
        ("-1", "'-1': not a device index"),
        ("2", "'2': there are 2 devices"),
        ("0", "'0': device [0] device 0 (CPU, Portable Computing Language 1.0) cannot build kernels (compiler fails"),
    ],
)
def test_dmlpy_device_naming_no_usable_device_is_a_setting_error_listing_the_usable_ones(
    listed: Any, monkeypatch: pytest.MonkeyPatch, value: str, reason: str
) -> None:
    listed(device(POCL, "CPU", fails=True), device(INTEL, "CPU"))
    monkeypatch.setenv(platforms.DEVICE_VARIABLE, value)
    with pytest.raises(DeviceSettingError) as raised:
        platforms.preferred_device()
    assert str(raised.value).startswith(f"DMLPY_DEVICE is {reason}")
    assert "set it to the index of a usable device ([1] device 1 (CPU, Intel(R) OpenCL 1.0))" in str(raised.value)


def test_dmlpy_device_picks_any_usable_device_even_one_that_is_not_the_default(
    listed: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed(device(NVIDIA, "GPU"), device(INTEL, "CPU"))
    monkeypatch.setenv(platforms.DEVICE_VARIABLE, " 1 ")
    assert platforms.preferred_device().index == 1


def test_choosing_a_device_by_index_refuses_one_whose_compiler_fails_and_lists_the_usable(listed: Any) -> None:
    listed(device(POCL, "CPU", fails=True), device(INTEL, "CPU"))
    assert platforms.device_by_index(1).index == 1
    with pytest.raises(UnsupportedError, match=r"\[0\] device 0 .* cannot build kernels .*; usable: \[1\] device 1"):
        platforms.device_by_index(0)
    with pytest.raises(UnsupportedError, match=r"no OpenCL device 5; there are 2 \(usable: \[1\] device 1"):
        platforms.device_by_index(5)


@pytest.mark.parametrize(
    ("platform_version", "driver", "runtime"),
    [
        (
            "OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts, RELOC, SPIR, LLVM 15.0.6, SLEEF, DISTRO, POCL_DEBUG",
            "3.1+debian",
            f"{POCL} 3.1+debian, LLVM 15.0.6",
        ),
        (
            "OpenCL 3.0 PoCL 3.0-rc2  Linux, Release, RELOC, LLVM 14.0.6, SLEEF, DISTRO, POCL_DEBUG",
            "3.0-rc2",
            f"{POCL} 3.0-rc2, LLVM 14.0.6",
        ),
        ("OpenCL 3.1 LINUX", "2026.22.10.0.01_160000", f"{INTEL} 2026.22.10.0.01_160000"),
    ],
)
def test_the_runtime_tells_two_implementations_of_one_platform_apart(
    platform_version: str, driver: str, runtime: str
) -> None:
    """The platform versions are those this machine's two PoCLs and Intel's CPU runtime report."""
    platform = POCL if "PoCL" in platform_version else INTEL
    cl_device = SimpleNamespace(driver_version=driver, platform=SimpleNamespace(version=platform_version))
    assert DeviceEntry(0, platform, "cpu", "CPU", "OpenCL 3.0", cl_device).runtime == runtime


def test_a_pocl_device_without_the_system_linker_is_a_compiler_failure_not_a_later_abort(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # PoCL links a kernel with `ld` at its first launch and aborts the process when `ld` is missing; the build probe
    # alone would pass. The probe says so instead, and the device is never the default.
    monkeypatch.setattr(platforms.shutil, "which", lambda name: None)
    pocl = SimpleNamespace(platform=SimpleNamespace(name=platforms.POCL_PLATFORM))
    error = platforms._build_probe(pocl)  # type: ignore[arg-type]
    assert error == "error: PoCL links kernels with the system linker `ld`, which is not on PATH (install binutils)"
