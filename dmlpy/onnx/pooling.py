"""ONNX's poolings as DirectML's, through their builder functions (``dmlpy.graph.pooling``): AveragePool as
AVERAGE_POOLING1 (count_include_pad as IncludePadding), MaxPool as MAX_POOLING2 (its optional Indices as
OutputIndicesTensor in UINT64, cast to ONNX's INT64 by a CAST node), LpPool as LP_POOLING1 (p as P), GlobalAveragePool,
GlobalMaxPool and GlobalLpPool as the same operators with the window the spatial Sizes, MaxUnpool as MAX_UNPOOLING
(its indices cast from INT64 to UINT64; the output's Sizes output_shape's, an initializer, or the window rule's).

DirectML's output size is floor((in + start + end - extent) / stride) + 1, extent (window - 1) * dilation + 1. ONNX's
auto_pad SAME_UPPER and SAME_LOWER (out = ceil(in / stride), the padding split with the odd one at the end or the
start), VALID (no padding) and ceil_mode (ceil instead of floor, less a last window that would start in the end
padding) become padding: the start padding ONNX gives, and the end padding that makes DirectML's rule give ONNX's size.
A window's padding is no element of MAX and LP, and counts for AVERAGE only with count_include_pad, where ceil_mode's
extra end padding is refused unless it is 0 (ONNX counts only its pads; IncludePadding counts all padding).

DirectML's poolings take 4-D or 5-D tensors (MAX_UNPOOLING 4-D): a 1-D pooling reads its (N, C, W) input as (N, C, 1,
W), a window of 1 along the inserted dimension (the output's ONNX shape drops it; the same bytes). MaxPool's
storage_order 1 (column-major indices) is refused: DirectML's indices are row-major."""

from __future__ import annotations

import math
from collections.abc import Sequence

import onnx

from dmlpy.enums import TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import reinterpret
from dmlpy.graph.operator_node import operator_node
from dmlpy.graph.operators import BUILDERS
from dmlpy.graph.pooling import average_pooling, lp_pooling, max_pooling, max_unpooling
from dmlpy.onnx.attributes import ints_attribute, string_attribute
from dmlpy.onnx.elements import NodeRefused, expressed
from dmlpy.onnx.reads import Outputs, Reads
from dmlpy.ops.quantized_pooling import QuantizedLinearAveragePoolingOperatorDesc
from dmlpy.tensor import packed_strides

GLOBAL_OPS = {"GlobalAveragePool": "AveragePool", "GlobalMaxPool": "MaxPool", "GlobalLpPool": "LpPool"}
"""The global poolings -> the pooling whose operator they lower to, the window the whole spatial extent."""
POOLING_OPS = ("AveragePool", "MaxPool", "LpPool", *GLOBAL_OPS, "MaxUnpool")
INDEX_TYPE = TensorDataType.INT64
"""ONNX's indices (MaxPool's Indices, MaxUnpool's I) are INT64; DirectML's UINT64, the same bits below 2^63."""
_DIRECTML_INDEX_TYPE = TensorDataType.UINT64
_SPATIAL_FROM = 2
"""ONNX's pooling inputs are (N, C, D1, ...): the spatial dimensions from 2."""
_FEWEST_DIMENSIONS = 4
"""DirectML's poolings take 4-D or 5-D tensors: a 1-D pooling is read with a spatial dimension of 1 inserted."""
_LP_FIRST_OPSET = 2
"""LpPool-1 and GlobalLpPool-1 take p as a FLOAT; from opset 2 it is an INT, LP_POOLING1's P."""


