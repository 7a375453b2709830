"""What every binary element-wise operator shares: an ATensor and a BTensor, and an OutputTensor of their DataType,
DimensionCount and Sizes (DirectML broadcasts by Strides: a tensor with 0-strides repeats its values along those
dimensions), in-place execution allowed (the output may alias either input).

A binary arithmetic operator (ADD, MULTIPLY, ...) is a ``BinaryArithmeticDesc`` subclass that declares its
OPERATOR_TYPE, its SUPPORT table and its FUNCTION, the name of its helpers in ``opencl/elementwise_ops.h``
(``add_float``, ``add_int``, ...: one per register type, the arithmetic written once for each kind of number).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops._unary import register
from dmlpy.support import SupportTable, TypesRow
from dmlpy.tensor import TensorDesc


class BinaryElementWiseDesc(ElementwiseDesc):
    """Base of the DML_ELEMENT_WISE_*_OPERATOR_DESC models with inputs ATensor and BTensor and one output."""

    INPUTS = ("a_tensor", "b_tensor")
    OUTPUTS = ("output_tensor",)
    SUPPORTS_IN_PLACE = True

    a_tensor: TensorDesc = Field(alias="ATensor")
    """ATensor."""
    b_tensor: TensorDesc = Field(alias="BTensor")
    """BTensor: ATensor's DataType, DimensionCount and Sizes; 0-strides broadcast it."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: ATensor's DataType, DimensionCount and Sizes; Strides may differ."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_one_type_and_shape()


class BinaryArithmeticDesc(BinaryElementWiseDesc):
    """Base of the binary operators whose output is ``FUNCTION(A, B)`` element by element, in the tensors' own type
    (integers wrap; docs/operators/element_wise_arithmetic.md)."""

    FUNCTION: ClassVar[str]
    """The name of the operator's helpers in ``opencl/elementwise_ops.h``: ``<FUNCTION>_<register type>``."""

    def helper(self) -> str:
        """The helper that computes this descriptor's data type: ``add_float`` for FLOAT32 and FLOAT16."""
        return f"{self.FUNCTION}_{register(self.a_tensor.desc.data_type)}"

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        a, b = inputs
        assert a is not None and b is not None, "ATensor and BTensor are required"
        return f"{self.helper()}({a}, {b})"

    def explain_lines(self) -> list[str]:
        return [f"{self.helper()}(a, b) through the element-wise template (opencl/elementwise_ops.h)"]


def binary_support(operator: OperatorType, rows: tuple[TypesRow, ...]) -> SupportTable:
    """A binary operator's support table: the one set of types for ATensor, BTensor and OutputTensor at each level,
    as every binary arithmetic page gives them."""
    return SupportTable.same_types(operator, ("ATensor", "BTensor", "OutputTensor"), rows)
