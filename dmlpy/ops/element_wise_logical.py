"""DirectML's comparisons and logical operators (docs/operators/element_wise_logical.md): LOGICAL_EQUALS,
GREATER_THAN, LESS_THAN (1_0), GREATER_THAN_OR_EQUAL, LESS_THAN_OR_EQUAL (3_0), which compare ATensor with BTensor
(one DataType) into an output of 1 and 0 of its own type (UINT32, or UINT8 from 2_0); and LOGICAL_AND, OR, XOR,
NOT of UINT32 or UINT8 tensors, any nonzero element counting as true. Exact: IEEE 754 comparisons (a NaN compares
false with everything, -0 equals +0), as Direct3D's comparison instructions do. The arithmetic:
``opencl/elementwise_ops.h``, section "comparisons and logic".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._binary import BinaryElementWiseDesc, binary_support
from dmlpy.ops._types import FLOATS, INTEGERS_8_32, INTEGERS_64
from dmlpy.ops._unary import UnaryElementWiseDesc
from dmlpy.support import SupportRow, SupportTable
from dmlpy.tensor import TensorDesc

T, L = TensorDataType, FeatureLevel
TRUTHS = frozenset({T.UINT32, T.UINT8})


class ComparisonDesc(BinaryElementWiseDesc):
    """Base of the comparisons: OutputTensor = 1 where ``A <op> B``, else 0, in the output's own type. Not in place
    (the pages do not allow it, and the output's type is not the inputs')."""

    SUPPORTS_IN_PLACE = False
    BUILDER_OUTPUT_TYPE: ClassVar[TensorDataType | None] = T.UINT8  # DirectMLX's outputDataType default
    FUNCTION: ClassVar[str]
    """The macro of ``opencl/elementwise_ops.h`` that compares two values of one type, giving 1 or 0."""

    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: ATensor's DimensionCount and Sizes; its DataType is its own (UINT32 or UINT8), Strides may
    differ."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_same(
            ("data_type", "dimension_count", "sizes"),
            "a_tensor",
            ("b_tensor",),
            "; ATensor and BTensor have one DataType, DimensionCount and Sizes (0-strides broadcast one of them)",
        )
        self.check_same(
            ("dimension_count", "sizes"),
            "a_tensor",
            ("output_tensor",),
            "; the output holds one 1 or 0 per pair of elements (its DataType is its own, its Strides may differ)",
        )

    def describe(self) -> str:
        a, out = self.a_tensor.desc.data_type.name, self.output_tensor.desc.data_type.name
        return f"{self.operator_name()} ({a} -> {out})"

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        a, b = inputs
        assert a is not None and b is not None, "ATensor and BTensor are required"
        return f"{self.FUNCTION}({a}, {b})"

    def explain_lines(self) -> list[str]:
        out = self.output_tensor.desc.data_type.name
        return [f"{self.FUNCTION}(a, b) through the element-wise template (opencl/elementwise_ops.h), 1 or 0 as {out}"]


def comparison_support(operator: OperatorType, introduced: FeatureLevel) -> SupportTable:
    """A comparison's table: ATensor and BTensor of one type (floats; the 8- to 32-bit integers from 2_1; the
    64-bit ones from 4_1), the output UINT32 (UINT8 too from 2_0); exactly 4 dimensions below 3_0, 1 to 8 from it.
    GREATER_THAN_OR_EQUAL and LESS_THAN_OR_EQUAL arrived at 3_0 with the 3_0 row."""
    rows = [
        (L.FL_1_0, (4, 4), FLOATS, frozenset({T.UINT32})),
        (L.FL_2_0, (4, 4), FLOATS, TRUTHS),
        (L.FL_2_1, (4, 4), FLOATS | INTEGERS_8_32, TRUTHS),
        (L.FL_3_0, (1, 8), FLOATS | INTEGERS_8_32, TRUTHS),
        (L.FL_4_1, (1, 8), FLOATS | INTEGERS_8_32 | INTEGERS_64, TRUTHS),
    ]
    return SupportTable(
        operator,
        rows=tuple(
            SupportRow(level, dimensions, {"ATensor": inputs, "BTensor": inputs, "OutputTensor": outputs})
            for level, dimensions, inputs, outputs in rows
            if level >= introduced
        ),
    )


class ElementWiseLogicalEqualsOperatorDesc(ComparisonDesc):
    """DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC: OutputTensor = 1 where ATensor == BTensor, else 0."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_LOGICAL_EQUALS
    SUPPORT = comparison_support(OPERATOR_TYPE, L.FL_1_0)
    FUNCTION, BUILDER_NAME, ONNX_OPS = "LOGICAL_EQUALS", "equals", ("Equal",)


class ElementWiseLogicalGreaterThanOperatorDesc(ComparisonDesc):
    """DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC: OutputTensor = 1 where ATensor > BTensor, else 0."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_LOGICAL_GREATER_THAN
    SUPPORT = comparison_support(OPERATOR_TYPE, L.FL_1_0)
    FUNCTION, BUILDER_NAME, ONNX_OPS = "LOGICAL_GREATER_THAN", "greater_than", ("Greater",)


class ElementWiseLogicalLessThanOperatorDesc(ComparisonDesc):
    """DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC: OutputTensor = 1 where ATensor < BTensor, else 0."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_LOGICAL_LESS_THAN
    SUPPORT = comparison_support(OPERATOR_TYPE, L.FL_1_0)
    FUNCTION, BUILDER_NAME, ONNX_OPS = "LOGICAL_LESS_THAN", "less_than", ("Less",)


