"""The one run path of the one-liners: an element-wise operator over NumPy arrays, through the same descriptors,
validation, binding table and command recorder as the object model.

A one-liner describes its call as an :class:`ArrayCall`: the descriptor class, its non-tensor fields, and one
NumPy array per tensor slot, each of the call's shape (a per-axis scale is a 0-stride view of a 1-D array, so
nothing is materialised). The runner then does what every one-liner needs:

- NumPy strides become DirectML strides, so views, transposes and broadcasts run without a gather copy; an
  input DirectML cannot bind as it lies (negative strides, a start off a 16-byte boundary) is copied, and an
  output of that kind is computed into a scratch array and copied into place;
- an output that is an input's very memory and layout runs in place (where the operator allows it); an input
  that overlaps the output otherwise is read from a snapshot, as NumPy's ufuncs do;
- arrays larger than one device buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE) run in pieces along their outer
  dimensions, which an element-wise operator does not notice;
- the compiled operator is cached per (device, descriptor class, fields, shape, dtypes, strides), so a repeated
  call costs a dictionary lookup instead of building and validating descriptors; and once a compiled operator's
  binding table has passed every rule for host arrays bound whole (with the same inputs in place), later calls
  launch it directly: the bindings' sizes follow from the same shape, strides and dtypes, so they would pass
  again.

Memory: on a CPU device the kernel reads and writes the arrays' own memory (host-pointer buffers, made
coherent by mapping the output); on other devices each input is uploaded once and the output downloaded once.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy.binding import BufferBinding
from dmlpy.dtypes import data_type_of
from dmlpy.enums import DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
from dmlpy.errors import InvalidArgumentError, OutOfMemoryError
from dmlpy.ops._base import OperatorDescBase
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.buffer import Buffer
from dmlpy.runtime.device import Device, check_process
from dmlpy.runtime.dispatchables import CompiledOperator
from dmlpy.runtime.recorder import CommandRecorder
from dmlpy.tensor import BufferTensorDesc, overlapping_dimension, packed_strides, whole_dwords

PIECE_ALIGNMENT = 4096
"""Pieces of an oversize array start at multiples of this many elements, so each stays page-aligned."""


@dataclass
class ArrayCall:
    """One one-liner call: ``desc_class`` with ``fields``, over ``inputs`` (one array or None per INPUTS slot)
    into ``output``. Every array has the output's shape. The arrays are NumPy arrays (``run``), or the first
    input and the output are ``pyopencl.array.Array``s (``device_array_runner.run_on_device``)."""

    desc_class: type[OperatorDescBase]
    fields: tuple[tuple[str, Any], ...]
    inputs: list[Any]
    output: Any


class CompiledCache:
    """Compiled, initialized operators per (device, key), the least recently used evicted past ``capacity``."""

    def __init__(self, capacity: int = 256) -> None:
        self._entries: OrderedDict[tuple[Any, ...], CompiledOperator] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

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


_cache = CompiledCache()


def compile_initialized(device: Device, desc: OperatorDescBase) -> CompiledOperator:
    """Create, compile and initialize an operator in one step, as the one-liners need it."""
    compiled = device.compile_operator(device.create_operator(desc))
    device.create_operator_initializer([compiled]).initialize()
    return compiled


def compiled_for(
    device: Device,
    desc_class: type[OperatorDescBase],
    fields: tuple[tuple[str, Any], ...],
    shape: tuple[int, ...],
    layout: Sequence[tuple[np.dtype[Any], tuple[int, ...]] | None],
) -> CompiledOperator:
    """The compiled, initialized ``desc_class`` with ``fields`` over tensors of ``shape``, one (dtype, element
    strides) or None per tensor slot in binding order; cached (see CompiledCache)."""
    key = (desc_class, fields, shape, tuple(None if t is None else (t[0].str, t[1]) for t in layout))

    def make() -> CompiledOperator:
        tensors = {
            slot: None
            if tensor is None
            else BufferTensorDesc(data_type=data_type_of(tensor[0]), sizes=shape, strides=tensor[1])
            for slot, tensor in zip((*desc_class.INPUTS, *desc_class.OUTPUTS), layout, strict=True)
        }
        return compile_initialized(device, desc_class(**tensors, **dict(fields)))

    return _cache.get(device, key, make)


def bindable_offset(byte_offset: int) -> bool:
    """Whether DirectML binds a tensor starting ``byte_offset`` bytes in (an address or a binding offset): only
    multiples of DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT (16)."""
    return byte_offset % DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 0


def element_strides(array: npt.NDArray[Any]) -> tuple[int, ...] | None:
    """The array's strides in elements, or None where DirectML cannot bind the array as it lies: negative
    strides, strides that are not a multiple of the element size, or a start that is not a multiple of
    DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT (16) bytes. DirectML binds tensors only at such offsets, and drivers
    rely on it: PoCL 3.1's vload_half8 crashes on a float16 array that starts 4 bytes past a 16-byte boundary."""
    itemsize = array.itemsize
    if not bindable_offset(array.ctypes.data) or any(s < 0 or s % itemsize for s in array.strides):
        return None
    return tuple(s // itemsize for s in array.strides)


def span(array: npt.NDArray[Any], strides: Sequence[int]) -> npt.NDArray[Any]:
    """A contiguous 1-D view of the memory from the array's first element to its last."""
    if array.flags.c_contiguous:
        return array.reshape(-1)
    elements = sum((n - 1) * s for n, s in zip(array.shape, strides, strict=True)) + 1
    return np.lib.stride_tricks.as_strided(array, shape=(elements,), strides=(array.itemsize,))


def _same_tensor(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> bool:
    return a.ctypes.data == b.ctypes.data and a.strides == b.strides and a.dtype == b.dtype


def run(call: ArrayCall, device: Device, *, max_buffer_bytes: int | None = None) -> None:
    """Compute ``call`` on ``device``, writing ``call.output``; see the module's docstring for what it decides.

    ``max_buffer_bytes``: the largest array to bind at once (default: the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    larger packed arrays run in pieces."""
    check_process()  # before any buffer is made: OpenCL does not survive fork
    if call.output.size == 0:
        return
    if max_buffer_bytes is None and _run_packed(call, device):
        return
    shared = overlapping_dimension(
        call.output.shape, call.output.strides, element_width=call.output.itemsize, unit="bytes"
    )
    if shared is not None:
        raise InvalidArgumentError(
            f"out has strides {call.output.strides} (bytes), which make two of its elements share memory: {shared}; "
            "an output must give every element its own address (0 strides broadcast inputs only)"
        )
    shape = call.output.shape or (1,)  # DirectML has no 0-d tensors: a scalar runs as one element
    inputs = [None if a is None else _native(a).reshape(shape) for a in call.inputs]
    target = call.output.reshape(shape)
    in_place = [False] * len(inputs)
    for index, array in enumerate(inputs):
        if array is None:
            continue
        if call.desc_class.SUPPORTS_IN_PLACE and _same_tensor(array, target):
            in_place[index] = True
        elif np.may_share_memory(array, target):
            inputs[index] = array.copy()  # partial overlap: read from a snapshot, as NumPy ufuncs do
    limit = device.cl_device.max_mem_alloc_size if max_buffer_bytes is None else max_buffer_bytes
    _run_in_pieces(call, device, inputs, target, in_place, limit)


def _run_packed(call: ArrayCall, device: Device) -> bool:
    """The common call, recognised cheaply: every array packed (C-contiguous), native-endian and 16-byte aligned,
    each input the output itself (in place, where the operator allows it) or apart from it, all within one
    buffer. Runs it and returns True; returns False, having done nothing, for the general path to decide. A 1K
    dml.round spends a third of its time on the general path's layout analysis, which gives the same answer
    here."""
    output = call.output
    limit = device.cl_device.max_mem_alloc_size
    if not output.flags.c_contiguous or any(a is not None and a.nbytes > limit for a in (*call.inputs, output)):
        return False  # an array past one buffer runs in pieces (an input may be larger than the output)
    output_address = output.ctypes.data
    if not bindable_offset(output_address):
        return False
    in_place: list[bool] = []
    for array in call.inputs:
        if array is None:
            in_place.append(False)
            continue
        if array.shape != output.shape or not array.flags.c_contiguous or not array.dtype.isnative:
            return False
        address = array.ctypes.data
        alias = address == output_address and array.dtype == output.dtype
        if (alias and not call.desc_class.SUPPORTS_IN_PLACE) or not bindable_offset(address):
            return False
        if not alias and np.may_share_memory(array, output):
            return False
        in_place.append(alias)
    shape = output.shape or (1,)
    strides = packed_strides(shape)
    layout = [None if a is None else (a.dtype, strides) for a in (*call.inputs, output)]
    compiled = compiled_for(device, call.desc_class, call.fields, shape, layout)
    spans = [None if a is None else a.reshape(-1) for a in (*call.inputs, output)]
    _bind_and_launch(device, compiled, spans, in_place, output_has_gaps=False)
    return True


def _native(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    # Big-endian data on a little-endian host: the device reads native byte order.
    return array if array.dtype.isnative else array.astype(array.dtype.newbyteorder("="))


def _run_in_pieces(
    call: ArrayCall,
    device: Device,
    inputs: list[npt.NDArray[Any] | None],
    target: npt.NDArray[Any],
    in_place: list[bool],
    limit: int,
) -> None:
    """Dispatch, in pieces along the outermost dimension that has more than one element while any operand's
    memory is larger than ``limit`` bytes. Only packed arrays (and small broadcast ones) are split: a strided
    array's pieces would each still span most of its memory."""
    oversize = [a for a in (*inputs, target) if a is not None and span_bytes(a.shape, a.strides, a.itemsize) > limit]
    if not oversize:
        _dispatch(call, device, inputs, target, in_place)
        return
    dim = next((d for d, size in enumerate(target.shape) if size > 1), None)
    if dim is None or not all(a.flags.c_contiguous for a in oversize):
        raise OutOfMemoryError(
            f"an array of {max(a.nbytes for a in oversize)} bytes is larger than {device.name} allows for one "
            f"buffer ({limit} bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE), and only packed arrays are split; pass a "
            "packed copy, or split it"
        )
    bytes_per_index = max(a.nbytes // a.shape[dim] for a in oversize)
    step = limit // bytes_per_index
    if step > PIECE_ALIGNMENT:
        step -= step % PIECE_ALIGNMENT
    for start in range(0, target.shape[dim], max(1, step)):  # a step of 0: each index splits the next dimension
        index = (slice(None),) * dim + (slice(start, start + max(1, step)),)
        pieces = [None if a is None else a[index] for a in inputs]
        _run_in_pieces(call, device, pieces, target[index], in_place, limit)


def span_bytes(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> int:
    """Bytes from an array's lowest element to its highest (NumPy or pyopencl: strides in bytes, whatever their
    signs)."""
    return int(sum((n - 1) * abs(s) for n, s in zip(shape, strides, strict=True))) + itemsize


def _dispatch(
    call: ArrayCall,
    device: Device,
    inputs: list[npt.NDArray[Any] | None],
    target: npt.NDArray[Any],
    in_place: list[bool],
) -> None:
    """One dispatch over arrays that fit a buffer. An array DirectML cannot bind as it lies is copied (an
    input) or computed into scratch and copied into place (the output); the input that is the output's memory
    then goes with it."""
    target_strides = element_strides(target)
    scratch = target if target_strides is not None else np.empty(target.shape, target.dtype)
    aliased = [flag and scratch is target for flag in in_place]
    operands: list[npt.NDArray[Any] | None] = []
    strides: list[tuple[int, ...] | None] = []
    for array in (*inputs, scratch):
        array_strides = None if array is None else element_strides(array)
        if array is not None and array_strides is None:
            # A fresh copy, not ascontiguousarray: a packed but misaligned array would come back as it is.
            array = array.copy()
            array_strides = element_strides(array)
        operands.append(array)
        strides.append(array_strides)
    layout = [None if a is None or s is None else (a.dtype, s) for a, s in zip(operands, strides, strict=True)]
    compiled = compiled_for(device, call.desc_class, call.fields, scratch.shape, layout)
    spans = [None if a is None else span(a, s or ()) for a, s in zip(operands, strides, strict=True)]
    output_span = spans[-1]
    assert output_span is not None
    _bind_and_launch(device, compiled, spans, aliased, output_has_gaps=output_span.size != scratch.size)
    if scratch is not target:
        target[...] = scratch


def _host_buffer(device: Device, memory: cl.Buffer, nbytes: int) -> Buffer:
    # DirectML binds whole DWORDs, so a binding's size is the span rounded up to 4 bytes; the kernel touches
    # only the elements, never those rounding bytes, which the host array need not have.
    return Buffer(device, memory, whole_dwords(nbytes))


def _bind_and_launch(
    device: Device,
    compiled: CompiledOperator,
    spans: list[npt.NDArray[Any] | None],
    in_place: list[bool],
    *,
    output_has_gaps: bool,
) -> None:
    """Bind the spans (one per tensor, the output last) through a binding table and record the dispatch;
    OutOfMemoryError where the device cannot hold them."""
    try:
        _launch_and_collect(device, compiled, spans, in_place, output_has_gaps=output_has_gaps)
    except cl.MemoryError as error:
        raise OutOfMemoryError(f"{device.name} could not hold the arrays: {error}") from error


def _launch_and_collect(
    device: Device,
    compiled: CompiledOperator,
    spans: list[npt.NDArray[Any] | None],
    in_place: list[bool],
    *,
    output_has_gaps: bool,
) -> None:
    context, queue, flags = device.context, device.queue, cl.mem_flags
    output = spans[-1]
    assert output is not None
    if device.is_cpu:
        output_memory = cl.Buffer(context, flags.READ_WRITE | flags.USE_HOST_PTR, hostbuf=output)
        input_flags = flags.READ_ONLY | flags.USE_HOST_PTR
    else:
        # A strided output is uploaded too, so the bytes between its elements come back unchanged.
        output_memory = (
            cl.Buffer(context, flags.READ_WRITE | flags.COPY_HOST_PTR, hostbuf=output)
            if output_has_gaps or any(in_place)
            else cl.Buffer(context, flags.READ_WRITE, output.nbytes)
        )
        input_flags = flags.READ_ONLY | flags.COPY_HOST_PTR
    memories = [
        None if array is None else output_memory if alias else cl.Buffer(context, input_flags, hostbuf=array)
        for array, alias in zip(spans[:-1], in_place, strict=True)
    ]
    try:
        done = _record(device, compiled, memories, output_memory, spans, tuple(in_place))
        if device.is_cpu:
            # Mapping is OpenCL's way to make the kernel's writes visible to the host; on a CPU device it copies
            # nothing.
            mapped, _ = cl.enqueue_map_buffer(
                queue,
                output_memory,
                cl.map_flags.READ,
                0,
                output.shape,
                output.dtype,
                wait_for=[done],
                is_blocking=True,
            )
            mapped.base.release(queue)
        else:
            cl.enqueue_copy(queue, output, output_memory, wait_for=[done], is_blocking=True)
    except BaseException:
        # Whatever stopped the call (Ctrl-C right after the enqueue, most likely), the kernel may still be reading
        # and writing the arrays, which the caller frees as soon as the exception reaches it: wait first.
        _finish_despite_interrupts(queue)
        raise


_checked_bindings: weakref.WeakKeyDictionary[CompiledOperator, set[tuple[bool, ...]]] = weakref.WeakKeyDictionary()
"""Per compiled operator, the in-place patterns whose whole-array host bindings passed the binding table."""
_checked_lock = threading.Lock()


def _record(
    device: Device,
    compiled: CompiledOperator,
    inputs: list[cl.Buffer | None],
    output: cl.Buffer,
    spans: list[npt.NDArray[Any] | None],
    in_place: tuple[bool, ...],
) -> cl.Event:
    """Dispatch ``compiled`` over whole buffers (one per span, the output last): through a binding table and the
    command recorder, which check every rule, the first time for ``compiled`` and ``in_place``; directly after
    that, as the same shape, strides and dtypes give the same binding sizes (a 1K call: 250 -> 90 us on PoCL)."""
    with _checked_lock:
        checked = in_place in _checked_bindings.get(compiled, ())
    if checked:
        return compiled.launchable.launch(device.queue, [(memory, 0) for memory in (*inputs, output)])
    output_buffer = _host_buffer(device, output, _nbytes(spans[-1]))
    table = BindingTable(device, compiled)
    table.bind_inputs(
        [
            None
            if memory is None
            else BufferBinding(output_buffer if alias else _host_buffer(device, memory, _nbytes(span)))
            for memory, span, alias in zip(inputs, spans[:-1], in_place, strict=True)
        ]
    )
    table.bind_outputs([BufferBinding(output_buffer)])
    done = CommandRecorder(device).record_dispatch(device.queue, compiled, table)
    with _checked_lock:
        _checked_bindings.setdefault(compiled, set()).add(in_place)
    return done


def _nbytes(span: npt.NDArray[Any] | None) -> int:
    assert span is not None
    return span.nbytes


def _finish_despite_interrupts(queue: cl.CommandQueue) -> None:
    """Wait until every command on ``queue`` is done; a second Ctrl-C meanwhile waits on too, and is raised
    after, so memory a kernel uses is never freed under it."""
    interrupted: KeyboardInterrupt | None = None
    while True:
        try:
            queue.finish()
            break
        except KeyboardInterrupt as again:
            interrupted = again
    if interrupted is not None:
        raise interrupted
