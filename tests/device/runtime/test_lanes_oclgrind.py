"""Memory safety of the one-element shape of the element-wise template (``LaunchProfile.lanes_across_work_items``:
Intel's runtime's "cpu" shape, whose kernel checks no bound, as its launch is exactly its work-items): every variant
of oclgrind_lanes_variants.py runs under Oclgrind with no report and every result bit for bit right, each buffer
exactly as large as its binding, in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``). The shape exists under the "cpu" profile only, so both passes run it there: by default the
memory pass (data races checked) and the uninitialised pass each take half of the sample, one variant per operator
class; ``--run-slow`` runs every variant under both. The harness's own detection of a broken kernel is the other
suites' negative control (the same driver)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import run_reportless

from .oclgrind_lanes_variants import COUNTS, LAYOUTS, OPERATORS, every_variant, sampled_variants

SCRIPT = Path(__file__).resolve().parent / "oclgrind_lanes_variants.py"
PASSES = pytest.mark.parametrize("uninitialized", [False, True], ids=["memory", "uninitialized"])


def checked(run_oclgrind_script: Any, tmp_path: Path, uninitialized: bool, wanted: list[str], *flags: str) -> Any:
    share = (int(uninitialized), 2) if flags else None
    summary = run_reportless(
        run_oclgrind_script, SCRIPT, tmp_path, "cpu", uninitialized, *flags, timeout=600, share=share
    )
    wanted = wanted if share is None else wanted[share[0] :: share[1]]
    assert summary["mismatches"] == [] and summary["variants"] == wanted and summary["lanes"]
    assert {label: int(n) for label, n in summary["elements_per_item"].items()} == {
        label: 2 if label.startswith("QUANTIZE-I4") else 1 for label in wanted
    }
    return summary


def test_the_sample_takes_every_operator_count_and_layout() -> None:
    sample = sampled_variants()
    assert set(sample) <= set(every_variant()) and len(every_variant()) == len(OPERATORS) * len(COUNTS) * len(LAYOUTS)
    assert [label.split()[0] for label in sample] == list(OPERATORS)
    for half in (sample[0::2], sample[1::2]):  # each default pass's share
        assert {label.split()[1] for label in half} == set(COUNTS)
        assert {label.split()[2] for label in half} == set(LAYOUTS)


@PASSES
def test_half_the_sample_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, uninitialized: bool, tally: Any
) -> None:
    summary = checked(run_oclgrind_script, tmp_path, uninitialized, sampled_variants(), "--sample")
    tally["oclgrind lanes variants"] += len(summary["variants"])


@pytest.mark.slow
@PASSES
def test_every_variant_runs_clean_and_right(
    run_oclgrind_script: Any, tmp_path: Path, uninitialized: bool, tally: Any
) -> None:
    summary = checked(run_oclgrind_script, tmp_path, uninitialized, every_variant())
    tally["oclgrind lanes variants (every variant)"] += len(summary["variants"])
