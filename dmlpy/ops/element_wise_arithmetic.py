"""DirectML's binary arithmetic operators: ADD, SUBTRACT, MULTIPLY, DIVIDE, MIN, MAX, MEAN and DIFFERENCE_SQUARE
(docs/operators/element_wise_arithmetic.md). Each computes ``FUNCTION(A, B)`` element by element in the tensors'
one DataType, in place allowed; 0-strides broadcast an input.

Exact: float results are IEEE 754's correctly rounded ones (DIFFERENCE_SQUARE's two steps each rounded, as its
formula (A - B) * (A - B) reads), integers wrap modulo 2^width; where the pages are silent (a zero divisor, MIN
and MAX of a NaN, MEAN of integers) the choice and its source are in ``opencl/elementwise_ops.h`` and the docs.
"""

from __future__ import annotations

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.ops._binary import BinaryArithmeticDesc, binary_support
from dmlpy.ops._types import FLOATS, INTEGERS_8_16, INTEGERS_32, INTEGERS_64
from dmlpy.support import TypesRow

L = FeatureLevel
ALL_INTEGERS = INTEGERS_8_16 | INTEGERS_32 | INTEGERS_64


def _wrapping_support(dimensions: tuple[int, int]) -> tuple[TypesRow, ...]:
    """ADD's, SUBTRACT's and MULTIPLY's rows: floats from 1_0 (``dimensions``), INT32 and UINT32 from 2_1, 1 to 8
    dimensions from 3_0, the 64-bit integers from 4_1, the 8- and 16-bit ones from 5_1."""
    return (
        (L.FL_1_0, dimensions, FLOATS),
        (L.FL_2_1, dimensions, FLOATS | INTEGERS_32),
        (L.FL_3_0, (1, 8), FLOATS | INTEGERS_32),
        (L.FL_4_1, (1, 8), FLOATS | INTEGERS_32 | INTEGERS_64),
        (L.FL_5_1, (1, 8), FLOATS | ALL_INTEGERS),
    )


def _min_max_support() -> tuple[TypesRow, ...]:
    """MIN's and MAX's rows: floats from 1_0, the 8- to 32-bit integers from 2_1, the 64-bit ones from 5_0."""
    return (
        (L.FL_1_0, (4, 4), FLOATS),
        (L.FL_2_1, (4, 4), FLOATS | INTEGERS_8_16 | INTEGERS_32),
        (L.FL_3_0, (1, 8), FLOATS | INTEGERS_8_16 | INTEGERS_32),
        (L.FL_5_0, (1, 8), FLOATS | ALL_INTEGERS),
    )


class ElementWiseAddOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_ADD_OPERATOR_DESC: OutputTensor = ATensor + BTensor."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ADD
    SUPPORT = binary_support(OPERATOR_TYPE, _wrapping_support((4, 5)))
    FUNCTION, BUILDER_NAME = "add", "add"
    ONNX_OPS = ("Add", "Sum")


class ElementWiseSubtractOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC: OutputTensor = ATensor - BTensor."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_SUBTRACT
    SUPPORT = binary_support(OPERATOR_TYPE, _wrapping_support((4, 4)))
    FUNCTION, BUILDER_NAME = "subtract", "subtract"
    ONNX_OPS = ("Sub",)


class ElementWiseMultiplyOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC: OutputTensor = ATensor * BTensor."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_MULTIPLY
    SUPPORT = binary_support(OPERATOR_TYPE, _wrapping_support((4, 5)))
    FUNCTION, BUILDER_NAME = "multiply", "multiply"
    ONNX_OPS = ("Mul",)


class ElementWiseDivideOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC: OutputTensor = ATensor / BTensor, integers truncated toward zero;
    an integer divided by 0 has all bits set, MIN / -1 wraps to MIN."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_DIVIDE
    SUPPORT = binary_support(
        OPERATOR_TYPE,
        (
            (L.FL_1_0, (4, 4), FLOATS),
            (L.FL_2_1, (4, 4), FLOATS | INTEGERS_32),
            (L.FL_3_0, (1, 8), FLOATS | INTEGERS_32),
            (L.FL_5_1, (1, 8), FLOATS | INTEGERS_8_16 | INTEGERS_32),
            (L.FL_6_0, (1, 8), FLOATS | ALL_INTEGERS),
        ),
    )
    FUNCTION, BUILDER_NAME = "divide", "divide"
    ONNX_OPS = ("Div",)


class ElementWiseMinOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_MIN_OPERATOR_DESC: OutputTensor = the lesser of ATensor and BTensor (D3D's min: a NaN
    gives the other operand; min(-0, +0) is BTensor's +0)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_MIN
    SUPPORT = binary_support(OPERATOR_TYPE, _min_max_support())
    FUNCTION, BUILDER_NAME = "min", "min"
    ONNX_OPS = ("Min",)


class ElementWiseMaxOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_MAX_OPERATOR_DESC: OutputTensor = the greater of ATensor and BTensor (D3D's max: a NaN
    gives the other operand; max(-0, +0) is ATensor's -0)."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_MAX
    SUPPORT = binary_support(OPERATOR_TYPE, _min_max_support())
    FUNCTION, BUILDER_NAME = "max", "max"
    ONNX_OPS = ("Max",)


class ElementWiseMeanOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_MEAN_OPERATOR_DESC: OutputTensor = (ATensor + BTensor) / 2, correctly rounded for floats
    (no overflow of the sum); integers: the exact sum halved toward zero."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_MEAN
    SUPPORT = binary_support(
        OPERATOR_TYPE,
        (
            (L.FL_1_0, (4, 4), FLOATS),
            (L.FL_2_1, (4, 4), FLOATS | INTEGERS_32),
            (L.FL_3_0, (1, 8), FLOATS | INTEGERS_32),
        ),
    )
    FUNCTION, BUILDER_NAME = "mean", "mean"
    ONNX_OPS = ("Mean",)


class ElementWiseDifferenceSquareOperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC: OutputTensor = (ATensor - BTensor) * (ATensor - BTensor),
    each step rounded in float (a FLOAT16 result then once to half) or wrapped in an integer type."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_DIFFERENCE_SQUARE
    SUPPORT = binary_support(OPERATOR_TYPE, ((L.FL_3_1, (1, 8), FLOATS | INTEGERS_32),))
    FUNCTION, BUILDER_NAME = "difference_square", "difference_square"


ARITHMETIC_OPERATORS: tuple[type[BinaryArithmeticDesc], ...] = (
    ElementWiseAddOperatorDesc,
    ElementWiseSubtractOperatorDesc,
    ElementWiseMultiplyOperatorDesc,
    ElementWiseDivideOperatorDesc,
    ElementWiseMinOperatorDesc,
    ElementWiseMaxOperatorDesc,
    ElementWiseMeanOperatorDesc,
    ElementWiseDifferenceSquareOperatorDesc,
)
"""This module's operators, in the order the operator table lists them."""
