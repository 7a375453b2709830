"""DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC (FL 6_2): AVERAGE_POOLING1's dilated window over INT8 or
UINT8 values with their scales and zero points. It runs on ``opencl/pooling.cl``'s ``quantized_average_pooling``
(``dmlpy/kernels/pooling.py``): the window's quantized differences summed exactly, requantized once
(docs/operators/pooling.md: the decisions, and where the result is exact).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.pooling import quantized_average_kernel
from dmlpy.model import Bool, UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._pooling import DilatedPoolingDesc, directml_type, window_of
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L, T = FeatureLevel, TensorDataType
_BYTES = frozenset({T.INT8, T.UINT8})

_QUANTIZED_TYPES = {
    "InputTensor": ((4, 5), _BYTES),
    "InputScaleTensor": ((1, 5), frozenset({T.FLOAT32})),
    "InputZeroPointTensor": ((1, 5), _BYTES),
    "OutputScaleTensor": ((1, 5), frozenset({T.FLOAT32})),
    "OutputZeroPointTensor": ((1, 5), _BYTES),
    "OutputTensor": ((4, 5), _BYTES),
}
_PARAMETERS = ("input_scale_tensor", "input_zero_point_tensor", "output_scale_tensor", "output_zero_point_tensor")


class QuantizedLinearAveragePoolingOperatorDesc(DilatedPoolingDesc):
    """DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC: InputTensor dequantized ((x - InputZeroPoint) *
    InputScale), averaged over dilated windows as AVERAGE_POOLING1, and quantized with OutputScale and
    OutputZeroPoint into INT8 or UINT8."""

    OPERATOR_TYPE = OperatorType.QUANTIZED_LINEAR_AVERAGE_POOLING
    BUILDER_NAME = "quantized_linear_average_pooling"  # dmlpy/graph/pooling.py
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"InputZeroPointTensor", "OutputZeroPointTensor"}),
        ((L.FL_6_2, _QUANTIZED_TYPES),),
    )
    INPUTS = ("input_tensor", *_PARAMETERS)
    SAME_DATA_TYPE = (("input_tensor", "input_zero_point_tensor"), ("output_zero_point_tensor", "output_tensor"))
    SAME_DIMENSION_COUNT = (("input_tensor", "output_tensor"),)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, [Depth], Height, Width}, INT8 or UINT8."""
    input_scale_tensor: TensorDesc = Field(alias="InputScaleTensor")
    """InputScaleTensor: InputTensor's scale (FLOAT32), one value or one per channel ({1, ChannelCount, 1, 1})."""
    input_zero_point_tensor: TensorDesc | None = Field(default=None, alias="InputZeroPointTensor")
    """InputZeroPointTensor: InputTensor's zero point, as InputScaleTensor; InputTensor's DataType; null is 0."""
    output_scale_tensor: TensorDesc = Field(alias="OutputScaleTensor")
    """OutputScaleTensor: OutputTensor's scale (FLOAT32), one value or one per channel."""
    output_zero_point_tensor: TensorDesc | None = Field(default=None, alias="OutputZeroPointTensor")
    """OutputZeroPointTensor: OutputTensor's zero point, as OutputScaleTensor; OutputTensor's DataType; null is 0."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the dilated window rule's Sizes, INT8 or UINT8."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor.DimensionCount - 2; sizes the arrays below."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the window's step along each spatial dimension, at least 1."""
    window_size: tuple[UInt32, ...] = Field(alias="WindowSize")
    """WindowSize: the window's elements along each spatial dimension, at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: elements of padding before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: elements of padding after each spatial dimension."""
    dilations: tuple[UInt32, ...] = Field(alias="Dilations")
    """Dilations: the distance between the window's elements along each spatial dimension, at least 1."""
    include_padding: Bool = Field(alias="IncludePadding")
    """IncludePadding (BOOL): whether padding elements count in the average's divisor."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """The dilated window rule's Sizes; OutputZeroPointTensor's DataType, without one INT8 or UINT8 (the
        caller's choice)."""
        (shape,) = super().output_shapes(inputs, fields)
        zero_point = inputs.get("output_zero_point_tensor")
        if zero_point is None:
            return (OutputShape(shape.sizes, None, f"{shape.rule}; DataType INT8 or UINT8, the caller's choice"),)
        rule = f"{shape.rule}; OutputZeroPointTensor's DataType"
        return (OutputShape(shape.sizes, directml_type(zero_point), rule),)

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """pooling.cl's quantized_average_pooling: the scales and zero points read along C (one value: stride 0)."""
        x, y = self.input_tensor.desc, self.output_tensor.desc
        parameters = [getattr(self, field) for field in _PARAMETERS]
        return quantized_average_kernel(
            (directml_type(x), directml_type(y)),
            (x.sizes, x.effective_strides),
            [None if t is None else (t.desc.sizes, t.desc.effective_strides) for t in parameters],
            (y.sizes, y.effective_strides),
            window_of(self),
            bool(self.include_padding),
            profile,
        )

    def check_pooling_rules(self, level: FeatureLevel) -> None:
        channels = self.input_tensor.desc.sizes[1]
        for field in _PARAMETERS:
            self.check_parameter(field, channels, "channel (ChannelCount = InputTensor.Sizes[1])")
