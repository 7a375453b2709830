"""Memory safety of opencl/indexing.cl: GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS (and the
Identity copy before it), SCATTER_ND and ONE_HOT, each element width (8 to 64 bits) and index type (UINT32, INT32,
INT64, UINT64), with negative indices and indices outside their dimensions (a gather clamps, a scatter skips,
ONE_HOT leaves OffValue), packed and strided at byte offsets, runs under Oclgrind with no report and every result
bit for bit right by tests/device/indexing/cases.py's onnx.reference results, each buffer exactly as large as its
binding (oclgrind_indexing_variants.py, in a subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's
``run_oclgrind_script``).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races and API calls checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, the output buffer left unwritten). By default one variant per operator (every width, index
type and layout among them) under the memory pass with the "cpu" launch profile and the uninitialised pass with
"gpu"; ``--run-slow`` runs every variant under all four combinations. Two negative controls prove the reports are
seen: the driver's broken kernel, and gather reading an input buffer one element shorter than its binding. Without
Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_indexing_variants import (
    INDEX_TYPES,
    LAYOUTS,
    OPERATORS,
    WIDTHS,
    every_variant,
    kernels_expected,
    sampled_variants,
)

SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_indexing_variants.py",
    "indexing",
    every_variant,
    sampled_variants,
    lambda label, kernels: kernels == kernels_expected(label.split()[0]),
)


def test_the_sample_takes_every_operator_width_index_type_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == len(OPERATORS) * len(WIDTHS) * len(INDEX_TYPES) * len(LAYOUTS) == 224
    assert set(sample) <= set(every) and [label.split()[0] for label in sample] == list(OPERATORS)
    assert {int(label.split()[1]) for label in sample} == set(WIDTHS)
    assert {label.split()[2] for label in sample} == {index_type.name for index_type in INDEX_TYPES}
    assert {label.split()[3] for label in sample} == set(LAYOUTS)


test_the_sampled_variants_run_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported_in_gather = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 8", "gather"
)
