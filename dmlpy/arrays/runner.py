"""The one runner of the one-liners: an :class:`~dmlpy.arrays.dispatch.ArrayCall` over host memory (NumPy
arrays: ``host_memory``, which waits) or device memory (pyopencl arrays: ``device_memory``, which does not),
told by ``x``. Both memories answer the same three questions (a new result array, the device to run on when none
is given, and the run), and share the call, the compiled operator cache, the placement policy and the checked
dispatch (``dispatch``)."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from dmlpy.arrays import device_memory, host_memory
from dmlpy.arrays.checks import is_device_array
from dmlpy.arrays.dispatch import ArrayCall
from dmlpy.runtime.device import Device
from dmlpy.runtime.fork import check_process


class Memory(Protocol):
    """What the runner asks of a memory (the modules ``host_memory`` and ``device_memory``)."""

    def new_array(self, x: Any, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
        """A new result array in this memory (for device memory: on ``x``'s queue)."""

    def device_for(self, x: Any, *, extensions: bool) -> Device:
        """The device to run on when the call names none."""

    def run(self, call: ArrayCall, device: Device) -> None:
        """Compute a non-empty call into ``call.output``."""


def _memory_of(x: Any) -> Memory:
    """The memory ``x`` lives in."""
    return device_memory if is_device_array(x) else host_memory


def new_output(x: Any, dtype: np.dtype[Any]) -> Any:
    """A new array of ``x``'s shape and ``dtype`` in ``x``'s memory: the output of a call that runs in several
    dispatches, each writing a part of it (blocked quantization with a partial last block)."""
    return _memory_of(x).new_array(x, x.shape, dtype)


def run(call: ArrayCall, device: Device | None) -> Any:
    """Run ``call`` on ``device`` (None: the default device for ``x``'s memory, with extensions where the
    operator is one) and return its output: ``call.output``, or a new array of ``call.output_dtype`` in ``x``'s
    memory. An empty call opens no device and dispatches nothing. Every argument has been checked."""
    x = call.inputs[0]
    memory = _memory_of(x)
    if call.output is None:
        assert call.output_dtype is not None
        call.output = memory.new_array(x, x.shape, call.output_dtype)
    if call.output.size == 0:
        return call.output
    check_process()  # before any buffer is made: OpenCL does not survive fork
    if device is None:
        device = memory.device_for(x, extensions=call.desc_class.is_extension())
    memory.run(call, device)
    return call.output
