"""The batch normalizations (docs/operators/normalization.md): DML_BATCH_NORMALIZATION_OPERATOR_DESC (FL 1_0, given
statistics), DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC (FL 3_1), DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC and
DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC (FL 4_1), from Microsoft's pages (MicrosoftDocs/sdk-api
ns-directml-dml_batch_normalization*_operator_desc.md).

Output = FusedActivation(Scale * (Input - Mean) / sqrt(Variance + Epsilon) + Bias): every tensor FLOAT32 or FLOAT16,
of one DataType and DimensionCount; any dimension of the statistics, Scale and Bias is 1 (broadcast) or
InputTensor's. The training form computes Mean and Variance over the dimensions where Scale has size 1 and writes
them (OutputMeanTensor, OutputVarianceTensor, Scale's Sizes); the gradients write OutputGradientTensor (Input's
Sizes) and OutputScaleGradientTensor, OutputBiasGradientTensor (Mean's Sizes). dmlpy runs BATCH_NORMALIZATION, which
is element-wise arithmetic once the statistics broadcast with 0 strides: the element-wise template, the arithmetic
``batch_normalization`` in opencl/elementwise_ops.h, then FusedActivation's own expression. It validates the other
three and does not run them yet.

Where the page and the header disagree: BATCH_NORMALIZATION_TRAINING's Syntax block gives FusedActivation without
``_Maybenull_``; DirectML.h has it ``_Maybenull_``, as every other FusedActivation: dmlpy follows the header (null
allowed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator, blocked_layout
from dmlpy.kernels.elementwise import Statement, elementwise_kernel, load_name, value_type
from dmlpy.model import Bool
from dmlpy.ops._normalization import NormalizationDesc, float_rows
from dmlpy.ops._unary import float_literal
from dmlpy.ops.fused_activation import FusedActivation
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

L = FeatureLevel
_BN = ("InputTensor", "MeanTensor", "VarianceTensor", "ScaleTensor", "BiasTensor", "OutputTensor")
_GRAD = (
    "InputTensor",
    "InputGradientTensor",
    "MeanTensor",
    "VarianceTensor",
    "ScaleTensor",
    "OutputGradientTensor",
    "OutputScaleGradientTensor",
    "OutputBiasGradientTensor",
)
_TRAINING = (
    "InputTensor",
    "ScaleTensor",
    "BiasTensor",
    "FusedAddTensor",
    "OutputTensor",
    "OutputMeanTensor",
    "OutputVarianceTensor",
)
_ANY_RANK = (1, 8)
_GRAD_PAGE = (
    "MeanTensor, OutputBiasGradientTensor, OutputScaleGradientTensor, ScaleTensor and VarianceTensor must have the "
    "same Sizes; InputGradientTensor, InputTensor and OutputGradientTensor must have the same Sizes"
)


class BatchNormalizationOperatorDesc(NormalizationDesc):
    """DML_BATCH_NORMALIZATION_OPERATOR_DESC: OutputTensor = FusedActivation(Scale * (Input - Mean) / sqrt(Variance
    + Epsilon) + Bias), with the statistics given."""

    OPERATOR_TYPE = OperatorType.BATCH_NORMALIZATION
    BUILDER_NAME = "batch_normalization"
    ONNX_OPS = ("BatchNormalization",)
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE, frozenset(), float_rows(_BN, ((L.FL_1_0, (4, 4)), (L.FL_3_1, _ANY_RANK)))
    )
    INPUTS = ("input_tensor", "mean_tensor", "variance_tensor", "scale_tensor", "bias_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = ((*INPUTS, "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    BROADCAST = INPUTS[1:]

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the data, { InputDimensions[] }."""
    mean_tensor: TensorDesc = Field(alias="MeanTensor")
    """MeanTensor: the mean; each dimension 1 (broadcast) or InputTensor's."""
    variance_tensor: TensorDesc = Field(alias="VarianceTensor")
    """VarianceTensor: the variance; each dimension 1 (broadcast) or InputTensor's."""
    scale_tensor: TensorDesc = Field(alias="ScaleTensor")
    """ScaleTensor: the scale; each dimension 1 (broadcast) or InputTensor's."""
    bias_tensor: TensorDesc = Field(alias="BiasTensor")
    """BiasTensor: the bias; each dimension 1 (broadcast) or InputTensor's."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's Sizes and DataType."""
    spatial: Bool = Field(alias="Spatial")
    """Spatial (BOOL): FALSE requires MeanTensor's and VarianceTensor's Height and Width (the spatial dimensions,
    from dimension 2 on) not to broadcast; deprecated from DML_FEATURE_LEVEL_4_0, where it has no effect."""
    epsilon: float = Field(alias="Epsilon")
    """Epsilon (FLOAT): added to the variance, to avoid dividing by zero."""
    fused_activation: FusedActivation | None = Field(default=None, alias="FusedActivation")
    """FusedActivation: an activation applied to the result (its tensors null), or null."""

    def check_normalization_rules(self, level: FeatureLevel) -> None:
        if not self.spatial and level < L.FL_4_0:
            sizes = self.input_tensor.desc.sizes
            for field in ("mean_tensor", "variance_tensor"):
                given = getattr(self, field).desc.sizes
                for dim in range(2, len(sizes)):  # { N, C, spatial dimensions.. }
                    if given[dim] != sizes[dim]:
                        raise InvalidArgumentError(
                            f"{self.operator_name()}.{self.c_field(field)}.Sizes[{dim}] is {given[dim]}; with Spatial "
                            f"FALSE it must be InputTensor.Sizes[{dim}] ({sizes[dim]}): Spatial FALSE forbids "
                            "broadcasting MeanTensor's and VarianceTensor's Height and Width (the spatial "
                            "dimensions, after BatchCount and ChannelCount) below DML_FEATURE_LEVEL_4_0 "
                            f"({level.c_name} was asked); set Spatial TRUE, or from DML_FEATURE_LEVEL_4_0 Spatial "
                            "has no effect"
                        )
        self.check_fused_activation(level, self.fused_activation)

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        """elementwise_ops.h's ``batch_normalization`` of the five inputs' values, FusedActivation's own expression
        on the result (rounded to half first at FLOAT16, as the activation node alone would read it). Pointwise:
        a graph fuses it with the element-wise nodes around it."""
        value = f"batch_normalization({', '.join(str(name) for name in inputs)}, {float_literal(self.epsilon)})"
        if self.fused_activation is not None:
            value = self.fused_activation.applied(value, self.output_tensor, "BATCH_NORMALIZATION.FusedActivation")
        return value

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """The element-wise template over InputTensor's Sizes with ``expression``, each statistic and parameter read
        with 0 strides where it broadcasts."""
        tensors = [tensor.desc for tensor in (*self.input_tensors(), self.output_tensor) if tensor is not None]
        layout = blocked_layout(self.input_tensor.desc.sizes, [(t.sizes, t.effective_strides) for t in tensors])
        types = [value_type(t.data_type) for t in tensors]
        assert all(types), "BATCH_NORMALIZATION's tensors are FLOAT32 or FLOAT16"
        names = [load_name(k) for k in range(len(self.INPUTS))]
        output = len(names)
        return elementwise_kernel(
            types,  # type: ignore[arg-type]  # every one present (the assert)
            range(output),
            [Statement(self.expression(names), types[output], self.operator_name())],  # type: ignore[arg-type]
            [(output, 0)],
            layout,
            profile,
            fused=False,
            may_alias=False,
        )


