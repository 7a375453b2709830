"""ONNX's convolutions as DirectML's: Conv as CONVOLUTION (CROSS_CORRELATION, FORWARD), ConvTranspose as CONVOLUTION
(CROSS_CORRELATION, BACKWARD: W as stored, output_padding as OutputPadding), ConvInteger as CONVOLUTION_INTEGER and
QLinearConv as QUANTIZED_LINEAR_CONVOLUTION, each a node of ``dmlpy.graph.operator_node`` (as onnxruntime's DirectML
provider maps them).

pads [begins..., ends...] become StartPadding and EndPadding, group GroupCount; auto_pad is resolved for the input's
shape: SAME_UPPER and SAME_LOWER (out = ceil(in / stride), the padding split with the odd one at the end or the
start), VALID (none). ConvTranspose's output_shape (and auto_pad SAME_*, whose output_shape is in * stride) becomes
padding by ONNX's formula, total = stride (in - 1) + output_padding + extent - out, split as the spec says (SAME_UPPER:
the odd one at the end; otherwise at the start); an output larger than the transposed convolution reaches takes the
extra as OutputPadding (bias only, as ONNX computes it), and one that would need negative start padding is refused.

B ((M,)) is read as {1, M, 1, ...}, every scale and zero point as one value {1, 1, 1, 1} or one per output channel
{1, M, 1, 1}, through views (``Reads.strided``): nothing is copied. DirectML's integer convolutions take 1-D and 2-D
windows: a 1-D one reads its (N, C, W) tensors as (N, C, 1, W) (the output's ONNX shape drops the 1); a 3-D one is
refused."""

from __future__ import annotations

import math
from collections.abc import Sequence

import onnx

from dmlpy.enums import ConvolutionDirection, ConvolutionMode
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.graph.operator_node import operator_node
from dmlpy.onnx.attributes import ints_attribute, string_attribute
from dmlpy.onnx.elements import NodeRefused, expressed
from dmlpy.onnx.reads import Outputs, Reads
from dmlpy.ops.convolution import ConvolutionOperatorDesc
from dmlpy.ops.convolution_integer import ConvolutionIntegerOperatorDesc, QuantizedLinearConvolutionOperatorDesc

CONVOLUTION_OPS = ("Conv", "ConvTranspose", "ConvInteger", "QLinearConv")
_SPATIAL_FROM = 2
"""ONNX's convolution tensors are (N, C, D1, ...): the spatial dimensions from 2."""
_MOST_SPATIAL = 3
"""CONVOLUTION's tensors have 3 to 5 dimensions: 1 to 3 spatial ones."""
_INTEGER_DIMENSIONS = 4
"""The integer convolutions run 2-D windows (4-D tensors): a 1-D one is read with a spatial dimension of 1 inserted."""
_X_AND_W = {"Conv": (0, 1), "ConvTranspose": (0, 1), "ConvInteger": (0, 1), "QLinearConv": (0, 3)}
"""Each op type's input indices of X and W."""


