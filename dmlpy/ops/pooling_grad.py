"""The pooling family's backward operators, from Microsoft's pages: DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC and
DML_MAX_POOLING_GRAD_OPERATOR_DESC (FL 3_0), and DML_MAX_UNPOOLING_OPERATOR_DESC (DirectML.h: FL 2_0).

A gradient's window fields are its forward operator's: the forward pass's input has the Sizes of
OutputGradientTensor (and MAX_POOLING_GRAD's InputTensor), its output those of InputGradientTensor, and the window
rule of ``_pooling`` relates the two. MAX_UNPOOLING has no window: it writes InputTensor's values at IndicesTensor's
positions of an OutputTensor whose Sizes the caller chooses. MAX_UNPOOLING runs (a plan: generators.cl's fill of
OutputTensor with 0, then ``opencl/pooling.cl``'s max_unpooling); the gradients are validated and do not run yet.

Where the pages disagree with the header: MAX_UNPOOLING's page says DML_FEATURE_LEVEL_3_0 (its Availability and
first table); DirectML.h puts DML_OPERATOR_MAX_UNPOOLING (92) in its DML_TARGET_VERSION >= 0x2000 block and the
feature-level history lists it among the 2_0 additions. dmlpy follows the header: the page's 3_0 table holds from
FL 2_0. MAX_POOLING_GRAD's DimensionCount text says only 4-D tensors, so only 2; its own FL 4_0 table allows 5-D
tensors, and dmlpy follows the table (DimensionCount 3 for a 5-D tensor).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile
from dmlpy.kernels.generators import fill_kernel
from dmlpy.kernels.plan import OperatorPlan, PlannedStep, PlanRef
from dmlpy.kernels.pooling import unpooling_kernel
from dmlpy.model import Bool, UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._pooling import DILATED_ARRAYS, WINDOW_ARRAYS, PoolingDesc, directml_type, window_formula
from dmlpy.ops._structured import StructuredDesc
from dmlpy.ops._types import FLOATS, INTEGERS_8_32, INTEGERS_64
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L, T = FeatureLevel, TensorDataType
_GRADIENTS = ("InputGradientTensor", "OutputGradientTensor")
_MAX_GRAD = ("InputTensor", *_GRADIENTS)


class AveragePoolingGradOperatorDesc(PoolingDesc):
    """DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC: AVERAGE_POOLING's backward pass; each incoming gradient spread
    evenly over the elements of the window that made it, overlaps summed."""

    OPERATOR_TYPE = OperatorType.AVERAGE_POOLING_GRAD
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE, frozenset(), ((L.FL_3_0, dict.fromkeys(_GRADIENTS, ((4, 5), FLOATS))),)
    )
    INPUTS = ("input_gradient_tensor",)
    OUTPUTS = ("output_gradient_tensor",)
    SAME_DATA_TYPE = (("input_gradient_tensor", "output_gradient_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"dimension_count": WINDOW_ARRAYS}
    FORWARD_INPUT, FORWARD_OUTPUT = "output_gradient_tensor", "input_gradient_tensor"

    input_gradient_tensor: TensorDesc = Field(alias="InputGradientTensor")
    """InputGradientTensor: the gradient of the forward pass's output, whose Sizes it has."""
    output_gradient_tensor: TensorDesc = Field(alias="OutputGradientTensor")
    """OutputGradientTensor: the gradient of the forward pass's input, whose Sizes it has (the window rule on them
    gives InputGradientTensor's); InputGradientTensor's DataType."""
    # Left out, it is derived from the arrays (OperatorDescBase._count_the_arrays): after construction an int.
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, OutputGradientTensor.DimensionCount - 2; sizes the arrays below."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the forward window's step along each spatial dimension, at least 1."""
    window_size: tuple[UInt32, ...] = Field(alias="WindowSize")
    """WindowSize: the forward window's elements along each spatial dimension, at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: the forward pass's padding before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: the forward pass's padding after each spatial dimension."""
    include_padding: Bool = Field(alias="IncludePadding")
    """IncludePadding (BOOL): whether the forward average counted padding elements in its divisor."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """The forward pass's input: Sizes the caller chooses (several give the same forward output), which the
        window rule must take to InputGradientTensor's; InputGradientTensor's DataType."""
        gradient = inputs["input_gradient_tensor"]
        assert gradient is not None
        rule = (
            "the forward pass's input Sizes, the caller's choice: BatchCount and ChannelCount InputGradientTensor's, "
            f"and per spatial dimension i {window_formula('OutputGradientTensor', False)} must give "
            "InputGradientTensor.Sizes[2 + i]"
        )
        return (OutputShape(None, directml_type(gradient), rule),)


class MaxPoolingGradOperatorDesc(PoolingDesc):
    """DML_MAX_POOLING_GRAD_OPERATOR_DESC: MAX_POOLING2's backward pass; each incoming gradient added at the
    position of its window's maximum in InputTensor (ties: the lowest index), the other elements 0."""

    OPERATOR_TYPE = OperatorType.MAX_POOLING_GRAD
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset(),
        (
            (L.FL_3_0, dict.fromkeys(_MAX_GRAD, ((4, 4), FLOATS))),
            (L.FL_4_0, dict.fromkeys(_MAX_GRAD, ((4, 5), FLOATS))),
        ),
    )
    INPUTS = ("input_tensor", "input_gradient_tensor")
    OUTPUTS = ("output_gradient_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "input_gradient_tensor", "output_gradient_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"dimension_count": DILATED_ARRAYS}
    DILATED = True
    FORWARD_INPUT, FORWARD_OUTPUT = "input_tensor", "input_gradient_tensor"

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the forward pass's input, {BatchCount, ChannelCount, [Depth], Height, Width}."""
    input_gradient_tensor: TensorDesc = Field(alias="InputGradientTensor")
    """InputGradientTensor: the gradient of the forward pass's output; the window rule's Sizes on InputTensor."""
    output_gradient_tensor: TensorDesc = Field(alias="OutputGradientTensor")
    """OutputGradientTensor: the gradient of InputTensor, its Sizes and DataType."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor.DimensionCount - 2; sizes the arrays below."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the forward window's step along each spatial dimension, at least 1."""
    window_size: tuple[UInt32, ...] = Field(alias="WindowSize")
    """WindowSize: the forward window's elements along each spatial dimension, at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: the forward pass's padding before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: the forward pass's padding after each spatial dimension."""
    dilations: tuple[UInt32, ...] = Field(alias="Dilations")
    """Dilations: the forward window's distance between elements along each spatial dimension, at least 1."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor's Sizes and DataType (the page: InputTensor and OutputGradientTensor must have the same
        Sizes)."""
        x = inputs["input_tensor"]
        assert x is not None
        rule = "InputTensor's Sizes and DataType (the page: InputTensor and OutputGradientTensor have the same Sizes)"
        return (OutputShape(x.sizes, directml_type(x), rule),)


