"""Memory safety of opencl/normalize.cl and BATCH_NORMALIZATION's element-wise kernel: every MEAN_VARIANCE_NORMALIZATION
form with ScaleTensor and BiasTensor both, either or neither (the absent ones bound, never read), with and without a
FusedActivation, LP_NORMALIZATION with P 1 and 2, BATCH_NORMALIZATION with and without one, FLOAT32 and FLOAT16,
packed and strided at byte offsets, run under Oclgrind with no report and every result within test_normalizations'
bounds of the float64 formulas, each buffer exactly as large as its binding (oclgrind_normalize_variants.py, in a
subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's ``run_oclgrind_script``).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races and API calls checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, the output buffer left unwritten). By default one variant per MVN form and two each of LP and
BATCH_NORMALIZATION (every parameter set, type, activation and layout among them) under the memory pass with the
"cpu" launch profile and the uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four
combinations. Two negative controls prove the reports are seen: the driver's broken kernel, and
mean_variance_normalization reading an input buffer one element shorter than its binding. Without Oclgrind the tests
skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.oclgrind_suite import OclgrindSuite

from .oclgrind_normalize_variants import ACTIVATIONS, LAYOUTS, PARAMETERS, TYPES, every_variant, sampled_variants

KERNELS = {"LP": "lp_normalization", "BN": "elementwise"}
"""The kernel each label's first word lowers to, by its first two letters (mean_variance_normalization otherwise)."""


def expected_defines(label: str) -> dict[str, str]:
    """What the label says its kernel compiles: the kernel, and for an MVN its HAS_SCALE and HAS_BIAS."""
    words = label.split()
    kernel = KERNELS.get(words[0][:2], "mean_variance_normalization")
    if kernel != "mean_variance_normalization":
        return {"kernel": kernel}
    given = words[1]
    return {
        "kernel": kernel,
        "HAS_SCALE": str(int(given in ("scale+bias", "scale"))),
        "HAS_BIAS": str(int(given in ("scale+bias", "bias"))),
        "DML_FLOAT16": str(int(words[2] == "FLOAT16")),
    }


def test_the_sample_takes_every_form_parameter_set_type_activation_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == 6 * 4 * 2 * 2 * 2 + 4 * 2 * 2 + 2 * 2 * 2
    assert set(sample) <= set(every)
    mvn = [label.split() for label in sample if label.startswith("MVN")]
    assert len({words[0] for words in mvn}) == 6 and {words[1] for words in mvn} == set(PARAMETERS)
    assert {words[3] for words in mvn} == set(ACTIVATIONS)
    assert {label.split()[-1] for label in sample} == set(LAYOUTS)
    assert {word for label in sample for word in label.split()} >= set(TYPES) | {"LP1", "LP2", "axis0", "axis3", "BN"}


def runs_its_kernel(label: str, defines: dict[str, str]) -> bool:
    expected = expected_defines(label)
    return {key: defines.get(key) for key in expected} == expected


SUITE = OclgrindSuite(
    Path(__file__).resolve().parent / "oclgrind_normalize_variants.py",
    "normalize",
    every_variant,
    sampled_variants,
    runs_its_kernel,
)

test_the_sampled_variants_run_clean_and_right = SUITE.sampled_test()
test_every_variant_runs_clean_and_right = SUITE.every_test()
test_negative_control_is_reported = SUITE.negative_control_test()
test_a_read_past_a_too_short_input_buffer_is_reported_in_mvn = SUITE.short_buffer_test(
    "--short-input", "Invalid read of size 4", "mean_variance_normalization"
)
