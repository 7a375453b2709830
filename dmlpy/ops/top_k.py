"""The selections along an axis: DML_TOP_K_OPERATOR_DESC (FL 1_0 by the header) and DML_TOP_K1_OPERATOR_DESC (FL
2_1), from Microsoft's pages (MicrosoftDocs/sdk-api ns-directml-dml_top_k_operator_desc.md, ..._top_k1_...).

Each selects K elements of every sequence along Axis of InputTensor (the largest, sorted descending; TOP_K1 under
AxisDirection INCREASING the smallest, sorted ascending) into OutputValueTensor (InputTensor's DataType) and their
indices within the sequence into OutputIndexTensor (UINT32; UINT64 too from FL 5_0). Both outputs have InputTensor's
Sizes but along Axis, where they have K. dmlpy runs both (``lower``: opencl/top_k.cl, one work-item per sequence,
the K best held sorted in the outputs themselves by insertion, O(N) comparisons plus O(K) moves per element that
enters).

Left open by the pages and decided here, following onnx.reference's TopK (np.lexsort): NaN is larger than every
number, NaNs equal to one another (so LARGEST lists them first, by ascending index, and INCREASING last); -0 and +0
are equal (a tie, by ascending index); values are moved bit for bit (NaN payloads kept).

Where the page and the header disagree, and where the page is unclear:

* TOP_K's page says it arrived at DML_FEATURE_LEVEL_2_0 (its Availability and its first table); DirectML.h lists
  DML_OPERATOR_TOP_K (71) among the enumerators of FL 1_0, outside every version guard. dmlpy follows the header:
  the page's first table (4 dimensions, FLOAT32 and FLOAT16, UINT32 indices) holds from FL 1_0.
* Both pages say K must be "greater than 0, but less than" the size of the Axis dimension, which would refuse K
  equal to that size; no example shows it. dmlpy accepts 1 <= K <= the size: K equal to it sorts the whole
  sequence (ONNX TopK, which TOP_K serves, allows it), and "less than" reads as the bound of the selection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from dmlpy.enums import AxisDirection, FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.reduction import top_k_kernel
from dmlpy.model import UInt32
from dmlpy.ops._axes import check_axis, sizes_along
from dmlpy.ops._base import OutputShape
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS, INTEGERS_8_32, INTEGERS_64
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
Dims = tuple[int, int]
_FOUR, _ANY = (4, 4), (1, 8)
_EIGHT = FLOATS | INTEGERS_8_32
_UINT32 = frozenset({TensorDataType.UINT32})
_INDICES_5_0 = frozenset({TensorDataType.UINT32, TensorDataType.UINT64})


def _table(
    operator: OperatorType, *rows: tuple[FeatureLevel, Dims, frozenset[TensorDataType], frozenset[TensorDataType]]
) -> SupportTable:
    """Rows of (level, dimension counts, InputTensor's and OutputValueTensor's types, OutputIndexTensor's)."""
    return SupportTable.per_tensor(
        operator,
        frozenset(),
        tuple(
            (
                level,
                {
                    "InputTensor": (dims, values),
                    "OutputValueTensor": (dims, values),
                    "OutputIndexTensor": (dims, indices),
                },
            )
            for level, dims, values, indices in rows
        ),
    )


_LATER_ROWS = (
    (L.FL_2_1, _FOUR, _EIGHT, _UINT32),
    (L.FL_3_1, _ANY, _EIGHT, _UINT32),
    (L.FL_5_0, _ANY, _EIGHT | INTEGERS_64, _INDICES_5_0),
)


class _TopKDesc(StructuredDesc):
    """The K largest (or smallest) of each sequence along Axis, their values and their indices."""

    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_value_tensor", "output_index_tensor")
    SAME_DATA_TYPE = (("input_tensor", "output_value_tensor"),)
    SAME_DIMENSION_COUNT = (("input_tensor", "output_index_tensor", "output_value_tensor"),)

    if TYPE_CHECKING:
        input_tensor: TensorDesc
        output_value_tensor: TensorDesc
        output_index_tensor: TensorDesc
        axis: int
        k: int

    def largest(self) -> bool:
        """Whether the K largest are selected (sorted descending), else the K smallest (ascending)."""
        return True

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """top_k.cl, one work-item per sequence along Axis."""
        source = self.input_tensor.desc
        return top_k_kernel(
            source.data_type,
            self.output_index_tensor.desc.data_type,
            source.sizes,
            tuple(
                t.desc.effective_strides
                for t in (self.input_tensor, self.output_value_tensor, self.output_index_tensor)
            ),
            self.axis,
            self.k,
            self.largest(),
            profile,
        )

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """Both outputs: InputTensor's Sizes with Sizes[Axis] = K; the values InputTensor's DataType, the indices an
        index type of the table's (UINT32, UINT64 from FL 5_0)."""
        x = inputs["input_tensor"]
        assert x is not None and isinstance(x.data_type, TensorDataType)  # a DirectML operator's tensor
        axis, k = fields["axis"], fields["k"]
        rule = f"InputTensor.Sizes {list(x.sizes)} with Sizes[Axis] = Sizes[{axis}] = K ({k})"
        sizes = sizes_along(x.sizes, axis, k)
        return (OutputShape(sizes, x.data_type, f"{rule}, InputTensor's DataType"), OutputShape(sizes, None, rule))

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.input_tensor.desc.data_type.name}, Axis {self.axis}, K {self.k})"

    def check_shape_rules(self, level: FeatureLevel) -> None:
        sizes = self.input_tensor.desc.sizes
        check_axis(self, "axis", self.axis, len(sizes))
        if not 1 <= self.k <= sizes[self.axis]:
            raise InvalidArgumentError(
                f"{self.operator_name()}.K is {self.k}; it must be from 1 to InputTensor.Sizes[Axis] = "
                f"InputTensor.Sizes[{self.axis}] ({sizes[self.axis]}): K elements are selected from each sequence "
                "along Axis"
            )


