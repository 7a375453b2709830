"""The integer matrix products: DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC (FL 2_1, ONNX MatMulInteger),
DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC (FL 2_1, ONNX QLinearMatMul) and
DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC (FL 6_2), from Microsoft's pages.

Each multiplies ATensor {[BatchCount], [ChannelCount], M, K} by BTensor {.., K, N} as ``_matrix`` says, after
taking away the zero points and (the quantized forms) multiplying by the scales. A's scale and zero point hold one
value, or one per row of A (M); B's one, or one per column of B (N); the quantized output's one, or one per row.
They run as ``opencl/gemm.cl``'s contraction (``dmlpy/kernels/contraction.py``), each scale and zero point through
strides along M or N (0 for one value): the zero points taken away as A and B are read; MATRIX_MULTIPLY_INTEGER and
QUANTIZED_LINEAR_MATRIX_MULTIPLY sum in 32-bit integers, exact (modulo 2^32), the latter then requantized by
elementwise_ops.h's quantize and saturation; MATRIX_MULTIPLY_INTEGER_TO_FLOAT sums the differences in float and
scales the sum (docs/operators/gemm.md gives its bound).

Where the pages disagree with the header: MATRIX_MULTIPLY_INTEGER_TO_FLOAT's Members section documents an
OutputScaleTensor and an OutputZeroPointTensor that are in neither its Syntax block nor DirectML.h; dmlpy follows
the header (no such fields).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.kernels.contraction import ABSENT, Axis, contraction_kernel, parameter_strides
from dmlpy.kernels.launch import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.ops._matrix import MatrixMultiplyDesc, MatrixSizes
from dmlpy.ops._types import FLOATS, INTEGERS_8_32
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L, T = FeatureLevel, TensorDataType
_BYTES = frozenset({T.INT8, T.UINT8})
_FLOAT32 = frozenset({T.FLOAT32})
_INT32 = frozenset({T.INT32})
Dims = tuple[int, int]


_PRESENCE = {
    "a_zero_point_tensor": "HAS_A_ZERO",
    "b_zero_point_tensor": "HAS_B_ZERO",
    "output_zero_point_tensor": "HAS_OUT_ZERO",
    "bias_tensor": "HAS_BIAS",
}
"""gemm.cl's define saying whether each optional tensor is given."""


def _storage(desc: BufferTensorDesc) -> str:
    """The OpenCL type a tensor is bound as: its storage type, a FLOAT16 one as its bits."""
    data_type = desc.data_type
    return "ushort" if data_type == T.FLOAT16 else DATA_TYPES[data_type].opencl_storage


def _row(
    dims: Mapping[str, Dims], types: Mapping[str, frozenset[TensorDataType]]
) -> dict[str, tuple[Dims, frozenset[TensorDataType]]]:
    return {name: (dims[name], types[name]) for name in types}


class _IntegerMatrixDesc(MatrixMultiplyDesc):
    """The zero points' and scales' rule: one value, or one per row of A, per column of B, per row of the output."""

    PER_ROW: ClassVar[tuple[str, ...]] = ()
    """Parameter tensors that hold one value or one per row (M)."""
    PER_COLUMN: ClassVar[tuple[str, ...]] = ()
    """Parameter tensors that hold one value or one per column (N)."""

    def storage_defines(self) -> tuple[tuple[str, str], ...]:
        """gemm.cl's types of the operator's tensors (A_T, B_T and the operator's own)."""
        a, b = self.operands()["a_tensor"], self.operands()["b_tensor"]
        assert a is not None and b is not None  # required fields of every matrix product
        return (("A_T", _storage(a)), ("B_T", _storage(b)))

    def contraction_strides(self, field: str) -> tuple[int, ...]:
        """``field``'s strides in the contraction domain: a scale or zero point along M or N, a matrix its own."""
        tensor: TensorDesc | None = getattr(self, field)
        if field not in self.PER_ROW and field not in self.PER_COLUMN:
            return self.matrix_strides(field)
        if tensor is None:
            return ABSENT
        along: Axis = "m" if field in self.PER_ROW else "n"
        return parameter_strides(tensor.desc.sizes, tensor.desc.effective_strides, along)

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """gemm.cl's contraction for this operator: its tensors in binding order, the optional ones' presence."""
        fields = (*self.INPUTS, *self.OUTPUTS)
        presence = tuple((_PRESENCE[f], str(int(getattr(self, f) is not None))) for f in fields if f in _PRESENCE)
        return contraction_kernel(
            self.OPERATOR_TYPE.name,
            (*self.storage_defines(), *presence),
            self.domain(),
            [self.contraction_strides(field) for field in fields],
            profile,
        )

    def check_matrix_rules(self, level: FeatureLevel, sizes: MatrixSizes) -> None:
        for field in self.PER_ROW:
            self.check_parameter(field, sizes.m, f"row of the product (M = {sizes.m_from})")
        for field in self.PER_COLUMN:
            self.check_parameter(field, sizes.n, f"column of the product (N = {sizes.n_from})")


