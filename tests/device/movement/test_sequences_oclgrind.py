"""Memory safety of REVERSE_SUBSEQUENCES and NONZERO_COORDINATES under Oclgrind (oclgrind_sequence_variants.py in a
subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's ``run_oclgrind_script``): no report and every
result right. By default the sampled variants under the memory pass with the "cpu" launch profile and the
uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations
(tests/helpers/oclgrind_passes.py). The driver's broken kernel proves the reports are seen. Without Oclgrind the
tests skip, except under CI=true."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_sequence_variants import every_variant, sampled_variants

SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_sequence_variants.py", "sequences", every_variant, sampled_variants
)

test_variants_run_clean_and_right = SUITE.shared_passes_test()
test_every_variant_under_the_default_passes = SUITE.every_under_default_passes_test()
test_negative_control_is_reported = SUITE.negative_control_test()
