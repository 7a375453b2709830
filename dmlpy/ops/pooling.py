"""The forward pooling operators, from Microsoft's pages: DML_AVERAGE_POOLING_OPERATOR_DESC (FL 1_0),
DML_LP_POOLING_OPERATOR_DESC (1_0), DML_MAX_POOLING_OPERATOR_DESC (1_0), DML_MAX_POOLING1_OPERATOR_DESC (2_0: an
optional OutputIndicesTensor), DML_MAX_POOLING2_OPERATOR_DESC (2_1: Dilations), and FL 6_2's
DML_AVERAGE_POOLING1_OPERATOR_DESC, DML_LP_POOLING1_OPERATOR_DESC (Dilations) and
DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC.

Each pools InputTensor {BatchCount, ChannelCount, [Depth], Height, Width} over a window into OutputTensor, whose
Sizes the window rule of ``_pooling`` gives. All run on ``opencl/pooling.cl`` (``dmlpy/kernels/pooling.py``): one
output element at a time, the function of its window's elements inside the input; QUANTIZED_LINEAR_AVERAGE_POOLING
sums the quantized differences exactly and requantizes once (docs/operators/pooling.md: the decisions the pages leave
open, the accuracy bounds).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.errors import InvalidArgumentError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.kernels.pooling import PoolFunction, pooling_kernel
from dmlpy.model import Bool, UInt32
from dmlpy.ops._base import OutputShape
from dmlpy.ops._pooling import DilatedPoolingDesc, ForwardPoolingDesc, PoolingDesc, directml_type, window_of
from dmlpy.ops._types import FLOATS, INTEGERS_8_32, INTEGERS_64
from dmlpy.ops.quantized_pooling import QuantizedLinearAveragePoolingOperatorDesc
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

L, T = FeatureLevel, TensorDataType
_IO = ("InputTensor", "OutputTensor")
_BYTES = frozenset({T.INT8, T.UINT8})
_MAX_TYPES = ((L.FL_1_0, FLOATS), (L.FL_3_0, FLOATS | _BYTES), (L.FL_5_0, FLOATS | INTEGERS_8_32 | INTEGERS_64))
"""MAX_POOLING's types: floats, INT8 and UINT8 from 3_0, every type but FLOAT64 from 5_0."""
_INDICES = {L.FL_5_0: frozenset({T.UINT32, T.UINT64})}


def _float_table(operator: OperatorType, level: FeatureLevel) -> SupportTable:
    """The one table of the average and Lp forms: 4 to 5 dimensions, FLOAT32 and FLOAT16."""
    return SupportTable.per_tensor(operator, frozenset(), ((level, dict.fromkeys(_IO, ((4, 5), FLOATS))),))


def _max_table(operator: OperatorType, first: FeatureLevel, indices: bool) -> SupportTable:
    """MAX_POOLING's rows from ``first`` on, with OutputIndicesTensor (UINT32, UINT64 too from 5_0) when
    ``indices``."""
    rows = []
    for level, types in _MAX_TYPES:
        row: dict[str, tuple[tuple[int, int], frozenset[TensorDataType]]] = dict.fromkeys(_IO, ((4, 5), types))
        if indices:
            row["OutputIndicesTensor"] = ((4, 5), _INDICES.get(level, frozenset({T.UINT32})))
        rows.append((max(level, first), row))
    optional = frozenset({"OutputIndicesTensor"} if indices else ())
    return SupportTable.per_tensor(operator, optional, tuple(rows))


_P_LIMIT = 2**31 - 1
"""pooling.cl raises |x| to P with pown's int exponent: a larger P gives the same 0, 1 or infinity per term."""


