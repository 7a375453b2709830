"""Oclgrind (OpenCL simulator: out-of-bounds accesses, data races, API misuse) on compiled graphs: every loop shape
of the fused kernel, and the same graphs one node at a time, each tensor bound at an offset in a buffer that ends
where the tensor does (oclgrind_graph_variants.py, run in a subprocess whose ICD loader sees only Oclgrind).
Skipped when Oclgrind is not installed, except under CI=true where that is a failure (.ci/run installs it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_sections import reports, variant_sections

SCRIPT = Path(__file__).resolve().parent / "oclgrind_graph_variants.py"
VARIANTS = [
    *(
        f"qdq_{tag}_{shape}"
        for tag in ("f32", "f16")
        for shape in ("packed_per_tensor_37", "rows_per_axis1_2x3x5", "rows_per_axis_last_3x7")
    ),
    "qdq_f32_walk_transposed_output_4x9",
    "tree_f16_padded_two_outputs_constants_3x5",
    "identity_i8_nan_inf_scale_bias_37",
    "round_identity_hostile_names_37",
]


@pytest.fixture(
    scope="module",
    params=[("cpu",), ("gpu",), ("cpu", "--half-bits")],
    ids=["cpu-profile", "gpu-profile", "cpu-profile-half-bits"],
)
def oclgrind_run(oclgrind_env: Any, request: pytest.FixtureRequest) -> subprocess.CompletedProcess[str]:
    env = oclgrind_env(OCLGRIND_DATA_RACES="1")
    command = [sys.executable, str(SCRIPT), "--launch-profile", *request.param]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, cwd=SCRIPT.parent)


def test_every_variant_ran(oclgrind_run: subprocess.CompletedProcess[str]) -> None:
    assert oclgrind_run.returncode == 0, oclgrind_run.stderr[-4000:]
    assert "@@DONE" in oclgrind_run.stdout
    assert set(VARIANTS) <= set(variant_sections(oclgrind_run.stderr))


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_oclgrind_reports(oclgrind_run: subprocess.CompletedProcess[str], variant: str) -> None:
    sections = variant_sections(oclgrind_run.stderr)
    assert variant in sections, oclgrind_run.stderr[-2000:]
    report = reports(sections[variant])
    assert report == "", f"Oclgrind reported for {variant}:\n{report[:4000]}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_fused_equals_one_by_one_on_oclgrind(oclgrind_run: subprocess.CompletedProcess[str], variant: str) -> None:
    mismatches = [line for line in oclgrind_run.stdout.splitlines() if line.startswith(f"@@MISMATCH {variant} ")]
    assert not mismatches, mismatches


def test_harness_sees_an_out_of_bounds_write(oclgrind_env: Any) -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--negative-control"],
        env=oclgrind_env(),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=SCRIPT.parent,
    )
    assert "Invalid write" in reports(result.stderr)
