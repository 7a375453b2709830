"""Memory safety of the convolutions' plans: opencl/convolution.cl's unfold, the filter's packing copy, gemm.cl's
contraction (GEMM, MATRIX_MULTIPLY_INTEGER and QUANTIZED_LINEAR_CONVOLUTION's operator 4) and the staged output's
copy, and the direct depth-wise kernel, over CONVOLUTION (FLOAT32 and FLOAT16, both modes and directions, 1-D, 2-D,
3-D, depth-wise, two output channels a group, pointwise) and the integer convolutions (every INT8/UINT8 pair, zero
points per channel, one value or none; 1-D, 2-D and depth-wise, the direct kernel's integer form), packed and
strided at byte offsets, under Oclgrind with no report and every result right against cases.py's references, each
buffer exactly as large as its binding (oclgrind_convolution_variants.py, in a subprocess whose only OpenCL platform
is Oclgrind).

Two passes (tests/helpers/oclgrind_passes.py): by default six variants under the memory pass with the "cpu" launch
profile and the uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations.
Negative controls: the driver's broken kernel, and the pointwise plan's contraction reading an input buffer one
element shorter than its binding. Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_convolution_variants import (
    CONTRACTION_OPERATOR,
    FORWARD_SHAPES,
    INTEGER_SHAPES,
    LAYOUTS,
    SHAPES,
    every_variant,
    sampled_variants,
)


def test_the_sample_takes_every_operator_direction_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    conv = 2 * 2 * 2 * len(SHAPES) * len(LAYOUTS) + len(FORWARD_SHAPES) * 2 * len(LAYOUTS)
    integer = 2 * 2 * 2 * 3 * len(INTEGER_SHAPES) * len(LAYOUTS)
    assert len(every) == len(set(every)) == conv + integer
    assert set(sample) <= set(every)
    assert {label.split()[0] for label in sample} == set(CONTRACTION_OPERATOR)
    assert {label.split()[-1] for label in sample} == set(LAYOUTS)
    assert {label.split()[3] for label in sample if label.startswith("CONV")} == {"forward", "backward"}


def runs_its_kernels(label: str, recorded: dict[str, Any]) -> bool:
    """A depth-wise CONVOLUTION, depthwise.cl's direct kernel alone; any other the contraction of the label's
    operator, and the unfold but for the pointwise filter over a packed input, which the contraction reads as it is
    (a strided input's spatial axes are not one run, so it is unfolded), and CONVOLUTION FORWARD under the "cpu"
    profile, whose contraction reads the input through the window (IMPLICIT)."""
    kernels = recorded["kernels"]
    if " depthwise " in label:
        return kernels == ["depthwise"] and recorded["OPERATOR"] is None
    direct = "pointwise" in label and label.endswith("packed")
    implicit = label.startswith("CONV") and " forward " in label and recorded["profile"] == "cpu" and not direct
    return (
        recorded["OPERATOR"] == CONTRACTION_OPERATOR[label.split()[0]]
        and recorded["IMPLICIT"] == implicit
        and ("unfold" in kernels) == (not direct and not implicit)
    )


def takes_every_step(summary: dict[str, Any]) -> None:
    """Somewhere the filter is packed (a copy before the unfold) and the output staged (a copy after the
    contraction)."""
    plans = [recorded["kernels"] for recorded in summary["kernels"].values() if recorded["OPERATOR"] is not None]
    assert any(kernels.index("contraction") > 1 for kernels in plans)
    assert any(kernels[-1] != "contraction" for kernels in plans)


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_convolution_variants.py",
    "convolution",
    every_variant,
    sampled_variants,
    runs_its_kernels,
)

test_the_sampled_variants_run_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test(takes_every_step)
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported_in_contraction = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 4", "contraction"
)
