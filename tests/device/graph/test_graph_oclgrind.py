"""Oclgrind (OpenCL simulator: out-of-bounds accesses, data races, API misuse) on compiled graphs: every loop shape
of the fused kernel, and the same graphs one node at a time, each tensor bound at an offset in a buffer that ends
where the tensor does (oclgrind_graph_variants.py, run in a subprocess whose ICD loader sees only Oclgrind).
The groups anchored by a reduction or a normalization run the uninitialised pass as well ("gpu" by default, "cpu"
with --run-slow). Skipped when Oclgrind is not installed, except under CI=true where that is a failure (.ci/run
installs it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import MEMORY_PASS_PROFILES, run_reportless

from .oclgrind_graph_variants import ANCHORED_VARIANTS

SCRIPT = Path(__file__).resolve().parent / "oclgrind_graph_variants.py"
VARIANTS = [
    *(
        f"qdq_{tag}_{shape}"
        for tag in ("f32", "f16")
        for shape in ("packed_per_tensor_37", "rows_per_axis1_2x3x5", "rows_per_axis_last_3x7")
    ),
    "qdq_f32_walk_transposed_output_4x9",
    "tree_f16_padded_two_outputs_constants_3x5",
    "identity_i8_nan_inf_scale_bias_37",
    "round_identity_hostile_names_37",
    "views_window_reduce_transpose_f32",
    "add_batch_normalization_relu_f16_2x3x5",
    *ANCHORED_VARIANTS,
]


# No DML_HALF_BITS pass: the element-wise template never reads it; Round's kernel and opencl/ext_round.cl do, and
# their own suites build it (tests/device/round/test_oclgrind.py, tests/device/extensions/test_oclgrind_ext.py).
@MEMORY_PASS_PROFILES
def test_every_variant_runs_clean_and_fused_equals_one_by_one(
    assert_memory_pass_clean: Any, tmp_path: Path, profile: str, tally: Any
) -> None:
    summary = assert_memory_pass_clean(SCRIPT, profile, VARIANTS, tmp_path=tmp_path)
    tally["oclgrind graph variants"] += len(summary["variants"])


# The groups anchored by a reduction or a normalization read and write through generated code (opencl/anchored.h):
# their variants run the uninitialised pass too, which sees a read of a value no kernel wrote.
@pytest.mark.parametrize(
    "profile", [pytest.param("gpu", id="gpu-profile"), pytest.param("cpu", id="cpu-profile", marks=pytest.mark.slow)]
)
def test_anchored_groups_read_nothing_uninitialised(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, tally: Any
) -> None:
    summary = run_reportless(run_oclgrind_script, SCRIPT, tmp_path, profile, True, "--anchored-only", timeout=300)
    assert summary["variants"] == ANCHORED_VARIANTS and summary["mismatches"] == []
    tally["oclgrind graph variants"] += len(summary["variants"])


def test_harness_sees_an_out_of_bounds_write(assert_negative_control_reported: Any, tmp_path: Path) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=False)
