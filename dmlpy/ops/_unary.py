"""What every unary element-wise operator shares (WebNN's ``Unary`` base plays the same part): an InputTensor,
an OutputTensor of the same type and shape whose strides may differ, in-place execution allowed; and
DML_SCALE_BIAS, which many of them apply to the input first.

A standard unary operator (DirectML's CEIL, FLOOR and most of the family) is a ``UnaryMathDesc`` subclass that
declares its OPERATOR_TYPE, its SUPPORT table and its FUNCTION (a helper of ``opencl/elementwise_ops.h``), and
nothing else: the element-wise template lowers it, alone and fused in graphs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from pydantic import Field

from dmlpy.dtypes import FLOATS, AnyDataType
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels.elementwise import value_type
from dmlpy.model import DmlModel
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.support import SupportRow, SupportTable
from dmlpy.tensor import TensorDesc


def float_literal(value: float) -> str:
    """``value`` rounded to float32 as an exact OpenCL C expression: a hex literal (``0x1.8p+0f``) when finite,
    the float's bits through as_float otherwise (infinities, NaN with its payload)."""
    with np.errstate(over="ignore"):  # beyond float32's range: an infinity, as C's conversion to FLOAT gives
        single = np.float32(value)
    if not math.isfinite(single):
        return f"as_float(0x{int(single.view(np.uint32)):08x}u)"
    mantissa, exponent = float(single).hex().split("p")
    return f"{mantissa.rstrip('0').rstrip('.')}p{exponent}f"  # 0x1.8000000000000p+0 -> 0x1.8p+0f


def register(data_type: AnyDataType) -> str:
    """The OpenCL type the kernel holds ``data_type``'s values in (``float`` for FLOAT32 and FLOAT16, ``int``, ...):
    the suffix of an operator's helpers in ``opencl/elementwise_ops.h`` (``add_float``, ``clip_int``)."""
    held = value_type(data_type)
    assert held is not None, f"{data_type.name} has no register type in the element-wise template"
    return held.register


class ScaleBias(DmlModel):
    """DML_SCALE_BIAS: ``g(x) = x * Scale + Bias``. Both members are C FLOATs: Python floats here, rounded to
    float32 (to nearest) where the kernel uses them, which computes in float."""

    scale: float = Field(alias="Scale")
    """Scale (FLOAT)."""
    bias: float = Field(alias="Bias")
    """Bias (FLOAT)."""

    def applied_to(self, value: str) -> str:
        """``g(value)`` as an OpenCL C expression (elementwise_ops.h's scale_bias) of a float value. Scale and
        Bias are compiled in as exact literals: each ScaleBias value is its own program, as the element-wise
        argument convention (dmlpy/kernels/source.py) has no place for scalars."""
        return f"scale_bias({value}, {float_literal(self.scale)}, {float_literal(self.bias)})"


class UnaryElementWiseDesc(ElementwiseDesc):
    """Base of the DML_ELEMENT_WISE_*_OPERATOR_DESC models with one input and one output."""

    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SUPPORTS_IN_PLACE = True

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: same DataType, DimensionCount and Sizes as InputTensor; Strides may differ."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_output_like_input()

    def check_output_like_input(self) -> None:
        """OutputTensor has InputTensor's DataType, DimensionCount and Sizes."""
        self.check_same(
            ("data_type", "dimension_count", "sizes"),
            "input_tensor",
            ("output_tensor",),
            "; only the strides may differ",
        )


_NO_SCALE_BIAS = frozenset({TensorDataType.FLOAT64, TensorDataType.INT64, TensorDataType.UINT64})
"""Types DirectML applies no ScaleBias to (64-bit; microsoft/DirectML pull request #275: "DirectML doesn't support
ScaleBias for 64 bit types")."""


