"""DirectML's powers: DML_ELEMENT_WISE_POW_OPERATOR_DESC (a tensor of exponents) and
DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC (one FLOAT Exponent), both DML_FEATURE_LEVEL_1_0, ScaleBias applied to
the base only (docs/operators/element_wise_pow.md).

Floats: opencl/float_pow.h's pow_float (plain arithmetic, the same bits on every device, 0.92 ULPs measured; C99
Annex F's special cases: a negative base with an integral exponent has a sign by parity, with another exponent NaN,
as the pages say), or OpenCL's pown for an integer ExponentTensor, within the OpenCL specification's bound, 16 float32
ULPs (FLOAT32_ULPS, which pown keeps). Integers (POW from DML_FEATURE_LEVEL_3_0): exact, as the page promises where
base and exponent are both integers, by squaring, wrapping modulo 2^width as MULTIPLY does; a negative exponent is
1 / x^n truncated toward zero (1 for x = 1, +-1 for x = -1, all bits set for x = 0, as an integer DIVIDE by 0
gives, 0 otherwise). An integer base with a float exponent or a ScaleBias is computed in float and converted back as
Direct3D converts (toward zero, saturated, NaN to 0), as the unary operators' ScaleBias on integers is.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops._base import OperatorDescBase
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops._types import FLOATS, INTEGERS_8_32
from dmlpy.ops._unary import ScaleBias, ScaledUnaryDesc, float_literal, float_math_support, register
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

L = FeatureLevel
_TENSORS = ("InputTensor", "ExponentTensor", "OutputTensor")
_POW_SUPPORT = SupportTable.same_types(
    OperatorType.ELEMENT_WISE_POW,
    _TENSORS,
    ((L.FL_1_0, (4, 4), FLOATS), (L.FL_3_0, (1, 8), FLOATS | INTEGERS_8_32)),
)


class ElementWisePowOperatorDesc(ElementwiseDesc):
    """DML_ELEMENT_WISE_POW_OPERATOR_DESC: OutputTensor = pow(InputTensor * Scale + Bias, ExponentTensor)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_POW
    SUPPORT = _POW_SUPPORT
    INPUTS = ("input_tensor", "exponent_tensor")
    OUTPUTS = ("output_tensor",)
    SUPPORTS_IN_PLACE = True  # the page: the output may alias InputTensor
    BUILDER_NAME, ONNX_OPS = "pow", ("Pow",)
    BARE_FORM = False  # Identity's fields are a subset of its own: a bare descriptor with them stays Identity's
    FLOAT32_ULPS = 16  # OpenCL's pown (full profile); pow_float measured 0.92

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the bases."""
    exponent_tensor: TensorDesc = Field(alias="ExponentTensor")
    """ExponentTensor: InputTensor's DimensionCount and Sizes (0-strides broadcast it); InputTensor's DataType before
    DML_FEATURE_LEVEL_3_0, any of the table's from it."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DataType, DimensionCount and Sizes; Strides may differ."""
    scale_bias: ScaleBias | None = Field(default=None, alias="ScaleBias")
    """ScaleBias (DML_SCALE_BIAS, may be null): applies ``x * Scale + Bias`` to each base first."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_same(("data_type", "dimension_count", "sizes"), "input_tensor", ("output_tensor",))
        self.check_same(("dimension_count", "sizes"), "input_tensor", ("exponent_tensor",), "; 0-strides broadcast it")
        base, exponent = self.types()
        if level < L.FL_3_0 and exponent != base:
            raise InvalidArgumentError(
                f"{self.operator_name()}.ExponentTensor.DataType is {exponent.name}; before DML_FEATURE_LEVEL_3_0 it "
                f"must equal InputTensor.DataType ({base.name}): give the exponents as {base.name}, or target "
                "DML_FEATURE_LEVEL_3_0 or later"
            )

    def types(self) -> tuple[TensorDataType, TensorDataType]:
        """The bases' and the exponents' DataType."""
        return TensorDataType(self.input_tensor.desc.data_type), TensorDataType(self.exponent_tensor.desc.data_type)

    def describe(self) -> str:
        base, exponent = self.types()
        return f"{self.operator_name()} ({base.name} ** {exponent.name})"

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        x, exponent = inputs
        assert x is not None and exponent is not None, "InputTensor and ExponentTensor are required"
        base_type, exponent_type = self.types()
        if base_type not in FLOATS and self.scale_bias is None and exponent_type not in FLOATS:
            return f"integer_pow_{register(base_type)}({x}, (long){exponent})"
        base = x if base_type in FLOATS else f"(float){x}"
        if self.scale_bias is not None:
            base = self.scale_bias.applied_to(base)
        power = (
            f"pow_float({base}, {exponent})" if exponent_type in FLOATS else f"pown({base}, pown_exponent({exponent}))"
        )
        return power if base_type in FLOATS else f"TO_INTEGER({register(base_type)}, {power})"

    def explain_lines(self) -> list[str]:
        base, exponent = self.types()
        if base not in FLOATS and self.scale_bias is None and exponent not in FLOATS:
            return ["exact integer power by squaring, wrapping modulo 2^width (opencl/elementwise_ops.h, pow)"]
        how = "pow_float (opencl/float_pow.h)" if exponent in FLOATS else "pown (an integer exponent)"
        lines = [f"{how} in float through the element-wise template (opencl/elementwise_ops.h)"]
        if base not in FLOATS:
            lines.append("the float result back to the integer type toward zero, saturated, NaN to 0 (Direct3D's)")
        return lines


class ElementWiseConstantPowOperatorDesc(ScaledUnaryDesc):
    """DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC: OutputTensor = pow(InputTensor * Scale + Bias, Exponent)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_CONSTANT_POW
    SUPPORT = float_math_support(OPERATOR_TYPE)
    BUILDER_NAME = "constant_pow"
    BARE_FORM = False  # Identity's fields are a subset of its own: a bare descriptor with them stays Identity's
    FLOAT32_ULPS = 16  # OpenCL's pow (full profile)

    exponent: float = Field(alias="Exponent")
    """Exponent (FLOAT): rounded to float32 and compiled in as an exact literal (each value its own program)."""

    def describe(self) -> str:
        return f"{super().describe()[:-1]}, Exponent {self.exponent!r})"

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        if self.scale_bias is not None:
            value = self.scale_bias.applied_to(value)
        return f"pow_float({value}, {float_literal(self.exponent)})"

    def explain_lines(self) -> list[str]:
        exponent = float_literal(self.exponent)
        return [f"pow_float(x, {exponent}) (opencl/float_pow.h) in float through the element-wise template"]


POW_OPERATORS: tuple[type[OperatorDescBase], ...] = (ElementWisePowOperatorDesc, ElementWiseConstantPowOperatorDesc)
"""This module's operators, in the order the operator table lists them."""
