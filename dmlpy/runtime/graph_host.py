"""NumPy memory a graph call (dmlpy/runtime/graph_calls.py) binds where it lies on a CPU device: a packed input
read in place (``bound_as_is``), its host buffer kept while the same array comes again (``HostInputs``); a packed
output computed into the array returned (``hosted``; the arrays themselves: dmlpy/runtime/graph_outputs.py) and
made visible by one map (``coherent``); anything else through a buffer the call keeps (``write``)."""

from __future__ import annotations

import ctypes
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy.binding import BufferBinding
from dmlpy.dtypes import is_nibble
from dmlpy.enums import DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
from dmlpy.graph.builder import tensor_bytes
from dmlpy.runtime.buffer import Buffer
from dmlpy.runtime.cpu_runtime import PLATFORM as INTEL_PLATFORM
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.graph_arguments import packed
from dmlpy.tensor import BufferTensorDesc

ALIGNED_FROM_BYTES = 1 << 16
"""From how many bytes a NumPy input of a call on pyopencl arrays must start at ``input_alignment``'s multiple to be
read where it lies (such a call's host buffer is over the array itself, not ``HostInputs``')."""

HOST_ALIGNMENT = 128
"""Bytes at whose multiples a hosted output's memory starts: Intel's CPU runtime computes in host memory in place
only from its CL_DEVICE_MEM_BASE_ADDR_ALIGN (1024 bits), and copies it twice a call otherwise
(docs/performance.md, the two CPU runtimes)."""


def input_alignment(device: DeviceBase) -> int:
    """Bytes at whose multiples a host buffer over an input starts (``HostInputs``; on a call on pyopencl arrays, a
    NumPy input of ALIGNED_FROM_BYTES or more read where it lies): Intel's CPU runtime copies host memory that does
    not start at a multiple of HOST_ALIGNMENT at every call, at a third of a plain copy's speed, and the kept
    buffer is then faster (rep.run of a float32 Relu, least of 300 or
    30 calls, in place against through the kept buffer: 1K 108 against 131 us, 64K 320 against 215 us, 1M 3.8
    against 1.5 ms; 16M 136-188 against 73-78 ms, from an aligned array 42-60 ms); PoCL reads any in place (16M:
    12.6 ms, aligned 11.4 ms)."""
    return HOST_ALIGNMENT if device.cl_device.platform.name == INTEL_PLATFORM else DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT


def bound_as_is(device: DeviceBase, value: Any, desc: BufferTensorDesc, alignment: int, address: int) -> bool:
    """Whether a NumPy argument of a packed tensor is bound as its own memory: on a CPU device, a tensor of whole
    bytes (4-bit ones are packed two a byte first) whose array lies as it reads, from a bindable start (from
    ``alignment``'s multiple at ALIGNED_FROM_BYTES or more), holding its TotalTensorSizeInBytes (a tensor's bytes
    are rounded up to 4). ``address``: where its memory starts (``value.ctypes.data``, read once per call: a
    microsecond or two each time)."""
    if not (device.is_cpu and isinstance(value, np.ndarray)) or is_nibble(desc.data_type):
        return False
    start = alignment if value.nbytes >= ALIGNED_FROM_BYTES else DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
    return bool(value.flags.c_contiguous) and address % start == 0 and value.nbytes >= desc.total_tensor_size_in_bytes


def hosted(device: DeviceBase, desc: BufferTensorDesc) -> bool:
    """Whether an output is computed into the NumPy array a call returns: on a CPU device, packed, whole bytes."""
    return device.is_cpu and not is_nibble(desc.data_type) and packed(desc)


def own_binding(buffer: Buffer) -> BufferBinding:
    """A binding of the whole of a buffer the call made itself (so live and of this device): pydantic's checks of
    a caller's binding, which cost more than the rest of the binding, have nothing to find in it. The binding
    table still checks its size against the tensor's."""
    return BufferBinding.model_construct(buffer=buffer, offset=0, size_in_bytes=None)


