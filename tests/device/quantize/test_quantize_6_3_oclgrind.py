"""Oclgrind (out-of-bounds accesses, data races, API misuse) on FL 6_3's QUANTIZE and DEQUANTIZE kernels: 4-bit
inputs and outputs of odd element counts, blocked quantization tensors, a strided 4-bit input, the strided walk
storing nibble pairs, and the fused DEQUANTIZE -> ROUND -> QUANTIZE kernel, under the "cpu" launch profile
(the "gpu" one too with --run-slow: tests/helpers/oclgrind_passes.py).

oclgrind_quantize_6_3_variants.py runs in a subprocess that sees only Oclgrind (tests/conftest.py's
``assert_memory_pass_clean``, data races checked: two work-items storing the two nibbles of one byte would be
one). Skipped when Oclgrind is not installed, except under CI=true. The harness's own detection of a broken
kernel is test_quantize_oclgrind.py's negative control (the same driver).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.oclgrind_passes import MEMORY_PASS_PROFILES

SCRIPT = Path(__file__).resolve().parent / "oclgrind_quantize_6_3_variants.py"
VARIANTS = [
    "q_f32_int4_3x15_blocks_of_5",
    "q_f16_uint4_6x20_blocked_2_axes_scale_only",
    "q_f32_uint8_5x7_per_axis",
    "q_f32_int4_3x7_column_major_input",
    "dq_int4_f32_3x15_blocks_of_5",
    "dq_uint4_f16_3x7_rows_padded_to_9",
    "fused_dq_int4_round_q_int4_3x15",
]


@MEMORY_PASS_PROFILES
def test_every_variant_runs_clean_and_right(
    assert_memory_pass_clean: Any, tmp_path: Path, profile: str, tally: Any
) -> None:
    summary = assert_memory_pass_clean(SCRIPT, profile, VARIANTS, tmp_path=tmp_path)
    tally["oclgrind FL 6_3 quantize variants"] += len(summary["variants"])
