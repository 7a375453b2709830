"""DML_UPSAMPLE_2D_OPERATOR_DESC (FL 1_0), DML_RESAMPLE_OPERATOR_DESC (FL 2_0), DML_RESAMPLE1_OPERATOR_DESC (FL 2_1),
DML_RESAMPLE2_OPERATOR_DESC (FL 5_1) and DML_RESAMPLE3_OPERATOR_DESC (FL 6_4), from Microsoft's pages
(docs/operators/resample.md).

UPSAMPLE_2D scales the last two dimensions of a {N, C, [D], H, W} tensor by whole factors: OutputTensor is
{N, C, [D], H * ScaleSize.Height, W * ScaleSize.Width}, and 0 < ScaleSize.Height <= UINT_MAX / H (Width likewise).

The RESAMPLE operators scale every dimension by a FLOAT per dimension (``Scales``; ScaleCount or DimensionCount entries,
the tensors' DimensionCount), with the input and output coordinates related by OutputX = (InputX + InputPixelOffset)
* Scale + OutputPixelOffset (RESAMPLE: offsets 0.5 and -0.5, pixel centres). Their OutputTensor's Sizes are the
caller's: the pages say the Scales need not be OutputSize / InputSize, a scaled input larger than OutputTensor being
cropped and a smaller one having its output edges clamped; floor(InputTensor.Sizes[i] * Scales[i]) is the output
that fits exactly (ONNX's Resize rule for scales), shown in the rule, never required. RESAMPLE2 adds
RoundingDirection (NEAREST_NEIGHBOR's fractional coordinates rounded up or down), RESAMPLE3 Antialiased (LINEAR's
filter widened when downscaling). The pages refuse nothing of the Scales or offsets' values (a Scale of 0 or below is
left undocumented), so dmlpy refuses none.

They run on ``opencl/resample.cl`` (dmlpy/kernels/resample.py): each operator gives its ``ResampleMap`` (UPSAMPLE_2D:
Scales of 1 but the last two dimensions' whole factors, and RESAMPLE's pixel centres), one work-item per run of
output elements, nearest by the operator's rounding or separable linear interpolation in float
(docs/operators/resample.md).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from dmlpy.enums import AxisDirection, FeatureLevel, InterpolationMode, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.resample import ResampleMap, Rounding, resample_kernel
from dmlpy.model import Bool, UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._reshaping import PerDimensionDesc, table
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS
from dmlpy.ops.size_2d import Size2D
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L, T = FeatureLevel, TensorDataType
UINT_MAX = 2**32 - 1
FL_6_2_TYPES = FLOATS | {T.INT8, T.UINT8}
"""The RESAMPLE operators' types from FL 6_2 (the gradients stay FLOAT32 and FLOAT16)."""
_INPUT_OUTPUT = ("InputTensor", "OutputTensor")
OFFSET_ARRAYS = ("scales", "input_pixel_offsets", "output_pixel_offsets")
"""The arrays DimensionCount sizes in RESAMPLE1, RESAMPLE2, RESAMPLE3 and the gradients, in C order."""


def scaled_sizes(sizes: Sequence[int], scales: Sequence[float]) -> tuple[int, ...]:
    """floor(Sizes[i] * Scales[i]) per dimension: the output that a scaled input fills exactly (ONNX's Resize output
    for scales); the RESAMPLE operators take any other Sizes too."""
    return tuple(math.floor(size * scale) for size, scale in zip(sizes, scales, strict=False))


DIRECTED = {AxisDirection.INCREASING: Rounding.UP, AxisDirection.DECREASING: Rounding.DOWN}
"""RoundingDirection as NEAREST_NEIGHBOR's rounding: INCREASING rounds a fractional coordinate up, DECREASING down."""
PIXEL_CENTRES = (0.5, -0.5)
"""RESAMPLE's InputPixelOffset and OutputPixelOffset in every dimension: pixel centres mapped to pixel centres."""


def lowered(desc: Any, mapping: ResampleMap, profile: LaunchProfile) -> LoweredOperator:
    """resample.cl from ``desc``'s InputTensor into its OutputTensor by ``mapping``."""
    source, target = desc.input_tensor.desc, desc.output_tensor.desc
    return resample_kernel(
        source.data_type,
        mapping,
        source.sizes,
        source.effective_strides,
        target.sizes,
        target.effective_strides,
        profile,
    )


