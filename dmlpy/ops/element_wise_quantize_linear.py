"""DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC and DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC
(learn.microsoft.com pages of the same names; directml-spec.md §4). Both structs hold InputTensor,
ScaleTensor, ZeroPointTensor (null allowed from DML_FEATURE_LEVEL_6_2) and OutputTensor, all with the same
DimensionCount and Sizes: per-axis scales and zero points are written as 0-strides.

Quantize:   output = saturate(round_half_to_even(input / scale) + zero_point); the division is a true one.
Dequantize: output = (input - zero_point) * scale; a 32-bit input's difference is exact (in 64 bits), then
            rounded once to float, then multiplied.

``quantize_expression`` and ``dequantize_expression`` write that arithmetic for the kernels, once: FL 6_3's
QUANTIZE and DEQUANTIZE (``dmlpy.ops.quantize``) compute the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import Field

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._base import OutputShape
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.support import SupportRow, SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

T = TensorDataType
_ZERO_POINT = "ZeroPointTensor"

SATURATE = {T.UINT8: "saturate_uchar", T.INT8: "saturate_char", T.UINT4: "saturate_uint4", T.INT4: "saturate_int4"}
"""elementwise_ops.h's clamp of a quantized value into each output type's range."""


def halves_to_even(value: str, scale: str, zero_point: str, half_input: str) -> str:
    """``round(value / scale) + zero_point`` before saturation, halves to even as ONNX and WebNN specify
    (elementwise_ops.h's quantize)."""
    return f"quantize({value}, {scale}, {zero_point}, {half_input})"


Rounded = Callable[[str, str, str, str], str]
"""(value, scale, zero point, half input) -> ``round(value / scale) + zero_point``, in some rounding mode."""


def quantize_expression(
    value: str,
    scale: str,
    zero_point: str | None,
    input_type: TensorDataType,
    output_type: TensorDataType,
    rounded: Rounded = halves_to_even,
) -> str:
    """``saturate(round(value / scale) + zero_point)`` into ``output_type`` for an input of ``input_type``; no
    zero point means 0; ``rounded`` rounds the quotient (halves to even unless an extension says otherwise)."""
    zero = f"(float){zero_point}" if zero_point is not None else "0.0f"
    half_input = "true" if input_type == TensorDataType.FLOAT16 else "false"
    return f"{SATURATE[output_type]}({rounded(f'(float){value}', scale, zero, half_input)})"


def dequantize_expression(value: str, scale: str, zero_point: str | None, input_type: TensorDataType) -> str:
    """``(value - zero_point) * scale`` for an input of ``input_type``; no zero point means 0. A 32-bit input's
    difference is taken in 64 bits, exactly (elementwise_ops.h's dequantize_wide)."""
    if DATA_TYPES[input_type].bits == 32:
        zero = f"(long){zero_point}" if zero_point is not None else "0"
        return f"dequantize_wide((long){value} - {zero}, {scale})"
    zero = f"(float){zero_point}" if zero_point is not None else "0.0f"
    return f"dequantize((float){value}, {scale}, {zero})"


def _rows(
    operator: OperatorType, levels: tuple[tuple[FeatureLevel, tuple[int, int], dict[str, frozenset[T]]], ...]
) -> SupportTable:
    rows = tuple(
        SupportRow(
            level, dims, types, optional=frozenset({_ZERO_POINT}) if level >= FeatureLevel.FL_6_2 else frozenset()
        )
        for level, dims, types in levels
    )
    return SupportTable(operator, rows)


def _types(input_: set[T], scale: set[T], zero_point: set[T], output: set[T]) -> dict[str, frozenset[T]]:
    return {
        "InputTensor": frozenset(input_),
        "ScaleTensor": frozenset(scale),
        _ZERO_POINT: frozenset(zero_point),
        "OutputTensor": frozenset(output),
    }


_Q8 = {T.INT8, T.UINT8}
_QUANTIZE_TYPES_3_0 = _types({T.FLOAT32, T.INT32}, {T.FLOAT32}, _Q8, _Q8)
_QUANTIZE_TYPES_6_0 = _types({T.FLOAT32, T.FLOAT16, T.INT32}, {T.FLOAT32, T.FLOAT16}, _Q8, _Q8)
_INTEGERS = {T.INT8, T.UINT8, T.INT16, T.UINT16, T.INT32, T.UINT32}
_DEQUANTIZE_TYPES_3_0 = _types(_INTEGERS, {T.FLOAT32}, _INTEGERS, {T.FLOAT32})
_DEQUANTIZE_TYPES_6_0 = _types(_INTEGERS, {T.FLOAT32, T.FLOAT16}, _INTEGERS, {T.FLOAT32, T.FLOAT16})


class _LinearQuantizationDesc(ElementwiseDesc):
    """The fields and rules QuantizeLinear and DequantizeLinear share."""

    INPUTS = ("input_tensor", "scale_tensor", "zero_point_tensor")
    OUTPUTS = ("output_tensor",)
    SUPPORTS_IN_PLACE = False
    DEQUANTIZE: ClassVar[bool]
    SAME_TYPE: ClassVar[tuple[tuple[str, str], ...]]
    """(reference, other) tensor fields whose DataType must match."""

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor."""
    scale_tensor: TensorDesc = Field(alias="ScaleTensor")
    """ScaleTensor: same Sizes as InputTensor; 0-strides broadcast a per-tensor or per-axis scale."""
    zero_point_tensor: TensorDesc | None = Field(default=None, alias="ZeroPointTensor")
    """ZeroPointTensor: like ScaleTensor; may be null from DML_FEATURE_LEVEL_6_2 (the zero point is then 0)."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: same Sizes as InputTensor."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """The input's Sizes; the DataType of the input SAME_TYPE pairs with the output (QuantizeLinear's zero
        point, its own choice where that is left out; DequantizeLinear's scale)."""
        (typed,) = (b if a == "output_tensor" else a for a, b in cls.SAME_TYPE if "output_tensor" in (a, b))
        return cls.outputs_like(inputs, "input_tensor", typed)

    def check_operator_rules(self, level: FeatureLevel) -> None:
        others = ("scale_tensor", "zero_point_tensor", "output_tensor")
        self.check_same(("dimension_count", "sizes"), "input_tensor", others)
        for reference, other in self.SAME_TYPE:
            self.check_same(("data_type",), reference, (other,))

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value, scale, zero_point = inputs
        input_type = self.input_tensor.desc.data_type
        assert value is not None and scale is not None and isinstance(input_type, TensorDataType)
        if self.DEQUANTIZE:
            return dequantize_expression(value, scale, zero_point, input_type)
        output_type = self.output_tensor.desc.data_type
        assert isinstance(output_type, TensorDataType)
        return quantize_expression(value, scale, zero_point, input_type, output_type, self.quantized)

    def quantized(self, value: str, scale: str, zero_point: str, half_input: str) -> str:
        """``round(value / scale) + zero_point`` before saturation: QuantizeLinear rounds halves to even."""
        return halves_to_even(value, scale, zero_point, half_input)


class ElementWiseQuantizeLinearOperatorDesc(_LinearQuantizationDesc):
    """DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC: OutputTensor = saturate(round(Input / Scale) + ZeroPoint),
    rounding halves to even."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_QUANTIZE_LINEAR
    BUILDER_NAME: ClassVar[str | None] = "quantize_linear"  # the extension, a subclass, names none
    ONNX_OPS: ClassVar[tuple[str, ...]] = ("QuantizeLinear",)
    SUPPORT = _rows(
        OperatorType.ELEMENT_WISE_QUANTIZE_LINEAR,
        (
            (FeatureLevel.FL_1_0, (4, 4), _types({T.FLOAT32}, {T.FLOAT32}, {T.UINT8}, {T.UINT8})),
            (FeatureLevel.FL_2_1, (4, 4), _QUANTIZE_TYPES_3_0),
            (FeatureLevel.FL_3_0, (1, 8), _QUANTIZE_TYPES_3_0),
            (FeatureLevel.FL_6_0, (1, 8), _QUANTIZE_TYPES_6_0),
            (FeatureLevel.FL_6_2, (1, 8), _QUANTIZE_TYPES_6_0),
        ),
    )
    DEQUANTIZE = False
    SAME_TYPE = (("output_tensor", "zero_point_tensor"),)

    def check_operator_rules(self, level: FeatureLevel) -> None:
        super().check_operator_rules(level)
        input_type, scale_type = self.input_tensor.desc.data_type, self.scale_tensor.desc.data_type
        wanted = TensorDataType.FLOAT32 if input_type == TensorDataType.INT32 else input_type
        if scale_type != wanted:
            raise InvalidArgumentError(
                f"ELEMENT_WISE_QUANTIZE_LINEAR.ScaleTensor.DataType is {scale_type}; with an InputTensor of "
                f"{input_type} it must be {wanted} (an INT32 input takes a FLOAT32 scale, any other input a "
                "scale of its own type)"
            )


class ElementWiseDequantizeLinearOperatorDesc(_LinearQuantizationDesc):
    """DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC: OutputTensor = (Input - ZeroPoint) * Scale."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_DEQUANTIZE_LINEAR
    BUILDER_NAME = "dequantize_linear"
    ONNX_OPS = ("DequantizeLinear",)
    SUPPORT = _rows(
        OperatorType.ELEMENT_WISE_DEQUANTIZE_LINEAR,
        (
            (FeatureLevel.FL_1_0, (4, 4), _types({T.UINT8}, {T.FLOAT32}, {T.UINT8}, {T.FLOAT32})),
            (FeatureLevel.FL_2_1, (4, 4), _DEQUANTIZE_TYPES_3_0),
            (FeatureLevel.FL_3_0, (1, 8), _DEQUANTIZE_TYPES_3_0),
            (FeatureLevel.FL_6_0, (1, 8), _DEQUANTIZE_TYPES_6_0),
            (FeatureLevel.FL_6_2, (1, 8), _DEQUANTIZE_TYPES_6_0),
        ),
    )
    DEQUANTIZE = True
    SAME_TYPE = (("input_tensor", "zero_point_tensor"), ("scale_tensor", "output_tensor"))
