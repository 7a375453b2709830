"""The test session's device selection (tests/conftest.py): every OpenCL device, narrowed by DMLPY_TEST_DEVICES.

Expectations come from pyopencl's own device list, so these hold on any machine."""

from __future__ import annotations

import pyopencl as cl
import pytest
from conftest import opencl_test_devices

from dmlpy.runtime.platforms import compiler_failure


def all_labels() -> list[str]:
    """Every device whose compiler works (one that cannot build a one-line kernel is left out and reported)."""
    return [
        f"{p.name.strip()}: {d.name.strip()}"
        for p in cl.get_platforms()
        for d in p.get_devices()
        if compiler_failure(d) is None
    ]


def test_no_selection_is_every_device_once() -> None:
    devices = opencl_test_devices(None)
    assert [d.label for d in devices] == all_labels()
    assert len({d.id for d in devices}) == len(devices)
    assert all(d.id.endswith(("-cpu", "-gpu", "-accelerator", "-other")) or d.id[-1].isdigit() for d in devices)
    assert opencl_test_devices("") == devices


def test_selection_is_a_case_insensitive_substring_of_platform_and_device_name() -> None:
    first = all_labels()[0]
    device_part = first.split(": ", 1)[1]
    chosen = opencl_test_devices(device_part.upper())
    assert [d.label for d in chosen] == [label for label in all_labels() if device_part.lower() in label.lower()]


def test_a_comma_separated_selection_is_the_union() -> None:
    first = all_labels()[0]
    platform_part, device_part = first.split(": ", 1)
    chosen = opencl_test_devices(f" {device_part} , {platform_part.lower()} ")
    wanted = [label for label in all_labels() if device_part.lower() in label.lower() or platform_part in label]
    assert [d.label for d in chosen] == wanted


def test_a_substring_that_matches_nothing_is_a_usage_error() -> None:
    with pytest.raises(pytest.UsageError, match="'no-such-device' matches no OpenCL device"):
        opencl_test_devices("no-such-device")
    first = all_labels()[0].split(": ", 1)[0]
    with pytest.raises(pytest.UsageError, match="'no-such-device' matches no OpenCL device"):
        opencl_test_devices(f"{first},no-such-device")