def host_buffer(device: DeviceBase, memory: npt.NDArray[Any], *, written: bool) -> Buffer:
    """A buffer over ``memory`` itself (C-contiguous): a CPU device's kernels read it there, and write it where
    ``written`` (an output; an input may be a read-only array). It holds ``memory`` alive."""
    flags = (cl.mem_flags.READ_WRITE if written else cl.mem_flags.READ_ONLY) | cl.mem_flags.USE_HOST_PTR
    return Buffer(device, cl.Buffer(device.context, flags, hostbuf=memory), memory.nbytes)


@dataclass(frozen=True)
class _Held:
    """The host buffer over one input array, and what says it is still that array's memory."""

    owner: weakref.ref[npt.NDArray[Any]]
    """The array that holds the memory (the argument's ``base`` where that is an array, else the argument)."""
    layout: tuple[Any, ...]
    binding: BufferBinding


class HostInputs:
    """Per graph input, the host buffer of the last NumPy argument bound where it lies, kept while the same
    memory comes again: the same owning array, alive (a weak reference: the call keeps no caller's array alive),
    and the same data pointer, shape, strides and dtype; anything else gets a new buffer. On a CPU device the
    buffer is the host memory itself (USE_HOST_PTR), so a kernel reads what the array holds at each call, never a
    copy made at an earlier one. The buffer is made over the memory's address, not the array, so that it holds
    no reference to the array; it is used only while the weak reference says the memory is alive.

    The buffer starts at the array's start rounded down to ``alignment`` bytes (``input_alignment``: 128 on
    Intel's runtime, which reads host memory in place only from there and copies it at every call otherwise), and
    the binding's offset is the difference: those bytes before the array lie in its own page (128 divides a
    page), and a read-only buffer's are never read nor written (16M float32 Relu on Intel's runtime: 48.7 ms from
    an unaligned input through the kept buffer, 23.6 ms in place)."""

    def __init__(self) -> None:
        self._held: dict[int, _Held] = {}

    def binding(
        self, device: DeviceBase, index: int, value: npt.NDArray[Any], address: int, alignment: int
    ) -> BufferBinding:
        """The binding of the host buffer graph input ``index`` reads ``value`` (C-contiguous, bound as it is, from
        ``address``, a multiple of DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) through."""
        owner = value.base if isinstance(value.base, np.ndarray) else value
        # While the owner lives its memory does: these bytes are still its (a resize that moved them moves the
        # address; one that shrank them in place refuses a view of the old extent).
        layout = (address, value.shape, value.strides, value.dtype)
        held = self._held.get(index)
        if held is not None and held.owner() is owner and held.layout == layout:
            return held.binding
        before = address % alignment
        size = before + value.nbytes
        memory = (ctypes.c_byte * size).from_address(address - before)  # references nothing
        flags = cl.mem_flags.READ_ONLY | cl.mem_flags.USE_HOST_PTR
        buffer = Buffer(device, cl.Buffer(device.context, flags, hostbuf=memory), size)
        binding = BufferBinding.model_construct(buffer=buffer, offset=before, size_in_bytes=None)  # as own_binding
        held = self._held[index] = _Held(weakref.ref(owner), layout, binding)
        return held.binding


def coherent(device: DeviceBase, buffer: Buffer, dispatched: cl.Event) -> None:
    """The kernels' writes to a host buffer made visible once ``dispatched`` is done: mapping is OpenCL's way to
    do so (on a CPU device it copies nothing), and a blocking map after the dispatch's event is the call's one
    wait."""
    mapped, _ = cl.enqueue_map_buffer(
        device.queue,
        buffer.memory,
        cl.map_flags.READ,
        0,
        (buffer.size,),
        np.dtype(np.uint8),
        wait_for=[dispatched],
        is_blocking=True,
    )
    mapped.base.release(device.queue)


def write(buffer: Buffer, value: npt.NDArray[Any] | np.generic, desc: BufferTensorDesc) -> None:
    """A NumPy argument into its kept buffer, as ``desc`` reads it."""
    if packed(desc):
        buffer.write(np.ascontiguousarray(value))  # the same elements in the same order, whatever the shape
    else:
        buffer.write(np.frombuffer(tensor_bytes(value, desc), np.uint8))
