"""DirectML's bit operators (docs/operators/element_wise_bits.md): BIT_AND, BIT_OR, BIT_XOR, BIT_NOT and BIT_COUNT
(DML_FEATURE_LEVEL_3_0; every type from 4_1, floats and signed integers as bit patterns), BIT_SHIFT_LEFT and
BIT_SHIFT_RIGHT (2_1, unsigned types). Each acts on the elements' encodings, so each is exact for every input:
alone, its kernel binds every tensor as the unsigned integer of its width (``bits_expression``), FLOAT64 and NaN
payloads included; fused in a graph it runs on integer registers only (a float tensor's operator keeps a kernel
of its own, as a float register would not hold a half's or a signalling NaN's bits). The arithmetic:
``opencl/elementwise_ops.h``, section "bits".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._binary import BinaryElementWiseDesc, binary_support
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops._types import EVERY_TYPE, FLOATS, UNSIGNED_8_32
from dmlpy.ops._unary import UnaryElementWiseDesc
from dmlpy.support import SupportRow, SupportTable
from dmlpy.tensor import TensorDesc

T, L = TensorDataType, FeatureLevel
ENCODED_FLOATS = FLOATS | {T.FLOAT64}
"""The float types, whose encodings a float register would not hold (a half's, FLOAT64's)."""
BITWISE_ROWS = ((L.FL_3_0, (1, 8), UNSIGNED_8_32), (L.FL_4_1, (1, 8), EVERY_TYPE))
"""BIT_AND's, OR's, XOR's and NOT's table: UINT8 to UINT32 from 3_0, every type from 4_1."""


class BitsDesc(ElementwiseDesc):
    """What the bit operators share: their FUNCTION, a macro of ``opencl/elementwise_ops.h`` on the encodings, and
    fusing only where every tensor is an integer."""

    FUNCTION: ClassVar[str]

    def tensor_types(self) -> list[TensorDataType]:
        raise NotImplementedError

    def call(self, inputs: Sequence[str | None]) -> str:
        assert all(value is not None for value in inputs), "every input is required"
        return f"{self.FUNCTION}({', '.join(str(value) for value in inputs)})"

    def bits_expression(self, inputs: Sequence[str | None]) -> str | None:
        return self.call(inputs)

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        # A float register holds a float's value, not a half's encoding nor a signalling NaN's: fused, a float
        # tensor's bit operator would not see the bits it acts on.
        return None if any(t in ENCODED_FLOATS for t in self.tensor_types()) else self.call(inputs)

    def explain_lines(self) -> list[str]:
        return [f"{self.FUNCTION} on each element's encoding (opencl/elementwise_ops.h), as unsigned integers"]


class BinaryBitsDesc(BitsDesc, BinaryElementWiseDesc):
    """BIT_AND, BIT_OR, BIT_XOR and the shifts: ATensor, BTensor and OutputTensor of one type."""

    def tensor_types(self) -> list[TensorDataType]:
        return [self.a_tensor.desc.data_type]  # type: ignore[list-item]  # the support table's types


class ElementWiseBitAndOperatorDesc(BinaryBitsDesc):
    """DML_ELEMENT_WISE_BIT_AND_OPERATOR_DESC: OutputTensor = ATensor & BTensor, bit by bit."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_BIT_AND
    SUPPORT = binary_support(OPERATOR_TYPE, BITWISE_ROWS)
    FUNCTION, BUILDER_NAME, ONNX_OPS = "BIT_AND", "bit_and", ("BitwiseAnd",)


class ElementWiseBitOrOperatorDesc(BinaryBitsDesc):
    """DML_ELEMENT_WISE_BIT_OR_OPERATOR_DESC: OutputTensor = ATensor | BTensor, bit by bit."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_BIT_OR
    SUPPORT = binary_support(OPERATOR_TYPE, BITWISE_ROWS)
    FUNCTION, BUILDER_NAME, ONNX_OPS = "BIT_OR", "bit_or", ("BitwiseOr",)


class ElementWiseBitXorOperatorDesc(BinaryBitsDesc):
    """DML_ELEMENT_WISE_BIT_XOR_OPERATOR_DESC: OutputTensor = ATensor ^ BTensor, bit by bit."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_BIT_XOR
    SUPPORT = binary_support(OPERATOR_TYPE, BITWISE_ROWS)
    FUNCTION, BUILDER_NAME, ONNX_OPS = "BIT_XOR", "bit_xor", ("BitwiseXor",)


