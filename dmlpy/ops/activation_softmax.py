"""DirectML's axis-reducing activations (docs/operators/activation_softmax.md): ACTIVATION_SOFTMAX1,
LOG_SOFTMAX1 and HARDMAX1 (DML_FEATURE_LEVEL_5_1: AxisCount and Axes, a reduction over any set of axes) and the
older ACTIVATION_SOFTMAX, LOG_SOFTMAX and HARDMAX (1_0: per row along the last dimension of an input of effective
rank at most 2), FLOAT32 and FLOAT16.

They are not element-wise: each output element reads its whole group (the elements that share its coordinates
along the other axes), so they never join a fused kernel; each runs its own kernel, ``opencl/softmax.cl``
(dmlpy/kernels/reduction.py), alone and as a node of a graph: its ROWS path (eight lanes along a row,
``opencl/softmax_lanes.h``) where every group is one run of consecutive elements in both tensors (``rows_layout``),
its walk through the strides otherwise. Their arithmetic, accuracy and special values are that file's header
comment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from pydantic import Field, model_validator

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.coalescing import ElementwiseLayout
from dmlpy.kernels.reduction import reduction_kernel, reduction_layout
from dmlpy.model import UInt32
from dmlpy.ops._types import FLOATS
from dmlpy.ops._unary import UnaryElementWiseDesc
from dmlpy.ops.activation_piecewise import activation_table, floats_since

SOFTMAX_ULPS = 18
"""SOFTMAX's FLOAT32 bound, derived from the kernel's arithmetic with OpenCL's bounds for its built-ins (exp 3 ULPs)
in docs/operators/activation_softmax.md: the numerator's 7 units of roundoff (u = 2^-24), the sum's 10 and the
division's 1, 18 u in all, which is 18 ULPs at most. Measured: 2.99 ULPs at most on PoCL and Intel's CPU runtime
(the same bits), 4.66 on an NVIDIA H100 before the rows walk and float_math.h's exp."""
LOG_SOFTMAX_ULPS = 15
"""LOG_SOFTMAX's, derived as SOFTMAX's (log1p 2 ULPs): the sum's error through log1p, 9 ULPs at most, log1p's own
4 and the two roundings' 2. Measured: 4.07 ULPs at most on PoCL and Intel's (the same bits), 4.58 on the H100
before the rows walk and float_math.h's exp."""


_ROW_LIMIT = 2**32
"""softmax.cl's ROWS path counts a row's elements in uint: rows shorter than this only."""


def rows_layout(layout: ElementwiseLayout, kept_rank: int) -> bool:
    """Whether softmax.cl's ROWS path serves ``layout`` (``reduction_layout``'s): the reduced dimensions coalesced
    into one of stride 1 in the input and the output, shorter than 2^32."""
    reduced = layout.sizes[kept_rank:]
    return len(reduced) == 1 and reduced[0] < _ROW_LIMIT and all(strides[kept_rank] == 1 for strides in layout.strides)


