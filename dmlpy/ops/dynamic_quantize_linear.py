"""DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC (DML_FEATURE_LEVEL_4_0; docs/operators/dynamic_quantize_linear.md):
InputTensor quantized to 8 bits with a scale and zero point computed from its own range, ONNX's DynamicQuantizeLinear
(MicrosoftDocs/sdk-api ns-directml-dml_dynamic_quantize_linear_operator_desc.md)::

    OutputScale     = (max(InputTensor) - min(InputTensor)) / (Max - Min)   // UINT8: 0..255; INT8: -128..127
    OutputZeroPoint = Min - min(InputTensor) / OutputScale
    OutputTensor    = clamp(round(InputTensor / OutputScale) + OutputZeroPoint, Min, Max)

Three outputs, none optional: OutputTensor (InputTensor's Sizes, INT8 or UINT8), OutputScaleTensor (FLOAT32) and
OutputZeroPointTensor (OutputTensor's DataType), the last two one element each; all four tensors of one
DimensionCount (1 to 8). The page's formula block also holds two lines copied from a matrix-product page (AValue,
BValue), which dmlpy ignores.

dmlpy runs it as ONNX's DynamicQuantizeLinear as onnx.reference computes it (the range widened to hold 0; a
constant input's scale 1 / (Max - Min); the zero point and the values rounded halves to even), in four launches
(``plan``, dmlpy/kernels/dynamic_quantize.py): reduce.cl's MIN and MAX over every element, dynamic_quantize.cl's
scale and zero point, the element-wise template's QuantizeLinear. docs/operators/dynamic_quantize_linear.md gives
the decisions and why the results are exact.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, OperatorPlan
from dmlpy.kernels.dynamic_quantize import dynamic_quantize_plan
from dmlpy.kernels.elementwise import load_name
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS
from dmlpy.ops.element_wise_quantize_linear import SATURATE, quantize_expression
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
    BUILDER_NAME = "dynamic_quantize_linear"
    ONNX_OPS = ("DynamicQuantizeLinear",)
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

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """MIN and MAX over every element into temporaries, the scale and zero point from them, then QuantizeLinear
        with those (dmlpy/kernels/dynamic_quantize.py)."""
        output_type = self.output_tensor.desc.data_type
        assert isinstance(output_type, TensorDataType)
        # The quotient in float32 for a FLOAT16 input too (quantize_expression's FLOAT32, not the input's type):
        # the scale is a FLOAT32 tensor, and ONNX divides x by y_scale in float32.
        quantized = quantize_expression(load_name(0), load_name(1), load_name(2), TensorDataType.FLOAT32, output_type)
        return dynamic_quantize_plan(
            self.input_tensor.desc, self.output_tensor.desc, quantized, SATURATE[output_type], profile
        )
