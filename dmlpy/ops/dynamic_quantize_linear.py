"""DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC (DML_FEATURE_LEVEL_4_0; docs/operators/dynamic_quantize_linear.md):
InputTensor quantized to 8 bits with a scale and zero point computed from its own range, ONNX's DynamicQuantizeLinear
(MicrosoftDocs/sdk-api ns-directml-dml_dynamic_quantize_linear_operator_desc.md)::

    OutputScale     = (max(InputTensor) - min(InputTensor)) / (Max - Min)   // UINT8: 0..255; INT8: -128..127
    OutputZeroPoint = Min - min(InputTensor) / OutputScale
    OutputTensor    = clamp(round(InputTensor / OutputScale) + OutputZeroPoint, Min, Max)

Three outputs, none optional: OutputTensor (InputTensor's Sizes, INT8 or UINT8), OutputScaleTensor (FLOAT32) and
OutputZeroPointTensor (OutputTensor's DataType), the last two one element each; all four tensors of one
DimensionCount (1 to 8). The page's formula block also holds two lines copied from a matrix-product page (AValue,
BValue), which dmlpy ignores. dmlpy validates it and does not run it yet.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L, T = FeatureLevel, TensorDataType
_EIGHT_BITS = frozenset({T.INT8, T.UINT8})
_ANY_RANK = (1, 8)


class DynamicQuantizeLinearOperatorDesc(StructuredDesc):
    """DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC: OutputTensor = clamp(round(Input / Scale) + ZeroPoint, Min, Max),
    Scale and ZeroPoint computed from InputTensor's minimum and maximum and written to OutputScaleTensor and
    OutputZeroPointTensor."""

    OPERATOR_TYPE = OperatorType.DYNAMIC_QUANTIZE_LINEAR
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset(),
        (
            (
                L.FL_4_0,
                {
                    "InputTensor": (_ANY_RANK, FLOATS),
                    "OutputTensor": (_ANY_RANK, _EIGHT_BITS),
                    "OutputScaleTensor": (_ANY_RANK, frozenset({T.FLOAT32})),
                    "OutputZeroPointTensor": (_ANY_RANK, _EIGHT_BITS),
                },
            ),
        ),
    )
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor", "output_scale_tensor", "output_zero_point_tensor")
    SAME_DATA_TYPE = (("output_tensor", "output_zero_point_tensor"),)
    SAME_DIMENSION_COUNT = (("input_tensor", "output_tensor", "output_scale_tensor", "output_zero_point_tensor"),)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor (FLOAT32 or FLOAT16): the values to quantize, { InputDimensions[] }."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor (INT8 or UINT8, the caller's choice, which sets Min and Max): the quantized values, InputTensor's
    Sizes."""
    output_scale_tensor: TensorDesc = Field(alias="OutputScaleTensor")
    """OutputScaleTensor (FLOAT32): the scale computed, one element, { 1, ..., 1 } of InputTensor's
    DimensionCount."""
    output_zero_point_tensor: TensorDesc = Field(alias="OutputZeroPointTensor")
    """OutputZeroPointTensor (OutputTensor's DataType): the zero point computed, one element, { 1, ..., 1 } of
    InputTensor's DimensionCount."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        x = inputs["input_tensor"]
        assert x is not None, "InputTensor is required"
        one = (1,) * len(x.sizes)
        one_element = (
            "one element (the page: 'the expected number of elements ... is 1'), in InputTensor's DimensionCount "
            "(the page: the four tensors have the same DimensionCount): { 1, ..., 1 }"
        )
        return (
            OutputShape(x.sizes, None, "InputTensor's Sizes (one quantized value per input value); INT8 or UINT8"),
            OutputShape(one, T.FLOAT32, f"{one_element}, FLOAT32"),
            OutputShape(one, None, f"{one_element}, OutputTensor's DataType"),
        )
