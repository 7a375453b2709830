"""REVERSE_SUBSEQUENCES' and NONZERO_COORDINATES' cases, shared by their device tests and their Oclgrind script:
each a MovementCase (a descriptor, its inputs and expected outputs by slot) against NumPy (the general lengths, one
per sequence, clamped) or onnx.reference (ReverseSequence where the lengths vary along one batch axis; NonZero,
transposed). NONZERO_COORDINATES' expected coordinates are its first count rows only (the page leaves the rest
undefined): ``count_rows`` cuts a result to them."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
import onnx.reference
from onnx import helper

import dmlpy as dml
from tests.device.movement.cases import MovementCase, padded_strides, random_bits, tensor

T = dml.TensorDataType


def onnx_run(node: Any, inputs: dict[str, npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """One ONNX node on ``inputs`` by onnx.reference."""
    infos = [
        helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape) for k, v in inputs.items()
    ]
    graph = helper.make_graph(
        [node], "g", infos, [helper.make_tensor_value_info("y", onnx.TensorProto.UNDEFINED, None)]
    )
    return np.asarray(onnx.reference.ReferenceEvaluator(helper.make_model(graph)).run(None, inputs)[0])


def reversed_subsequences(x: npt.NDArray[Any], lengths: npt.NDArray[Any], axis: int) -> npt.NDArray[Any]:
    """NumPy: along ``axis``, each sequence's first min(L, n) elements reversed, the rest as they are."""
    n = x.shape[axis]
    index = np.arange(n).reshape([n if d == axis else 1 for d in range(x.ndim)])
    clamped = np.minimum(lengths.astype(np.int64), n)
    source = np.where(index < clamped, clamped - 1 - index, index)
    return np.take_along_axis(x, np.broadcast_to(source, x.shape), axis)


def reverse_case(
    data_type: Any,
    sizes: tuple[int, ...],
    axis: int,
    lengths_type: Any = T.UINT32,
    strided: bool = False,
    seed: int = 1,
) -> MovementCase:
    """Random bits along ``axis`` of ``sizes``, random lengths from 0 to past the axis (clamped)."""
    x = random_bits(data_type, sizes, seed)
    lengths_sizes = tuple(1 if d == axis else s for d, s in enumerate(sizes))
    dtype = np.uint64 if lengths_type == T.UINT64 else np.uint32
    lengths = np.random.default_rng(seed + 1).integers(0, sizes[axis] + 3, size=lengths_sizes).astype(dtype)
    desc = dml.ReverseSubsequencesOperatorDesc(
        input_tensor=tensor(data_type, sizes, padded_strides(sizes, 3) if strided else None),
        sequence_lengths_tensor=tensor(
            lengths_type, lengths_sizes, padded_strides(lengths_sizes, 1) if strided else None
        ),
        output_tensor=tensor(data_type, sizes, padded_strides(sizes, 2) if strided else None),
        axis=axis,
    )
    expected = reversed_subsequences(x, lengths, axis)
    offsets = {"output_tensor": 32} if strided else {}
    return MovementCase(
        desc, {"input_tensor": x, "sequence_lengths_tensor": lengths}, {"output_tensor": expected}, offsets
    )


def reverse_sequence_case(data_type: Any) -> MovementCase:
    """ONNX's ReverseSequence (batch_axis 0, time_axis 1): the lengths vary along dimension 0 only."""
    sizes = (4, 6, 3, 2)
    x = random_bits(data_type, sizes, 7)
    per_batch = np.array([0, 1, 4, 6], dtype=np.int64)
    lengths = np.broadcast_to(per_batch.reshape(4, 1, 1, 1), (4, 1, 3, 2)).astype(np.uint32)
    node = helper.make_node("ReverseSequence", ["x", "lens"], ["y"], batch_axis=0, time_axis=1)
    bits = x.view(f"u{x.dtype.itemsize}")
    expected = onnx_run(node, {"x": bits, "lens": per_batch}).view(x.dtype)
    desc = dml.ReverseSubsequencesOperatorDesc(
        input_tensor=tensor(data_type, sizes), sequence_lengths_tensor=tensor(T.UINT32, lengths.shape),
        output_tensor=tensor(data_type, sizes), axis=1,
    )  # fmt: skip
    return MovementCase(desc, {"input_tensor": x, "sequence_lengths_tensor": lengths}, {"output_tensor": expected}, {})


def nonzero_values(data_type: Any, sizes: tuple[int, ...], seed: int) -> npt.NDArray[Any]:
    """About half zeros; a float input also holds -0.0 (zero) and NaN and a subnormal (not zero)."""
    rng = np.random.default_rng(seed)
    dtype = random_bits(data_type, (1,), 0).dtype
    values = (rng.integers(-3, 4, size=sizes) * (rng.random(sizes) < 0.5)).astype(dtype)
    if values.dtype.kind == "f":
        flat = values.reshape(-1)
        flat[:3] = [-0.0, np.nan, np.finfo(dtype).smallest_subnormal]
    return values


def nonzero_case(
    data_type: Any, sizes: tuple[int, ...], columns: int, strided: bool = False, seed: int = 1
) -> MovementCase:
    """The coordinates of ``sizes``' non-zero elements, the last ``columns`` of each, as onnx.reference's NonZero
    (one column per coordinate) transposed; the count."""
    x = nonzero_values(data_type, sizes, seed)
    rows = int(np.prod(sizes))
    coordinates_sizes = (*(1,) * (len(sizes) - 2), rows, columns) if len(sizes) >= 2 else (rows, columns)
    count_sizes = (1,) * len(sizes)
    desc = dml.NonzeroCoordinatesOperatorDesc(
        input_tensor=tensor(data_type, sizes, padded_strides(sizes, 2) if strided else None),
        output_count_tensor=tensor(T.UINT32, count_sizes),
        output_coordinates_tensor=tensor(
            T.UINT32, coordinates_sizes, padded_strides(coordinates_sizes, 1) if strided else None
        ),
    )
    found = onnx_run(helper.make_node("NonZero", ["x"], ["y"]), {"x": x}).T[:, len(sizes) - columns :]
    expected = {
        "output_count_tensor": np.full(count_sizes, len(found), np.uint32),
        "output_coordinates_tensor": found.astype(np.uint32),
    }
    return MovementCase(desc, {"input_tensor": x}, expected, {"output_coordinates_tensor": 16} if strided else {})


def count_rows(got: dict[str, npt.NDArray[Any]]) -> dict[str, npt.NDArray[Any]]:
    """NONZERO_COORDINATES' outputs as compared: the count, and the coordinates' first count rows."""
    count = int(got["output_count_tensor"].reshape(-1)[0])
    coordinates = got["output_coordinates_tensor"]
    return {**got, "output_coordinates_tensor": coordinates.reshape(-1, coordinates.shape[-1])[:count]}
