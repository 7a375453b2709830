"""The clamps' gradients: ELEMENT_WISE_CLIP_GRAD (DML_FEATURE_LEVEL_3_1, FLOAT Min and Max) and CLIP_GRAD1 (5_0, Min
and Max of MinMaxDataType, DML_SCALAR_UNION values): OutputGradientTensor = 0 where InputTensor <= Min or
InputTensor >= Max, else InputGradientTensor (docs/operators/element_wise_clip.md). Exact: comparisons, an integer
tensor's FLOAT bound compared as the real number it is (``opencl/elementwise_ops.h``, CLIP_GRAD)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import Field

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops._types import FLOATS, INTEGERS_8_32, INTEGERS_64
from dmlpy.ops._unary import float_literal
from dmlpy.ops.element_wise_clip import integer_literal
from dmlpy.ops.scalar_union import ScalarUnion, typed_bounds
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

T, L = TensorDataType, FeatureLevel
TYPES_5_0 = FLOATS | INTEGERS_8_32 | INTEGERS_64
TENSORS = ("InputTensor", "InputGradientTensor", "OutputGradientTensor")


class ClipGradDesc(ElementwiseDesc):
    """Base of the clamps' gradients: the forward input, the incoming gradient, the outgoing gradient, one DataType
    and Sizes; in place allowed (the outgoing gradient may alias the input)."""

    INPUTS = ("input_tensor", "input_gradient_tensor")
    OUTPUTS = ("output_gradient_tensor",)
    SUPPORTS_IN_PLACE = True

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the forward pass's input."""
    input_gradient_tensor: TensorDesc = Field(alias="InputGradientTensor")
    """InputGradientTensor: the incoming gradient; InputTensor's DataType, DimensionCount and Sizes."""
    output_gradient_tensor: TensorDesc = Field(alias="OutputGradientTensor")
    """OutputGradientTensor: InputTensor's DataType, DimensionCount and Sizes; Strides may differ."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_one_type_and_shape()

    def conditions(self, x: str) -> tuple[str, str]:
        """OpenCL C conditions on ``x``: at or below Min, at or above Max."""
        raise NotImplementedError

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        x, gradient = inputs
        assert x is not None and gradient is not None, "InputTensor and InputGradientTensor are required"
        below, above = self.conditions(x)
        return f"CLIP_GRAD({gradient}, {below} || {above})"

    def explain_lines(self) -> list[str]:
        return [f"{self.expression(['x', 'dy'])} (opencl/elementwise_ops.h): 0 at or beyond a bound"]


def integer_conditions(x: str, low: float, high: float, data_type: TensorDataType) -> tuple[str, str]:
    """``x <= low`` and ``x >= high`` for an integer ``x`` of ``data_type`` and real bounds, exactly: x <= floor(low),
    x >= ceil(high), a comparison that no value of the type could change written as the constant it is."""
    info = np.iinfo(np.dtype(DATA_TYPES[data_type].numpy.str))
    lowest, highest = int(info.min), int(info.max)
    if math.isnan(low) or low < lowest:
        below = "0"
    elif low >= highest:
        below = "1"
    else:
        below = f"AT_OR_BELOW({x}, {integer_literal(math.floor(low), data_type)})"
    if math.isnan(high) or high > highest:
        above = "0"
    elif high <= lowest:
        above = "1"
    else:
        above = f"AT_OR_ABOVE({x}, {integer_literal(math.ceil(high), data_type)})"
    return below, above


class ElementWiseClipGradOperatorDesc(ClipGradDesc):
    """DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC: OutputGradientTensor = 0 where InputTensor <= Min or >= Max, else
    InputGradientTensor; Min and Max FLOATs, compared exactly with an integer tensor's values."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_CLIP_GRAD
    SUPPORT = SupportTable.same_types(
        OPERATOR_TYPE, TENSORS, ((L.FL_3_1, (1, 8), FLOATS | INTEGERS_8_32), (L.FL_5_0, (1, 8), TYPES_5_0))
    )
    BUILDER_NAME = "clip_grad"

    min: float = Field(alias="Min")
    """Min (FLOAT): the lower bound, inclusive."""
    max: float = Field(alias="Max")
    """Max (FLOAT): the upper bound, inclusive."""

    def conditions(self, x: str) -> tuple[str, str]:
        data_type = self.input_tensor.desc.data_type
        if data_type in FLOATS:
            return f"AT_OR_BELOW({x}, {float_literal(self.min)})", f"AT_OR_ABOVE({x}, {float_literal(self.max)})"
        with np.errstate(over="ignore"):  # a FLOAT beyond float32's range: an infinity, as C's conversion gives
            low, high = float(np.float32(self.min)), float(np.float32(self.max))
        return integer_conditions(x, low, high, data_type)  # type: ignore[arg-type]  # the table's types


class ElementWiseClipGrad1OperatorDesc(ClipGradDesc):
    """DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC: OutputGradientTensor = 0 where InputTensor <= Min or >= Max, else
    InputGradientTensor; Min and Max of MinMaxDataType (OutputGradientTensor's DataType)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_CLIP_GRAD1
    SUPPORT = SupportTable.same_types(OPERATOR_TYPE, TENSORS, ((L.FL_5_0, (1, 8), TYPES_5_0),))
    BUILDER_NAME = "clip_grad1"

    min_max_data_type: TensorDataType = Field(alias="MinMaxDataType")
    """MinMaxDataType (DML_TENSOR_DATA_TYPE): the type Min and Max are read as; OutputGradientTensor's DataType."""
    min: ScalarUnion = Field(alias="Min")
    """Min (DML_SCALAR_UNION): the lower bound, inclusive, of MinMaxDataType."""
    max: ScalarUnion = Field(alias="Max")
    """Max (DML_SCALAR_UNION): the upper bound, inclusive, of MinMaxDataType."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        super().check_operator_rules(level)
        self.bounds()

    def bounds(self) -> list[float | int]:
        output = ("OutputGradientTensor", self.output_gradient_tensor.desc.data_type)
        return typed_bounds(self.operator_name(), self.min_max_data_type, output, (self.min, self.max))

    def conditions(self, x: str) -> tuple[str, str]:
        low, high = self.bounds()
        data_type = self.input_tensor.desc.data_type
        if data_type in FLOATS:
            return f"AT_OR_BELOW({x}, {float_literal(low)})", f"AT_OR_ABOVE({x}, {float_literal(high)})"
        literal_low, literal_high = integer_literal(int(low), data_type), integer_literal(int(high), data_type)
        return f"AT_OR_BELOW({x}, {literal_low})", f"AT_OR_ABOVE({x}, {literal_high})"


CLIP_GRAD_OPERATORS = (ElementWiseClipGradOperatorDesc, ElementWiseClipGrad1OperatorDesc)
"""This module's operators, in the order the operator table lists them."""
