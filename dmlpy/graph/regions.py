"""The builder functions of the regions-of-interest operators: ``roi_pooling`` (DML_OPERATOR_ROI_POOLING) and
``roi_align`` (DML_OPERATOR_ROI_ALIGN1), in snake_case. DirectMLX lists ``dml::RoiPooling`` and ``dml::RoiAlign`` as
TODOs, so their arguments follow the descriptors' fields in C order, after the input expressions; ``roi_align``'s
defaults are ROI_ALIGN's behaviour (half-pixel centres, regions not aligned to corners) and ONNX RoiAlign's adaptive
sampling. Outputs are packed: ``{NumROIs, ChannelCount, PooledSize.Height, PooledSize.Width}`` and ``{NumROIs,
ChannelCount, output_height, output_width}``, the input's DataType."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dmlpy.enums import InterpolationMode, ReduceFunction
from dmlpy.errors import argument_error
from dmlpy.graph.arguments import enum_argument
from dmlpy.graph.builder import Expression, operand
from dmlpy.graph.operator_node import add_node, operator_node
from dmlpy.ops import RoiAlign1OperatorDesc, RoiPoolingOperatorDesc
from dmlpy.ops.size_2d import Size2D
from dmlpy.tensor import BufferTensorDesc

ADAPTIVE_MAXIMUM = 2**32 - 1
"""``roi_align``'s default MaximumSamplesPerOutput: with a minimum of 1, as many samples as the region is wide per
output element (ONNX RoiAlign's sampling_ratio 0, as onnxruntime's DirectML provider maps it)."""


def _size_2d(value: Any, where: str) -> Size2D:
    """``pooled_size``: a dml.Size2D, or (height, width) as the output's last two Sizes read."""
    if isinstance(value, Size2D):
        return value
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 2:
        raise argument_error(where, "pooled_size", value, "(height, width), the bins per region, or a dml.Size2D")
    return Size2D.model_validate({"Height": value[0], "Width": value[1]})


def roi_pooling(x: Expression, rois: Expression, spatial_scale: float, pooled_size: Any) -> Expression:
    """DML_OPERATOR_ROI_POOLING: each region [BatchID, x1, y1, x2, y2] of ``rois`` {1, 1, NumROIs, 5} (corners
    scaled by ``spatial_scale`` and rounded) split into ``pooled_size`` (height, width) bins of ``x`` {N, C, H, W},
    each output element the largest of its bin (ONNX MaxRoiPool)."""
    where = "dml.graph.roi_pooling"
    x, rois = operand(x, where, "x"), operand(rois, where, "rois")
    inputs = {"input_tensor": x, "roi_tensor": rois}
    pooled = _size_2d(pooled_size, where)
    return operator_node(RoiPoolingOperatorDesc, inputs, spatial_scale=spatial_scale, pooled_size=pooled)


def roi_align(
    x: Expression,
    rois: Expression,
    batch_indices: Expression,
    reduction_function: ReduceFunction | str | int = ReduceFunction.AVERAGE,
    interpolation_mode: InterpolationMode | str | int = InterpolationMode.LINEAR,
    spatial_scale_x: float = 1.0,
    spatial_scale_y: float = 1.0,
    input_pixel_offset: float = 0.5,
    output_pixel_offset: float = -0.5,
    out_of_bounds_input_value: float = 0.0,
    minimum_samples_per_output: int = 1,
    maximum_samples_per_output: int = ADAPTIVE_MAXIMUM,
    align_regions_to_corners: bool = False,
    output_height: int = 1,
    output_width: int = 1,
) -> Expression:
    """DML_OPERATOR_ROI_ALIGN1: each region [x1, y1, x2, y2] of ``rois`` ({NumROIs, 4}, {1, NumROIs, 4} or {1, 1,
    NumROIs, 4}) of batch ``batch_indices`` (UINT32 or UINT64, one per region) cropped from ``x`` {N, C, H, W} and
    resized to ``output_height`` x ``output_width``, each output element ``reduction_function`` (AVERAGE or MAX) of
    its samples (docs/operators/roi.md). The defaults: ROI_ALIGN's pixel centres and bilinear samples, ONNX
    RoiAlign's adaptive sample count."""
    where = "dml.graph.roi_align"
    x, rois = operand(x, where, "x"), operand(rois, where, "rois")
    batch_indices = operand(batch_indices, where, "batch_indices")
    fields = {
        "reduction_function": enum_argument(ReduceFunction, reduction_function, where, "reduction_function"),
        "interpolation_mode": enum_argument(InterpolationMode, interpolation_mode, where, "interpolation_mode"),
        "spatial_scale_x": spatial_scale_x,
        "spatial_scale_y": spatial_scale_y,
        "input_pixel_offset": input_pixel_offset,
        "output_pixel_offset": output_pixel_offset,
        "out_of_bounds_input_value": out_of_bounds_input_value,
        "minimum_samples_per_output": minimum_samples_per_output,
        "maximum_samples_per_output": maximum_samples_per_output,
        "align_regions_to_corners": align_regions_to_corners,
    }
    inputs = {"input_tensor": x, "roi_tensor": rois, "batch_indices_tensor": batch_indices}
    (shape,) = RoiAlign1OperatorDesc.output_shapes({name: e.desc for name, e in inputs.items()}, fields)
    assert shape.sizes is not None and shape.data_type is not None
    for name, size in (("output_height", output_height), ("output_width", output_width)):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise argument_error(where, name, size, "a whole number at least 1: each region is resized to it")
    sizes = (*shape.sizes[:2], output_height, output_width)
    output = BufferTensorDesc(data_type=shape.data_type, sizes=sizes)
    return add_node(RoiAlign1OperatorDesc, inputs, {"output_tensor": output}, fields)[0]
