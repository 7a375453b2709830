"""DirectML's object model end to end (create_operator, compile_operator, the initializer dispatch, a binding
table, record_dispatch), shared by the device tests of every operator and by the Oclgrind variant scripts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml

from .layouts import byte_mask, element_offsets, sentinel_bytes, span_elements, strided_view


def initialize(device: Any, compiled: Any) -> None:
    """Record a dispatch of an operator initializer for ``compiled``, as DirectML requires once before use."""
    initializer = device.create_operator_initializer([compiled])
    table = device.create_binding_table(initializer)
    device.create_command_recorder().record_dispatch(device.queue, initializer, table).wait()


def compile_and_initialize(device: Any, desc: Any) -> Any:
    """create_operator, compile_operator (no execution flags) and the initializer dispatch."""
    compiled = device.compile_operator(device.create_operator(desc), dml.ExecutionFlags.NONE)
    initialize(device, compiled)
    return compiled


def dispatch(device: Any, compiled: Any, inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
    """Bind ``inputs`` and ``outputs`` (dml.BufferBinding, or None for an optional tensor) and run once."""
    table = device.create_binding_table(compiled)
    table.bind_inputs(list(inputs))
    table.bind_outputs(list(outputs))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()


@dataclass(frozen=True)
class UnaryRun:
    """What one dispatch of a unary element-wise operator did."""

    logical_input: npt.NDArray[Any]
    """The input tensor's elements (a copy, in the tensor's shape)."""
    got: npt.NDArray[Any]
    """The output tensor's elements after the dispatch (a C-ordered copy, in the tensor's shape)."""
    changed_outside: list[int] | None
    """Byte offsets of the output buffer, outside the output tensor's elements, whose bytes changed; None when
    the output buffer was left uninitialised (``fill_output=False``), so there was nothing to compare with."""
    kernel: Any
    """The compiled operator's KernelSpec."""


def run_unary(
    device: Any,
    desc: Any,
    dtype: np.dtype[Any],
    values: Callable[[int], npt.NDArray[Any]],
    *,
    input_offset: int = 0,
    output_offset: int = 0,
    in_place: bool = False,
    slack: int = 48,
    fill_output: bool = True,
) -> UnaryRun:
    """Run ``desc`` (InputTensor, OutputTensor) once through the object model.

    The input buffer holds sentinel bytes with the input tensor's memory span filled by ``values(count)``;
    the output buffer (the input buffer when ``in_place``) holds other sentinel bytes, or is left uninitialised
    without ``fill_output``. Each buffer is ``slack`` bytes larger than its binding needs (0: exactly as large,
    so any access past a tensor is an access past its buffer). Asserts that the input buffer is unchanged."""
    dtype = np.dtype(dtype)
    in_desc, out_desc = desc.input_tensor.desc, desc.output_tensor.desc
    sizes = tuple(in_desc.sizes)
    in_strides, out_strides = tuple(in_desc.effective_strides), tuple(out_desc.effective_strides)
    in_total, out_total = in_desc.total_tensor_size_in_bytes, out_desc.total_tensor_size_in_bytes
    if in_place:
        assert input_offset == output_offset and in_strides == out_strides, "in place needs one layout"

    in_image = sentinel_bytes(input_offset + in_total + slack)
    span = values(span_elements(sizes, in_strides)).astype(dtype, copy=False)
    in_image[input_offset : input_offset + span.nbytes] = span.view(np.uint8)
    logical_input = strided_view(in_image, dtype, input_offset, sizes, in_strides).copy()

    compiled = compile_and_initialize(device, desc)
    in_buffer = device.create_buffer(in_image.size)
    in_buffer.write(in_image)
    before: npt.NDArray[np.uint8] | None
    if in_place:
        out_buffer, before = in_buffer, in_image
    else:
        out_buffer = device.create_buffer(output_offset + out_total + slack)
        before = sentinel_bytes(out_buffer.size)[::-1].copy() if fill_output else None
        if before is not None:
            out_buffer.write(before)
    dispatch(
        device,
        compiled,
        [dml.BufferBinding(in_buffer, input_offset, in_total)],
        [dml.BufferBinding(out_buffer, output_offset, out_total)],
    )
    after = out_buffer.read(np.uint8, out_buffer.size)
    if not in_place:
        assert np.array_equal(in_buffer.read(np.uint8, in_buffer.size), in_image), "the input buffer changed"

    got = strided_view(after, dtype, output_offset, sizes, out_strides).copy()
    changed = None
    if before is not None:
        inside = byte_mask(after.size, output_offset, dtype.itemsize, element_offsets(sizes, out_strides))
        changed = np.flatnonzero((after != before) & ~inside).tolist()
    return UnaryRun(logical_input, got, changed, compiled.lowered.kernel)
