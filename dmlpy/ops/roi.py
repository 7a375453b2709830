"""The regions-of-interest family, from Microsoft's pages: DML_ROI_POOLING_OPERATOR_DESC (FL 1_0, max pooling over
each region, ONNX MaxRoiPool), DML_ROI_ALIGN_OPERATOR_DESC (FL 3_0, ONNX RoiAlign), DML_ROI_ALIGN1_OPERATOR_DESC
(FL 4_0: pixel offsets and AlignRegionsToCorners) and DML_ROI_ALIGN_GRAD_OPERATOR_DESC (FL 4_1, the backward pass of
both ROI_ALIGNs).

Every operator maps NumROIs regions of a {BatchCount, ChannelCount, InputHeight, InputWidth} InputTensor to an
output {NumROIs, ChannelCount, OutputHeight, OutputWidth}: ROI_POOLING's OutputHeight and OutputWidth are PooledSize's,
the ROI_ALIGNs' the caller's (the regions are resized to them). ROI_POOLING's ROITensor is {1, 1, NumROIs, 5}, rows
[BatchID, x1, y1, x2, y2]; the ROI_ALIGNs' is {NumROIs, 4}, {1, NumROIs, 4} or {1, 1, NumROIs, 4}, rows [x1, y1, x2,
y2], with a BatchIndicesTensor {NumROIs} (leading 1s up to 4 dimensions) naming each region's batch.

Left open by the pages and decided here: ReductionFunction takes AVERAGE or MAX only (the pages name no other);
MinimumSamplesPerOutput is at least 1 and at most MaximumSamplesPerOutput (the pages clamp the sample count to
[Minimum, Maximum]; 0 samples would reduce nothing). The region values, the batch indices and the float fields are
data: DirectML leaves values outside [0, BatchCount) undefined and checks none of them, so neither does dmlpy.
ROI_POOLING, ROI_ALIGN and ROI_ALIGN1 run on ``opencl/roi.cl`` (``dmlpy/kernels/roi.py``), one output element at a
time (docs/operators/roi.md: the decisions the pages leave open, the accuracy bound); ROI_ALIGN_GRAD is validated
only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from dmlpy.enums import FeatureLevel, InterpolationMode, OperatorType, ReduceFunction
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.roi import AlignFields, RegionTensors, roi_align_kernel, roi_pooling_kernel
from dmlpy.model import Bool, UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._regions import FOUR, INDICES, ROIS, UINT32, RegionsDesc, align_table, given_sizes, given_type
from dmlpy.ops._types import FLOATS
from dmlpy.ops.size_2d import Size2D
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_HALF_PIXEL = {"input_pixel_offset": 0.5, "output_pixel_offset": -0.5, "align_regions_to_corners": False}
"""ROI_ALIGN's pixel centres, ROI_ALIGN1's fields (the ROI_ALIGN1 page: "the same behavior as ROI_ALIGN")."""


def _tensors(desc: RegionsDesc) -> RegionTensors:
    x, rois, y = (getattr(desc, f).desc for f in ("input_tensor", "roi_tensor", "output_tensor"))
    return RegionTensors(x.sizes, x.effective_strides, rois.effective_strides, y.sizes, y.effective_strides)


class RoiPoolingOperatorDesc(RegionsDesc):
    """DML_ROI_POOLING_OPERATOR_DESC: max pooling over regions of interest. Each region's corners, scaled by
    SpatialScale and rounded, are split into PooledSize.Height x PooledSize.Width bins, each output element the
    largest of its bin (ONNX's MaxRoiPool)."""

    OPERATOR_TYPE = OperatorType.ROI_POOLING
    BUILDER_NAME = "roi_pooling"
    ONNX_OPS = ("MaxRoiPool",)
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset(),
        ((L.FL_1_0, dict.fromkeys(("InputTensor", "ROITensor", "OutputTensor"), (FOUR, FLOATS))),),
    )
    INPUTS = ("input_tensor", "roi_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "roi_tensor", "output_tensor"),)
    ROW = 5

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, InputHeight, InputWidth}."""
    roi_tensor: TensorDesc = Field(alias="ROITensor")
    """ROITensor: {1, 1, NumROIs, 5}, rows [BatchID, x1, y1, x2, y2], inclusive corners (x2 >= x1, y2 >= y1);
    InputTensor's DataType."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {NumROIs, ChannelCount, PooledSize.Height, PooledSize.Width}; InputTensor's DataType."""
    spatial_scale: float = Field(alias="SpatialScale")
    """SpatialScale (FLOAT): multiplies the region corners, from their scale to InputTensor's."""
    pooled_size: Size2D = Field(alias="PooledSize")
    """PooledSize (DML_SIZE_2D): the bins per region, Width and Height; the output's last two Sizes."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """{NumROIs, ChannelCount, PooledSize.Height, PooledSize.Width}; InputTensor's DataType."""
        x, rois, pooled = inputs["input_tensor"], given_sizes(inputs["roi_tensor"]), fields["pooled_size"]
        count, channels = rois[-2] if len(rois) >= 2 else rois[0], given_sizes(x)[1]
        rule = (
            f"{{NumROIs, ChannelCount, PooledSize.Height, PooledSize.Width}}: NumROIs ROITensor.Sizes[2] ({count}), "
            f"ChannelCount InputTensor.Sizes[1] ({channels}), PooledSize.Height {pooled.height}, PooledSize.Width "
            f"{pooled.width}"
        )
        return (OutputShape((count, channels, pooled.height, pooled.width), given_type(x), rule),)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        self.check_regions("{1, 1, NumROIs, 5}")
        for member in ("height", "width"):
            if getattr(self.pooled_size, member) == 0:
                raise InvalidArgumentError(
                    f"{self.operator_name()}.PooledSize.{member.title()} is 0; it must be at least 1: each region is "
                    "split into PooledSize.Height x PooledSize.Width bins, the output's last two Sizes"
                )

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """roi.cl's roi_pooling: each output element the largest of its bin."""
        return roi_pooling_kernel(given_type(self.input_tensor.desc), _tensors(self), self.spatial_scale, profile)


