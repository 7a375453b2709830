"""DML_SLICE_OPERATOR_DESC (FL 1_0), DML_SLICE1_OPERATOR_DESC (FL 2_1) and DML_SLICE_GRAD_OPERATOR_DESC (FL 3_0),
from Microsoft's pages.

SLICE copies Output[c] = Input[Offsets + Strides * c], its Sizes field the output's Sizes. SLICE1 reads an input
window (offset, size, stride per dimension) from its start, or from its end where the stride is negative:
Output[c] = Input[CopyStart + InputWindowStrides * c]; the output holds from 1 to MaxCopiedElements[i] = 1 +
(InputWindowSizes[i] - 1) / |InputWindowStrides[i]| elements per dimension, not necessarily every one the window
reaches. SLICE_GRAD is SLICE1 backwards: InputGradientTensor has the slice's Sizes, OutputGradientTensor the sliced
tensor's (which the window lies in), the elements the slice copied set from the gradient and every other one 0.
dmlpy runs SLICE and SLICE1 (a strided read: Identity's copy; backwards, opencl/movement.cl) and validates
SLICE_GRAD.

Where the pages disagree with the header: SLICE1's and SLICE_GRAD's pages type InputWindowStrides as
``const UINT*``; DirectML.h has ``const INT*`` and both pages describe negative strides, so dmlpy follows the header.
SLICE1's page writes MaxCopiedElements with ``/ InputWindowStrides[i]``, which is negative for a negative stride; its
worked example 2 (stride -2 over a window of 4: 2 elements) divides by the magnitude, which dmlpy follows.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, InputView, LaunchProfile, OperatorPlan
from dmlpy.kernels.movement import Window
from dmlpy.model import Int32, UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._movement import window_plan, window_view
from dmlpy.ops._reshaping import EVERY, FL_1_0_TYPES, FL_2_1_TYPES, PerDimensionDesc, table
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_INPUT_OUTPUT = ("InputTensor", "OutputTensor")
_GRADIENTS = ("InputGradientTensor", "OutputGradientTensor")


class SliceOperatorDesc(PerDimensionDesc):
    """DML_SLICE_OPERATOR_DESC: OutputTensor[c] = InputTensor[Offsets + Strides * c], OutputTensor's Sizes the Sizes
    field (superseded by SLICE1 from FL 2_1)."""

    OPERATOR_TYPE = OperatorType.SLICE
    SUPPORT = table(
        OPERATOR_TYPE,
        _INPUT_OUTPUT,
        ((L.FL_1_0, (4, 5), FL_1_0_TYPES), (L.FL_2_1, (4, 5), FL_2_1_TYPES), (L.FL_3_0, (1, 8), FL_2_1_TYPES),
         (L.FL_4_1, (1, 8), EVERY)),
    )  # fmt: skip
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"dimension_count": ("offsets", "sizes", "strides")}

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to slice."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the slice; its Sizes are the Sizes field."""
    # Left out, it is derived from the arrays (COUNTED_ARRAYS), so after construction it is an int.
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the entries of Offsets, Sizes and Strides, the tensors' DimensionCount; derived when left
    out."""
    offsets: tuple[UInt32, ...] = Field(alias="Offsets")
    """Offsets: the first element copied, per dimension."""
    sizes: tuple[UInt32, ...] = Field(alias="Sizes")
    """Sizes: the elements copied per dimension: OutputTensor's Sizes."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the step between copied elements, per dimension (2 takes every second element)."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """The Sizes field, with InputTensor's DataType."""
        source = inputs["input_tensor"]
        assert source is not None
        sizes = tuple(fields["sizes"])
        return (OutputShape(sizes, source.data_type, f"OutputTensor.Sizes[i] = Sizes[i], {list(sizes)}"),)  # type: ignore[arg-type]

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """DimensionCount is the tensors'; each slice is non-empty and reads inside InputTensor."""
        self.check_count_is_the_rank()
        name, input_sizes = self.operator_name(), self.input_tensor.desc.sizes
        for dim, (offset, size, stride) in enumerate(zip(self.offsets, self.sizes, self.strides, strict=True)):
            if size < 1:
                raise InvalidArgumentError(
                    f"{name}.Sizes[{dim}] is {size}; it must be at least 1: it is OutputTensor.Sizes[{dim}], the "
                    "elements copied along the dimension"
                )
            last = offset + stride * (size - 1)
            if last >= input_sizes[dim]:
                raise InvalidArgumentError(
                    f"{name}.Offsets[{dim}] + Strides[{dim}] * (Sizes[{dim}] - 1) is {offset} + {stride} * "
                    f"({size} - 1) = {last}; it must be less than InputTensor.Sizes[{dim}] ({input_sizes[dim]}): the "
                    "slice copies only elements inside InputTensor (no out-of-bounds reads)"
                )

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """A strided read: OutputTensor[c] = InputTensor[Offsets + Strides * c]."""
        return window_plan(self.input_tensor, self.output_tensor, self._window(), profile)

    def input_view(self) -> InputView | None:
        return window_view(self.input_tensor, self.output_tensor, self._window())

    def _window(self) -> Window:
        return Window.of_slice(self.input_tensor.desc.sizes, self.offsets, self.strides)


