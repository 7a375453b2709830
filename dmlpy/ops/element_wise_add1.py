"""DML_ELEMENT_WISE_ADD1_OPERATOR_DESC (DML_FEATURE_LEVEL_2_0): ADD with an optional fused activation,
OutputTensor = FusedActivation(ATensor + BTensor), FLOAT32 and FLOAT16 only (the page lists no integers; a fused
activation needs a float output).

The sum is ADD's helper (``add_float``); the activation is its own class's expression on that sum
(``FusedActivation.bound_to``), so ADD1 computes what ADD and then the activation compute node by node: at FLOAT16
the sum is rounded to half first (``half_value``), as ADD's FLOAT16 output would store it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType
from dmlpy.ops._binary import BinaryArithmeticDesc, binary_support
from dmlpy.ops._elementwise import ElementwiseDesc
from dmlpy.ops._types import FLOATS
from dmlpy.ops.fused_activation import FusedActivation

L = FeatureLevel


class ElementWiseAdd1OperatorDesc(BinaryArithmeticDesc):
    """DML_ELEMENT_WISE_ADD1_OPERATOR_DESC: OutputTensor = FusedActivation(A + B); no FusedActivation is A + B."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ADD1
    SUPPORT = binary_support(OPERATOR_TYPE, ((L.FL_2_0, (4, 5), FLOATS), (L.FL_3_0, (1, 8), FLOATS)))
    FUNCTION = "add"
    BUILDER_NAME: ClassVar[str | None] = "add1"
    BARE_FORM: ClassVar[bool] = False  # without FusedActivation its fields are ADD's

    fused_activation: FusedActivation | None = Field(default=None, alias="FusedActivation")
    """FusedActivation: an activation applied to the sum (its tensors null), or null."""

    def activation(self) -> ElementwiseDesc | None:
        """The fused activation as its own descriptor on OutputTensor, or None."""
        if self.fused_activation is None:
            return None
        return self.fused_activation.bound_to(self.output_tensor, f"{self.operator_name()}.FusedActivation")

    def check_operator_rules(self, level: FeatureLevel) -> None:
        super().check_operator_rules(level)
        activation = self.activation()
        if activation is not None:  # the activation's own support table and rules, at OutputTensor's type
            activation.validate_on(level)

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        total = super().expression(inputs)
        if self.fused_activation is None or total is None:
            return total
        return self.fused_activation.applied(total, self.output_tensor, f"{self.operator_name()}.FusedActivation")

    def explain_lines(self) -> list[str]:
        activation = self.activation()
        fused = "" if activation is None else f", then {activation.operator_name()}'s own expression"
        return [f"{self.helper()}(a, b){fused} through the element-wise template (opencl/elementwise_ops.h)"]
