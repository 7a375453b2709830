"""Memory safety of the extension kernel (opencl/ext_round.cl): its variants run under Oclgrind, a simulated
OpenCL device that checks every memory access, with no error reported and every result bit-exact.

Reuses tests/oclgrind's way of running a script under Oclgrind (an OCL_ICD_VENDORS folder holding
``oclgrind.icd``; its report parser and the one API report pyopencl's probing causes) and runs
``oclgrind_ext_variants.py``: 4 float storages x 5 modes and 3 integer storages x 1 mode, each over 8 layouts
(odd tiny packed counts, strided, broadcast, permuted, in place, offsets, rank 8), in two passes: memory
(kernels built as dmlpy builds them) and uninitialised values (``-cl-opt-disable``, as tests/oclgrind explains).
A negative control proves reports are seen. Without Oclgrind the tests skip, except under CI=true: they fail.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "oclgrind_ext_variants.py"


def _load_oclgrind_helpers() -> Any:
    """tests/oclgrind/test_oclgrind.py's helpers (oclgrind_icd, reports, ALLOWED_API_REPORT), loaded by path
    under a private name so pytest's own import of that module is untouched."""
    path = HERE.parent / "oclgrind" / "test_oclgrind.py"
    spec = importlib.util.spec_from_file_location("_ext_oclgrind_helpers", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


helpers = _load_oclgrind_helpers()


@pytest.fixture(scope="module")
def icd_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    library = helpers.oclgrind_icd()
    if library is None:
        message = "Oclgrind is not installed (apt-get install oclgrind, or set OCLGRIND_ICD to liboclgrind-rt-icd.so)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}; CI must install it", pytrace=False)
        pytest.skip(message)
    folder = tmp_path_factory.mktemp("oclgrind_ext_icd")
    (folder / "oclgrind.icd").write_text(library + "\n")
    return folder


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
    if uninitialized:
        env.update(OCLGRIND_UNINITIALIZED="1", OCLGRIND_BUILD_OPTIONS="-cl-opt-disable")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=170, cwd=HERE
    )
    text = result.stderr + "\n" + (log.read_text() if log.exists() else "")
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout[-2000:]}\n{text[-4000:]}"
    line = next((ln for ln in result.stdout.splitlines() if ln.startswith("OCLGRIND_SUMMARY ")), None)
    assert line is not None, result.stdout[-2000:]
    errors = [block for block in helpers.reports(text) if not helpers.ALLOWED_API_REPORT.search(block)]
    return json.loads(line.removeprefix("OCLGRIND_SUMMARY ")), errors


@pytest.mark.parametrize("uninitialized", [False, True], ids=["memory", "uninitialized"])
def test_ext_round_variants_under_oclgrind(icd_dir: Path, tmp_path: Path, uninitialized: bool) -> None:
    summary, errors = run_under_oclgrind(icd_dir, tmp_path, uninitialized=uninitialized)
    assert not errors, f"{len(errors)} Oclgrind reports, first ones:\n\n" + "\n\n".join(errors[:5])
    assert summary["wrong"] == 0, summary["failures"]
    assert summary["variants"] == (4 * 5 + 3 * 1) * 8
    specs = summary["specs"]
    for storage in ("STORAGE=1", "STORAGE=2", "STORAGE=3", "STORAGE=4", "STORAGE=5"):
        assert any(spec.startswith(storage + " ") for spec in specs), (storage, specs)
    assert any("RANK=8" in spec for spec in specs), specs
    assert any("RANK=1 " in spec for spec in specs), specs


def test_negative_control_is_reported(icd_dir: Path, tmp_path: Path) -> None:
    _, errors = run_under_oclgrind(icd_dir, tmp_path, "--negative-control", uninitialized=False)
    headlines = [block.splitlines()[0] for block in errors]
    assert any(h.startswith("Invalid read") for h in headlines), headlines
    assert any(h.startswith("Invalid write") for h in headlines), headlines
