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
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import DEFAULT_PASSES, run_reportless

from .oclgrind_normalize_variants import ACTIVATIONS, LAYOUTS, PARAMETERS, TYPES, every_variant, sampled_variants

PASSES = [pytest.param(profile, uninitialized, id=f"{profile}-{'uninitialized' if uninitialized else 'memory'}")
          for profile in ("cpu", "gpu") for uninitialized in (False, True)]  # fmt: skip
"""Every (launch profile, pass) combination, for the whole sweep."""
SCRIPT = Path(__file__).resolve().parent / "oclgrind_normalize_variants.py"
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


def run_variants(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, variants: list[str], *flags: str
) -> dict[str, Any]:
    """Run the script under one pass and check it: no report, no result past its bound, exactly ``variants`` run,
    each on the kernel (and for an MVN the HAS_SCALE, HAS_BIAS and DML_FLOAT16) its label names."""
    summary = run_reportless(run_oclgrind_script, SCRIPT, tmp_path, profile, uninitialized, *flags, timeout=600)
    assert summary["mismatches"] == []
    assert summary["variants"] == variants
    assert summary["launch_profile"] == profile
    for label, defines in summary["kernels"].items():
        expected = expected_defines(label)
        assert {key: defines.get(key) for key in expected} == expected, (label, defines)
    return summary


@pytest.mark.parametrize(("profile", "uninitialized"), DEFAULT_PASSES, ids=["cpu-memory", "gpu-uninitialized"])
def test_the_sampled_variants_run_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, sampled_variants(), "--sample")
    tally["oclgrind normalize variants"] += len(summary["variants"])


@pytest.mark.slow
@pytest.mark.parametrize(("profile", "uninitialized"), PASSES)
def test_every_variant_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, every_variant())
    tally["oclgrind normalize variants (every variant)"] += len(summary["variants"])


# The driver's broken kernel under the uninitialised pass only (it checks the invalid read and write there too);
# the memory pass's control is normalize.cl's own, below.
def test_negative_control_is_reported(assert_negative_control_reported: Any, tmp_path: Path) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=True)


def test_a_read_past_a_too_short_input_buffer_is_reported_in_mvn(run_oclgrind_script: Any, tmp_path: Path) -> None:
    _, errors = run_oclgrind_script(SCRIPT, "--short-input", tmp_path=tmp_path, uninitialized=False)
    assert errors, "Oclgrind reported nothing for an input buffer one element short"
    kernel = "Kernel: mean_variance_normalization"
    reads = [block for block in errors if block.startswith("Invalid read of size 4") and kernel in block]
    assert reads == errors, errors[0]
