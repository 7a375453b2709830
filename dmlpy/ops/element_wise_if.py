"""DirectML's selection, ELEMENT_WISE_IF (DML_FEATURE_LEVEL_2_0): OutputTensor = ATensor where ConditionTensor is
nonzero, else BTensor (docs/operators/element_wise_if.md). The chosen element moves unchanged: alone, every
tensor is bound as the unsigned integer of its width (any type, FLOAT64 and NaN payloads included); fused, on
registers that hold a value's bits exactly (not FLOAT16's, which a float register holds as a value, nor FLOAT64,
which has none)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, TensorDataType
from dmlpy.ops._base import OutputShape
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops._types import FLOATS, INTEGERS_8_32, INTEGERS_64
from dmlpy.support import SupportRow, SupportTable
from dmlpy.tensor import BufferTensorDesc, TensorDesc

T, L = TensorDataType, FeatureLevel
TYPES_3_0 = FLOATS | INTEGERS_8_32
CONDITION = frozenset({T.UINT8})


def _row(level: FeatureLevel, dimensions: tuple[int, int], types: frozenset[TensorDataType]) -> SupportRow:
    return SupportRow(
        level, dimensions, {"ConditionTensor": CONDITION, "ATensor": types, "BTensor": types, "OutputTensor": types}
    )


class ElementWiseIfOperatorDesc(ElementwiseDesc):
    """DML_ELEMENT_WISE_IF_OPERATOR_DESC: OutputTensor = ConditionTensor != 0 ? ATensor : BTensor."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_IF
    SUPPORT = SupportTable(
        OPERATOR_TYPE,
        rows=(
            _row(L.FL_2_0, (4, 4), frozenset({T.FLOAT16})),
            _row(L.FL_3_0, (1, 8), TYPES_3_0),
            _row(L.FL_5_0, (1, 8), TYPES_3_0 | {T.FLOAT64} | INTEGERS_64),
        ),
    )
    INPUTS = ("condition_tensor", "a_tensor", "b_tensor")
    OUTPUTS = ("output_tensor",)

    @classmethod
    def output_shapes(
        cls, inputs: dict[str, BufferTensorDesc | None], fields: dict[str, Any]
    ) -> tuple[OutputShape, ...]:
        return cls.outputs_like(inputs, "condition_tensor", "a_tensor")  # the condition is UINT8, the values any type

    SUPPORTS_IN_PLACE = False  # the page allows it not
    BUILDER_NAME = "if_"
    ONNX_OPS = ("Where",)

    condition_tensor: TensorDesc = Field(alias="ConditionTensor")
    """ConditionTensor: UINT8, any nonzero byte choosing ATensor; ATensor's DimensionCount and Sizes."""
    a_tensor: TensorDesc = Field(alias="ATensor")
    """ATensor: the values where the condition holds."""
    b_tensor: TensorDesc = Field(alias="BTensor")
    """BTensor: the values elsewhere; ATensor's DataType, DimensionCount and Sizes."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: ATensor's DataType, DimensionCount and Sizes; Strides may differ."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_same(
            ("data_type", "dimension_count", "sizes"),
            "a_tensor",
            ("b_tensor", "output_tensor"),
            "; ATensor, BTensor and OutputTensor have one DataType, DimensionCount and Sizes",
        )
        self.check_same(
            ("dimension_count", "sizes"),
            "a_tensor",
            ("condition_tensor",),
            "; one condition byte per element (0-strides broadcast it)",
        )

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.a_tensor.desc.data_type.name})"

    def bits_expression(self, inputs: Sequence[str | None]) -> str | None:
        condition, a, b = inputs
        assert condition is not None and a is not None and b is not None, "every tensor is required"
        return f"IF({condition}, {a}, {b})"

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        if self.a_tensor.desc.data_type in (T.FLOAT16, T.FLOAT64):
            return None  # a float register holds a half's value, not its encoding; FLOAT64 has no register
        return self.bits_expression(inputs)

    def explain_lines(self) -> list[str]:
        return ["IF(condition, a, b): the chosen element's bits moved unchanged (opencl/elementwise_ops.h)"]
