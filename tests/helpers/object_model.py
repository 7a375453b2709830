"""DirectML's object model end to end (create_operator, compile_operator, the initializer dispatch, a binding
table, record_dispatch), shared by the device tests of every operator and by the Oclgrind variant scripts."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

import dmlpy as dml

from .dtypes import DATA_TYPE
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


NUMPY_TYPE = {data_type: dtype for dtype, data_type in DATA_TYPE.items()}
"""The NumPy dtype of each tensor data type, inverted from the hand-written table (not dmlpy.dtypes)."""


@dataclass(frozen=True)
class OperatorRun:
    """What one dispatch of an element-wise operator did."""

    inputs: dict[str, npt.NDArray[Any]]
    """Each bound input tensor's elements (copies, in the tensor's shape), by field name."""
    got: npt.NDArray[Any]
    """The output tensor's elements after the dispatch (a C-ordered copy, in the tensor's shape)."""
    changed_outside: list[int] | None
    """Byte offsets of the output buffer, outside the output tensor's elements, whose bytes changed; None when
    the output buffer was left uninitialised (``fill_output=False``), so there was nothing to compare with."""
    kernel: Any
    """The compiled operator's KernelSpec."""


def run_operator(
    device: Any,
    desc: Any,
    values: Mapping[str, Callable[[int], npt.NDArray[Any]]],
    *,
    offsets: Mapping[str, int] | None = None,
    in_place: bool = False,
    slack: int = 48,
    fill_output: bool = True,
) -> OperatorRun:
    """Run ``desc`` once through the object model; its one output is OutputTensor.

    Each bound input's buffer holds sentinel bytes with the tensor's memory span filled by
    ``values[field](count)``; the output buffer (the InputTensor's buffer when ``in_place``) holds other
    sentinel bytes, or is left uninitialised without ``fill_output``. ``offsets`` gives a tensor's byte offset
    in its buffer (0 when absent). Each buffer is ``slack`` bytes larger than its binding needs (0: exactly as
    large, so any access past a tensor is an access past its buffer). Asserts that no input buffer changed
    (except the one written in place)."""
    offsets = offsets or {}
    (output_name,) = desc.OUTPUTS
    out_desc = getattr(desc, output_name).desc
    out_dtype, out_offset = NUMPY_TYPE[out_desc.data_type], offsets.get(output_name, 0)
    out_strides, out_total = tuple(out_desc.effective_strides), out_desc.total_tensor_size_in_bytes
    images: dict[str, npt.NDArray[np.uint8]] = {}
    logical: dict[str, npt.NDArray[Any]] = {}
    bindings: list[Any] = []
    buffers: dict[str, Any] = {}
    compiled = compile_and_initialize(device, desc)
    for salt, name in enumerate(desc.INPUTS):
        tensor = getattr(desc, name)
        if tensor is None:
            bindings.append(None)
            continue
        td, offset = tensor.desc, offsets.get(name, 0)
        dtype, strides, total = NUMPY_TYPE[td.data_type], tuple(td.effective_strides), td.total_tensor_size_in_bytes
        image = sentinel_bytes(offset + total + slack, salt * 101)
        span = values[name](span_elements(td.sizes, strides)).astype(dtype, copy=False)
        image[offset : offset + span.nbytes] = span.view(np.uint8)
        logical[name] = strided_view(image, dtype, offset, td.sizes, strides).copy()
        images[name], buffers[name] = image, device.create_buffer(image.size)
        buffers[name].write(image)
        bindings.append(dml.BufferBinding(buffers[name], offset, total))
    before: npt.NDArray[np.uint8] | None
    if in_place:
        input_name = desc.INPUTS[0]
        assert out_offset == offsets.get(input_name, 0), "in place needs one offset"
        out_buffer, before = buffers[input_name], images[input_name]
    else:
        out_buffer = device.create_buffer(out_offset + out_total + slack)
        before = sentinel_bytes(out_buffer.size)[::-1].copy() if fill_output else None
        if before is not None:
            out_buffer.write(before)
    dispatch(device, compiled, bindings, [dml.BufferBinding(out_buffer, out_offset, out_total)])
    after = out_buffer.read(np.uint8, out_buffer.size)
    for name, image in images.items():
        if not (in_place and name == desc.INPUTS[0]):
            assert np.array_equal(buffers[name].read(np.uint8, image.size), image), f"the {name} buffer changed"
    got = strided_view(after, out_dtype, out_offset, out_desc.sizes, out_strides).copy()
    changed = None
    if before is not None:
        inside = byte_mask(after.size, out_offset, out_dtype.itemsize, element_offsets(out_desc.sizes, out_strides))
        changed = np.flatnonzero((after != before) & ~inside).tolist()
    return OperatorRun(logical, got, changed, compiled.lowered.kernel)


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
    """``run_operator`` for ``desc`` (InputTensor, OutputTensor of ``dtype``) with the input span filled by
    ``values(count)``."""
    if in_place:
        assert input_offset == output_offset, "in place needs one layout"
        assert desc.input_tensor.desc.effective_strides == desc.output_tensor.desc.effective_strides
    assert NUMPY_TYPE[desc.input_tensor.desc.data_type] == np.dtype(dtype)
    run = run_operator(
        device,
        desc,
        {"input_tensor": values},
        offsets={"input_tensor": input_offset, "output_tensor": output_offset},
        in_place=in_place,
        slack=slack,
        fill_output=fill_output,
    )
    return UnaryRun(run.inputs["input_tensor"], run.got, run.changed_outside, run.kernel)


def run_graph(
    device: Any, desc: dml.GraphDesc, inputs: list[npt.NDArray[Any]], *, fuse: bool = True, temporary_pad: int = 0
) -> tuple[list[npt.NDArray[Any]], Any]:
    """Compile, initialize, bind (a temporary resource where asked for) and dispatch a graph on packed
    ``inputs``; the outputs, packed, and the compiled graph."""
    compiled = device.compile_graph(desc, fuse=fuse)
    initialize(device, compiled)
    table = device.create_binding_table(compiled)
    table.bind_inputs([dml.BufferBinding(device.upload(np.ascontiguousarray(array))) for array in inputs])
    outputs = [device.create_buffer(max(4, d.total_tensor_size_in_bytes)) for d in compiled.output_descs()]
    table.bind_outputs([dml.BufferBinding(buffer) for buffer in outputs])
    size = compiled.get_binding_properties().temporary_resource_size
    if size:
        table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(size + temporary_pad)))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    results = []
    for output_desc, buffer in zip(compiled.output_descs(), outputs, strict=True):
        dtype = NUMPY_TYPE[output_desc.data_type]
        results.append(buffer.read(dtype, int(np.prod(output_desc.sizes))).reshape(output_desc.sizes))
    return results, compiled
