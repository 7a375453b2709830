"""ONNX's regions of interest as DirectML's, through their builder functions (``dmlpy.graph.regions``): MaxRoiPool as
ROI_POOLING (rois (num_rois, 5) read as {1, 1, NumROIs, 5}, pooled_shape as PooledSize, spatial_scale as SpatialScale)
and RoiAlign (opsets 10, 16 and 22) as ROI_ALIGN1, as onnxruntime's DirectML provider maps it: mode avg or max as
ReductionFunction AVERAGE or MAX, bilinear samples, spatial_scale as both SpatialScales, sampling_ratio n as
MinimumSamplesPerOutput = MaximumSamplesPerOutput = n (0, adaptive: 1 and 4294967295), coordinate_transformation_mode
half_pixel as InputPixelOffset 0.5 and output_half_pixel (RoiAlign-10's only form) as 0, OutputPixelOffset -0.5,
OutOfBoundsInputValue 0, and batch_indices cast from INT64 to UINT64.

Where the results differ from ONNX's reference (docs/operators/roi.md): max mode is the largest bilinear sample
(DirectML's, and the ONNX text's "max pooling"), where onnx.reference and onnxruntime's CPU kernel take the largest
weighted corner term of each sample; output_half_pixel's regions narrower than 1 element are not widened to 1; an
empty or inverted region samples its point or its mirror image rather than giving 0s."""

from __future__ import annotations

import onnx

from dmlpy.enums import InterpolationMode, ReduceFunction, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.graph.operators import BUILDERS
from dmlpy.graph.regions import ADAPTIVE_MAXIMUM, roi_align, roi_pooling
from dmlpy.onnx.attributes import float_attribute, ints_attribute, string_attribute
from dmlpy.onnx.elements import NodeRefused, expressed
from dmlpy.onnx.reads import Outputs, Reads

REGION_OPS = ("MaxRoiPool", "RoiAlign")
_MODES = {"avg": ReduceFunction.AVERAGE, "max": ReduceFunction.MAX}
_INPUT_PIXEL_OFFSETS = {"half_pixel": 0.5, "output_half_pixel": 0.0}
"""coordinate_transformation_mode -> InputPixelOffset (onnxruntime's DirectML provider's mapping)."""
_HALF_PIXEL_OPSET = 16
"""RoiAlign-16 added coordinate_transformation_mode; RoiAlign-10 reads as output_half_pixel."""
_TYPES = (TensorDataType.FLOAT32, TensorDataType.FLOAT16)
_BATCH_INDEX_TYPE = TensorDataType.UINT64
"""ONNX's batch_indices are INT64; ROI_ALIGN1's UINT32 or UINT64 (FL 5_0), the same bits for a batch below 2^63."""


def region_outputs(
    node: onnx.NodeProto, opset: int, attributes: dict[str, int], reads: Reads, prepare: bool, where: str
) -> Outputs:
    """The node for its inputs' shapes; at prepare (every value one element) a copy of X stands in, after the
    attributes and X's type are checked."""
    shape, data_type = reads.known(node.input[0], where)
    if data_type not in _TYPES:
        raise NodeRefused(
            f"{where}: X is {data_type.name}; DirectML's ROI_POOLING and ROI_ALIGN1 take FLOAT32 and FLOAT16 (any "
            "opset): cast X and the regions first"
        )
    pooled = _pooled_shape(node, where) if node.op_type == "MaxRoiPool" else ()
    fields = _align_fields(node, opset, attributes, where) if node.op_type == "RoiAlign" else {}
    x = reads.shaped(node.input[0], shape or (1,), where)
    if prepare:
        return [(expressed(where, BUILDERS["identity"], x), shape)]
    if len(shape) != 4:
        raise InvalidArgumentError(f"{where}: X has shape {list(shape)}; {node.op_type} takes (N, C, H, W)")
    rois_shape, _ = reads.known(node.input[1], where)
    count = rois_shape[0] if rois_shape else 0
    if node.op_type == "MaxRoiPool":
        rois = reads.shaped(node.input[1], (1, 1, *rois_shape), where)
        scale = float_attribute(node, opset, "spatial_scale")
        return [(expressed(where, roi_pooling, x, rois, scale, pooled), (count, shape[1], *pooled))]
    rois = reads.shaped(node.input[1], rois_shape, where)
    given = reads.shaped(node.input[2], reads.known(node.input[2], where)[0], where)
    batches = expressed(where, BUILDERS["cast"], given, _BATCH_INDEX_TYPE)
    height, width = attributes.get("output_height", 1), attributes.get("output_width", 1)
    result = expressed(where, roi_align, x, rois, batches, **fields, output_height=height, output_width=width)
    return [(result, (count, shape[1], height, width))]


def _pooled_shape(node: onnx.NodeProto, where: str) -> tuple[int, int]:
    pooled = ints_attribute(node, "pooled_shape")
    if pooled is None or len(pooled) != 2 or min(pooled) < 1:
        raise InvalidArgumentError(
            f"{where}: pooled_shape is {pooled}; MaxRoiPool takes (height, width), each 1 or more"
        )
    return pooled[0], pooled[1]


def _align_fields(node: onnx.NodeProto, opset: int, attributes: dict[str, int], where: str) -> dict[str, object]:
    """RoiAlign's attributes as ROI_ALIGN1's fields (onnxruntime's DirectML provider's mapping)."""
    mode = string_attribute(node, opset, "mode")
    if mode not in _MODES:
        raise InvalidArgumentError(f"{where}: mode is {mode!r}; RoiAlign takes 'avg' or 'max'")
    transformation = "output_half_pixel"
    if opset >= _HALF_PIXEL_OPSET:
        transformation = string_attribute(node, opset, "coordinate_transformation_mode")
    if transformation not in _INPUT_PIXEL_OFFSETS:
        raise InvalidArgumentError(
            f"{where}: coordinate_transformation_mode is {transformation!r}; RoiAlign takes 'half_pixel' or "
            "'output_half_pixel'"
        )
    ratio = attributes.get("sampling_ratio", 0)
    if ratio < 0:
        raise InvalidArgumentError(f"{where}: sampling_ratio is {ratio}; RoiAlign takes 0 (adaptive) or more")
    for name in ("output_height", "output_width"):
        if attributes.get(name, 1) < 1:
            raise InvalidArgumentError(f"{where}: {name} is {attributes[name]}; RoiAlign takes 1 or more")
    scale = float_attribute(node, opset, "spatial_scale")
    return {
        "reduction_function": _MODES[mode],
        "interpolation_mode": InterpolationMode.LINEAR,
        "spatial_scale_x": scale,
        "spatial_scale_y": scale,
        "input_pixel_offset": _INPUT_PIXEL_OFFSETS[transformation],
        "output_pixel_offset": -0.5,
        "out_of_bounds_input_value": 0.0,
        "minimum_samples_per_output": ratio or 1,
        "maximum_samples_per_output": ratio or ADAPTIVE_MAXIMUM,
    }
