"""ONNX's Resize (opset 11 on) and Upsample (7, 9) as DirectML's RESAMPLE2 (``dml.graph.resample``), or RESAMPLE3
where Resize's antialias asks LINEAR's filter widened, with the scheme of onnxruntime's DirectML provider: each
dimension's input coordinate is (o - OutputPixelOffset) / Scale - InputPixelOffset, so ONNX's
coordinate_transformation_mode becomes the offsets and Scale:

- half_pixel: 0.5 and -0.5, Scale the dimension's scale (half_pixel_symmetric: the input offset less ONNX's
  centring term, in / 2 * (1 - out / (scale * in)));
- pytorch_half_pixel: the same, but an output of length 1 reads coordinate 0: Scale FLT_MAX, offsets 0;
- align_corners: offsets 0, Scale (in * scale - 1) / (in - 1) (ONNX's resized length, a float where scales are
  given), FLT_MAX where either length is 1 (coordinate 0);
- asymmetric: offsets 0; tf_half_pixel_for_nn: 0 and -0.5;
- tf_crop_and_resize: the roi [start, end] folded in, Scale (out - 1) / ((end - start) (in - 1)) and the input
  offset -start (in - 1), while the roi lies within [0, 1] (no coordinate outside the input, where ONNX writes
  extrapolation_value and DirectML clamps to the edge).

nearest_mode: round_prefer_floor is RoundingDirection INCREASING (ceil) of the coordinate less 0.5 (0.5 added to
the input offset), round_prefer_ceil DECREASING (floor) of it plus 0.5, floor DECREASING, ceil INCREASING. Upsample
is ONNX's nearest by floor or linear, asymmetric (onnx.reference's and the page's; the provider's half_pixel is not).

scales and sizes, roi too, become descriptor fields and the output's Sizes, fixed when the graph is built: each is an
initializer. Refused with the reason: cubic mode, exclude_outside 1, keep_aspect_ratio_policy other than stretch,
a roi reaching outside the input."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import onnx

from dmlpy.enums import AxisDirection, InterpolationMode
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph import Expression
from dmlpy.graph.operator_node import add_node
from dmlpy.graph.resampling import resample
from dmlpy.onnx.attributes import ints_attribute, string_attribute
from dmlpy.onnx.elements import NodeRefused, expressed
from dmlpy.onnx.reads import Outputs, Reads
from dmlpy.ops import Resample3OperatorDesc
from dmlpy.tensor import BufferTensorDesc

RESAMPLE_OPS = ("Resize", "Upsample")
FLT_MAX = float(np.finfo(np.float32).max)
"""The Scale that maps every output coordinate to input coordinate 0 (o / FLT_MAX rounds to 0)."""
_MODES = {"nearest": InterpolationMode.NEAREST_NEIGHBOR, "linear": InterpolationMode.LINEAR}
_NEAREST = {
    "round_prefer_floor": (AxisDirection.INCREASING, 0.5),
    "round_prefer_ceil": (AxisDirection.DECREASING, -0.5),
    "floor": (AxisDirection.DECREASING, 0.0),
    "ceil": (AxisDirection.INCREASING, 0.0),
}
"""nearest_mode -> RoundingDirection and what it adds to every InputPixelOffset."""
_RESIZE_FIRST_OPSET = 11
_HELD = "DirectML's RESAMPLE2 holds them in descriptor fields (Scales, pixel offsets) and the output's Sizes"


def resample_outputs(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    """The node for its input's shape; at prepare (every value one element) the attributes and initializers are
    checked and a resample of the one element checks the type."""
    if node.op_type == "Resize" and opset < _RESIZE_FIRST_OPSET:
        raise NodeRefused(
            f"{where}: Resize-10's coordinates (asymmetric, nearest by floor-like rounding) are read from opset 11's "
            "attributes: convert the model to a later opset (onnx.version_converter)"
        )
    mode = string_attribute(node, opset, "mode")
    if mode not in _MODES:
        raise NodeRefused(f"{where}: mode {mode!r}: DirectML's RESAMPLE operators interpolate nearest or linear")
    shape = reads.known(node.input[0], where)[0]
    if node.op_type == "Upsample":
        transform, nearest, antialias = "asymmetric", "floor", 0
        scales: list[float] | None = _upsample_scales(node, opset, reads, where)
        sizes: list[int] | None = None
    else:
        transform = string_attribute(node, opset, "coordinate_transformation_mode")
        nearest = string_attribute(node, opset, "nearest_mode")
        antialias = attributes.get("antialias", 0)
        _check_resize(node, opset, attributes, where)
        scales, sizes = _resize_targets(node, len(shape), reads, prepare, where)
    x = reads.shaped(node.input[0], shape or (1,), where)
    if prepare:
        return [(expressed(where, resample, x, x.sizes, _MODES[mode]), shape)]
    if len(scales or sizes or ()) != len(shape):
        given = "scales" if scales is not None else "sizes"
        raise InvalidArgumentError(
            f"{where}: its {given} has {len(scales or sizes or ())} values; the input has rank {len(shape)}"
        )
    out = (
        tuple(sizes)
        if sizes is not None
        else tuple(math.floor(n * s) for n, s in zip(shape, scales or (), strict=True))
    )
    chosen = scales if scales is not None else [o / n for o, n in zip(out, shape, strict=True)]
    roi = _roi(node, reads, len(shape), where) if transform == "tf_crop_and_resize" else None
    fields = [
        _dimension(transform, n, o, s, None if roi is None else roi[d], where)
        for d, (n, o, s) in enumerate(zip(shape, out, chosen, strict=True))
    ]
    direction, shift = _NEAREST.get(nearest, (None, 0.0))
    if direction is None:
        raise InvalidArgumentError(f"{where}: nearest_mode {nearest!r}; ONNX takes {', '.join(_NEAREST)}")
    shift = shift if mode == "nearest" else 0.0
    scale_fields = [s for s, _, _ in fields]
    input_offsets = [i + shift for _, i, _ in fields]
    output_offsets = [o for _, _, o in fields]
    if antialias and mode == "linear":
        result = expressed(where, _antialiased, x, out, scale_fields, input_offsets, output_offsets)
    else:
        result = expressed(
            where, resample, x, out, _MODES[mode], direction, scale_fields, input_offsets, output_offsets
        )
    return [(result, out)]


def _antialiased(
    x: Expression, out: Sequence[int], scales: Sequence[float], inputs: Sequence[float], outputs: Sequence[float]
) -> Expression:
    """RESAMPLE3's LINEAR with Antialiased (no builder function of DirectMLX's names it)."""
    fields = {
        "interpolation_mode": InterpolationMode.LINEAR,
        "rounding_direction": AxisDirection.DECREASING,
        "scales": tuple(scales),
        "input_pixel_offsets": tuple(inputs),
        "output_pixel_offsets": tuple(outputs),
        "antialiased": True,
    }
    output = BufferTensorDesc(data_type=x.desc.data_type, sizes=tuple(out))
    return add_node(Resample3OperatorDesc, {"input_tensor": x}, {"output_tensor": output}, fields)[0]


def _check_resize(node: onnx.NodeProto, opset: int, attributes: dict[str, int], where: str) -> None:
    if attributes.get("exclude_outside", 0):
        raise NodeRefused(f"{where}: exclude_outside 1 renormalises cubic weights; DirectML has no cubic mode")
    declared = onnx.defs.get_schema(node.op_type, opset).attributes
    if (
        "keep_aspect_ratio_policy" in declared
        and string_attribute(node, opset, "keep_aspect_ratio_policy") != "stretch"
    ):
        raise NodeRefused(
            f"{where}: keep_aspect_ratio_policy {string_attribute(node, opset, 'keep_aspect_ratio_policy')!r}: dmlpy "
            "maps 'stretch' (sizes as given); give the sizes the policy computes"
        )


def _values(reads: Reads, name: str, what: str, where: str) -> list[float]:
    return [float(v) for v in reads.fixed(name, what, where, _HELD).reshape(-1)]


def _input(node: onnx.NodeProto, index: int) -> str | None:
    return node.input[index] if index < len(node.input) and node.input[index] else None


def _resize_targets(
    node: onnx.NodeProto, rank: int, reads: Reads, prepare: bool, where: str
) -> tuple[list[float] | None, list[int] | None]:
    """Resize's scales or sizes, over every dimension (axes' others 1 or the input's)."""
    scales_name, sizes_name = _input(node, 2), _input(node, 3)
    if scales_name is not None and reads.known(scales_name, where)[0] == (0,):
        scales_name = None  # an empty scales stands for none (sizes given)
    if (scales_name is None) == (sizes_name is None):
        raise InvalidArgumentError(f"{where}: Resize takes exactly one of scales and sizes")
    given = _values(reads, scales_name or sizes_name or "", "scales" if scales_name else "sizes", where)
    if prepare:
        return None, None
    axes = ints_attribute(node, "axes")
    if axes is not None:
        known = reads.known(node.input[0], where)[0]
        full = [1.0] * rank if scales_name else [float(n) for n in known]
        for axis, value in zip(axes, given, strict=True):
            full[axis % rank] = value
        given = full
    if scales_name:
        return given, None
    return None, [int(v) for v in given]


