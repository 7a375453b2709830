"""The integer convolutions: DML_CONVOLUTION_INTEGER_OPERATOR_DESC (FL 2_1, ONNX ConvInteger) and
DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC (FL 2_1, ONNX QLinearConv), from Microsoft's pages.

Each is a forward cross-correlation (no Mode, Direction, OutputPadding or FusedActivation) with ``_convolution``'s
window rule, after taking away the zero points and (the quantized form) multiplying by the scales. The input's
scale and zero point hold one value; the filter's one value or one per output channel; the quantized output's one
value. They run as ``_convolution``'s plan (the input unfolded, its padding the input's zero point, gemm.cl's integer
contraction per batch and group, each operator's epilogue); a depth-wise one (GroupCount = InputChannelCount =
OutputChannelCount) as one launch of depthwise.cl's direct ``depthwise``, the same exact integer sum and
requantization (``opencl/requantize.h``, shared with gemm.cl).

Where a page disagrees with itself: both say of DimensionCount "only a value of 2 is supported", while their FL 4_0
tables allow 3-D tensors (one spatial dimension); dmlpy follows the tables (DimensionCount is the tensors' less 2).
QUANTIZED_LINEAR_CONVOLUTION's OutputZeroPointTensor text calls it "the filter zero point data": it is the output's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.kernels.contraction import contraction_kernel
from dmlpy.kernels.convolution import Operand, depthwise_plan
from dmlpy.kernels.launch import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.plan import OperatorPlan, PlanRef
from dmlpy.model import UInt32
from dmlpy.ops._convolution import ConvolutionWindowDesc
from dmlpy.support import SupportTable
from dmlpy.tensor import TensorDesc

L, T = FeatureLevel, TensorDataType
_BYTES = frozenset({T.INT8, T.UINT8})
_FLOAT32 = frozenset({T.FLOAT32})
_INT32 = frozenset({T.INT32})
Dims = tuple[int, int]


def _row(
    dims: Mapping[str, Dims], types: Mapping[str, frozenset[TensorDataType]]
) -> dict[str, tuple[Dims, frozenset[TensorDataType]]]:
    return {name: (dims[name], types[name]) for name in types}


_CI_TYPES = {
    "InputTensor": _BYTES,
    "InputZeroPointTensor": _BYTES,
    "FilterTensor": _BYTES,
    "FilterZeroPointTensor": _BYTES,
    "OutputTensor": _INT32,
}
_WINDOWED = ("InputTensor", "FilterTensor", "BiasTensor", "OutputTensor")
_PRESENCE = {
    "input_zero_point_tensor": "HAS_B_ZERO",
    "filter_zero_point_tensor": "HAS_A_ZERO",
    "output_zero_point_tensor": "HAS_OUT_ZERO",
    "bias_tensor": "HAS_BIAS",
}
"""gemm.cl's define saying whether each optional tensor is given: the filter is A, the unfolded input B."""


class _IntegerConvolutionDesc(ConvolutionWindowDesc):
    """An integer convolution: gemm.cl's integer contraction of the filter (A) with the unfolded input (B), whose
    padding is the input's zero point."""

    PADDING_VALUE = "input_zero_point_tensor"
    PRODUCT: ClassVar[str] = "QUANTIZED_LINEAR_CONVOLUTION"
    """gemm.cl's operator (GEMM_CL_OPERATORS) whose epilogue this operator's is."""
    CONTRACTION: ClassVar[tuple[str, ...]] = ()
    """The operator's tensors in gemm.cl's binding order, ``filter_tensor`` standing for A, ``input_tensor`` for B."""

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """A depth-wise convolution in one launch (depthwise.cl's ``depthwise``, the same integer sum and
        requantization as gemm.cl's), any other as im2col."""
        geometry = self.geometry()
        if not geometry.depthwise:
            return super().plan(profile)
        tensors = [
            (field.removesuffix("_tensor"), self.slot(field), None if (t := getattr(self, field)) is None else t.desc)
            for field in (*self.INPUTS, *self.OUTPUTS)
        ]
        types = {f"{name.upper()}_T": desc for name, _, desc in tensors if name in ("input", "filter", "output")}
        defines = (
            ("INTEGER_SUM", "1"),
            ("QUANTIZED", str(int(self.PRODUCT == "QUANTIZED_LINEAR_CONVOLUTION"))),
            *((name, DATA_TYPES[desc.data_type].opencl_storage) for name, desc in types.items() if desc is not None),
            # convolution.cl's HAS_INPUT_ZERO, HAS_FILTER_ZERO, HAS_BIAS, HAS_OUTPUT_ZERO.
            *(
                (f"HAS_{field.removesuffix('_tensor').removesuffix('_point').upper()}", str(int(desc is not None)))
                for field, (_, _, desc) in zip(self.INPUTS, tensors, strict=False)
                if field in _PRESENCE
            ),
        )
        return depthwise_plan(geometry, tensors, defines, "", profile)

    def contraction(
        self, filter_operand: Operand, columns: Operand, output: Operand, profile: LaunchProfile
    ) -> tuple[LoweredOperator, tuple[PlanRef | None, ...]]:
        """gemm.cl's contraction of ``PRODUCT``: the matrices as the plan gives them, every scale, zero
        point and bias along the output channels (M) or one value."""
        operands = {"filter_tensor": filter_operand, "input_tensor": columns, "output_tensor": output}
        strides, refs = [], []
        for field in self.CONTRACTION:
            given = operands.get(field)
            strides.append(self.per_channel_strides(field) if given is None else given.strides)
            refs.append(self.slot(field) if given is None else given.ref)
        presence = tuple(
            (define, str(int(getattr(self, field) is not None)))
            for field, define in _PRESENCE.items()
            if field in self.CONTRACTION
        )
        types = (("A_T", "filter_tensor"), ("B_T", "input_tensor"), ("OUT_T", "output_tensor"))
        defines = tuple((name, DATA_TYPES[getattr(self, field).desc.data_type].opencl_storage) for name, field in types)
        lowered = contraction_kernel(self.PRODUCT, (*defines, *presence), self.geometry().domain, strides, profile)
        return lowered, tuple(refs)


