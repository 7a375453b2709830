"""Finding OpenCL devices and choosing the default among those whose compiler builds a kernel: a GPU, else a
PoCL CPU device (a system PoCL, listed first, before the one the pyopencl wheels bundle), else any other device
(Intel's CPU runtime, which dmlpy's set-up adds where no PoCL can build: see :mod:`dmlpy.runtime.cpu_runtime`)."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pyopencl as cl

from dmlpy.errors import DeviceSettingError, UnsupportedError

POCL_PLATFORM = "Portable Computing Language"


@dataclass(frozen=True)
class DeviceEntry:
    """One OpenCL device as ``dmlpy devices`` lists it."""

    index: int
    platform: str
    name: str
    kind: str
    version: str
    cl_device: cl.Device

    @property
    def compute_units(self) -> int:
        """CL_DEVICE_MAX_COMPUTE_UNITS: cores on a CPU device, streaming multiprocessors on an NVIDIA GPU."""
        return int(self.cl_device.max_compute_units)

    @property
    def max_sub_devices(self) -> int:
        """How many sub-devices ``dml.sub_devices`` can split it into (CL_DEVICE_PARTITION_MAX_SUB_DEVICES when it
        partitions equally, else 1)."""
        try:
            properties = self.cl_device.partition_properties
            equally = isinstance(properties, list) and cl.device_partition_property.EQUALLY in properties
            return int(self.cl_device.partition_max_sub_devices) if equally else 1
        except cl.Error:
            return 1

    @property
    def runtime(self) -> str:
        """The implementation, told apart from another of the same platform name (a system PoCL and the one the
        pyopencl wheels bundle): its driver version and, where the platform says it, the LLVM that compiles
        its kernels."""
        llvm = re.search(r"\bLLVM ([0-9][\w.+-]*)", self.cl_device.platform.version)
        return f"{self.platform} {self.cl_device.driver_version}" + (f", LLVM {llvm[1]}" if llvm else "")

    @property
    def compiler_error(self) -> str | None:
        """Why this device's OpenCL compiler cannot build a one-line kernel, or None when it can (see
        :func:`compiler_failure`)."""
        return compiler_failure(self.cl_device)

    def describe(self) -> str:
        """``[index] name (kind, runtime)``: how error messages name a device."""
        return f"[{self.index}] {self.name} ({self.kind}, {self.runtime})"


def _kind(device: cl.Device) -> str:
    if device.type & cl.device_type.GPU:
        return "GPU"
    if device.type & cl.device_type.CPU:
        return "CPU"
    return "ACCELERATOR" if device.type & cl.device_type.ACCELERATOR else "OTHER"


def list_devices() -> list[DeviceEntry]:
    """Every device of every platform, numbered in a stable order (platform, then device), whether or not its
    compiler works (``entry.compiler_error`` says)."""
    entries: list[DeviceEntry] = []
    try:
        platforms = cl.get_platforms()
    except cl.Error:
        platforms = []
    for platform in platforms:
        try:
            devices = platform.get_devices()
        except cl.Error:
            continue
        for device in devices:
            entries.append(
                DeviceEntry(len(entries), platform.name, device.name.strip(), _kind(device), device.version, device)
            )
    return entries


PROBE_KERNEL = "__kernel void probe(__global float *a) { a[0] = rint(a[0]); }"
"""The one-line kernel that tells whether a device's compiler works at all."""

_compiler_errors: dict[int, str | None] = {}
_compiler_errors_lock = threading.Lock()


def compiler_failure(cl_device: cl.Device) -> str | None:
    """The compiler's first error line when ``cl_device`` cannot build :data:`PROBE_KERNEL`, else None; asked once
    per device and process.

    A listed device whose compiler fails is a broken driver, not a dmlpy failure: the PoCL bundled in the
    pyopencl wheels (LLVM 14) fails every build on CPUs newer than LLVM 14 (AMD Zen 5: "unknown target CPU
    'generic'"). Such a device is never the default, and ``dmlpy devices`` marks it."""
    with _compiler_errors_lock:
        if cl_device.int_ptr not in _compiler_errors:
            _compiler_errors[cl_device.int_ptr] = _build_probe(cl_device)
        return _compiler_errors[cl_device.int_ptr]


def _build_probe(cl_device: cl.Device) -> str | None:
    if cl_device.platform.name == POCL_PLATFORM and shutil.which("ld") is None:
        # PoCL's CPU driver links each kernel with the system's `ld` at its first launch, not at the build, and
        # aborts the whole process when it cannot: the build alone would pass this probe.
        return "error: PoCL links kernels with the system linker `ld`, which is not on PATH (install binutils)"
    try:
        with _compiler_noise_dropped():
            cl.Program(cl.Context([cl_device]), PROBE_KERNEL).build()
    except cl.Error as error:
        lines = [line.strip() for line in str(error).splitlines() if "error:" in line]
        return lines[0] if lines else str(error).splitlines()[0]
    return None