class ElementWiseLogicalGreaterThanOrEqualOperatorDesc(ComparisonDesc):
    """DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL_OPERATOR_DESC: OutputTensor = 1 where ATensor >= BTensor."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL
    SUPPORT = comparison_support(OPERATOR_TYPE, L.FL_3_0)
    FUNCTION, BUILDER_NAME = "LOGICAL_GREATER_THAN_OR_EQUAL", "greater_than_or_equal"
    ONNX_OPS = ("GreaterOrEqual",)


class ElementWiseLogicalLessThanOrEqualOperatorDesc(ComparisonDesc):
    """DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL_OPERATOR_DESC: OutputTensor = 1 where ATensor <= BTensor."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL
    SUPPORT = comparison_support(OPERATOR_TYPE, L.FL_3_0)
    FUNCTION, BUILDER_NAME = "LOGICAL_LESS_THAN_OR_EQUAL", "less_than_or_equal"
    ONNX_OPS = ("LessOrEqual",)


TRUTH_ROWS = ((L.FL_1_0, (4, 4), frozenset({T.UINT32})), (L.FL_2_0, (4, 4), TRUTHS), (L.FL_3_0, (1, 8), TRUTHS))
"""LOGICAL_AND's, OR's, XOR's and NOT's table: every tensor UINT32, or UINT8 from 2_0."""


class LogicDesc(BinaryElementWiseDesc):
    """Base of LOGICAL_AND, OR and XOR: every tensor one type (UINT32 or UINT8), any nonzero element true, the
    output 1 or 0; in place allowed."""

    FUNCTION: ClassVar[str]
    """The macro of ``opencl/elementwise_ops.h`` that combines two truths, giving 1 or 0."""

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        a, b = inputs
        assert a is not None and b is not None, "ATensor and BTensor are required"
        return f"{self.FUNCTION}({a}, {b})"

    def explain_lines(self) -> list[str]:
        return [f"{self.FUNCTION}(a, b) through the element-wise template (opencl/elementwise_ops.h)"]


class ElementWiseLogicalAndOperatorDesc(LogicDesc):
    """DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC: OutputTensor = 1 where ATensor and BTensor are both nonzero."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_LOGICAL_AND
    SUPPORT = binary_support(OPERATOR_TYPE, TRUTH_ROWS)
    FUNCTION, BUILDER_NAME, ONNX_OPS = "LOGICAL_AND", "logical_and", ("And",)


class ElementWiseLogicalOrOperatorDesc(LogicDesc):
    """DML_ELEMENT_WISE_LOGICAL_OR_OPERATOR_DESC: OutputTensor = 1 where ATensor or BTensor is nonzero."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_LOGICAL_OR
    SUPPORT = binary_support(OPERATOR_TYPE, TRUTH_ROWS)
    FUNCTION, BUILDER_NAME, ONNX_OPS = "LOGICAL_OR", "logical_or", ("Or",)


class ElementWiseLogicalXorOperatorDesc(LogicDesc):
    """DML_ELEMENT_WISE_LOGICAL_XOR_OPERATOR_DESC: OutputTensor = 1 where exactly one of ATensor and BTensor is
    nonzero (2 XOR 1 is 0: truths, not bits)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_LOGICAL_XOR
    SUPPORT = binary_support(OPERATOR_TYPE, TRUTH_ROWS)
    FUNCTION, BUILDER_NAME, ONNX_OPS = "LOGICAL_XOR", "logical_xor", ("Xor",)


class ElementWiseLogicalNotOperatorDesc(UnaryElementWiseDesc):
    """DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC: OutputTensor = 1 where InputTensor is 0, else 0."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_LOGICAL_NOT
    SUPPORT = SupportTable.same_types(OPERATOR_TYPE, ("InputTensor", "OutputTensor"), TRUTH_ROWS)
    BUILDER_NAME, ONNX_OPS = "logical_not", ("Not",)
    BARE_FORM = False  # its fields are Identity's

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        return f"LOGICAL_NOT({value})"

    def explain_lines(self) -> list[str]:
        return ["LOGICAL_NOT(x) through the element-wise template (opencl/elementwise_ops.h)"]


LOGICAL_OPERATORS = (
    ElementWiseLogicalEqualsOperatorDesc,
    ElementWiseLogicalGreaterThanOperatorDesc,
    ElementWiseLogicalLessThanOperatorDesc,
    ElementWiseLogicalGreaterThanOrEqualOperatorDesc,
    ElementWiseLogicalLessThanOrEqualOperatorDesc,
    ElementWiseLogicalAndOperatorDesc,
    ElementWiseLogicalOrOperatorDesc,
    ElementWiseLogicalXorOperatorDesc,
    ElementWiseLogicalNotOperatorDesc,
)
"""This module's operators, in the order the operator table lists them."""
