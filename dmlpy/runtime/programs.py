"""Building kernels once: an in-memory cache per context keyed by KernelSpec, over pyopencl's on-disk binary
cache (keyed by source, build options, device and driver), so a second process skips the compiler too."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyopencl as cl
import pyopencl.cltypes as cltypes

from dmlpy.codegen import MAX_RANK, KernelSpec, LoweredOperator
from dmlpy.errors import DeviceRemovedError, KernelBuildError


class ProgramCache:
    """Built programs of one OpenCL context."""

    def __init__(self, context: cl.Context) -> None:
        self._context = context
        self._programs: dict[KernelSpec, cl.Program] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._programs)

    def get(self, spec: KernelSpec) -> cl.Program:
        with self._lock:
            program = self._programs.get(spec)
            if program is None:
                program = self._build(spec)
                self._programs[spec] = program
            return program

    def _build(self, spec: KernelSpec) -> cl.Program:
        try:
            program: cl.Program = cl.Program(self._context, spec.source).build(options=list(spec.build_options))
            return program
        except cl.RuntimeError as error:
            raise KernelBuildError(
                f"OpenCL could not build {spec.source_name} with {' '.join(spec.build_options)}", str(error)
            ) from error


def _uint8(values: tuple[int, ...]) -> Any:
    """An OpenCL ``uint8`` kernel argument holding ``values``, padded with 1s."""
    padded = (*values, *([1] * (MAX_RANK - len(values))))
    return np.array(padded, dtype=np.uint32).view(cltypes.uint8)[0]


@dataclass
class Launchable:
    """A kernel ready to launch for one lowered operator: its fixed layout arguments are prepared once."""

    kernel: cl.Kernel
    lowered: LoweredOperator
    layout_args: tuple[Any, ...]
    lock: threading.Lock

    @classmethod
    def create(cls, program: cl.Program, lowered: LoweredOperator) -> Launchable:
        layout = lowered.layout
        layout_args = (
            np.uint64(layout.element_count),
            _uint8(layout.sizes),
            *(_uint8(s) for s in layout.strides),
        )
        return cls(cl.Kernel(program, lowered.kernel.kernel_name), lowered, layout_args, threading.Lock())

    def launch(self, queue: cl.CommandQueue, tensors: list[tuple[cl.Buffer | None, int]]) -> cl.Event:
        """Enqueue over ``tensors``: (memory, element offset) per tensor in binding order."""
        args: list[Any] = []
        for memory, element_offset in tensors:
            args += [memory, np.uint64(element_offset)]
        args += self.layout_args
        try:
            # One pyopencl Kernel is shared by every dispatch of the operator; setting its arguments and
            # enqueueing must not interleave between threads.
            with self.lock:
                self.kernel.set_args(*args)
                return cl.enqueue_nd_range_kernel(queue, self.kernel, (self.lowered.global_size,), None)
        except cl.Error as error:
            raise DeviceRemovedError(f"enqueueing {self.lowered.kernel.kernel_name} failed: {error}") from error
