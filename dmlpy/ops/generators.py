"""The generators, from Microsoft's pages: DML_FILL_VALUE_CONSTANT_OPERATOR_DESC and
DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC (FL 2_1), DML_DIAGONAL_MATRIX_OPERATOR_DESC (FL 2_0),
DML_DIAGONAL_MATRIX1_OPERATOR_DESC (FL 5_1) and DML_RANDOM_GENERATOR_OPERATOR_DESC (FL 3_0).

Their outputs take any Sizes the support table allows (an ``OutputShape`` whose Sizes are None: the caller's), but
DIAGONAL_MATRIX1's with an InputTensor (its Sizes) and RANDOM_GENERATOR's OutputStateTensor (InputStateTensor's). A
DML_SCALAR_UNION value is read as ValueDataType, which must be OutputTensor's DataType.

dmlpy runs FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX and DIAGONAL_MATRIX1 (opencl/generators.cl,
through dmlpy/kernels/generators.py); RANDOM_GENERATOR is validated only. Values reach the kernel as the bits of
OutputTensor's type: a DML_SCALAR_UNION's exactly (-0 and NaN payloads included), DIAGONAL_MATRIX's FLOAT Value by
PADDING's rule for a FLOAT field (an integer's truncated toward zero and saturated, NaN 0; FLOAT16 rounded to
nearest even). Left open by the pages and decided here: FILL_VALUE_SEQUENCE's element i is start + i * delta
computed once per element, not a running sum: integers modulo 2^width (the page's UINT8 example adds -2 as 254),
FLOAT32 as fma(i, delta, start), rounded once (i exact below 2^24), FLOAT16 the same in float then rounded to half;
element 0 is ValueStart's bits unchanged.

The pages' slips: FILL_VALUE_SEQUENCE's Example 2 adds -2 in UINT8 (a UINT8 member cannot hold -2: wrap-around
implied); DIAGONAL_MATRIX's OutputTensor text gives 4 dimensions while its tables allow 2 to 4 from FL 4_0 (dmlpy
follows the tables); DIAGONAL_MATRIX1's first example gives Value 7 and shows 1s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, RandomGeneratorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.generators import diagonal_kernel, fill_kernel, sequence_kernel
from dmlpy.model import Int32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._indexing import EIGHT_TYPES, UINT32_ONLY, IndexingDesc
from dmlpy.ops._typed_values import float_field_value, union_bits, value_bits
from dmlpy.ops._types import EVERY_TYPE, FLOATS, INTEGERS_64
from dmlpy.ops.scalar_union import ScalarUnion
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_ANY_SIZES = "any Sizes the support table allows (the caller's)"
_VALUE_TYPE = "value_data_type"  # the generators with DML_SCALAR_UNION values have it


def _output_only(operator: OperatorType, rows: tuple[tuple[FeatureLevel, tuple[int, int], Any], ...]) -> SupportTable:
    return SupportTable.per_tensor(
        operator, frozenset(), tuple((level, {"OutputTensor": (dims, types)}) for level, dims, types in rows)
    )


class _GeneratorDesc(IndexingDesc):
    """A generator: OutputTensor of the caller's Sizes; a ValueDataType, where the operator has one, is OutputTensor's
    DataType and reads its DML_SCALAR_UNION values."""

    INPUTS: ClassVar[tuple[str, ...]] = ()
    OUTPUTS = ("output_tensor",)
    VALUES: ClassVar[tuple[str, ...]] = ()
    """The DML_SCALAR_UNION fields read as ValueDataType."""

    if TYPE_CHECKING:  # each generator declares OutputTensor itself, in DirectML.h's order (after an InputTensor)
        output_tensor: TensorDesc

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.output_tensor.desc.data_type.name})"

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """Any Sizes; the DataType ValueDataType where the operator has one, else the caller's."""
        data_type = fields.get(_VALUE_TYPE)
        assert data_type is None or isinstance(data_type, TensorDataType)
        rule = _ANY_SIZES + (", with ValueDataType's DataType" if data_type is not None else "")
        return (OutputShape(None, data_type, rule),)

    def check_shape_rules(self, level: FeatureLevel) -> None:
        if not self.VALUES:
            return
        data_type: TensorDataType = getattr(self, _VALUE_TYPE)
        wanted = self.output_tensor.desc.data_type
        if data_type != wanted:
            self.refuse(
                "value_data_type",
                data_type.name,
                f"it must be OutputTensor.DataType ({getattr(wanted, 'name', wanted)}), the type "
                f"{' and '.join(self.c_field(field) for field in self.VALUES)} are read as",
            )
        for field in self.VALUES:
            value: ScalarUnion = getattr(self, field)
            value.read_as(data_type, f"{self.operator_name()}.{self.c_field(field)}", "ValueDataType")

    def bits_of(self, field: str) -> int:
        """A DML_SCALAR_UNION field read as ValueDataType, as the bits of its encoding."""
        where = f"{self.operator_name()}.{self.c_field(field)}"
        return union_bits(getattr(self, field), getattr(self, _VALUE_TYPE), where, "ValueDataType")

    def output_layout(self) -> tuple[TensorDataType, tuple[int, ...], tuple[int, ...]]:
        """OutputTensor's DataType, Sizes and strides (its own, or packed)."""
        desc = self.output_tensor.desc
        return desc.data_type, tuple(desc.sizes), tuple(desc.effective_strides)  # type: ignore[return-value]


