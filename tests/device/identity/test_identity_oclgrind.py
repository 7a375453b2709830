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

A negative control proves the reports are seen. Without Oclgrind the tests skip, except under CI=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import OCLGRIND_PASSES

from .oclgrind_identity_variants import EXPECTED_SPECS

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "oclgrind_identity_variants.py"


def _check(summary: dict[str, Any], errors: list[str], profile: str) -> None:
    assert not errors, f"{len(errors)} Oclgrind reports, first ones:\n\n" + "\n\n".join(errors[:5])
    assert summary["wrong_bytes"] == 0, summary["failures"]
    assert summary["kernel_specs"] == EXPECTED_SPECS[profile], summary["specs"]
    specs = " | ".join(summary["specs"])
    for kind in ("PACKED=1", "RANK=8", "MAY_ALIAS=1"):
        assert kind in specs, kind
    # The copy moves each width's bits (uchar to ulong), ScaleBias computes in the element's own type.
    for element in ("uchar", "ushort", "uint", "ulong", "float", "half", "char", "short", "int"):
        assert f"TENSOR0_T={element} TENSOR1_T={element}" in specs, element


@OCLGRIND_PASSES
def test_every_kernel_variant_is_clean(
    run_oclgrind_script: Any, tmp_path: Path, uninitialized: bool, profile: str, tally: Any
) -> None:
    summary, errors = run_oclgrind_script(
        SCRIPT, "--launch-profile", profile, tmp_path=tmp_path, uninitialized=uninitialized
    )
    _check(summary, errors, profile)
    tally[f"oclgrind identity variants (dispatches, {'uninitialised' if uninitialized else 'memory'} pass)"] += summary[
        "variants"
    ]


@pytest.mark.parametrize("uninitialized", [False, True], ids=["memory", "uninitialized"])
def test_negative_control_is_reported(
    assert_negative_control_reported: Any, tmp_path: Path, uninitialized: bool
) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=uninitialized)
