"""Memory safety of the movement operators: every operator of cases.CASES (SLICE1 backwards), PADDING1 in every
padding mode, each element width (8, 16, 32, 64 bits), packed and strided at byte offsets, runs under Oclgrind with
no report and every result bit for bit right, each buffer exactly as large as its binding
(oclgrind_movement_variants.py, in a subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's
``run_oclgrind_script``). Both kernels they lower to are covered: opencl/movement.cl (SLICE1, PADDING, PADDING1,
TILE) and the element-wise template's Identity copy with a binding shift (SLICE, JOIN, SPLIT, the depth/space ones).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races and API calls checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, output buffers left unwritten). By default one variant per operator class (every width and
both layouts among them) under the memory pass with the "cpu" launch profile and the uninitialised pass with "gpu"
(seconds each); ``--run-slow`` runs every variant under all four combinations. Two negative controls prove the
reports are seen: the driver's broken kernel, and movement.cl reading an input buffer one element shorter than its
binding (the memory pass). Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import DEFAULT_PASSES, run_reportless

from .oclgrind_movement_variants import LAYOUTS, WIDTHS, every_variant, sampled_variants

SCRIPT = Path(__file__).resolve().parent / "oclgrind_movement_variants.py"
MOVEMENT_CL = ("SLICE1", "PADDING", "PADDING1", "TILE")
"""The operators whose cases run opencl/movement.cl (a backwards window, padding, tiling); the others run the
element-wise template's Identity copy, once per part for JOIN and SPLIT."""
PASSES = [pytest.param(profile, uninitialized, id=f"{profile}-{'uninitialized' if uninitialized else 'memory'}")
          for profile in ("cpu", "gpu") for uninitialized in (False, True)]  # fmt: skip


def run_variants(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, variants: list[str], *flags: str
) -> dict[str, Any]:
    """Run the script under one pass and check it: no report, no mismatch, exactly ``variants`` run, each on the
    kernel its operator lowers to."""
    summary = run_reportless(run_oclgrind_script, SCRIPT, tmp_path, profile, uninitialized, *flags, timeout=600)
    assert summary["mismatches"] == []
    assert summary["variants"] == variants
    assert summary["launch_profile"] == profile
    for label, kernels in summary["kernels"].items():
        expected = "movement" if label.split()[0] in MOVEMENT_CL else "elementwise"
        assert kernels and set(kernels) == {expected}, (label, kernels)
    return summary


def test_the_sample_takes_every_width_and_layout_and_every_operator_class() -> None:
    sample = sampled_variants()
    assert set(sample) <= set(every_variant())
    assert {label.rsplit(" ", 2)[0] for label in sample} == {label.rsplit(" ", 2)[0] for label in every_variant()}
    assert {int(label.split()[-2]) for label in sample} == set(WIDTHS)
    assert {label.split()[-1] for label in sample} == set(LAYOUTS)
    assert len(every_variant()) == len(set(every_variant())) == 15 * len(WIDTHS) * len(LAYOUTS)


@pytest.mark.parametrize(("profile", "uninitialized"), DEFAULT_PASSES, ids=["cpu-memory", "gpu-uninitialized"])
def test_a_variant_of_each_operator_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, sampled_variants(), "--sample")
    tally["oclgrind movement variants"] += len(summary["variants"])


@pytest.mark.slow
@pytest.mark.parametrize(("profile", "uninitialized"), PASSES)
def test_every_variant_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, every_variant())
    tally["oclgrind movement variants (every variant)"] += len(summary["variants"])


# The driver's broken kernel under the uninitialised pass only (it checks the invalid read and write there too);
# the memory pass's control is movement.cl's own, below.
def test_negative_control_is_reported(assert_negative_control_reported: Any, tmp_path: Path) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=True)


def test_a_read_past_a_too_short_input_buffer_is_reported_in_movement(run_oclgrind_script: Any, tmp_path: Path) -> None:
    _, errors = run_oclgrind_script(SCRIPT, "--short-input", tmp_path=tmp_path, uninitialized=False)
    assert errors, "Oclgrind reported nothing for an input buffer one element short"
    reads = [block for block in errors if block.startswith("Invalid read of size 8") and "Kernel: movement" in block]
    assert reads == errors, errors[0]