def pooling_outputs(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    """The node for its input's shape; at prepare (every value one element) a pooling of a 1 x 1 window over one
    element of (1, 1, 1, 1) checks the types DirectML takes and the attributes that do not depend on the shape."""
    op_type = GLOBAL_OPS.get(node.op_type, node.op_type)
    if op_type == "LpPool" and opset < _LP_FIRST_OPSET:
        raise NodeRefused(
            f"{where}: {node.op_type}-1 takes p as a FLOAT; dmlpy reads opset 2's INT p (LP_POOLING1's P): convert "
            "the model to a later opset (onnx.version_converter)"
        )
    if op_type == "MaxPool" and attributes.get("storage_order", 0):
        raise NodeRefused(
            f"{where}: storage_order {attributes['storage_order']}: DirectML's MAX_POOLING2 writes row-major indices "
            "(storage_order 0); column-major ones have no DirectML form"
        )
    shape = (1, 1, 1, 1) if prepare else reads.known(node.input[0], where)[0]
    if len(shape) < _SPATIAL_FROM + 1:
        raise InvalidArgumentError(f"{where}: its input has shape {list(shape)}; {node.op_type} takes (N, C, D1, ...)")
    spatial = shape[_SPATIAL_FROM:]
    if node.op_type == "MaxUnpool":
        return _max_unpool(node, attributes, reads, shape, prepare, where)
    window = _window_of(node, opset, attributes, spatial, prepare, where)
    read_as = _four_d(shape)
    x = reads.shaped(node.input[0], read_as, where)
    fields = window.widened(len(read_as) - len(shape))
    if op_type == "AveragePool":
        include = _include_padding(attributes, window, where)
        result = expressed(where, average_pooling, x, *fields, include)
        return [(result, _output_shape(shape, window))]
    if op_type == "LpPool":
        result = expressed(where, lp_pooling, x, *fields, attributes.get("p", 2))
        return [(result, _output_shape(shape, window))]
    strides, sizes, start, end, dilations = fields
    wants_indices = len(node.output) > 1
    values = expressed(
        where, max_pooling, x, sizes, strides, start, end, dilations, wants_indices, _DIRECTML_INDEX_TYPE
    )
    outputs = [(values[0], _output_shape(shape, window))]
    if wants_indices:
        indices = expressed(where, BUILDERS["cast"], values[1], INDEX_TYPE)
        outputs.append((indices, _output_shape(shape, window)))
    return outputs


def quantized_pooling_outputs(
    node: onnx.NodeProto,
    pooling: onnx.NodeProto,
    attributes: dict[str, int],
    reads: Reads,
    prepare: bool,
    where: str,
) -> Outputs:
    """onnxruntime's QLinearAveragePool and QLinearGlobalAveragePool (``dmlpy.onnx.contrib``; ``pooling``: the
    AveragePool-11 or GlobalAveragePool node of the same attributes) as QUANTIZED_LINEAR_AVERAGE_POOLING: X, its
    scale and zero point, Y's scale and zero point (each zero point 0 where left out; one value each, read with X's
    DimensionCount); channels_last 1 reads X (N, D1, ..., C) through strides as (N, C, D1, ...) and gives Y so."""
    last = attributes.get("channels_last", 0)
    if last not in (0, 1):
        raise InvalidArgumentError(f"{where}: channels_last is {last}; {node.op_type} takes 0 or 1")
    given = (1, 1, 1, 1) if prepare else reads.known(node.input[0], where)[0]
    if len(given) < _SPATIAL_FROM + 1:
        raise InvalidArgumentError(f"{where}: its input has shape {list(given)}; {node.op_type} takes 3-D or more")
    shape = (given[0], given[-1], *given[1:-1]) if last else given
    window = _window_of(pooling, _QUANTIZED_OPSET, attributes, shape[_SPATIAL_FROM:], prepare, where)
    read_as = _four_d(shape)
    strides = _channels_last_strides(read_as) if last and not prepare else packed_strides(read_as)
    x = reads.strided(node.input[0], read_as, (0,) * len(read_as) if prepare else strides)
    one = (1,) * len(read_as)
    parameters = {
        field: reads.shaped(node.input[index], one, where) if index < len(node.input) and node.input[index] else None
        for index, field in enumerate(_QUANTIZED_FIELDS, start=1)
    }
    steps, sizes, start, end, dilations = window.widened(len(read_as) - len(shape))
    result = expressed(
        where,
        operator_node,
        QuantizedLinearAveragePoolingOperatorDesc,
        {"input_tensor": x, **parameters},
        x.data_type,
        strides=steps,
        window_size=sizes,
        start_padding=start,
        end_padding=end,
        dilations=dilations,
        include_padding=_include_padding(attributes, window, where),
    )
    out = _output_shape(shape, window)
    if not last or prepare:
        return [(result, out)]
    # Y (N, C, D1', ...) packed, read as ONNX's (N, D1', ..., C): the same elements, C's stride outermost but N's.
    written = packed_strides(out)
    order = (0, *range(_SPATIAL_FROM, len(out)), 1)
    onnx_shape = tuple(out[d] for d in order)
    return [(expressed(where, reinterpret, result, onnx_shape, [written[d] for d in order]), onnx_shape)]


_QUANTIZED_OPSET = 11
"""The AveragePool schema whose attributes QLinearAveragePool takes (auto_pad, ceil_mode, count_include_pad,
kernel_shape, pads, strides; no dilations)."""
_QUANTIZED_FIELDS = ("input_scale_tensor", "input_zero_point_tensor", "output_scale_tensor", "output_zero_point_tensor")
"""QLinearAveragePool's inputs after X, in order, as QUANTIZED_LINEAR_AVERAGE_POOLING's fields."""


def _channels_last_strides(sizes: tuple[int, ...]) -> tuple[int, ...]:
    """The strides of (N, C, D1, ...) ``sizes`` over an array laid out (N, D1, ..., C)."""
    channels, spatial = sizes[1], sizes[_SPATIAL_FROM:]
    inner = [channels * math.prod(spatial[d + 1 :]) for d in range(len(spatial))]
    return (channels * math.prod(spatial), 1, *inner)


def _window_of(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], spatial: Sequence[int], prepare: bool, where: str
) -> _Window:
    """The node's window: a global pooling's the whole spatial extent; at prepare one element over one element."""
    if node.op_type in GLOBAL_OPS or prepare:
        ones, zeros = (1,) * len(spatial), (0,) * len(spatial)
        return _Window(tuple(spatial), ones, zeros, zeros, ones, zeros)
    return _window(node, opset, attributes, spatial, where)


