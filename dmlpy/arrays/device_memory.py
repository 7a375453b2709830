"""The one-liners' device memory: ``pyopencl.array.Array`` in, ``pyopencl.array.Array`` out, asynchronously.

What ``host_memory`` does for NumPy arrays, this does for device memory, through the same call, compiled
operator cache, placement policy and dispatch (``dispatch``), but never touching host memory and never waiting:

- the dispatch is enqueued on the input's queue after the events its arrays carry (``array.events``), and its
  event is added to the output's events, as pyopencl's own array operations do; an in-order queue orders it
  before whatever the caller enqueues next (work on another queue must wait for ``out.events``; pyopencl's
  ``add_event`` itself waits for the oldest events once an array holds more than 12);
- a device array's strides become DirectML strides, and its ``offset`` the binding's offset, so views run
  without a copy where DirectML can bind them (an offset that is a multiple of 16 bytes,
  DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT). A view it cannot bind is first gathered into a packed array on the
  device (an input), or computed into one and scattered into place (the output), by the Identity kernel launched
  at the view's element offset: a copy on the device, bit for bit;
- the placement policy (``dispatch.place``) over device operands: ``out`` that is the input's very memory and
  layout runs in place; an input that overlaps ``out`` otherwise is read from a snapshot on the device. Memory
  is told by byte range in its root buffer: an array over a sub-buffer (``buffer.get_sub_region``) shares it with
  arrays over its parent and the parent's other sub-buffers, and a call whose ``x`` and ``out`` lie in one root
  through different memory objects binds both through the root (OpenCL leaves a kernel that reads through one and
  writes through the other undefined);
- host operands (a quantizer's scale and zero point) are uploaded, a few bytes each.

Every check runs before anything is enqueued; a refused call enqueues nothing and writes nothing.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pyopencl as cl
import pyopencl.array as cl_array

from dmlpy.arrays.dispatch import (
    ArrayCall,
    Bound,
    bindable_offset,
    binding_key,
    checked,
    compiled_for,
    dispatch,
    place,
    span_bytes,
)
from dmlpy.arrays.host_memory import span
from dmlpy.errors import InvalidArgumentError, OutOfMemoryError
from dmlpy.lru import LruCache
from dmlpy.ops.element_wise_identity import ElementWiseIdentityOperatorDesc
from dmlpy.runtime.device import Device, create_device
from dmlpy.runtime.dispatchables import CompiledOperator
from dmlpy.tensor import overlapping_dimension

QUEUE_DEVICES_KEPT = 16
"""Devices kept for callers' queues (``device_for``); the least recently used is dropped past this many."""
_on_queues: LruCache[tuple[int, bool], Device] = LruCache(QUEUE_DEVICES_KEPT)


def device_for(x: cl_array.Array, *, extensions: bool) -> Device:
    """The device a call on device arrays runs on when none is given: one on ``x``'s queue, created once per
    queue (``create_device(cl_queue=queue)``, the highest feature level), so its compiled kernels are reused. It
    holds the queue, so the queue's address cannot be reused by another one while it is kept."""
    queue = cast("cl.CommandQueue", x.queue)
    key = (queue.int_ptr, extensions)
    device = _on_queues.get(key)
    return device if device is not None else _on_queues.put(key, create_device(cl_queue=queue, extensions=extensions))


def new_array(x: cl_array.Array, shape: tuple[int, ...], dtype: np.dtype[Any]) -> cl_array.Array:
    """A one-liner's result when no ``out`` is given: a device array on ``x``'s queue."""
    return new_device_array(cast("cl.CommandQueue", x.queue), shape, dtype)


@dataclass(frozen=True)
class _Operand:
    """One tensor as the kernel sees it: memory, byte offset, element strides, dtype."""

    memory: cl.Buffer
    offset: int
    strides: tuple[int, ...]
    dtype: np.dtype[Any]
    span_bytes: int
    """From the first element's first byte to the last element's last byte."""
    parent: cl.Buffer | None = None
    """The buffer ``memory`` is a sub-buffer of (which OpenCL never lets be a sub-buffer itself), or None."""
    origin: int = 0
    """Where ``memory`` starts in ``parent``: its bytes are the parent's from there."""

    @property
    def root(self) -> cl.Buffer:
        """The buffer whose bytes these are: arrays over a buffer and its sub-buffers share memory through it."""
        return self.memory if self.parent is None else self.parent

    def through_root(self) -> _Operand:
        """The same bytes addressed through the root buffer, at their offset in it."""
        if self.parent is None:
            return self
        return replace(self, memory=self.parent, offset=self.origin + self.offset, parent=None, origin=0)

    def bound(self) -> Bound:
        return Bound(self.memory, self.offset, self.span_bytes, self.dtype.itemsize)


