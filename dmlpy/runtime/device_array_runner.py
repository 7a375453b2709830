"""The one-liners on device arrays: ``pyopencl.array.Array`` in, ``pyopencl.array.Array`` out, asynchronously.

What ``array_runner`` does for NumPy arrays, this does for device memory, through the same descriptors, compiled
operator cache, binding table and command recorder, but never touching host memory and never waiting:

- the dispatch is enqueued on the input's queue after the events its arrays carry (``array.events``), and its
  event is added to the output's events, as pyopencl's own array operations do; an in-order queue orders it
  before whatever the caller enqueues next (work on another queue must wait for ``out.events``; pyopencl's
  ``add_event`` itself waits for the oldest events once an array holds more than 12);
- a device array's strides become DirectML strides, and its ``offset`` the binding's offset, so views run
  without a copy where DirectML can bind them (an offset that is a multiple of 16 bytes,
  DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT). A view it cannot bind is first gathered into a packed array on the
  device (an input), or computed into one and scattered into place (the output), by the Identity kernel launched
  at the view's element offset: a copy on the device, bit for bit;
- ``out`` that is the input's very memory and layout runs in place; an input that overlaps ``out`` otherwise is
  read from a snapshot on the device, as NumPy's ufuncs do. Memory is told by byte range in its root buffer: an
  array over a sub-buffer (``buffer.get_sub_region``) shares it with arrays over its parent and the parent's
  other sub-buffers, and a call whose ``x`` and ``out`` lie in one root through different memory objects binds
  both through the root (OpenCL leaves a kernel that reads through one and writes through the other undefined);
- host operands (a quantizer's scale and zero point) are uploaded, a few bytes each.

Every check runs before anything is enqueued; a refused call enqueues nothing and writes nothing.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pyopencl as cl
import pyopencl.array as cl_array

from dmlpy.binding import BufferBinding
from dmlpy.errors import InvalidArgumentError, OutOfMemoryError
from dmlpy.ops.element_wise_identity import ElementWiseIdentityOperatorDesc
from dmlpy.runtime.array_runner import ArrayCall, bindable_offset, compiled_for, run, span, span_bytes
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.buffer import Buffer
from dmlpy.runtime.device import Device, check_process
from dmlpy.runtime.dispatchables import CompiledOperator
from dmlpy.runtime.recorder import CommandRecorder
from dmlpy.tensor import overlapping_dimension, whole_dwords


def is_device_array(value: object) -> bool:
    return isinstance(value, cl_array.Array)


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

    def binding(self, device: Device) -> BufferBinding:
        # DirectML binds whole DWORDs; the kernel never touches the rounding bytes, which the memory need not have.
        size = whole_dwords(self.span_bytes)
        buffer = Buffer(device, self.memory, max(self.memory.size, self.offset + size))
        # Built from checked values, so pydantic's validation (a third of a small call's time) is skipped; the
        # binding table still checks every rule.
        return BufferBinding.model_construct(buffer=buffer, offset=self.offset, size_in_bytes=size)


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


def _bindable(operand: _Operand) -> bool:
    return bindable_offset(operand.offset)


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


def _overlap(a: _Operand, b: _Operand) -> bool:
    return a.memory == b.memory and a.offset < b.offset + b.span_bytes and b.offset < a.offset + a.span_bytes


def _same_tensor(a: _Operand, b: _Operand) -> bool:
    return a.memory == b.memory and (a.offset, a.strides, a.dtype) == (b.offset, b.strides, b.dtype)


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


@dataclass(frozen=True)
class _PreparedCall:
    """A call whose tensors are all device arrays that DirectML binds as they lie, after its full path (the
    binding table checked every rule): the same arrays again launch its kernel directly, the way a DirectML user
    records the same binding table twice. Weak references, so it keeps no array (or its memory) alive; a
    replaced array, buffer, offset or strides is a different call."""

    arrays: tuple[weakref.ref[cl_array.Array], ...]
    memories: tuple[int, ...]
    layouts: tuple[tuple[int, tuple[int, ...]], ...]
    compiled: CompiledOperator
    element_offsets: tuple[int, ...]

    @classmethod
    def of(cls, arrays: Sequence[cl_array.Array], compiled: CompiledOperator) -> _PreparedCall:
        return cls(
            tuple(weakref.ref(a) for a in arrays),
            tuple(id(a.base_data) for a in arrays),
            tuple((a.offset, a.strides) for a in arrays),
            compiled,
            tuple(a.offset // a.dtype.itemsize for a in arrays),
        )

    def serves(self, arrays: Sequence[cl_array.Array], device: Device) -> bool:
        return self.compiled.device is device and all(
            ref() is a and id(a.base_data) == memory and (a.offset, a.strides) == layout
            for ref, a, memory, layout in zip(self.arrays, arrays, self.memories, self.layouts, strict=True)
        )

    def enqueue(self, queue: cl.CommandQueue, arrays: Sequence[cl_array.Array], events: list[cl.Event]) -> cl.Event:
        tensors = [
            (cast("cl.Buffer", a.base_data), offset) for a, offset in zip(arrays, self.element_offsets, strict=True)
        ]
        return self.compiled.launchable.launch(queue, tensors, events)


PREPARED_CALLS_KEPT = 64
_prepared: OrderedDict[tuple[Any, ...], _PreparedCall] = OrderedDict()
_prepared_lock = threading.Lock()


def run_call(call: ArrayCall, device: Device) -> None:
    """A one-liner's call on NumPy arrays (``array_runner.run``, which waits) or device arrays (``run_on_device``,
    which does not)."""
    (run_on_device if is_device_array(call.output) else run)(call, device)


def run_on_device(call: ArrayCall, device: Device) -> None:
    """Enqueue ``call`` (``call.inputs[0]`` and ``call.output`` device arrays of ``device``'s context, checked
    by the caller; other inputs host arrays or None) without waiting; its event joins the output's events."""
    check_process()
    x: cl_array.Array = call.inputs[0]
    output: cl_array.Array = call.output
    if output.size == 0:
        return
    queue = cast("cl.CommandQueue", x.queue)
    events: list[cl.Event] = [*x.events, *output.events]
    arrays = (*call.inputs, output)
    key = (id(device), call.desc_class, call.fields, *(id(a) for a in arrays))
    with _prepared_lock:
        prepared = _prepared.get(key)
        if prepared is not None:
            _prepared.move_to_end(key)
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
    device_operands = [_device_operand(a, shape) if is_device_array(a) else None for a in call.inputs]
    device_operands, target = _bound_through_one_memory(device_operands, _device_operand(output, shape))
    # The prepared path launches with each array's own memory: only a call bound through it may take it.
    own_memory = target.memory == output.base_data and all(
        o is None or o.memory == a.base_data for o, a in zip(device_operands, call.inputs, strict=True)
    )
    scratch = target if _bindable(target) else _device_operand(new_device_array(queue, shape, output.dtype), shape)
    operands: list[_Operand | None] = []
    in_place: list[bool] = []
    snapshots: list[_Relayout] = []
    for array, operand in zip(call.inputs, device_operands, strict=True):
        if operand is None:
            operands.append(None if array is None else _upload(device, np.asarray(array).reshape(shape)))
            in_place.append(False)
            continue
        alias = call.desc_class.SUPPORTS_IN_PLACE and scratch is target and _same_tensor(operand, target)
        if not alias and (not _bindable(operand) or _overlap(operand, scratch)):
            # A view DirectML cannot bind, or a partial overlap with what the dispatch writes (the output, not
            # the scratch it is otherwise computed in and copied from): read a packed snapshot.
            packed = _device_operand(new_device_array(queue, shape, operand.dtype), shape)
            snapshots.append(_Relayout.compile(device, shape, operand, packed))
            operand = packed
        operands.append(operand)
        in_place.append(alias)
    # Compile and bind (every rule checked) before the first enqueue, so a refused call enqueues nothing.
    layout = [None if o is None else (o.dtype, o.strides) for o in (*operands, scratch)]
    compiled = compiled_for(device, call.desc_class, call.fields, shape, layout)
    output_binding = scratch.binding(device)
    table = BindingTable(device, compiled)
    table.bind_inputs(
        [
            None if operand is None else output_binding if alias else operand.binding(device)
            for operand, alias in zip(operands, in_place, strict=True)
        ]
    )
    table.bind_outputs([output_binding])
    scatter = None if scratch is target else _Relayout.compile(device, shape, scratch, target)
    events = [snapshot.enqueue(queue, events) for snapshot in snapshots] or events
    done = CommandRecorder(device).record_dispatch(queue, compiled, table, wait_for=events)
    if scatter is not None:
        done = scatter.enqueue(queue, [done])
    if own_memory and not snapshots and scatter is None and all(is_device_array(a) for a in call.inputs):
        with _prepared_lock:
            _prepared[key] = _PreparedCall.of(arrays, compiled)
            while len(_prepared) > PREPARED_CALLS_KEPT:
                _prepared.popitem(last=False)
    # The event joins the output's events, as pyopencl's own operations do: later work on the same in-order
    # queue (pyopencl's writes to x included) runs after it anyway, and OpenCL frees no memory in use.
    output.add_event(done)
