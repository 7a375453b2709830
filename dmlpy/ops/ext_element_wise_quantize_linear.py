"""DMLPY_EXT_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR, a dmlpy extension. **Not DirectML.**

DirectML's QuantizeLinear, with its rules at the newest feature level, rounding ``input / scale`` in one of
nGraph's nine modes (as nGraph's Quantize does) instead of halves to even.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import Field

from dmlpy.enums import ExtOperatorType, ExtRoundingMode, FeatureLevel
from dmlpy.errors import DmlError
from dmlpy.kernels import CPU_PROFILE, LaunchProfile, LoweredOperator
from dmlpy.ops._base import DeviceCapabilities
from dmlpy.ops.element_wise_quantize_linear import ElementWiseQuantizeLinearOperatorDesc
from dmlpy.ops.ext_element_wise_round import mode_index

RULES_LEVEL = max(FeatureLevel)
"""The DirectML level whose QuantizeLinear rules the extension keeps."""


class ExtElementWiseQuantizeLinearOperatorDesc(ElementWiseQuantizeLinearOperatorDesc):
    """DMLPY_EXT_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR (a dmlpy extension, not DirectML): QuantizeLinear that
    rounds ``input / scale`` in one of nGraph's nine modes."""

    # The DirectML parent's attribute is typed OperatorType; the extension deliberately replaces it.
    OPERATOR_TYPE = ExtOperatorType.ELEMENT_WISE_QUANTIZE_LINEAR  # type: ignore[assignment]
    BUILDER_NAME = None  # a graph holds DirectML operators only
    ONNX_OPS = ()

    rounding_mode: ExtRoundingMode = Field(default=ExtRoundingMode.NEAREST_TOWARD_EVEN, alias="RoundingMode")
    """RoundingMode (DMLPY_EXT_ROUNDING_MODE, nGraph's names) applied to Input / Scale."""

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.input_tensor.desc.data_type.name}, {self.rounding_mode.name})"

    def check_extension_rules(self, capabilities: DeviceCapabilities) -> None:
        """DirectML's QuantizeLinear rules at RULES_LEVEL; a broken rule is reported as the extension's, quoting
        DirectML's."""
        try:
            self.check_support(RULES_LEVEL)
            self.check_operator_rules(RULES_LEVEL)
        except DmlError as error:
            raise type(error)(
                f"{self.operator_name()} keeps DirectML QuantizeLinear's rules at {RULES_LEVEL.c_name}, and breaks "
                f"one: {error}"
            ) from None

    def quantized(self, value: str, scale: str, zero_point: str, half_input: str) -> str:
        """``round(value / scale) + zero_point`` in the extension's mode (elementwise_ops.h's round_in_mode, its
        ROUND_MODE define added by ``lower``)."""
        return f"round_in_mode(quantize_quotient({value}, {scale}, {half_input})) + {zero_point}"

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        lowered = super().lower(profile)
        defines = (*lowered.kernel.defines, ("ROUND_MODE", mode_index(self.rounding_mode)))
        return replace(lowered, kernel=replace(lowered.kernel, defines=defines))
