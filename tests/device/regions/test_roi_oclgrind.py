"""Memory safety of opencl/roi.cl: both kernels, each reduction and interpolation mode roi_align compiles, FLOAT32 and
FLOAT16, regions of every kind, packed and strided at byte offsets, run under Oclgrind with no report and every
result right by tests/device/regions/cases.py's references, each buffer exactly as large as its binding
(oclgrind_roi_variants.py, in a subprocess whose only OpenCL platform is Oclgrind).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory and uninitialised (the
outputs left unwritten). By default one variant per function under the memory pass with the "cpu" launch profile
and the uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations. Two negative
controls: the driver's broken kernel, and roi.cl reading an input buffer one element shorter than its binding.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_roi_variants import FUNCTIONS, LAYOUTS, TYPES, every_variant, sampled_variants


def runs_its_kernel(label: str, defines: dict[str, str]) -> bool:
    """roi_pooling for POOLING; roi_align with MAX (REDUCTION 1) and nearest (LINEAR 0) where the label says."""
    name = label.split()[0]
    if name == "POOLING":
        return defines["kernel"] == "roi_pooling"
    reduction = "1" if "MAX" in name else "0"
    linear = "0" if "NEAREST" in name else "1"
    return defines["kernel"] == "roi_align" and defines["REDUCTION"] == reduction and defines["LINEAR"] == linear


def takes_every_kernel(summary: dict[str, Any]) -> None:
    assert {defines["kernel"] for defines in summary["kernels"].values()} == {"roi_align", "roi_pooling"}
    index_types = {defines.get("INDEX_T") for defines in summary["kernels"].values()}
    assert {"uint", "ulong"} <= index_types


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_roi_variants.py",
    "roi",
    every_variant,
    sampled_variants,
    runs_its_kernel,
)


def test_the_sweep_covers_every_function_type_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == len(FUNCTIONS) * len(TYPES) * len(LAYOUTS) and set(sample) <= set(every)
    assert [label.split()[0] for label in sample] == list(FUNCTIONS)
    assert {label.split()[1] for label in sample} == {t.name for t in TYPES}
    assert {label.split()[2] for label in sample} == set(LAYOUTS)


test_a_variant_of_each_function_runs_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test(takes_every_kernel)
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported_in_roi_align = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 4", "roi_align"
)
