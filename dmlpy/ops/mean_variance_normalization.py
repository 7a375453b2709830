"""The mean-variance normalizations (docs/operators/normalization.md): DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC
(FL 1_0: CrossChannel), DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC (FL 2_1: explicit Axes) and
DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC (FL 6_3: UseMean and UseVariance), from Microsoft's pages.

Each computes the mean and variance of InputTensor along its axes, then Output = FusedActivation(Scale * (Input -
Mean) / sqrt(Variance + Epsilon) + Bias); the output has InputTensor's Sizes and DataType. ScaleTensor and
BiasTensor are optional, each dimension 1 (broadcast) or InputTensor's; below DML_FEATURE_LEVEL_5_2 they are given
together or not at all. MEAN_VARIANCE_NORMALIZATION1's page keeps, below DML_FEATURE_LEVEL_4_0, Scale's and Bias's
ChannelCount (dimension 1 of their { N, C, H, W } layout) equal to InputTensor's. dmlpy runs all three
(opencl/normalize.cl, one work-item per group: the mean and the variance in two compensated passes, then the outputs).

Where the pages and the header disagree: onnxruntime's LayerNormalization fills MEAN_VARIANCE_NORMALIZATION2's
NormalizeMean and NormalizeVariance, but DirectML.h (and the page) name them UseMean and UseVariance: dmlpy follows
the header. The page describes neither ("TBD"); dmlpy reads UseMean FALSE as no mean subtracted and UseVariance FALSE
as no division, which changes no rule it checks.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.reduction import normalization_kernel
from dmlpy.model import Bool, UInt32
from dmlpy.ops._normalization import NormalizationDesc, activation_prelude, float_rows
from dmlpy.ops._unary import float_literal
from dmlpy.ops.fused_activation import FusedActivation
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

L = FeatureLevel
_TENSORS = ("InputTensor", "ScaleTensor", "BiasTensor", "OutputTensor")
_OPTIONAL = frozenset({"ScaleTensor", "BiasTensor"})


class _MeanVarianceDesc(NormalizationDesc):
    """The three forms' tensors: InputTensor, the optional ScaleTensor and BiasTensor, OutputTensor."""

    INPUTS = ("input_tensor", "scale_tensor", "bias_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE: ClassVar[tuple[tuple[str, ...], ...]] = ((*INPUTS, "output_tensor"),)
    SAME_DIMENSION_COUNT: ClassVar[tuple[tuple[str, ...], ...]] = SAME_DATA_TYPE
    BROADCAST = ("scale_tensor", "bias_tensor")
    CHANNEL_BELOW_4_0: ClassVar[bool] = False
    """Whether, below DML_FEATURE_LEVEL_4_0, Scale's and Bias's ChannelCount must be InputTensor's (MVN1's page)."""

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the data, { BatchCount, ChannelCount, Height, Width } in the page's words."""
    scale_tensor: TensorDesc | None = Field(default=None, alias="ScaleTensor")
    """ScaleTensor: the scale, each dimension 1 (broadcast) or InputTensor's; null scales by 1. Below
    DML_FEATURE_LEVEL_5_2 it is given exactly when BiasTensor is."""
    bias_tensor: TensorDesc | None = Field(default=None, alias="BiasTensor")
    """BiasTensor: the bias, each dimension 1 (broadcast) or InputTensor's; null adds nothing. Below
    DML_FEATURE_LEVEL_5_2 it is given exactly when ScaleTensor is."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's Sizes and DataType."""

    def check_normalization_rules(self, level: FeatureLevel) -> None:
        self.check_scale_with_bias(level)
        if self.CHANNEL_BELOW_4_0 and level < L.FL_4_0 and self.input_tensor.desc.dimension_count == 4:
            channels = self.input_tensor.desc.sizes[1]
            for field in ("scale_tensor", "bias_tensor"):
                tensor: TensorDesc | None = getattr(self, field)
                if tensor is not None and tensor.desc.sizes[1] != channels:
                    name = self.c_field(field)
                    raise InvalidArgumentError(
                        f"{self.operator_name()}.{name}.Sizes[1] is {tensor.desc.sizes[1]}; below "
                        f"DML_FEATURE_LEVEL_4_0 ({level.c_name} was asked) it must be InputTensor's ChannelCount, "
                        f"InputTensor.Sizes[1] ({channels}): the page gives {name} {{ BatchCount, ChannelCount, "
                        "Height, Width }} with only BatchCount, Height and Width broadcast; from "
                        "DML_FEATURE_LEVEL_4_0 any dimension may be 1"
                    )
        self.check_axis_fields()
        self.check_fused_activation(level, self.fused_activation)  # type: ignore[attr-defined]

    def check_axis_fields(self) -> None:
        """The form's own field rules (Axes)."""

    def normalized(self) -> tuple[tuple[int, ...], bool, bool]:
        """The axes the statistics are taken along, whether the mean is subtracted and whether the result is
        divided by sqrt(variance + Epsilon)."""
        raise NotImplementedError

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """normalize.cl's mean_variance_normalization over the form's axes."""
        axes, use_mean, use_variance = self.normalized()
        tensors = [self.input_tensor, self.scale_tensor, self.bias_tensor, self.output_tensor]
        epsilon: float = getattr(self, "epsilon")  # noqa: B009  # each form declares it, in C order
        defines = (
            ("USE_MEAN", str(int(use_mean))),
            ("USE_VARIANCE", str(int(use_variance))),
            ("HAS_SCALE", str(int(self.scale_tensor is not None))),
            ("HAS_BIAS", str(int(self.bias_tensor is not None))),
            ("EPSILON", float_literal(epsilon)),
            ("DML_FLOAT16", str(int(self.input_tensor.desc.data_type == TensorDataType.FLOAT16))),
        )
        fused = getattr(self, "fused_activation")  # noqa: B009  # each form declares it, in C order
        prelude = activation_prelude(fused, self.output_tensor, f"{self.operator_name()}.FusedActivation")
        return normalization_kernel(
            "mean_variance_normalization",
            defines,
            prelude,
            self.input_tensor.desc.sizes,
            [None if t is None else (t.desc.sizes, t.desc.effective_strides) for t in tensors],
            axes,
            profile,
        )


class MeanVarianceNormalizationOperatorDesc(_MeanVarianceDesc):
    """DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC: the mean and variance over { ChannelCount, Height, Width }
    (CrossChannel TRUE) or over { Height, Width } per channel (FALSE); OutputTensor = FusedActivation(Scale * (Input
    - Mean) / sqrt(Variance + Epsilon) + Bias), or Scale * (Input - Mean) + Bias under NormalizeVariance FALSE."""

    OPERATOR_TYPE = OperatorType.MEAN_VARIANCE_NORMALIZATION
    SUPPORT = SupportTable.per_tensor(OPERATOR_TYPE, _OPTIONAL, float_rows(_TENSORS, ((L.FL_1_0, (4, 4)),)))
    # The page: "BiasTensor, InputTensor, OutputTensor, and ScaleTensor must have the same DataType" (its one
    # level takes exactly 4 dimensions, so their DimensionCount agrees through the table).
    SAME_DIMENSION_COUNT = ()

    cross_channel: Bool = Field(alias="CrossChannel")
    """CrossChannel (BOOL): TRUE normalizes across { ChannelCount, Height, Width }; FALSE across { Height, Width },
    each channel alone."""
    normalize_variance: Bool = Field(alias="NormalizeVariance")
    """NormalizeVariance (BOOL): TRUE divides by sqrt(Variance + Epsilon); FALSE only subtracts the mean."""
    epsilon: float = Field(alias="Epsilon")
    """Epsilon (FLOAT): added to the variance, to avoid dividing by zero (0.00001 recommended)."""
    fused_activation: FusedActivation | None = Field(default=None, alias="FusedActivation")
    """FusedActivation: an activation applied to the result (its tensors null), or null."""

    def normalized(self) -> tuple[tuple[int, ...], bool, bool]:
        return ((1, 2, 3) if self.cross_channel else (2, 3)), True, self.normalize_variance


class _AxesDesc(_MeanVarianceDesc):
    """MVN1 and MVN2: the mean and variance along Axes, AxisCount of them."""

    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"axis_count": ("axes",)}
    BUILDER_DERIVED = ("axis_count",)

    def check_axis_fields(self) -> None:
        self.check_axes(self.axes)  # type: ignore[attr-defined]


