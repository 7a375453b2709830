"""GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS, SCATTER_ND and ONE_HOT run, bit for bit against
onnx.reference's Gather, GatherElements, GatherND, ScatterElements, ScatterND and OneHot (on the elements' bits as
unsigned integers, so every encoding must arrive unchanged), for every data type and index type of their tables,
negative indices, strided tensors at offsets, and as graph nodes. Out of range, dmlpy's documented rules: a gather
reads the nearest element, a scatter writes nothing, ONE_HOT leaves the sequence OffValue."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
import onnx.reference
import pytest
from onnx import helper

import dmlpy as dml
from tests.device.movement.cases import padded_strides, random_bits, tensor
from tests.helpers.dtypes import NUMPY_DTYPE
from tests.helpers.structured_runs import run_structured

T = dml.TensorDataType


def onnx_reference(op_type: str, inputs: list[npt.NDArray[Any]], **attributes: Any) -> npt.NDArray[Any]:
    """``op_type`` by onnx.reference, float tensors given as their bits (the moves are exact either way)."""
    bits = [a.view(f"u{a.dtype.itemsize}") if a.dtype.kind == "f" else a for a in inputs]
    names = [f"x{k}" for k in range(len(bits))]
    values = [
        helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for n, a in zip(names, bits, strict=True)
    ]
    graph = helper.make_graph(
        [helper.make_node(op_type, names, ["y"], **attributes)],
        "g",
        values,
        [helper.make_tensor_value_info("y", 0, None)],
    )
    (result,) = onnx.reference.ReferenceEvaluator(helper.make_model(graph)).run(
        None, dict(zip(names, bits, strict=True))
    )
    return np.asarray(result).view(inputs[0].dtype) if inputs[0].dtype.kind == "f" else np.asarray(result)


def _indices(index_type: Any, high: int, shape: tuple[int, ...], seed: int, negative: bool = True) -> npt.NDArray[Any]:
    dtype = NUMPY_DTYPE[index_type]
    low = -high if negative and dtype.kind == "i" else 0
    return np.random.default_rng(seed).integers(low, high, shape).astype(dtype)


def _run(device: Any, desc: Any, inputs: dict[str, Any], offsets: dict[str, int] | None = None) -> npt.NDArray[Any]:
    desc.validate_on(device.feature_level)
    return run_structured(device, desc, inputs, offsets=offsets)["output_tensor"]


def _equal(got: npt.NDArray[Any], expected: npt.NDArray[Any]) -> None:
    bits = f"u{got.dtype.itemsize}"
    np.testing.assert_array_equal(got.view(bits), np.ascontiguousarray(expected).reshape(got.shape).view(bits))


def _table(desc_class: Any, field: str) -> list[Any]:
    return sorted(desc_class.SUPPORT.rows[-1].data_types[field], key=int)


def gather_case(data_type: Any, index_type: Any, strided: bool) -> tuple[Any, dict[str, Any], npt.NDArray[Any]]:
    """Gather along axis 1 of a (2, 5, 3, 4) input with (2, 3) indices: output (2, 2, 3, 3, 4) cropped... as 4-D:
    IndexDimensions 2 with a leading 1 piece: Sizes [2] + [2, 3] + [3, 4] is 5 pieces, so the input is (1, 5, 3, 4)."""
    x = random_bits(data_type, (1, 5, 3, 4), 1)
    indices = _indices(index_type, 5, (2, 3), 2)
    desc = dml.GatherOperatorDesc(
        input_tensor=tensor(data_type, x.shape, padded_strides(x.shape, 2) if strided else None),
        indices_tensor=tensor(index_type, (1, 1, 2, 3)),
        output_tensor=tensor(data_type, (2, 3, 3, 4)),
        axis=1,
        index_dimensions=2,
    )
    expected = onnx_reference("Gather", [x[0], indices], axis=0)
    return desc, {"input_tensor": x, "indices_tensor": indices.reshape(1, 1, 2, 3)}, expected


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", _table(dml.GatherOperatorDesc, "InputTensor"), ids=lambda t: t.name)
def test_gather_every_type(device: Any, data_type: Any) -> None:
    desc, inputs, expected = gather_case(data_type, T.INT32, False)
    _equal(_run(device, desc, inputs), expected)


@pytest.mark.parametrize("index_type", _table(dml.GatherOperatorDesc, "IndicesTensor"), ids=lambda t: t.name)
def test_gather_every_index_type_strided(device: Any, index_type: Any) -> None:
    desc, inputs, expected = gather_case(T.FLOAT16, index_type, True)
    _equal(_run(device, desc, inputs, {"input_tensor": 32}), expected)


@pytest.mark.parametrize("axis", [0, 2, 3])
def test_gather_elements(device: Any, axis: int) -> None:
    x = random_bits(T.FLOAT32, (2, 3, 4, 5), 3)
    shape = tuple(2 if d == axis else n for d, n in enumerate(x.shape))
    indices = _indices(T.INT64, x.shape[axis], shape, 4)
    desc = dml.GatherElementsOperatorDesc(
        input_tensor=tensor(T.FLOAT32, x.shape, padded_strides(x.shape, 1)),
        indices_tensor=tensor(T.INT64, shape),
        output_tensor=tensor(T.FLOAT32, shape),
        axis=axis,
    )
    got = _run(device, desc, {"input_tensor": x, "indices_tensor": indices})
    _equal(got, onnx_reference("GatherElements", [x, indices], axis=axis))


@pytest.mark.parametrize("batch", [0, 1])
def test_gather_nd(device: Any, batch: int) -> None:
    x = random_bits(T.INT16, (2, 3, 4, 5), 5)
    # batch 0: indices (2, 2, 2) tuples over (2, 3): output (2, 2, 4, 5); batch 1: (2, 3, 2) over (3, 4): (2, 3, 5).
    tuple_dims = (2, 3) if batch == 0 else (3, 4)
    shape = (2, 2, 2) if batch == 0 else (2, 3, 2)
    rng = np.random.default_rng(6)
    indices = np.stack([rng.integers(-n, n, shape[:-1]) for n in tuple_dims], axis=-1).astype(np.int32)
    expected = onnx_reference("GatherND", [x, indices], batch_dims=batch)
    out_sizes = (1,) * (4 - expected.ndim) + expected.shape
    desc_class = dml.GatherNd1OperatorDesc if batch else dml.GatherNdOperatorDesc
    desc = desc_class(
        input_tensor=tensor(T.INT16, x.shape),
        indices_tensor=tensor(T.INT32, (1, *shape)),
        output_tensor=tensor(T.INT16, out_sizes, padded_strides(out_sizes, 2)),
        input_dimension_count=4,
        indices_dimension_count=3,
        **({"batch_dimension_count": batch} if batch else {}),
    )
    _equal(_run(device, desc, {"input_tensor": x, "indices_tensor": indices.reshape(1, *shape)}), expected)


@pytest.mark.one_profile
@pytest.mark.parametrize("data_type", _table(dml.ScatterElementsOperatorDesc, "InputTensor"), ids=lambda t: t.name)
def test_scatter_elements_every_type(device: Any, data_type: Any) -> None:
    x = random_bits(data_type, (3, 4, 5), 7)
    # Distinct indices along axis 1 per (i, k): a permutation's first 2 entries, so no two updates collide.
    perm = np.argsort(np.random.default_rng(8).random((3, 4, 5)), axis=1)[:, :2, :]
    indices = (perm - 4 * (perm % 2)).astype(np.int64)  # odd ones negative: counted from the end
    updates = random_bits(data_type, (3, 2, 5), 9)
    desc = dml.ScatterElementsOperatorDesc(
        input_tensor=tensor(data_type, x.shape),
        indices_tensor=tensor(T.INT64, indices.shape),
        updates_tensor=tensor(data_type, updates.shape),
        output_tensor=tensor(data_type, x.shape, padded_strides(x.shape, 1)),
        axis=1,
    )
    inputs = {"input_tensor": x, "indices_tensor": indices, "updates_tensor": updates}
    _equal(_run(device, desc, inputs), onnx_reference("ScatterElements", [x, indices, updates], axis=1))


def test_scatter_nd(device: Any) -> None:
    x = random_bits(T.FLOAT32, (4, 3, 5), 10)
    indices = np.array([[[1, 0], [-1, 2]], [[0, 1], [2, -3]]], np.int32)  # (2, 2, 2): 4 distinct tuples over (4, 3)
    updates = random_bits(T.FLOAT32, (2, 2, 5), 11)
    desc = dml.ScatterNdOperatorDesc(
        input_tensor=tensor(T.FLOAT32, x.shape, padded_strides(x.shape, 3)),
        indices_tensor=tensor(T.INT32, indices.shape),
        updates_tensor=tensor(T.FLOAT32, updates.shape),
        output_tensor=tensor(T.FLOAT32, x.shape),
        input_dimension_count=3,
        indices_dimension_count=3,
    )
    resolved = np.where(indices < 0, indices + np.array([4, 3]), indices)
    inputs = {"input_tensor": x, "indices_tensor": indices, "updates_tensor": updates}
    _equal(_run(device, desc, inputs, {"updates_tensor": 16}), onnx_reference("ScatterND", [x, resolved, updates]))


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("index_type", [T.UINT32, T.INT64])
def test_one_hot(device: Any, axis: int, index_type: Any) -> None:
    depth = 6
    shape = (3, 4)
    indices = _indices(index_type, depth, shape, 12)
    indices.flat[0] = depth + 3 if index_type == T.UINT32 else -depth - 2  # out of range: the sequence is OffValue
    values = np.array([[-2.5, 7.0]], np.float32)
    sizes = tuple(np.insert(np.array(shape), axis, depth))
    index_sizes = tuple(np.insert(np.array(shape), axis, 1))
    desc = dml.OneHotOperatorDesc(
        indices_tensor=tensor(index_type, index_sizes),
        values_tensor=tensor(T.FLOAT32, (1, 1, 2)),
        output_tensor=tensor(T.FLOAT32, sizes),
        axis=axis,
    )
    got = _run(device, desc, {"indices_tensor": indices.reshape(index_sizes), "values_tensor": values.reshape(1, 1, 2)})
    depth_array = np.array(depth, np.int64)
    values_bits = values.reshape(2).view(np.uint32)
    expected = onnx_reference("OneHot", [indices.astype(np.int64), depth_array, values_bits], axis=axis)
    _equal(got, expected.astype(np.uint32))


def test_gather_then_scatter_in_a_graph(device: Any) -> None:
    """x -> GATHER (rows) -> ADD 1 -> SCATTER_ELEMENTS back into y: each its own kernel, the element-wise node fused
    with nothing across them."""
    f32 = T.FLOAT32
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 4, 3)
    rows = np.array([2, 0], np.uint32)
    g = dml.Graph(device)
    gx, gy = g.input(x.shape, f32), g.input((1, 1, 4, 3), f32)
    gathered = g.add_operator(
        dml.GatherOperatorDesc(
            input_tensor=tensor(f32, x.shape), indices_tensor=tensor(T.UINT32, (1, 1, 1, 2)),
            output_tensor=tensor(f32, (1, 1, 2, 3)), axis=2, index_dimensions=1,
        ),
        [gx, g.constant(rows.reshape(1, 1, 1, 2), dml.BufferTensorDesc(data_type=T.UINT32, sizes=(1, 1, 1, 2)))],
    )  # fmt: skip
    where = np.array([[3, 3, 3], [1, 1, 1]], np.uint32).reshape(1, 1, 2, 3)
    scattered = g.add_operator(
        dml.ScatterElementsOperatorDesc(
            input_tensor=tensor(f32, (1, 1, 4, 3)), indices_tensor=tensor(T.UINT32, (1, 1, 2, 3)),
            updates_tensor=tensor(f32, (1, 1, 2, 3)), output_tensor=tensor(f32, (1, 1, 4, 3)), axis=2,
        ),
        [gy, g.constant(where, dml.BufferTensorDesc(data_type=T.UINT32, sizes=(1, 1, 2, 3))), gathered + 1],
    )  # fmt: skip
    y = np.zeros((1, 1, 4, 3), np.float32)
    got = np.asarray(g.compile([scattered])(x, y))
    expected = y.copy()
    expected[0, 0, 3], expected[0, 0, 1] = x[0, 0, 2] + 1, x[0, 0, 0] + 1
    np.testing.assert_array_equal(got, expected)