def _include_padding(attributes: dict[str, int], window: _Window, where: str) -> bool:
    """count_include_pad as IncludePadding, refused where DirectML would count padding ONNX does not."""
    include = attributes.get("count_include_pad", 0)
    if include and window.end != window.onnx_end:
        raise NodeRefused(
            f"{where}: count_include_pad 1 with ceil_mode or auto_pad adding end padding {list(window.end)}: "
            "DirectML's IncludePadding counts every padding element in the divisor, ONNX only its pads"
        )
    return bool(include)


class _Window:
    """A pooling's window per spatial dimension: strides, sizes, start and end padding (the end DirectML's, ONNX's
    size folded in) and dilations."""

    def __init__(
        self,
        sizes: tuple[int, ...],
        strides: tuple[int, ...],
        start: tuple[int, ...],
        end: tuple[int, ...],
        dilations: tuple[int, ...],
        onnx_end: tuple[int, ...],
    ) -> None:
        self.sizes, self.strides, self.start, self.end, self.dilations = sizes, strides, start, end, dilations
        self.onnx_end = onnx_end
        """The end padding ONNX counts (its pads, or auto_pad's), without ceil_mode's extra."""

    def widened(self, inserted: int) -> tuple[tuple[int, ...], ...]:
        """The builder's (strides, window sizes, start, end, dilations), ``inserted`` leading spatial dimensions of
        1 added (a 1-D pooling read as 2-D)."""
        ones, zeros = (1,) * inserted, (0,) * inserted
        return (
            ones + self.strides,
            ones + self.sizes,
            zeros + self.start,
            zeros + self.end,
            ones + self.dilations,
        )

    def output_size(self, size: int, dim: int) -> int:
        extent = (self.sizes[dim] - 1) * self.dilations[dim] + 1
        return (size + self.start[dim] + self.end[dim] - extent) // self.strides[dim] + 1


def _four_d(shape: Sequence[int]) -> tuple[int, ...]:
    """The Sizes DirectML reads an ONNX pooling input with: 1s inserted before the spatial dimensions up to 4-D."""
    missing = max(_FEWEST_DIMENSIONS - len(shape), 0)
    return (*shape[:_SPATIAL_FROM], *(1,) * missing, *shape[_SPATIAL_FROM:])


def _output_shape(shape: Sequence[int], window: _Window) -> tuple[int, ...]:
    spatial = shape[_SPATIAL_FROM:]
    return (*shape[:_SPATIAL_FROM], *(window.output_size(size, d) for d, size in enumerate(spatial)))


def _spatial_ints(node: onnx.NodeProto, name: str, rank: int, default: int, where: str) -> tuple[int, ...]:
    given = ints_attribute(node, name)
    if given is None:
        return (default,) * rank
    if len(given) != rank or any(value < (0 if name == "pads" else 1) for value in given):
        least = 0 if name == "pads" else 1
        raise InvalidArgumentError(
            f"{where}: {name} is {given}; {node.op_type} takes {rank} values of {least} or more, one per spatial "
            "dimension of its input"
        )
    return tuple(given)