class ScaledUnaryDesc(UnaryElementWiseDesc):
    """Base of the unary element-wise operators with an optional DML_SCALE_BIAS. Its arithmetic is float (Scale and
    Bias are C FLOATs): an integer input is converted to float (exact up to 2^24 in magnitude), and the float result
    back to the integer type with truncation toward zero and saturation (NaN to 0), Direct3D's conversion: DirectML
    documents no rule for integers."""

    scale_bias: ScaleBias | None = Field(default=None, alias="ScaleBias")
    """ScaleBias (DML_SCALE_BIAS, may be null): applies ``x * Scale + Bias`` to each input element first."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        super().check_operator_rules(level)
        data_type = self.input_tensor.desc.data_type
        if self.scale_bias is not None and data_type in _NO_SCALE_BIAS:
            raise InvalidArgumentError(
                f"{self.operator_name()}.ScaleBias is given with an InputTensor of {data_type}; DirectML applies "
                "ScaleBias to FLOAT32, FLOAT16 and the 8- to 32-bit integers only, never to FLOAT64, INT64 or "
                "UINT64. Set ScaleBias to null"
            )

    def is_float(self) -> bool:
        """Whether the input is FLOAT32 or FLOAT16, whose values the kernel holds as floats."""
        return self.input_tensor.desc.data_type in FLOATS

    def scaled(self, value: str) -> str:
        """``value`` (the input's) through ScaleBias as a float expression: ``x * Scale + Bias``, an integer
        converted to float first."""
        assert self.scale_bias is not None
        return self.scale_bias.applied_to(value if self.is_float() else f"(float){value}")

    def stored(self, expression: str) -> str:
        """A float ``expression`` as the output's value: itself for a float output (the template rounds a FLOAT16
        one to half), converted to an integer output's type as Direct3D converts (TO_INTEGER)."""
        if self.is_float():
            return expression
        return f"TO_INTEGER({register(self.input_tensor.desc.data_type)}, {expression})"

    def describe(self) -> str:
        data_type = self.input_tensor.desc.data_type.name
        if self.scale_bias is None:
            return f"{self.operator_name()} ({data_type})"
        return f"{self.operator_name()} ({data_type}, Scale {self.scale_bias.scale!r}, Bias {self.scale_bias.bias!r})"


class UnaryMathDesc(ScaledUnaryDesc):
    """Base of the unary element-wise operators whose output is FUNCTION of the input, with the optional
    ScaleBias applied to the input first: ``OutputTensor = FUNCTION(InputTensor * Scale + Bias)``, computed in
    float (a FLOAT16 result rounded to the nearest half)."""

    BARE_FORM = False  # their fields are Identity's: a bare descriptor with them stays Identity's
    FUNCTION: ClassVar[str]
    """The helper of ``opencl/elementwise_ops.h`` that computes the function."""

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        if self.scale_bias is not None:
            value = self.scale_bias.applied_to(value)
        return f"{self.FUNCTION}({value})"

    def explain_lines(self) -> list[str]:
        lines = [f"{self.FUNCTION}(x) through the element-wise template (opencl/elementwise_ops.h)"]
        if self.scale_bias is not None:
            sb = self.scale_bias
            lines.insert(0, f"ScaleBias -> x * Scale + Bias in float first, Scale {sb.scale!r}, Bias {sb.bias!r}")
        return lines


def float_math_support(
    operator: OperatorType,
    introduced: FeatureLevel = FeatureLevel.FL_1_0,
    outputs: frozenset[TensorDataType] = FLOATS,
) -> SupportTable:
    """The support table Microsoft's pages give many unary operators of floats (CEIL, FLOOR, ROUND, SQRT, IS_NAN,
    ...): FLOAT32 and FLOAT16 in, ``outputs`` out (the same two by default), exactly 4 dimensions from
    ``introduced`` (DML_FEATURE_LEVEL_1_0 for most, 2_1 for ROUND), 1 to 8 from DML_FEATURE_LEVEL_3_0."""
    types = {"InputTensor": FLOATS, "OutputTensor": outputs}
    return SupportTable(
        operator, rows=(SupportRow(introduced, (4, 4), types), SupportRow(FeatureLevel.FL_3_0, (1, 8), types))
    )
