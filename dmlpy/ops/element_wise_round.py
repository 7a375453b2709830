"""DML_ELEMENT_WISE_ROUND_OPERATOR_DESC (learn.microsoft.com, "DML_ELEMENT_WISE_ROUND_OPERATOR_DESC" and
"DML_ROUNDING_MODE"). Introduced at DML_FEATURE_LEVEL_2_1 with exactly 4 dimensions; 1 to 8 from 3_0;
FLOAT32 and FLOAT16 only; in-place allowed."""

from __future__ import annotations

from pydantic import Field

from dmlpy.codegen import KernelSpec, LoweredOperator, coalesce
from dmlpy.enums import FeatureLevel, OperatorType, RoundingMode, TensorDataType
from dmlpy.ops._base import OperatorDescBase
from dmlpy.support import SupportRow, SupportTable
from dmlpy.tensor import TensorDesc

_FLOATS = frozenset({TensorDataType.FLOAT32, TensorDataType.FLOAT16})

ROUNDING_FUNCTIONS: dict[RoundingMode, str] = {
    RoundingMode.HALVES_TO_NEAREST_EVEN: "rint",
    RoundingMode.TOWARD_ZERO: "trunc",
    # Not ceil: DirectML's TOWARD_INFINITY rounds halves away from zero, which is OpenCL's round().
    RoundingMode.TOWARD_INFINITY: "round",
}

VECTOR_WIDTH = 8
"""Elements per vector load, rounding and store: float8 is one 256-bit register (PoCL cannot pass float16
vectors to its built-ins on CPUs without AVX-512)."""
ELEMENTS_PER_ITEM = 2048
"""Consecutive elements each work-item rounds, packed or strided: long loops suit CPU devices (PoCL), measured
with benchmarks/bench_round.py. A multiple of VECTOR_WIDTH, so only the last work-item has a scalar tail."""


class ElementWiseRoundOperatorDesc(OperatorDescBase):
    """DML_ELEMENT_WISE_ROUND_OPERATOR_DESC: OutputTensor = round(InputTensor) in the given rounding mode."""

    OPERATOR_TYPE = OperatorType.ELEMENT_WISE_ROUND
    SUPPORT = SupportTable(
        OperatorType.ELEMENT_WISE_ROUND,
        rows=(
            SupportRow(FeatureLevel.FL_2_1, (4, 4), {"InputTensor": _FLOATS, "OutputTensor": _FLOATS}),
            SupportRow(FeatureLevel.FL_3_0, (1, 8), {"InputTensor": _FLOATS, "OutputTensor": _FLOATS}),
        ),
    )
    INPUTS = ("input_tensor",)
    OUTPUTS = ("output_tensor",)
    SUPPORTS_IN_PLACE = True

    input_tensor: TensorDesc = Field(alias="InputTensor")
    """InputTensor: the tensor to round."""
    output_tensor: TensorDesc = Field(alias="OutputTensor")
    """OutputTensor: same DataType, DimensionCount and Sizes as InputTensor; Strides may differ."""
    rounding_mode: RoundingMode = Field(default=RoundingMode.HALVES_TO_NEAREST_EVEN, alias="RoundingMode")
    """RoundingMode (DML_ROUNDING_MODE)."""

    def check_operator_rules(self, level: FeatureLevel) -> None:
        self.check_output_like_input()

    def lower(self) -> LoweredOperator:
        source, target = self.input_tensor.desc, self.output_tensor.desc
        layout = coalesce(source.sizes, (source.effective_strides, target.effective_strides))
        rank = 0 if layout.packed else layout.rank
        defines = (
            ("DML_FLOAT16", "1" if source.data_type == TensorDataType.FLOAT16 else "0"),
            ("ROUND_FN", ROUNDING_FUNCTIONS[self.rounding_mode]),
            # Lets the kernel use the compiler's exact element-wise built-in for ROUND_FN where it has one.
            ("ROUNDING_MODE", str(int(self.rounding_mode))),
            ("RANK", str(rank)),
            ("VECTOR_WIDTH", str(VECTOR_WIDTH)),
            ("ELEMENTS_PER_ITEM", str(ELEMENTS_PER_ITEM)),
        )
        return LoweredOperator(
            kernel=KernelSpec("element_wise_round.cl", "element_wise_round", defines),
            layout=layout,
            elements_per_work_item=ELEMENTS_PER_ITEM,
        )