def max_copied(fields: dict[str, Any], operator: str) -> tuple[int, ...]:
    """MaxCopiedElements[i] = 1 + (InputWindowSizes[i] - 1) / |InputWindowStrides[i]| (integer division);
    InvalidArgumentError for a stride of 0 or an empty window, which have none."""
    counts = []
    for dim, (size, stride) in enumerate(
        zip(fields["input_window_sizes"], fields["input_window_strides"], strict=True)
    ):
        if stride == 0:
            raise InvalidArgumentError(
                f"{operator}.InputWindowStrides[{dim}] is 0; a stride may not be 0: its magnitude is the step "
                "through the window, its sign the direction (negative: from the window's end)"
            )
        if size < 1:
            raise InvalidArgumentError(
                f"{operator}.InputWindowSizes[{dim}] is {size}; the input window may not be empty in any dimension: "
                "give at least 1"
            )
        counts.append(1 + (size - 1) // abs(stride))
    return tuple(counts)


_MAX_RULE = "MaxCopiedElements[i] = 1 + (InputWindowSizes[i] - 1) / |InputWindowStrides[i]|"


class _WindowDesc(PerDimensionDesc):
    """SLICE1 and SLICE_GRAD: an input window in the ``WINDOWED`` tensor, the copied elements in ``SLICED``."""

    WINDOWED: ClassVar[str]
    """The tensor the window lies in: SLICE1's InputTensor, SLICE_GRAD's OutputGradientTensor."""
    SLICED: ClassVar[str]
    """The tensor of the copied elements: SLICE1's OutputTensor, SLICE_GRAD's InputGradientTensor."""
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {
        "dimension_count": ("input_window_offsets", "input_window_sizes", "input_window_strides")
    }

    def window_fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.COUNTED_ARRAYS["dimension_count"]}

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """DimensionCount is the tensors'; no stride is 0 and no window empty; the window lies inside WINDOWED."""
        self.check_count_is_the_rank()
        name, window = self.operator_name(), self.window_fields()
        max_copied(window, name)
        windowed = self.c_field(self.WINDOWED)
        sizes = getattr(self, self.WINDOWED).desc.sizes
        pairs = zip(window["input_window_offsets"], window["input_window_sizes"], strict=True)
        for dim, (offset, size) in enumerate(pairs):
            if offset + size > sizes[dim]:
                raise InvalidArgumentError(
                    f"{name}.InputWindowOffsets[{dim}] + InputWindowSizes[{dim}] is {offset} + {size} = "
                    f"{offset + size}; it must be at most {windowed}.Sizes[{dim}] ({sizes[dim]}): the window lies "
                    "inside the sliced tensor (no out-of-bounds reads)"
                )

    def check_sliced_sizes(self) -> None:
        """1 <= SLICED.Sizes[i] <= MaxCopiedElements[i]: the slice need not copy every element the window
        reaches."""
        most = max_copied(self.window_fields(), self.operator_name())
        sliced: TensorDesc = getattr(self, self.SLICED)
        given = sliced.desc.sizes
        if any(not 1 <= size <= bound for size, bound in zip(given, most, strict=True)):
            where = f"{self.operator_name()}.{self.c_field(self.SLICED)}"
            raise InvalidArgumentError(
                f"{where}.Sizes is {list(given)}; each must be from 1 to MaxCopiedElements, {list(most)}: 1 <= "
                f"{self.c_field(self.SLICED)}.Sizes[i] <= {_MAX_RULE}"
            )


