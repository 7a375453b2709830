"""DirectML's special-value tests: DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC (DML_FEATURE_LEVEL_2_0) and
DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC (2_1, with its DML_IS_INFINITY_MODE) (docs/operators/element_wise_is.md).

Each writes 1 where the FLOAT32 or FLOAT16 input element passes the test and 0 elsewhere, into an integer
OutputTensor of the same Sizes (IS_NAN: UINT32 or UINT8; IS_INFINITY: UINT8). No ScaleBias. The output's DataType
is not the input's, so neither runs in place (the pages allow it for neither). Exact: a comparison decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, IsInfinityMode, OperatorType, TensorDataType
from dmlpy.ops._unary import UnaryElementWiseDesc, float_math_support
from dmlpy.tensor import TensorDesc

T = TensorDataType


class ElementWiseTestDesc(UnaryElementWiseDesc):
    """Base of the special-value tests: OutputTensor = TEST(InputTensor), 1 or 0 in the output's integer type."""

    SUPPORTS_IN_PLACE = False
    BARE_FORM = False  # IS_NAN's fields are Identity's; IS_INFINITY's mode defaults as a zeroed C struct's does
    BUILDER_OUTPUT_TYPE: ClassVar[TensorDataType | None] = T.UINT8  # dml::IsNaN's and dml::IsInfinity's default

    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: same DimensionCount and Sizes as InputTensor; its DataType is its own (an integer type that
    holds 1 and 0), and Strides may differ."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_same(
            ("dimension_count", "sizes"),
            "input_tensor",
            ("output_tensor",),
            "; the output holds one 1 or 0 per input element (its DataType is its own, its Strides may differ)",
        )

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.types()})"

    def types(self) -> str:
        """The input's and the output's DataType, as messages name them: ``FLOAT32 -> UINT8``."""
        return f"{self.input_tensor.desc.data_type.name} -> {self.output_tensor.desc.data_type.name}"

    def test(self) -> str:
        """The macro of ``opencl/elementwise_ops.h`` that tests a float value, giving 1 or 0."""
        raise NotImplementedError

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        return f"{self.test()}({value})"

    def explain_lines(self) -> list[str]:
        output = self.output_tensor.desc.data_type.name
        return [f"{self.test()}(x) through the element-wise template (opencl/elementwise_ops.h), 1 or 0 as {output}"]


class ElementWiseIsNanOperatorDesc(ElementWiseTestDesc):
    """DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC: OutputTensor = 1 where InputTensor is a NaN (any sign and payload,
    quiet or signalling), else 0."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_IS_NAN
    SUPPORT = float_math_support(OPERATOR_TYPE, FeatureLevel.FL_2_0, frozenset({T.UINT32, T.UINT8}))
    BUILDER_NAME, ONNX_OPS = "is_nan", ("IsNaN",)

    def test(self) -> str:
        return "IS_NAN"


class ElementWiseIsInfinityOperatorDesc(ElementWiseTestDesc):
    """DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC: OutputTensor = 1 where InputTensor is an infinity of the sign
    InfinityMode names (either, +infinity only, -infinity only), else 0 (a NaN included)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_IS_INFINITY
    SUPPORT = float_math_support(OPERATOR_TYPE, FeatureLevel.FL_2_1, frozenset({T.UINT8}))
    BUILDER_NAME, ONNX_OPS = "is_infinity", ("IsInf",)

    infinity_mode: IsInfinityMode = Field(default=IsInfinityMode.EITHER, alias="InfinityMode")
    """InfinityMode (DML_IS_INFINITY_MODE): which infinities give 1."""

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.types()}, {self.infinity_mode.name})"

    def test(self) -> str:
        return f"IS_INFINITY_{self.infinity_mode.name}"


TEST_OPERATORS: tuple[type[ElementWiseTestDesc], ...] = (
    ElementWiseIsNanOperatorDesc,
    ElementWiseIsInfinityOperatorDesc,
)
"""This module's operators, in the order the operator table lists them."""
