"""The OpenCL devices the device tests run on (tests/conftest.py selects them and parametrises the ``device``
fixture over each device and launch profile), and the turns that ``one_run`` marks take over those pairs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dmlpy.kernels import LAUNCH_PROFILE_NAMES


@dataclass(frozen=True)
class SelectedDevice:
    """One OpenCL device the device tests run on."""

    id: str
    """The pytest id: platform short name and device type, e.g. ``pocl-cpu`` (``-2`` ... when repeated)."""
    label: str
    """``"platform name: device name"``, what DMLPY_TEST_DEVICES is matched against."""
    cl_device: Any


def device_params(devices: list[SelectedDevice]) -> list[tuple[SelectedDevice, str]]:
    """The ``device`` fixture's parameters: each device under each launch profile (dmlpy.kernels.LaunchProfile),
    whose two kernel shapes must give bit-identical results on any device, whichever one "auto" picks there."""
    return [(d, profile) for d in devices for profile in LAUNCH_PROFILE_NAMES]


def run_turns(devices: list[SelectedDevice]) -> list[tuple[SelectedDevice, str]]:
    """The (device, launch profile) pairs that ``one_run(k)`` marks take in turn (the k-th, modulo their count), the
    devices alternating first: with the two devices of CI, any two consecutive turns run on two compilers, and any
    four consecutive turns cover every pair."""
    return [(d, profile) for profile in LAUNCH_PROFILE_NAMES for d in devices]
