"""Memory safety of opencl/indexing.cl: GATHER, GATHER_ELEMENTS, GATHER_ND, GATHER_ND1, SCATTER_ELEMENTS (and the
Identity copy before it), SCATTER_ND and ONE_HOT, each element width (8 to 64 bits) and index type (UINT32, INT32,
INT64, UINT64), with negative indices and indices outside their dimensions (a gather clamps, a scatter skips,
ONE_HOT leaves OffValue), packed and strided at byte offsets, runs under Oclgrind with no report and every result
bit for bit right by tests/device/indexing/cases.py's onnx.reference results, each buffer exactly as large as its
binding (oclgrind_indexing_variants.py, in a subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's
``run_oclgrind_script``).

Two passes, as the other Oclgrind suites run them (tests/helpers/oclgrind_passes.py): memory (kernels built as dmlpy
builds them, data races and API calls checked too) and uninitialised (``OCLGRIND_UNINITIALIZED=1``, built with
``-cl-opt-disable``, the output buffer left unwritten). By default one variant per operator (every width, index
type and layout among them) under the memory pass with the "cpu" launch profile and the uninitialised pass with
"gpu"; ``--run-slow`` runs every variant under all four combinations. Two negative controls prove the reports are
seen: the driver's broken kernel, and gather reading an input buffer one element shorter than its binding. Without
Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import DEFAULT_PASSES, run_reportless

from .oclgrind_indexing_variants import (
    INDEX_TYPES,
    LAYOUTS,
    OPERATORS,
    WIDTHS,
    every_variant,
    kernels_expected,
    sampled_variants,
)

PASSES = [pytest.param(profile, uninitialized, id=f"{profile}-{'uninitialized' if uninitialized else 'memory'}")
          for profile in ("cpu", "gpu") for uninitialized in (False, True)]  # fmt: skip
"""Every (launch profile, pass) combination, for the whole sweep."""
SCRIPT = Path(__file__).resolve().parent / "oclgrind_indexing_variants.py"


def test_the_sample_takes_every_operator_width_index_type_and_layout() -> None:
    every, sample = every_variant(), sampled_variants()
    assert len(every) == len(set(every)) == len(OPERATORS) * len(WIDTHS) * len(INDEX_TYPES) * len(LAYOUTS) == 224
    assert set(sample) <= set(every) and [label.split()[0] for label in sample] == list(OPERATORS)
    assert {int(label.split()[1]) for label in sample} == set(WIDTHS)
    assert {label.split()[2] for label in sample} == {index_type.name for index_type in INDEX_TYPES}
    assert {label.split()[3] for label in sample} == set(LAYOUTS)


def run_variants(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, variants: list[str], *flags: str
) -> dict[str, Any]:
    """Run the script under one pass and check it: no report, no mismatch, exactly ``variants`` run, each on the
    kernels its operator lowers to."""
    summary = run_reportless(run_oclgrind_script, SCRIPT, tmp_path, profile, uninitialized, *flags, timeout=600)
    assert summary["mismatches"] == []
    assert summary["variants"] == variants
    assert summary["launch_profile"] == profile
    for label, kernels in summary["kernels"].items():
        assert kernels == kernels_expected(label.split()[0]), (label, kernels)
    return summary


@pytest.mark.parametrize(("profile", "uninitialized"), DEFAULT_PASSES, ids=["cpu-memory", "gpu-uninitialized"])
def test_the_sampled_variants_run_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, sampled_variants(), "--sample")
    tally["oclgrind indexing variants"] += len(summary["variants"])


@pytest.mark.slow
@pytest.mark.parametrize(("profile", "uninitialized"), PASSES)
def test_every_variant_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    summary = run_variants(run_oclgrind_script, tmp_path, profile, uninitialized, every_variant())
    tally["oclgrind indexing variants (every variant)"] += len(summary["variants"])


# The driver's broken kernel under the uninitialised pass only (it checks the invalid read and write there too);
# the memory pass's control is indexing.cl's own, below.
def test_negative_control_is_reported(assert_negative_control_reported: Any, tmp_path: Path) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=True)


def test_a_read_past_a_too_short_input_buffer_is_reported_in_gather(run_oclgrind_script: Any, tmp_path: Path) -> None:
    _, errors = run_oclgrind_script(SCRIPT, "--short-input", tmp_path=tmp_path, uninitialized=False)
    assert errors, "Oclgrind reported nothing for an input buffer one element short"
    reads = [block for block in errors if block.startswith("Invalid read of size 8") and "Kernel: gather" in block]
    assert reads == errors, errors[0]
