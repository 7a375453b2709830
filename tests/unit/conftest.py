"""tests/unit needs no OpenCL device: each test here runs with pyopencl unable to create a context or a queue or
to build a program, so a test that would run a kernel fails (move it to tests/device) instead of quietly needing
a device. Not covered: subprocesses (the command line's tests run validation and JSON only), and a device or
program an earlier device test of the same session left cached (``pytest tests/unit`` alone checks it all).
`make test` runs both folders."""

from __future__ import annotations

from typing import NoReturn

import pytest


def _refuse(*args: object, **kwargs: object) -> NoReturn:
    raise RuntimeError("a test in tests/unit used OpenCL; tests that run kernels belong in tests/device")


@pytest.fixture(autouse=True)
def no_opencl(monkeypatch: pytest.MonkeyPatch) -> None:
    import pyopencl as cl

    monkeypatch.setattr(cl, "Context", _refuse)
    monkeypatch.setattr(cl, "CommandQueue", _refuse)
    monkeypatch.setattr(cl.Program, "build", _refuse)
