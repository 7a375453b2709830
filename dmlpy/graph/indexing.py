"""The builder functions of the operators driven by indices or lengths: DirectMLX's ``dml::Gather``,
``GatherElements``, ``GatherND`` (DML_OPERATOR_GATHER_ND1), ``ScatterElements``, ``ScatterND``, ``OneHot`` and
``ReverseSubsequences``, and ``nonzero_coordinates`` (DML_OPERATOR_NONZERO_COORDINATES, a TODO in DirectMLX: its
arguments follow the descriptor's fields). The arguments are DirectMLX's, in its order, none defaulted; the
outputs are packed with the Sizes and DataType the operator's rule gives (``operator_node``), or, where the rule
leaves a size to the caller (ONE_HOT's depth, NONZERO_COORDINATES' row length), with the caller's."""

from __future__ import annotations

import math

from dmlpy.enums import TensorDataType
from dmlpy.errors import argument_error
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import add_node, operator_node
from dmlpy.ops import (
    GatherElementsOperatorDesc,
    GatherNd1OperatorDesc,
    GatherOperatorDesc,
    NonzeroCoordinatesOperatorDesc,
    OneHotOperatorDesc,
    ReverseSubsequencesOperatorDesc,
    ScatterElementsOperatorDesc,
    ScatterNdOperatorDesc,
)
from dmlpy.tensor import BufferTensorDesc


def _data_and_indices(where: str, x: Expression, indices: Expression) -> dict[str, Expression | None]:
    return {"input_tensor": operand(x, where, "x"), "indices_tensor": operand(indices, where, "indices")}


def gather(x: Expression, indices: Expression, axis: int, index_dimensions: int) -> Expression:
    """``dml::Gather``: DML_OPERATOR_GATHER, the slices of ``x`` along ``axis`` that ``indices`` (INT32, UINT32,
    INT64 or UINT64, x's DimensionCount) name; its last ``index_dimensions`` dimensions replace ``axis``, as
    ONNX's Gather (negative indices count from the end)."""
    inputs = _data_and_indices("dml.graph.gather", x, indices)
    return operator_node(GatherOperatorDesc, inputs, axis=axis, index_dimensions=index_dimensions)


def gather_elements(x: Expression, indices: Expression, axis: int) -> Expression:
    """``dml::GatherElements``: DML_OPERATOR_GATHER_ELEMENTS, ``output[i][j] = x[indices[i][j]][j]`` along
    ``axis`` (ONNX's GatherElements), the output of indices' Sizes."""
    inputs = _data_and_indices("dml.graph.gather_elements", x, indices)
    return operator_node(GatherElementsOperatorDesc, inputs, axis=axis)


def gather_nd(
    x: Expression,
    indices: Expression,
    input_dimension_count: int,
    indices_dimension_count: int,
    batch_dimension_count: int,
) -> Expression:
    """``dml::GatherND``: DML_OPERATOR_GATHER_ND1, each index tuple of ``indices`` (its last dimension) picks an
    element or slice of ``x``, after ``batch_dimension_count`` shared batch dimensions (ONNX's GatherND).

    ``input_dimension_count``, ``indices_dimension_count``: how many of x's and indices' last dimensions are their
    own (the rest are leading 1s)"""
    inputs = _data_and_indices("dml.graph.gather_nd", x, indices)
    return operator_node(
        GatherNd1OperatorDesc,
        inputs,
        input_dimension_count=input_dimension_count,
        indices_dimension_count=indices_dimension_count,
        batch_dimension_count=batch_dimension_count,
    )


def scatter_elements(x: Expression, indices: Expression, updates: Expression, axis: int) -> Expression:
    """``dml::ScatterElements``: DML_OPERATOR_SCATTER_ELEMENTS, ``x`` with ``updates[i][j]`` written at
    ``[indices[i][j]][j]`` along ``axis`` (ONNX's ScatterElements); the output of x's Sizes."""
    where = "dml.graph.scatter_elements"
    inputs = {**_data_and_indices(where, x, indices), "updates_tensor": operand(updates, where, "updates")}
    return operator_node(ScatterElementsOperatorDesc, inputs, axis=axis)


