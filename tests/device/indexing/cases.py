"""The indexing operators' cases (GATHER and its forms, the scatters, ONE_HOT), each a descriptor, its inputs and
onnx.reference's result on the elements' bits, shared by test_indexing.py and the Oclgrind sweep
(oclgrind_indexing_variants.py). ``padded`` names the slots whose rows are padded (strided tensors); ``outside``
puts indices outside their dimension among them (past the end, before -size when signed, the type's extremes), where
the reference follows dmlpy's documented rules: a gather reads the nearest element, a scatter writes nothing,
ONE_HOT leaves the sequence OffValue."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import onnx
import onnx.reference
from onnx import helper

import dmlpy as dml
from tests.device.movement.cases import padded_strides, random_bits, tensor
from tests.helpers.dtypes import NUMPY_DTYPE

T = dml.TensorDataType


class IndexingCase(NamedTuple):
    desc: Any
    inputs: dict[str, npt.NDArray[Any]]
    expected: npt.NDArray[Any]


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


def random_indices(
    index_type: Any, high: int, shape: tuple[int, ...], seed: int, negative: bool = True
) -> npt.NDArray[Any]:
    """Indices in [0, high), from [-high, high) for a signed ``index_type`` (negative ones count from the end)."""
    dtype = NUMPY_DTYPE[index_type]
    low = -high if negative and dtype.kind == "i" else 0
    return np.random.default_rng(seed).integers(low, high, shape).astype(dtype)


def table(desc_class: Any, field: str) -> list[Any]:
    """The types ``field`` takes in the operator's newest table row."""
    return sorted(desc_class.SUPPORT.rows[-1].data_types[field], key=int)


def out_of_range(index_type: Any, size: int) -> list[int]:
    """Indices outside a dimension of ``size`` even counted from its end: past it, the type's largest and, signed,
    before -size and the type's smallest."""
    info = np.iinfo(NUMPY_DTYPE[index_type])
    return [size, int(info.max)] + ([-size - 1, int(info.min)] if info.min < 0 else [])


def inside(indices: npt.NDArray[Any], size: int) -> npt.NDArray[np.bool_]:
    """Which ``indices`` fall in a dimension of ``size``, negative ones counted from its end."""
    return (indices < size) & (indices >= -size) if indices.dtype.kind == "i" else indices < size


def nearest_inside(indices: npt.NDArray[Any], size: int) -> npt.NDArray[Any]:
    """``indices`` with each one outside a dimension of ``size`` replaced by the nearest index inside (0 below, the
    last above), in their own type: where a gather reads for it."""
    near = np.where(indices < 0, 0, size - 1).astype(indices.dtype)
    return np.where(inside(indices, size), indices, near)


def _strides(slot: str, sizes: tuple[int, ...], padded: Collection[str], gap: int) -> tuple[int, ...] | None:
    return padded_strides(sizes, gap) if slot in padded else None


def gather_case(data_type: Any, index_type: Any, padded: Collection[str] = (), outside: bool = False) -> IndexingCase:
    """Gather along axis 1 of a (1, 5, 3, 4) input with (2, 3) indices (IndexDimensions 2): output (2, 3, 3, 4), the
    input's leading 1 cropped, as ONNX Gather along axis 0 of the (5, 3, 4) input."""
    x = random_bits(data_type, (1, 5, 3, 4), 1)
    indices = random_indices(index_type, 5, (2, 3), 2)
    if outside:
        values = out_of_range(index_type, 5)
        indices.flat[: len(values)] = values
    desc = dml.GatherOperatorDesc(
        input_tensor=tensor(data_type, x.shape, _strides("input_tensor", x.shape, padded, 2)),
        indices_tensor=tensor(index_type, (1, 1, 2, 3), _strides("indices_tensor", (1, 1, 2, 3), padded, 1)),
        output_tensor=tensor(data_type, (2, 3, 3, 4), _strides("output_tensor", (2, 3, 3, 4), padded, 3)),
        axis=1,
        index_dimensions=2,
    )
    expected = onnx_reference("Gather", [x[0], nearest_inside(indices, 5)], axis=0)
    return IndexingCase(desc, {"input_tensor": x, "indices_tensor": indices.reshape(1, 1, 2, 3)}, expected)


