"""What every object of a device (IDMLDeviceChild: buffers, operators, binding tables, recorders) reads of it:
the OpenCL device, context and in-order queue. :class:`~dmlpy.runtime.device.Device` (IDMLDevice) is one, and adds
what creates those objects; they name this base, so the device imports them and none of them imports it."""

from __future__ import annotations

import pyopencl as cl


class DeviceBase:
    """A device's OpenCL side: ``cl_device``, its ``context`` and in-order ``queue`` (a caller's queue, or one of
    a new context), and whether it is a CPU."""

    def __init__(self, cl_device: cl.Device, cl_queue: cl.CommandQueue | None) -> None:
        self.cl_device = cl_device
        self.context = cl_queue.context if cl_queue is not None else cl.Context([cl_device])
        self.queue = cl_queue if cl_queue is not None else cl.CommandQueue(self.context)
        self.is_cpu = bool(cl_device.type & cl.device_type.CPU)

    @property
    def name(self) -> str:
        return f"{self.cl_device.name.strip()} ({self.cl_device.platform.name})"