SHIFT_ROWS = (
    (L.FL_2_1, (4, 4), UNSIGNED_8_32),
    (L.FL_3_0, (1, 8), UNSIGNED_8_32),
    (L.FL_4_1, (1, 8), UNSIGNED_8_32 | {T.UINT64}),
)
"""BIT_SHIFT_LEFT's and BIT_SHIFT_RIGHT's table."""


class ElementWiseBitShiftLeftOperatorDesc(BinaryBitsDesc):
    """DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC: OutputTensor = ATensor << BTensor; a count of the element's
    width or more gives 0."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_BIT_SHIFT_LEFT
    SUPPORT = binary_support(OPERATOR_TYPE, SHIFT_ROWS)
    FUNCTION, BUILDER_NAME = "BIT_SHIFT_LEFT", "bit_shift_left"
    ONNX_OPS = ("BitShift",)  # direction LEFT; RIGHT lowers to BIT_SHIFT_RIGHT (dmlpy.onnx.nodes)


class ElementWiseBitShiftRightOperatorDesc(BinaryBitsDesc):
    """DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC: OutputTensor = ATensor >> BTensor, zero-filled; a count of
    the element's width or more gives 0."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_BIT_SHIFT_RIGHT
    SUPPORT = binary_support(OPERATOR_TYPE, SHIFT_ROWS)
    FUNCTION, BUILDER_NAME = "BIT_SHIFT_RIGHT", "bit_shift_right"


class ElementWiseBitNotOperatorDesc(BitsDesc, UnaryElementWiseDesc):
    """DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC: OutputTensor = ~InputTensor, bit by bit."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_BIT_NOT
    SUPPORT = SupportTable.same_types(OPERATOR_TYPE, ("InputTensor", "OutputTensor"), BITWISE_ROWS)
    FUNCTION, BUILDER_NAME, ONNX_OPS = "BIT_NOT", "bit_not", ("BitwiseNot",)
    BARE_FORM = False  # its fields are Identity's

    def tensor_types(self) -> list[TensorDataType]:
        return [self.input_tensor.desc.data_type]  # type: ignore[list-item]


class ElementWiseBitCountOperatorDesc(BitsDesc, UnaryElementWiseDesc):
    """DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC: OutputTensor = the number of 1 bits in InputTensor's encoding, in
    an output of its own type (UINT32 or UINT8)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_BIT_COUNT
    SUPPORT = SupportTable(
        OPERATOR_TYPE,
        rows=tuple(
            SupportRow(level, dimensions, {"InputTensor": types, "OutputTensor": frozenset({T.UINT32, T.UINT8})})
            for level, dimensions, types in BITWISE_ROWS
        ),
    )
    FUNCTION, BUILDER_NAME = "BIT_COUNT", "bit_count"
    BUILDER_OUTPUT_TYPE: ClassVar[TensorDataType | None] = T.UINT8  # DirectMLX's dml::BitCount default
    SUPPORTS_IN_PLACE = False  # the page allows it not, and the output's type is its own
    BARE_FORM = False

    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DimensionCount and Sizes; its DataType is its own (UINT32 or UINT8)."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_same(
            ("dimension_count", "sizes"),
            "input_tensor",
            ("output_tensor",),
            "; the output holds one count per input element (its DataType is its own, its Strides may differ)",
        )

    def tensor_types(self) -> list[TensorDataType]:
        return [self.input_tensor.desc.data_type]  # type: ignore[list-item]


BIT_OPERATORS = (
    ElementWiseBitAndOperatorDesc,
    ElementWiseBitOrOperatorDesc,
    ElementWiseBitXorOperatorDesc,
    ElementWiseBitNotOperatorDesc,
    ElementWiseBitCountOperatorDesc,
    ElementWiseBitShiftLeftOperatorDesc,
    ElementWiseBitShiftRightOperatorDesc,
)
"""This module's operators, in the order the operator table lists them."""
