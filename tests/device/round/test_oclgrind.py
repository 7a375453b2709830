"""Memory safety: every ELEMENT_WISE_ROUND kernel variant dmlpy generates runs under Oclgrind (a simulated OpenCL
device that checks every memory access) with zero invalid or uninitialised accesses reported.

Oclgrind (Debian/Ubuntu package ``oclgrind``) ships an ICD library; pyopencl's wheel bundles the ocl-icd loader,
which honours ``OCL_ICD_VENDORS``, so pointing that at a folder holding ``oclgrind.icd`` makes Oclgrind the only
platform of the subprocess. Two passes, each under a launch profile ("cpu" and "gpu"; by default the memory pass
under "cpu" and the uninitialised one under "gpu", all four with --run-slow: tests/helpers/oclgrind_passes.py), run
``oclgrind_round_variants.py`` (2 data types x 3 modes x 39 layouts = 234 dispatches covering all 54 kernel
specialisations of the profile: RANK 0 to 8 per type and mode). The two default passes share the six (data type,
mode) plans, three each, as the sweeps share their samples; every plan runs under all four with --run-slow:

* memory: kernels built as dmlpy builds them (optimised); Oclgrind always checks every global access against
  its buffer; ``OCLGRIND_CHECK_API=1`` checks the API calls. dml.round's host-pointer path runs here too.
* uninitialised: ``OCLGRIND_UNINITIALIZED=1`` as well. Oclgrind 21.10's plugin aborts on LLVM's ``freeze``
  instruction, which optimised builds of the strided kernel contain, so this pass adds ``-cl-opt-disable``
  (``OCLGRIND_BUILD_OPTIONS``) and turns pyopencl's binary cache off, which is keyed without that option. The
  plugin also treats CL_MEM_USE_HOST_PTR memory as never written (a false positive), so dml.round's host-pointer
  path runs only in the memory pass; the object-model path uploads with enqueue_copy, which the plugin tracks.

A negative control (a kernel with an out-of-bounds read and write and an uninitialised branch) proves the reports
are seen. Without Oclgrind the test skips, except under CI=true, where it fails: CI installs it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.oclgrind_passes import OCLGRIND_PASSES, default_pass_settings, pass_share
from tests.helpers.tools import OCLGRIND_FROM_PIP

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "oclgrind_round_variants.py"


PLANS = [
    f"{t} {m}" for t in ("FLOAT32", "FLOAT16") for m in ("HALVES_TO_NEAREST_EVEN", "TOWARD_ZERO", "TOWARD_INFINITY")
]
"""The script's (data type, mode) plans in its order; the default passes share them (``default_pass_settings``)."""


def _check(summary: dict[str, Any], errors: list[str], profile: str, plans: list[str]) -> None:
    assert not errors, f"{len(errors)} Oclgrind reports, first ones:\n\n" + "\n\n".join(errors[:5])
    assert summary["plans"] == plans
    # Per (data type, mode) RANK 0..8, and under "cpu" the tiled transposes of RANK 2 and 3.
    specs = len(plans) * (9 + (2 if profile == "cpu" else 0))
    assert summary["kernel_specs"] == specs, summary["specs"]
    assert summary["wrong_bytes"] == 0 and summary["dml_round_wrong"] == 0, summary["failures"]


@OCLGRIND_PASSES
def test_every_kernel_variant_is_clean(
    run_oclgrind_script: Any, tmp_path: Path, tally: Any, profile: str, uninitialized: bool
) -> None:
    # dml.round's host-pointer path in the memory pass only (the module docstring says why).
    flags = () if uninitialized else ("--dml-round",)
    share = default_pass_settings(profile, uninitialized)
    summary, errors = run_oclgrind_script(
        SCRIPT, *flags, "--launch-profile", profile, tmp_path=tmp_path, uninitialized=uninitialized, **share
    )
    _check(summary, errors, profile, pass_share(PLANS, profile, uninitialized))
    tally[f"oclgrind kernel variants (dispatches, {'uninitialised' if uninitialized else 'memory'} pass)"] += summary[
        "variants"
    ]


@pytest.mark.parametrize(
    ("profile", "uninitialized"),
    [
        pytest.param(
            profile,
            uninitialized,
            id=f"{profile}-{'uninitialized' if uninitialized else 'memory'}",
            marks=() if (profile, uninitialized) == ("cpu", False) else pytest.mark.slow,
        )
        for profile in ("cpu", "gpu")
        for uninitialized in (False, True)
    ],
)
def test_the_float16_variants_built_as_on_pocl_are_clean(
    run_oclgrind_script: Any, tmp_path: Path, profile: str, uninitialized: bool
) -> None:
    # -DDML_HALF_BITS=1, the conversions through half_bits.h that dmlpy builds on PoCL only; the memory pass under
    # "cpu" by default (the vector loads and stores it changes are the packed, strided and tiled kernels').
    summary, errors = run_oclgrind_script(
        SCRIPT, "--half-bits", "--launch-profile", profile, tmp_path=tmp_path, uninitialized=uninitialized
    )
    _check(summary, errors, profile, [plan for plan in PLANS if plan.startswith("FLOAT16 ")])


@pytest.mark.parametrize("uninitialized", [False, True], ids=["memory", "uninitialized"])
def test_negative_control_is_reported(
    assert_negative_control_reported: Any, tmp_path: Path, uninitialized: bool
) -> None:
    assert_negative_control_reported(SCRIPT, tmp_path=tmp_path, uninitialized=uninitialized)


def test_the_suites_use_the_oclgrind_make_test_installs(oclgrind_icd_dir: Path) -> None:
    """The memory-safety suites need Oclgrind's ICD library, never an `oclgrind` command or a system package: `make
    test` installs the library from PyPI into .venv/oclgrind, and that copy comes before any system one, so a fresh
    machine (no system OpenCL, no `oclgrind` on PATH) runs the same suites as a developer's."""
    library = Path((oclgrind_icd_dir / "oclgrind.icd").read_text(encoding="utf-8").strip())
    assert library.is_file(), library
    if not os.environ.get("OCLGRIND_ICD") and OCLGRIND_FROM_PIP.is_dir():
        assert library.is_relative_to(OCLGRIND_FROM_PIP), (
            f"{library} is used where make test installed {OCLGRIND_FROM_PIP}"
        )
