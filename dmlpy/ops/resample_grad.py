"""DML_RESAMPLE_GRAD_OPERATOR_DESC (FL 3_0) and DML_RESAMPLE_GRAD1_OPERATOR_DESC (FL 5_1), from Microsoft's pages
(docs/operators/resample.md): the backward passes of RESAMPLE1 and RESAMPLE2.

InputGradientTensor has the forward pass's OutputTensor Sizes, OutputGradientTensor the forward pass's InputTensor
Sizes; each element of OutputGradientTensor sums the weighted contributions of the InputGradientTensor elements it
produced in the forward pass (RESAMPLE_GRAD's example: NEAREST_NEIGHBOR, width x1.5, height x0.5, [4, 5, 6] ->
[[9, 6], [0, 0]]). The fields are the forward operator's; DimensionCount is the tensors' DimensionCount. As forward,
the Scales need not be the Sizes' ratio, so OutputGradientTensor's Sizes are the caller's (the forward input's).
dmlpy validates them and does not run them yet.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from dmlpy.enums import AxisDirection, FeatureLevel, InterpolationMode, OperatorType
from dmlpy.model import UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._reshaping import table
from dmlpy.ops._types import FLOATS
from dmlpy.ops.resample import OFFSET_ARRAYS, ScaledDesc
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_GRADIENTS = ("InputGradientTensor", "OutputGradientTensor")


class _GradientDesc(ScaledDesc):
    """RESAMPLE_GRAD and RESAMPLE_GRAD1: the forward output's gradient in, the forward input's out."""

    INPUTS = ("input_gradient_tensor",)
    OUTPUTS = ("output_gradient_tensor",)
    SAME_DATA_TYPE = (("input_gradient_tensor", "output_gradient_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"dimension_count": OFFSET_ARRAYS}
    COUNTED_BY = "input_gradient_tensor"

    input_gradient_tensor: TensorDesc = Field(alias="InputGradientTensor")
    """InputGradientTensor: the incoming gradient, the forward pass's OutputTensor Sizes."""
    output_gradient_tensor: TensorDesc = Field(alias="OutputGradientTensor")
    """OutputGradientTensor: the forward pass's InputTensor Sizes (the caller's), InputGradientTensor's DataType and
    DimensionCount."""
    interpolation_mode: InterpolationMode = Field(alias="InterpolationMode")
    """InterpolationMode: the forward pass's."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """The forward pass's InputTensor Sizes, the caller's; InputGradientTensor's DataType."""
        gradient = inputs["input_gradient_tensor"]
        assert gradient is not None
        rule = (
            "OutputGradientTensor.Sizes are the caller's, the forward pass's InputTensor Sizes, with "
            "InputGradientTensor's DimensionCount and DataType: the Scales need not be InputGradientTensor.Sizes[i] / "
            "OutputGradientTensor.Sizes[i] (the forward pass crops or edge-clamps)"
        )
        return (OutputShape(None, gradient.data_type, rule),)  # type: ignore[arg-type]


class ResampleGradOperatorDesc(_GradientDesc):
    """DML_RESAMPLE_GRAD_OPERATOR_DESC: the backward pass of RESAMPLE1."""

    OPERATOR_TYPE = OperatorType.RESAMPLE_GRAD
    SUPPORT = table(OPERATOR_TYPE, _GRADIENTS, ((L.FL_3_0, (4, 4), FLOATS), (L.FL_5_1, (1, 4), FLOATS)))

    # Left out, it is derived from the arrays (COUNTED_ARRAYS), so after construction it is an int.
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the entries of Scales, InputPixelOffsets and OutputPixelOffsets, the tensors'
    DimensionCount; derived when left out."""
    scales: tuple[float, ...] = Field(alias="Scales")
    """Scales (FLOAT): the forward pass's, per dimension."""
    input_pixel_offsets: tuple[float, ...] = Field(alias="InputPixelOffsets")
    """InputPixelOffsets (FLOAT): the forward pass's."""
    output_pixel_offsets: tuple[float, ...] = Field(alias="OutputPixelOffsets")
    """OutputPixelOffsets (FLOAT): the forward pass's."""


class ResampleGrad1OperatorDesc(_GradientDesc):
    """DML_RESAMPLE_GRAD1_OPERATOR_DESC: the backward pass of RESAMPLE2 (RESAMPLE_GRAD with RoundingDirection)."""

    OPERATOR_TYPE = OperatorType.RESAMPLE_GRAD1
    SUPPORT = table(OPERATOR_TYPE, _GRADIENTS, ((L.FL_5_1, (1, 4), FLOATS),))

    rounding_direction: AxisDirection = Field(alias="RoundingDirection")
    """RoundingDirection: the forward pass's (NEAREST_NEIGHBOR: INCREASING rounds up, DECREASING down)."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the entries of the three arrays, the tensors' DimensionCount; derived when left out."""
    scales: tuple[float, ...] = Field(alias="Scales")
    """Scales (FLOAT): the forward pass's, per dimension."""
    input_pixel_offsets: tuple[float, ...] = Field(alias="InputPixelOffsets")
    """InputPixelOffsets (FLOAT): the forward pass's."""
    output_pixel_offsets: tuple[float, ...] = Field(alias="OutputPixelOffsets")
    """OutputPixelOffsets (FLOAT): the forward pass's."""


RESAMPLE_GRAD_OPERATORS = (ResampleGradOperatorDesc, ResampleGrad1OperatorDesc)
"""RESAMPLE_GRAD and RESAMPLE_GRAD1, by OperatorType value."""
