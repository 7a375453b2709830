"""dml.sub_devices on every device under test: one sub-device holding every compute unit, and two halves, each a
real OpenCL sub-device with its share. Intel's CPU runtime refuses CL_DEVICE_PARTITION_EQUALLY into one sub-device
of all its units (DEVICE_PARTITION_FAILED), which ``sub_devices(1)`` asked for; by counts it accepts it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import dmlpy as dml


def test_one_sub_device_holds_every_compute_unit(device: Any) -> None:
    units = device.cl_device.max_compute_units
    (whole,) = dml.sub_devices(1, device)
    assert whole.cl_device.parent_device == device.cl_device
    assert whole.cl_device.max_compute_units == units
    x = np.array([0.5, 1.5, 2.5, -0.5], np.float32)
    assert dml.round(x, devices=[whole]).tolist() == np.rint(x).tolist()


def test_two_sub_devices_share_the_compute_units(device: Any) -> None:
    units = device.cl_device.max_compute_units
    if units < 2 or device.cl_device.partition_max_sub_devices < 2:
        pytest.skip(f"{device.name} has {units} compute unit(s): nothing to split")
    halves = dml.sub_devices(2, device)
    assert [half.cl_device.max_compute_units for half in halves] == [units // 2] * 2
    assert halves[0].cl_device != halves[1].cl_device
