"""What the one-liners' two memories (host: ``host_memory``, device: ``device_memory``) share: the call, the
compiled operator cache, the in-place / snapshot / scratch policy, and the dispatch that goes through the binding
table and the command recorder once per binding pattern and launches directly after.

A one-liner describes its call as an :class:`ArrayCall`: the descriptor class, its non-tensor fields, and one
array per tensor slot, each of the call's shape (a per-axis scale is a 0-stride view of a 1-D array, so nothing
is materialised). ``runner.run`` picks the memory and runs it.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

import numpy as np
import pyopencl as cl

from dmlpy.binding import BufferBinding
from dmlpy.dtypes import data_type_of
from dmlpy.enums import DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
from dmlpy.lru import LruCache
from dmlpy.ops._base import OperatorDescBase
from dmlpy.runtime.binding_table import BindingTable
from dmlpy.runtime.buffer import Buffer
from dmlpy.runtime.device import Device
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.dispatchables import CompiledOperator
from dmlpy.runtime.recorder import CommandRecorder
from dmlpy.tensor import BufferTensorDesc, whole_dwords


@dataclass
class ArrayCall:
    """One one-liner call: ``desc_class`` with ``fields``, over ``inputs`` (one array or None per INPUTS slot)
    into ``output`` (None: ``runner.run`` makes a new array of ``output_dtype``). Every array has the output's
    shape. The arrays are NumPy arrays, or the first input and the output are ``pyopencl.array.Array``s (the
    other inputs, a scale and a zero point, stay NumPy arrays)."""

    desc_class: type[OperatorDescBase]
    fields: tuple[tuple[str, Any], ...]
    inputs: list[Any]
    output: Any = None
    output_dtype: np.dtype[Any] | None = None


# ------------------------------------------------------------------------------------------ compiled operators

COMPILED_OPERATORS_KEPT = 256
_compiled: LruCache[tuple[Any, ...], CompiledOperator] = LruCache(COMPILED_OPERATORS_KEPT)
"""Per (device, descriptor class, fields, shape, dtypes, strides): a repeated call costs a lookup instead of
building and validating descriptors. The key holds the device, which the compiled operator holds anyway."""


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
    strides) or None per tensor slot in binding order; cached."""
    key = (device, desc_class, fields, shape, tuple(None if t is None else (t[0], t[1]) for t in layout))
    compiled = _compiled.get(key)
    if compiled is not None:
        return compiled
    tensors = {
        slot: None
        if tensor is None
        else BufferTensorDesc(data_type=data_type_of(tensor[0]), sizes=shape, strides=tensor[1])
        for slot, tensor in zip((*desc_class.INPUTS, *desc_class.OUTPUTS), layout, strict=True)
    }
    return _compiled.put(key, compile_initialized(device, desc_class.from_slots(tensors, **dict(fields))))


def bindable_offset(byte_offset: int) -> bool:
    """Whether DirectML binds a tensor starting ``byte_offset`` bytes in (an address or a binding offset): only
    multiples of DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT (16)."""
    return byte_offset % DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT == 0


