"""Finding OpenCL devices: a GPU when one exists, else PoCL's CPU device from pocl-binary-distribution."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pyopencl as cl

from dmlpy.errors import UnsupportedError


@dataclass(frozen=True)
class DeviceEntry:
    """One OpenCL device as ``dmlpy devices`` lists it."""

    index: int
    platform: str
    name: str
    kind: str
    version: str
    cl_device: cl.Device

    @property
    def compute_units(self) -> int:
        """CL_DEVICE_MAX_COMPUTE_UNITS: cores on a CPU device, streaming multiprocessors on an NVIDIA GPU."""
        return int(self.cl_device.max_compute_units)

    @property
    def max_sub_devices(self) -> int:
        """How many sub-devices ``dml.sub_devices`` can split it into (CL_DEVICE_PARTITION_MAX_SUB_DEVICES when it
        partitions equally, else 1)."""
        try:
            properties = self.cl_device.partition_properties
            equally = isinstance(properties, list) and cl.device_partition_property.EQUALLY in properties
            return int(self.cl_device.partition_max_sub_devices) if equally else 1
        except cl.Error:
            return 1


def _kind(device: cl.Device) -> str:
    if device.type & cl.device_type.GPU:
        return "GPU"
    if device.type & cl.device_type.CPU:
        return "CPU"
    return "ACCELERATOR" if device.type & cl.device_type.ACCELERATOR else "OTHER"


def list_devices() -> list[DeviceEntry]:
    """Every device of every platform, numbered in a stable order (platform, then device)."""
    entries: list[DeviceEntry] = []
    try:
        platforms = cl.get_platforms()
    except cl.Error:
        platforms = []
    for platform in platforms:
        try:
            devices = platform.get_devices()
        except cl.Error:
            continue
        for device in devices:
            entries.append(
                DeviceEntry(len(entries), platform.name, device.name.strip(), _kind(device), device.version, device)
            )
    return entries


DEVICE_VARIABLE = "DMLPY_DEVICE"
"""An environment variable naming the default device by its index in ``dmlpy devices``: how a process that
cannot be given ``device=`` (a Dask worker, a batch job) is pinned to one GPU of its node."""


def preferred_device() -> DeviceEntry:
    """The default: the device of index $DMLPY_DEVICE when it is set, else the first GPU, else the first CPU
    device (PoCL's in a plain install), else anything."""
    entries = list_devices()
    if not entries:
        raise UnsupportedError(
            "no OpenCL device found; install the pocl-binary-distribution wheel (a CPU driver) or a GPU driver"
        )
    chosen = os.environ.get(DEVICE_VARIABLE, "").strip()
    if chosen:
        if not chosen.isdigit() or int(chosen) >= len(entries):
            raise UnsupportedError(
                f"{DEVICE_VARIABLE} is {chosen!r}; it names a device by its index from `dmlpy devices` "
                f"(0 to {len(entries) - 1} here), or is unset for the first GPU, else the CPU device"
            )
        return entries[int(chosen)]
    for kind in ("GPU", "CPU"):
        for entry in entries:
            if entry.kind == kind:
                return entry
    return entries[0]


def device_by_index(index: int) -> DeviceEntry:
    """The device ``dmlpy devices`` lists as ``index``."""
    entries = list_devices()
    if not 0 <= index < len(entries):
        raise UnsupportedError(f"no OpenCL device {index}; there are {len(entries)} (see `dmlpy devices`)")
    return entries[index]