def centred(scales: Sequence[float], interpolation: InterpolationMode) -> ResampleMap:
    """``scales`` with RESAMPLE's pixel centres in every dimension."""
    rank = len(scales)
    return ResampleMap(
        tuple(scales),
        (PIXEL_CENTRES[0],) * rank,
        (PIXEL_CENTRES[1],) * rank,
        linear=interpolation == InterpolationMode.LINEAR,
    )


def chosen_rule(output: str, source: str, scales: Sequence[float] | None, sizes: Sequence[int]) -> str:
    """The words of a RESAMPLE output rule: ``output``'s Sizes the caller's, the exact fit shown where Scales are
    known."""
    rule = (
        f"{output}.Sizes are the caller's, with {source}'s DimensionCount and DataType: Scales need not be "
        f"{output}.Sizes[i] / {source}.Sizes[i] (a scaled input larger than {output} is cropped, a smaller one has "
        "its output edges clamped)"
    )
    if scales:
        rule += f"; floor({source}.Sizes[i] * Scales[i]) = {list(scaled_sizes(sizes, scales))} fits exactly"
    return rule


class Upsample2DOperatorDesc(StructuredDesc):
    """DML_UPSAMPLE_2D_OPERATOR_DESC: the last two dimensions (height, width) of a {N, C, [D], H, W} tensor upsampled
    by whole factors; RESAMPLE is the newer, general form."""

    OPERATOR_TYPE = OperatorType.UPSAMPLE_2D
    BUILDER_NAME = "upsample_2d"
    SUPPORT = table(OPERATOR_TYPE, _INPUT_OUTPUT, ((L.FL_1_0, (4, 5), FLOATS),))
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, [Depth], Height, Width}, 4 or 5 dimensions."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {BatchCount, ChannelCount, [Depth], Height * ScaleSize.Height, Width * ScaleSize.Width}."""
    scale_size: Size2D = Field(alias="ScaleSize")
    """ScaleSize (DML_SIZE_2D): the whole factors of Width and Height; 0 < ScaleSize.Height <= UINT_MAX /
    InputTensor's Height, Width likewise."""
    interpolation_mode: InterpolationMode = Field(alias="InterpolationMode")
    """InterpolationMode: NEAREST_NEIGHBOR, or LINEAR (bilinear over Height and Width only, also for 5-D)."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor's Sizes with Height and Width multiplied by ScaleSize's; InputTensor's DataType."""
        x = inputs["input_tensor"]
        assert x is not None
        scale: Size2D | None = fields.get("scale_size")
        rule = (
            "InputTensor's {BatchCount, ChannelCount, [Depth]}, then InputTensor.Sizes[-2] * ScaleSize.Height and "
            "InputTensor.Sizes[-1] * ScaleSize.Width"
        )
        if scale is None:
            return (OutputShape(None, x.data_type, rule),)  # type: ignore[arg-type]
        sizes = (*x.sizes[:-2], x.sizes[-2] * scale.height, x.sizes[-1] * scale.width)
        return (OutputShape(sizes, x.data_type, rule),)  # type: ignore[arg-type]

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """resample.cl with Scales 1 but ScaleSize's Height and Width on the last two dimensions, pixel centres
        (RESAMPLE's offsets, the page's "nearest to the pixel centre"; LINEAR bilinear over those two)."""
        leading = (1.0,) * (self.input_tensor.desc.dimension_count - 2)
        scales = (*leading, float(self.scale_size.height), float(self.scale_size.width))
        return lowered(self, centred(scales, self.interpolation_mode), profile)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """0 < ScaleSize.Height <= UINT_MAX / InputHeight and 0 < ScaleSize.Width <= UINT_MAX / InputWidth."""
        *_, height, width = self.input_tensor.desc.sizes
        for member, scale, size, dimension in (
            ("Height", self.scale_size.height, height, "Height"),
            ("Width", self.scale_size.width, width, "Width"),
        ):
            bound = UINT_MAX // size
            if not 0 < scale <= bound:
                raise InvalidArgumentError(
                    f"{self.operator_name()}.ScaleSize.{member} is {scale}; it must be from 1 to UINT_MAX / "
                    f"InputTensor's {dimension} (4294967295 / {size} = {bound}): the page's 0 < ScaleSize.{member} "
                    f"<= UINT_MAX / Input{dimension}, so that the output's {dimension} is a UINT"
                )


