"""Running a compiled operator directly on NumPy arrays, for the one-line entry points.

No hidden copies: on a CPU device the kernel reads and writes the arrays' own memory (host-pointer buffers,
made coherent by mapping the output); on other devices each input is uploaded once and the output
downloaded once. Each array passed here is a contiguous 1-D span from the tensor's first element to its last,
so element offsets are 0 and strides come from the descriptor.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy.errors import OutOfMemoryError
from dmlpy.ops._base import OperatorDescBase
from dmlpy.runtime.device import Device
from dmlpy.runtime.dispatchables import CompiledOperator


class CompiledCache:
    """Compiled, initialized operators per (device, key), the least recently used evicted past ``capacity``.

    The one-liners key it by plain tuples (dtype, shape, strides, mode), so a repeated call costs a dictionary
    lookup instead of building and validating descriptors."""

    def __init__(self, capacity: int = 256) -> None:
        self._entries: OrderedDict[tuple[Any, ...], CompiledOperator] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def get(self, device: Device, key: tuple[Any, ...], make: Callable[[], CompiledOperator]) -> CompiledOperator:
        full_key = (id(device), *key)
        with self._lock:
            compiled = self._entries.get(full_key)
            if compiled is not None and compiled.device is device:
                self._entries.move_to_end(full_key)
                return compiled
        compiled = make()
        with self._lock:
            self._entries[full_key] = compiled
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
        return compiled


def compile_initialized(device: Device, desc: OperatorDescBase) -> CompiledOperator:
    """Create, compile and initialize an operator in one step, as the one-liners need it."""
    compiled = device.compile_operator(device.create_operator(desc))
    device.create_operator_initializer([compiled]).initialize()
    return compiled


def element_strides(array: npt.NDArray[Any]) -> tuple[int, ...] | None:
    """The array's strides in elements, or None where DirectML cannot express them (negative, not a multiple
    of the element size, or a misaligned start)."""
    itemsize = array.itemsize
    if array.ctypes.data % itemsize or any(s < 0 or s % itemsize for s in array.strides):
        return None
    return tuple(s // itemsize for s in array.strides)


def span(array: npt.NDArray[Any], strides: Sequence[int]) -> npt.NDArray[Any]:
    """A contiguous 1-D view of the memory from the array's first element to its last."""
    if array.flags.c_contiguous:
        return array.reshape(-1)
    elements = sum((n - 1) * s for n, s in zip(array.shape, strides, strict=True)) + 1
    return np.lib.stride_tricks.as_strided(array, shape=(elements,), strides=(array.itemsize,))


def run_on_arrays(
    device: Device,
    compiled: CompiledOperator,
    inputs: Sequence[npt.NDArray[Any] | None],
    output: npt.NDArray[Any],
    *,
    in_place: bool = False,
    output_has_gaps: bool = False,
) -> None:
    """Dispatch ``compiled`` over spans: one per input (None for an absent optional tensor) and the output.

    ``in_place``: the first input is the output's memory. ``output_has_gaps``: the output span holds bytes
    that are not elements (a strided view); they must come back unchanged.
    """
    limit = device.cl_device.max_mem_alloc_size
    for array in (*inputs, output):
        if array is not None and array.nbytes > limit:
            raise OutOfMemoryError(
                f"an array of {array.nbytes} bytes is larger than {device.name} allows for one buffer ({limit} "
                "bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE); split it"
            )
    try:
        _launch(device, compiled, inputs, output, in_place=in_place, output_has_gaps=output_has_gaps)
    except cl.MemoryError as error:
        raise OutOfMemoryError(f"{device.name} could not hold the arrays: {error}") from error


def _launch(
    device: Device,
    compiled: CompiledOperator,
    inputs: Sequence[npt.NDArray[Any] | None],
    output: npt.NDArray[Any],
    *,
    in_place: bool,
    output_has_gaps: bool,
) -> None:
    context, queue, flags = device.context, device.queue, cl.mem_flags
    if device.is_cpu:
        output_memory = cl.Buffer(context, flags.READ_WRITE | flags.USE_HOST_PTR, hostbuf=output)
        input_flags = flags.READ_ONLY | flags.USE_HOST_PTR
    else:
        # A strided output is uploaded too, so the bytes between its elements come back unchanged.
        output_memory = (
            cl.Buffer(context, flags.READ_WRITE | flags.COPY_HOST_PTR, hostbuf=output)
            if output_has_gaps or in_place
            else cl.Buffer(context, flags.READ_WRITE, output.nbytes)
        )
        input_flags = flags.READ_ONLY | flags.COPY_HOST_PTR
    input_memories = [
        None if array is None else cl.Buffer(context, input_flags, hostbuf=array)
        for array in (inputs[1:] if in_place else inputs)
    ]
    if in_place:
        input_memories.insert(0, output_memory)
    tensors = [(memory, 0) for memory in (*input_memories, output_memory)]
    done = compiled.launchable.launch(queue, tensors)
    if device.is_cpu:
        # Mapping is OpenCL's way to make the kernel's writes visible to the host; on a CPU device it copies
        # nothing.
        mapped, _ = cl.enqueue_map_buffer(
            queue, output_memory, cl.map_flags.READ, 0, output.shape, output.dtype, wait_for=[done], is_blocking=True
        )
        mapped.base.release(queue)
    else:
        cl.enqueue_copy(queue, output, output_memory, wait_for=[done], is_blocking=True)