class Slice1OperatorDesc(_WindowDesc):
    """DML_SLICE1_OPERATOR_DESC: OutputTensor[c] = InputTensor[CopyStart + InputWindowStrides * c], CopyStart the
    window's start, or its end (offset + size - 1) where the stride is negative."""

    OPERATOR_TYPE = OperatorType.SLICE1
    BUILDER_NAME = "slice"
    ONNX_OPS = ("Slice",)
    SUPPORT = table(
        OPERATOR_TYPE,
        _INPUT_OUTPUT,
        ((L.FL_2_1, (4, 5), FL_2_1_TYPES), (L.FL_3_0, (1, 8), FL_2_1_TYPES), (L.FL_4_1, (1, 8), EVERY)),
    )
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    WINDOWED, SLICED = "input_tensor", "output_tensor"

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to slice; the window lies inside it."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the slice, 1 to MaxCopiedElements[i] elements per dimension."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the entries of each InputWindow array, the tensors' DimensionCount; derived when left out."""
    input_window_offsets: tuple[UInt32, ...] = Field(alias="InputWindowOffsets")
    """InputWindowOffsets: the window's first element, per dimension."""
    input_window_sizes: tuple[UInt32, ...] = Field(alias="InputWindowSizes")
    """InputWindowSizes: the window's extent, per dimension (at least 1; offset + size <= InputTensor.Sizes[i])."""
    input_window_strides: tuple[Int32, ...] = Field(alias="InputWindowStrides")
    """InputWindowStrides (C INT): the step through the window, never 0; negative copies from the window's end."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """Every element the window reaches, MaxCopiedElements (what a caller allocates); a given OutputTensor may
        hold fewer (``check_output_shapes``)."""
        source = inputs["input_tensor"]
        assert source is not None
        most = max_copied(fields, cls.operator_name())
        rule = f"1 <= OutputTensor.Sizes[i] <= {_MAX_RULE}, {list(most)}"
        return (OutputShape(most, source.data_type, rule),)  # type: ignore[arg-type]

    def check_output_shapes(self) -> None:
        """OutputTensor may hold fewer elements than the window reaches: 1 <= Sizes[i] <= MaxCopiedElements[i]."""
        self.check_sliced_sizes()

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """OutputTensor[c] = InputTensor[CopyStart + InputWindowStrides * c]: a strided read where every stride is
        positive, movement.cl's otherwise."""
        return window_plan(self.input_tensor, self.output_tensor, self._window(), profile)

    def input_view(self) -> InputView | None:
        return window_view(self.input_tensor, self.output_tensor, self._window())

    def _window(self) -> Window:
        """CopyStart per dimension: the window's first element, or its last where the stride is negative."""
        starts = [
            offset + size - 1 if stride < 0 else offset
            for offset, size, stride in zip(
                self.input_window_offsets, self.input_window_sizes, self.input_window_strides, strict=True
            )
        ]
        return Window.of_slice(self.input_tensor.desc.sizes, starts, self.input_window_strides)


class SliceGradOperatorDesc(_WindowDesc):
    """DML_SLICE_GRAD_OPERATOR_DESC: OutputGradientTensor is 0 but where the matching SLICE1 copied an element,
    which takes InputGradientTensor's element."""

    OPERATOR_TYPE = OperatorType.SLICE_GRAD
    SUPPORT = table(
        OPERATOR_TYPE,
        _GRADIENTS,
        ((L.FL_3_0, (4, 5), FL_2_1_TYPES), (L.FL_3_1, (1, 8), FL_2_1_TYPES), (L.FL_4_1, (1, 8), EVERY)),
    )
    INPUTS = ("input_gradient_tensor",)
    OUTPUTS = ("output_gradient_tensor",)
    SAME_DATA_TYPE = (("input_gradient_tensor", "output_gradient_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_BY = "input_gradient_tensor"
    WINDOWED, SLICED = "output_gradient_tensor", "input_gradient_tensor"

    input_gradient_tensor: TensorDesc = Field(alias="InputGradientTensor")
    """InputGradientTensor: the incoming gradient, the forward SLICE1's OutputTensor's Sizes."""
    output_gradient_tensor: TensorDesc = Field(alias="OutputGradientTensor")
    """OutputGradientTensor: the forward SLICE1's InputTensor's Sizes; the window lies inside it."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the entries of each InputWindow array, the tensors' DimensionCount; derived when left out."""
    input_window_offsets: tuple[UInt32, ...] = Field(alias="InputWindowOffsets")
    """InputWindowOffsets: the forward SLICE1's."""
    input_window_sizes: tuple[UInt32, ...] = Field(alias="InputWindowSizes")
    """InputWindowSizes: the forward SLICE1's."""
    input_window_strides: tuple[Int32, ...] = Field(alias="InputWindowStrides")
    """InputWindowStrides (C INT): the forward SLICE1's, never 0 (a gradient could not say which element it
    belongs to); negative flips the window."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """The forward input's Sizes, the caller's (any that hold the window); InputGradientTensor's DataType."""
        gradient = inputs["input_gradient_tensor"]
        assert gradient is not None
        rule = (
            "OutputGradientTensor.Sizes[i] >= InputWindowOffsets[i] + InputWindowSizes[i]: the forward SLICE1's "
            "InputTensor, which holds the window"
        )
        return (OutputShape(None, gradient.data_type, rule),)  # type: ignore[arg-type]

    def check_shape_rules(self, level: FeatureLevel) -> None:
        super().check_shape_rules(level)
        self.check_sliced_sizes()


SLICE_OPERATORS = (SliceOperatorDesc, Slice1OperatorDesc, SliceGradOperatorDesc)
"""SLICE, SLICE1 and SLICE_GRAD, in the operator table's order."""