class _Pooled(PoolingDesc):
    """A forward pooling operator that runs: pooling.cl's ``FUNCTION`` over its window."""

    FUNCTION: ClassVar[PoolFunction]

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        """pooling.cl over the window: IncludePadding and P as the kernel's options, OutputIndicesTensor where the
        operator has one."""
        window = window_of(self)
        options = (int(getattr(self, "include_padding", 0)), min(int(getattr(self, "p", 1)), _P_LIMIT))
        x: BufferTensorDesc = getattr(self, "input_tensor").desc  # noqa: B009  # each operator declares it
        y: BufferTensorDesc = getattr(self, "output_tensor").desc  # noqa: B009
        indices_slot = "output_indices_tensor" in self.OUTPUTS
        given = getattr(self, "output_indices_tensor", None)
        indices = None if given is None else (given.desc.data_type, given.desc.effective_strides)
        return pooling_kernel(
            self.FUNCTION,
            directml_type(x),
            x.sizes,
            x.effective_strides,
            y.sizes,
            y.effective_strides,
            indices,
            window,
            options,
            profile,
            indices_slot,
        )


class _LpRule:
    def check_p(self: Any) -> None:
        if self.p == 0:
            raise InvalidArgumentError(
                f"{self.operator_name()}.P is 0; it must be at least 1: the window's value is (x1^P + ... + xn^P) "
                "^ (1/P), and 1/0 has no value (P is 1 for the L1 norm, 2 for the L2 norm)"
            )


class AveragePoolingOperatorDesc(_Pooled, ForwardPoolingDesc):
    """DML_AVERAGE_POOLING_OPERATOR_DESC: each output element the average of its window of InputTensor;
    IncludePadding counts the padding elements in the divisor."""

    OPERATOR_TYPE = OperatorType.AVERAGE_POOLING
    FUNCTION = PoolFunction.AVERAGE
    SUPPORT = _float_table(OPERATOR_TYPE, L.FL_1_0)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, [Depth], Height, Width}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the window rule's Sizes; InputTensor's DataType."""
    # Left out, it is derived from the arrays (OperatorDescBase._count_the_arrays): after construction an int.
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor.DimensionCount - 2; sizes the arrays below."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the window's step along each spatial dimension, at least 1."""
    window_size: tuple[UInt32, ...] = Field(alias="WindowSize")
    """WindowSize: the window's elements along each spatial dimension, at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: elements of padding before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: elements of padding after each spatial dimension."""
    include_padding: Bool = Field(alias="IncludePadding")
    """IncludePadding (BOOL): whether padding elements count in the average's divisor."""


class AveragePooling1OperatorDesc(_Pooled, DilatedPoolingDesc):
    """DML_AVERAGE_POOLING1_OPERATOR_DESC: AVERAGE_POOLING over a dilated window (Dilations all 1 is
    AVERAGE_POOLING)."""

    OPERATOR_TYPE = OperatorType.AVERAGE_POOLING1
    BUILDER_NAME = "average_pooling"
    ONNX_OPS = ("AveragePool", "GlobalAveragePool")
    FUNCTION = PoolFunction.AVERAGE
    SUPPORT = _float_table(OPERATOR_TYPE, L.FL_6_2)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, [Depth], Height, Width}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the dilated window rule's Sizes; InputTensor's DataType."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor.DimensionCount - 2; sizes the arrays below."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the window's step along each spatial dimension, at least 1."""
    window_size: tuple[UInt32, ...] = Field(alias="WindowSize")
    """WindowSize: the window's elements along each spatial dimension, at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: elements of padding before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: elements of padding after each spatial dimension."""
    dilations: tuple[UInt32, ...] = Field(alias="Dilations")
    """Dilations: the distance between the window's elements along each spatial dimension, at least 1."""
    include_padding: Bool = Field(alias="IncludePadding")
    """IncludePadding (BOOL): whether padding elements count in the average's divisor."""