def scatter_nd(
    x: Expression, indices: Expression, updates: Expression, input_dimension_count: int, indices_dimension_count: int
) -> Expression:
    """``dml::ScatterND``: DML_OPERATOR_SCATTER_ND, ``x`` with each slice of ``updates`` written where an index
    tuple of ``indices`` (its last dimension) points (ONNX's ScatterND); the output of x's Sizes.

    ``input_dimension_count``, ``indices_dimension_count``: how many of x's and indices' last dimensions are their
    own (the rest are leading 1s)"""
    where = "dml.graph.scatter_nd"
    inputs = {**_data_and_indices(where, x, indices), "updates_tensor": operand(updates, where, "updates")}
    return operator_node(
        ScatterNdOperatorDesc,
        inputs,
        input_dimension_count=input_dimension_count,
        indices_dimension_count=indices_dimension_count,
    )


def one_hot(indices: Expression, values: Expression, output_length: int, axis: int) -> Expression:
    """``dml::OneHot``: DML_OPERATOR_ONE_HOT, along ``axis`` a sequence of ``output_length`` (the depth, the
    caller's) elements, ``values``' second element (OnValue) where ``indices`` points and its first (OffValue)
    elsewhere; the output of indices' Sizes with Sizes[axis] = output_length, of values' DataType.

    ``indices``: its size along ``axis`` 1; ``values``: {1, .., 1, 2}, {OffValue, OnValue}"""
    where = "dml.graph.one_hot"
    if isinstance(output_length, bool) or not isinstance(output_length, int) or output_length < 1:
        raise argument_error(where, "output_length", output_length, "a whole number above 0 (the one-hot depth)")
    inputs: dict[str, Expression | None] = {
        "indices_tensor": operand(indices, where, "indices"),
        "values_tensor": operand(values, where, "values"),
    }
    descs = {name: value.desc for name, value in inputs.items() if value is not None}
    (shape,) = OneHotOperatorDesc.output_shapes(dict(descs), {"axis": axis})
    assert shape.sizes is not None and isinstance(shape.data_type, TensorDataType)
    sizes = tuple(output_length if dim in shape.chosen else size for dim, size in enumerate(shape.sizes))
    output = BufferTensorDesc(data_type=shape.data_type, sizes=sizes)
    return add_node(OneHotOperatorDesc, inputs, {"output_tensor": output}, {"axis": axis})[0]


def reverse_subsequences(x: Expression, sequence_lengths: Expression, axis: int) -> Expression:
    """``dml::ReverseSubsequences``: DML_OPERATOR_REVERSE_SUBSEQUENCES, along ``axis`` the first
    ``sequence_lengths`` elements of each sequence reversed, the rest kept (ONNX's ReverseSequence).

    ``sequence_lengths``: x's Sizes with Sizes[axis] = 1, an integer type of the support table"""
    where = "dml.graph.reverse_subsequences"
    inputs: dict[str, Expression | None] = {
        "input_tensor": operand(x, where, "x"),
        "sequence_lengths_tensor": operand(sequence_lengths, where, "sequence_lengths"),
    }
    return operator_node(ReverseSubsequencesOperatorDesc, inputs, axis=axis)


def nonzero_coordinates(x: Expression, coordinate_length: int | None = None) -> list[Expression]:
    """DML_OPERATOR_NONZERO_COORDINATES: ``[count, coordinates]``, the number of x's non-zero elements (one UINT32,
    of x's DimensionCount) and their coordinates, one row per element in row-major order (UINT32 {1, .., 1, M, N},
    M x's element count, rows past the count undefined; at least 2 dimensions).

    ``coordinate_length``: N, how many of each element's last coordinates a row holds: from x's effective rank (its
    DimensionCount less leading 1s) to its DimensionCount, which None (the default) takes"""
    where = "dml.graph.nonzero_coordinates"
    x = operand(x, where, "x")
    rank = len(x.sizes)
    length = rank if coordinate_length is None else coordinate_length
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise argument_error(where, "coordinate_length", coordinate_length, f"a whole number from 1 to {rank}, or None")
    count_shape, coordinates_shape = NonzeroCoordinatesOperatorDesc.output_shapes({"input_tensor": x.desc}, {})
    assert count_shape.data_type is not None and coordinates_shape.data_type is not None
    rows = (*(1,) * (max(rank, 2) - 2), math.prod(x.sizes), length)
    outputs = {
        "output_count_tensor": BufferTensorDesc(data_type=count_shape.data_type, sizes=(1,) * rank),
        "output_coordinates_tensor": BufferTensorDesc(data_type=coordinates_shape.data_type, sizes=rows),
    }
    return add_node(NonzeroCoordinatesOperatorDesc, {"input_tensor": x}, outputs, {})
