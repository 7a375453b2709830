"""Memory safety of the generators: FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX and DIAGONAL_MATRIX1
(with and without its InputTensor), each element width (8, 16, 32, 64 bits), packed and strided at byte offsets, run
under Oclgrind with no report and every result bit for bit right, each buffer exactly as large as its binding
(oclgrind_generators_variants.py, in a subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's
``run_oclgrind_script``). Every variant runs opencl/generators.cl.

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races and API calls checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, output buffers left unwritten). By default one variant per operator class (every width and
both layouts among them) under the memory pass with the "cpu" launch profile and the uninitialised pass with "gpu";
``--run-slow`` runs every variant under all four combinations. Two negative controls prove the reports are seen: the
driver's broken kernel, and generators.cl writing an output buffer one element shorter than its binding. Without
Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import DEFAULT_PASSES, run_reportless

from .oclgrind_generators_variants import LAYOUTS, OPERATORS, WIDTHS, every_variant, sampled_variants

SCRIPT = Path(__file__).resolve().parent / "oclgrind_generators_variants.py"
PASSES = [pytest.param(profile, uninitialized, id=f"{profile}-{'uninitialized' if uninitialized else 'memory'}")
          for profile in ("cpu", "gpu") for uninitialized in (False, True)]  # fmt: skip


def run_variants(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, variants: list[str], *flags: str
) -> dict[str, Any]:
    """Run the script under one pass and check it: no report, no mismatch, exactly ``variants`` run, each on
    generators.cl."""
    summary = run_reportless(run_oclgrind_script, SCRIPT, tmp_path, profile, uninitialized, *flags, timeout=600)
    assert summary["mismatches"] == []
    assert summary["variants"] == variants
    assert summary["launch_profile"] == profile
    for label, kernels in summary["kernels"].items():
        assert kernels == ["generate"], (label, kernels)
    return summary


def test_the_sample_takes_every_width_and_layout_and_every_operator_class() -> None:
    sample = sampled_variants()
    assert set(sample) <= set(every_variant())
    assert {label.split()[0] for label in sample} == set(OPERATORS)
    assert {int(label.split()[1]) for label in sample} == set(WIDTHS)
    assert {label.split()[2] for label in sample} == set(LAYOUTS)
    assert len(every_variant()) == len(set(every_variant())) == len(OPERATORS) * len(WIDTHS) * len(LAYOUTS)


@pytest.mark.parametrize(("profile", "uninitialized"), DEFAULT_PASSES, ids=["cpu-memory", "gpu-uninitialized"])
def test_a_variant_of_each_operator_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, sampled_variants(), "--sample")
    tally["oclgrind generator variants"] += len(summary["variants"])


@pytest.mark.slow
@pytest.mark.parametrize(("profile", "uninitialized"), PASSES)
def test_every_variant_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, every_variant())
    tally["oclgrind generator variants (every variant)"] += len(summary["variants"])


# The driver's broken kernel under the uninitialised pass only; the memory pass's control is generators.cl's own.
def test_negative_control_is_reported(assert_negative_control_reported: Any, tmp_path: Path) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=True)


def test_a_write_past_a_too_short_output_buffer_is_reported(run_oclgrind_script: Any, tmp_path: Path) -> None:
    _, errors = run_oclgrind_script(SCRIPT, "--short-output", tmp_path=tmp_path, uninitialized=False)
    assert errors, "Oclgrind reported nothing for an output buffer one element short"
    writes = [block for block in errors if block.startswith("Invalid write of size 8") and "Kernel: generate" in block]
    assert writes == errors, errors[0]
