"""The builder functions of the poolings: DirectMLX's ``dml::AveragePooling`` (DML_OPERATOR_AVERAGE_POOLING1, as
DirectMLX builds it from DML_TARGET_VERSION 0x6200) and ``dml::MaxPooling`` (DML_OPERATOR_MAX_POOLING2, its values and,
with ``output_indices``, its indices, as ``dml::MaxPooling``'s MaxPoolingOutputs), in snake_case with their arguments in
DirectMLX's order; ``lp_pooling`` (DML_OPERATOR_LP_POOLING1) and ``max_unpooling`` (DML_OPERATOR_MAX_UNPOOLING), which
DirectMLX lists as TODOs: their arguments follow ``dml::AveragePooling``'s and the descriptors' fields;
``quantized_linear_average_pooling`` (DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING, not in DirectMLX) takes
``dml::AveragePooling``'s window after ONNX QLinearAveragePool's scales and zero points. Outputs are packed with the
Sizes the operator's window rule gives (``operator_node``); the indices are UINT32, as ``dml::MaxPooling`` makes them,
unless ``dtype`` says UINT64."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dmlpy.enums import TensorDataType
from dmlpy.errors import argument_error
from dmlpy.graph.arguments import optional_operand, spatial_argument
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import add_node, operator_node
from dmlpy.graph.values import data_type_argument
from dmlpy.ops import (
    AveragePooling1OperatorDesc,
    LpPooling1OperatorDesc,
    MaxPooling2OperatorDesc,
    MaxUnpoolingOperatorDesc,
    QuantizedLinearAveragePoolingOperatorDesc,
)
from dmlpy.tensor import BufferTensorDesc

INDEX_TYPE = TensorDataType.UINT32
"""The index type ``dml::MaxPooling`` gives OutputIndicesTensor, and ``max_pooling``'s default ``dtype``."""


def _window(
    x: Expression,
    where: str,
    strides: Sequence[int] | None,
    window_sizes: Sequence[int],
    start_padding: Sequence[int] | None,
    end_padding: Sequence[int] | None,
    dilations: Sequence[int] | None,
) -> dict[str, Any]:
    return {
        "strides": spatial_argument(x, strides, 1, where, "strides"),
        "window_size": spatial_argument(x, window_sizes, 1, where, "window_sizes"),
        "start_padding": spatial_argument(x, start_padding, 0, where, "start_padding"),
        "end_padding": spatial_argument(x, end_padding, 0, where, "end_padding"),
        "dilations": spatial_argument(x, dilations, 1, where, "dilations"),
    }


def average_pooling(
    x: Expression,
    strides: Sequence[int] | None,
    window_sizes: Sequence[int],
    start_padding: Sequence[int] | None = None,
    end_padding: Sequence[int] | None = None,
    dilations: Sequence[int] | None = None,
    include_padding: bool = False,
) -> Expression:
    """``dml::AveragePooling``: DML_OPERATOR_AVERAGE_POOLING1, each output element the average of its window of
    ``x`` {N, C, [D], H, W}; ``include_padding`` counts the padding's elements (as 0s) in the divisor. None for
    strides, padding or dilations: 1, 0 and 1 along each spatial dimension."""
    where = "dml.graph.average_pooling"
    x = operand(x, where, "x")
    fields = _window(x, where, strides, window_sizes, start_padding, end_padding, dilations)
    return operator_node(AveragePooling1OperatorDesc, {"input_tensor": x}, include_padding=include_padding, **fields)


