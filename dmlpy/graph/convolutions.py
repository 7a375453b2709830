"""The builder functions of the convolutions: DirectMLX's ``dml::Convolution`` (DML_OPERATOR_CONVOLUTION, its
arguments in its order and with its defaults: no bias, CROSS_CORRELATION, FORWARD, strides and dilations 1,
paddings 0, one group, no fused activation), and ``convolution_integer`` and ``quantized_linear_convolution``,
which DirectMLX does not offer: their arguments are the descriptors' input fields in C order (the optional zero
points and bias None by default), then the window's fields as ``dml::Convolution`` names them. The output is packed
with the Sizes and DataType the operator's window rule gives (``operator_node``); ``dml::Convolution``'s
``output_sizes``, where given, are the output's Sizes instead, and the node is refused where they are not the
rule's.

The module is ``convolutions``: a submodule named ``convolution`` would be the package's attribute
``dml.graph.convolution`` once imported, hiding the builder function of that name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dmlpy.enums import ConvolutionDirection, ConvolutionMode, TensorDataType
from dmlpy.errors import argument_error
from dmlpy.graph.arguments import activation_argument, enum_argument, optional_operand, spatial_argument
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import add_node, operator_node
from dmlpy.graph.values import data_type_argument
from dmlpy.ops import ConvolutionIntegerOperatorDesc, ConvolutionOperatorDesc, QuantizedLinearConvolutionOperatorDesc
from dmlpy.tensor import BufferTensorDesc


def _window(
    x: Expression,
    where: str,
    strides: Sequence[int] | None,
    dilations: Sequence[int] | None,
    start_padding: Sequence[int] | None,
    end_padding: Sequence[int] | None,
    group_count: int,
) -> dict[str, Any]:
    """The window's fields, an empty or None array the default for each spatial dimension of ``x``."""
    return {
        "strides": spatial_argument(x, strides, 1, where, "strides"),
        "dilations": spatial_argument(x, dilations, 1, where, "dilations"),
        "start_padding": spatial_argument(x, start_padding, 0, where, "start_padding"),
        "end_padding": spatial_argument(x, end_padding, 0, where, "end_padding"),
        "group_count": group_count,
    }


def convolution(
    x: Expression,
    filter: Expression,  # dml::Convolution's name for it
    bias: Expression | None = None,
    mode: ConvolutionMode | str | int = ConvolutionMode.CROSS_CORRELATION,
    direction: ConvolutionDirection | str | int = ConvolutionDirection.FORWARD,
    strides: Sequence[int] | None = None,
    dilations: Sequence[int] | None = None,
    start_padding: Sequence[int] | None = None,
    end_padding: Sequence[int] | None = None,
    output_padding: Sequence[int] | None = None,
    group_count: int = 1,
    fused_activation: Any = None,
    output_sizes: Sequence[int] | None = None,
) -> Expression:
    """``dml::Convolution``: DML_OPERATOR_CONVOLUTION, ``fused_activation(x convolved with filter + bias)``. ``x`` is
    {N, C, [D], [H], W}; ``filter`` {OutputChannelCount, C / group_count, ...} under FORWARD, {C,
    OutputChannelCount / group_count, ...} under BACKWARD (the transposed convolution); ``bias`` (None: nothing
    added) {1, OutputChannelCount, 1, ..}. None or empty for strides, dilations or paddings: 1, 1 and 0 along each
    spatial dimension; ``output_sizes`` None: the window rule's Sizes."""
    where = "dml.graph.convolution"
    x = operand(x, where, "x")
    inputs = {
        "input_tensor": x,
        "filter_tensor": operand(filter, where, "filter"),
        "bias_tensor": optional_operand(bias, where, "bias"),
    }
    fields = {
        "mode": enum_argument(ConvolutionMode, mode, where, "mode"),
        "direction": enum_argument(ConvolutionDirection, direction, where, "direction"),
        **_window(x, where, strides, dilations, start_padding, end_padding, group_count),
        "output_padding": spatial_argument(x, output_padding, 0, where, "output_padding"),
        "fused_activation": activation_argument(fused_activation, where),
    }
    if output_sizes is None:
        return operator_node(ConvolutionOperatorDesc, inputs, **fields)
    if isinstance(output_sizes, str) or not isinstance(output_sizes, Sequence):
        raise argument_error(
            where, "output_sizes", output_sizes, "the output's Sizes (a list of whole numbers), or None"
        )
    output = BufferTensorDesc(data_type=x.desc.data_type, sizes=tuple(output_sizes))
    return add_node(ConvolutionOperatorDesc, inputs, {"output_tensor": output}, fields)[0]