COMPILER_NOISE = re.compile(rb"^\d+ errors? generated\.\n", re.MULTILINE)
"""What PoCL's compiler writes for each failed build straight to file descriptor 2, besides the build log."""


@contextlib.contextmanager
def _compiler_noise_dropped() -> Iterator[None]:
    """File descriptor 2 into a temporary file for the duration, then back, with what was written there meanwhile
    less :data:`COMPILER_NOISE`. Without it, on a CPU the bundled PoCL does not know, every process that looks
    for its default device would print "1 error generated."; the failure itself is kept (``dmlpy devices``
    shows it). Where file descriptor 2 cannot be duplicated (closed), nothing is filtered."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    sys.stderr.flush()
    with tempfile.TemporaryFile() as caught:
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            rest = COMPILER_NOISE.sub(b"", caught.read())
            if rest:  # another thread's writes in these milliseconds, late but whole
                os.write(2, rest)


def _preference(entry: DeviceEntry) -> int:
    """Lower is preferred. PoCL before other CPU runtimes: Intel's copies NumPy's arrays at every call, as their
    data is not aligned to the 128 bytes its zero-copy host buffers need (docs/performance.md)."""
    if entry.kind == "GPU":
        return 0
    if entry.kind == "CPU":
        return 1 if entry.platform == POCL_PLATFORM else 2
    return 3


CPU_RUNTIME_COMMAND = "-m dmlpy.runtime.cpu_runtime"
"""What installs Intel's OpenCL CPU runtime from PyPI and registers it (no root): run with this Python."""


def no_usable_device(entries: list[DeviceEntry]) -> UnsupportedError:
    """The error for a machine where no OpenCL device builds a kernel: each device with its compiler's error, and
    the one command that adds a CPU device that does."""
    found = (
        "no OpenCL device found"
        if not entries
        else "no OpenCL device here can build a kernel: "
        + "; ".join(f"{e.describe()}: compiler fails: {e.compiler_error}" for e in entries)
    )
    return UnsupportedError(
        f"{found}. Add Intel's OpenCL CPU runtime from PyPI, no root needed: {sys.executable} {CPU_RUNTIME_COMMAND}"
    )


def usable_devices(entries: list[DeviceEntry]) -> str:
    """The devices whose compiler works, as error messages list them."""
    usable = [e.describe() for e in entries if e.compiler_error is None]
    return ", ".join(usable) if usable else "none (see `dmlpy devices`)"


DEVICE_VARIABLE = "DMLPY_DEVICE"
"""An environment variable naming the default device by its index in ``dmlpy devices``: how a process that
cannot be given ``device=`` (a Dask worker, a batch job) is pinned to one GPU of its node."""


def preferred_device() -> DeviceEntry:
    """The default: the device of index $DMLPY_DEVICE when it is set, else, among the devices whose compiler
    builds a kernel, the first GPU, else the first PoCL CPU device, else the first other device.

    DeviceSettingError when DMLPY_DEVICE names no usable device; UnsupportedError when no device builds."""
    entries = list_devices()
    chosen = os.environ.get(DEVICE_VARIABLE, "").strip()
    if chosen:
        return _device_of_variable(chosen, entries)
    for entry in sorted(entries, key=_preference):
        if entry.compiler_error is None:
            return entry
    raise no_usable_device(entries)


def _device_of_variable(chosen: str, entries: list[DeviceEntry]) -> DeviceEntry:
    if not chosen.isdigit() or int(chosen) >= len(entries):
        problem = "not a device index" if not chosen.isdigit() else f"there are {len(entries)} devices"
        reason = f"{problem} (`dmlpy devices` numbers them from 0)"
    elif (error := entries[int(chosen)].compiler_error) is not None:
        reason = f"device {entries[int(chosen)].describe()} cannot build kernels (compiler fails: {error})"
    else:
        return entries[int(chosen)]
    raise DeviceSettingError(
        f"{DEVICE_VARIABLE} is {chosen!r}: {reason}; set it to the index of a usable device "
        f"({usable_devices(entries)}), or unset it for the default"
    )


def device_by_index(index: int) -> DeviceEntry:
    """The device ``dmlpy devices`` lists as ``index``; UnsupportedError, listing the usable devices, when there
    is no such device or its compiler cannot build a kernel."""
    entries = list_devices()
    if not 0 <= index < len(entries):
        raise UnsupportedError(
            f"no OpenCL device {index}; there are {len(entries)} (usable: {usable_devices(entries)})"
        )
    if (error := entries[index].compiler_error) is not None:
        raise UnsupportedError(
            f"OpenCL device {entries[index].describe()} cannot build kernels (compiler fails: {error}); "
            f"usable: {usable_devices(entries)}"
        )
    return entries[index]