def quantized_linear_average_pooling(
    x: Expression,
    x_scale: Expression,
    x_zero_point: Expression | None,
    output_scale: Expression,
    output_zero_point: Expression | None,
    strides: Sequence[int] | None,
    window_sizes: Sequence[int],
    start_padding: Sequence[int] | None = None,
    end_padding: Sequence[int] | None = None,
    dilations: Sequence[int] | None = None,
    include_padding: bool = False,
    dtype: TensorDataType | str | int = TensorDataType.UINT8,
) -> Expression:
    """DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING (ONNX's QLinearAveragePool): INT8 or UINT8 ``x`` dequantized,
    averaged as ``average_pooling`` averages, and quantized by ``output_scale`` and ``output_zero_point``, of the
    output zero point's type; a zero point None is 0, and without ``output_zero_point`` the output is of type
    ``dtype`` (INT8 or UINT8). Scales and zero points hold one value or one per channel."""
    where = "dml.graph.quantized_linear_average_pooling"
    x = operand(x, where, "x")
    inputs = {
        "input_tensor": x,
        "input_scale_tensor": operand(x_scale, where, "x_scale"),
        "input_zero_point_tensor": optional_operand(x_zero_point, where, "x_zero_point"),
        "output_scale_tensor": operand(output_scale, where, "output_scale"),
        "output_zero_point_tensor": optional_operand(output_zero_point, where, "output_zero_point"),
    }
    chosen = None if output_zero_point is not None else data_type_argument(dtype, where)
    fields = _window(x, where, strides, window_sizes, start_padding, end_padding, dilations)
    return operator_node(
        QuantizedLinearAveragePoolingOperatorDesc, inputs, chosen, include_padding=include_padding, **fields
    )


def lp_pooling(
    x: Expression,
    strides: Sequence[int] | None,
    window_sizes: Sequence[int],
    start_padding: Sequence[int] | None = None,
    end_padding: Sequence[int] | None = None,
    dilations: Sequence[int] | None = None,
    p: int = 2,
) -> Expression:
    """DML_OPERATOR_LP_POOLING1: each output element (sum |x|^p)^(1/p) over its window (``p`` at least 1; 2, the
    default, the L2 norm); the other arguments as ``average_pooling``'s."""
    where = "dml.graph.lp_pooling"
    x = operand(x, where, "x")
    fields = _window(x, where, strides, window_sizes, start_padding, end_padding, dilations)
    return operator_node(LpPooling1OperatorDesc, {"input_tensor": x}, p=p, **fields)


def max_pooling(
    x: Expression,
    window_size: Sequence[int],
    strides: Sequence[int] | None = None,
    start_padding: Sequence[int] | None = None,
    end_padding: Sequence[int] | None = None,
    dilations: Sequence[int] | None = None,
    output_indices: bool = False,
    dtype: TensorDataType | str | int = INDEX_TYPE,
) -> list[Expression]:
    """``dml::MaxPooling``: DML_OPERATOR_MAX_POOLING2, ``[values]``, or with ``output_indices`` ``[values,
    indices]``: each output element the largest of its window, and its index into ``x`` read as a packed row-major
    array (of ``dtype``: UINT32, the default, or UINT64)."""
    where = "dml.graph.max_pooling"
    x = operand(x, where, "x")
    fields = _window(x, where, strides, window_size, start_padding, end_padding, dilations)
    values, indices = MaxPooling2OperatorDesc.output_shapes({"input_tensor": x.desc}, fields)
    assert values.sizes is not None and values.data_type is not None and indices.sizes is not None
    outputs = {"output_tensor": BufferTensorDesc(data_type=values.data_type, sizes=values.sizes)}
    if output_indices:
        index_type = data_type_argument(dtype, where)
        outputs["output_indices_tensor"] = BufferTensorDesc(data_type=index_type, sizes=indices.sizes)
    return add_node(MaxPooling2OperatorDesc, {"input_tensor": x}, outputs, fields)


def max_unpooling(x: Expression, indices: Expression, output_sizes: Sequence[int]) -> Expression:
    """DML_OPERATOR_MAX_UNPOOLING: an output of ``output_sizes`` (x's type) filled with 0, each element of ``x``
    written at its index in ``indices`` (the output read as a packed row-major array: ``max_pooling``'s indices)."""
    where = "dml.graph.max_unpooling"
    x, indices = operand(x, where, "x"), operand(indices, where, "indices")
    if isinstance(output_sizes, str) or not isinstance(output_sizes, Sequence):
        raise argument_error(where, "output_sizes", output_sizes, "a list of the output's Sizes, one per dimension")
    output = BufferTensorDesc(data_type=x.desc.data_type, sizes=tuple(output_sizes))
    inputs = {"input_tensor": x, "indices_tensor": indices}
    return add_node(MaxUnpoolingOperatorDesc, inputs, {"output_tensor": output}, {})[0]
