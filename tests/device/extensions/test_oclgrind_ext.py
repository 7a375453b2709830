"""Memory safety of the extension kernel (opencl/ext_round.cl): its variants run under Oclgrind, a simulated
OpenCL device that checks every memory access, with no error reported and every result bit-exact.

Uses the shared ``run_oclgrind_script`` fixture (tests/conftest.py) to run
``oclgrind_ext_variants.py``: 4 float storages x 5 modes and 3 integer storages x 1 mode, each over 8 layouts
(odd tiny packed counts, strided, broadcast, permuted, in place, offsets, rank 8), in two passes: memory
(kernels built as dmlpy builds them) and uninitialised values (``-cl-opt-disable``, as tests/oclgrind explains).
The two default passes share the 23 (storage, mode) plans, every other one each; all four combinations run every
plan with --run-slow.
A negative control proves reports are seen. Without Oclgrind the tests skip, except under CI=true: they fail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers.oclgrind_passes import OCLGRIND_PASSES, default_pass_settings, pass_share

from .oclgrind_ext_variants import plan_labels

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "oclgrind_ext_variants.py"


@OCLGRIND_PASSES
def test_ext_round_variants_under_oclgrind(
    run_oclgrind_script: Any, tmp_path: Path, uninitialized: bool, profile: str
) -> None:
    summary, errors = run_oclgrind_script(
        SCRIPT,
        "--launch-profile",
        profile,
        tmp_path=tmp_path,
        uninitialized=uninitialized,
        **default_pass_settings(profile, uninitialized),
    )
    assert not errors, f"{len(errors)} Oclgrind reports, first ones:\n\n" + "\n\n".join(errors[:5])
    assert summary["wrong"] == 0, summary["failures"]
    plans = plan_labels()
    assert len(plans) == 4 * 5 + 3 * 1
    assert summary["plans"] == pass_share(plans, profile, uninitialized)
    assert summary["variants"] == len(summary["plans"]) * 8
    specs = summary["specs"]
    for storage in ("STORAGE=1", "STORAGE=2", "STORAGE=3", "STORAGE=4", "STORAGE=5"):
        assert any(spec.startswith(storage + " ") for spec in specs), (storage, specs)
    assert any("RANK=8" in spec for spec in specs), specs
    assert any("RANK=1 " in spec for spec in specs), specs


def test_half_bits_variants_under_oclgrind(run_oclgrind_script: Any, tmp_path: Path) -> None:
    # The integer-bit half conversions dmlpy builds on PoCL (DML_HALF_BITS), which Oclgrind's platform does not
    # get by default.
    summary, errors = run_oclgrind_script(
        SCRIPT, "--launch-profile", "cpu", "--half-bits", tmp_path=tmp_path, uninitialized=False
    )
    assert not errors, f"{len(errors)} Oclgrind reports, first ones:\n\n" + "\n\n".join(errors[:5])
    assert summary["wrong"] == 0, summary["failures"]
    assert summary["plans"] == [plan for plan in plan_labels() if plan.startswith("float16 ")]
    assert all(spec.startswith("STORAGE=2 ") for spec in summary["specs"]), summary["specs"]


def test_negative_control_is_reported(assert_negative_control_reported: Any, tmp_path: Path) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=False)