class _StatisticsGradDesc(NormalizationDesc):
    """The two gradients' tensors and rules: Input and InputGradient of one Sizes, Mean, Variance and Scale of
    another (each dimension 1 or Input's); OutputGradient has Input's Sizes, the Scale and Bias gradients Mean's."""

    INPUTS = ("input_tensor", "input_gradient_tensor", "mean_tensor", "variance_tensor", "scale_tensor")
    OUTPUTS = ("output_gradient_tensor", "output_scale_gradient_tensor", "output_bias_gradient_tensor")
    SAME_DATA_TYPE = ((*INPUTS, *OUTPUTS),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    SAME_SIZES = (("input_tensor", "input_gradient_tensor"), ("mean_tensor", "variance_tensor", "scale_tensor"))
    BROADCAST = ("mean_tensor",)
    OUTPUT_SIZES_OF: ClassVar[dict[str, str]] = {
        "output_gradient_tensor": "input_tensor",
        "output_scale_gradient_tensor": "mean_tensor",
        "output_bias_gradient_tensor": "mean_tensor",
    }
    PAGE_SIZES = _GRAD_PAGE

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the forward operator's input, { InputDimensions[] }."""
    input_gradient_tensor: TensorDesc = Field(alias="InputGradientTensor")
    """InputGradientTensor: the incoming gradient; InputTensor's Sizes."""
    mean_tensor: TensorDesc = Field(alias="MeanTensor")
    """MeanTensor: the mean, { MeanDimensions[] }: each dimension 1 (summed over) or InputTensor's."""
    variance_tensor: TensorDesc = Field(alias="VarianceTensor")
    """VarianceTensor: the variance; MeanTensor's Sizes."""
    scale_tensor: TensorDesc = Field(alias="ScaleTensor")
    """ScaleTensor: the scale; MeanTensor's Sizes."""
    output_gradient_tensor: TensorDesc = Field(alias="OutputGradientTensor")
    """OutputGradientTensor: the gradient of the input; InputTensor's Sizes."""
    output_scale_gradient_tensor: TensorDesc = Field(alias="OutputScaleGradientTensor")
    """OutputScaleGradientTensor: the gradient of the scale; MeanTensor's Sizes."""
    output_bias_gradient_tensor: TensorDesc = Field(alias="OutputBiasGradientTensor")
    """OutputBiasGradientTensor: the gradient of the bias; MeanTensor's Sizes."""
    epsilon: float = Field(alias="Epsilon")
    """Epsilon (FLOAT): added to the variance, to avoid dividing by zero."""


class BatchNormalizationGradOperatorDesc(_StatisticsGradDesc):
    """DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC: the gradients of BATCH_NORMALIZATION with the statistics taken as
    given: OutputGradient = InputGradient * Scale / sqrt(Variance + Epsilon); OutputScaleGradient = sum(InputGradient
    * (Input - Mean) / sqrt(Variance + Epsilon)); OutputBiasGradient = sum(InputGradient), the sums over the
    dimensions where MeanTensor has size 1."""

    OPERATOR_TYPE = OperatorType.BATCH_NORMALIZATION_GRAD
    SUPPORT = SupportTable.per_tensor(OPERATOR_TYPE, frozenset(), float_rows(_GRAD, ((L.FL_3_1, _ANY_RANK),)))


class BatchNormalizationTrainingGradOperatorDesc(_StatisticsGradDesc):
    """DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC: the gradients of BATCH_NORMALIZATION_TRAINING (the
    statistics the batch's own): OutputGradient = Scale / sqrt(Variance + Epsilon) * (InputGradient -
    mean(InputGradient) - (Input - Mean) * mean(InputGradient * (Input - Mean)) / (Variance + Epsilon)); the Scale
    and Bias gradients as BATCH_NORMALIZATION_GRAD's."""

    OPERATOR_TYPE = OperatorType.BATCH_NORMALIZATION_TRAINING_GRAD
    SUPPORT = SupportTable.per_tensor(OPERATOR_TYPE, frozenset(), float_rows(_GRAD, ((L.FL_4_1, _ANY_RANK),)))


class BatchNormalizationTrainingOperatorDesc(NormalizationDesc):
    """DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC: Mean and Variance computed from InputTensor over the
    dimensions where ScaleTensor has size 1 and written out; OutputTensor = FusedActivation(Scale * (Input - Mean) /
    sqrt(Variance + Epsilon) + Bias + FusedAdd)."""

    OPERATOR_TYPE = OperatorType.BATCH_NORMALIZATION_TRAINING
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE, frozenset({"FusedAddTensor"}), float_rows(_TRAINING, ((L.FL_4_1, _ANY_RANK),))
    )
    INPUTS = ("input_tensor", "scale_tensor", "bias_tensor", "fused_add_tensor")
    OUTPUTS = ("output_tensor", "output_mean_tensor", "output_variance_tensor")
    SAME_DATA_TYPE = ((*INPUTS, *OUTPUTS),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    SAME_SIZES = (("input_tensor", "fused_add_tensor"), ("scale_tensor", "bias_tensor"))
    BROADCAST = ("scale_tensor",)
    OUTPUT_SIZES_OF: ClassVar[dict[str, str]] = {
        "output_mean_tensor": "scale_tensor",
        "output_variance_tensor": "scale_tensor",
    }
    PAGE_SIZES = (
        "BiasTensor, OutputMeanTensor, OutputVarianceTensor and ScaleTensor must have the same Sizes; "
        "FusedAddTensor, InputTensor and OutputTensor must have the same Sizes"
    )

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the data, { InputDimensions[] }."""
    scale_tensor: TensorDesc = Field(alias="ScaleTensor")
    """ScaleTensor: the scale, { ScaleDimensions[] }: each dimension 1 (the statistics reduce along it) or
    InputTensor's."""
    bias_tensor: TensorDesc = Field(alias="BiasTensor")
    """BiasTensor: the bias; ScaleTensor's Sizes."""
    fused_add_tensor: TensorDesc | None = Field(default=None, alias="FusedAddTensor")
    """FusedAddTensor: added to the result before FusedActivation; InputTensor's Sizes; null adds nothing."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's Sizes and DataType."""
    output_mean_tensor: TensorDesc = Field(alias="OutputMeanTensor")
    """OutputMeanTensor: the mean the operator computes; ScaleTensor's Sizes."""
    output_variance_tensor: TensorDesc = Field(alias="OutputVarianceTensor")
    """OutputVarianceTensor: the variance the operator computes; ScaleTensor's Sizes."""
    epsilon: float = Field(alias="Epsilon")
    """Epsilon (FLOAT): added to the variance, to avoid dividing by zero."""
    fused_activation: FusedActivation | None = Field(default=None, alias="FusedActivation")
    """FusedActivation: an activation applied to OutputTensor's result (its tensors null), or null."""

    def check_normalization_rules(self, level: FeatureLevel) -> None:
        self.check_fused_activation(level, self.fused_activation, "output_tensor")


BATCH_NORMALIZATION_OPERATORS = (
    BatchNormalizationOperatorDesc,
    BatchNormalizationGradOperatorDesc,
    BatchNormalizationTrainingOperatorDesc,
    BatchNormalizationTrainingGradOperatorDesc,
)
"""The batch normalizations, in the operator table's order (by OperatorType value)."""