class FillValueConstantOperatorDesc(_GeneratorDesc):
    """DML_FILL_VALUE_CONSTANT_OPERATOR_DESC: every element of OutputTensor is Value."""

    OPERATOR_TYPE = OperatorType.FILL_VALUE_CONSTANT
    BUILDER_NAME = "fill_value_constant"
    SUPPORT = _output_only(
        OPERATOR_TYPE,
        ((L.FL_2_1, (4, 4), EIGHT_TYPES), (L.FL_4_0, (1, 8), EIGHT_TYPES), (L.FL_4_1, (1, 8), EVERY_TYPE)),
    )
    VALUES = ("value",)

    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the tensor to fill, of any Sizes the support table allows."""
    value_data_type: TensorDataType = Field(alias="ValueDataType")
    """ValueDataType (DML_TENSOR_DATA_TYPE): how Value is read; OutputTensor's DataType."""
    value: ScalarUnion = Field(alias="Value")
    """Value (DML_SCALAR_UNION): the value, in the member of ValueDataType (a FLOAT16's bits in UInt16) or Bytes."""

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """generators.cl's fill: Value's bits in every element."""
        return fill_kernel(*self.output_layout(), self.bits_of("value"), profile)


class FillValueSequenceOperatorDesc(_GeneratorDesc):
    """DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC: OutputTensor's elements, in coordinate order, are ValueStart,
    ValueStart + ValueDelta, ValueStart + 2 ValueDelta, ..."""

    OPERATOR_TYPE = OperatorType.FILL_VALUE_SEQUENCE
    BUILDER_NAME = "fill_value_sequence"
    ONNX_OPS = ("Range",)
    SUPPORT = _output_only(
        OPERATOR_TYPE,
        (
            (L.FL_2_1, (4, 4), EIGHT_TYPES),
            (L.FL_4_0, (1, 8), EIGHT_TYPES),
            (L.FL_5_0, (1, 8), EIGHT_TYPES | INTEGERS_64),
        ),
    )
    VALUES = ("value_start", "value_delta")

    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the tensor to fill, of any Sizes the support table allows."""
    value_data_type: TensorDataType = Field(alias="ValueDataType")
    """ValueDataType (DML_TENSOR_DATA_TYPE): how ValueStart and ValueDelta are read; OutputTensor's DataType."""
    value_start: ScalarUnion = Field(alias="ValueStart")
    """ValueStart (DML_SCALAR_UNION): the first element."""
    value_delta: ScalarUnion = Field(alias="ValueDelta")
    """ValueDelta (DML_SCALAR_UNION): the step from one element to the next."""

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """generators.cl's sequence: element i (row-major) = ValueStart + i * ValueDelta, computed once per element
        (integers modulo 2^width; floats rounded once from the exact value, FLOAT16 through float)."""
        start, delta = self.bits_of("value_start"), self.bits_of("value_delta")
        return sequence_kernel(*self.output_layout(), start, delta, profile)


