"""DirectML's sign operators: ELEMENT_WISE_ABS (with ScaleBias), ELEMENT_WISE_NEGATE (DML_FEATURE_LEVEL_5_0) and
ELEMENT_WISE_SIGN (2_0) (docs/operators/element_wise_signs.md). Exact for every input: a float's sign bit is
cleared, flipped or read; integers wrap as two's complement does (abs(MIN) and -MIN are MIN); SIGN gives -1, 0
or 1 in the input's type, 0 for -0 and NaN (the page's "otherwise"). The arithmetic: ``opencl/elementwise_ops.h``,
section "signs and clamps".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from dmlpy.dtypes import AnyDataType
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._types import FLOATS, INPUT_OUTPUT, INTEGERS_64, SIGNED_8_32, UNSIGNED_8_32
from dmlpy.ops._unary import ScaledUnaryDesc, UnaryElementWiseDesc, register
from dmlpy.support import SupportTable

T, L = TensorDataType, FeatureLevel


SIGN_BITS: dict[AnyDataType, str] = {T.FLOAT16: "(ushort)0x8000", T.FLOAT32: "0x80000000u"}
"""The sign bit of a FLOAT16's and a FLOAT32's encoding, as ABS_BITS and NEGATE_BITS take it."""


def sign_bit_expression(macro: str, data_type: AnyDataType, value: str | None) -> str | None:
    """``macro`` (ABS_BITS, NEGATE_BITS) on ``value``'s encoding, for a FLOAT16 or FLOAT32 tensor; None for the
    others, whose values are their encodings' already."""
    assert value is not None, "InputTensor is required"
    sign = SIGN_BITS.get(data_type)
    return None if sign is None else f"{macro}({value}, {sign})"


class SignOperatorDesc(UnaryElementWiseDesc):
    """Base of NEGATE and SIGN: ``FUNCTION(InputTensor)`` in the input's type, no ScaleBias."""

    FUNCTION: ClassVar[str]
    """The name of the operator's helpers in ``opencl/elementwise_ops.h``: ``<FUNCTION>_<register type>``."""

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        return f"{self.FUNCTION}_{register(self.input_tensor.desc.data_type)}({value})"

    def explain_lines(self) -> list[str]:
        on_bits = self.bits_expression(["x"])
        if on_bits is not None:
            return [f"{on_bits} on each element's encoding (opencl/elementwise_ops.h), as unsigned integers"]
        helper = f"{self.FUNCTION}_{register(self.input_tensor.desc.data_type)}"
        return [f"{helper}(x) through the element-wise template (opencl/elementwise_ops.h)"]


class ElementWiseAbsOperatorDesc(ScaledUnaryDesc):
    """DML_ELEMENT_WISE_ABS_OPERATOR_DESC: OutputTensor = |InputTensor * Scale + Bias|; without ScaleBias exact in
    the input's type (abs(MIN) wraps to MIN), with it computed in float and converted back (saturating)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ABS
    SUPPORT = SupportTable.same_types(
        OPERATOR_TYPE,
        INPUT_OUTPUT,
        (
            (L.FL_1_0, (4, 4), FLOATS),
            (L.FL_2_1, (4, 4), FLOATS | SIGNED_8_32),
            (L.FL_3_0, (1, 8), FLOATS | SIGNED_8_32),
            (L.FL_4_1, (1, 8), FLOATS | SIGNED_8_32 | {T.INT64}),
        ),
    )
    BUILDER_NAME, ONNX_OPS = "abs", ("Abs",)
    BARE_FORM = False  # its fields are Identity's

    def bits_expression(self, inputs: Sequence[str | None]) -> str | None:
        if self.scale_bias is not None:
            return None
        return sign_bit_expression("ABS_BITS", self.input_tensor.desc.data_type, inputs[0])

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        data_type = self.input_tensor.desc.data_type
        if self.scale_bias is None:
            # Fused, a half's value sits in a float register, which holds no signalling NaN: alone it is exact.
            return None if data_type == T.FLOAT16 else f"abs_{register(data_type)}({value})"
        return self.stored(f"abs_float({self.scaled(value)})")

    def explain_lines(self) -> list[str]:
        if self.scale_bias is not None:
            return ["abs_float(x * Scale + Bias) in float (opencl/elementwise_ops.h), stored in the output's type"]
        on_bits = self.bits_expression(["x"])
        if on_bits is not None:
            return [f"{on_bits} on each element's encoding (opencl/elementwise_ops.h), as unsigned integers"]
        return [f"abs_{register(self.input_tensor.desc.data_type)}(x) (opencl/elementwise_ops.h)"]


class ElementWiseNegateOperatorDesc(SignOperatorDesc):
    """DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC: OutputTensor = -InputTensor (-MIN wraps to MIN)."""

    def bits_expression(self, inputs: Sequence[str | None]) -> str | None:
        return sign_bit_expression("NEGATE_BITS", self.input_tensor.desc.data_type, inputs[0])

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        # Fused, a half's value sits in a float register, which holds no signalling NaN: alone it is exact.
        return None if self.input_tensor.desc.data_type == T.FLOAT16 else super().expression(inputs)

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_NEGATE
    SUPPORT = SupportTable.same_types(
        OPERATOR_TYPE, INPUT_OUTPUT, ((L.FL_5_0, (1, 8), FLOATS | SIGNED_8_32 | {T.INT64}),)
    )
    FUNCTION, BUILDER_NAME, ONNX_OPS = "negate", "negate", ("Neg",)
    BARE_FORM = False


class ElementWiseSignOperatorDesc(SignOperatorDesc):
    """DML_ELEMENT_WISE_SIGN_OPERATOR_DESC: OutputTensor = -1 where InputTensor < 0, 1 where > 0, else 0 (-0 and
    NaN included)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_SIGN
    SUPPORT = SupportTable.same_types(
        OPERATOR_TYPE,
        INPUT_OUTPUT,
        (
            (L.FL_2_0, (4, 4), FLOATS),
            (L.FL_2_1, (4, 4), FLOATS | SIGNED_8_32 | UNSIGNED_8_32),
            (L.FL_3_0, (1, 8), FLOATS | SIGNED_8_32 | UNSIGNED_8_32),
            (L.FL_4_1, (1, 8), FLOATS | SIGNED_8_32 | UNSIGNED_8_32 | INTEGERS_64),
        ),
    )
    FUNCTION, BUILDER_NAME, ONNX_OPS = "sign", "sign", ("Sign",)
    BARE_FORM = False


SIGN_OPERATORS = (ElementWiseAbsOperatorDesc, ElementWiseNegateOperatorDesc, ElementWiseSignOperatorDesc)
"""This module's operators, in the order the operator table lists them."""