def new_device_array(queue: cl.CommandQueue, shape: tuple[int, ...], dtype: np.dtype[Any]) -> cl_array.Array:
    """A new device array on ``queue``; OutOfMemoryError, naming the size, where the device cannot hold it."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    limit = queue.device.max_mem_alloc_size
    if nbytes > limit:
        raise OutOfMemoryError(
            f"the result needs {nbytes} bytes, more than {queue.device.name.strip()} allows for one buffer "
            f"({limit} bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE): split the array"
        )
    try:
        return cl_array.empty(queue, shape, dtype)
    except cl.MemoryError as error:
        raise OutOfMemoryError(f"{queue.device.name.strip()} could not allocate {nbytes} bytes: {error}") from error


def check_device_array(name: str, array: cl_array.Array, device: Device) -> None:
    """A device array that ``device`` can use: of its context (and, for ``x``, whose queue is on its device),
    with element-sized, non-negative strides, lying inside its buffer."""
    if array.context != device.context:
        raise InvalidArgumentError(
            f"{name} is a pyopencl array of another OpenCL context than the device's ({device.name}); dmlpy runs "
            f"on one context: pass device=None (dmlpy then runs on {name}'s queue), or "
            f"device=dml.create_device(cl_queue={name}.queue)"
        )
    if name == "x" and array.queue is not None and array.queue.device != device.cl_device:
        raise InvalidArgumentError(
            f"x's queue is on {array.queue.device.name.strip()}, another device of the context than {device.name}; "
            "dmlpy enqueues on x's queue: pass device=None, or device=dml.create_device(cl_queue=x.queue)"
        )
    itemsize = array.dtype.itemsize
    if any(s < 0 or s % itemsize for s in array.strides) or array.offset % itemsize:
        raise InvalidArgumentError(
            f"{name} has strides {array.strides} and offset {array.offset} (bytes); DirectML tensors step by whole "
            "elements forwards: pass a copy"
        )
    reach = array.offset + span_bytes(array.shape, array.strides, itemsize)
    memory = cast("cl.Buffer", array.base_data)
    if array.size and reach > memory.size:
        raise InvalidArgumentError(
            f"{name} reaches byte {reach} of its buffer, which has {memory.size}: its shape {array.shape}, "
            f"strides {array.strides} and offset {array.offset} describe memory the buffer does not have"
        )


def _element_strides(array: cl_array.Array, shape: tuple[int, ...]) -> tuple[int, ...]:
    if array.ndim == 0:
        return (1,) * len(shape)
    return tuple(s // array.dtype.itemsize for s in array.strides)


def _device_operand(array: cl_array.Array, shape: tuple[int, ...]) -> _Operand:
    span = span_bytes(array.shape, array.strides, array.dtype.itemsize)
    memory = cast("cl.Buffer", array.base_data)
    parent = cast("cl.Buffer | None", memory.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT))
    origin = 0 if parent is None else cast("int", memory.get_info(cl.mem_info.OFFSET))
    return _Operand(memory, array.offset, _element_strides(array, shape), array.dtype, span, parent, origin)


def may_share_memory(a: cl_array.Array, b: cl_array.Array) -> bool:
    """Whether two device arrays may share a byte: their byte ranges in their root buffer overlap (an array over
    a sub-buffer is told through its parent), as the placement policy tells them."""
    first, second = (_device_operand(array, array.shape).through_root() for array in (a, b))
    return _Operands.overlap(first, second)


def _bound_through_one_memory(
    operands: Sequence[_Operand | None], target: _Operand
) -> tuple[list[_Operand | None], _Operand]:
    """``operands`` and ``target``, those of target's root buffer through it where any of them lies in that root
    through another memory object than the target (a sub-buffer and its parent, two sub-buffers): OpenCL leaves a
    kernel that writes through a buffer and reads through its sub-buffer undefined, and one memory object makes
    overlap a matter of byte ranges in it, told as for any views of one buffer."""
    shared = [o is not None and o.root == target.root for o in operands]
    if not any(s and o is not None and o.memory != target.memory for o, s in zip(operands, shared, strict=True)):
        return list(operands), target
    rooted = [o.through_root() if s and o is not None else o for o, s in zip(operands, shared, strict=True)]
    return rooted, target.through_root()


def _upload(device: Device, array: npt.NDArray[Any]) -> _Operand:
    """A host operand (a scale, a zero point: a few values, broadcast with 0-strides) uploaded as it lies."""
    itemsize = array.itemsize
    if any(s < 0 or s % itemsize for s in array.strides):  # the new buffer is aligned whatever the host's start
        array = array.copy()
    strides = tuple(s // itemsize for s in array.strides)
    data = span(array, strides)
    flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    memory = cl.Buffer(device.context, flags, hostbuf=np.ascontiguousarray(data))
    return _Operand(memory, 0, strides, array.dtype, data.nbytes)


@dataclass(frozen=True)
class _Relayout:
    """A copy of ``source`` into ``target``, element by element and bits unchanged, by the Identity kernel
    launched at their element offsets: the copy of a view DirectML could not bind is the one launch here that no
    binding table sees."""

    source: _Operand
    target: _Operand
    identity: CompiledOperator

    @classmethod
    def compile(cls, device: Device, shape: tuple[int, ...], source: _Operand, target: _Operand) -> _Relayout:
        layout = [(source.dtype, source.strides), (target.dtype, target.strides)]
        return cls(source, target, compiled_for(device, ElementWiseIdentityOperatorDesc, (), shape, layout))

    def enqueue(self, queue: cl.CommandQueue, wait_for: Sequence[cl.Event]) -> cl.Event:
        itemsize = self.source.dtype.itemsize
        tensors = [
            (self.source.memory, self.source.offset // itemsize),
            (self.target.memory, self.target.offset // itemsize),
        ]
        return self.identity.launchable.launch(queue, tensors, wait_for)


class _Operands:
    """The placement policy's questions (``dispatch.Placement``) about device operands. A snapshot or scratch is
    a new packed device array; the Identity launches that fill a snapshot are collected in ``snapshots``,
    enqueued before the dispatch."""

    def __init__(self, device: Device, queue: cl.CommandQueue, shape: tuple[int, ...]) -> None:
        self.device, self.queue, self.shape = device, queue, shape
        self.snapshots: list[_Relayout] = []

    @staticmethod
    def bindable(operand: _Operand) -> bool:
        return bindable_offset(operand.offset)

    @staticmethod
    def same_tensor(a: _Operand, b: _Operand) -> bool:
        return a.memory == b.memory and (a.offset, a.strides, a.dtype) == (b.offset, b.strides, b.dtype)

    @staticmethod
    def overlap(a: _Operand, b: _Operand) -> bool:
        return a.memory == b.memory and a.offset < b.offset + b.span_bytes and b.offset < a.offset + a.span_bytes

    def packed_copy(self, operand: _Operand) -> _Operand:
        packed = self.scratch_for(operand)
        self.snapshots.append(_Relayout.compile(self.device, self.shape, operand, packed))
        return packed

    def scratch_for(self, target: _Operand) -> _Operand:
        return _device_operand(new_device_array(self.queue, self.shape, target.dtype), self.shape)


@dataclass(frozen=True)
class _PreparedCall:
    """A call whose tensors are all device arrays that DirectML binds as they lie, after its full path: the
    same arrays again skip its analysis and go straight to the dispatch. Weak references, so it keeps no array
    (or its memory) alive; a replaced array, buffer, offset or strides is a different call."""

    arrays: tuple[weakref.ref[cl_array.Array], ...]
    memories: tuple[int, ...]
    layouts: tuple[tuple[int, tuple[int, ...]], ...]
    compiled: CompiledOperator
    spans: tuple[int, ...]
    in_place: tuple[bool, ...]
    key: tuple[Any, ...]
    """The dispatch's binding_key: the same arrays bind the same way."""

    @classmethod
    def of(
        cls,
        arrays: Sequence[cl_array.Array],
        compiled: CompiledOperator,
        tensors: Sequence[Bound | None],
        in_place: Sequence[bool],
    ) -> _PreparedCall:
        return cls(
            tuple(weakref.ref(a) for a in arrays),
            tuple(id(a.base_data) for a in arrays),
            tuple((a.offset, a.strides) for a in arrays),
            compiled,
            tuple(span_bytes(a.shape, a.strides, a.dtype.itemsize) for a in arrays),
            tuple(in_place),
            binding_key(compiled, tensors, in_place),
        )

    def serves(self, arrays: Sequence[cl_array.Array], device: Device) -> bool:
        return self.compiled.device is device and all(
            ref() is a and id(a.base_data) == memory and (a.offset, a.strides) == layout
            for ref, a, memory, layout in zip(self.arrays, arrays, self.memories, self.layouts, strict=True)
        )

    def enqueue(self, queue: cl.CommandQueue, arrays: Sequence[cl_array.Array], events: list[cl.Event]) -> cl.Event:
        compiled = self.compiled
        if checked(self.key, compiled):  # as good as certain: it passed when this call was prepared
            tensors = [(cast("cl.Buffer", a.base_data), a.offset // a.dtype.itemsize) for a in arrays]
            return compiled.launchable.launch(queue, tensors, events)
        bound = [
            Bound(cast("cl.Buffer", a.base_data), a.offset, span, a.dtype.itemsize)
            for a, span in zip(arrays, self.spans, strict=True)
        ]
        return dispatch(compiled.device, queue, compiled, bound, self.in_place, events, key=self.key)


PREPARED_CALLS_KEPT = 64
_prepared: LruCache[tuple[Any, ...], _PreparedCall] = LruCache(PREPARED_CALLS_KEPT)


def run(call: ArrayCall, device: Device) -> None:
    """Enqueue ``call`` (``call.inputs[0]`` and ``call.output`` device arrays of ``device``'s context, the output
    non-empty; other inputs host arrays or None) without waiting; its event joins the output's events."""
    x: cl_array.Array = call.inputs[0]
    output: cl_array.Array = call.output
    queue = cast("cl.CommandQueue", x.queue)
    events: list[cl.Event] = [*x.events, *output.events]
    arrays = (*call.inputs, output)
    key = (id(device), call.desc_class, call.fields, *(id(a) for a in arrays))
    prepared = _prepared.get(key)
    if prepared is not None and prepared.serves(arrays, device):
        output.add_event(prepared.enqueue(queue, arrays, events))
        return
    check_device_array("x", x, device)
    check_device_array("out", output, device)
    shared = overlapping_dimension(output.shape, output.strides, element_width=output.dtype.itemsize, unit="bytes")
    if shared is not None:
        raise InvalidArgumentError(
            f"out has strides {output.strides} (bytes), which make two of its elements share memory: {shared}; "
            "an output must give every element its own address"
        )
    shape = output.shape or (1,)
    device_operands = [_device_operand(a, shape) if isinstance(a, cl_array.Array) else None for a in call.inputs]
    device_operands, target = _bound_through_one_memory(device_operands, _device_operand(output, shape))
    # The prepared path binds each array's own memory: only a call bound through it may take it.
    own_memory = target.memory == output.base_data and all(
        o is None or o.memory == a.base_data for o, a in zip(device_operands, call.inputs, strict=True)
    )
    placement = _Operands(device, queue, shape)
    operands, in_place, scratch = place(call.desc_class, device_operands, target, placement)
    operands = [
        _upload(device, np.asarray(array).reshape(shape)) if operand is None and array is not None else operand
        for operand, array in zip(operands, call.inputs, strict=True)
    ]
    # Compile (and the dispatch binds, every rule checked) before the first enqueue, so a refused call enqueues
    # nothing.
    layout = [None if o is None else (o.dtype, o.strides) for o in (*operands, scratch)]
    compiled = compiled_for(device, call.desc_class, call.fields, shape, layout)
    scatter = None if scratch is target else _Relayout.compile(device, shape, scratch, target)
    snapshots = placement.snapshots
    tensors = [None if o is None else o.bound() for o in (*operands, scratch)]
    if snapshots:
        events = [snapshot.enqueue(queue, events) for snapshot in snapshots]
    done = dispatch(device, queue, compiled, tensors, in_place, events)
    if scatter is not None:
        done = scatter.enqueue(queue, [done])
    if own_memory and not snapshots and scatter is None and all(isinstance(a, cl_array.Array) for a in call.inputs):
        _prepared.put(key, _PreparedCall.of(arrays, compiled, tensors, in_place))
    # The event joins the output's events, as pyopencl's own operations do: later work on the same in-order
    # queue (pyopencl's writes to x included) runs after it anyway, and OpenCL frees no memory in use.
    output.add_event(done)
