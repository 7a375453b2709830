"""Tools some tests need (Oclgrind, Chromium, the notebook's Jupyter packages): skipped where missing, except
under CI=true, where .ci/run installs them, so a missing tool there fails instead of hiding the tests behind a
skip."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing_tool(message: str) -> NoReturn:
    """Skip with ``message`` (how to install the tool); under CI=true fail with it."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI must install it", pytrace=False)
    pytest.skip(message)