class MeanVarianceNormalization1OperatorDesc(_AxesDesc):
    """DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC: MEAN_VARIANCE_NORMALIZATION with the axes named (Axes { 2, 3
    } is CrossChannel FALSE, { 1, 2, 3 } TRUE on 4 dimensions; the last axes are ONNX's LayerNormalization)."""

    OPERATOR_TYPE = OperatorType.MEAN_VARIANCE_NORMALIZATION1
    BUILDER_NAME = "mean_variance_normalization"
    ONNX_OPS = ("GroupNormalization", "InstanceNormalization", "LayerNormalization", "MeanVarianceNormalization")
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE, _OPTIONAL, float_rows(_TENSORS, ((L.FL_2_1, (4, 4)), (L.FL_3_1, (1, 8))))
    )
    CHANNEL_BELOW_4_0 = True

    # Left out, AxisCount is derived from Axes (OperatorDescBase's COUNTED_ARRAYS), so it is an int afterwards.
    axis_count: UInt32 = Field(default=None, alias="AxisCount")  # type: ignore[assignment]
    """AxisCount: the entries of Axes; derived when left out, checked when given."""
    axes: tuple[UInt32, ...] = Field(alias="Axes")
    """Axes: the dimensions the mean and variance are computed along, each once, each less than InputTensor's
    DimensionCount (0 the outermost)."""
    normalize_variance: Bool = Field(alias="NormalizeVariance")
    """NormalizeVariance (BOOL): TRUE divides by sqrt(Variance + Epsilon); FALSE only subtracts the mean."""
    epsilon: float = Field(alias="Epsilon")
    """Epsilon (FLOAT): added to the variance, to avoid dividing by zero."""
    fused_activation: FusedActivation | None = Field(default=None, alias="FusedActivation")
    """FusedActivation: an activation applied to the result (its tensors null), or null."""

    def normalized(self) -> tuple[tuple[int, ...], bool, bool]:
        return self.axes, True, self.normalize_variance


