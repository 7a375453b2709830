"""Memory safety of opencl/softmax.cl: SOFTMAX1, LOG_SOFTMAX1 and HARDMAX1, FLOAT32 and FLOAT16, along packed rows,
padded rows bound at a byte offset and rows shorter than a lane (the ROWS path), and along columns (the walk through
strides), run under Oclgrind with no report and every result right by the rows' references, each buffer exactly as
large as its binding (oclgrind_softmax_variants.py, in a subprocess whose only OpenCL platform is Oclgrind:
tests/conftest.py's ``run_oclgrind_script``).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, the outputs left unwritten but where SOFTMAX at FLOAT32 reads back its kept terms). By default
one variant per operator and layout under the memory pass with the "cpu" launch profile and the uninitialised pass
with "gpu"; ``--run-slow`` runs every variant under all four combinations. Two negative controls prove the reports
are seen: the driver's broken kernel, and softmax.cl reading an input buffer one element shorter than its binding.
Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_softmax_variants import LAYOUTS, OPERATORS, TYPES, every_variant, sampled_variants


def runs_its_path(label: str, defines: Any) -> bool:
    """softmax.cl, its ROWS path but along columns."""
    return bool(defines["kernel"] == "softmax" and defines["ROWS"] == ("0" if label.endswith("columns") else "1"))


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_softmax_variants.py",
    "softmax",
    every_variant,
    sampled_variants,
    runs_its_path,
)


def test_the_sample_takes_every_operator_type_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == len(OPERATORS) * len(TYPES) * len(LAYOUTS)
    assert set(sample) <= set(every)
    assert {label.split()[0] for label in sample} == set(OPERATORS)
    assert {label.split()[1] for label in sample} == set(TYPES)
    assert {label.split()[2] for label in sample} == set(LAYOUTS)


test_a_variant_of_each_operator_and_layout_runs_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported_in_softmax = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 4", "softmax"
)
