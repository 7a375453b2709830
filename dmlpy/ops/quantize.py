"""DML_QUANTIZE_OPERATOR_DESC and DML_DEQUANTIZE_OPERATOR_DESC (DML_FEATURE_LEVEL_6_3, DML_TARGET_VERSION >=
0x6300): DirectML's newer quantization, with 4-bit tensors and blocked scales.

Both structs hold InputTensor, QuantizationType, QuantizationTensorCount, QuantizationTensors (the scale, then
the zero point under SCALE_ZERO_POINT) and OutputTensor. Microsoft's pages leave the semantics "TBD"; the rules
below are derived from DirectML's open-source users, each with its source in docs/quantization.md:

- Quantize: output = saturate(round_half_to_even(input / scale) + zero_point); dequantize: output =
  (input - zero_point) * scale: the arithmetic of ELEMENT_WISE_QUANTIZE_LINEAR and DEQUANTIZE_LINEAR, written
  once (``element_wise_quantize_linear``'s ``quantize_expression`` and ``dequantize_expression``).
- Every tensor has the input's DimensionCount; the output has its Sizes. A quantization tensor keeps its own
  Sizes, each 1, the input's, or a divisor of it: per tensor, per axis, per element or in blocks of input /
  scale elements along any axes (Chromium's WebNN backend, onnxruntime's MatMulNBits).
- Under QuantizationType SCALE there is no zero point: 0 for signed types, the midpoint of an unsigned type
  (8 for UINT4, 128 for UINT8), as onnxruntime's DirectML provider records.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Self

from pydantic import Field, model_validator

from dmlpy.dtypes import FLOATS
from dmlpy.enums import FeatureLevel, OperatorType, QuantizationType, TensorDataType
from dmlpy.errors import InvalidArgumentError, UnsupportedError
from dmlpy.kernels import (
    CPU_PROFILE,
    MAX_RANK,
    ElementwiseLayout,
    LaunchProfile,
    LoweredOperator,
    blocked_layout,
    coalesce,
)
from dmlpy.model import UInt32
from dmlpy.ops._base import OperatorDescBase, OutputShape
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops.element_wise_quantize_linear import dequantize_expression, quantize_expression
from dmlpy.quantization_blocks import divisors_of
from dmlpy.support import SupportRow, SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

T = TensorDataType
SCALE_FIELD = "QuantizationTensors[0]"
ZERO_POINT_FIELD = "QuantizationTensors[1]"
_C_FIELDS = {"scale_tensor": SCALE_FIELD, "zero_point_tensor": ZERO_POINT_FIELD}
_QUANTIZED = frozenset({T.INT8, T.INT4, T.UINT8, T.UINT4})
_QUANTIZATION_TENSOR_TYPES = FLOATS | _QUANTIZED
_TENSOR_COUNTS = {QuantizationType.SCALE: 1, QuantizationType.SCALE_ZERO_POINT: 2}
UNSIGNED_MIDPOINTS = {T.UINT8: 128, T.UINT4: 8}
"""The zero point of an unsigned type under QuantizationType SCALE (signed types: 0)."""


def _table(operator: OperatorType, input_types: frozenset[T], output_types: frozenset[T]) -> SupportTable:
    types = {
        "InputTensor": input_types,
        SCALE_FIELD: _QUANTIZATION_TENSOR_TYPES,
        ZERO_POINT_FIELD: _QUANTIZATION_TENSOR_TYPES,
        "OutputTensor": output_types,
    }
    return SupportTable(operator, (SupportRow(FeatureLevel.FL_6_3, (1, 8), types),))


class _QuantizationDesc(ElementwiseDesc):
    """The fields and rules QUANTIZE and DEQUANTIZE share."""

    INPUTS = ("input_tensor", "scale_tensor", "zero_point_tensor")
    OUTPUTS = ("output_tensor",)
    SUPPORTS_IN_PLACE = False
    BARE_FORM = False  # its fields do not repeat another operator's, but the one shape serves both: Type decides
    QUANTIZED_FIELD: ClassVar[str]
    """The integer side (the output of QUANTIZE, the input of DEQUANTIZE), whose type the zero point has."""
    REAL_FIELD: ClassVar[str]
    """The float side, whose type the scale has."""

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor."""
    quantization_type: QuantizationType = Field(alias="QuantizationType")
    """QuantizationType: SCALE (one quantization tensor) or SCALE_ZERO_POINT (two)."""
    # Left out, it is derived from QuantizationTensors by _derive_count, so after construction it is an int.
    quantization_tensor_count: UInt32 = Field(default=None, alias="QuantizationTensorCount")  # type: ignore[assignment]
    """QuantizationTensorCount: the entries of QuantizationTensors; derived when left out."""
    quantization_tensors: tuple[TensorDesc, ...] = Field(alias="QuantizationTensors")
    """QuantizationTensors: the scale, then (SCALE_ZERO_POINT) the zero point. Each has InputTensor's
    DimensionCount and Sizes that are 1, InputTensor's, or a divisor of it per dimension (blocks)."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's Sizes."""

    @model_validator(mode="after")
    def _derive_count(self) -> Self:
        if self.quantization_tensor_count is None:
            object.__setattr__(self, "quantization_tensor_count", len(self.quantization_tensors))
        return self

    @classmethod
    def from_slots(cls, tensors: dict[str, BufferTensorDesc | None], **fields: Any) -> OperatorDescBase:
        """The scale and zero point slots become QuantizationTensors, SCALE_ZERO_POINT where a zero point is
        given, else SCALE."""
        scale, zero_point = tensors["scale_tensor"], tensors["zero_point_tensor"]
        return cls(
            input_tensor=tensors["input_tensor"],
            quantization_type=QuantizationType.SCALE if zero_point is None else QuantizationType.SCALE_ZERO_POINT,
            quantization_tensors=[t for t in (scale, zero_point) if t is not None],
            output_tensor=tensors["output_tensor"],
            **fields,
        )

    @property
    def scale_tensor(self) -> TensorDesc | None:
        """QuantizationTensors[0], the scale."""
        return self.quantization_tensors[0] if self.quantization_tensors else None

    @property
    def zero_point_tensor(self) -> TensorDesc | None:
        """QuantizationTensors[1], the zero point (SCALE_ZERO_POINT only)."""
        return self.quantization_tensors[1] if len(self.quantization_tensors) > 1 else None

    @classmethod
    def c_field(cls, field: str) -> str:
        return _C_FIELDS.get(field) or super().c_field(field)

    def input_fields(self) -> tuple[str, ...]:
        return self.INPUTS if self.quantization_type == QuantizationType.SCALE_ZERO_POINT else self.INPUTS[:2]

    def describe(self) -> str:
        return (
            f"{self.operator_name()} ({self.input_tensor.desc.data_type.name} to "
            f"{self.output_tensor.desc.data_type.name}, {self.quantization_type.name})"
        )

    def check_support(self, level: FeatureLevel) -> None:
        self.SUPPORT.row_for(level)
        self._check_tensor_count()
        super().check_support(level)

    def _check_tensor_count(self) -> None:
        name, count, given = self.operator_name(), self.quantization_tensor_count, len(self.quantization_tensors)
        if count != given:
            raise InvalidArgumentError(
                f"{name}.QuantizationTensorCount is {count} but QuantizationTensors has {given} entries; it "
                "must count them (leave it out and dmlpy derives it)"
            )
        wanted = _TENSOR_COUNTS.get(self.quantization_type)
        if wanted is None:
            raise InvalidArgumentError(
                f"{name}.QuantizationType is {self.quantization_type}; {name} takes DML_QUANTIZATION_TYPE_SCALE "
                "(QuantizationTensors: the scale) or DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT (the scale, then the "
                "zero point): without a scale there is nothing to quantize by"
            )
        if given != wanted:
            parts = "the scale" if wanted == 1 else "the scale, then the zero point"
            raise InvalidArgumentError(
                f"{name}.QuantizationTensors has {given} entries; {self.quantization_type} takes {wanted} ({parts})"
            )

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        """The input's Sizes; QUANTIZE's zero point's DataType (its own choice without one), DEQUANTIZE's scale's."""
        return cls.outputs_like(
            inputs, "input_tensor", "zero_point_tensor" if cls.REAL_FIELD == "input_tensor" else "scale_tensor"
        )

    def check_operator_rules(self, level: FeatureLevel) -> None:
        name = self.operator_name()
        self.check_same(("dimension_count",), "input_tensor", ("scale_tensor", "zero_point_tensor", "output_tensor"))
        self.check_same(("sizes",), "input_tensor", ("output_tensor",))
        sizes = self.input_tensor.desc.sizes
        scale = self.quantization_tensors[0].desc
        for dim, (size, scale_size) in enumerate(zip(sizes, scale.sizes, strict=True)):
            if size % scale_size:
                divisors = ", ".join(str(d) for d in divisors_of(size))
                raise InvalidArgumentError(
                    f"{name}.{SCALE_FIELD}.Sizes[{dim}] is {scale_size} (Sizes {scale.sizes}); each dimension of "
                    f"a quantization tensor must be 1, InputTensor's ({size}), or a divisor of it, which gives a "
                    f"scale per block of {size} / Sizes[{dim}] elements: one of {divisors} here"
                )
        self.check_same(("sizes",), "scale_tensor", ("zero_point_tensor",))
        self.check_same(("data_type",), self.REAL_FIELD, ("scale_tensor",))
        self.check_same(("data_type",), self.QUANTIZED_FIELD, ("zero_point_tensor",))

    def element_layout(self) -> ElementwiseLayout:
        """The input's dimensions with every blocked one split in two, (blocks, block), so that the quantization
        tensors step by 0 along the block: the form ELEMENT_WISE_QUANTIZE_LINEAR would be given, coalesced."""
        tensors = [tensor.desc for tensor in (*self.input_tensors(), self.output_tensor) if tensor is not None]
        layout = blocked_layout(self.input_tensor.desc.sizes, [(t.sizes, t.effective_strides) for t in tensors])
        if layout.rank > MAX_RANK:
            raise UnsupportedError(
                f"{self.describe()}: its blocks split the input into {layout.rank} dimensions after merging, and "
                f"dmlpy's kernels walk at most {MAX_RANK}; block fewer dimensions"
            )
        return layout

    def zero_point_value(self, zero_point: str | None) -> str | None:
        """The zero point's expression: the loaded one, else (SCALE) the quantized type's midpoint or 0."""
        if zero_point is not None:
            return zero_point
        quantized = getattr(self, self.QUANTIZED_FIELD).desc.data_type
        return str(UNSIGNED_MIDPOINTS[quantized]) if quantized in UNSIGNED_MIDPOINTS else None

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        output = self.output_tensor.desc
        # A size-1 dimension's stride moves nothing, so it may differ from the packed one: compare the layout.
        if output.data_type in (T.INT4, T.UINT4) and not coalesce(output.sizes, (output.effective_strides,)).packed:
            raise UnsupportedError(
                f"{self.operator_name()}.OutputTensor is {output.data_type} with Strides {output.strides}; dmlpy "
                "writes a 4-bit output packed only (two elements a byte, each byte by one work-item): leave "
                "Strides null, and relayout the result with another operator if needed"
            )
        return super().lower(profile)


