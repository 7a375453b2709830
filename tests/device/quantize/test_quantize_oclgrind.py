"""Oclgrind (OpenCL simulator: out-of-bounds accesses, data races, API misuse) on the quantize_linear.cl variants.

oclgrind_quantize_variants.py runs in a subprocess whose ICD loader sees Oclgrind's ICD (OCL_ICD_VENDORS names a folder
holding an .icd file that points at liboclgrind-rt-icd.so). Skipped when Oclgrind is not installed, except under
CI=true where that is a failure (.ci/run installs it).

Oclgrind's uninitialized-memory plugin is not enabled: it aborts on LLVM's ``freeze`` instruction, which the
kernels' integer division compiles to ("Unsupported instruction: freeze"), an Oclgrind limitation.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.oclgrind_sections import reports, variant_sections

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "oclgrind_quantize_variants.py"


@pytest.fixture(
    scope="module",
    params=[("cpu",), ("gpu",), ("cpu", "--half-bits")],
    ids=["cpu-profile", "gpu-profile", "cpu-profile-half-bits"],
)
def oclgrind_run(oclgrind_env, request):
    """The variants under one launch profile (each test runs under both), and with the integer-bit half
    conversions dmlpy builds on PoCL (DML_HALF_BITS)."""
    env = oclgrind_env(OCLGRIND_DATA_RACES="1")
    command = [sys.executable, str(SCRIPT), "--launch-profile", *request.param]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


VARIANTS = (
    [
        "q_f32_u8_size1",
        "q_f32_u8_size3",
        "q_f32_i8_size17",
        "q_f32_i8_size33_nullzp",
        "q_f32_u8_axis1_2x3x5",
        "q_f32_i8_axis-1_3x7_nullzp",
        "q_f16_i8_size19",
        "q_f16_u8_axis0_5x3_nullzp",
        "q_i32_u8_axis0_5x3",
        "q_ext_round_up_size7",
        "q_ext_nearest_downward_axis1_2x5",
    ]
    + [
        f"dq_{t}_{s}"
        for t in ("int8", "uint8", "int16", "uint16", "int32", "uint32")
        for s in ("float32_13", "float16_3x7", "float32_5_nullzp")
    ]
    + ["om_quantize_offsets_nullzp_padded_output"]
)


def test_driver_completed(oclgrind_run):
    assert oclgrind_run.returncode == 0, oclgrind_run.stderr[-4000:]
    assert "@@DONE" in oclgrind_run.stdout
    ran = set(variant_sections(oclgrind_run.stderr))
    assert set(VARIANTS) <= ran, set(VARIANTS) - ran


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_oclgrind_errors(oclgrind_run, variant):
    sections = variant_sections(oclgrind_run.stderr)
    assert variant in sections, f"{variant} did not run: {oclgrind_run.stderr[-2000:]}"
    report = reports(sections[variant])
    assert report == "", f"Oclgrind reported for {variant}:\n{report[:4000]}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_values_on_oclgrind(oclgrind_run, variant):
    mismatches = [line for line in oclgrind_run.stdout.splitlines() if line.startswith(f"@@MISMATCH {variant} ")]
    assert not mismatches, mismatches


def test_harness_sees_an_out_of_bounds_write(oclgrind_env):
    # The detection itself: a deliberately broken kernel (the shared negative control, helpers/oclgrind_driver.py)
    # must produce a report this file would catch.
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--negative-control"],
        env=oclgrind_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Invalid write" in reports(result.stderr)
