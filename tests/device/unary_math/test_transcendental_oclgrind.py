"""Memory safety of the operators that compute with opencl/float_math.h, float_trig.h and float_pow.h (issue 47): the
unary math operators but SQRT and RECIP, POW and CONSTANT_POW, at FLOAT32 and FLOAT16, packed and strided, run under
Oclgrind with no report and every result within its bound, each buffer exactly as large as its binding
(oclgrind_transcendental_variants.py, in a subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's
``run_oclgrind_script``).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races and API calls checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, output buffers left unwritten: a select that picks a value never computed is reported). By
default one variant per operator (both types and both layouts among them) under the memory pass with the "cpu"
launch profile and the uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations.
The driver's broken kernel is the negative control. Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_transcendental_variants import LAYOUTS, OPERATORS, TYPES, every_variant, sampled_variants


def runs_the_template(label: str, kernels: list[str]) -> bool:
    return kernels == ["elementwise"]


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_transcendental_variants.py",
    "transcendental",
    every_variant,
    sampled_variants,
    runs_the_template,
)


def test_the_sample_takes_every_operator_type_and_layout() -> None:
    sample = sampled_variants()
    assert set(sample) <= set(every_variant())
    assert [label.split()[0] for label in sample] == list(OPERATORS)
    assert {tuple(label.split()[1:]) for label in sample} == {(t, layout) for t in TYPES for layout in LAYOUTS}
    assert len(every_variant()) == len(set(every_variant())) == 17 * len(TYPES) * len(LAYOUTS)


test_a_variant_of_each_operator_runs_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
