"""Memory safety of the resampling operators: opencl/resample.cl in each of its kinds (NEAREST rounding halves up,
down and up; LINEAR plain and antialiased) at every data type of the tables, UPSAMPLE_2D at both modes and
VALUE_SCALE_2D's per-channel scale-bias steps, packed and strided at byte offsets, run under Oclgrind with no report
and every result right (nearest bit for bit, linear within its bound), each buffer exactly as large as its binding
(oclgrind_resample_variants.py, in a subprocess whose only OpenCL platform is Oclgrind).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory and uninitialised (output
buffers left unwritten). By default one variant per class under the memory pass with the "cpu" launch profile and
the uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations. Two negative
controls prove the reports are seen: the driver's broken kernel, and resample.cl reading an input buffer one element
shorter than its binding. Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_resample_variants import KINDS, LAYOUTS, every_variant, sampled_variants


def runs_its_kernel(label: str, kernels: list[str]) -> bool:
    if label.startswith("VALUE_SCALE_2D"):
        return len(kernels) == 3 and set(kernels) == {"elementwise"}
    return kernels == ["resample"]


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_resample_variants.py",
    "resample",
    every_variant,
    sampled_variants,
    runs_its_kernel,
)


def test_the_sample_takes_every_class_type_and_layout() -> None:
    sample, every = sampled_variants(), every_variant()
    assert set(sample) <= set(every)
    assert {label.rsplit(" ", 2)[0] for label in sample} == {label.rsplit(" ", 2)[0] for label in every}
    assert {label.split()[-2] for label in sample} == {label.split()[-2] for label in every}
    assert {label.split()[-1] for label in sample} == set(LAYOUTS)
    assert len(every) == len(set(every)) == (len(KINDS) * 4 + 3 * 2) * len(LAYOUTS)


test_a_variant_of_each_class_runs_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported_in_resample = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 4", "resample"
)
