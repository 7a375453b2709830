"""DML_PADDING_OPERATOR_DESC (FL 1_0) and DML_PADDING1_OPERATOR_DESC (FL 5_0), from Microsoft's pages: the input
inflated by StartPadding[i] elements before and EndPadding[i] after along each dimension, OutputTensor.Sizes[i] =
InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i] (np.pad). PaddingMode says what the padding holds: CONSTANT
PaddingValue, EDGE the edge value, REFLECTION the input mirrored without its edge, SYMMETRIC (FL 3_0) with it, WRAP
(FL 6_4) the input repeated. PADDING's PaddingValue is a FLOAT (truncated for integer tensors); PADDING1's a
DML_SCALAR_UNION read as PaddingValueDataType, the output's DataType. dmlpy runs both (opencl/movement.cl: each
output element reads InputTensor at its coordinate less StartPadding, and outside the input PaddingMode's rule).

Left open by the pages and decided here: PADDING's FLOAT PaddingValue for an integer tensor is truncated toward zero
(the page's "10.6 to 10") and saturates at the type's range, NaN giving 0, as CAST's float-to-integer conversion does;
for FLOAT16 it is rounded to nearest even, and FLOAT64 holds it exactly.

The pages allow REFLECTION's and SYMMETRIC's padding to reach or pass the input's size ("StartPadding[i] >=
InputTensor.Sizes[i] ... is valid": the mirror folds again over the padding already made, periodically, as np.pad
does), so dmlpy refuses no padding for its size. WRAP is in DirectML.h (FL 6_4) and the feature-level history
("6_4: PADDING and PADDING1 support DML_PADDING_MODE_WRAP") but on neither page; dmlpy takes it from FL 6_4. PADDING1's
page types PaddingMode as ``DML_PADDING_MODE*``; the header has the plain enum, which dmlpy follows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, PaddingMode, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, OperatorPlan
from dmlpy.kernels.movement import Boundary, Window
from dmlpy.model import UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._movement import window_plan
from dmlpy.ops._reshaping import EVERY, FL_2_1_TYPES, PerDimensionDesc, table
from dmlpy.ops._typed_values import float_field_value, value_bits
from dmlpy.ops._types import FLOATS
from dmlpy.ops.scalar_union import ScalarUnion
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L = FeatureLevel
_INPUT_OUTPUT = ("InputTensor", "OutputTensor")
MODE_LEVELS = {PaddingMode.SYMMETRIC: L.FL_3_0, PaddingMode.WRAP: L.FL_6_4}
"""The padding modes newer than FL 1_0 and the level each needs (DirectML.h's, and the feature-level history's)."""


class _PaddingDesc(PerDimensionDesc):
    """The fields and rules PADDING and PADDING1 share."""

    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SAME_DATA_TYPE = (("input_tensor", "output_tensor"),)
    SAME_DIMENSION_COUNT = SAME_DATA_TYPE
    COUNTED_ARRAYS: ClassVar[dict[str, tuple[str, ...]]] = {"dimension_count": ("start_padding", "end_padding")}

    if TYPE_CHECKING:  # each subclass declares them, in C order
        input_tensor: TensorDesc
        output_tensor: TensorDesc
        padding_mode: PaddingMode
        start_padding: tuple[int, ...]

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i], with InputTensor's DataType."""
        source = inputs["input_tensor"]
        assert source is not None
        sizes = tuple(
            size + start + end
            for size, start, end in zip(source.sizes, fields["start_padding"], fields["end_padding"], strict=True)
        )
        rule = "OutputTensor.Sizes[i] = InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i]"
        return (OutputShape(sizes, source.data_type, rule),)  # type: ignore[arg-type]

    def check_shape_rules(self, level: FeatureLevel) -> None:
        """DimensionCount is the tensors'; the PaddingMode is one of this level's."""
        self.check_count_is_the_rank()
        mode = self.padding_mode
        needed = MODE_LEVELS.get(mode)
        if needed is not None and level < needed:
            raise InvalidArgumentError(
                f"{self.operator_name()}.PaddingMode is {mode.c_name}; it needs {needed.c_name} or higher, and this "
                f"is {level.c_name}: CONSTANT, EDGE and REFLECTION are at every level"
            )
        self.check_padding_value()

    def check_padding_value(self) -> None:
        """PADDING1's typed PaddingValue."""

    def fill_value(self) -> float | int:
        """CONSTANT's value, as OutputTensor's DataType holds it."""
        raise NotImplementedError

    def plan(self, profile: LaunchProfile = CPU_PROFILE) -> OperatorPlan:
        """OutputTensor[c] = InputTensor[c - StartPadding], outside the input PaddingMode's rule."""
        mode = self.padding_mode
        source, target = self.input_tensor.desc, self.output_tensor.desc
        fill = value_bits(self.fill_value(), target.data_type) if mode == PaddingMode.CONSTANT else 0
        window = Window(
            source.sizes,
            tuple(-start for start in self.start_padding),
            (1,) * len(source.sizes),
            Boundary[mode.name],
            fill,
        )
        return window_plan(self.input_tensor, self.output_tensor, window, profile)