class MeanVarianceNormalization2OperatorDesc(_AxesDesc):
    """DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC: MEAN_VARIANCE_NORMALIZATION1 with UseMean and UseVariance for
    NormalizeVariance (the page says "TBD"; onnxruntime's LayerNormalization runs on it)."""

    OPERATOR_TYPE = OperatorType.MEAN_VARIANCE_NORMALIZATION2
    BUILDER_NAME = "mean_variance_normalization2"
    SUPPORT = SupportTable.per_tensor(OPERATOR_TYPE, _OPTIONAL, float_rows(_TENSORS, ((L.FL_6_3, (1, 8)),)))

    axis_count: UInt32 = Field(default=None, alias="AxisCount")  # type: ignore[assignment]
    """AxisCount: the entries of Axes; derived when left out, checked when given."""
    axes: tuple[UInt32, ...] = Field(alias="Axes")
    """Axes: the dimensions the mean and variance are computed along, each once, each less than InputTensor's
    DimensionCount (0 the outermost)."""
    use_mean: Bool = Field(alias="UseMean")
    """UseMean (BOOL): the page says "TBD"; presumably FALSE subtracts no mean (RMS normalization)."""
    use_variance: Bool = Field(alias="UseVariance")
    """UseVariance (BOOL): the page says "TBD"; presumably FALSE divides by nothing."""
    epsilon: float = Field(alias="Epsilon")
    """Epsilon (FLOAT): added to the variance, to avoid dividing by zero."""
    fused_activation: FusedActivation | None = Field(default=None, alias="FusedActivation")
    """FusedActivation: an activation applied to the result (its tensors null), or null."""

    def normalized(self) -> tuple[tuple[int, ...], bool, bool]:
        return self.axes, self.use_mean, self.use_variance


MEAN_VARIANCE_OPERATORS = (
    MeanVarianceNormalizationOperatorDesc,
    MeanVarianceNormalization1OperatorDesc,
    MeanVarianceNormalization2OperatorDesc,
)
"""The mean-variance normalizations, in the operator table's order (by OperatorType value)."""
