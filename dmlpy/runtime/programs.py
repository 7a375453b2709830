"""Building kernels once: an in-memory cache per context keyed by KernelSpec, over pyopencl's on-disk binary
cache (keyed by source, build options, device and driver), so a second process skips the compiler too."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyopencl as cl
import pyopencl.cltypes as cltypes

from dmlpy.errors import DeviceRemovedError, KernelBuildError, OutOfMemoryError
from dmlpy.kernels import (
    LAUNCH_PROFILE_NAMES,
    MAX_RANK,
    KernelParameter,
    KernelSpec,
    LaunchProfile,
    LoweredOperator,
    ParameterKind,
)
from dmlpy.runtime.cpu_runtime import PLATFORM as INTEL_PLATFORM
from dmlpy.runtime.platforms import CPU_RUNTIME_COMMAND, POCL_PLATFORM


def device_options(device: cl.Device) -> tuple[str, ...]:
    """Build options that depend on the device rather than the operator. On PoCL: the kernels' exact
    element-wise built-ins (DML_ELEMENTWISE_BUILTINS), which its clang lowers to the CPU's rounding
    instructions; and no NaN bit-copying (DML_KEEP_NAN_BITS=0), as its built-ins keep every NaN's sign and
    payload (the exhaustive float16 tests check it) and the check measured up to 1.3x slower on strided
    float32 there; and the Round extension's half tensors converted through integer bits (DML_HALF_BITS,
    opencl/half_bits.h; the element-wise template converts them so on every device), which its vectoriser
    handles where vload_half and vstore_half run element by element; and the integer products' pairs of
    16-bit products summed under a mask that changes no value (DML_PAIR_MASK, opencl/gemm_pairs.h), without which
    its LLVM 14 loses the vpmaddwd, where Intel's compiler makes VNNI's vpdpwssd of the plain sum. Everywhere else
    every rounding keeps NaN bits itself: NVIDIA's built-ins do not."""
    if device.platform.name == POCL_PLATFORM:
        return ("-DDML_ELEMENTWISE_BUILTINS=1", "-DDML_KEEP_NAN_BITS=0", "-DDML_HALF_BITS=1", "-DDML_PAIR_MASK=1")
    return ()


@dataclass
class SharedKernel:
    """The one pyopencl Kernel of a KernelSpec in a context, shared by every operator of that kind whatever
    its shape; setting its arguments and enqueueing must not interleave between threads, hence the lock."""

    kernel: cl.Kernel
    lock: threading.Lock
    local_size: tuple[int] | None


class ProgramCache:
    """Built programs, and their kernels, of one OpenCL context, for one of its devices."""

    def __init__(self, context: cl.Context, device: cl.Device) -> None:
        self._context = context
        self._device = device
        self._programs: dict[KernelSpec, cl.Program] = {}
        self._kernels: dict[KernelSpec, SharedKernel] = {}
        self._lock = threading.Lock()
        self.device_options = device_options(device)
        """Options this device adds to every KernelSpec's own (see device_options)."""

    def __len__(self) -> int:
        return len(self._programs)

    def get(self, spec: KernelSpec) -> cl.Program:
        with self._lock:
            program = self._programs.get(spec)
            if program is None:
                program = self._build(spec)
                self._programs[spec] = program
            return program

    def kernel(self, lowered: LoweredOperator) -> SharedKernel:
        """The shared kernel of ``lowered``'s KernelSpec, made once per context."""
        spec = lowered.kernel
        program = self.get(spec)
        with self._lock:
            shared = self._kernels.get(spec)
            if shared is None:
                kernel = cl.Kernel(program, spec.kernel_name)
                # Typed scalar arguments let pyopencl pack them all in one generated call: 0.5 us for the 8
                # arguments of a unary kernel on PoCL, against 6 us for each NumPy scalar set one by one.
                kernel.set_scalar_arg_dtypes(_argument_dtypes(lowered))
                shared = SharedKernel(kernel, threading.Lock(), _local_size(kernel, self._device, lowered))
                self._kernels[spec] = shared
            return shared

    def _build(self, spec: KernelSpec) -> cl.Program:
        try:
            options = [*spec.build_options, *self.device_options]
            program: cl.Program = cl.Program(self._context, spec.source).build(options=options)
            return program
        except cl.RuntimeError as error:
            log = str(error)
            hint = _UNKNOWN_CPU_HINT if "unknown target CPU" in log else ""
            raise KernelBuildError(
                f"OpenCL could not build {spec.source_name} with {' '.join(options)}{hint}", log
            ) from error