class ConvolutionIntegerOperatorDesc(_IntegerConvolutionDesc):
    """DML_CONVOLUTION_INTEGER_OPERATOR_DESC: OutputTensor (INT32) = (InputTensor - InputZeroPoint) cross-correlated
    with (FilterTensor - FilterZeroPoint), forward; Input and Filter may differ in signedness."""

    OPERATOR_TYPE = OperatorType.CONVOLUTION_INTEGER
    ONNX_OPS = ("ConvInteger",)
    BUILDER_NAME = "convolution_integer"
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"InputZeroPointTensor", "FilterZeroPointTensor"}),
        (
            (L.FL_2_1, _row(dict.fromkeys(_CI_TYPES, (4, 4)), _CI_TYPES)),
            (L.FL_4_0, _row({n: (3, 4) if n in _WINDOWED else (1, 4) for n in _CI_TYPES}, _CI_TYPES)),
        ),
    )
    INPUTS = ("input_tensor", "input_zero_point_tensor", "filter_tensor", "filter_zero_point_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "input_zero_point_tensor"), ("filter_tensor", "filter_zero_point_tensor"))
    SAME_DIMENSION_COUNT = (
        ("input_zero_point_tensor", "filter_zero_point_tensor"),
        ("input_tensor", "filter_tensor", "output_tensor"),
    )
    OUTPUT_TYPE_OF, OUTPUT_TYPE = None, T.INT32
    PER_TENSOR = ("input_zero_point_tensor",)
    PER_OUTPUT_CHANNEL = ("filter_zero_point_tensor",)
    CONTRACTION = (
        "filter_tensor",
        "filter_zero_point_tensor",
        "input_tensor",
        "input_zero_point_tensor",
        "output_tensor",
    )
    PRODUCT = "MATRIX_MULTIPLY_INTEGER"

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, InputChannelCount, [InputHeight], InputWidth}, INT8 or UINT8."""
    input_zero_point_tensor: TensorDesc | None = Field(default=None, alias="InputZeroPointTensor")
    """InputZeroPointTensor: the input's zero point, one value ({1, 1, 1, 1}); InputTensor's DataType; null is 0."""
    filter_tensor: TensorDesc = Field(alias="FilterTensor")
    """FilterTensor: {OutputChannelCount, InputChannelCount / GroupCount, [FilterHeight], FilterWidth}, INT8 or
    UINT8."""
    filter_zero_point_tensor: TensorDesc | None = Field(default=None, alias="FilterZeroPointTensor")
    """FilterZeroPointTensor: the filter's zero point, one value or one per output channel ({1, OutputChannelCount,
    1, 1}); FilterTensor's DataType; null is 0."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {BatchCount, OutputChannelCount, [OutputHeight], OutputWidth}, INT32."""
    # Left out, it is derived from the arrays (COUNTED_ARRAYS), so after construction it is an int.
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor's DimensionCount less 2 (1 or 2); the entries of each
    array below. Derived when left out."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the filter's step per spatial dimension, each at least 1."""
    dilations: tuple[UInt32, ...] = Field(alias="Dilations")
    """Dilations: the distance between the filter's elements per spatial dimension, each at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: zeros (the input's zero point) before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: zeros (the input's zero point) after each spatial dimension."""
    group_count: UInt32 = Field(alias="GroupCount")
    """GroupCount: the groups the channels split into, at least 1; InputChannelCount divides by it."""


_QLC_TYPES = {
    "InputTensor": _BYTES,
    "InputScaleTensor": _FLOAT32,
    "InputZeroPointTensor": _BYTES,
    "FilterTensor": _BYTES,
    "FilterScaleTensor": _FLOAT32,
    "FilterZeroPointTensor": _BYTES,
    "BiasTensor": _INT32,
    "OutputScaleTensor": _FLOAT32,
    "OutputZeroPointTensor": _BYTES,
    "OutputTensor": _BYTES,
}
_QLC_4_0 = {n: (3, 4) if n in (*_WINDOWED, "FilterScaleTensor") else (1, 4) for n in _QLC_TYPES}


