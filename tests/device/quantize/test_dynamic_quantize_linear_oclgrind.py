"""Memory safety of DYNAMIC_QUANTIZE_LINEAR's plan (reduce.cl's MIN and MAX, opencl/dynamic_quantize.cl, the
element-wise template's QuantizeLinear): every input and output type of its table, ranges of both signs and of one,
packed and strided at byte offsets, under Oclgrind with no report and every output bit for bit the reference's,
each buffer exactly as large as its binding (oclgrind_dynamic_quantize_variants.py, in a subprocess whose only
OpenCL platform is Oclgrind: tests/conftest.py's ``run_oclgrind_script``).

Two passes (tests/helpers/oclgrind_passes.py): memory and uninitialised (the outputs left unwritten). By default two
variants under the memory pass with the "cpu" launch profile and the uninitialised pass with "gpu"; ``--run-slow``
runs every variant under all four combinations. Negative controls: the driver's broken kernel, and
dynamic_quantize.cl writing a scale buffer one element shorter than its binding. Without Oclgrind the tests skip,
except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_dynamic_quantize_variants import every_variant, sampled_variants

PLAN = ["reduce", "reduce", "quantization_parameters", "elementwise"]


def test_the_sample_takes_every_type_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == 2 * 2 * 3 * 2
    assert set(sample) <= set(every)
    for position in (0, 1, 3):
        assert len({label.split()[position] for label in sample}) == 2


def runs_its_plan(label: str, kernels: Any) -> bool:
    return bool(kernels == PLAN)


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_dynamic_quantize_variants.py",
    "dynamic quantize",
    every_variant,
    sampled_variants,
    runs_its_plan,
)

test_the_sampled_variants_run_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_write_past_a_too_short_scale_buffer_is_reported = SUITE.short_buffer_test(
    "--short-scale", "Invalid write of size 4", "quantization_parameters", uninitialized_too=True
)
