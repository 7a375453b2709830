"""Memory safety of opencl/top_k.cl and opencl/cumulative.cl: TOP_K, TOP_K1 both ways (a middle K and the whole
axis), CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT in their four forms, each element type of the operator's table
among FLOAT32, FLOAT16, INT8, INT32 and INT64, along the innermost and the outermost axis, packed and strided at a
byte offset, run under Oclgrind with no report and every result right by top_k_cumulative_cases.py's references,
each buffer exactly as large as its binding (oclgrind_top_k_cumulative_variants.py, in a subprocess whose only
OpenCL platform is Oclgrind: tests/conftest.py's ``run_oclgrind_script``).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, the outputs left unwritten: top_k.cl reads back only the places it has written). By default one
variant per operator form under the memory pass with the "cpu" launch profile and the uninitialised pass with "gpu";
``--run-slow`` runs every variant under all four combinations. Two negative controls prove the reports are seen: the
driver's broken kernel, and top_k.cl reading an input buffer one element shorter than its binding. Without Oclgrind
the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_top_k_cumulative_variants import AXES, LAYOUTS, OPERATORS, TOP_K, WIDTHS, every_variant, sampled_variants

SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_top_k_cumulative_variants.py",
    "top_k and cumulative",
    every_variant,
    sampled_variants,
    lambda label, kernels: kernels == ["top_k" if label.split()[0] in TOP_K else "cumulative"],
)


def test_the_sweep_covers_every_form_width_axis_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == (3 * len(WIDTHS) + 8 * 4) * len(AXES) * len(LAYOUTS)
    assert set(sample) <= set(every) and [label.split()[0] for label in sample] == OPERATORS
    assert {label.split()[1] for label in sample} == {data_type.name for data_type in WIDTHS}
    assert {label.split()[2] for label in sample} == set(AXES)
    assert {label.split()[3] for label in sample} == set(LAYOUTS)


test_a_variant_of_each_form_runs_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported_in_top_k = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 4", "top_k", uninitialized_too=True
)