class DiagonalMatrixOperatorDesc(_GeneratorDesc):
    """DML_DIAGONAL_MATRIX_OPERATOR_DESC: a stack of matrices (the dimensions before the last two), Output[..., y, x]
    = Value where x = y + Offset, else 0."""

    OPERATOR_TYPE = OperatorType.DIAGONAL_MATRIX
    SUPPORT = _output_only(
        OPERATOR_TYPE,
        (
            (L.FL_2_0, (4, 4), FLOATS),
            (L.FL_2_1, (4, 4), EIGHT_TYPES),
            (L.FL_4_0, (2, 4), EIGHT_TYPES),
            (L.FL_5_1, (2, 4), EVERY_TYPE),
        ),
    )

    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the tensor to fill, of any Sizes the support table allows."""
    offset: Int32 = Field(alias="Offset")
    """Offset (INT): the diagonal's shift, right (above 0) or left (below 0); beyond the matrix, all zeros."""
    value: float = Field(alias="Value")
    """Value (FLOAT): the diagonal's value, 1.0 for an identity matrix (an integer output's truncated toward zero and
    saturated, NaN 0: PADDING's rule for a FLOAT field)."""

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """generators.cl's diagonal: the band [Offset, Offset + 1) of x - y holds Value, the rest 0."""
        data_type, sizes, strides = self.output_layout()
        bits = value_bits(float_field_value(self.value, data_type), data_type)
        return diagonal_kernel(data_type, sizes, strides, bits, (self.offset, self.offset + 1), profile)


