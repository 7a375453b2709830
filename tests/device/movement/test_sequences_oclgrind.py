"""Memory safety of REVERSE_SUBSEQUENCES and NONZERO_COORDINATES under Oclgrind (oclgrind_sequence_variants.py in a
subprocess whose only OpenCL platform is Oclgrind: tests/conftest.py's ``run_oclgrind_script``): no report and every
result right. By default the sampled variants under the memory pass with the "cpu" launch profile and the
uninitialised pass with "gpu"; ``--run-slow`` runs every variant under all four combinations
(tests/helpers/oclgrind_passes.py). The driver's broken kernel proves the reports are seen. Without Oclgrind the
tests skip, except under CI=true."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import OCLGRIND_PASSES, default_share, run_reportless

from .oclgrind_sequence_variants import every_variant, sampled_variants

SCRIPT = Path(__file__).resolve().parent / "oclgrind_sequence_variants.py"


@OCLGRIND_PASSES
def test_variants_run_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool, tally: Any
) -> None:
    sample = default_share(profile, uninitialized) is not None
    flags = ("--sample",) if sample else ()
    summary = run_reportless(run_oclgrind_script, SCRIPT, tmp_path, profile, uninitialized, *flags, timeout=600)
    assert summary["mismatches"] == []
    assert summary["variants"] == (sampled_variants() if sample else every_variant())
    assert summary["launch_profile"] == profile
    tally["oclgrind sequences variants"] += len(summary["variants"])


@pytest.mark.slow
@pytest.mark.parametrize(("profile", "uninitialized"), [("cpu", False), ("gpu", True)])
def test_every_variant_under_the_default_passes(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool
) -> None:
    summary = run_reportless(run_oclgrind_script, SCRIPT, tmp_path, profile, uninitialized, timeout=600)
    assert summary["mismatches"] == [] and summary["variants"] == every_variant()


def test_negative_control_is_reported(assert_negative_control_reported: Any, tmp_path: Path) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=True)
