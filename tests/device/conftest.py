"""Fixtures of the device tests that run extensions: a device that runs dmlpy's extension operators (not
DirectML) on each of the OpenCL devices the session's ``device`` fixture is parametrised over (tests/conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def ext_device(device: Any) -> Any:
    """A device created with extensions=True on ``device``'s OpenCL device (PoCL's CPU device in CI), under the
    same launch profile."""
    import dmlpy as dml

    return dml.create_device(cl_device=device.cl_device, extensions=True, launch_profile=device.launch_profile.name)


@pytest.fixture(scope="session")
def ext_device_fp64(ext_device: Any) -> Any:
    """``ext_device`` when it has cl_khr_fp64; the FLOAT64 tests skip (saying why) where it has not."""
    if "cl_khr_fp64" not in ext_device.cl_device.extensions:
        pytest.skip(f"{ext_device.name} has no cl_khr_fp64; FLOAT64 cannot run here (refusal tested separately)")
    return ext_device