class _AlignDesc(RegionsDesc):
    """ROI_ALIGN and ROI_ALIGN1: InputTensor's regions resized to the output's last two Sizes."""

    INPUTS = ("input_tensor", "roi_tensor", "batch_indices_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "roi_tensor", "output_tensor"),)

    if TYPE_CHECKING:  # both operators' fields, which ``lower`` reads
        input_tensor: TensorDesc
        batch_indices_tensor: TensorDesc
        interpolation_mode: InterpolationMode
        spatial_scale_x: float
        spatial_scale_y: float
        out_of_bounds_input_value: float

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """{NumROIs, ChannelCount, OutputHeight, OutputWidth}, the last two the caller's; InputTensor's DataType."""
        x, rois = inputs["input_tensor"], given_sizes(inputs["roi_tensor"])
        count, channels = rois[-2] if len(rois) >= 2 else rois[0], given_sizes(x)[1]
        rule = (
            f"{{NumROIs, ChannelCount, OutputHeight, OutputWidth}}: NumROIs ROITensor.Sizes[-2] ({count}), "
            f"ChannelCount InputTensor.Sizes[1] ({channels}), OutputHeight and OutputWidth the caller's (any size "
            "above 0: each region is resized to them)"
        )
        return (OutputShape((count, channels, 1, 1), given_type(x), rule, (2, 3)),)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        count = self.check_regions("{NumROIs, 4}, {1, NumROIs, 4} or {1, 1, NumROIs, 4}")
        self.check_batch_indices(count)
        self.check_reduction()
        self.check_samples()

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """roi.cl's roi_align: each output element ReductionFunction of its region's samples."""
        pixels = {name: getattr(self, name, value) for name, value in _HALF_PIXEL.items()}
        fields = AlignFields(
            average=self.reduction_function == ReduceFunction.AVERAGE,
            linear=self.interpolation_mode == InterpolationMode.LINEAR,
            spatial_scale_x=self.spatial_scale_x,
            spatial_scale_y=self.spatial_scale_y,
            input_pixel_offset=pixels["input_pixel_offset"],
            output_pixel_offset=pixels["output_pixel_offset"],
            out_of_bounds_input_value=self.out_of_bounds_input_value,
            minimum_samples=self.minimum_samples_per_output,
            maximum_samples=self.maximum_samples_per_output,
            align_to_corners=bool(pixels["align_regions_to_corners"]),
        )
        indices = self.batch_indices_tensor.desc
        index = (given_type(indices), indices.effective_strides)
        return roi_align_kernel(given_type(self.input_tensor.desc), index, _tensors(self), fields, profile)


class RoiAlignOperatorDesc(_AlignDesc):
    """DML_ROI_ALIGN_OPERATOR_DESC: each region [x1, y1, x2, y2] (scaled by SpatialScaleX, SpatialScaleY) of its
    batch cropped from InputTensor and resized to the output's last two Sizes, each output element ReductionFunction
    of its samples (Mask R-CNN's RoiAlign, ONNX RoiAlign; half-pixel centres: ROI_ALIGN1 with InputPixelOffset 0.5,
    OutputPixelOffset -0.5)."""

    OPERATOR_TYPE = OperatorType.ROI_ALIGN
    SUPPORT = align_table(OPERATOR_TYPE, L.FL_3_0)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, InputHeight, InputWidth}."""
    roi_tensor: TensorDesc = Field(alias="ROITensor")
    """ROITensor: {NumROIs, 4}, {1, NumROIs, 4} or {1, 1, NumROIs, 4}, rows [x1, y1, x2, y2]; InputTensor's
    DataType."""
    batch_indices_tensor: TensorDesc = Field(alias="BatchIndicesTensor")
    """BatchIndicesTensor: {NumROIs} (leading 1s up to 4 dimensions), each region's batch in [0, BatchCount)
    (outside it the result is undefined); UINT32, UINT64 too from FL 5_0."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {NumROIs, ChannelCount, OutputHeight, OutputWidth}, the last two the caller's; InputTensor's
    DataType."""
    reduction_function: ReduceFunction = Field(alias="ReductionFunction")
    """ReductionFunction: AVERAGE or MAX, over the samples of each output element."""
    interpolation_mode: InterpolationMode = Field(alias="InterpolationMode")
    """InterpolationMode: NEAREST_NEIGHBOR, or LINEAR (bilinear: 4 input elements per sample)."""
    spatial_scale_x: float = Field(alias="SpatialScaleX")
    """SpatialScaleX (FLOAT): multiplies x1 and x2 (InputWidth for normalised regions)."""
    spatial_scale_y: float = Field(alias="SpatialScaleY")
    """SpatialScaleY (FLOAT): multiplies y1 and y2 (InputHeight for normalised regions)."""
    out_of_bounds_input_value: float = Field(alias="OutOfBoundsInputValue")
    """OutOfBoundsInputValue (FLOAT): what a sample outside InputTensor reads."""
    minimum_samples_per_output: UInt32 = Field(alias="MinimumSamplesPerOutput")
    """MinimumSamplesPerOutput (UINT): the fewest samples per output element and dimension, at least 1."""
    maximum_samples_per_output: UInt32 = Field(alias="MaximumSamplesPerOutput")
    """MaximumSamplesPerOutput (UINT): the most samples per output element and dimension, at least
    MinimumSamplesPerOutput."""


class RoiAlign1OperatorDesc(_AlignDesc):
    """DML_ROI_ALIGN1_OPERATOR_DESC: ROI_ALIGN with the pixel centres chosen (InputPixelOffset, OutputPixelOffset)
    and AlignRegionsToCorners; empty regions sample one point, inverted ones mirror."""

    OPERATOR_TYPE = OperatorType.ROI_ALIGN1
    BUILDER_NAME = "roi_align"
    ONNX_OPS = ("RoiAlign",)
    SUPPORT = align_table(OPERATOR_TYPE, L.FL_4_0)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, InputHeight, InputWidth}."""
    roi_tensor: TensorDesc = Field(alias="ROITensor")
    """ROITensor: {NumROIs, 4}, {1, NumROIs, 4} or {1, 1, NumROIs, 4}, rows [x1, y1, x2, y2]; InputTensor's
    DataType."""
    batch_indices_tensor: TensorDesc = Field(alias="BatchIndicesTensor")
    """BatchIndicesTensor: {NumROIs} (leading 1s up to 4 dimensions), each region's batch in [0, BatchCount);
    UINT32, UINT64 too from FL 5_0."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {NumROIs, ChannelCount, OutputHeight, OutputWidth}, the last two the caller's; InputTensor's
    DataType."""
    reduction_function: ReduceFunction = Field(alias="ReductionFunction")
    """ReductionFunction: AVERAGE or MAX, over the samples of each output element."""
    interpolation_mode: InterpolationMode = Field(alias="InterpolationMode")
    """InterpolationMode: NEAREST_NEIGHBOR, or LINEAR (bilinear: 4 input elements per sample)."""
    spatial_scale_x: float = Field(alias="SpatialScaleX")
    """SpatialScaleX (FLOAT): multiplies x1 and x2."""
    spatial_scale_y: float = Field(alias="SpatialScaleY")
    """SpatialScaleY (FLOAT): multiplies y1 and y2."""
    input_pixel_offset: float = Field(alias="InputPixelOffset")
    """InputPixelOffset (FLOAT): added to the input coordinates before sampling (0.5: pixel centres, ROI_ALIGN's;
    0: corners)."""
    output_pixel_offset: float = Field(alias="OutputPixelOffset")
    """OutputPixelOffset (FLOAT): added to the output coordinates (-0.5: pixel centres, ROI_ALIGN's; 0: corners)."""
    out_of_bounds_input_value: float = Field(alias="OutOfBoundsInputValue")
    """OutOfBoundsInputValue (FLOAT): what a sample outside InputTensor reads."""
    minimum_samples_per_output: UInt32 = Field(alias="MinimumSamplesPerOutput")
    """MinimumSamplesPerOutput (UINT): the fewest samples per output element and dimension, at least 1."""
    maximum_samples_per_output: UInt32 = Field(alias="MaximumSamplesPerOutput")
    """MaximumSamplesPerOutput (UINT): the most samples per output element and dimension, at least
    MinimumSamplesPerOutput."""
    align_regions_to_corners: Bool = Field(alias="AlignRegionsToCorners")
    """AlignRegionsToCorners (BOOL): whether a region's corner samples lie on its corners (TRUE) or evenly spaced
    within it (FALSE, ROI_ALIGN's)."""