class LpPoolingOperatorDesc(_Pooled, _LpRule, ForwardPoolingDesc):
    """DML_LP_POOLING_OPERATOR_DESC: each output element (x1^P + ... + xn^P) ^ (1/P) over its window."""

    OPERATOR_TYPE = OperatorType.LP_POOLING
    FUNCTION = PoolFunction.LP
    SUPPORT = _float_table(OPERATOR_TYPE, L.FL_1_0)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, [Depth], Height, Width}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the window rule's Sizes; InputTensor's DataType."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor.DimensionCount - 2; sizes the arrays below."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the window's step along each spatial dimension, at least 1."""
    window_size: tuple[UInt32, ...] = Field(alias="WindowSize")
    """WindowSize: the window's elements along each spatial dimension, at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: elements of padding before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: elements of padding after each spatial dimension."""
    p: UInt32 = Field(alias="P")
    """P (UINT): the norm's exponent, at least 1 (1 the L1 norm, 2 the L2 norm)."""

    def check_pooling_rules(self, level: FeatureLevel) -> None:
        self.check_p()


class LpPooling1OperatorDesc(_Pooled, _LpRule, DilatedPoolingDesc):
    """DML_LP_POOLING1_OPERATOR_DESC: LP_POOLING over a dilated window (Dilations all 1 is LP_POOLING)."""

    OPERATOR_TYPE = OperatorType.LP_POOLING1
    BUILDER_NAME = "lp_pooling"
    ONNX_OPS = ("LpPool", "GlobalLpPool")
    FUNCTION = PoolFunction.LP
    SUPPORT = _float_table(OPERATOR_TYPE, L.FL_6_2)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, [Depth], Height, Width}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the dilated window rule's Sizes; InputTensor's DataType."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor.DimensionCount - 2; sizes the arrays below."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the window's step along each spatial dimension, at least 1."""
    window_size: tuple[UInt32, ...] = Field(alias="WindowSize")
    """WindowSize: the window's elements along each spatial dimension, at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: elements of padding before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: elements of padding after each spatial dimension."""
    dilations: tuple[UInt32, ...] = Field(alias="Dilations")
    """Dilations: the distance between the window's elements along each spatial dimension, at least 1."""
    p: UInt32 = Field(alias="P")
    """P (UINT): the norm's exponent, at least 1 (1 the L1 norm, 2 the L2 norm)."""

    def check_pooling_rules(self, level: FeatureLevel) -> None:
        self.check_p()


class MaxPoolingOperatorDesc(_Pooled, ForwardPoolingDesc):
    """DML_MAX_POOLING_OPERATOR_DESC: each output element the largest of its window of InputTensor."""

    OPERATOR_TYPE = OperatorType.MAX_POOLING
    FUNCTION = PoolFunction.MAX
    SUPPORT = _max_table(OPERATOR_TYPE, L.FL_1_0, indices=False)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, [Depth], Height, Width}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the window rule's Sizes; InputTensor's DataType."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor.DimensionCount - 2; sizes the arrays below."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the window's step along each spatial dimension, at least 1."""
    window_size: tuple[UInt32, ...] = Field(alias="WindowSize")
    """WindowSize: the window's elements along each spatial dimension, at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: elements of padding before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: elements of padding after each spatial dimension."""


class _IndicesRule:
    @classmethod
    def with_indices(cls: Any, shapes: tuple[OutputShape, ...]) -> tuple[OutputShape, ...]:
        """OutputTensor's shape, and OutputIndicesTensor's: OutputTensor's Sizes, UINT32 or UINT64 (its own)."""
        (output,) = shapes
        rule = f"OutputTensor's Sizes ({output.rule}); its DataType its own, UINT32 (or UINT64 from FL 5_0)"
        return output, OutputShape(output.sizes, None, rule)


