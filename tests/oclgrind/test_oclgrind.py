"""Memory safety: every ELEMENT_WISE_ROUND kernel variant dmlpy generates runs under Oclgrind (a simulated OpenCL
device that checks every memory access) with zero invalid or uninitialised accesses reported.

Oclgrind (Debian/Ubuntu package ``oclgrind``) ships an ICD library; pyopencl's wheel bundles the ocl-icd loader,
which honours ``OCL_ICD_VENDORS``, so pointing that at a folder holding ``oclgrind.icd`` makes Oclgrind the only
platform of the subprocess. Two passes run ``oclgrind_variants.py`` (2 data types x 3 modes x 39 layouts =
234 dispatches covering all 54 kernel specialisations: RANK 0 to 8 per type and mode):

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

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ICD_CANDIDATES = (
    "/usr/lib/oclgrind/liboclgrind-rt-icd.so",  # Debian/Ubuntu package
    "/usr/lib/x86_64-linux-gnu/oclgrind/liboclgrind-rt-icd.so",
    "/usr/local/lib/liboclgrind-rt-icd.so",  # built from source
    "/usr/lib/liboclgrind-rt-icd.so",
)
# pyopencl's Kernel constructor probes a device property that OpenCL 1.2 (Oclgrind) does not define and handles
# the CL_INVALID_VALUE; with OCLGRIND_CHECK_API Oclgrind reports each probe. This exact report is allowed.
ALLOWED_API_REPORT = re.compile(r"Function: clGetDeviceInfo\s+Error:\s+CL_INVALID_VALUE\s+For argument 'param_name'")


def oclgrind_icd() -> str | None:
    configured = os.environ.get("OCLGRIND_ICD")
    for candidate in (configured, *ICD_CANDIDATES):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


@pytest.fixture(scope="module")
def icd_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    library = oclgrind_icd()
    if library is None:
        message = "Oclgrind is not installed (apt-get install oclgrind, or set OCLGRIND_ICD to liboclgrind-rt-icd.so)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}; CI must install it", pytrace=False)
        pytest.skip(message)
    folder = tmp_path_factory.mktemp("oclgrind_icd")
    (folder / "oclgrind.icd").write_text(library + "\n")
    return folder


def reports(text: str) -> list[str]:
    """Oclgrind's report blocks: a headline at column 0 followed by tab-indented detail lines."""
    blocks = re.split(r"\n(?=\S)", text)
    return [
        b.strip() for b in blocks if len(b.strip().splitlines()) >= 2 and b.strip().splitlines()[1].startswith("\t")
    ]


def run_under_oclgrind(
    icd_dir: Path, tmp_path: Path, *args: str, uninitialized: bool
) -> tuple[dict[str, Any], list[str]]:
    log = tmp_path / "oclgrind.log"
    env = dict(os.environ)
    env.update(
        OCL_ICD_VENDORS=str(icd_dir),
        OCLGRIND_CHECK_API="1",
        OCLGRIND_LOG=str(log),
        PYOPENCL_NO_CACHE="1",
        PYOPENCL_COMPILER_OUTPUT="0",
    )
    # dmlpy enables the kernel's __builtin_elementwise_* fast path on PoCL only, so Oclgrind runs the OpenCL
    # built-ins (its interpreter has no llvm.roundeven / llvm.trunc vector intrinsics).
    if uninitialized:
        env.update(OCLGRIND_UNINITIALIZED="1", OCLGRIND_BUILD_OPTIONS="-cl-opt-disable")
    result = subprocess.run(
        [sys.executable, str(HERE / "oclgrind_variants.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=170,
        cwd=HERE,
    )
    text = result.stderr + "\n" + (log.read_text() if log.exists() else "")
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout[-2000:]}\n{text[-4000:]}"
    line = next((ln for ln in result.stdout.splitlines() if ln.startswith("OCLGRIND_SUMMARY ")), None)
    assert line is not None, result.stdout[-2000:]
    errors = [block for block in reports(text) if not ALLOWED_API_REPORT.search(block)]
    return json.loads(line.removeprefix("OCLGRIND_SUMMARY ")), errors


def _check(summary: dict[str, Any], errors: list[str]) -> None:
    assert not errors, f"{len(errors)} Oclgrind reports, first ones:\n\n" + "\n\n".join(errors[:5])
    assert summary["kernel_specs"] == 54, summary["specs"]  # {float32, float16} x 3 modes x RANK 0..8
    assert summary["wrong_bytes"] == 0 and summary["dml_round_wrong"] == 0, summary["failures"]


def test_every_kernel_variant_memory_checks(icd_dir: Path, tmp_path: Path, tally: Any) -> None:
    summary, errors = run_under_oclgrind(icd_dir, tmp_path, "--dml-round", uninitialized=False)
    _check(summary, errors)
    tally["oclgrind kernel variants (dispatches, memory pass)"] += summary["variants"]
    tally["oclgrind kernel specs"] = summary["kernel_specs"]


def test_every_kernel_variant_uninitialized_checks(icd_dir: Path, tmp_path: Path, tally: Any) -> None:
    summary, errors = run_under_oclgrind(icd_dir, tmp_path, uninitialized=True)
    _check(summary, errors)
    tally["oclgrind kernel variants (dispatches, uninitialised pass)"] += summary["variants"]


@pytest.mark.parametrize("uninitialized", [False, True], ids=["memory", "uninitialized"])
def test_negative_control_is_reported(icd_dir: Path, tmp_path: Path, uninitialized: bool) -> None:
    _, errors = run_under_oclgrind(icd_dir, tmp_path, "--negative-control", uninitialized=uninitialized)
    headlines = [block.splitlines()[0] for block in errors]
    assert any(h.startswith("Invalid read") for h in headlines), headlines
    assert any(h.startswith("Invalid write") for h in headlines), headlines
    if uninitialized:
        assert any("uninitialized" in h.lower() for h in headlines), headlines


def test_oclgrind_command_is_on_path_when_installed(icd_dir: Path) -> None:
    assert (icd_dir / "oclgrind.icd").is_file()
    assert shutil.which("oclgrind") is not None or os.environ.get("OCLGRIND_ICD")