def _upsample_scales(node: onnx.NodeProto, opset: int, reads: Reads, where: str) -> list[float]:
    if len(node.input) > 1:
        return _values(reads, node.input[1], "scales", where)
    given = next((a for a in node.attribute if a.name == "scales"), None)
    if given is None:
        raise InvalidArgumentError(f"{where}: Upsample takes scales (an attribute before opset 9, an input from it)")
    return [float(v) for v in given.floats]


def _roi(node: onnx.NodeProto, reads: Reads, rank: int, where: str) -> list[tuple[float, float]]:
    name = _input(node, 1)
    if name is None:
        raise InvalidArgumentError(f"{where}: tf_crop_and_resize takes a roi input")
    values = _values(reads, name, "roi", where)
    axes = ints_attribute(node, "axes") or list(range(rank))
    count = len(axes)
    roi = [(0.0, 1.0)] * rank
    for index, axis in enumerate(axes):
        roi[axis % rank] = (values[index], values[index + count])
    if any(not 0.0 <= v <= 1.0 for pair in roi for v in pair):
        raise NodeRefused(
            f"{where}: roi {values} reaches outside the input, where ONNX writes extrapolation_value and DirectML's "
            "RESAMPLE2 clamps to the edge"
        )
    return roi


def _dimension(
    transform: str, size: int, out: int, scale: float, roi: tuple[float, float] | None, where: str
) -> tuple[float, float, float]:
    """One dimension's (Scale, InputPixelOffset, OutputPixelOffset) for ONNX's coordinate transformation."""
    if transform in ("half_pixel", "pytorch_half_pixel"):
        if transform == "pytorch_half_pixel" and out == 1:
            return FLT_MAX, 0.0, 0.0
        return scale, 0.5, -0.5
    if transform == "half_pixel_symmetric":
        return scale, 0.5 - size / 2 * (1 - out / (scale * size)), -0.5
    if transform == "align_corners":
        # ONNX's resized length is size * scale, a float where scales are given (sizes: the output's length).
        resized = size * scale
        return (FLT_MAX if resized == 1 or size == 1 else (resized - 1) / (size - 1)), 0.0, 0.0
    if transform == "asymmetric":
        return scale, 0.0, 0.0
    if transform == "tf_half_pixel_for_nn":
        return scale, 0.0, -0.5
    if transform == "tf_crop_and_resize" and roi is not None:
        start, end = roi
        if out == 1 or size == 1 or end == start:
            return FLT_MAX, -0.5 * (start + end) * (size - 1), 0.0
        return (out - 1) / ((end - start) * (size - 1)), -start * (size - 1), 0.0
    raise InvalidArgumentError(f"{where}: coordinate_transformation_mode {transform!r} is none of ONNX's")
