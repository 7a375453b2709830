"""The builder functions of the reductions over axes: DirectMLX's ``dml::Reduce`` (DML_OPERATOR_REDUCE, any of its
twelve functions), ``arg_min`` and ``arg_max`` (DML_OPERATOR_ARGMIN and ARGMAX, which DirectMLX lists as TODOs:
their arguments follow ``dml::Reduce``'s and DML_ARGMIN_OPERATOR_DESC's fields) and ``top_k`` (DML_OPERATOR_TOP_K1,
a TODO too: its arguments follow the descriptor's fields, its two outputs returned as ``dml::MaxPooling`` returns
values and indices). The outputs are packed (``packed_output``) with the Sizes the operator's rule gives; an index
output is of the caller's type, UINT32 by default, the type ``dml::Reduce`` gives ARGMIN and ARGMAX.
CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT, one input and one output, get their functions from the operator
table (``dmlpy.graph.operators``), DirectMLX's arguments in its order."""

from __future__ import annotations

from collections.abc import Sequence

from dmlpy.enums import AxisDirection, ReduceFunction, TensorDataType
from dmlpy.errors import argument_error
from dmlpy.graph.arguments import enum_argument
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import add_node, operator_node
from dmlpy.graph.values import data_type_argument
from dmlpy.ops import ArgMaxOperatorDesc, ArgMinOperatorDesc, ReduceOperatorDesc, TopK1OperatorDesc
from dmlpy.ops._base import OperatorDescBase
from dmlpy.tensor import BufferTensorDesc

INDEX_TYPE = TensorDataType.UINT32
"""The index type ``dml::Reduce`` gives ARGMIN and ARGMAX, and these functions' default ``dtype``."""


def _axes(x: Expression, axes: Sequence[int] | None, where: str) -> tuple[int, ...]:
    """``axes`` as a tuple; None or empty: every dimension of ``x`` (``dml::Reduce``'s default: the whole tensor
    reduced to one element). Each axis is checked by the operator's rule when the node is added."""
    if axes is None:
        return tuple(range(len(x.sizes)))
    if isinstance(axes, str) or not isinstance(axes, Sequence):
        raise argument_error(where, "axes", axes, "a list of dimensions, counted from 0 (the outermost), or None")
    return tuple(axes) or tuple(range(len(x.sizes)))


def reduce(x: Expression, function: ReduceFunction | str | int, axes: Sequence[int] | None = None) -> Expression:
    """``dml::Reduce``: DML_OPERATOR_REDUCE, ``function`` (SUM, AVERAGE, MAX, ARGMIN, ...) of the elements of ``x``
    that share their coordinates outside ``axes`` (None or empty: every dimension, one element in all); the rank
    is kept, each reduced dimension 1. The output has x's DataType, or UINT32 under ARGMIN and ARGMAX, as
    ``dml::Reduce`` gives them (``arg_min`` and ``arg_max`` take another index type)."""
    where = "dml.graph.reduce"
    x = operand(x, where, "x")
    chosen = enum_argument(ReduceFunction, function, where, "function")
    index_type = INDEX_TYPE if chosen in (ReduceFunction.ARGMIN, ReduceFunction.ARGMAX) else None
    return operator_node(
        ReduceOperatorDesc, {"input_tensor": x}, index_type, function=chosen, axes=_axes(x, axes, where)
    )


def _arg(
    desc_class: type[OperatorDescBase],
    where: str,
    x: Expression,
    axes: Sequence[int] | None,
    axis_direction: AxisDirection | str | int,
    dtype: TensorDataType | str | int,
) -> Expression:
    x = operand(x, where, "x")
    fields = {
        "axes": _axes(x, axes, where),
        "axis_direction": enum_argument(AxisDirection, axis_direction, where, "axis_direction"),
    }
    return operator_node(desc_class, {"input_tensor": x}, data_type_argument(dtype, where), **fields)


def arg_min(
    x: Expression,
    axes: Sequence[int] | None = None,
    axis_direction: AxisDirection | str | int = AxisDirection.INCREASING,
    dtype: TensorDataType | str | int = INDEX_TYPE,
) -> Expression:
    """DML_OPERATOR_ARGMIN: the index of the minimum among the elements of ``x`` that share their coordinates
    outside ``axes`` (None or empty: every dimension), counted in row-major order of the reduced dimensions; the
    first of equal ones (``axis_direction`` INCREASING) or the last (DECREASING). ``dtype``: the index type
    (INT32, UINT32, INT64, UINT64), UINT32 by default."""
    return _arg(ArgMinOperatorDesc, "dml.graph.arg_min", x, axes, axis_direction, dtype)


def arg_max(
    x: Expression,
    axes: Sequence[int] | None = None,
    axis_direction: AxisDirection | str | int = AxisDirection.INCREASING,
    dtype: TensorDataType | str | int = INDEX_TYPE,
) -> Expression:
    """DML_OPERATOR_ARGMAX: as ``arg_min``, the index of the maximum."""
    return _arg(ArgMaxOperatorDesc, "dml.graph.arg_max", x, axes, axis_direction, dtype)


def top_k(
    x: Expression,
    axis: int,
    k: int,
    axis_direction: AxisDirection | str | int = AxisDirection.DECREASING,
    dtype: TensorDataType | str | int = INDEX_TYPE,
) -> list[Expression]:
    """DML_OPERATOR_TOP_K1: ``[values, indices]``, the ``k`` largest elements of each sequence of ``x`` along
    ``axis``, descending (``axis_direction`` DECREASING, the default: ONNX TopK's largest), or the ``k`` smallest,
    ascending (INCREASING); equal values by ascending index. Both outputs have x's Sizes with Sizes[axis] = k;
    ``dtype``: the index type (UINT32, the default, or UINT64)."""
    where = "dml.graph.top_k"
    x = operand(x, where, "x")
    fields = {
        "axis": axis,
        "k": k,
        "axis_direction": enum_argument(AxisDirection, axis_direction, where, "axis_direction"),
    }
    values, indices = TopK1OperatorDesc.output_shapes({"input_tensor": x.desc}, fields)
    assert values.sizes is not None and values.data_type is not None and indices.sizes is not None
    outputs = {
        "output_value_tensor": BufferTensorDesc(data_type=values.data_type, sizes=values.sizes),
        "output_index_tensor": BufferTensorDesc(data_type=data_type_argument(dtype, where), sizes=indices.sizes),
    }
    return add_node(TopK1OperatorDesc, {"input_tensor": x}, outputs, fields)