_MMI_TYPES = {
    "ATensor": _BYTES,
    "AZeroPointTensor": _BYTES,
    "BTensor": _BYTES,
    "BZeroPointTensor": _BYTES,
    "OutputTensor": _INT32,
}
_MMI_4_0 = {
    "ATensor": (2, 4),
    "AZeroPointTensor": (1, 4),
    "BTensor": (2, 4),
    "BZeroPointTensor": (2, 4),
    "OutputTensor": (2, 4),
}


class MatrixMultiplyIntegerOperatorDesc(_IntegerMatrixDesc):
    """DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC: OutputTensor (INT32) = (A - AZeroPoint) x (B - BZeroPoint); A and
    B may differ in signedness."""

    OPERATOR_TYPE = OperatorType.MATRIX_MULTIPLY_INTEGER
    BUILDER_NAME = "matrix_multiply_integer"
    ONNX_OPS = ("MatMulInteger",)
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"AZeroPointTensor", "BZeroPointTensor"}),
        (
            (L.FL_2_1, _row(dict.fromkeys(_MMI_TYPES, (4, 4)), _MMI_TYPES)),
            (L.FL_4_0, _row(_MMI_4_0, _MMI_TYPES)),
            (L.FL_5_2, _row({**_MMI_4_0, "BZeroPointTensor": (1, 4)}, _MMI_TYPES)),
        ),
    )
    INPUTS = ("a_tensor", "a_zero_point_tensor", "b_tensor", "b_zero_point_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("b_tensor", "b_zero_point_tensor"), ("a_tensor", "a_zero_point_tensor"))
    SAME_DIMENSION_COUNT = (("a_tensor", "b_tensor", "output_tensor"),)
    OUTPUT_TYPE_OF, OUTPUT_TYPE = None, T.INT32
    PER_ROW, PER_COLUMN = ("a_zero_point_tensor",), ("b_zero_point_tensor",)

    a_tensor: TensorDesc = Field(alias="ATensor")
    """ATensor: {[BatchCount], [ChannelCount], M, K}, INT8 or UINT8."""
    a_zero_point_tensor: TensorDesc | None = Field(default=None, alias="AZeroPointTensor")
    """AZeroPointTensor: A's zero point, one value or one per row (M); ATensor's DataType; null is 0."""
    b_tensor: TensorDesc = Field(alias="BTensor")
    """BTensor: {[BatchCount], [ChannelCount], K, N}, INT8 or UINT8."""
    b_zero_point_tensor: TensorDesc | None = Field(default=None, alias="BZeroPointTensor")
    """BZeroPointTensor: B's zero point, one value or one per column (N); BTensor's DataType; null is 0."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {[BatchCount], [ChannelCount], M, N}, INT32."""


_QLMM_TYPES = {
    "ATensor": _BYTES,
    "AScaleTensor": _FLOAT32,
    "AZeroPointTensor": _BYTES,
    "BTensor": _BYTES,
    "BScaleTensor": _FLOAT32,
    "BZeroPointTensor": _BYTES,
    "OutputScaleTensor": _FLOAT32,
    "OutputZeroPointTensor": _BYTES,
    "OutputTensor": _BYTES,
}
_MATRICES = ("ATensor", "BTensor", "OutputTensor")


class QuantizedLinearMatrixMultiplyOperatorDesc(_IntegerMatrixDesc):
    """DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC: A and B dequantized ((x - ZeroPoint) * Scale), multiplied,
    and the product quantized: clamp(round(product / OutputScale) + OutputZeroPoint) into INT8 or UINT8."""

    OPERATOR_TYPE = OperatorType.QUANTIZED_LINEAR_MATRIX_MULTIPLY
    BUILDER_NAME = "quantized_linear_matrix_multiply"
    ONNX_OPS = ("QLinearMatMul",)
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"AZeroPointTensor", "BZeroPointTensor", "OutputZeroPointTensor"}),
        (
            (L.FL_2_1, _row(dict.fromkeys(_QLMM_TYPES, (4, 4)), _QLMM_TYPES)),
            (L.FL_4_0, _row({n: (2, 4) if n in _MATRICES else (1, 4) for n in _QLMM_TYPES}, _QLMM_TYPES)),
        ),
    )
    INPUTS = (
        "a_tensor",
        "a_scale_tensor",
        "a_zero_point_tensor",
        "b_tensor",
        "b_scale_tensor",
        "b_zero_point_tensor",
        "output_scale_tensor",
        "output_zero_point_tensor",
    )
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (
        ("b_tensor", "b_zero_point_tensor"),
        ("output_tensor", "output_zero_point_tensor"),
        ("a_tensor", "a_zero_point_tensor"),
    )
    SAME_DIMENSION_COUNT = (
        INPUTS[1:3] + INPUTS[4:],  # the scales and zero points
        ("a_tensor", "b_tensor", "output_tensor"),
    )
    OUTPUT_TYPE_OF = "output_zero_point_tensor"
    PER_ROW = ("a_scale_tensor", "a_zero_point_tensor", "output_scale_tensor", "output_zero_point_tensor")
    PER_COLUMN = ("b_scale_tensor", "b_zero_point_tensor")

    a_tensor: TensorDesc = Field(alias="ATensor")
    """ATensor: {[BatchCount], [ChannelCount], M, K}, INT8 or UINT8."""
    a_scale_tensor: TensorDesc = Field(alias="AScaleTensor")
    """AScaleTensor: A's scale (FLOAT32), one value or one per row (M)."""
    a_zero_point_tensor: TensorDesc | None = Field(default=None, alias="AZeroPointTensor")
    """AZeroPointTensor: A's zero point, as AScaleTensor; ATensor's DataType; null is 0."""
    b_tensor: TensorDesc = Field(alias="BTensor")
    """BTensor: {[BatchCount], [ChannelCount], K, N}, INT8 or UINT8."""
    b_scale_tensor: TensorDesc = Field(alias="BScaleTensor")
    """BScaleTensor: B's scale (FLOAT32), one value or one per column (N)."""
    b_zero_point_tensor: TensorDesc | None = Field(default=None, alias="BZeroPointTensor")
    """BZeroPointTensor: B's zero point, as BScaleTensor; BTensor's DataType; null is 0."""
    output_scale_tensor: TensorDesc = Field(alias="OutputScaleTensor")
    """OutputScaleTensor: the output's scale (FLOAT32), one value or one per row (M)."""
    output_zero_point_tensor: TensorDesc | None = Field(default=None, alias="OutputZeroPointTensor")
    """OutputZeroPointTensor: the output's zero point, as OutputScaleTensor; OutputTensor's DataType; null is 0."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {[BatchCount], [ChannelCount], M, N}, INT8 or UINT8."""

    def storage_defines(self) -> tuple[tuple[str, str], ...]:
        return (*super().storage_defines(), ("OUT_T", _storage(self.output_tensor.desc)))