def convolution_outputs(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    """The node for its inputs' shapes; at prepare (every value one element) a 1 x 1 convolution of one element
    checks the types DirectML takes and the attributes that do not depend on the shapes."""
    x_name, w_name = (node.input[index] for index in _X_AND_W[node.op_type])
    x_shape = (1, 1, 1, 1) if prepare else reads.known(x_name, where)[0]
    w_shape = (1, 1, 1, 1) if prepare else reads.known(w_name, where)[0]
    auto_pad = _auto_pad(node, opset, where)
    rank = len(x_shape) - _SPATIAL_FROM
    integer = node.op_type in ("ConvInteger", "QLinearConv")
    most = _INTEGER_DIMENSIONS - _SPATIAL_FROM if integer else _MOST_SPATIAL
    if not 1 <= rank <= most or len(w_shape) != len(x_shape):
        if integer and len(w_shape) == len(x_shape) and rank > most:
            raise NodeRefused(
                f"{where}: X has shape {list(x_shape)}; DirectML's {_LOWERED_TO[node.op_type]} takes 1-D and 2-D "
                "windows (3-D or 4-D tensors): a 3-D convolution has no integer DirectML form"
            )
        raise InvalidArgumentError(
            f"{where}: X has shape {list(x_shape)}, W {list(w_shape)}; {node.op_type} takes X (N, C, D1, ...) and W "
            f"of as many dimensions, with 1 to {most} spatial dimensions"
        )
    group = 1 if prepare else attributes.get("group", 1)  # at prepare: one channel, one group
    if prepare:
        ones, zeros = (1,) * rank, (0,) * rank
        window = _Window(ones, ones, zeros, zeros, zeros)
    else:
        window = _window(node, auto_pad, x_shape, w_shape, where)
    inserted = _INTEGER_DIMENSIONS - len(x_shape) if integer else 0
    sizes = (_widened(x_shape, inserted), _widened(w_shape, inserted))
    x, w = (reads.shaped(name, shape, where) for name, shape in zip((x_name, w_name), sizes, strict=True))
    channels = w_shape[1] * group if node.op_type == "ConvTranspose" else w_shape[0]
    dims = len(sizes[0])
    fields = window.fields(inserted, not integer) | {"group_count": group}
    if node.op_type in ("Conv", "ConvTranspose"):
        backward = node.op_type == "ConvTranspose"
        bias = _input(node, 2)
        result = expressed(
            where,
            operator_node,
            ConvolutionOperatorDesc,
            {
                "input_tensor": x,
                "filter_tensor": w,
                "bias_tensor": None if bias is None else _per_channel(reads, bias, dims, channels, where, "B"),
            },
            mode=ConvolutionMode.CROSS_CORRELATION,
            direction=ConvolutionDirection.BACKWARD if backward else ConvolutionDirection.FORWARD,
            **fields,
        )
    elif node.op_type == "ConvInteger":
        x_zero, w_zero = _input(node, 2), _input(node, 3)
        inputs = {
            "input_tensor": x,
            "input_zero_point_tensor": _one_value(reads, x_zero, dims, where, "x_zero_point"),
            "filter_tensor": w,
            "filter_zero_point_tensor": _per_channel(reads, w_zero, dims, channels, where, "w_zero_point"),
        }
        result = expressed(where, operator_node, ConvolutionIntegerOperatorDesc, inputs, **fields)
    else:
        result = expressed(
            where,
            operator_node,
            QuantizedLinearConvolutionOperatorDesc,
            _qlinear_inputs(node, reads, x, w, dims, channels, where),
            **fields,
        )
    sizes_out = tuple(result.sizes)
    onnx_shape = (*sizes_out[:_SPATIAL_FROM], *sizes_out[_SPATIAL_FROM + inserted :])
    return [(result, () if prepare else onnx_shape)]


_LOWERED_TO = {
    "Conv": "CONVOLUTION",
    "ConvTranspose": "CONVOLUTION",
    "ConvInteger": "CONVOLUTION_INTEGER",
    "QLinearConv": "QUANTIZED_LINEAR_CONVOLUTION",
}


def _qlinear_inputs(
    node: onnx.NodeProto, reads: Reads, x: Expression, w: Expression, dims: int, channels: int, where: str
) -> dict[str, Expression | None]:
    """QLinearConv's x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point and B by
    QUANTIZED_LINEAR_CONVOLUTION's fields: the input's and output's scale and zero point one value, the filter's
    one value or one per output channel, B (INT32) one per output channel."""
    return {
        "input_tensor": x,
        "input_scale_tensor": _one_value(reads, _input(node, 1), dims, where, "x_scale"),
        "input_zero_point_tensor": _one_value(reads, _input(node, 2), dims, where, "x_zero_point"),
        "filter_tensor": w,
        "filter_scale_tensor": _per_channel(reads, _input(node, 4), dims, channels, where, "w_scale"),
        "filter_zero_point_tensor": _per_channel(reads, _input(node, 5), dims, channels, where, "w_zero_point"),
        "bias_tensor": _per_channel(reads, _input(node, 8), dims, channels, where, "B"),
        "output_scale_tensor": _one_value(reads, _input(node, 6), dims, where, "y_scale"),
        "output_zero_point_tensor": _one_value(reads, _input(node, 7), dims, where, "y_zero_point"),
    }


def _input(node: onnx.NodeProto, index: int) -> str | None:
    """The node's input at ``index``, None where it is left out (an empty name or past the last)."""
    return node.input[index] if index < len(node.input) and node.input[index] else None


def _one_value(reads: Reads, name: str | None, dims: int, where: str, what: str) -> Expression | None:
    """A per-tensor scale or zero point, read as {1, 1, ...} (``dims`` 1s)."""
    if name is None:
        return None
    shape = reads.known(name, where)[0]
    if math.prod(shape) != 1:
        raise NodeRefused(
            f"{where}: its {what} {name!r} has shape {list(shape)}; DirectML's integer convolutions take one value "
            "for it (per tensor)"
        )
    return reads.strided(name, (1,) * dims, (0,) * dims)


def _per_channel(reads: Reads, name: str | None, dims: int, channels: int, where: str, what: str) -> Expression | None:
    """A bias, scale or zero point of one value, or one per output channel (``channels``), read as {1, 1, ...} or
    {1, channels, 1, ...} (``dims`` dimensions)."""
    if name is None:
        return None
    shape = reads.known(name, where)[0]
    count = math.prod(shape)
    if count == 1 and what != "B":
        return reads.strided(name, (1,) * dims, (0,) * dims)
    if count != channels or [size for size in shape if size != 1] not in ([channels], []):
        one = "" if what == "B" else "one value or "
        raise NodeRefused(
            f"{where}: its {what} {name!r} has shape {list(shape)}; DirectML takes {one}one per output channel "
            f"({channels})"
        )
    sizes, strides = [1] * dims, [0] * dims
    sizes[1], strides[1] = channels, 1
    return reads.strided(name, sizes, strides)


def _widened(shape: Sequence[int], inserted: int) -> tuple[int, ...]:
    """``shape`` with ``inserted`` spatial dimensions of 1 before its spatial ones (a 1-D window read as 2-D)."""
    return (*shape[:_SPATIAL_FROM], *(1,) * inserted, *shape[_SPATIAL_FROM:])


class _Window:
    """A convolution's fields per spatial dimension: strides, dilations, start and end padding, output padding."""

    def __init__(
        self,
        strides: tuple[int, ...],
        dilations: tuple[int, ...],
        start: tuple[int, ...],
        end: tuple[int, ...],
        output_padding: tuple[int, ...],
    ) -> None:
        self.strides, self.dilations, self.start, self.end = strides, dilations, start, end
        self.output_padding = output_padding

    def fields(self, inserted: int, transposable: bool) -> dict[str, tuple[int, ...]]:
        """The descriptor's window fields, ``inserted`` leading spatial dimensions (stride and dilation 1, no
        padding) added; OutputPadding where the operator has it (CONVOLUTION; the integer ones have none)."""
        ones, zeros = (1,) * inserted, (0,) * inserted
        fields = {
            "strides": ones + self.strides,
            "dilations": ones + self.dilations,
            "start_padding": zeros + self.start,
            "end_padding": zeros + self.end,
        }
        if transposable:
            fields["output_padding"] = zeros + self.output_padding
        return fields


def _auto_pad(node: onnx.NodeProto, opset: int, where: str) -> str:
    auto_pad = string_attribute(node, opset, "auto_pad")
    if auto_pad not in ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"):
        raise InvalidArgumentError(
            f"{where}: auto_pad is {auto_pad!r}; ONNX takes NOTSET, SAME_UPPER, SAME_LOWER or VALID"
        )
    return auto_pad


def _spatial_ints(node: onnx.NodeProto, name: str, count: int, default: int, least: int, where: str) -> list[int]:
    given = ints_attribute(node, name)
    if given is None:
        return [default] * count
    if len(given) != count or any(value < least for value in given):
        raise InvalidArgumentError(
            f"{where}: {name} is {given}; {node.op_type} takes {count} values of {least} or more for its input's "
            "spatial dimensions"
        )
    return given


def _window(node: onnx.NodeProto, auto_pad: str, x_shape: Sequence[int], w_shape: Sequence[int], where: str) -> _Window:
    """ONNX's attributes as DirectML's fields for these shapes: auto_pad and ConvTranspose's output_shape folded
    into the padding."""
    spatial, kernel = list(x_shape[_SPATIAL_FROM:]), list(w_shape[_SPATIAL_FROM:])
    rank = len(spatial)
    given_kernel = ints_attribute(node, "kernel_shape")
    if given_kernel is not None and given_kernel != kernel:
        raise InvalidArgumentError(
            f"{where}: kernel_shape is {given_kernel}; W's spatial sizes are {kernel}: ONNX asks for them equal"
        )
    strides = _spatial_ints(node, "strides", rank, 1, 1, where)
    dilations = _spatial_ints(node, "dilations", rank, 1, 1, where)
    pads = _spatial_ints(node, "pads", 2 * rank, 0, 0, where)
    start, end = pads[:rank], pads[rank:]
    extents = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
    if node.op_type == "ConvTranspose":
        output_padding = _spatial_ints(node, "output_padding", rank, 0, 0, where)
        _transposed_padding(node, auto_pad, spatial, strides, extents, output_padding, start, end, where)
        return _Window(tuple(strides), tuple(dilations), tuple(start), tuple(end), tuple(output_padding))
    for dim, (size, stride, extent) in enumerate(zip(spatial, strides, extents, strict=True)):
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            total = max((-(-size // stride) - 1) * stride + extent - size, 0)
            start[dim] = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            end[dim] = total - start[dim]
        elif auto_pad == "VALID":
            start[dim], end[dim] = 0, 0
    return _Window(tuple(strides), tuple(dilations), tuple(start), tuple(end), (0,) * rank)


def _transposed_padding(
    node: onnx.NodeProto,
    auto_pad: str,
    spatial: Sequence[int],
    strides: Sequence[int],
    extents: Sequence[int],
    output_padding: list[int],
    start: list[int],
    end: list[int],
    where: str,
) -> None:
    """ConvTranspose's output_shape (or SAME_*'s, in * stride) as padding, ONNX's formula, in place; an output
    larger than the convolution reaches takes the extra end as OutputPadding."""
    rank = len(spatial)
    wanted = ints_attribute(node, "output_shape")
    if wanted is not None and len(wanted) == rank + _SPATIAL_FROM:
        wanted = wanted[_SPATIAL_FROM:]  # the whole shape, as some exporters write it
    if wanted is None and auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        wanted = [size * stride for size, stride in zip(spatial, strides, strict=True)]
    if auto_pad == "VALID":
        start[:], end[:] = [0] * rank, [0] * rank
    if wanted is None:
        return
    if len(wanted) != rank or min(wanted) < 1:
        raise InvalidArgumentError(
            f"{where}: output_shape is {wanted}; ConvTranspose takes {rank} sizes of 1 or more, its output's spatial "
            "dimensions"
        )
    for dim, size in enumerate(spatial):
        total = strides[dim] * (size - 1) + output_padding[dim] + extents[dim] - wanted[dim]
        start[dim] = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
        end[dim] = total - start[dim]
        if start[dim] < 0:
            raise NodeRefused(
                f"{where}: output_shape {wanted} needs start padding {start[dim]} along spatial dimension {dim}; "
                "DirectML's StartPadding is unsigned: give an output_shape the transposed convolution reaches"
            )
        if end[dim] < 0:
            output_padding[dim] -= end[dim]  # the output's extra end: bias only, as ONNX computes it
            end[dim] = 0
