"""DML_CONVOLUTION_OPERATOR_DESC (DML_FEATURE_LEVEL_1_0): OutputTensor = FusedActivation(InputTensor convolved with
FilterTensor + BiasTensor), forward or backward (transposed), grouped by GroupCount (MicrosoftDocs/sdk-api
ns-directml-dml_convolution_operator_desc.md).

InputTensor, FilterTensor, BiasTensor and OutputTensor have the same DataType (FLOAT32 or FLOAT16) and DimensionCount
(4 to 5; 3 to 5 from FL 4_0); DimensionCount (the field) counts the spatial dimensions, the tensors' less 2, and sizes
Strides, Dilations, StartPadding, EndPadding and OutputPadding. The window rule is ``_convolution``'s. It runs as
``_convolution``'s plan (the input unfolded, gemm.cl's contraction per batch and group) with GEMM's epilogue: Alpha 1,
the bias as C (Beta 1, so the sum and the bias round once, an fma) and the FusedActivation's expression; FLOAT16 read
into float and rounded once to half. Mode CONVOLUTION reads the filter reversed along its spatial axes (the plan's
filter copy) in either direction: the page's "CROSS_CORRELATION + BACKWARD flips" is the flip a transposed convolution
written as a gather has already (ONNX's ConvTranspose is CROSS_CORRELATION BACKWARD, as onnxruntime's DirectML
provider maps it).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from dmlpy.enums import ConvolutionDirection, ConvolutionMode, FeatureLevel, OperatorType, TensorDataType
from dmlpy.kernels.contraction import contraction_kernel
from dmlpy.kernels.convolution import Operand, depthwise_plan
from dmlpy.kernels.launch import CPU_PROFILE, KernelParameter, LaunchProfile, LoweredOperator
from dmlpy.kernels.plan import OperatorPlan, PlanRef
from dmlpy.model import UInt32
from dmlpy.ops._convolution import ConvolutionWindowDesc, Window
from dmlpy.ops._normalization import activation_prelude
from dmlpy.ops._typed_values import value_bits
from dmlpy.ops._types import FLOATS
from dmlpy.ops.fused_activation import FusedActivation
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

L = FeatureLevel
_TENSORS = ("InputTensor", "FilterTensor", "BiasTensor", "OutputTensor")


class ConvolutionOperatorDesc(ConvolutionWindowDesc):
    """DML_CONVOLUTION_OPERATOR_DESC: OutputTensor = FusedActivation(InputTensor convolved with FilterTensor +
    BiasTensor); Mode and Direction choose whether the filter is flipped and whether the convolution is transposed,
    GroupCount splits the channels into groups (GroupCount = InputChannelCount: depth-wise)."""

    OPERATOR_TYPE = OperatorType.CONVOLUTION
    ONNX_OPS = ("Conv", "ConvTranspose")
    BUILDER_NAME = "convolution"
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"BiasTensor"}),
        (
            (L.FL_1_0, dict.fromkeys(_TENSORS, ((4, 5), FLOATS))),
            (L.FL_4_0, dict.fromkeys(_TENSORS, ((3, 5), FLOATS))),
        ),
    )
    INPUTS = ("input_tensor", "filter_tensor", "bias_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "filter_tensor", "bias_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {
        "dimension_count": ("strides", "dilations", "start_padding", "end_padding", "output_padding")
    }
    BIAS = "bias_tensor"

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, InputChannelCount, [InputDepth], [InputHeight], InputWidth}."""
    filter_tensor: TensorDesc = Field(alias="FilterTensor")
    """FilterTensor: {OutputChannelCount, InputChannelCount / GroupCount, [FilterDepth], [FilterHeight],
    FilterWidth} under FORWARD; {InputChannelCount, OutputChannelCount / GroupCount, ...} under BACKWARD."""
    bias_tensor: TensorDesc | None = Field(default=None, alias="BiasTensor")
    """BiasTensor: {1, OutputChannelCount, [1], [1], 1}, one value added per output channel; null adds nothing."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {BatchCount, OutputChannelCount, [OutputDepth], [OutputHeight], OutputWidth}, the window rule's
    Sizes."""
    mode: ConvolutionMode = Field(alias="Mode")
    """Mode: CONVOLUTION or CROSS_CORRELATION; with Direction, whether the filter is flipped."""
    direction: ConvolutionDirection = Field(alias="Direction")
    """Direction: FORWARD, or BACKWARD (the transposed convolution)."""
    # Left out, it is derived from the arrays (COUNTED_ARRAYS), so after construction it is an int.
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor's DimensionCount less 2 (1 to 3); the entries of each
    array below. Derived when left out."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the filter's step per spatial dimension, each at least 1."""
    dilations: tuple[UInt32, ...] = Field(alias="Dilations")
    """Dilations: the distance between the filter's elements per spatial dimension, each at least 1 (1: dense)."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: zeros before each spatial dimension (BACKWARD: cropped from the output's start)."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: zeros after each spatial dimension (BACKWARD: cropped from the output's end)."""
    output_padding: tuple[UInt32, ...] = Field(alias="OutputPadding")
    """OutputPadding: added to the end of each of the output's spatial dimensions (ONNX ConvTranspose's
    output_padding; 0 for an ordinary convolution)."""
    group_count: UInt32 = Field(alias="GroupCount")
    """GroupCount: the groups the channels split into, at least 1; InputChannelCount divides by it."""
    fused_activation: FusedActivation | None = Field(default=None, alias="FusedActivation")
    """FusedActivation: an activation applied to the result (its tensors null), or null."""

    def check_convolution_rules(self, level: FeatureLevel, window: Window) -> None:
        self.check_fused_activation(level, self.fused_activation)

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """A depth-wise convolution in one launch (depthwise.cl's ``depthwise``), any other as im2col."""
        geometry = self.geometry()
        if not geometry.depthwise:
            return super().plan(profile)
        tensors = [
            (name, self.slot(field), None if (tensor := getattr(self, field)) is None else tensor.desc)
            for name, field in zip(("input", "filter", "bias", "output"), (*self.INPUTS, *self.OUTPUTS), strict=True)
        ]
        half = self.input_tensor.desc.data_type == TensorDataType.FLOAT16
        defines = (("DML_FLOAT16", str(int(half))), ("HAS_BIAS", str(int(self.bias_tensor is not None))))
        prelude = activation_prelude(
            self.fused_activation, self.output_tensor, f"{self.operator_name()}.FusedActivation"
        )
        return depthwise_plan(geometry, tensors, defines, prelude, profile)

    def flipped(self) -> bool:
        # The page's flips are those of the gather over the input: BACKWARD's gather (convolution.cl's) already reads
        # the filter reversed against FORWARD's, so CROSS_CORRELATION BACKWARD is ONNX's ConvTranspose as stored.
        return self.mode == ConvolutionMode.CONVOLUTION

    def contraction(
        self, filter_operand: Operand, columns: Operand, output: Operand, profile: LaunchProfile
    ) -> tuple[LoweredOperator, tuple[PlanRef | None, ...]]:
        """GEMM's contraction: Alpha and Beta 1, the bias as C along the output channels, the FusedActivation."""
        half = self.input_tensor.desc.data_type == TensorDataType.FLOAT16
        defines = (
            ("A_T", "ushort" if half else "float"),
            ("DML_FLOAT16", str(int(half))),
            ("HAS_C", str(int(self.bias_tensor is not None))),
        )
        ones = tuple(value_bits(1.0, TensorDataType.FLOAT32) for _ in range(2))
        lowered = contraction_kernel(
            "GEMM",
            defines,
            self.geometry().domain,
            [filter_operand.strides, columns.strides, self.per_channel_strides("bias_tensor"), output.strides],
            profile,
            prelude=activation_prelude(
                self.fused_activation, self.output_tensor, f"{self.operator_name()}.FusedActivation"
            ),
            parameters=(KernelParameter("uint8", ones),),
        )
        return lowered, (filter_operand.ref, columns.ref, self.slot("bias_tensor"), output.ref)
