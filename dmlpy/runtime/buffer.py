"""Device buffers (the ID3D12Resource of DirectML's model), with NumPy upload and download."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy.errors import InvalidArgumentError, OutOfMemoryError

if TYPE_CHECKING:
    from dmlpy.runtime.device import Device


class Buffer:
    """A block of device memory. Create with ``device.create_buffer(size)`` or ``device.upload(array)``."""

    def __init__(self, device: Device, memory: cl.Buffer, size: int) -> None:
        self.device = device
        self.memory = memory
        self._size = size

    @property
    def size(self) -> int:
        """Bytes in the buffer."""
        return self._size

    def _check_range(self, what: str, offset: int, nbytes: int) -> None:
        if not _is_byte_count(offset):
            raise InvalidArgumentError(f"{what} offset is {offset!r}; it must be a whole number of bytes")
        if offset + nbytes > self._size:
            raise InvalidArgumentError(
                f"{what} of {nbytes} bytes at offset {offset} does not fit a {self._size}-byte buffer"
            )

    def write(self, array: npt.ArrayLike, offset: int = 0) -> None:
        """Copy an array's bytes (C order) into the buffer at byte ``offset``; returns when done."""
        data = np.ascontiguousarray(array)
        self._check_range("write", offset, data.nbytes)
        if data.nbytes:
            cl.enqueue_copy(self.device.queue, self.memory, data, dst_offset=offset, is_blocking=True)

    def read(self, dtype: npt.DTypeLike, shape: int | tuple[int, ...], offset: int = 0) -> npt.NDArray[np.generic]:
        """A new array of ``dtype`` and ``shape`` holding the buffer's bytes from byte ``offset``."""
        result = np.empty(shape, dtype=dtype)
        self._check_range("read", offset, result.nbytes)
        if result.nbytes:
            cl.enqueue_copy(self.device.queue, result, self.memory, src_offset=offset, is_blocking=True)
        return result

    def __repr__(self) -> str:
        return f"<dmlpy.Buffer {self._size} bytes on {self.device.name}>"


def _is_byte_count(value: object) -> bool:
    # bool is an int in Python but never a byte count; NumPy integers are fine.
    return isinstance(value, int | np.integer) and not isinstance(value, bool) and bool(value >= 0)


def allocate(device: Device, size_in_bytes: int, *, zero: bool = True) -> Buffer:
    """A new buffer, zero-filled like a committed D3D12 resource; OutOfMemoryError when the device cannot."""
    if not _is_byte_count(size_in_bytes) or size_in_bytes == 0:
        raise InvalidArgumentError(f"buffer size is {size_in_bytes!r}; it must be a whole number of bytes, at least 1")
    limit = device.cl_device.max_mem_alloc_size
    if size_in_bytes > limit:
        raise OutOfMemoryError(
            f"a {size_in_bytes}-byte buffer is larger than {device.name} allows for one allocation "
            f"({limit} bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE)"
        )
    try:
        memory = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, size_in_bytes)
        if zero:
            # Also makes the allocation real now, so running out of memory is reported here, not later.
            cl.enqueue_fill_buffer(device.queue, memory, np.zeros(1, np.uint8), 0, size_in_bytes).wait()
    except cl.Error as error:
        raise OutOfMemoryError(f"{device.name} could not allocate {size_in_bytes} bytes: {error}") from error
    return Buffer(device, memory, size_in_bytes)