class QuantizeOperatorDesc(_QuantizationDesc):
    """DML_QUANTIZE_OPERATOR_DESC (FL 6_3): OutputTensor = saturate(round(Input / Scale) + ZeroPoint), rounding
    halves to even, into INT8, INT4, UINT8 or UINT4."""

    OPERATOR_TYPE = OperatorType.QUANTIZE
    BUILDER_NAME = "quantize"
    SUPPORT = _table(OperatorType.QUANTIZE, FLOATS, _QUANTIZED)
    QUANTIZED_FIELD = "output_tensor"
    REAL_FIELD = "input_tensor"

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value, scale, *rest = inputs
        input_type, output_type = self.input_tensor.desc.data_type, self.output_tensor.desc.data_type
        assert value is not None and scale is not None
        assert isinstance(input_type, TensorDataType) and isinstance(output_type, TensorDataType)
        zero_point = self.zero_point_value(rest[0] if rest else None)
        return quantize_expression(value, scale, zero_point, input_type, output_type)


class DequantizeOperatorDesc(_QuantizationDesc):
    """DML_DEQUANTIZE_OPERATOR_DESC (FL 6_3): OutputTensor = (Input - ZeroPoint) * Scale, from INT8, INT4, UINT8
    or UINT4 into FLOAT32 or FLOAT16."""

    OPERATOR_TYPE = OperatorType.DEQUANTIZE
    BUILDER_NAME = "dequantize"
    SUPPORT = _table(OperatorType.DEQUANTIZE, _QUANTIZED, FLOATS)
    QUANTIZED_FIELD = "input_tensor"
    REAL_FIELD = "output_tensor"

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value, scale, *rest = inputs
        input_type = self.input_tensor.desc.data_type
        assert value is not None and scale is not None and isinstance(input_type, TensorDataType)
        return dequantize_expression(value, scale, self.zero_point_value(rest[0] if rest else None), input_type)