def convolution_integer(
    x: Expression,
    x_zero_point: Expression | None,
    filter: Expression,  # dml::Convolution's name for it
    filter_zero_point: Expression | None = None,
    strides: Sequence[int] | None = None,
    dilations: Sequence[int] | None = None,
    start_padding: Sequence[int] | None = None,
    end_padding: Sequence[int] | None = None,
    group_count: int = 1,
) -> Expression:
    """DML_OPERATOR_CONVOLUTION_INTEGER (ONNX's ConvInteger): INT32 ``(x - x_zero_point)`` cross-correlated with
    ``(filter - filter_zero_point)``, the padding holding x's zero point; a zero point None is 0, x's one value,
    the filter's one value or one per output channel. Window defaults as ``convolution``'s."""
    where = "dml.graph.convolution_integer"
    x = operand(x, where, "x")
    inputs = {
        "input_tensor": x,
        "input_zero_point_tensor": optional_operand(x_zero_point, where, "x_zero_point"),
        "filter_tensor": operand(filter, where, "filter"),
        "filter_zero_point_tensor": optional_operand(filter_zero_point, where, "filter_zero_point"),
    }
    fields = _window(x, where, strides, dilations, start_padding, end_padding, group_count)
    return operator_node(ConvolutionIntegerOperatorDesc, inputs, **fields)


def quantized_linear_convolution(
    x: Expression,
    x_scale: Expression,
    x_zero_point: Expression | None,
    filter: Expression,  # dml::Convolution's name for it
    filter_scale: Expression,
    filter_zero_point: Expression | None,
    bias: Expression | None,
    output_scale: Expression,
    output_zero_point: Expression | None,
    strides: Sequence[int] | None = None,
    dilations: Sequence[int] | None = None,
    start_padding: Sequence[int] | None = None,
    end_padding: Sequence[int] | None = None,
    group_count: int = 1,
    dtype: TensorDataType | str | int = TensorDataType.UINT8,
) -> Expression:
    """DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION (ONNX's QLinearConv): x and filter dequantized, cross-correlated,
    the INT32 ``bias`` added (None: nothing), and the result quantized by ``output_scale`` and
    ``output_zero_point``, of the output zero point's type; a zero point None is 0, and without
    ``output_zero_point`` the output is of type ``dtype`` (INT8 or UINT8; UINT8, ONNX's default). The filter's scale
    and zero point hold one value or one per output channel. Window defaults as ``convolution``'s."""
    where = "dml.graph.quantized_linear_convolution"
    x = operand(x, where, "x")
    inputs = {
        "input_tensor": x,
        "input_scale_tensor": operand(x_scale, where, "x_scale"),
        "input_zero_point_tensor": optional_operand(x_zero_point, where, "x_zero_point"),
        "filter_tensor": operand(filter, where, "filter"),
        "filter_scale_tensor": operand(filter_scale, where, "filter_scale"),
        "filter_zero_point_tensor": optional_operand(filter_zero_point, where, "filter_zero_point"),
        "bias_tensor": optional_operand(bias, where, "bias"),
        "output_scale_tensor": operand(output_scale, where, "output_scale"),
        "output_zero_point_tensor": optional_operand(output_zero_point, where, "output_zero_point"),
    }
    chosen = None if output_zero_point is not None else data_type_argument(dtype, where)
    fields = _window(x, where, strides, dilations, start_padding, end_padding, group_count)
    return operator_node(QuantizedLinearConvolutionOperatorDesc, inputs, chosen, **fields)
