"""The builder functions of the generators: DirectMLX's ``dml::FillValueConstant`` and ``FillValueSequence``
(a graph, the output's Sizes and DataType, the values: no input), and ``diagonal_matrix``
(DML_OPERATOR_DIAGONAL_MATRIX1, a TODO in DirectMLX: its arguments follow the descriptor's fields, over an
expression, or, without one, over a graph and the output's Sizes and DataType as the fills take them). Every value
is a number the output's DataType holds exactly (``dmlpy.graph.values.held``), stored in the DML_SCALAR_UNION
member of that type. A node without inputs joins the graph it is given, which compiles it as any other."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError, argument_error
from dmlpy.graph.builder import Expression, Graph, operand
from dmlpy.graph.operator_node import add_node, operator_node
from dmlpy.graph.values import data_type_argument, scalar_argument
from dmlpy.ops import (
    DiagonalMatrix1OperatorDesc,
    FillValueConstantOperatorDesc,
    FillValueSequenceOperatorDesc,
)
from dmlpy.tensor import BufferTensorDesc


def _output(where: str, graph: Any, sizes: Any, dtype: Any) -> tuple[Graph, BufferTensorDesc]:
    """The graph a generator without inputs joins and its packed output of ``sizes`` and ``dtype``."""
    if not isinstance(graph, Graph):
        raise argument_error(where, "graph", graph, "a dml.Graph (the node has no input to take one from)")
    data_type = data_type_argument(dtype, where)
    if isinstance(sizes, str) or not isinstance(sizes, Sequence):
        raise argument_error(where, "sizes", sizes, "the output's Sizes, a list of whole numbers above 0")
    try:
        return graph, BufferTensorDesc(data_type=data_type, sizes=tuple(sizes))
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"{where}: sizes: {error}") from None


def fill_value_constant(
    graph: Graph, sizes: Sequence[int], dtype: TensorDataType | str | int, value: Any
) -> Expression:
    """``dml::FillValueConstant``: DML_OPERATOR_FILL_VALUE_CONSTANT, a tensor of ``sizes`` and ``dtype`` (its
    ValueDataType) whose every element is ``value``, a number ``dtype`` holds."""
    where = "dml.graph.fill_value_constant"
    owner, output = _output(where, graph, sizes, dtype)
    data_type = TensorDataType(output.data_type)
    fields = {"value_data_type": data_type, "value": scalar_argument(value, data_type, where, "value", "the output is")}
    return add_node(FillValueConstantOperatorDesc, {}, {"output_tensor": output}, fields, owner)[0]


def fill_value_sequence(
    graph: Graph, sizes: Sequence[int], dtype: TensorDataType | str | int, value_start: Any, value_delta: Any
) -> Expression:
    """``dml::FillValueSequence``: DML_OPERATOR_FILL_VALUE_SEQUENCE, a tensor of ``sizes`` and ``dtype`` whose
    elements, in row-major order, are ``value_start``, ``value_start + value_delta``, ... (numbers ``dtype``
    holds)."""
    where = "dml.graph.fill_value_sequence"
    owner, output = _output(where, graph, sizes, dtype)
    data_type = TensorDataType(output.data_type)
    fields = {
        "value_data_type": data_type,
        "value_start": scalar_argument(value_start, data_type, where, "value_start", "the output is"),
        "value_delta": scalar_argument(value_delta, data_type, where, "value_delta", "the output is"),
    }
    return add_node(FillValueSequenceOperatorDesc, {}, {"output_tensor": output}, fields, owner)[0]


def diagonal_matrix(
    x: Expression | Graph,
    value: Any,
    diagonal_fill_begin: int,
    diagonal_fill_end: int,
    sizes: Sequence[int] | None = None,
    dtype: TensorDataType | str | int | None = None,
) -> Expression:
    """DML_OPERATOR_DIAGONAL_MATRIX1: over each matrix (the last two dimensions), ``value`` on the diagonals x - y
    in [``diagonal_fill_begin``, ``diagonal_fill_end``) (the page's rule: with begin above end, outside [end,
    begin)), ``x``'s element elsewhere.

    ``x``: an expression (2 to 4 dimensions; the output has its Sizes and DataType), or a dml.Graph for a node
    without input, 0 off the diagonals, whose output's ``sizes`` and ``dtype`` are then given (as
    ``fill_value_constant`` takes them; with an expression, both None); ``value``: a number the output's type
    holds"""
    where = "dml.graph.diagonal_matrix"
    band = {"diagonal_fill_begin": diagonal_fill_begin, "diagonal_fill_end": diagonal_fill_end}
    if isinstance(x, Graph):
        owner, output = _output(where, x, sizes, dtype)
        data_type = TensorDataType(output.data_type)
        fields = {
            "value_data_type": data_type,
            "value": scalar_argument(value, data_type, where, "value", "the output is"),
            **band,
        }
        return add_node(DiagonalMatrix1OperatorDesc, {}, {"output_tensor": output}, fields, owner)[0]
    source = operand(x, where, "x")
    for name, given in (("sizes", sizes), ("dtype", dtype)):
        if given is not None:
            raise argument_error(where, name, given, "None beside an expression x, whose Sizes and DataType it takes")
    data_type = source.data_type
    value_union = scalar_argument(value, data_type, where, "value", "the output is")
    return operator_node(
        DiagonalMatrix1OperatorDesc,
        {"input_tensor": source},
        value_data_type=data_type,
        value=value_union,
        diagonal_fill_begin=diagonal_fill_begin,
        diagonal_fill_end=diagonal_fill_end,
    )