_UNPOOLED_TYPES = FLOATS | INTEGERS_8_32 | INTEGERS_64


class MaxUnpoolingOperatorDesc(StructuredDesc):
    """DML_MAX_UNPOOLING_OPERATOR_DESC: OutputTensor zero-filled, then each InputTensor value written at the
    position IndicesTensor gives (OutputTensor read as a contiguous 1-D array): the inverse of MAX_POOLING1."""

    OPERATOR_TYPE = OperatorType.MAX_UNPOOLING
    BUILDER_NAME = "max_unpooling"
    ONNX_OPS = ("MaxUnpool",)
    # The page's tables start at 3_0; DirectML.h (the 0x2000 block) and the feature-level history say 2_0: dmlpy
    # follows the header, the page's first table from 2_0.
    SUPPORT = SupportTable.per_tensor(
        OPERATOR_TYPE,
        frozenset(),
        (
            (
                L.FL_2_0,
                {
                    "InputTensor": ((4, 4), FLOATS),
                    "IndicesTensor": ((4, 4), frozenset({T.UINT32})),
                    "OutputTensor": ((4, 4), FLOATS),
                },
            ),
            (
                L.FL_5_0,
                {
                    "InputTensor": ((4, 4), _UNPOOLED_TYPES),
                    "IndicesTensor": ((4, 4), frozenset({T.UINT32, T.UINT64})),
                    "OutputTensor": ((4, 4), _UNPOOLED_TYPES),
                },
            ),
        ),
    )
    INPUTS = ("input_tensor", "indices_tensor")
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = (("input_tensor", "indices_tensor", "output_tensor"),)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {Batch, Channel, Height, Width}, the values (MAX_POOLING1's OutputTensor)."""
    indices_tensor: TensorDesc = Field(alias="IndicesTensor")
    """IndicesTensor: InputTensor's Sizes, UINT32 (UINT64 too from FL 5_0): each value's zero-based position in
    OutputTensor read as a contiguous 1-D array (MAX_POOLING1's OutputIndicesTensor)."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DimensionCount and DataType, Sizes of the caller's choice."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """Sizes the caller chooses (the page derives none: IndicesTensor addresses them); InputTensor's DataType."""
        x = inputs["input_tensor"]
        assert x is not None
        rule = "Sizes of the caller's choice, InputTensor's DimensionCount; InputTensor's DataType"
        return (OutputShape(None, directml_type(x), rule),)

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """OutputTensor filled with 0, then each InputTensor element written at its index (OutputTensor read as a
        packed row-major array; an index past its elements writes nothing; of elements sharing an index one is
        written, which one unspecified: docs/operators/pooling.md)."""
        x, indices, y = self.input_tensor.desc, self.indices_tensor.desc, self.output_tensor.desc
        output_type = directml_type(y)
        zero = fill_kernel(output_type, y.sizes, y.effective_strides, 0, profile)
        scatter = unpooling_kernel(
            output_type,
            directml_type(indices),
            x.sizes,
            x.effective_strides,
            indices.effective_strides,
            y.sizes,
            y.effective_strides,
            profile,
        )
        refs = (PlanRef("input", 0), PlanRef("input", 1), PlanRef("output", 0))
        return OperatorPlan((PlannedStep(zero, (PlanRef("output", 0),)), PlannedStep(scatter, refs)))

    def check_shape_rules(self, level: FeatureLevel) -> None:
        given, wanted = self.indices_tensor.desc.sizes, self.input_tensor.desc.sizes
        if given != wanted:
            raise InvalidArgumentError(
                f"{self.operator_name()}.IndicesTensor.Sizes is {list(given)}; it must be InputTensor's, "
                f"{list(wanted)} (the page: InputTensor and IndicesTensor have the same Sizes, one index per value)"
            )


POOLING_BACKWARD_OPERATORS = (MaxUnpoolingOperatorDesc, AveragePoolingGradOperatorDesc, MaxPoolingGradOperatorDesc)
"""The operators that undo or differentiate pooling, by OperatorType value."""
