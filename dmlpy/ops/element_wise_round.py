"""DML_ELEMENT_WISE_ROUND_OPERATOR_DESC (learn.microsoft.com, "DML_ELEMENT_WISE_ROUND_OPERATOR_DESC" and
"DML_ROUNDING_MODE"). Introduced at DML_FEATURE_LEVEL_2_1 with exactly 4 dimensions; 1 to 8 from 3_0;
FLOAT32 and FLOAT16 only; in-place allowed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import Field

from dmlpy.enums import FeatureLevel, OperatorType, RoundingMode, TensorDataType
from dmlpy.kernels import CPU_PROFILE, KernelSpec, LaunchProfile, LoweredOperator, tile_order
from dmlpy.ops._unary import UnaryElementWiseDesc, float_math_support

ROUNDING_FUNCTIONS: dict[RoundingMode, str] = {
    RoundingMode.HALVES_TO_NEAREST_EVEN: "rint",
    RoundingMode.TOWARD_ZERO: "trunc",
    # Not ceil: DirectML's TOWARD_INFINITY rounds halves away from zero, which is OpenCL's round().
    RoundingMode.TOWARD_INFINITY: "round",
}
"""The OpenCL built-in each mode's result equals, for `explain`: opencl/elementwise_ops.h's ROUNDING_MODE_<n>
computes it (the built-in itself, or an exact vectorisable form on PoCL); the kernels get the mode's value."""

ELEMENTS_PER_ITEM = 2048
"""Consecutive elements each work-item rounds under the "cpu" launch profile, packed or strided: long loops
suit CPU devices (PoCL), measured with benchmarks/bench_round.py. A multiple of every profile's vector width
(LaunchProfile.vector_width: 8 on CPUs, since PoCL cannot pass float16 vectors to its built-ins on CPUs without
AVX-512), so only the last work-item has a scalar tail."""


class ElementWiseRoundOperatorDesc(UnaryElementWiseDesc):
    """DML_ELEMENT_WISE_ROUND_OPERATOR_DESC: OutputTensor = round(InputTensor) in the given rounding mode."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ROUND
    BUILDER_NAME = "round"
    BUILDER_KEYWORDS: ClassVar[dict[str, str]] = {"rounding_mode": "mode"}
    ONNX_OPS = ("Round",)
    SUPPORT = float_math_support(OperatorType.ELEMENT_WISE_ROUND, FeatureLevel.FL_2_1)

    rounding_mode: RoundingMode = Field(default=RoundingMode.HALVES_TO_NEAREST_EVEN, alias="RoundingMode")
    """RoundingMode (DML_ROUNDING_MODE)."""

    def describe(self) -> str:
        return f"{self.operator_name()} ({self.input_tensor.desc.data_type.name}, {self.rounding_mode.name})"

    def lower(self, profile: LaunchProfile = CPU_PROFILE) -> LoweredOperator:
        layout = self.element_layout()
        # Transposes go tile by tile on CPUs (element_wise_round.cl, TILED); GPUs' grid-stride walk coalesces the
        # output's side already.
        tiled = None if profile.grid_stride else tile_order(layout)
        layout = tiled or layout
        defines = (
            ("DML_FLOAT16", "1" if self.input_tensor.desc.data_type == TensorDataType.FLOAT16 else "0"),
            # DML_ROUNDING_MODE's value: elementwise_ops.h's ROUNDING_MODE_<n> is the rounding function.
            ("ROUNDING_MODE", str(int(self.rounding_mode))),
            ("RANK", str(0 if layout.packed else layout.rank)),
            ("VECTOR_WIDTH", str(profile.vector_width)),
            ("TILED", "1" if tiled else "0"),
        )
        # The grid-stride loop steps in vectors only where the tensors are packed; the strided walk goes by
        # elements.
        step = profile.vector_width if layout.packed else 1
        kernel = KernelSpec("element_wise_round.cl", "element_wise_round", defines)
        return profile.lowered(kernel, layout, ELEMENTS_PER_ITEM, vector_width=step)

    def expression(self, inputs: Sequence[str | None]) -> str | None:
        return f"ROUND_{self.rounding_mode.name}({inputs[0]})"

    def explain_lines(self) -> list[str]:
        mode = self.rounding_mode
        return [
            f"RoundingMode {mode.c_name} -> OpenCL built-in {ROUNDING_FUNCTIONS[mode]}()"
            f" (ROUNDING_MODE={int(mode)}: elementwise_ops.h's ROUNDING_MODE_{int(mode)})"
        ]
