"""The builder functions of the movement operators, DirectMLX's ``dml::Slice``, ``Join``, ``Split``, ``Padding``,
``Tile``, ``SpaceToDepth`` and ``DepthToSpace``: the arguments as DirectMLX takes them, the output tensors packed
(``packed_output``) with the Sizes their operator's rule gives, so no function here says what an operator makes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dmlpy.enums import DepthSpaceOrder, PaddingMode, TensorDataType
from dmlpy.errors import argument_error
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import operator_node
from dmlpy.graph.outputs import packed_output
from dmlpy.graph.values import scalar_argument
from dmlpy.ops import (
    DepthToSpace1OperatorDesc,
    JoinOperatorDesc,
    Padding1OperatorDesc,
    Slice1OperatorDesc,
    SpaceToDepth1OperatorDesc,
    SplitOperatorDesc,
    TileOperatorDesc,
)
from dmlpy.tensor import BufferTensorDesc, TensorDesc


def _tensor(desc: Any) -> TensorDesc:
    return TensorDesc(desc=desc)


def slice(  # DirectMLX's name
    x: Expression, offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int]
) -> Expression:
    """``dml::Slice``: DML_OPERATOR_SLICE1 on ``x``, the window ``offsets``, ``sizes`` and ``strides`` per dimension
    (a negative stride reads the window from its end); the output holds every element the window reaches."""
    x = operand(x, "dml.graph.slice", "x")
    return operator_node(
        Slice1OperatorDesc,
        {"input_tensor": x},
        input_window_offsets=tuple(offsets),
        input_window_sizes=tuple(sizes),
        input_window_strides=tuple(strides),
    )


def join(inputs: Sequence[Expression], axis: int) -> Expression:
    """``dml::Join``: DML_OPERATOR_JOIN of ``inputs`` along ``axis``."""
    where = "dml.graph.join"
    if isinstance(inputs, Expression) or not isinstance(inputs, Sequence) or not inputs:
        raise argument_error(where, "inputs", inputs, "a non-empty list of expressions")
    parts = [operand(value, where, f"inputs[{k}]") for k, value in enumerate(inputs)]
    slots = {f"inputs[{k}]": part.desc for k, part in enumerate(parts)}
    output = packed_output(JoinOperatorDesc, slots, fields={"axis": axis})
    op = JoinOperatorDesc(inputs=[_tensor(p.desc) for p in parts], output_tensor=_tensor(output), axis=axis)
    return parts[0].graph.add_operator(op, parts)


def split(x: Expression, axis: int, output_axis_sizes: Sequence[int]) -> list[Expression]:
    """``dml::Split``: DML_OPERATOR_SPLIT of ``x`` along ``axis`` into parts of ``output_axis_sizes`` elements
    there (they sum to x's size along the axis); the parts as expressions, in order."""
    x = operand(x, "dml.graph.split", "x")
    fields = {"axis": axis, "output_count": len(output_axis_sizes), "output_axis_sizes": tuple(output_axis_sizes)}
    shapes = SplitOperatorDesc.output_shapes({"input_tensor": x.desc}, fields)
    outputs = [_tensor(BufferTensorDesc(data_type=x.data_type, sizes=shape.sizes)) for shape in shapes]
    op = SplitOperatorDesc(input_tensor=_tensor(x.desc), outputs=outputs, axis=axis)
    return x.graph.add_operator_outputs(op, [x])


def padding(
    x: Expression,
    padding_mode: PaddingMode | str | int,
    padding_value: Any,
    start_padding: Sequence[int],
    end_padding: Sequence[int],
) -> Expression:
    """``dml::Padding``: DML_OPERATOR_PADDING1 on ``x``: ``start_padding`` and ``end_padding`` elements before and
    after each dimension, holding what ``padding_mode`` says (CONSTANT: ``padding_value``, a number x's type holds)."""
    where = "dml.graph.padding"
    x = operand(x, where, "x")
    data_type = TensorDataType(x.data_type)
    return operator_node(
        Padding1OperatorDesc,
        {"input_tensor": x},
        padding_mode=padding_mode,
        padding_value_data_type=data_type,
        padding_value=scalar_argument(padding_value, data_type, where, "padding_value", "x is"),
        start_padding=tuple(start_padding),
        end_padding=tuple(end_padding),
    )


def tile(x: Expression, repeats: Sequence[int]) -> Expression:
    """``dml::Tile``: DML_OPERATOR_TILE, ``x`` repeated ``repeats[i]`` times along each dimension."""
    return operator_node(TileOperatorDesc, {"input_tensor": operand(x, "dml.graph.tile", "x")}, repeats=tuple(repeats))


def space_to_depth(
    x: Expression, block_size: int, order: DepthSpaceOrder | str | int = DepthSpaceOrder.DEPTH_COLUMN_ROW
) -> Expression:
    """``dml::SpaceToDepth``: DML_OPERATOR_SPACE_TO_DEPTH1, each ``block_size`` square of x's {N, C, H, W} into
    channels in ``order``."""
    x = operand(x, "dml.graph.space_to_depth", "x")
    return operator_node(SpaceToDepth1OperatorDesc, {"input_tensor": x}, block_size=block_size, order=order)


def depth_to_space(
    x: Expression, block_size: int, order: DepthSpaceOrder | str | int = DepthSpaceOrder.DEPTH_COLUMN_ROW
) -> Expression:
    """``dml::DepthToSpace``: DML_OPERATOR_DEPTH_TO_SPACE1, x's channels into ``block_size`` squares in ``order``."""
    x = operand(x, "dml.graph.depth_to_space", "x")
    return operator_node(DepthToSpace1OperatorDesc, {"input_tensor": x}, block_size=block_size, order=order)
