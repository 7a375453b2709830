"""DML_GEMM_OPERATOR_DESC (DML_FEATURE_LEVEL_1_0): OutputTensor = FusedActivation(Alpha * op(A) x op(B) + Beta * C),
op the matrix transform TransA or TransB, one product per batch index (MicrosoftDocs/sdk-api
ns-directml-dml_gemm_operator_desc.md).

ATensor, BTensor, CTensor and OutputTensor have the same DataType (FLOAT32 or FLOAT16) and DimensionCount (4; 2 to
4 from FL 4_0); CTensor, when given, has OutputTensor's Sizes ("CTensor and OutputTensor must have the same
Sizes": a C broadcast along rows, columns or batches is a Stride of 0 with the Sizes in full). It runs as
``opencl/gemm.cl``'s contraction (``dmlpy/kernels/contraction.py``): TransA and TransB as swapped strides, Alpha and
Beta as the kernel's arguments (every value shares one program), the FusedActivation's own expression on the result
(``FusedActivation.applied``); each output one fma chain over K in float (FLOAT16 read into float, rounded once to
half), within the bound docs/operators/gemm.md derives.
"""

from __future__ import annotations

from pydantic import Field

from dmlpy.enums import FeatureLevel, MatrixTransform, OperatorType, TensorDataType
from dmlpy.kernels.contraction import contraction_kernel
from dmlpy.kernels.launch import CPU_PROFILE, KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.ops._matrix import MatrixMultiplyDesc, MatrixSizes
from dmlpy.ops._normalization import activation_prelude
from dmlpy.ops._typed_values import value_bits
from dmlpy.ops._types import FLOATS
from dmlpy.ops.fused_activation import FusedActivation
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

L = FeatureLevel
_TENSORS = ("ATensor", "BTensor", "CTensor", "OutputTensor")


class GemmOperatorDesc(MatrixMultiplyDesc):
    """DML_GEMM_OPERATOR_DESC: OutputTensor = FusedActivation(Alpha * op(A) x op(B) + Beta * C); without CTensor,
    Alpha * op(A) x op(B) (Beta unused)."""

    OPERATOR_TYPE = OperatorType.GEMM
    BUILDER_NAME = "gemm"
    ONNX_OPS = ("MatMul", "Gemm")
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"CTensor"}),
        (
            (L.FL_1_0, dict.fromkeys(_TENSORS, ((4, 4), FLOATS))),
            (L.FL_4_0, dict.fromkeys(_TENSORS, ((2, 4), FLOATS))),
        ),
    )
    INPUTS = ("a_tensor", "b_tensor", "c_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("a_tensor", "b_tensor", "c_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    A_TRANSFORM, B_TRANSFORM = "trans_a", "trans_b"

    a_tensor: TensorDesc = Field(alias="ATensor")
    """ATensor: {[BatchCount], [ChannelCount], M, K}, or {.., K, M} under TransA TRANSPOSE."""
    b_tensor: TensorDesc = Field(alias="BTensor")
    """BTensor: {[BatchCount], [ChannelCount], K, N}, or {.., N, K} under TransB TRANSPOSE."""
    c_tensor: TensorDesc | None = Field(default=None, alias="CTensor")
    """CTensor: OutputTensor's Sizes, {[BatchCount], [ChannelCount], M, N}; null adds nothing."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {[BatchCount], [ChannelCount], M, N}."""
    trans_a: MatrixTransform = Field(alias="TransA")
    """TransA: NONE or TRANSPOSE (A's last two dimensions swapped)."""
    trans_b: MatrixTransform = Field(alias="TransB")
    """TransB: NONE or TRANSPOSE (B's last two dimensions swapped)."""
    alpha: float = Field(alias="Alpha")
    """Alpha (FLOAT): the product's factor."""
    beta: float = Field(alias="Beta")
    """Beta (FLOAT): CTensor's factor."""
    fused_activation: FusedActivation | None = Field(default=None, alias="FusedActivation")
    """FusedActivation: an activation applied to the result (its tensors null), or null."""

    def check_matrix_rules(self, level: FeatureLevel, sizes: MatrixSizes) -> None:
        self.check_sized_like_output("c_tensor", sizes)
        self.check_fused_activation(level, self.fused_activation)

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """gemm.cl's contraction: A, B, C and the output through their strides, Alpha and Beta as float bits."""
        half = self.a_tensor.desc.data_type == TensorDataType.FLOAT16
        defines = (
            ("A_T", "ushort" if half else "float"),
            ("DML_FLOAT16", str(int(half))),
            ("HAS_C", str(int(self.c_tensor is not None))),
        )
        where = f"{self.operator_name()}.FusedActivation"
        scalars = tuple(value_bits(value, TensorDataType.FLOAT32) for value in (self.alpha, self.beta))
        return contraction_kernel(
            "GEMM",
            defines,
            self.domain(),
            [self.matrix_strides(field) for field in (*self.INPUTS, *self.OUTPUTS)],
            profile,
            prelude=activation_prelude(self.fused_activation, self.output_tensor, where),
            parameters=(KernelParameter("uint8", scalars),),
        )