class TopKOperatorDesc(_TopKDesc):
    """DML_TOP_K_OPERATOR_DESC: the K largest elements of each sequence along Axis, sorted descending (equal values
    by ascending index), and their indices within the sequence."""

    OPERATOR_TYPE = OperatorType.TOP_K
    SUPPORT = _table(OPERATOR_TYPE, (L.FL_1_0, _FOUR, FLOATS, _UINT32), *_LATER_ROWS)
    """The page's tables, its first (FL 2_0 on the page) from FL 1_0 as the header says."""

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to select from."""
    output_value_tensor: TensorDesc = Field(alias="OutputValueTensor")
    """OutputValueTensor: InputTensor's Sizes but K along Axis, its DataType: the K largest, descending."""
    output_index_tensor: TensorDesc = Field(alias="OutputIndexTensor")
    """OutputIndexTensor: OutputValueTensor's Sizes, UINT32 (or UINT64 from FL 5_0): each value's index within
    its sequence (0 is the sequence's first element)."""
    axis: UInt32 = Field(alias="Axis")
    """Axis: the dimension the sequences run along, less than InputTensor's DimensionCount."""
    k: UInt32 = Field(alias="K")
    """K: how many elements to select from each sequence, 1 to InputTensor.Sizes[Axis]."""


class TopK1OperatorDesc(_TopKDesc):
    """DML_TOP_K1_OPERATOR_DESC: TOP_K with a direction: DECREASING selects the K largest, descending (TOP_K);
    INCREASING the K smallest, ascending. Equal values are listed by ascending index either way."""

    OPERATOR_TYPE = OperatorType.TOP_K1
    BUILDER_NAME = "top_k"
    ONNX_OPS = ("TopK",)
    SUPPORT = _table(OPERATOR_TYPE, *_LATER_ROWS)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to select from."""
    output_value_tensor: TensorDesc = Field(alias="OutputValueTensor")
    """OutputValueTensor: InputTensor's Sizes but K along Axis, its DataType: the K selected, sorted as
    AxisDirection says."""
    output_index_tensor: TensorDesc = Field(alias="OutputIndexTensor")
    """OutputIndexTensor: OutputValueTensor's Sizes, UINT32 (or UINT64 from FL 5_0): each value's index within
    its sequence."""
    axis: UInt32 = Field(alias="Axis")
    """Axis: the dimension the sequences run along, less than InputTensor's DimensionCount."""
    k: UInt32 = Field(alias="K")
    """K: how many elements to select from each sequence, 1 to InputTensor.Sizes[Axis]."""
    axis_direction: AxisDirection = Field(alias="AxisDirection")
    """AxisDirection: INCREASING selects the smallest K in increasing order, DECREASING the largest in decreasing
    order."""

    def largest(self) -> bool:
        return self.axis_direction == AxisDirection.DECREASING


TOP_K_OPERATORS = (TopKOperatorDesc, TopK1OperatorDesc)
"""TOP_K and TOP_K1, in the operator table's order."""
