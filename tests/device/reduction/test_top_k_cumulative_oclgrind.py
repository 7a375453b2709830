"""Memory safety of opencl/top_k.cl and opencl/cumulative.cl: TOP_K, TOP_K1 both ways (a middle K and the whole
axis), CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT in their four forms, each element type of the operator's table
among FLOAT32, FLOAT16, INT8, INT32 and INT64, along the innermost and the outermost axis, packed and strided at a
byte offset, run under Oclgrind with no report and every result right by top_k_cumulative_cases.py's references,
each buffer exactly as large as its binding (oclgrind_top_k_cumulative_variants.py, in a subprocess whose only
OpenCL platform is Oclgrind: tests/conftest.py's ``run_oclgrind_script``).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, the outputs left unwritten: top_k.cl reads back only the places it has written). By default one
variant per operator form under the memory pass with the "cpu" launch profile and the uninitialised pass with "gpu";
``--run-slow`` runs every variant under all four combinations. Two negative controls prove the reports are seen: the
driver's broken kernel, and top_k.cl reading an input buffer one element shorter than its binding. Without Oclgrind
the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import DEFAULT_PASSES, run_reportless

from .oclgrind_top_k_cumulative_variants import AXES, LAYOUTS, OPERATORS, TOP_K, WIDTHS, every_variant, sampled_variants

SCRIPT = Path(__file__).resolve().parent / "oclgrind_top_k_cumulative_variants.py"


def test_the_sweep_covers_every_form_width_axis_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == (3 * len(WIDTHS) + 8 * 4) * len(AXES) * len(LAYOUTS)
    assert set(sample) <= set(every) and [label.split()[0] for label in sample] == OPERATORS
    assert {label.split()[1] for label in sample} == {data_type.name for data_type in WIDTHS}
    assert {label.split()[2] for label in sample} == set(AXES)
    assert {label.split()[3] for label in sample} == set(LAYOUTS)


PASSES = [pytest.param(profile, uninitialized, id=f"{profile}-{'uninitialized' if uninitialized else 'memory'}")
          for profile in ("cpu", "gpu") for uninitialized in (False, True)]  # fmt: skip


def run_variants(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, variants: list[str], *flags: str
) -> dict[str, Any]:
    """Run the script under one pass and check it: no report, no mismatch, exactly ``variants`` run, each on its
    operator's kernel."""
    summary = run_reportless(run_oclgrind_script, SCRIPT, tmp_path, profile, uninitialized, *flags, timeout=600)
    assert summary["mismatches"] == []
    assert summary["variants"] == variants
    assert summary["launch_profile"] == profile
    for label, kernel in summary["kernels"].items():
        assert kernel == ("top_k" if label.split()[0] in TOP_K else "cumulative"), (label, kernel)
    return summary


@pytest.mark.parametrize(("profile", "uninitialized"), DEFAULT_PASSES, ids=["cpu-memory", "gpu-uninitialized"])
def test_a_variant_of_each_form_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, sampled_variants(), "--sample")
    tally["oclgrind top_k and cumulative variants"] += len(summary["variants"])


@pytest.mark.slow
@pytest.mark.parametrize(("profile", "uninitialized"), PASSES)
def test_every_variant_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, every_variant())
    tally["oclgrind top_k and cumulative variants (every variant)"] += len(summary["variants"])


# The driver's broken kernel under the uninitialised pass only (it checks the invalid read and write there too);
# the memory pass's control is top_k.cl's own, below.
def test_negative_control_is_reported(assert_negative_control_reported: Any, tmp_path: Path) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=True)


@pytest.mark.parametrize("uninitialized", [False, True], ids=["memory", "uninitialized"])
def test_a_read_past_a_too_short_input_buffer_is_reported_in_top_k(
    run_oclgrind_script: Any, tmp_path: Path, uninitialized: bool
) -> None:
    _, errors = run_oclgrind_script(SCRIPT, "--short-input", tmp_path=tmp_path, uninitialized=uninitialized)
    assert errors, "Oclgrind reported nothing for an input buffer one element short"
    reads = [block for block in errors if block.startswith("Invalid read of size 4") and "Kernel: top_k" in block]
    assert reads, errors[0]
