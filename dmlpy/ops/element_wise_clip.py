"""DirectML's clamps: ELEMENT_WISE_CLIP (FLOAT Min and Max), ELEMENT_WISE_CLIP1 (DML_FEATURE_LEVEL_5_0: Min and Max
as DML_SCALAR_UNION values of MinMaxDataType, exact for every type) and ELEMENT_WISE_THRESHOLD (FLOAT Min), each
with an optional ScaleBias applied first (docs/operators/element_wise_clip.md).

The pages' formulas with DirectML's min and max (D3D's: a NaN operand gives the other one): CLIP
``min(Max, max(Min, x))``, CLIP1 ``max(Min, min(x, Max))``, THRESHOLD ``max(x, Min)``; ``opencl/elementwise_ops.h``,
section "signs and clamps", says what that gives for NaN and for Min > Max. An integer tensor's FLOAT bounds are
converted as Direct3D converts a float to an integer (toward zero, saturated, NaN to 0), which is exact: clamping
commutes with that conversion, as it is monotonic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from pydantic import Field

from dmlpy.dtypes import DATA_TYPES, AnyDataType
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._types import FLOATS, INPUT_OUTPUT, INTEGERS_8_32, INTEGERS_64
from dmlpy.ops._unary import ScaledUnaryDesc, float_literal, register
from dmlpy.ops.scalar_union import ScalarUnion, typed_bounds
from dmlpy.support import SupportTable

T, L = TensorDataType, FeatureLevel


def integer_literal(value: int, data_type: AnyDataType) -> str:
    """``value`` (in ``data_type``'s range) as an exact OpenCL C constant of the type's register: the most negative
    value of a type written ``-(MAX) - 1``, since C has no negative literals."""
    held = register(data_type)
    suffix = {"long": "L", "ulong": "UL", "uint": "u"}.get(held, "")
    if value < 0:
        return f"(({held})(-{-value - 1}{suffix} - 1))"
    return f"(({held}){value}{suffix})"


def integer_bound(value: float, data_type: AnyDataType, lowest: bool) -> int:
    """A FLOAT bound of an integer tensor in the tensor's type: ``float_to_integer``'s, but a NaN bound the type's
    lowest value for a lower bound (``lowest``) or its highest for an upper one, so that it clamps nothing, as D3D's
    min and max pass over a NaN operand on floats and with ScaleBias (where the clamp runs in float)."""
    if math.isnan(value):
        info = np.iinfo(np.dtype(DATA_TYPES[data_type].numpy.str))
        return int(info.min) if lowest else int(info.max)
    return float_to_integer(value, data_type)


def float_to_integer(value: float, data_type: AnyDataType) -> int:
    """A C FLOAT bound (``value`` rounded to float32) as Direct3D converts a float to ``data_type``: toward zero,
    saturated to the type's range, NaN to 0."""
    with np.errstate(over="ignore"):
        single = float(np.float32(value))
    if math.isnan(single):
        return 0
    info = np.iinfo(np.dtype(DATA_TYPES[data_type].numpy.str))
    if math.isinf(single):
        return int(info.max) if single > 0 else int(info.min)
    return max(int(info.min), min(int(info.max), int(single)))


class ClampDesc(ScaledUnaryDesc):
    """Base of the clamps: ``FUNCTION(x, bounds...)`` with ScaleBias first. A float tensor clamps in float; an
    integer one without ScaleBias in its own type, with ScaleBias in float, converted back at the end."""

    BARE_FORM = False
    FUNCTION: ClassVar[str]
    """The helper's name in ``opencl/elementwise_ops.h`` before its type suffix (``clip``: ``clip_float``, ...)."""
    BOUNDS: ClassVar[tuple[str, ...]] = ()
    """The fields holding the bounds, in the helper's order, ``min`` the lower one."""

    def float_bounds(self) -> list[float]:
        """The bounds as C FLOATs (Python floats, rounded to float32 where the kernel reads them)."""
        return [getattr(self, name) for name in self.BOUNDS]

    def integer_bounds(self) -> list[int]:
        """The bounds exact in the integer tensor's type (``integer_bound``)."""
        data_type = self.input_tensor.desc.data_type
        return [integer_bound(getattr(self, name), data_type, name == "min") for name in self.BOUNDS]

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        data_type = self.input_tensor.desc.data_type
        if self.is_float() or self.scale_bias is not None:
            bounds = ", ".join(float_literal(b) for b in self.float_bounds())
            x = value if self.scale_bias is None else self.scaled(value)
            return self.stored(f"{self.FUNCTION}_float({x}, {bounds})")
        bounds = ", ".join(integer_literal(b, data_type) for b in self.integer_bounds())
        return f"{self.FUNCTION}_{register(data_type)}({value}, {bounds})"

    def explain_lines(self) -> list[str]:
        first = self.expression(["x"])
        return [f"{first} through the element-wise template (opencl/elementwise_ops.h)"]


class ElementWiseClipOperatorDesc(ClampDesc):
    """DML_ELEMENT_WISE_CLIP_OPERATOR_DESC: OutputTensor = min(Max, max(Min, InputTensor * Scale + Bias))."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_CLIP
    SUPPORT = SupportTable.same_types(
        OPERATOR_TYPE,
        INPUT_OUTPUT,
        (
            (L.FL_1_0, (4, 4), FLOATS),
            (L.FL_2_1, (4, 4), FLOATS | INTEGERS_8_32),
            (L.FL_3_0, (1, 8), FLOATS | INTEGERS_8_32),
            (L.FL_5_0, (1, 8), FLOATS | INTEGERS_8_32 | INTEGERS_64),
        ),
    )
    FUNCTION, BUILDER_NAME, BOUNDS = "clip", "clip", ("min", "max")

    min: float = Field(alias="Min")
    """Min (FLOAT): the lower bound, converted to an integer tensor's type toward zero."""
    max: float = Field(alias="Max")
    """Max (FLOAT): the upper bound, converted likewise."""


class ElementWiseThresholdOperatorDesc(ClampDesc):
    """DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC: OutputTensor = max(InputTensor * Scale + Bias, Min), a one-sided
    clamp."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_THRESHOLD
    SUPPORT = SupportTable.same_types(
        OPERATOR_TYPE,
        INPUT_OUTPUT,
        (
            (L.FL_1_0, (4, 4), FLOATS),
            (L.FL_2_1, (4, 4), FLOATS | INTEGERS_8_32),
            (L.FL_3_0, (1, 8), FLOATS | INTEGERS_8_32),
        ),
    )
    FUNCTION, BUILDER_NAME, BOUNDS = "threshold", "threshold", ("min",)

    min: float = Field(alias="Min")
    """Min (FLOAT): the lower bound, converted to an integer tensor's type toward zero."""


class ElementWiseClip1OperatorDesc(ClampDesc):
    """DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC: OutputTensor = max(Min, min(InputTensor * Scale + Bias, Max)), Min and
    Max of MinMaxDataType (which must be OutputTensor's DataType), so exact for every type."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_CLIP1
    SUPPORT = SupportTable.same_types(
        OPERATOR_TYPE,
        INPUT_OUTPUT,
        ((L.FL_5_0, (1, 8), FLOATS | INTEGERS_8_32 | INTEGERS_64),),
    )
    FUNCTION, BUILDER_NAME, ONNX_OPS = "clip1", "clip1", ("Clip",)

    min_max_data_type: TensorDataType = Field(alias="MinMaxDataType")
    """MinMaxDataType (DML_TENSOR_DATA_TYPE): the type Min and Max are read as; OutputTensor's DataType."""
    min: ScalarUnion = Field(alias="Min")
    """Min (DML_SCALAR_UNION): the lower bound, of MinMaxDataType."""
    max: ScalarUnion = Field(alias="Max")
    """Max (DML_SCALAR_UNION): the upper bound, of MinMaxDataType."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        super().check_operator_rules(level)
        self.bounds()

    def bounds(self) -> list[float | int]:
        output = ("OutputTensor", self.output_tensor.desc.data_type)
        return typed_bounds(self.operator_name(), self.min_max_data_type, output, (self.min, self.max))

    def float_bounds(self) -> list[float]:
        return [float(b) for b in self.bounds()]

    def integer_bounds(self) -> list[int]:
        return [int(b) for b in self.bounds()]

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        if self.scale_bias is not None and not self.is_float():
            # Typed bounds may hold more than a float does (INT32 beyond 2^24): the scaled value is converted
            # first, then clamped in the tensor's type (the same result, the conversion being monotonic).
            value = inputs[0]
            assert value is not None, "InputTensor is required"
            data_type = self.input_tensor.desc.data_type
            bounds = ", ".join(integer_literal(b, data_type) for b in self.integer_bounds())
            return f"{self.FUNCTION}_{register(data_type)}({self.stored(self.scaled(value))}, {bounds})"
        return super().expression(inputs)


CLIP_OPERATORS = (ElementWiseClipOperatorDesc, ElementWiseClip1OperatorDesc, ElementWiseThresholdOperatorDesc)
"""This module's operators, in the order the operator table lists them."""