def _window(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], spatial: Sequence[int], where: str
) -> _Window:
    """ONNX's window attributes as DirectML's fields: auto_pad and ceil_mode folded into the padding."""
    rank = len(spatial)
    kernel = ints_attribute(node, "kernel_shape")
    if kernel is None or len(kernel) != rank or min(kernel) < 1:
        raise InvalidArgumentError(
            f"{where}: kernel_shape is {kernel}; {node.op_type} takes {rank} sizes of 1 or more, one per spatial "
            "dimension of its input"
        )
    strides = _spatial_ints(node, "strides", rank, 1, where)
    dilations = _spatial_ints(node, "dilations", rank, 1, where)
    pads = ints_attribute(node, "pads") or [0] * 2 * rank
    if len(pads) != 2 * rank or min(pads) < 0:
        raise InvalidArgumentError(f"{where}: pads is {pads}; {node.op_type} takes {2 * rank} values of 0 or more")
    extents = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
    auto_pad = string_attribute(node, opset, "auto_pad") if "auto_pad" in {a.name for a in node.attribute} else ""
    ceil = attributes.get("ceil_mode", 0)
    start, end, onnx_end = list(pads[:rank]), list(pads[rank:]), []
    for dim, (size, stride, extent) in enumerate(zip(spatial, strides, extents, strict=True)):
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out = -(-size // stride)
            total = max((out - 1) * stride + extent - size, 0)
            start[dim] = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            end[dim] = total - start[dim]
        elif auto_pad == "VALID":
            start[dim], end[dim] = 0, 0
            out = (size - extent) // stride + 1
        elif auto_pad in ("", "NOTSET"):
            room = size + start[dim] + end[dim] - extent
            out = (-(-room // stride) if ceil else room // stride) + 1
            if ceil and (out - 1) * stride >= size + start[dim]:
                out -= 1  # ONNX: a last window that would start in the end padding is left out
        else:
            raise InvalidArgumentError(
                f"{where}: auto_pad is {auto_pad!r}; ONNX takes NOTSET, SAME_UPPER, SAME_LOWER or VALID"
            )
        if out < 1:
            raise InvalidArgumentError(
                f"{where}: its input's spatial dimension {dim} ({size}) with padding {start[dim]} + {end[dim]} is "
                f"smaller than the window's extent ({extent}): no output element"
            )
        onnx_end.append(end[dim])
        end[dim] = max(end[dim], (out - 1) * stride + extent - size - start[dim])
    return _Window(tuple(kernel), strides, tuple(start), tuple(end), dilations, tuple(onnx_end))


def _max_unpool(
    node: onnx.NodeProto,
    attributes: dict[str, int],
    reads: Reads,
    shape: tuple[int, ...],
    prepare: bool,
    where: str,
) -> Outputs:
    """MaxUnpool: X's elements written at I's indices (cast to UINT64) into zeros of output_shape's Sizes (an
    initializer) or the window rule's, (in - 1) * stride - (start + end) + kernel."""
    rank = len(shape) - _SPATIAL_FROM
    if len(_four_d(shape)) != _FEWEST_DIMENSIONS:
        raise NodeRefused(f"{where}: its input has shape {list(shape)}; DirectML's MAX_UNPOOLING takes 4-D tensors")
    x = reads.shaped(node.input[0], _four_d(shape), where)
    given_indices = reads.shaped(node.input[1], _four_d(shape), where)
    indices = expressed(where, BUILDERS["cast"], given_indices, _DIRECTML_INDEX_TYPE)
    if len(node.input) > 2 and node.input[2]:
        held = "DirectML's MAX_UNPOOLING takes the output's Sizes from its OutputTensor's desc"
        given = reads.fixed(node.input[2], "output_shape", where, held)
        out = tuple(int(v) for v in given.reshape(-1))
    elif prepare:
        out = shape
    else:
        kernel = _spatial_ints(node, "kernel_shape", rank, 1, where)
        strides = _spatial_ints(node, "strides", rank, 1, where)
        pads = ints_attribute(node, "pads") or [0] * 2 * rank
        spatial = (
            (size - 1) * stride - (pads[d] + pads[d + rank]) + k
            for d, (size, stride, k) in enumerate(zip(shape[_SPATIAL_FROM:], strides, kernel, strict=True))
        )
        out = (*shape[:_SPATIAL_FROM], *spatial)
    if len(out) != len(shape) or math.prod(out) < 1:
        raise InvalidArgumentError(f"{where}: output_shape is {list(out)}; MaxUnpool takes one size per dimension of X")
    result = expressed(where, max_unpooling, x, indices, _four_d(out))
    return [(result, out)]