class ScaledDesc(PerDimensionDesc):
    """The RESAMPLE operators and their gradients: a count (ScaleCount or DimensionCount) that is the tensors'
    DimensionCount, and an output whose Sizes are the caller's."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """Sizes of the caller's choice (the pages: Scales need not be OutputSize / InputSize); InputTensor's
        DataType."""
        x = inputs["input_tensor"]
        assert x is not None
        rule = chosen_rule("OutputTensor", "InputTensor", fields.get("scales"), x.sizes)
        return (OutputShape(None, x.data_type, rule),)  # type: ignore[arg-type]

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """The count (ScaleCount or DimensionCount) is the tensors' DimensionCount."""
        self.check_count_is_the_rank()


class _ForwardDesc(ScaledDesc):
    """RESAMPLE1, RESAMPLE2 and RESAMPLE3: InputTensor to OutputTensor, DimensionCount sizing three arrays."""

    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"dimension_count": OFFSET_ARRAYS}

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to resample, 1 to 4 dimensions (4 only below FL 5_1)."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DataType and DimensionCount, Sizes of the caller's choice (cropped or edge-clamped
    where the scaled input does not fill them exactly)."""
    interpolation_mode: InterpolationMode = Field(alias="InterpolationMode")
    """InterpolationMode: NEAREST_NEIGHBOR, or LINEAR (2 nearest per dimension, up to 4 dimensions: 16 taps)."""

    if TYPE_CHECKING:
        # Each subclass declares them, in its struct's C order (RESAMPLE2's RoundingDirection comes first).
        scales: tuple[float, ...]
        input_pixel_offsets: tuple[float, ...]
        output_pixel_offsets: tuple[float, ...]

    def resample_map(self) -> ResampleMap:
        """The map resample.cl runs: the fields' Scales and offsets, NEAREST_NEIGHBOR rounding halves up
        (RESAMPLE1; RESAMPLE2 and RESAMPLE3 override it with RoundingDirection)."""
        linear = self.interpolation_mode == InterpolationMode.LINEAR
        return ResampleMap(self.scales, self.input_pixel_offsets, self.output_pixel_offsets, linear=linear)

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """resample.cl by ``resample_map``."""
        return lowered(self, self.resample_map(), profile)


class ResampleOperatorDesc(ScaledDesc):
    """DML_RESAMPLE_OPERATOR_DESC: every dimension resampled by its Scale, pixel centres mapped to pixel centres
    (RESAMPLE1 with InputPixelOffsets 0.5 and OutputPixelOffsets -0.5)."""

    OPERATOR_TYPE = OperatorType.RESAMPLE
    SUPPORT = table(
        OPERATOR_TYPE,
        _INPUT_OUTPUT,
        ((L.FL_2_0, (4, 4), FLOATS), (L.FL_5_1, (1, 4), FLOATS), (L.FL_6_2, (1, 4), FL_6_2_TYPES)),
    )
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"scale_count": ("scales",)}

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to resample, 4 dimensions (1 to 4 from FL 5_1)."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DataType and DimensionCount, Sizes of the caller's choice."""
    interpolation_mode: InterpolationMode = Field(alias="InterpolationMode")
    """InterpolationMode: NEAREST_NEIGHBOR (the input element nearest the pixel centre) or LINEAR."""
    # Left out, it is derived from Scales (COUNTED_ARRAYS), so after construction it is an int.
    scale_count: UInt32 = Field(default=None, alias="ScaleCount")  # type: ignore[assignment]
    """ScaleCount: the entries of Scales, the tensors' DimensionCount; derived when left out."""
    scales: tuple[float, ...] = Field(alias="Scales")
    """Scales (FLOAT): per dimension, above 1 upsamples, below 1 downsamples; need not be OutputSize / InputSize."""

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """resample.cl with Scales and pixel centres, NEAREST_NEIGHBOR rounding halves up."""
        return lowered(self, centred(self.scales, self.interpolation_mode), profile)