class RoiAlignGradOperatorDesc(RegionsDesc):
    """DML_ROI_ALIGN_GRAD_OPERATOR_DESC: the backward pass of ROI_ALIGN and ROI_ALIGN1. InputGradientTensor has the
    forward output's Sizes; OutputGradientTensor, the gradient of InputTensor, the forward input's (per region, as
    RESAMPLE_GRAD where regions do not overlap); OutputROIGradientTensor, the gradient of ROITensor, ROITensor's."""

    OPERATOR_TYPE = OperatorType.ROI_ALIGN_GRAD
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"InputTensor", "OutputGradientTensor", "OutputROIGradientTensor"}),
        (
            (
                L.FL_4_1,
                {
                    **dict.fromkeys(("InputTensor", "InputGradientTensor", "OutputGradientTensor"), (FOUR, FLOATS)),
                    **dict.fromkeys(("ROITensor", "OutputROIGradientTensor"), (ROIS, FLOATS)),
                    "BatchIndicesTensor": (INDICES, UINT32),
                },
            ),
        ),
    )
    INPUTS = ("input_tensor", "input_gradient_tensor", "roi_tensor", "batch_indices_tensor")
    OUTPUTS = ("output_gradient_tensor", "output_roi_gradient_tensor")
    SAME_DATA_TYPE = (
        ("input_tensor", "input_gradient_tensor", "roi_tensor", "output_gradient_tensor", "output_roi_gradient_tensor"),
    )

    input_tensor: TensorDesc | None = Field(default=None, alias="InputTensor")
    """InputTensor (optional): the forward pass's input, {BatchCount, ChannelCount, InputHeight, InputWidth};
    required with OutputROIGradientTensor or under ReductionFunction MAX."""
    input_gradient_tensor: TensorDesc = Field(alias="InputGradientTensor")
    """InputGradientTensor: the gradient of the forward pass's output, {NumROIs, ChannelCount, OutputHeight,
    OutputWidth} (the page leaves it undescribed; its introduction says so)."""
    roi_tensor: TensorDesc = Field(alias="ROITensor")
    """ROITensor: the forward pass's, {NumROIs, 4}, {1, NumROIs, 4} or {1, 1, NumROIs, 4}."""
    batch_indices_tensor: TensorDesc = Field(alias="BatchIndicesTensor")
    """BatchIndicesTensor: the forward pass's, {NumROIs} (leading 1s up to 4 dimensions); UINT32 (the page has no
    FL 5_0 table, unlike ROI_ALIGN's and ROI_ALIGN1's)."""
    output_gradient_tensor: TensorDesc | None = Field(default=None, alias="OutputGradientTensor")
    """OutputGradientTensor (optional): the gradient of InputTensor, its Sizes; at least one of the two outputs."""
    output_roi_gradient_tensor: TensorDesc | None = Field(default=None, alias="OutputROIGradientTensor")
    """OutputROIGradientTensor (optional): the gradient of ROITensor, its Sizes; at least one of the two outputs."""
    reduction_function: ReduceFunction = Field(alias="ReductionFunction")
    """ReductionFunction: the forward pass's, AVERAGE or MAX (MAX needs InputTensor)."""
    interpolation_mode: InterpolationMode = Field(alias="InterpolationMode")
    """InterpolationMode: the forward pass's, NEAREST_NEIGHBOR or LINEAR."""
    spatial_scale_x: float = Field(alias="SpatialScaleX")
    """SpatialScaleX (FLOAT): the forward pass's."""
    spatial_scale_y: float = Field(alias="SpatialScaleY")
    """SpatialScaleY (FLOAT): the forward pass's."""
    input_pixel_offset: float = Field(alias="InputPixelOffset")
    """InputPixelOffset (FLOAT): the forward pass's (ROI_ALIGN1's)."""
    output_pixel_offset: float = Field(alias="OutputPixelOffset")
    """OutputPixelOffset (FLOAT): the forward pass's (ROI_ALIGN1's)."""
    minimum_samples_per_output: UInt32 = Field(alias="MinimumSamplesPerOutput")
    """MinimumSamplesPerOutput (UINT): the forward pass's, at least 1."""
    maximum_samples_per_output: UInt32 = Field(alias="MaximumSamplesPerOutput")
    """MaximumSamplesPerOutput (UINT): the forward pass's, at least MinimumSamplesPerOutput."""
    align_regions_to_corners: Bool = Field(alias="AlignRegionsToCorners")
    """AlignRegionsToCorners (BOOL): the forward pass's (ROI_ALIGN1's)."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """OutputGradientTensor: InputTensor's Sizes (without it, the caller's but ChannelCount, InputGradientTensor's);
        OutputROIGradientTensor: ROITensor's Sizes; both InputGradientTensor's DataType."""
        x, gradient, rois = inputs["input_tensor"], inputs["input_gradient_tensor"], given_sizes(inputs["roi_tensor"])
        data_type = given_type(gradient)
        if x is not None:
            forward = OutputShape(x.sizes, data_type, "InputTensor's Sizes (the forward pass's input)")
        else:
            channels = given_sizes(gradient)[1]
            rule = (
                "the forward pass's input, {BatchCount, ChannelCount, InputHeight, InputWidth}: ChannelCount "
                f"InputGradientTensor.Sizes[1] ({channels}), the others the caller's (no InputTensor gives them)"
            )
            forward = OutputShape((1, channels, 1, 1), data_type, rule, (0, 2, 3))
        return forward, OutputShape(rois, data_type, "ROITensor's Sizes (the gradient of each region's corners)")

    def check_shape_rules(self, level: FeatureLevel) -> None:
        name = self.operator_name()
        if self.output_gradient_tensor is None and self.output_roi_gradient_tensor is None:
            raise InvalidArgumentError(
                f"{name}.OutputGradientTensor and OutputROIGradientTensor are both null; at least one must be given "
                "(the page: either may be omitted if only the other is needed)"
            )
        if self.input_tensor is None and self.output_roi_gradient_tensor is not None:
            raise InvalidArgumentError(
                f"{name}.InputTensor is null; it is required when OutputROIGradientTensor is given (the page: the "
                "gradient of the regions reads the forward input)"
            )
        if self.input_tensor is None and self.reduction_function == ReduceFunction.MAX:
            raise InvalidArgumentError(
                f"{name}.InputTensor is null; it is required when ReductionFunction is DML_REDUCE_FUNCTION_MAX (the "
                "page: the maximum's sample is found in the forward input)"
            )
        count = self.check_regions("{NumROIs, 4}, {1, NumROIs, 4} or {1, 1, NumROIs, 4}")
        self.check_batch_indices(count)
        channels = None if self.input_tensor is None else self.input_tensor.desc.sizes[1]
        self.check_per_region("input_gradient_tensor", count, channels)
        self.check_reduction()
        self.check_samples()


ROI_OPERATORS = (RoiPoolingOperatorDesc, RoiAlignOperatorDesc, RoiAlign1OperatorDesc, RoiAlignGradOperatorDesc)
"""The regions-of-interest operators, by OperatorType value."""
