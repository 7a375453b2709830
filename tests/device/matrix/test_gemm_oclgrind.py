"""Memory safety of opencl/gemm.cl: GEMM (every transpose pair, C absent, full and broadcast, RELU fused), and the
three integer matrix products (every type pair of their tables, zero points and scales per row and column or one
value, absent zero points), packed and strided at byte offsets, under Oclgrind with no report and every result right
against cases.py's references, and MATRIX_MULTIPLY_INTEGER through the integer tiles' blocks, steps and extremes
(pairs_cases.py), each buffer exactly as large as its binding (oclgrind_gemm_variants.py, in a
subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's ``run_oclgrind_script``).

Two passes (tests/helpers/oclgrind_passes.py): memory and uninitialised (the output left unwritten). By default six
variants (two GEMM, one of each integer operator, one of the integer tiles') under the memory pass with the "cpu"
launch profile and the uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations.
Negative controls: the driver's broken kernel, and the contraction reading an A buffer one element shorter than its
binding. Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_gemm_variants import every_variant, sampled_variants

OPERATORS = {"GEMM": "0", "MMI": "1", "QLMM": "2", "MMITF": "3"}
KERNEL_OPERATORS = {**OPERATORS, "PAIRS": "1"}  # the PAIRS variants are MATRIX_MULTIPLY_INTEGER


def test_the_sample_takes_every_operator_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == 2 * 4 * 3 * 2 + 2 * 2 * 2 * 2 + 2 * 2 * 2 * 2 + 6 * 2 + 2 * 2 + 1
    assert set(sample) <= set(every)
    assert {label.split()[0] for label in sample} == {*OPERATORS, "PAIRS"}
    assert {"packed", "strided"} <= {label.split()[-1] for label in sample}


def runs_its_kernel(label: str, defines: dict[str, str]) -> bool:
    return defines.get("kernel") == "contraction" and defines.get("OPERATOR") == KERNEL_OPERATORS[label.split()[0]]


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_gemm_variants.py",
    "gemm",
    every_variant,
    sampled_variants,
    runs_its_kernel,
)

test_the_sampled_variants_run_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_a_buffer_is_reported = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 4", "contraction"
)
