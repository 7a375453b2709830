"""FL 6_3's QUANTIZE and DEQUANTIZE through the object model with buffers laid out as DirectML lays them out (a
4-bit tensor two elements a byte, element 2i in the low nibble of byte i; packed here by hand, not by
dmlpy.nibbles), and their reference on quantize_oracle: shared by tests/device/quantize/test_quantize_6_3.py and
the Oclgrind variants script oclgrind_quantize_6_3_variants.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

import dmlpy as dml

from . import quantize_oracle as oracle
from .layouts import byte_mask, element_offsets, sentinel_bytes, span_elements, strided_view
from .object_model import NUMPY_TYPE, compile_and_initialize, dispatch, initialize

T = dml.TensorDataType
QT = dml.QuantizationType
F32 = np.dtype(np.float32)
NIBBLE_TYPES = {T.INT4: np.dtype(ml_dtypes.int4), T.UINT4: np.dtype(ml_dtypes.uint4)}
"""The NumPy dtype of each 4-bit data type (one element a byte in NumPy)."""
DTYPES = {**NUMPY_TYPE, **NIBBLE_TYPES}
MIDPOINTS = {T.UINT4: 8, T.UINT8: 128}
"""The zero point under QuantizationType SCALE (onnxruntime's DirectML provider: "DML uses the midpoint of the
datatype when zero point isn't provided (e.g. 8 for uint4 and 128 for uint8)"); 0 for signed types."""
PAD_NIBBLE = 0xA0
"""What the high nibble of an input's half-filled last byte holds: junk the kernel must not read as an element."""


def pack_nibbles(elements: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """4-bit ``elements`` (C order) two a byte, the even one low; an odd count's last high nibble is PAD_NIBBLE."""
    values = np.ascontiguousarray(elements).reshape(-1).astype(np.int64) & 0x0F
    if values.size % 2:
        values = np.append(values, PAD_NIBBLE >> 4)
    return (values[0::2] | (values[1::2] << 4)).astype(np.uint8)


def unpack_nibbles(packed: npt.NDArray[np.uint8], count: int, data_type: T) -> npt.NDArray[Any]:
    """The first ``count`` elements of packed 4-bit bytes, as ``data_type``'s NumPy dtype."""
    values = np.stack([packed & 0x0F, packed >> 4], axis=-1).reshape(-1)[:count].astype(np.int64)
    if data_type == T.INT4:
        values = np.where(values >= 8, values - 16, values)
    return values.astype(NIBBLE_TYPES[data_type])


def tensor_bytes(desc: dml.BufferTensorDesc, values: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """``values`` (of ``desc.sizes``) at ``desc``'s strided places in its memory span, the gaps holding junk."""
    dtype, strides = DTYPES[desc.data_type], desc.effective_strides
    span = span_elements(desc.sizes, strides)
    low, high = oracle.INTEGER_RANGES.get(dtype, (0, 0))
    junk = np.arange(span) % (high - low + 1) + low if desc.data_type in NIBBLE_TYPES else np.zeros(span)
    memory = junk.astype(dtype)
    view = np.lib.stride_tricks.as_strided(
        memory, shape=desc.sizes, strides=[s * dtype.itemsize for s in strides], writeable=True
    )
    view[...] = np.asarray(values).astype(dtype)
    return pack_nibbles(memory) if desc.data_type in NIBBLE_TYPES else memory.view(np.uint8)


def extent_bytes(desc: dml.BufferTensorDesc) -> int:
    """The bytes from a tensor's first element to the end of its last (a half-filled last byte counts)."""
    bits = 4 if desc.data_type in NIBBLE_TYPES else 8 * DTYPES[desc.data_type].itemsize
    return -(-span_elements(desc.sizes, desc.effective_strides) * bits // 8)


@dataclass(frozen=True)
class QuantizationRun:
    """What one dispatch did."""

    got: npt.NDArray[Any]
    """The output tensor's elements, in its shape."""
    changed_outside: list[int]
    """Byte offsets of the output buffer, outside the bytes holding the output's elements, that changed."""
    pad_nibble: int | None
    """A packed 4-bit output of an odd count: the high nibble of its last byte (None otherwise)."""
    kernel: Any
    """The compiled operator's KernelSpec."""


def run_quantization(
    device: Any,
    desc: Any,
    values: Sequence[npt.ArrayLike],
    *,
    offsets: Sequence[int] | None = None,
    slack: int = 20,
) -> QuantizationRun:
    """``desc`` once through the object model: ``values`` for its bound inputs (InputTensor, the scale, the
    zero point where there is one), each in its own sentinel-filled buffer at its byte offset (``offsets``, per
    tensor in binding order, the output last; 0 by default) with ``slack`` bytes past TotalTensorSizeInBytes;
    the output's buffer holds other sentinel bytes."""
    tensors = [t.desc for t in desc.input_tensors()] + [desc.output_tensor.desc]
    offsets = list(offsets or [0] * len(tensors))
    compiled = compile_and_initialize(device, desc)
    bindings = []
    for k, (tensor, array) in enumerate(zip(tensors[:-1], values, strict=True)):
        image = sentinel_bytes(offsets[k] + tensor.total_tensor_size_in_bytes + slack, salt=101 * k)
        data = tensor_bytes(tensor, array)
        image[offsets[k] : offsets[k] + data.size] = data
        buffer = device.create_buffer(image.size)
        buffer.write(image)
        bindings.append(dml.BufferBinding(buffer, offsets[k], tensor.total_tensor_size_in_bytes))
    output, offset = tensors[-1], offsets[-1]
    before = sentinel_bytes(offset + output.total_tensor_size_in_bytes + slack)[::-1].copy()
    out_buffer = device.create_buffer(before.size)
    out_buffer.write(before)
    dispatch(device, compiled, bindings, [dml.BufferBinding(out_buffer, offset, output.total_tensor_size_in_bytes)])
    after = out_buffer.read(np.uint8, before.size)
    count = int(np.prod(output.sizes))
    pad_nibble = None
    if output.data_type in NIBBLE_TYPES:
        extent = extent_bytes(output)
        got = unpack_nibbles(after[offset : offset + extent], count, output.data_type).reshape(output.sizes)
        inside = np.zeros(after.size, bool)
        inside[offset : offset + extent] = True
        pad_nibble = int(after[offset + extent - 1] >> 4) if count % 2 else None
    else:
        dtype, strides = DTYPES[output.data_type], output.effective_strides
        got = strided_view(after, dtype, offset, output.sizes, strides).copy()
        inside = byte_mask(after.size, offset, dtype.itemsize, element_offsets(output.sizes, strides))
    changed = np.flatnonzero((after != before) & ~inside).tolist()
    return QuantizationRun(got, changed, pad_nibble, compiled.lowered.kernel)


def expand(parameter: npt.ArrayLike, sizes: Sequence[int]) -> npt.NDArray[Any]:
    """A quantization tensor's values (its own Sizes) for each element of a tensor of ``sizes``: a dimension of
    1 broadcast, one of n < size repeated over blocks of size / n consecutive indices."""
    array = np.asarray(parameter)
    for dim, (size, n) in enumerate(zip(sizes, array.shape, strict=True)):
        if n not in (1, size):
            array = np.repeat(array, size // n, axis=dim)
    return np.broadcast_to(array, tuple(sizes))


def zero_points(zero_point: npt.ArrayLike | None, quantized: T, sizes: Sequence[int]) -> npt.NDArray[np.int64]:
    """The zero point of every element: the tensor's, or under SCALE the type's midpoint (0 when signed)."""
    if zero_point is None:
        return np.full(tuple(sizes), MIDPOINTS.get(quantized, 0), np.int64)
    return expand(np.asarray(zero_point).astype(np.int64), sizes)


def dequantize_reference(
    x: npt.ArrayLike, scale: npt.ArrayLike, zero_point: npt.ArrayLike | None, quantized: T, real: T
) -> npt.NDArray[Any]:
    """DEQUANTIZE's output: oracle.dequantize_scalar per element, over blocked or broadcast parameters."""
    x = np.asarray(x)
    out = DTYPES[real]
    scales, zeros = expand(scale, x.shape), zero_points(zero_point, quantized, x.shape)
    flat = zip(x.astype(np.int64).reshape(-1), scales.reshape(-1), zeros.reshape(-1), strict=True)
    return (
        np.array([oracle.dequantize_scalar(a, s, z, out) for a, s, z in flat], np.float64).astype(out).reshape(x.shape)
    )


def quantize_reference(
    x: npt.ArrayLike, scale: npt.ArrayLike, zero_point: npt.ArrayLike | None, quantized: T
) -> npt.NDArray[Any]:
    """QUANTIZE's output: oracle.quantize_scalar per element (ties to even, saturation, NaN to 0), over blocked
    or broadcast parameters."""
    x = np.asarray(x)
    out = DTYPES[quantized]
    scales, zeros = expand(scale, x.shape), zero_points(zero_point, quantized, x.shape)
    flat = zip(x.reshape(-1), scales.reshape(-1), zeros.reshape(-1), strict=True)
    return np.array([oracle.quantize_scalar(a, s, z, out) for a, s, z in flat], np.int64).astype(out).reshape(x.shape)


def tensor(data_type: T, sizes: tuple[int, ...], strides: tuple[int, ...] | None = None) -> dml.BufferTensorDesc:
    return dml.BufferTensorDesc(data_type=data_type, sizes=sizes, strides=strides)


def quantize_desc(
    real: T, quantized: T, sizes: tuple[int, ...], scale_sizes: tuple[int, ...], zero_point: bool
) -> dml.QuantizeOperatorDesc:
    parameters = [tensor(real, scale_sizes)] + ([tensor(quantized, scale_sizes)] if zero_point else [])
    return dml.QuantizeOperatorDesc(
        InputTensor=tensor(real, sizes),
        QuantizationType=QT.SCALE_ZERO_POINT if zero_point else QT.SCALE,
        QuantizationTensors=parameters,
        OutputTensor=tensor(quantized, sizes),
    )


def dequantize_desc(
    quantized: T,
    real: T,
    sizes: tuple[int, ...],
    scale_sizes: tuple[int, ...],
    zero_point: bool,
    input_strides: tuple[int, ...] | None = None,
) -> dml.DequantizeOperatorDesc:
    parameters = [tensor(real, scale_sizes)] + ([tensor(quantized, scale_sizes)] if zero_point else [])
    return dml.DequantizeOperatorDesc(
        InputTensor=tensor(quantized, sizes, input_strides),
        QuantizationType=QT.SCALE_ZERO_POINT if zero_point else QT.SCALE,
        QuantizationTensors=parameters,
        OutputTensor=tensor(real, sizes),
    )


def float32_sweep(rng: np.random.Generator, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
    """Random bit patterns (every exponent), values over the 4-bit and 8-bit ranges, ties, and the specials."""
    n = int(np.prod(shape))
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(F32)
    small = rng.uniform(-300, 300, n).astype(F32)
    ties = (rng.integers(-40, 40, n) + 0.5).astype(F32)
    x = np.where(rng.random(n) < 0.3, bits, np.where(rng.random(n) < 0.5, small, ties))
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 7.5, 8.5, -8.5, 15.5, 16.0, 127.5, 255.5, 3.4e38]
    x[: min(n, len(edges))] = edges[:n]
    return x.reshape(shape)


def chain(ops: list[Any], parameters: dict[int, tuple[int, ...]] | None = None) -> dml.GraphDesc:
    """``ops`` one after the other (each one's InputTensor the previous one's output): graph input 0 feeds the
    first; node k's other inputs (a QUANTIZE's or DEQUANTIZE's scale and zero point) come from the graph inputs
    ``parameters[k]`` lists, by default 1 and 2 (one scale and zero point for every node)."""
    edge = dml.InputGraphEdgeDesc
    input_edges = [edge(graph_input_index=0, to_node_index=0, to_node_input_index=0)]
    for node, op in enumerate(ops):
        sources = (parameters or {}).get(node, (1, 2)[: len(op.input_fields()) - 1])
        input_edges += [
            edge(graph_input_index=source, to_node_index=node, to_node_input_index=slot)
            for slot, source in enumerate(sources, start=1)
        ]
    return dml.GraphDesc(
        nodes=[dml.OperatorGraphNodeDesc(operator=op) for op in ops],
        input_edges=input_edges,
        intermediate_edges=[
            dml.IntermediateGraphEdgeDesc(
                from_node_index=node - 1, from_node_output_index=0, to_node_index=node, to_node_input_index=0
            )
            for node in range(1, len(ops))
        ],
        output_edges=[
            dml.OutputGraphEdgeDesc(from_node_index=len(ops) - 1, from_node_output_index=0, graph_output_index=0)
        ],
    )


def run_packed_graph(
    device: Any, desc: dml.GraphDesc, inputs: list[bytes], output_bytes: int, *, fuse: bool, slack: int = 8
) -> Any:
    """Compile (fused or node by node), bind ``inputs`` (bytes, as DirectML lays them out) and a sentinel-filled
    output of ``output_bytes`` (plus ``slack`` bytes past it), dispatch; the compiled graph and the output's bytes."""
    compiled = device.compile_graph(desc, fuse=fuse)
    initialize(device, compiled)
    table = device.create_binding_table(compiled)
    buffers = []
    for data in inputs:
        buffer = device.create_buffer(-(-len(data) // 4) * 4)
        buffer.write(np.frombuffer(data.ljust(buffer.size, b"\xee"), np.uint8))
        buffers.append(dml.BufferBinding(buffer))
    table.bind_inputs(buffers)
    out = device.create_buffer(output_bytes + slack)
    out.write(np.full(out.size, 0xEE, np.uint8))
    table.bind_outputs([dml.BufferBinding(out, 0, output_bytes)])
    size = compiled.get_binding_properties().temporary_resource_size
    if size:
        table.bind_temporary_resource(dml.BufferBinding(device.create_buffer(size)))
    device.create_command_recorder().record_dispatch(device.queue, compiled, table).wait()
    return compiled, out.read(np.uint8, out.size)


def quantized_values(rng: np.random.Generator, data_type: T, shape: tuple[int, ...]) -> npt.NDArray[np.int64]:
    low, high = oracle.INTEGER_RANGES[DTYPES[data_type]]
    return rng.integers(low, high, shape, endpoint=True)
