"""The one-liners' host memory: NumPy arrays in, NumPy arrays out, waiting for the result.

- NumPy strides become DirectML strides, so views, transposes and broadcasts run without a gather copy; the
  in-place / snapshot / scratch policy (``dispatch.place``) copies an input DirectML cannot bind as it lies
  (negative strides, a start off a 16-byte boundary) and computes an output of that kind into scratch, copied
  into place after;
- arrays larger than one device buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE) run in pieces along their outer
  dimensions, which an element-wise operator does not notice;
- the common call (every array packed, aligned, apart or in place) is recognised cheaply (``_run_packed``);
- 4-bit arrays (ml_dtypes' int4 and uint4, a byte an element) are packed two a byte into a buffer of their own
  and a 4-bit output unpacked after (``dmlpy.nibbles``): strides count elements either way, so a span packs as
  it lies. A 4-bit output that is not C-contiguous is computed into a packed array and copied into place.

Memory: on a CPU device the kernel reads and writes the arrays' own memory (host-pointer buffers, made coherent
by mapping the output); on other devices each input is uploaded once and the output downloaded once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy import nibbles
from dmlpy.arrays.dispatch import (
    ArrayCall,
    Bound,
    bindable_offset,
    compiled_for,
    dispatch,
    place,
    span_bytes,
)
from dmlpy.errors import InvalidArgumentError, OutOfMemoryError
from dmlpy.runtime.device import Device
from dmlpy.runtime.device_choice import default_device
from dmlpy.runtime.dispatchables import CompiledOperator
from dmlpy.tensor import overlapping_dimension, packed_strides

PIECE_ALIGNMENT = 4096
"""Pieces of an oversize array start at multiples of this many elements, so each stays page-aligned."""


def new_array(x: npt.NDArray[Any], shape: tuple[int, ...], dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """A one-liner's result when no ``out`` is given."""
    return np.empty(shape, dtype)


def device_for(x: npt.NDArray[Any], *, extensions: bool) -> Device:
    """The device a host call runs on when none is given: the default one (with extensions where the operator
    is one)."""
    return default_device(extensions=extensions)


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


