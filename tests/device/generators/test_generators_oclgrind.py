"""Memory safety of the generators: FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX and DIAGONAL_MATRIX1
(with and without its InputTensor), each element width (8, 16, 32, 64 bits), packed and strided at byte offsets, run
under Oclgrind with no report and every result bit for bit right, each buffer exactly as large as its binding
(oclgrind_generators_variants.py, in a subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's
``run_oclgrind_script``). Every variant runs opencl/generators.cl.

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races and API calls checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, output buffers left unwritten). By default one variant per operator class (every width and
both layouts among them) under the memory pass with the "cpu" launch profile and the uninitialised pass with "gpu";
``--run-slow`` runs every variant under all four combinations. Two negative controls prove the reports are seen: the
driver's broken kernel, and generators.cl writing an output buffer one element shorter than its binding. Without
Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_generators_variants import LAYOUTS, OPERATORS, WIDTHS, every_variant, sampled_variants

SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_generators_variants.py",
    "generator",
    every_variant,
    sampled_variants,
    lambda _, kernels: kernels == ["generate"],
)


def test_the_sample_takes_every_width_and_layout_and_every_operator_class() -> None:
    sample = sampled_variants()
    assert set(sample) <= set(every_variant())
    assert {label.split()[0] for label in sample} == set(OPERATORS)
    assert {int(label.split()[1]) for label in sample} == set(WIDTHS)
    assert {label.split()[2] for label in sample} == set(LAYOUTS)
    assert len(every_variant()) == len(set(every_variant())) == len(OPERATORS) * len(WIDTHS) * len(LAYOUTS)


test_a_variant_of_each_operator_runs_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_write_past_a_too_short_output_buffer_is_reported = SUITE.short_buffer_test(
    "--short-output", "Invalid write of size 8", "generate"
)