class DiagonalMatrix1OperatorDesc(_GeneratorDesc):
    """DML_DIAGONAL_MATRIX1_OPERATOR_DESC: for each coordinate, topX = x - y; Value where (DiagonalFillEnd >=
    DiagonalFillBegin) ^ (topX >= DiagonalFillBegin) ^ (topX < DiagonalFillEnd), else InputTensor's element (or 0
    without one)."""

    OPERATOR_TYPE = OperatorType.DIAGONAL_MATRIX1
    BUILDER_NAME = "diagonal_matrix"
    ONNX_OPS = ("EyeLike",)
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"InputTensor"}),
        ((L.FL_5_1, {"InputTensor": ((2, 4), EVERY_TYPE), "OutputTensor": ((2, 4), EVERY_TYPE)}),),
    )
    INPUTS = ("input_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    VALUES = ("value",)

    input_tensor: TensorDesc | None = Field(default=None, alias="InputTensor")
    """InputTensor: the values off the filled diagonals, OutputTensor's Sizes; null fills them with 0."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: a stack of matrices (the dimensions before the last two), 2 to 4 dimensions."""
    value_data_type: TensorDataType = Field(alias="ValueDataType")
    """ValueDataType (DML_TENSOR_DATA_TYPE): how Value is read; OutputTensor's DataType."""
    value: ScalarUnion = Field(alias="Value")
    """Value (DML_SCALAR_UNION): the filled diagonals' value."""
    diagonal_fill_begin: Int32 = Field(alias="DiagonalFillBegin")
    """DiagonalFillBegin (INT): the first diagonal filled (inclusive); above DiagonalFillEnd, the fill inverts."""
    diagonal_fill_end: Int32 = Field(alias="DiagonalFillEnd")
    """DiagonalFillEnd (INT): the end of the filled diagonals (exclusive)."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor's Sizes and DataType; without it, any Sizes with ValueDataType's DataType."""
        given = inputs.get("input_tensor")
        if given is None:
            return super().output_shapes(inputs, fields)
        return cls.outputs_like(inputs, "input_tensor", "input_tensor")

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """generators.cl's diagonal: the page's XOR band rule over x - y with DiagonalFillBegin and DiagonalFillEnd,
        InputTensor's element (or 0) elsewhere."""
        data_type, sizes, strides = self.output_layout()
        given = self.input_tensor
        return diagonal_kernel(
            data_type,
            sizes,
            strides,
            self.bits_of("value"),
            (self.diagonal_fill_begin, self.diagonal_fill_end),
            profile,
            input_slot=True,
            input_strides=None if given is None else tuple(given.desc.effective_strides),
        )


class RandomGeneratorOperatorDesc(IndexingDesc):
    """DML_RANDOM_GENERATOR_OPERATOR_DESC: OutputTensor filled with pseudo-random bits, a function of
    InputStateTensor (Philox 4x32-10: a 128-bit counter, then a 64-bit key); OutputStateTensor, when given, receives
    the state with the counter advanced by ceil(OutputTensor's element count / 4)."""

    OPERATOR_TYPE = OperatorType.RANDOM_GENERATOR
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"OutputStateTensor"}),
        tuple(
            (level, dict.fromkeys(("InputStateTensor", "OutputTensor", "OutputStateTensor"), (dims, UINT32_ONLY)))
            for level, dims in ((L.FL_3_0, (4, 4)), (L.FL_4_0, (1, 8)))
        ),
    )
    INPUTS = ("input_state_tensor",)
    OUTPUTS = ("output_tensor", "output_state_tensor")
    SAME_DIMENSION_COUNT = (("input_state_tensor", "output_state_tensor"),)

    input_state_tensor: TensorDesc = Field(alias="InputStateTensor")
    """InputStateTensor: the generator's state, 6 UINT32 ({ [1], ..., 6 }): counter words 0-3, key words 4-5."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the random bits, UINT32, of any Sizes the support table allows."""
    output_state_tensor: TensorDesc | None = Field(default=None, alias="OutputStateTensor")
    """OutputStateTensor: the next state, InputStateTensor's Sizes; null leaves it unwritten."""
    type: RandomGeneratorType = Field(alias="Type")
    """Type (DML_RANDOM_GENERATOR_TYPE): PHILOX_4X32_10, the only one."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """OutputTensor: any Sizes, UINT32; OutputStateTensor: InputStateTensor's Sizes, UINT32."""
        state = inputs["input_state_tensor"]
        assert state is not None
        return (
            OutputShape(None, TensorDataType.UINT32, _ANY_SIZES + ", UINT32"),
            OutputShape(state.sizes, TensorDataType.UINT32, "InputStateTensor.Sizes (the page: the same Sizes)"),
        )

    def check_shape_rules(self, level: FeatureLevel) -> None:
        sizes = self.sizes_of("input_state_tensor")
        if sizes[-1] != 6 or any(size != 1 for size in sizes[:-1]):
            raise InvalidArgumentError(
                f"RANDOM_GENERATOR.InputStateTensor.Sizes is {list(sizes)}; it must be {[*([1] * (len(sizes) - 1)), 6]}"
                ": the Philox 4x32-10 state is 6 UINT32 values ({ [1], ..., 6 }), a 128-bit counter then a 64-bit key"
            )


GENERATOR_OPERATORS = (
    FillValueConstantOperatorDesc,
    FillValueSequenceOperatorDesc,
    DiagonalMatrixOperatorDesc,
    DiagonalMatrix1OperatorDesc,
    RandomGeneratorOperatorDesc,
)
"""The generators, in the operator table's order."""
