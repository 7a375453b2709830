"""Memory safety: ELEMENT_WISE_IDENTITY's kernel variants (the copy of every element width, ScaleBias on float32,
float16 and the 8- to 32-bit integers; packed and strided ranks 1 to 8, broadcast, transposed, in place, binding
offsets) run under Oclgrind with zero invalid or uninitialised accesses reported and every result right.

``oclgrind_identity_variants.py`` runs in a subprocess whose only OpenCL platform is Oclgrind (tests/conftest.py's
``run_oclgrind_script``), twice, as tests/device/round/test_oclgrind.py runs Round's variants:

* memory: kernels built as dmlpy builds them; Oclgrind checks every global access against its buffer, and
  ``OCLGRIND_CHECK_API=1`` the API calls. Each buffer is exactly as large as its binding needs.
* uninitialised: ``OCLGRIND_UNINITIALIZED=1`` as well, built with ``-cl-opt-disable`` (Oclgrind 21.10's plugin
  aborts on LLVM's ``freeze``). Output buffers are left unwritten before the dispatch, so a read of the output, or
  a store of a value never loaded, would be reported.

The two default passes share the 15 plans (the copy of 7 types, ScaleBias on 8), every other one each; all four
combinations run every plan with --run-slow.

A negative control proves the reports are seen. Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import dmlpy as dml
from tests.helpers.oclgrind_passes import OCLGRIND_PASSES, default_pass_settings, pass_share

from .oclgrind_identity_variants import COPY, EXPECTED_SPECS, max_rank
from .oclgrind_identity_variants import plans as every_plan

T = dml.TensorDataType

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "oclgrind_identity_variants.py"


COPIED_AS = {1: "uchar", 2: "ushort", 4: "uint", 8: "ulong"}
"""The copy moves each width's bits as the unsigned integer of that width."""
COMPUTED_IN = {"FLOAT32": "float", "FLOAT16": "half", "INT8": "char", "UINT8": "uchar", "INT16": "short",
               "UINT16": "ushort", "INT32": "int", "UINT32": "uint"}  # fmt: skip
"""ScaleBias computes in the element's own type."""


def _check(summary: dict[str, Any], errors: list[str], profile: str, plans: list[str]) -> None:
    assert not errors, f"{len(errors)} Oclgrind reports, first ones:\n\n" + "\n\n".join(errors[:5])
    assert summary["wrong_bytes"] == 0, summary["failures"]
    assert summary["plans"] == plans and list(summary["plan_specs"]) == plans
    if plans == every_plan():
        assert summary["kernel_specs"] == EXPECTED_SPECS[profile], summary["specs"]
    for plan, specs in summary["plan_specs"].items():
        # PACKED=1 twice (a broadcast single value too) and the strided walk at each rank up to the plan's.
        assert len(specs) == 2 + max_rank(plan), (plan, specs)
        assert sum("PACKED=1" in spec for spec in specs) == 2, (plan, specs)
        assert any(f"RANK={max_rank(plan)} " in spec for spec in specs), (plan, specs)
        kind, name = plan.split()
        dtype = np.dtype(COPY[T[name]]) if kind == "copy" else None
        element = COPIED_AS[dtype.itemsize] if dtype is not None else COMPUTED_IN[name]
        assert all(f"TENSOR0_T={element} TENSOR1_T={element}" in spec for spec in specs), (plan, specs)
    assert any("MAY_ALIAS=1" in spec for spec in summary["specs"]), summary["specs"]


@OCLGRIND_PASSES
def test_every_kernel_variant_is_clean(
    run_oclgrind_script: Any, tmp_path: Path, uninitialized: bool, profile: str, tally: Any
) -> None:
    summary, errors = run_oclgrind_script(
        SCRIPT,
        "--launch-profile",
        profile,
        tmp_path=tmp_path,
        uninitialized=uninitialized,
        **default_pass_settings(profile, uninitialized),
    )
    _check(summary, errors, profile, pass_share(every_plan(), profile, uninitialized))
    tally[f"oclgrind identity variants (dispatches, {'uninitialised' if uninitialized else 'memory'} pass)"] += summary[
        "variants"
    ]


@pytest.mark.parametrize("uninitialized", [False, True], ids=["memory", "uninitialized"])
def test_negative_control_is_reported(
    assert_negative_control_reported: Any, tmp_path: Path, uninitialized: bool
) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=uninitialized)