def gather_elements_case(
    data_type: Any, index_type: Any, axis: int, padded: Collection[str] = (), outside: bool = False
) -> IndexingCase:
    """GatherElements along ``axis`` of a (2, 3, 4, 5) input, 2 indices along it."""
    x = random_bits(data_type, (2, 3, 4, 5), 3)
    shape = tuple(2 if d == axis else n for d, n in enumerate(x.shape))
    indices = random_indices(index_type, x.shape[axis], shape, 4)
    if outside:
        values = out_of_range(index_type, x.shape[axis])
        indices.flat[np.arange(len(values)) * (indices.size // len(values))] = values
    desc = dml.GatherElementsOperatorDesc(
        input_tensor=tensor(data_type, x.shape, _strides("input_tensor", x.shape, padded, 1)),
        indices_tensor=tensor(index_type, shape, _strides("indices_tensor", shape, padded, 2)),
        output_tensor=tensor(data_type, shape, _strides("output_tensor", shape, padded, 3)),
        axis=axis,
    )
    expected = onnx_reference("GatherElements", [x, nearest_inside(indices, x.shape[axis])], axis=axis)
    return IndexingCase(desc, {"input_tensor": x, "indices_tensor": indices}, expected)


def gather_nd_case(
    data_type: Any, index_type: Any, batch: int, padded: Collection[str] = (), outside: bool = False
) -> IndexingCase:
    """GatherND over a (2, 3, 4, 5) input: batch 0, (2, 2, 2) tuples over (2, 3), output (2, 2, 4, 5); batch 1
    (GATHER_ND1), (2, 3, 2) tuples over (3, 4), output (2, 3, 5)."""
    x = random_bits(data_type, (2, 3, 4, 5), 5)
    tuple_dims = (2, 3) if batch == 0 else (3, 4)
    shape = (2, 2, 2) if batch == 0 else (2, 3, 2)
    rng = np.random.default_rng(6)
    drawn = np.stack([rng.integers(-n, n, shape[:-1]) for n in tuple_dims], axis=-1)
    if NUMPY_DTYPE[index_type].kind == "u":
        drawn = np.where(drawn < 0, drawn + np.array(tuple_dims), drawn)
    indices = drawn.astype(NUMPY_DTYPE[index_type])
    if outside:  # coordinate 0 of the first tuples, coordinate 1 of the last ones
        values = out_of_range(index_type, tuple_dims[0])
        indices.reshape(-1, 2)[: len(values), 0] = values
        indices.reshape(-1, 2)[-1, 1] = tuple_dims[1]
    reference = np.stack([nearest_inside(indices[..., t], n) for t, n in enumerate(tuple_dims)], axis=-1)
    expected = onnx_reference("GatherND", [x, reference], batch_dims=batch)
    out_sizes = (1,) * (4 - expected.ndim) + expected.shape
    desc_class = dml.GatherNd1OperatorDesc if batch else dml.GatherNdOperatorDesc
    desc = desc_class(
        input_tensor=tensor(data_type, x.shape, _strides("input_tensor", x.shape, padded, 1)),
        indices_tensor=tensor(index_type, (1, *shape), _strides("indices_tensor", (1, *shape), padded, 3)),
        output_tensor=tensor(data_type, out_sizes, _strides("output_tensor", out_sizes, padded, 2)),
        input_dimension_count=4,
        indices_dimension_count=3,
        **({"batch_dimension_count": batch} if batch else {}),
    )
    return IndexingCase(desc, {"input_tensor": x, "indices_tensor": indices.reshape(1, *shape)}, expected)


def scatter_elements_case(
    data_type: Any, index_type: Any, padded: Collection[str] = (), outside: bool = False
) -> IndexingCase:
    """ScatterElements of (3, 2, 5) updates along axis 1 of a (3, 4, 5) input: per (i, k) the first 2 entries of a
    permutation, so no two updates collide; signed, the odd ones negative (counted from the end). ``outside``: some
    second entries out of range, written nowhere; the reference sends them to the permutation's third entry (which
    no update takes) carrying the input's own element there, so onnx.reference's ScatterElements still judges."""
    x = random_bits(data_type, (3, 4, 5), 7)
    perm = np.argsort(np.random.default_rng(8).random((3, 4, 5)), axis=1)
    chosen = perm[:, :2, :]
    signed = NUMPY_DTYPE[index_type].kind == "i"
    indices = (chosen - 4 * (chosen % 2) if signed else chosen).astype(NUMPY_DTYPE[index_type])
    updates = random_bits(data_type, (3, 2, 5), 9)
    reference_indices, reference_updates = indices.astype(np.int64), updates
    if outside:
        for (i, k), value in zip([(0, 0), (1, 3), (2, 1), (0, 4)], out_of_range(index_type, 4), strict=False):
            indices[i, 1, k] = value
        skipped = ~inside(indices, 4)
        free = perm[:, 2:3, :]
        reference_indices = np.where(skipped, free, reference_indices)
        reference_updates = np.where(skipped, np.take_along_axis(x, free, axis=1), updates)
    desc = dml.ScatterElementsOperatorDesc(
        input_tensor=tensor(data_type, x.shape, _strides("input_tensor", x.shape, padded, 2)),
        indices_tensor=tensor(index_type, indices.shape, _strides("indices_tensor", indices.shape, padded, 3)),
        updates_tensor=tensor(data_type, updates.shape, _strides("updates_tensor", updates.shape, padded, 2)),
        output_tensor=tensor(data_type, x.shape, _strides("output_tensor", x.shape, padded, 1)),
        axis=1,
    )
    inputs = {"input_tensor": x, "indices_tensor": indices, "updates_tensor": updates}
    expected = onnx_reference("ScatterElements", [x, reference_indices, reference_updates], axis=1)
    return IndexingCase(desc, inputs, expected)


def scatter_nd_case(
    data_type: Any, index_type: Any, padded: Collection[str] = (), outside: bool = False
) -> IndexingCase:
    """ScatterND of (2, 2, 5) updates into a (4, 3, 5) input at 4 distinct (2, 2, 2) tuples over (4, 3), two of them
    negative when signed (resolved when not). ``outside``: two tuples with a coordinate out of range, written
    nowhere: the reference scatters the other tuples alone."""
    x = random_bits(data_type, (4, 3, 5), 10)
    dims = np.array([4, 3])
    written = np.array([[[1, 0], [-1, 2]], [[0, 1], [2, -3]]])
    resolved = np.where(written < 0, written + dims, written)
    signed = NUMPY_DTYPE[index_type].kind == "i"
    indices = (written if signed else resolved).astype(NUMPY_DTYPE[index_type])
    updates = random_bits(data_type, (2, 2, 5), 11)
    if outside:
        indices[0, 1, 0] = out_of_range(index_type, 4)[0]
        indices[1, 1, 1] = out_of_range(index_type, 3)[-1]
    kept = (inside(indices[..., 0], 4) & inside(indices[..., 1], 3)).reshape(-1)
    desc = dml.ScatterNdOperatorDesc(
        input_tensor=tensor(data_type, x.shape, _strides("input_tensor", x.shape, padded, 3)),
        indices_tensor=tensor(index_type, indices.shape, _strides("indices_tensor", indices.shape, padded, 1)),
        updates_tensor=tensor(data_type, updates.shape, _strides("updates_tensor", updates.shape, padded, 2)),
        output_tensor=tensor(data_type, x.shape, _strides("output_tensor", x.shape, padded, 1)),
        input_dimension_count=3,
        indices_dimension_count=3,
    )
    inputs = {"input_tensor": x, "indices_tensor": indices, "updates_tensor": updates}
    expected = onnx_reference("ScatterND", [x, resolved.reshape(-1, 2)[kept], updates.reshape(-1, 5)[kept]])
    return IndexingCase(desc, inputs, expected)


def one_hot_case(
    data_type: Any, index_type: Any, axis: int, padded: Collection[str] = (), outside: bool = False
) -> IndexingCase:
    """ONE_HOT of depth 6 along ``axis`` over (3, 4) indices, OffValue and OnValue random bits; index 0 out of range
    (``outside``: the first ones, every out_of_range value), so its sequence is OffValue."""
    depth, shape = 6, (3, 4)
    indices = random_indices(index_type, depth, shape, 12)
    unsigned = NUMPY_DTYPE[index_type].kind == "u"
    values_out = out_of_range(index_type, depth) if outside else [depth + 3 if unsigned else -depth - 2]
    indices.flat[: len(values_out)] = values_out
    values = random_bits(data_type, (1, 1, 2), 13)
    sizes = tuple(np.insert(np.array(shape), axis, depth))
    index_sizes = tuple(np.insert(np.array(shape), axis, 1))
    desc = dml.OneHotOperatorDesc(
        indices_tensor=tensor(index_type, index_sizes, _strides("indices_tensor", index_sizes, padded, 2)),
        values_tensor=tensor(data_type, (1, 1, 2), _strides("values_tensor", (1, 1, 2), padded, 1)),
        output_tensor=tensor(data_type, sizes, _strides("output_tensor", sizes, padded, 1)),
        axis=axis,
    )
    # onnx.reference takes int64 indices: an unsigned one past the depth stays past it (2^64 - 1 would wrap to -1).
    wide = (np.minimum(indices, depth) if unsigned else indices).astype(np.int64)
    bits = values.reshape(2).view(f"u{values.dtype.itemsize}")
    with np.errstate(over="ignore"):  # OneHot's off + (on - off) on the bits as unsigned integers wraps, exactly
        expected = onnx_reference("OneHot", [wide, np.array(depth, np.int64), bits], axis=axis)
    inputs = {"indices_tensor": indices.reshape(index_sizes), "values_tensor": values}
    return IndexingCase(desc, inputs, expected.astype(bits.dtype).view(values.dtype))