class AxisReducingDesc(UnaryElementWiseDesc):
    """Base of the six: InputTensor and OutputTensor of one DataType, DimensionCount and Sizes; OPERATION names
    the kernel's result (``opencl/softmax.cl``); ``reduced_axes`` says which dimensions a group spans."""

    OPERATION: ClassVar[str]
    """SOFTMAX, LOG_SOFTMAX or HARDMAX: softmax.cl's OPERATION."""
    SUPPORTS_IN_PLACE = False  # the pages make no in-place statement
    BARE_FORM = False  # the older forms have Identity's fields; the "1" forms share theirs with one another

    def reduced_axes(self) -> tuple[int, ...]:
        """The dimensions each group spans."""
        raise NotImplementedError

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        return None  # each output reads its whole group: never element-wise, never fused

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        data_type = self.input_tensor.desc.data_type
        if data_type not in FLOATS:
            raise NotImplementedError(f"{self.describe()} has no OpenCL lowering")
        strides = [tensor.desc.effective_strides for tensor in (self.input_tensor, self.output_tensor)]
        layout, kept_rank = reduction_layout(self.input_tensor.desc.sizes, strides, self.reduced_axes())
        defines = (
            ("OPERATION", self.OPERATION),
            ("DML_FLOAT16", "1" if data_type == TensorDataType.FLOAT16 else "0"),
            ("ROWS", "1" if rows_layout(layout, kept_rank) else "0"),
        )
        return reduction_kernel("softmax.cl", "softmax", defines, layout, kept_rank, profile)

    def explain_lines(self) -> list[str]:
        axes = ", ".join(str(axis) for axis in self.reduced_axes())
        if self.OPERATION == "HARDMAX":
            passes = "two passes (the first maximum, outputs)"
        else:
            passes = "three passes (maximum, sum of exp(x - maximum), outputs)"
        rows = dict(self.lower().kernel.defines).get("ROWS") == "1"
        walk = "eight lanes along each contiguous row (ROWS)" if rows else "through the strides"
        return [
            f"{self.OPERATION} over axes ({axes}): one work-item per group of the kept dimensions, {passes}, "
            f"{walk} (opencl/softmax.cl); never fused"
        ]


class LastAxisDesc(AxisReducingDesc):
    """The older forms (FL 1_0): per row along the last dimension, for an input of effective rank at most 2."""

    def reduced_axes(self) -> tuple[int, ...]:
        return (self.input_tensor.desc.dimension_count - 1,)

    def check_operator_rules(self, level: FeatureLevel) -> None:
        super().check_operator_rules(level)
        sizes = self.input_tensor.desc.sizes
        leading = next((d for d, size in enumerate(sizes) if size != 1), len(sizes))
        if len(sizes) - leading > 2:
            name = self.operator_name()
            raise InvalidArgumentError(
                f"{name}.InputTensor.Sizes is {sizes}: effective rank {len(sizes) - leading}; {name} works per "
                "row of a [batch, width] matrix, so its effective rank (DimensionCount without the leftmost "
                "dimensions of size 1) must be at most 2: every dimension before the last two must be 1. "
                f"{name}1 (DML_FEATURE_LEVEL_5_1) reduces along any axes"
            )


class AxesDesc(AxisReducingDesc):
    """The "1" forms (FL 5_1): a group is the elements that share their coordinates along every axis not in Axes,
    the Axes reduced jointly."""

    BUILDER_DERIVED = ("axis_count",)  # dml::ActivationSoftMax(input, axes)

    # Left out, it is derived from Axes by _derive_count, so after construction it is an int.
    axis_count: UInt32 = Field(default=None, alias="AxisCount")  # type: ignore[assignment]
    """AxisCount: the entries of Axes; derived when left out."""
    axes: tuple[UInt32, ...] = Field(alias="Axes")
    """Axes: the dimensions to reduce along, each once, each less than InputTensor's DimensionCount (0 is the
    outermost)."""

    @model_validator(mode="after")
    def _derive_count(self) -> Self:
        if self.axis_count is None:
            object.__setattr__(self, "axis_count", len(self.axes))
        return self

    def reduced_axes(self) -> tuple[int, ...]:
        return tuple(sorted(self.axes))

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.input_tensor.desc.data_type.name}, Axes {list(self.axes)})"

    def check_operator_rules(self, level: FeatureLevel) -> None:
        super().check_operator_rules(level)
        name, count = self.operator_name(), self.input_tensor.desc.dimension_count
        if self.axis_count != len(self.axes):
            raise InvalidArgumentError(
                f"{name}.AxisCount is {self.axis_count} but Axes has {len(self.axes)} entries; it must count them "
                "(leave it out and dmlpy derives it)"
            )
        if not self.axes:
            raise InvalidArgumentError(f"{name}.Axes is empty; name at least one axis to reduce along")
        for index, axis in enumerate(self.axes):
            if axis >= count:
                raise InvalidArgumentError(
                    f"{name}.Axes[{index}] is {axis}; each axis must be less than InputTensor.DimensionCount "
                    f"({count}): axes count the dimensions from 0, the outermost"
                )
            if axis in self.axes[:index]:
                raise InvalidArgumentError(
                    f"{name}.Axes[{index}] is {axis}, which Axes {list(self.axes)} holds already; each axis may "
                    "appear once"
                )