_UNKNOWN_CPU_HINT = (
    ". This OpenCL driver's compiler does not know this CPU: PoCL 3.0, which the pyopencl wheels bundle, uses "
    "LLVM 14, older than CPUs such as AMD Zen 5. dmlpy's default device is never one whose compiler fails; "
    "`dmlpy devices` lists those that work. Where none does, add Intel's OpenCL CPU runtime from PyPI, no root "
    f"needed: python {CPU_RUNTIME_COMMAND}"
)


_PARAMETER_DTYPES: dict[ParameterKind, Any] = {"int8": cltypes.int8, "uint8": cltypes.uint8, "ulong": np.uint64}


def _argument_dtypes(lowered: LoweredOperator) -> list[Any]:
    """The element-wise convention's scalar argument types (None for the buffers): per tensor its buffer and
    ulong offset, the ulong element count, then uint8 sizes and strides; then the kernel's own parameters."""
    tensor_count = len(lowered.layout.strides)
    convention = [*[None, np.uint64] * tensor_count, np.uint64, *[cltypes.uint8] * (1 + tensor_count)]
    return [*convention, *(_PARAMETER_DTYPES[parameter.kind] for parameter in lowered.parameters)]


def _uint8(values: tuple[int, ...]) -> Any:
    """An OpenCL ``uint8`` kernel argument holding ``values``, padded with 1s."""
    padded = (*values, *([1] * (MAX_RANK - len(values))))
    return np.array(padded, dtype=np.uint32).view(cltypes.uint8)[0]


def _parameter(parameter: KernelParameter) -> Any:
    """A kernel parameter as pyopencl passes it: a vector padded with 0s, or one ulong."""
    if parameter.kind == "ulong":
        (value,) = parameter.values
        return np.uint64(value)
    padded = (*parameter.values, *([0] * (MAX_RANK - len(parameter.values))))
    numpy_type = np.int32 if parameter.kind == "int8" else np.uint32
    return np.array(padded, dtype=numpy_type).view(_PARAMETER_DTYPES[parameter.kind])[0]


LONG_WORK_ITEM = 256
"""Elements per work-item from which a CPU device runs work-groups of one work-item (see _local_size)."""

LAUNCH_PROFILE_CHOICES = ("auto", *LAUNCH_PROFILE_NAMES)
GPU_WORK_GROUP_SIZE = 256
"""Work-items per work-group under the "gpu" profile (capped by the device and the kernel): 8 warps of 32 or 4
wavefronts of 64, a common best for memory-bound kernels."""
GPU_GROUPS_PER_FILL = 4
"""The "gpu" grid is compute units x max work-group size x this: enough resident work-items to hide memory
latency on every compute unit: on an H100, 132 x 1024 x 4 = 540,672 work-items measured within 3% of the best
grid for float32 Round at 16M-64M elements, and half of it 6-8% slower."""


def launch_profile(device: cl.Device, requested: str) -> LaunchProfile:
    """The launch profile for ``device``: ``requested`` ("cpu" or "gpu"), or for "auto" "cpu" on CPU devices
    and "gpu" on every other kind. The "gpu" numbers come from the device: the work-group size (a power of two
    within CL_DEVICE_MAX_WORK_GROUP_SIZE) and the grid that fills CL_DEVICE_MAX_COMPUTE_UNITS. "cpu" on Intel's
    CPU runtime puts a vector's lanes across work-items (``LaunchProfile.lanes_across_work_items``): its compiler
    vectorises across work-items only, where PoCL's vectorises a work-item's loop (and ran EXP 10x slower with
    one element a work-item). Oclgrind keeps PoCL's shape: the Oclgrind suites check it, and
    tests/device/runtime's the lanes' shape."""
    on_cpu = bool(device.type & cl.device_type.CPU)
    name = ("cpu" if on_cpu else "gpu") if requested == "auto" else requested
    if name == "cpu":
        across = on_cpu and device.platform.name == INTEL_PLATFORM
        return LaunchProfile(
            "cpu", vector_width=8, work_group_size=1 if on_cpu else None, lanes_across_work_items=across
        )
    group = min(GPU_WORK_GROUP_SIZE, _power_of_two_at_most(device.max_work_group_size))
    grid = device.max_compute_units * device.max_work_group_size * GPU_GROUPS_PER_FILL
    return LaunchProfile("gpu", vector_width=4, work_group_size=group, grid_size=max(group, grid - grid % group))