class PaddingOperatorDesc(_PaddingDesc):
    """DML_PADDING_OPERATOR_DESC: OutputTensor = InputTensor padded by StartPadding and EndPadding as PaddingMode
    says, PaddingValue a FLOAT (superseded by PADDING1 from FL 5_0)."""

    OPERATOR_TYPE = OperatorType.PADDING
    SUPPORT = table(
        OPERATOR_TYPE,
        _INPUT_OUTPUT,
        ((L.FL_1_0, (4, 5), FLOATS), (L.FL_2_1, (4, 5), FL_2_1_TYPES), (L.FL_3_1, (1, 8), FL_2_1_TYPES),
         (L.FL_5_0, (1, 8), EVERY)),
    )  # fmt: skip

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to pad."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: Sizes[i] = InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i]."""
    padding_mode: PaddingMode = Field(alias="PaddingMode")
    """PaddingMode: CONSTANT, EDGE, REFLECTION; SYMMETRIC from FL 3_0; WRAP from FL 6_4."""
    padding_value: float = Field(alias="PaddingValue")
    """PaddingValue (FLOAT): CONSTANT's value; an integer tensor's may be truncated (10.6 to 10)."""
    # Left out, it is derived from the arrays (COUNTED_ARRAYS), so after construction it is an int.
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the entries of StartPadding and EndPadding, the tensors' DimensionCount; derived when left
    out."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: the elements added before each dimension's first."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: the elements added after each dimension's last."""

    def fill_value(self) -> float | int:
        """PaddingValue in OutputTensor's DataType: an integer's truncated toward zero and saturated (NaN: 0)."""
        return float_field_value(self.padding_value, self.output_tensor.desc.data_type)


class Padding1OperatorDesc(_PaddingDesc):
    """DML_PADDING1_OPERATOR_DESC: PADDING with a typed PaddingValue, a DML_SCALAR_UNION read as
    PaddingValueDataType (OutputTensor's DataType)."""

    OPERATOR_TYPE = OperatorType.PADDING1
    BUILDER_NAME = "padding"
    ONNX_OPS = ("Pad",)
    SUPPORT = table(OPERATOR_TYPE, _INPUT_OUTPUT, ((L.FL_5_0, (1, 8), EVERY),))

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to pad."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: Sizes[i] = InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i]."""
    padding_mode: PaddingMode = Field(alias="PaddingMode")
    """PaddingMode: CONSTANT, EDGE, REFLECTION, SYMMETRIC; WRAP from FL 6_4."""
    padding_value_data_type: TensorDataType = Field(alias="PaddingValueDataType")
    """PaddingValueDataType: the type PaddingValue is read as, OutputTensor's DataType."""
    padding_value: ScalarUnion = Field(alias="PaddingValue")
    """PaddingValue (DML_SCALAR_UNION): CONSTANT's value, in the member of PaddingValueDataType
    (``ScalarUnion.of(value, data_type)``)."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the entries of StartPadding and EndPadding, the tensors' DimensionCount; derived when left
    out."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: the elements added before each dimension's first."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: the elements added after each dimension's last."""

    def check_padding_value(self) -> None:
        """PaddingValueDataType is OutputTensor's DataType, and PaddingValue holds a value of it."""
        name, data_type = self.operator_name(), self.output_tensor.desc.data_type
        if self.padding_value_data_type != data_type:
            raise InvalidArgumentError(
                f"{name}.PaddingValueDataType is {self.padding_value_data_type.c_name}; it must be "
                f"OutputTensor.DataType ({data_type}), the type PaddingValue is read as"
            )
        self.padding_value.read_as(self.padding_value_data_type, f"{name}.PaddingValue", "PaddingValueDataType")

    def fill_value(self) -> float | int:
        """PaddingValue read as PaddingValueDataType (OutputTensor's)."""
        return self.padding_value.read_as(self.padding_value_data_type, "PADDING1.PaddingValue", "PaddingValueDataType")


PADDING_OPERATORS = (PaddingOperatorDesc, Padding1OperatorDesc)
"""PADDING and PADDING1, in the operator table's order."""