class ActivationSoftmax1OperatorDesc(AxesDesc):
    """DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC: OutputTensor = exp(x) / the sum of exp over x's group along Axes."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_SOFTMAX1
    SUPPORT = activation_table(OPERATOR_TYPE, floats_since(FeatureLevel.FL_5_1))
    OPERATION, BUILDER_NAME = "SOFTMAX", "activation_softmax1"
    ONNX_OPS = ("Softmax",)
    FLOAT32_ULPS = SOFTMAX_ULPS


class ActivationLogSoftmax1OperatorDesc(AxesDesc):
    """DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC: OutputTensor = ln(exp(x) / the sum of exp over x's group along
    Axes)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_LOG_SOFTMAX1
    SUPPORT = activation_table(OPERATOR_TYPE, floats_since(FeatureLevel.FL_5_1))
    OPERATION, BUILDER_NAME = "LOG_SOFTMAX", "activation_log_softmax1"
    ONNX_OPS = ("LogSoftmax",)
    FLOAT32_ULPS = LOG_SOFTMAX_ULPS


class ActivationHardmax1OperatorDesc(AxesDesc):
    """DML_ACTIVATION_HARDMAX1_OPERATOR_DESC: OutputTensor = 1 at the first maximum of x's group along Axes
    (row-major order of the axes), 0 elsewhere."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_HARDMAX1
    SUPPORT = activation_table(OPERATOR_TYPE, floats_since(FeatureLevel.FL_5_1))
    OPERATION, BUILDER_NAME = "HARDMAX", "activation_hardmax1"
    ONNX_OPS = ("Hardmax",)


class ActivationSoftmaxOperatorDesc(LastAxisDesc):
    """DML_ACTIVATION_SOFTMAX_OPERATOR_DESC: softmax per row along the last dimension (effective rank <= 2)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_SOFTMAX
    SUPPORT = activation_table(OPERATOR_TYPE)
    OPERATION, BUILDER_NAME = "SOFTMAX", "activation_softmax"
    FLOAT32_ULPS = SOFTMAX_ULPS


class ActivationLogSoftmaxOperatorDesc(LastAxisDesc):
    """DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC: log-softmax per row along the last dimension (effective rank <=
    2)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_LOG_SOFTMAX
    SUPPORT = activation_table(OPERATOR_TYPE)
    OPERATION, BUILDER_NAME = "LOG_SOFTMAX", "activation_log_softmax"
    FLOAT32_ULPS = LOG_SOFTMAX_ULPS


class ActivationHardmaxOperatorDesc(LastAxisDesc):
    """DML_ACTIVATION_HARDMAX_OPERATOR_DESC: 1 at the first maximum of each row along the last dimension, 0
    elsewhere (effective rank <= 2)."""

    OPERATOR_TYPE = OperatorType.ACTIVATION_HARDMAX
    SUPPORT = activation_table(OPERATOR_TYPE)
    OPERATION, BUILDER_NAME = "HARDMAX", "activation_hardmax"


SOFTMAX_ACTIVATIONS: tuple[type[AxisReducingDesc], ...] = (
    ActivationSoftmaxOperatorDesc,
    ActivationLogSoftmaxOperatorDesc,
    ActivationHardmaxOperatorDesc,
    ActivationSoftmax1OperatorDesc,
    ActivationLogSoftmax1OperatorDesc,
    ActivationHardmax1OperatorDesc,
)
"""The six, in the operator table's order."""