_TO_FLOAT_TYPES = {
    "ATensor": INTEGERS_8_32,
    "AScaleTensor": FLOATS,
    "AZeroPointTensor": INTEGERS_8_32,
    "BTensor": INTEGERS_8_32,
    "BScaleTensor": FLOATS,
    "BZeroPointTensor": INTEGERS_8_32,
    "BiasTensor": FLOATS,
    "OutputTensor": FLOATS,
}
_TO_FLOAT_MATRICES = ("ATensor", "BTensor", "BiasTensor", "OutputTensor")


class MatrixMultiplyIntegerToFloatOperatorDesc(_IntegerMatrixDesc):
    """DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC: OutputTensor = ((A - AZeroPoint) * AScale) x ((B -
    BZeroPoint) * BScale) + Bias, from 8- to 32-bit integers into FLOAT32 or FLOAT16."""

    OPERATOR_TYPE = OperatorType.MATRIX_MULTIPLY_INTEGER_TO_FLOAT
    BUILDER_NAME = "matrix_multiply_integer_to_float"
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"AZeroPointTensor", "BZeroPointTensor", "BiasTensor"}),
        (
            (
                L.FL_6_2,
                _row({n: (2, 4) if n in _TO_FLOAT_MATRICES else (1, 4) for n in _TO_FLOAT_TYPES}, _TO_FLOAT_TYPES),
            ),
        ),
    )
    INPUTS = (
        "a_tensor",
        "a_scale_tensor",
        "a_zero_point_tensor",
        "b_tensor",
        "b_scale_tensor",
        "b_zero_point_tensor",
        "bias_tensor",
    )
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (
        ("a_tensor", "a_zero_point_tensor", "b_tensor", "b_zero_point_tensor"),
        ("a_scale_tensor", "b_scale_tensor", "bias_tensor", "output_tensor"),
    )
    SAME_DIMENSION_COUNT = (
        ("a_scale_tensor", "a_zero_point_tensor", "b_scale_tensor", "b_zero_point_tensor"),
        ("a_tensor", "b_tensor", "bias_tensor", "output_tensor"),
    )
    OUTPUT_TYPE_OF = "a_scale_tensor"
    PER_ROW = ("a_scale_tensor", "a_zero_point_tensor")
    PER_COLUMN = ("b_scale_tensor", "b_zero_point_tensor")

    a_tensor: TensorDesc = Field(alias="ATensor")
    """ATensor: {[BatchCount], [ChannelCount], M, K}, an 8- to 32-bit integer type."""
    a_scale_tensor: TensorDesc = Field(alias="AScaleTensor")
    """AScaleTensor: A's scale (FLOAT32 or FLOAT16), one value or one per row (M)."""
    a_zero_point_tensor: TensorDesc | None = Field(default=None, alias="AZeroPointTensor")
    """AZeroPointTensor: A's zero point, as AScaleTensor; ATensor's DataType; null is 0."""
    b_tensor: TensorDesc = Field(alias="BTensor")
    """BTensor: {[BatchCount], [ChannelCount], K, N}; ATensor's DataType."""
    b_scale_tensor: TensorDesc = Field(alias="BScaleTensor")
    """BScaleTensor: B's scale, one value or one per column (N); AScaleTensor's DataType."""
    b_zero_point_tensor: TensorDesc | None = Field(default=None, alias="BZeroPointTensor")
    """BZeroPointTensor: B's zero point, as BScaleTensor; ATensor's DataType; null is 0."""
    bias_tensor: TensorDesc | None = Field(default=None, alias="BiasTensor")
    """BiasTensor: added to the product; OutputTensor's Sizes and DataType; null adds nothing."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {[BatchCount], [ChannelCount], M, N}; AScaleTensor's DataType."""

    def storage_defines(self) -> tuple[tuple[str, str], ...]:
        half = self.output_tensor.desc.data_type == T.FLOAT16
        return (
            ("A_T", _storage(self.a_tensor.desc)),
            ("SCALE_T", _storage(self.output_tensor.desc)),
            ("DML_FLOAT16", str(int(half))),
        )

    def check_matrix_rules(self, level: FeatureLevel, sizes: MatrixSizes) -> None:
        super().check_matrix_rules(level, sizes)
        self.check_sized_like_output("bias_tensor", sizes)


INTEGER_MATRIX_OPERATORS = (
    MatrixMultiplyIntegerOperatorDesc,
    QuantizedLinearMatrixMultiplyOperatorDesc,
    MatrixMultiplyIntegerToFloatOperatorDesc,
)
"""The integer matrix products, in the operator table's order."""
