"""DML_LP_NORMALIZATION_OPERATOR_DESC (FL 1_0; docs/operators/normalization.md), from Microsoft's page: each element
divided by the Lp norm (P 1 or 2) of its slice along Axis, Epsilon keeping the division finite. InputTensor and
OutputTensor have one DataType (FLOAT32 or FLOAT16), DimensionCount (exactly 4; 1 to 8 from FL 3_1) and Sizes. The
page does not bound Axis; dmlpy asks it to name one of InputTensor's dimensions, as every axis field does. dmlpy
runs it (opencl/normalize.cl): Output = Input / max(norm, Epsilon), the norm from a compensated sum; the page does not
say where Epsilon enters, and max(norm, Epsilon) leaves every nonzero norm above Epsilon untouched.
"""

from __future__ import annotations

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.reduction import normalization_kernel
from dmlpy.model import UInt32
from dmlpy.ops._normalization import NormalizationDesc, float_rows
from dmlpy.ops._unary import float_literal
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

L = FeatureLevel


class LpNormalizationOperatorDesc(NormalizationDesc):
    """DML_LP_NORMALIZATION_OPERATOR_DESC: OutputTensor = Input / the Lp norm of its slice along Axis (P 1 or 2)."""

    OPERATOR_TYPE = OperatorType.LP_NORMALIZATION
    BUILDER_NAME = "lp_normalization"
    ONNX_OPS = ("LpNormalization",)
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset(),
        float_rows(("InputTensor", "OutputTensor"), ((L.FL_1_0, (4, 4)), (L.FL_3_1, (1, 8)))),
    )
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    PAGE_SIZES = "InputTensor and OutputTensor must have the same DataType, DimensionCount, and Sizes"

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the data."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's Sizes and DataType."""
    axis: UInt32 = Field(alias="Axis")
    """Axis (UINT): the dimension the norm is taken along, less than InputTensor's DimensionCount."""
    epsilon: float = Field(alias="Epsilon")
    """Epsilon (FLOAT): keeps the division finite where the norm is 0 (0.00001 recommended)."""
    p: UInt32 = Field(alias="P")
    """P (UINT): the norm, 1 (sum of absolute values) or 2 (Euclidean)."""

    def check_normalization_rules(self, level: FeatureLevel) -> None:
        name, count = self.operator_name(), self.input_tensor.desc.dimension_count
        if self.axis >= count:
            raise InvalidArgumentError(
                f"{name}.Axis is {self.axis}; it must be less than InputTensor.DimensionCount ({count}): axes count "
                "the dimensions from 0, the outermost"
            )
        if self.p not in (1, 2):
            raise InvalidArgumentError(f"{name}.P is {self.p}; it must be 1 or 2 (the page: the L1 or the L2 norm)")

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """normalize.cl's lp_normalization along Axis."""
        defines = (
            ("P", str(self.p)),
            ("EPSILON", float_literal(self.epsilon)),
            ("DML_FLOAT16", str(int(self.input_tensor.desc.data_type == TensorDataType.FLOAT16))),
        )
        tensors = [(t.desc.sizes, t.desc.effective_strides) for t in (self.input_tensor, self.output_tensor)]
        return normalization_kernel(
            "lp_normalization", defines, "", self.input_tensor.desc.sizes, tensors, (self.axis,), profile
        )
