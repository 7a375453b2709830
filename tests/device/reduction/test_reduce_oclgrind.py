"""Memory safety of opencl/reduce.cl: every FUNCTION it compiles (REDUCE's twelve, ARGMIN and ARGMAX with
LAST_INDEX), each element type of the function's table among FLOAT32, FLOAT16, INT8, INT32 and INT64, KEPT_RANK 0
and above, REDUCED_RANK 1 and 2 (axes apart), packed and strided at a byte offset, runs under Oclgrind with no report
and every result right by tests/device/reduction/cases.py's references, each buffer exactly as large as its binding
(oclgrind_reduce_variants.py, in a subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's
``run_oclgrind_script``).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races and API calls checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, the output buffer left unwritten). By default one variant per function (every type, axis set
and layout among them) under the memory pass with the "cpu" launch profile and the uninitialised pass with "gpu";
``--run-slow`` runs every variant under all four combinations. Two negative controls prove the reports are seen:
the driver's broken kernel, and reduce.cl reading an input buffer one element shorter than its binding. Without
Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import DEFAULT_PASSES, run_reportless

from .oclgrind_reduce_variants import AXES, FUNCTIONS, LAYOUTS, WIDTHS, every_variant, sampled_variants

SCRIPT = Path(__file__).resolve().parent / "oclgrind_reduce_variants.py"
PASSES = [pytest.param(profile, uninitialized, id=f"{profile}-{'uninitialized' if uninitialized else 'memory'}")
          for profile in ("cpu", "gpu") for uninitialized in (False, True)]  # fmt: skip
DEFAULT = [pytest.param(profile, uninitialized, id=f"{profile}-{'uninitialized' if uninitialized else 'memory'}")
           for profile, uninitialized in DEFAULT_PASSES]  # fmt: skip


def run_variants(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, variants: list[str], *flags: str
) -> dict[str, Any]:
    """Run the script under one pass and check it: no report, no mismatch, exactly ``variants`` run, each on
    reduce.cl with the function it names (LAST_INDEX for the operators' DECREASING)."""
    summary = run_reportless(run_oclgrind_script, SCRIPT, tmp_path, profile, uninitialized, *flags, timeout=600)
    assert summary["mismatches"] == []
    assert summary["variants"] == variants
    assert summary["launch_profile"] == profile
    for label, defines in summary["kernels"].items():
        assert defines["kernel"] == "reduce", (label, defines)
        assert defines["LAST_INDEX"] == ("1" if label.split()[0].endswith("_LAST") else "0"), (label, defines)
    return summary


def test_the_sweep_covers_every_function_width_and_rank() -> None:
    """Every function, each swept type, KEPT_RANK 0 and above and REDUCED_RANK 1 and 2 (as the labels' axis sets
    lower them: test_reduce.py runs the same layouts), and a sample with one variant per function that still takes
    every type, axis set and layout."""
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == 54 * len(AXES) * len(LAYOUTS)
    assert {label.split()[0] for label in every} == set(FUNCTIONS) and len(FUNCTIONS) == 14
    assert set(sample) <= set(every) and [label.split()[0] for label in sample] == FUNCTIONS
    assert {label.split()[1] for label in sample} == {data_type.name for data_type in WIDTHS}
    assert {label.split()[2] for label in sample} == set(AXES)
    assert {label.split()[3] for label in sample} == set(LAYOUTS)


@pytest.mark.parametrize(("profile", "uninitialized"), DEFAULT)
def test_a_variant_of_each_function_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, sampled_variants(), "--sample")
    tally["oclgrind reduce variants"] += len(summary["variants"])


@pytest.mark.slow
@pytest.mark.parametrize(("profile", "uninitialized"), PASSES)
def test_every_variant_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, every_variant())
    ranks = {(defines["KEPT_RANK"], defines["REDUCED_RANK"]) for defines in summary["kernels"].values()}
    assert {kept == "0" for kept, _ in ranks} == {True, False} and {reduced for _, reduced in ranks} == {"1", "2"}
    tally["oclgrind reduce variants (every variant)"] += len(summary["variants"])


# The driver's broken kernel under the uninitialised pass only (it checks the invalid read and write there too);
# the memory pass's control is reduce.cl's own, below.
def test_negative_control_is_reported(assert_negative_control_reported: Any, tmp_path: Path) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=True)


def test_a_read_past_a_too_short_input_buffer_is_reported_in_reduce(run_oclgrind_script: Any, tmp_path: Path) -> None:
    _, errors = run_oclgrind_script(SCRIPT, "--short-input", tmp_path=tmp_path, uninitialized=False)
    assert errors, "Oclgrind reported nothing for an input buffer one element short"
    reads = [block for block in errors if block.startswith("Invalid read of size 4") and "Kernel: reduce" in block]
    assert reads == errors, errors[0]