def _power_of_two_at_most(value: int) -> int:
    return 1 << (max(1, value).bit_length() - 1)


def _local_size(kernel: cl.Kernel, device: cl.Device, lowered: LoweredOperator) -> tuple[int] | None:
    """The work-group size of ``lowered``'s launches.

    "gpu" profile, and a "cpu" kernel of its own work-group size (the element-wise template's one-element work-items
    on Intel's runtime): that size, or less where the kernel cannot run that many (CL_KERNEL_WORK_GROUP_SIZE; a
    power of two, so it still divides the launch's whole groups). "cpu" profile on a CPU device otherwise:
    work-groups of one work-item when each work-item already loops over many elements, else the driver's choice.
    PoCL compiles a kernel once per local size and picks the local size from the global size, so a fixed one
    means one compiled variant for every shape (found in its disk cache by the next process), and its work-group
    loop adds nothing to a work-item that is a long loop already."""
    profile = lowered.profile
    group = profile.work_group_size if profile.grid_stride else lowered.work_group_size
    if group is not None:
        limit = kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, device)
        return (min(group, _power_of_two_at_most(limit)),)
    return (1,) if profile.work_group_size == 1 and lowered.elements_per_work_item >= LONG_WORK_ITEM else None


@dataclass
class Launchable:
    """One lowered operator ready to launch: its kind's shared kernel, and its own layout arguments, prepared
    once."""

    shared: SharedKernel
    lowered: LoweredOperator
    layout_args: tuple[Any, ...]

    @classmethod
    def create(cls, programs: ProgramCache, lowered: LoweredOperator) -> Launchable:
        layout = lowered.layout
        layout_args = (
            layout.element_count,
            _uint8(layout.sizes),
            *(_uint8(s) for s in layout.strides),
            *(_parameter(parameter) for parameter in lowered.parameters),
        )
        return cls(programs.kernel(lowered), lowered, layout_args)

    def launch(
        self,
        queue: cl.CommandQueue,
        tensors: Sequence[tuple[cl.Buffer | None, int]],
        wait_for: Sequence[cl.Event] | None = None,
    ) -> cl.Event:
        """Enqueue over ``tensors``: (memory, element offset) per tensor in binding order, after ``wait_for``."""
        args: list[Any] = []
        for memory, element_offset in tensors:
            args += [memory, element_offset]
        shared, kernel = self.shared, self.shared.kernel
        try:
            with shared.lock:
                kernel.set_args(*args, *self.layout_args)
                return self._enqueue(queue, wait_for)
        except cl.MemoryError as error:  # out of resources or memory: the call fails, the device works on
            raise OutOfMemoryError(
                f"enqueueing {self.lowered.kernel.kernel_name} ran out of memory: {error}"
            ) from error
        except cl.Error as error:
            raise DeviceRemovedError(f"enqueueing {self.lowered.kernel.kernel_name} failed: {error}") from error

    def _enqueue(self, queue: cl.CommandQueue, wait_for: Sequence[cl.Event] | None) -> cl.Event:
        """The launch's ranges (LoweredOperator.launch_ranges), each after the one before, in the kernel's
        work-groups where they are whole, else the driver's (the rest after whole groups); the last one's event."""
        kernel, local_size = self.shared.kernel, self.shared.local_size
        ranges = self.lowered.launch_ranges
        if len(ranges) == 1 and ranges[0][0] == 0 and (local_size is None or ranges[0][1] % local_size[0] == 0):
            return cl.enqueue_nd_range_kernel(queue, kernel, (ranges[0][1],), local_size, wait_for=wait_for)
        events: list[cl.Event] = []
        for first, count in ranges:
            local = local_size if local_size is not None and count % local_size[0] == 0 else None
            offset = (first,) if first else None
            after = events[-1:] or wait_for
            events.append(cl.enqueue_nd_range_kernel(queue, kernel, (count,), local, offset, wait_for=after))
        return events[-1]
