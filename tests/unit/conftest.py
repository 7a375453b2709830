"""tests/unit needs no OpenCL device: each test here runs with pyopencl unable to create a context or a queue or
to build a program, so a test that would run a kernel fails (move it to tests/device) instead of quietly needing
a device; the default device an earlier device test of the same process created is hidden too (under
pytest-xdist a worker runs both folders' files in any order). Not covered: subprocesses (tests/helpers/cli.py's
run_dmlpy), and programs an earlier device test left in a device's cache. `make test` runs both folders."""

from __future__ import annotations

from typing import NoReturn

import pytest


def _refuse(*args: object, **kwargs: object) -> NoReturn:
    raise RuntimeError("a test in tests/unit used OpenCL; tests that run kernels belong in tests/device")


@pytest.fixture(autouse=True)
def no_opencl(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyopencl as cl

    from dmlpy.runtime import device_choice

    monkeypatch.setattr(device_choice, "_defaults", {})
    monkeypatch.setattr(cl, "Context", _refuse)
    monkeypatch.setattr(cl, "CommandQueue", _refuse)
    monkeypatch.setattr(cl.Program, "build", _refuse)