class _Arrays:
    """The placement policy's questions (``dispatch.Placement``) about NumPy arrays, for one dispatch: it
    remembers each array's element strides (``element_strides`` reads the address through ``ctypes``, a
    microsecond each), which the dispatch then binds."""

    def __init__(self) -> None:
        self._strides: dict[int, tuple[int, ...] | None] = {}

    def strides(self, array: npt.NDArray[Any]) -> tuple[int, ...] | None:
        """``element_strides(array)``, asked once per array (the arrays outlive the dispatch, so ids are safe)."""
        key = id(array)
        if key not in self._strides:
            self._strides[key] = element_strides(array)
        return self._strides[key]

    def bindable(self, array: npt.NDArray[Any]) -> bool:
        return self.strides(array) is not None

    @staticmethod
    def same_tensor(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> bool:
        return a.ctypes.data == b.ctypes.data and a.strides == b.strides and a.dtype == b.dtype

    @staticmethod
    def overlap(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> bool:
        return bool(np.may_share_memory(a, b))

    @staticmethod
    def packed_copy(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
        # A fresh copy, not ascontiguousarray: a packed but misaligned array would come back as it is.
        return array.copy()

    @staticmethod
    def scratch_for(target: npt.NDArray[Any]) -> npt.NDArray[Any]:
        return np.empty(target.shape, target.dtype)


class _WholeArrays(_Arrays):
    """The policy over whole arrays that run in pieces, before any piece: it settles what is in place and
    snapshots what overlaps the output (a piece's input could be an earlier piece's output); binding is each
    piece's matter."""

    def bindable(self, array: npt.NDArray[Any]) -> bool:
        return True


def run(call: ArrayCall, device: Device, *, max_buffer_bytes: int | None = None) -> None:
    """Compute ``call`` (NumPy arrays, the output non-empty) on ``device``, writing ``call.output``; see the
    module's docstring for what it decides.

    ``max_buffer_bytes``: the largest array to bind at once (default: the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    larger packed arrays run in pieces."""
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
    limit = device.cl_device.max_mem_alloc_size if max_buffer_bytes is None else max_buffer_bytes
    if not _oversize([*inputs, target], limit):
        _dispatch(call, device, inputs, target)
        return
    inputs, _, _ = place(call.desc_class, inputs, target, _WholeArrays())
    _run_in_pieces(call, device, inputs, target, limit)


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
    _launch(device, compiled, spans, in_place, output_has_gaps=False)
    return True


def _native(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    # Big-endian data on a little-endian host: the device reads native byte order.
    return array if array.dtype.isnative else array.astype(array.dtype.newbyteorder("="))


def _run_in_pieces(
    call: ArrayCall,
    device: Device,
    inputs: list[npt.NDArray[Any] | None],
    target: npt.NDArray[Any],
    limit: int,
) -> None:
    """Dispatch, in pieces along the outermost dimension that has more than one element while any operand's
    memory is larger than ``limit`` bytes. Only packed arrays (and small broadcast ones) are split: a strided
    array's pieces would each still span most of its memory."""
    oversize = _oversize([*inputs, target], limit)
    if not oversize:
        _dispatch(call, device, inputs, target)
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
        _run_in_pieces(call, device, pieces, target[index], limit)


def _oversize(arrays: Sequence[npt.NDArray[Any] | None], limit: int) -> list[npt.NDArray[Any]]:
    """The arrays whose memory spans more than ``limit`` bytes."""
    return [a for a in arrays if a is not None and span_bytes(a.shape, a.strides, a.itemsize) > limit]


def _dispatch(
    call: ArrayCall,
    device: Device,
    inputs: list[npt.NDArray[Any] | None],
    target: npt.NDArray[Any],
) -> None:
    """One dispatch over arrays that fit a buffer, placed by the policy (``dispatch.place``): an array DirectML
    cannot bind as it lies is copied (an input) or computed into scratch and copied into place (the output); the
    input that is the output's memory then goes with it."""
    if nibbles.is_nibble_dtype(target.dtype) and not target.flags.c_contiguous:
        # The kernel writes a 4-bit output packed only (two elements a byte, each byte by one work-item).
        packed = np.empty(target.shape, target.dtype)
        _dispatch(call, device, inputs, packed)
        target[...] = packed
        return
    placement = _Arrays()
    operands, aliased, scratch = place(call.desc_class, inputs, target, placement)
    strides = [None if a is None else placement.strides(a) for a in (*operands, scratch)]
    layout = [
        None if a is None or s is None else (a.dtype, s) for a, s in zip((*operands, scratch), strides, strict=True)
    ]
    compiled = compiled_for(device, call.desc_class, call.fields, scratch.shape, layout)
    spans = [None if a is None else span(a, s or ()) for a, s in zip((*operands, scratch), strides, strict=True)]
    output_span = spans[-1]
    assert output_span is not None
    _launch(device, compiled, spans, aliased, output_has_gaps=output_span.size != scratch.size)
    if scratch is not target:
        target[...] = scratch


def _launch(
    device: Device,
    compiled: CompiledOperator,
    spans: list[npt.NDArray[Any] | None],
    in_place: list[bool],
    *,
    output_has_gaps: bool,
) -> None:
    """Bind the spans (one per tensor, the output last) as buffers over the host memory, dispatch, and wait
    until the output's memory holds the result; OutOfMemoryError where the device cannot hold them."""
    context, queue, flags = device.context, device.queue, cl.mem_flags
    result = spans[-1]
    assert result is not None
    spans = [None if span is None else _bound_span(span) for span in spans]
    output = spans[-1]
    assert output is not None
    try:
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
        tensors = [
            None
            if array is None
            else Bound(
                output_memory if alias else cl.Buffer(context, input_flags, hostbuf=array),
                0,
                array.nbytes,
                array.itemsize,
            )
            for array, alias in zip(spans[:-1], in_place, strict=True)
        ]
        tensors.append(Bound(output_memory, 0, output.nbytes, output.itemsize))
    except cl.MemoryError as error:
        raise OutOfMemoryError(f"{device.name} could not hold the arrays: {error}") from error
    try:
        # Buffers made for this call, bound whole: their offsets and sizes follow from the compiled operator's
        # shape, strides and dtypes, so it and what is in place are the whole binding key.
        done = dispatch(device, queue, compiled, tensors, in_place, key=(id(compiled), tuple(in_place)))
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
        if output is not result:
            result[...] = nibbles.unpack(output, result.size, result.dtype)
    except cl.MemoryError as error:
        _finish_despite_interrupts(queue)
        raise OutOfMemoryError(f"{device.name} could not hold the arrays: {error}") from error
    except BaseException:
        # Whatever stopped the call (Ctrl-C right after the enqueue, most likely), the kernel may still be reading
        # and writing the arrays, which the caller frees as soon as the exception reaches it: wait first.
        _finish_despite_interrupts(queue)
        raise


def _bound_span(span: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """What a dispatch binds for a span: the span itself, or a 4-bit one packed two a byte (``dmlpy.nibbles``)."""
    return nibbles.pack(span) if nibbles.is_nibble_dtype(span.dtype) else span


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
