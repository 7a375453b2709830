"""DML_CAST_OPERATOR_DESC (DML_FEATURE_LEVEL_1_0): each element of InputTensor converted to OutputTensor's DataType
(docs/operators/cast.md).

Microsoft's page documents no conversion rule; dmlpy's are Direct3D's, which DirectML's shaders inherit, else IEEE
754's and C's, each with its source in ``opencl/elementwise_ops.h``'s "cast" section: a float to an integer toward
zero, saturated, NaN to 0; an integer to a narrower one wrapping modulo 2^width; anything to a float to nearest,
ties to even, overflowing to infinity; widening exact. A cast from or to FLOAT64 runs on the encodings in integer
arithmetic (no device needs cl_khr_fp64; ``opencl/double_bits.h``), in a kernel of its own in graphs, as does a
FLOAT16 to FLOAT16 copy (which keeps a signalling NaN); the others fuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field

from dmlpy.dtypes import DATA_TYPES
from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.kernels.elementwise import bits_type
from dmlpy.ops._base import OutputShape
from dmlpy.ops._types import EVERY_TYPE, FLOATS, INPUT_OUTPUT, INTEGERS_8_16, INTEGERS_64, SIGNED
from dmlpy.ops._unary import UnaryElementWiseDesc, register
from dmlpy.support import SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

T, L = TensorDataType, FeatureLevel
_TYPES_1_0 = FLOATS | INTEGERS_8_16
_TYPES_3_0 = _TYPES_1_0 | {T.INT32, T.UINT32} | INTEGERS_64


class CastOperatorDesc(UnaryElementWiseDesc):
    """DML_CAST_OPERATOR_DESC: OutputTensor = InputTensor converted to OutputTensor's DataType."""

    OPERATOR_TYPE = OperatorType.CAST
    SUPPORT = SupportTable.same_types(
        OPERATOR_TYPE,
        INPUT_OUTPUT,
        (
            (L.FL_1_0, (4, 4), _TYPES_1_0),
            (L.FL_3_0, (4, 4), _TYPES_3_0),
            (L.FL_3_1, (1, 8), _TYPES_3_0),
            (L.FL_4_1, (1, 8), EVERY_TYPE),
        ),
    )
    SUPPORTS_IN_PLACE = False  # the page says nothing of it, and the two types may differ in width
    BARE_FORM = False  # its fields are Identity's: a bare descriptor with them stays Identity's
    BUILDER_NAME, ONNX_OPS = "cast", ("Cast", "CastLike")

    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: InputTensor's DimensionCount and Sizes; its DataType is the one converted to, and Strides
    may differ."""

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        return cls.outputs_like(inputs, "input_tensor", None)  # the DataType converted to is the caller's

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_same(
            ("dimension_count", "sizes"),
            "input_tensor",
            ("output_tensor",),
            "; CAST converts element by element (its DataType is its own, its Strides may differ)",
        )

    def types(self) -> tuple[TensorDataType, TensorDataType]:
        """The input's and the output's DataType."""
        return TensorDataType(self.input_tensor.desc.data_type), TensorDataType(self.output_tensor.desc.data_type)

    def describe(self) -> str:
        source, target = self.types()
        return f"{self.operator_name()} ({source.name} -> {target.name})"

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        source, target = self.types()
        if T.FLOAT64 in (source, target):
            return None  # no register type (double needs cl_khr_fp64): a kernel of its own, on the encodings
        if source == target:  # a half through a float register would lose a signalling NaN the copy keeps
            return None if source == T.FLOAT16 else value
        if target in FLOATS:
            return value if source in FLOATS else f"convert_float_rte({value})"
        held = register(target)
        if source in FLOATS:
            return f"TO_INTEGER({held}, {value})"
        return f"CAST_INTEGER({held}, {bits_type(target).register}, {value})"

    def bits_expression(self, inputs: Sequence[str | None]) -> str | None:
        value = inputs[0]
        assert value is not None, "InputTensor is required"
        source, target = self.types()
        if source == target:
            return value
        if source == T.FLOAT64:
            return _from_double_bits(value, target)
        if target == T.FLOAT64:
            return _to_double_bits(value, source)
        return None

    def explain_lines(self) -> list[str]:
        source, target = self.types()
        if T.FLOAT64 in (source, target):
            return [
                f"{source.name} -> {target.name} on the encodings in integer arithmetic (every tensor bound as "
                "unsigned bits, no cl_khr_fp64; opencl/double_bits.h)"
            ]
        return [
            f"{source.name} -> {target.name} through the element-wise template (opencl/elementwise_ops.h, section cast)"
        ]


def _from_double_bits(d: str, target: TensorDataType) -> str:
    """A FLOAT64's bits ``d`` as ``target``'s bits."""
    if target == T.FLOAT32:
        return f"double_bits_to_float_bits({d}, false)"
    if target == T.FLOAT16:  # rounded to odd at float's precision, then once to half
        return f"half_value_bits(half_value(as_float(double_bits_to_float_bits({d}, true))))"
    width = DATA_TYPES[target].bits
    bits = bits_type(target).register
    if target in SIGNED:
        return f"as_{bits}(({register(target)})double_bits_to_signed({d}, {width}u))"
    return f"({bits})double_bits_to_unsigned({d}, {width}u)"


def _to_double_bits(x: str, source: TensorDataType) -> str:
    """``source``'s bits ``x`` as a FLOAT64's bits."""
    if source == T.FLOAT32:
        return f"float_bits_to_double_bits({x})"
    if source == T.FLOAT16:
        return f"float_bits_to_double_bits(as_uint(half_bits_to_float({x})))"
    if source in SIGNED:
        return f"signed_to_double_bits(as_{register(source)}({x}))"
    return f"unsigned_to_double_bits({x})"