class Resample1OperatorDesc(_ForwardDesc):
    """DML_RESAMPLE1_OPERATOR_DESC: RESAMPLE with pixel offsets per dimension, OutputX = (InputX + InputPixelOffset)
    * Scale + OutputPixelOffset (0.5 and -0.5: RESAMPLE's pixel centres; 0 and 0: pixel corners)."""

    OPERATOR_TYPE = OperatorType.RESAMPLE1
    SUPPORT = table(
        OPERATOR_TYPE,
        _INPUT_OUTPUT,
        ((L.FL_2_1, (4, 4), FLOATS), (L.FL_5_1, (1, 4), FLOATS), (L.FL_6_2, (1, 4), FL_6_2_TYPES)),
    )

    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the entries of Scales, InputPixelOffsets and OutputPixelOffsets, the tensors'
    DimensionCount; derived when left out."""
    scales: tuple[float, ...] = Field(alias="Scales")
    """Scales (FLOAT): per dimension, above 1 upsamples, below 1 downsamples; need not be OutputSize / InputSize."""
    input_pixel_offsets: tuple[float, ...] = Field(alias="InputPixelOffsets")
    """InputPixelOffsets (FLOAT): added to an input coordinate before scaling (0.5: pixel centres)."""
    output_pixel_offsets: tuple[float, ...] = Field(alias="OutputPixelOffsets")
    """OutputPixelOffsets (FLOAT): added after scaling (-0.5: pixel centres)."""


class Resample2OperatorDesc(_ForwardDesc):
    """DML_RESAMPLE2_OPERATOR_DESC: RESAMPLE1 with RoundingDirection, how NEAREST_NEIGHBOR rounds a fractional
    coordinate (LINEAR is unaffected)."""

    OPERATOR_TYPE = OperatorType.RESAMPLE2
    BUILDER_NAME = "resample"
    ONNX_OPS = ("Resize", "Upsample")
    SUPPORT = table(OPERATOR_TYPE, _INPUT_OUTPUT, ((L.FL_5_1, (1, 4), FLOATS), (L.FL_6_2, (1, 4), FL_6_2_TYPES)))

    rounding_direction: AxisDirection = Field(alias="RoundingDirection")
    """RoundingDirection: INCREASING rounds a fractional input coordinate up (ceil), DECREASING down (floor);
    NEAREST_NEIGHBOR only."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the entries of the three arrays, the tensors' DimensionCount; derived when left out."""
    scales: tuple[float, ...] = Field(alias="Scales")
    """Scales (FLOAT): per dimension; need not be OutputSize / InputSize."""
    input_pixel_offsets: tuple[float, ...] = Field(alias="InputPixelOffsets")
    """InputPixelOffsets (FLOAT): added to an input coordinate before scaling."""
    output_pixel_offsets: tuple[float, ...] = Field(alias="OutputPixelOffsets")
    """OutputPixelOffsets (FLOAT): added after scaling."""

    def resample_map(self) -> ResampleMap:
        """RESAMPLE1's map, NEAREST_NEIGHBOR rounding by RoundingDirection."""
        return dataclasses.replace(super().resample_map(), rounding=DIRECTED[self.rounding_direction])


class Resample3OperatorDesc(_ForwardDesc):
    """DML_RESAMPLE3_OPERATOR_DESC: RESAMPLE2 with Antialiased, LINEAR's filter widened by max(1, 1 / Scale) when
    downsampling (FALSE: RESAMPLE2)."""

    OPERATOR_TYPE = OperatorType.RESAMPLE3
    SUPPORT = table(OPERATOR_TYPE, _INPUT_OUTPUT, ((L.FL_6_4, (1, 4), FL_6_2_TYPES),))

    rounding_direction: AxisDirection = Field(alias="RoundingDirection")
    """RoundingDirection: INCREASING rounds a fractional input coordinate up (ceil), DECREASING down (floor);
    NEAREST_NEIGHBOR only."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the entries of the three arrays, the tensors' DimensionCount; derived when left out."""
    scales: tuple[float, ...] = Field(alias="Scales")
    """Scales (FLOAT): per dimension; need not be OutputSize / InputSize."""
    input_pixel_offsets: tuple[float, ...] = Field(alias="InputPixelOffsets")
    """InputPixelOffsets (FLOAT): added to an input coordinate before scaling."""
    output_pixel_offsets: tuple[float, ...] = Field(alias="OutputPixelOffsets")
    """OutputPixelOffsets (FLOAT): added after scaling."""
    antialiased: Bool = Field(alias="Antialiased")
    """Antialiased (BOOL): with LINEAR, when downsampling (the page: 1 / Scale above 2), the filter is stretched by
    max(1, 1 / Scale) so that more input elements contribute; no effect on NEAREST_NEIGHBOR."""

    def resample_map(self) -> ResampleMap:
        """RESAMPLE2's map, LINEAR's filter stretched by max(1, 1 / Scale) where Antialiased."""
        mapping = dataclasses.replace(super().resample_map(), rounding=DIRECTED[self.rounding_direction])
        return dataclasses.replace(mapping, antialiased=bool(self.antialiased))


RESAMPLE_OPERATORS = (
    Upsample2DOperatorDesc,
    ResampleOperatorDesc,
    Resample1OperatorDesc,
    Resample2OperatorDesc,
    Resample3OperatorDesc,
)
"""UPSAMPLE_2D and the forward RESAMPLE operators, by OperatorType value."""
