"""The running tallies along an axis: DML_CUMULATIVE_SUMMATION_OPERATOR_DESC (FL 2_1) and
DML_CUMULATIVE_PRODUCT_OPERATOR_DESC (FL 3_1), from Microsoft's pages (MicrosoftDocs/sdk-api
ns-directml-dml_cumulative_summation_operator_desc.md, ..._cumulative_product_...).

Each writes, at every element, the sum (product) of the elements before it along Axis in AxisDirection's order,
itself included or, under HasExclusiveSum (HasExclusiveProduct) TRUE, excluded (the first output is then 0, or 1,
and the whole total is written nowhere). OutputTensor has InputTensor's DataType, DimensionCount and Sizes, and may
alias it (in-place execution). dmlpy runs both (``lower``: opencl/cumulative.cl, one work-item per sequence along
Axis, as ONNX CumSum's reverse and exclusive): float sums compensated, each output within 2u|S| + 2m u^2 sum|x| of
the exact prefix sum of its m elements; float products serial, within (m - 1) u relative; integers modulo 2^width
(docs/operators/reduction.md).

CUMULATIVE_PRODUCT's InputTensor text opens with a sentence copied from a batch-normalization page ("typically the
same tensor that was provided as the InputTensor to DML_BATCH_NORMALIZATION_OPERATOR_DESC"), and its example 4
calls the height axis (index 2) the "second dimension": neither changes a rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from dmlpy.enums import AxisDirection, FeatureLevel, OperatorType, TensorDataType
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.reduction import cumulative_kernel
from dmlpy.model import Bool, UInt32
from dmlpy.ops._axes import check_axis
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS, INPUT_OUTPUT, INTEGERS_32, INTEGERS_64
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_NUMBERS = FLOATS | INTEGERS_32
"""FLOAT32, FLOAT16, INT32, UINT32."""


def _table(operator: OperatorType, first: FeatureLevel) -> SupportTable:
    """Both pages' tables: exactly 4 dimensions from ``first``, 1 to 8 from FL 4_0, the 64-bit integers from 5_0."""
    rows: tuple[tuple[FeatureLevel, tuple[int, int], frozenset[TensorDataType]], ...] = (
        (first, (4, 4), _NUMBERS),
        (L.FL_4_0, (1, 8), _NUMBERS),
        (L.FL_5_0, (1, 8), _NUMBERS | INTEGERS_64),
    )
    return SupportTable.per_tensor(
        operator, frozenset(), tuple((level, dict.fromkeys(INPUT_OUTPUT, (dims, types))) for level, dims, types in rows)
    )


class _CumulativeDesc(StructuredDesc):
    """A running tally along Axis: OutputTensor is InputTensor's DataType, DimensionCount and Sizes."""

    SUPPORTS_IN_PLACE = True  # the pages: OutputTensor may alias InputTensor
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE

    PRODUCT: ClassVar[bool]
    """Whether the tally is a product (CUMULATIVE_PRODUCT), else a sum."""

    if TYPE_CHECKING:
        input_tensor: TensorDesc
        output_tensor: TensorDesc
        axis: int
        axis_direction: AxisDirection

    def exclusive(self) -> bool:
        """HasExclusiveSum or HasExclusiveProduct."""
        raise NotImplementedError

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """cumulative.cl, one work-item per sequence along Axis."""
        source = self.input_tensor.desc
        return cumulative_kernel(
            source.data_type,
            self.PRODUCT,
            self.axis_direction == AxisDirection.DECREASING,
            self.exclusive(),
            source.sizes,
            (source.effective_strides, self.output_tensor.desc.effective_strides),
            self.axis,
            profile,
        )

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor's Sizes and DataType (the page: the same DataType, DimensionCount and Sizes)."""
        return cls.outputs_like(inputs, "input_tensor", "input_tensor")

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.input_tensor.desc.data_type.name}, Axis {self.axis})"

    def check_shape_rules(self, level: FeatureLevel) -> None:
        check_axis(self, "axis", self.axis, self.input_tensor.desc.dimension_count)


class CumulativeSummationOperatorDesc(_CumulativeDesc):
    """DML_CUMULATIVE_SUMMATION_OPERATOR_DESC: the running sum along Axis (ONNX CumSum)."""

    OPERATOR_TYPE = OperatorType.CUMULATIVE_SUMMATION
    BUILDER_NAME = "cumulative_summation"
    ONNX_OPS = ("CumSum",)
    PRODUCT = False
    SUPPORT = _table(OPERATOR_TYPE, L.FL_2_1)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the elements to sum."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DataType and Sizes; it may alias InputTensor."""
    axis: UInt32 = Field(alias="Axis")
    """Axis: the dimension to sum along, less than InputTensor's DimensionCount."""
    axis_direction: AxisDirection = Field(alias="AxisDirection")
    """AxisDirection: INCREASING sums by ascending index, DECREASING by descending index (ONNX CumSum's
    reverse)."""
    has_exclusive_sum: Bool = Field(alias="HasExclusiveSum")
    """HasExclusiveSum (BOOL): TRUE writes the tally before adding the current element (the first output 0, the
    total written nowhere; ONNX CumSum's exclusive), FALSE after."""

    def exclusive(self) -> bool:
        return bool(self.has_exclusive_sum)


class CumulativeProductOperatorDesc(_CumulativeDesc):
    """DML_CUMULATIVE_PRODUCT_OPERATOR_DESC: the running product along Axis."""

    OPERATOR_TYPE = OperatorType.CUMULATIVE_PRODUCT
    BUILDER_NAME = "cumulative_product"
    PRODUCT = True
    SUPPORT = _table(OPERATOR_TYPE, L.FL_3_1)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the elements to multiply."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DataType and Sizes; it may alias InputTensor."""
    axis: UInt32 = Field(alias="Axis")
    """Axis: the dimension to multiply along, less than InputTensor's DimensionCount."""
    axis_direction: AxisDirection = Field(alias="AxisDirection")
    """AxisDirection: INCREASING multiplies by ascending index, DECREASING by descending index."""
    has_exclusive_product: Bool = Field(alias="HasExclusiveProduct")
    """HasExclusiveProduct (BOOL): TRUE writes the tally before multiplying by the current element (the first
    output 1, the total written nowhere), FALSE after."""

    def exclusive(self) -> bool:
        return bool(self.has_exclusive_product)


CUMULATIVE_OPERATORS = (CumulativeSummationOperatorDesc, CumulativeProductOperatorDesc)
"""CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT, in the operator table's order."""
