"""The devices dmlpy opens for callers (dmlpy's, not DirectML's): the list of OpenCL devices, sub-devices of one,
and the default device the one-liners and the ONNX backend use when given none."""

from __future__ import annotations

import threading
from typing import Any

import pyopencl as cl

from dmlpy.errors import UnsupportedError, argument_error
from dmlpy.runtime.device import Device, create_device
from dmlpy.runtime.fork import check_process, note_opencl_use
from dmlpy.runtime.platforms import DeviceEntry, device_by_index, list_devices, preferred_device


def devices() -> list[DeviceEntry]:
    """dmlpy's list of the OpenCL devices (DirectML has no such call), numbered as ``dmlpy devices`` numbers them
    (``dml.create_device(cl_device=entry.cl_device)`` opens one; a Dask call takes the index): each with its
    ``compute_units``, ``max_sub_devices`` (what ``dml.sub_devices`` can split it into), ``runtime`` (platform,
    driver and LLVM versions) and ``compiler_error`` (None where its compiler builds kernels; dmlpy cannot run
    on a device where it is not)."""
    check_process()
    note_opencl_use()
    return list_devices()


def sub_devices(
    count: int, device: Device | int | None = None, *, extensions: bool = False, launch_profile: str = "auto"
) -> list[Device]:
    """``count`` dmlpy devices (dmlpy's, not DirectML's) on equal shares of one OpenCL device (clCreateSubDevices,
    CL_DEVICE_PARTITION_BY_COUNTS where the device partitions so, else CL_DEVICE_PARTITION_EQUALLY): ``device``
    (a dml.Device, an index from ``dml.devices()``, or None for the default device). On a CPU device (PoCL) each
    sub-device gets its own cores, so ``dml.round(x, devices=dml.sub_devices(2))`` runs the two halves at once;
    on this machine's PoCL the test suite uses them as real, separate OpenCL devices. UnsupportedError when the
    device cannot be split so."""
    where = "sub_devices"
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise argument_error(where, "count", count, "a whole number of sub-devices, at least 1")
    if isinstance(device, Device):
        cl_device = device.cl_device
    elif device is None:
        cl_device = preferred_device().cl_device
    elif isinstance(device, int) and not isinstance(device, bool):
        cl_device = device_by_index(device).cl_device
    else:
        raise argument_error(where, "device", device, "a dml.Device, an index from dml.devices(), or None")
    units = int(cl_device.max_compute_units)
    entry = DeviceEntry(-1, cl_device.platform.name, cl_device.name.strip(), "", cl_device.version, cl_device)
    if count > min(units, entry.max_sub_devices):
        raise UnsupportedError(
            f"{where}: {cl_device.name.strip()} has {units} compute units and splits into at most "
            f"{min(units, entry.max_sub_devices)} sub-devices (CL_DEVICE_PARTITION_EQUALLY); {count} were asked for"
        )
    try:
        parts = cl_device.create_sub_devices(_partition(cl_device, count, units // count))[:count]
    except cl.Error as error:
        raise UnsupportedError(f"{where}: {cl_device.name.strip()} could not be split: {error}") from error
    return [create_device(cl_device=part, extensions=extensions, launch_profile=launch_profile) for part in parts]


def _partition(cl_device: cl.Device, count: int, share: int) -> list[Any]:
    """clCreateSubDevices' properties for ``count`` sub-devices of ``share`` compute units: by counts where the
    device partitions so (Intel's CPU runtime refuses CL_DEVICE_PARTITION_EQUALLY into one sub-device of all its
    units, which ``count=1`` asks for), else equally."""
    by_counts = cl.device_partition_property.BY_COUNTS
    properties = cl_device.partition_properties  # a list, or 0 for a device that does not partition
    if isinstance(properties, list) and by_counts in properties:
        return [by_counts, *[share] * count, cl.device_partition_property.BY_COUNTS_LIST_END]
    return [cl.device_partition_property.EQUALLY, share]


_defaults: dict[bool, Device] = {}
_defaults_lock = threading.Lock()


def default_device(*, extensions: bool = False) -> Device:
    """The device the one-liners use when none is given: created once, at the highest feature level.

    ``extensions=True`` gives a second device on the same OpenCL device that also runs dmlpy's extension
    operators; the one-liners use it only for what DirectML cannot do (nGraph's modes, bfloat16, ...)."""
    check_process()  # the parent's default device must not serve a forked child
    if not isinstance(extensions, bool):
        raise argument_error("default_device", "extensions", extensions, "True or False")
    with _defaults_lock:
        if extensions not in _defaults:
            _defaults[extensions] = create_device(extensions=extensions)
        return _defaults[extensions]