class MaxPooling1OperatorDesc(_Pooled, _IndicesRule, ForwardPoolingDesc):
    """DML_MAX_POOLING1_OPERATOR_DESC: MAX_POOLING, and optionally each maximum's index into InputTensor read as
    a contiguous 1-D array (ties: the first)."""

    OPERATOR_TYPE = OperatorType.MAX_POOLING1
    FUNCTION = PoolFunction.MAX
    SUPPORT = _max_table(OPERATOR_TYPE, L.FL_2_0, indices=True)
    OUTPUTS = ("output_tensor", "output_indices_tensor")
    SAME_DIMENSION_COUNT = (("input_tensor", "output_indices_tensor", "output_tensor"),)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, [Depth], Height, Width}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the window rule's Sizes; InputTensor's DataType."""
    output_indices_tensor: TensorDesc | None = Field(default=None, alias="OutputIndicesTensor")
    """OutputIndicesTensor: OutputTensor's Sizes, UINT32 (UINT64 too from FL 5_0); null writes no indices."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor.DimensionCount - 2; sizes the arrays below."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the window's step along each spatial dimension, at least 1."""
    window_size: tuple[UInt32, ...] = Field(alias="WindowSize")
    """WindowSize: the window's elements along each spatial dimension, at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: elements of padding before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: elements of padding after each spatial dimension."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """OutputTensor by the window rule; OutputIndicesTensor with its Sizes."""
        return cls.with_indices(super().output_shapes(inputs, fields))


class MaxPooling2OperatorDesc(_Pooled, _IndicesRule, DilatedPoolingDesc):
    """DML_MAX_POOLING2_OPERATOR_DESC: MAX_POOLING1 over a dilated window (Dilations all 1 is MAX_POOLING1)."""

    OPERATOR_TYPE = OperatorType.MAX_POOLING2
    BUILDER_NAME = "max_pooling"
    ONNX_OPS = ("MaxPool", "GlobalMaxPool")
    FUNCTION = PoolFunction.MAX
    SUPPORT = _max_table(OPERATOR_TYPE, L.FL_2_1, indices=True)
    OUTPUTS = ("output_tensor", "output_indices_tensor")
    SAME_DIMENSION_COUNT = (("input_tensor", "output_indices_tensor", "output_tensor"),)

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: {BatchCount, ChannelCount, [Depth], Height, Width}."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: the dilated window rule's Sizes; InputTensor's DataType."""
    output_indices_tensor: TensorDesc | None = Field(default=None, alias="OutputIndicesTensor")
    """OutputIndicesTensor: OutputTensor's Sizes, UINT32 (UINT64 too from FL 5_0); null writes no indices."""
    dimension_count: UInt32 = Field(default=None, alias="DimensionCount")  # type: ignore[assignment]
    """DimensionCount: the spatial dimensions, InputTensor.DimensionCount - 2; sizes the arrays below."""
    strides: tuple[UInt32, ...] = Field(alias="Strides")
    """Strides: the window's step along each spatial dimension, at least 1."""
    window_size: tuple[UInt32, ...] = Field(alias="WindowSize")
    """WindowSize: the window's elements along each spatial dimension, at least 1."""
    start_padding: tuple[UInt32, ...] = Field(alias="StartPadding")
    """StartPadding: elements of padding before each spatial dimension."""
    end_padding: tuple[UInt32, ...] = Field(alias="EndPadding")
    """EndPadding: elements of padding after each spatial dimension."""
    dilations: tuple[UInt32, ...] = Field(alias="Dilations")
    """Dilations: the distance between the window's elements along each spatial dimension, at least 1."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """OutputTensor by the dilated window rule; OutputIndicesTensor with its Sizes."""
        return cls.with_indices(super().output_shapes(inputs, fields))


POOLING_OPERATORS = (
    AveragePoolingOperatorDesc,
    LpPoolingOperatorDesc,
    MaxPoolingOperatorDesc,
    MaxPooling1OperatorDesc,
    MaxPooling2OperatorDesc,
    LpPooling1OperatorDesc,
    AveragePooling1OperatorDesc,
    QuantizedLinearAveragePoolingOperatorDesc,
)
"""The forward pooling operators, by OperatorType value."""