def span_bytes(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> int:
    """Bytes from an array's lowest element to its highest (NumPy or pyopencl: strides in bytes, whatever their
    signs)."""
    return int(sum((n - 1) * abs(s) for n, s in zip(shape, strides, strict=True))) + itemsize


# ------------------------------------------------------------------------------- in place, snapshots, scratch

Tensor = TypeVar("Tensor")


class Placement(Protocol, Generic[Tensor]):
    """What the policy asks of a memory about its tensors (NumPy arrays, or device operands)."""

    def bindable(self, tensor: Tensor) -> bool:
        """Whether DirectML binds the tensor as it lies."""

    def same_tensor(self, a: Tensor, b: Tensor) -> bool:
        """The same memory, start, strides and dtype."""

    def overlap(self, a: Tensor, b: Tensor) -> bool:
        """Whether the two may share a byte."""

    def packed_copy(self, tensor: Tensor) -> Tensor:
        """A packed, bindable copy of the tensor's elements (a snapshot)."""

    def scratch_for(self, target: Tensor) -> Tensor:
        """A new packed, bindable tensor of the target's shape and dtype to compute into."""


def place(
    desc_class: type[OperatorDescBase],
    inputs: Sequence[Tensor | None],
    target: Tensor,
    memory: Placement[Tensor],
) -> tuple[list[Tensor | None], list[bool], Tensor]:
    """The one policy of both memories: (inputs to bind, which of them is the output itself, what the kernel
    writes). An output DirectML cannot bind is computed into scratch (the caller copies it into place after);
    an input that is the output's very tensor runs in place where the operator allows it; an input DirectML
    cannot bind, or that overlaps what the kernel writes otherwise, is read from a packed snapshot, as NumPy's
    ufuncs do."""
    scratch = target if memory.bindable(target) else memory.scratch_for(target)
    placed: list[Tensor | None] = []
    in_place: list[bool] = []
    for tensor in inputs:
        alias = (
            tensor is not None
            and desc_class.SUPPORTS_IN_PLACE
            and scratch is target
            and memory.same_tensor(tensor, target)
        )
        if tensor is not None and not alias and (not memory.bindable(tensor) or memory.overlap(tensor, scratch)):
            tensor = memory.packed_copy(tensor)
        placed.append(tensor)
        in_place.append(alias)
    return placed, in_place, scratch


# ------------------------------------------------------------------------------------------------- dispatch


class Bound(NamedTuple):
    """One tensor as a dispatch binds it: its memory, its first byte there, its span in bytes and its element
    size. A tuple: a 1K call makes three, and a frozen dataclass costs a microsecond each."""

    memory: cl.Buffer
    offset: int
    span_bytes: int
    itemsize: int

    def binding(self, device: DeviceBase) -> BufferBinding:
        # DirectML binds whole DWORDs; the kernel never touches the rounding bytes, which the memory need not have.
        size = whole_dwords(self.span_bytes)
        buffer = Buffer(device, self.memory, max(self.memory.size, self.offset + size))
        # Built from checked values, so pydantic's validation (a third of a small call's time) is skipped; the
        # binding table still checks every rule.
        return BufferBinding.model_construct(buffer=buffer, offset=self.offset, size_in_bytes=size)


CHECKED_PATTERNS_KEPT = 1024
_checked: LruCache[tuple[Any, ...], weakref.ref[CompiledOperator]] = LruCache(CHECKED_PATTERNS_KEPT)
"""Binding patterns that passed the binding table, per compiled operator (held weakly: the compiled operator
cache decides how long one lives)."""


def binding_key(
    compiled: CompiledOperator, tensors: Sequence[Bound | None], in_place: Sequence[bool]
) -> tuple[Any, ...]:
    """What the binding rules read of a dispatch: the compiled operator, which inputs are the output, and per
    tensor its offset, its memory's size and the first tensor whose memory it shares (aliasing)."""
    memories = [None if t is None else t.memory for t in tensors]
    pattern = tuple([None if t is None else (t.offset, t.memory.size, memories.index(t.memory)) for t in tensors])
    return (id(compiled), tuple(in_place), pattern)


def checked(key: tuple[Any, ...], compiled: CompiledOperator) -> bool:
    """Whether ``compiled``'s bindings of ``key`` (binding_key) passed the binding table already."""
    passed = _checked.get(key)
    return passed is not None and passed() is compiled


def dispatch(
    device: DeviceBase,
    queue: cl.CommandQueue,
    compiled: CompiledOperator,
    tensors: Sequence[Bound | None],
    in_place: Sequence[bool],
    wait_for: Sequence[cl.Event] | None = None,
    *,
    key: tuple[Any, ...] | None = None,
) -> cl.Event:
    """Dispatch ``compiled`` over ``tensors`` (one per slot, the output last; an input in place is bound as the
    output) after ``wait_for``: through a binding table and the command recorder, which check every rule, the
    first time for ``compiled`` and this binding pattern; directly after that, as the same offsets, sizes and
    sharing give the same answers (a 1K call: 250 -> 90 us on PoCL). ``key``: ``binding_key`` of these, where
    the caller kept it from an earlier call over the same memory, or a shorter key that determines it (host
    memory's buffers are made per call and bound whole, so the compiled operator and what is in place do)."""
    if key is None:
        key = binding_key(compiled, tensors, in_place)
    if checked(key, compiled):
        element_offsets = [(None, 0) if t is None else (t.memory, t.offset // t.itemsize) for t in tensors]
        return compiled.launchable.launch(queue, element_offsets, wait_for)
    output = tensors[-1]
    assert output is not None
    output_binding = output.binding(device)
    table = BindingTable(device, compiled)
    table.bind_inputs(
        [
            None if tensor is None else output_binding if alias else tensor.binding(device)
            for tensor, alias in zip(tensors[:-1], in_place, strict=True)
        ]
    )
    table.bind_outputs([output_binding])
    done = CommandRecorder(device).record_dispatch(queue, compiled, table, wait_for=wait_for)
    _checked.put(key, weakref.ref(compiled))
    return done
