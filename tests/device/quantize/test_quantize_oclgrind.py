"""Oclgrind (OpenCL simulator: out-of-bounds accesses, data races, API misuse) on the quantize_linear.cl variants.

oclgrind_quantize_variants.py runs in a subprocess whose ICD loader sees Oclgrind's ICD (OCL_ICD_VENDORS names a folder
holding an .icd file that points at liboclgrind-rt-icd.so). Skipped when Oclgrind is not installed, except under
CI=true where that is a failure (.ci/run installs it).

Oclgrind's uninitialized-memory plugin is not enabled: it aborts on LLVM's ``freeze`` instruction, which the
kernels' integer division compiles to ("Unsupported instruction: freeze"), an Oclgrind limitation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.oclgrind_passes import MEMORY_PASS_PROFILES

SCRIPT = Path(__file__).resolve().parent / "oclgrind_quantize_variants.py"
# The variants run under the "cpu" launch profile, "gpu" too with --run-slow (MEMORY_PASS_PROFILES). No
# DML_HALF_BITS pass: of the kernels these variants build (the element-wise template), none reads it; only
# opencl/ext_round.cl does (tests/device/extensions/test_oclgrind_ext.py).


VARIANTS = (
    [
        "q_f32_u8_size1",
        "q_f32_u8_size3",
        "q_f32_i8_size17",
        "q_f32_i8_size33_nullzp",
        "q_f32_u8_axis1_2x3x5",
        "q_f32_i8_axis-1_3x7_nullzp",
        "q_f16_i8_size19",
        "q_f16_u8_axis0_5x3_nullzp",
        "q_i32_u8_axis0_5x3",
        "q_ext_round_up_size7",
        "q_ext_nearest_downward_axis1_2x5",
    ]
    + [
        f"dq_{t}_{s}"
        for t in ("int8", "uint8", "int16", "uint16", "int32", "uint32")
        for s in ("float32_13", "float16_3x7", "float32_5_nullzp")
    ]
    + [f"{op}_blocked_{form}" for form in ("onnx_partial_3x10", "webnn_two_axes_4x6") for op in ("q", "dq")]
    + ["om_quantize_offsets_nullzp_padded_output"]
)


@MEMORY_PASS_PROFILES
def test_every_variant_runs_clean_and_right(
    assert_memory_pass_clean: Any, tmp_path: Path, profile: str, tally: Any
) -> None:
    summary = assert_memory_pass_clean(SCRIPT, profile, VARIANTS, tmp_path=tmp_path)
    tally["oclgrind quantize variants"] += len(summary["variants"])


def test_harness_sees_an_out_of_bounds_write(assert_negative_control_reported: Any, tmp_path: Path) -> None:
    # The detection itself: a deliberately broken kernel (the shared negative control, helpers/oclgrind_driver.py)
    # must produce reports this file would catch.
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=False)