class QuantizedLinearConvolutionOperatorDesc(_IntegerConvolutionDesc):
    """DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC: InputTensor and FilterTensor dequantized ((x - ZeroPoint) *
    Scale), cross-correlated, BiasTensor added, and the result quantized: clamp(round(result / OutputScale) +
    OutputZeroPoint) into INT8 or UINT8."""

    OPERATOR_TYPE = OperatorType.QUANTIZED_LINEAR_CONVOLUTION
    ONNX_OPS = ("QLinearConv",)
    BUILDER_NAME = "quantized_linear_convolution"
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset({"InputZeroPointTensor", "FilterZeroPointTensor", "BiasTensor", "OutputZeroPointTensor"}),
        (
            (L.FL_2_1, _row(dict.fromkeys(_QLC_TYPES, (4, 4)), _QLC_TYPES)),
            (L.FL_4_0, _row(_QLC_4_0, _QLC_TYPES)),
            (L.FL_5_2, _row({**_QLC_4_0, "FilterScaleTensor": (1, 4)}, _QLC_TYPES)),
        ),
    )
    INPUTS = (
        "input_tensor",
        "input_scale_tensor",
        "input_zero_point_tensor",
        "filter_tensor",
        "filter_scale_tensor",
        "filter_zero_point_tensor",
        "bias_tensor",
        "output_scale_tensor",
        "output_zero_point_tensor",
    )
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (
        ("input_tensor", "input_zero_point_tensor"),
        ("filter_tensor", "filter_zero_point_tensor"),
        ("output_tensor", "output_zero_point_tensor"),
    )
    SAME_DIMENSION_COUNT = (("input_tensor", "filter_tensor", "bias_tensor", "output_tensor"),)
    OUTPUT_TYPE_OF = "output_zero_point_tensor"
    BIAS = "bias_tensor"
    PER_TENSOR = ("input_scale_tensor", "input_zero_point_tensor", "output_scale_tensor", "output_zero_point_tensor")
    PER_OUTPUT_CHANNEL = ("filter_scale_tensor", "filter_zero_point_tensor")
    CONTRACTION = (
        "filter_tensor",
        "filter_scale_tensor",
        "filter_zero_point_tensor",
        "input_tensor",
        "input_scale_tensor",
        "input_zero_point_tensor",
        "bias_tensor",
        "output_scale_tensor",
        "output_zero_point_tensor",
        "output_tensor",
    )

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, InputChannelCount, [InputHeight], InputWidth}, INT8 or UINT8."""
    input_scale_tensor: TensorDesc = Field(alias="InputScaleTensor")
    """InputScaleTensor: the input's scale (FLOAT32), one value."""
    input_zero_point_tensor: TensorDesc | None = Field(default=None, alias="InputZeroPointTensor")
    """InputZeroPointTensor: the input's zero point, one value; InputTensor's DataType; null is 0."""
    filter_tensor: TensorDesc = Field(alias="FilterTensor")
    """FilterTensor: {OutputChannelCount, InputChannelCount / GroupCount, [FilterHeight], FilterWidth}, INT8 or
    UINT8."""
    filter_scale_tensor: TensorDesc = Field(alias="FilterScaleTensor")
    """FilterScaleTensor: the filter's scale (FLOAT32), one value or one per output channel."""
    filter_zero_point_tensor: TensorDesc | None = Field(default=None, alias="FilterZeroPointTensor")
    """FilterZeroPointTensor: the filter's zero point, as FilterScaleTensor; FilterTensor's DataType; null is 0."""
    bias_tensor: TensorDesc | None = Field(default=None, alias="BiasTensor")
    """BiasTensor: {1, OutputChannelCount, [1], 1}, INT32, added per output channel; null adds nothing."""
    output_scale_tensor: TensorDesc = Field(alias="OutputScaleTensor")
    """OutputScaleTensor: the output's scale (FLOAT32), one value."""
    output_zero_point_tensor: TensorDesc | None = Field(default=None, alias="OutputZeroPointTensor")
    """OutputZeroPointTensor: the output's zero point, one value; OutputTensor's DataType; null is 0."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: {BatchCount, OutputChannelCount, [OutputHeight], OutputWidth}, INT8 or UINT8."""
    # Left out, it is derived from the arrays (COUNTED_ARRAYS), so after construction it is an int.
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor's DimensionCount less 2 (1 or 2); the entries of each
    array below. Derived when left out."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the filter's step per spatial dimension, each at least 1."""
    dilations: tuple[UInt32, ...] = Field(alias="Dilations")
    """Dilations: the distance between the filter's elements per spatial dimension, each at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: padding (the input's zero point) before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: padding (the input's zero point) after each spatial dimension."""
    group_count: UInt32 = Field(alias="GroupCount")
    """GroupCount: the groups the channels split into, at least 1; InputChannelCount divides by it."""


INTEGER_CONVOLUTION_OPERATORS = (ConvolutionIntegerOperatorDesc, QuantizedLinearConvolutionOperatorDesc)
"""The integer convolutions, in the operator table's order."""
