"""Device buffers (the ID3D12Resource of DirectML's model), with NumPy upload and download.

Every argument is checked before anything is allocated, on the host or the device: a read's dtype, shape and
byte range, a write's array; device memory on a CPU device is host memory, so it is checked against what the
host can still give (see :func:`check_host_memory`). A released buffer refuses every later use.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy import nibbles
from dmlpy.errors import InvalidArgumentError, OutOfMemoryError, argument_error
from dmlpy.ml_types import ML_DTYPE_NAMES, is_ml_dtype
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.fork import check_process, forked_from

if TYPE_CHECKING:
    from pyopencl import array as cl_array


PLAIN_DTYPES = (
    "a plain numeric dtype: bool, a signed or unsigned integer, a float (float16 included), ml_dtypes.bfloat16, "
    "or ml_dtypes.int4 or uint4 (two a byte on the device), never object, str, bytes, void/structured, complex or "
    "datetime, whose bytes mean nothing on a device"
)

HOST_MEMORY_MARGIN = 16 * 2**20
"""Bytes a CPU device's allocation must leave free on the host besides itself (the driver's own bookkeeping)."""


class Buffer:
    """A block of device memory: the ID3D12Resource (a buffer) that a DML_BUFFER_BINDING names. Create with
    ``device.create_buffer(size)`` or ``device.upload(array)``.

    ``buffer.release()`` (or leaving ``with device.create_buffer(n) as buffer:``) gives the memory back; every
    later use of the buffer raises InvalidArgumentError."""

    def __init__(self, device: DeviceBase, memory: cl.Buffer, size: int) -> None:
        self.device = device
        self._memory: cl.Buffer | None = memory
        self._size = size

    @property
    def memory(self) -> cl.Buffer:
        """The pyopencl buffer; InvalidArgumentError once released. Release the buffer with ``release()``, never
        through pyopencl (``memory.release()``), which dmlpy cannot see."""
        memory = self._memory
        if memory is None:
            raise self._released_error("used")
        return memory

    @property
    def released(self) -> bool:
        """Whether ``release()`` was called."""
        return self._memory is None

    @property
    def size(self) -> int:
        """Bytes in the buffer; InvalidArgumentError once released, so a released buffer cannot be bound."""
        if self._memory is None:
            raise self._released_error("bound")
        return self._size

    def _released_error(self, what: str) -> InvalidArgumentError:
        return InvalidArgumentError(
            f"this {self._size}-byte buffer was released (buffer.release(), or the end of its with block) and "
            f"cannot be {what} any more; create a new buffer"
        )

    def release(self) -> None:
        """Give the buffer's OpenCL memory back now. Idempotent. Commands already enqueued that use it finish
        first (OpenCL keeps memory alive until then); every later read, write, binding or dispatch raises
        InvalidArgumentError."""
        memory, self._memory = self._memory, None
        if memory is not None and forked_from() is not None:
            # OpenCL does not survive fork: releasing the parent's memory here could hang in the driver.
            _LEFT_TO_THE_PARENT.append(memory)
        # Dropping the last reference releases the memory (pyopencl calls clReleaseMemObject). A dispatch or
        # copy running in another thread holds its own reference until it has enqueued, so it never sees a
        # freed handle.
        del memory

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.release()

    def _check_range(self, what: str, offset: object, nbytes: int) -> int:
        if not _is_byte_count(offset):
            raise argument_error(f"Buffer.{what}", "offset", offset, "a whole number of bytes, at least 0")
        start: int = int(offset)  # type: ignore[call-overload]  # an int or a NumPy integer (checked above)
        if start + nbytes > self._size:
            raise InvalidArgumentError(
                f"{what} of {nbytes} bytes at offset {start} does not fit a {self._size}-byte buffer"
            )
        return start

    def write(self, array: npt.ArrayLike, offset: int = 0) -> None:
        """Copy an array's bytes (C order) into the buffer at byte ``offset``; returns when done. A 4-bit array
        (ml_dtypes' int4, uint4) is written as DirectML lays it out, two elements a byte (``dmlpy.nibbles``), in
        whole bytes: an odd count's last byte gets a high nibble of 0."""
        check_process()
        data = device_bytes(host_array("Buffer.write", "array", array))
        memory = self.memory  # held until the copy is done, whatever another thread releases
        start = self._check_range("write", offset, data.nbytes)
        if data.nbytes:
            data = _host_copy(np.ascontiguousarray, data)
            cl.enqueue_copy(self.device.queue, memory, data, dst_offset=start, is_blocking=True)

    def _check_view(
        self, what: str, dtype: object, shape: object, offset: object
    ) -> tuple[np.dtype[Any], tuple[int, ...], cl.Buffer, int, int]:
        """The checks of ``read`` and ``as_array``: the dtype, the shape, a live buffer, then the byte range.
        Returns the dtype, the dimensions, the memory (held by the caller), the start and the byte count."""
        resolved = plain_dtype(f"Buffer.{what}", "dtype", dtype)
        dims = _shape(f"Buffer.{what}", shape)
        memory = self.memory
        # Python ints: no overflow before the range check; a 4-bit dtype's elements two a byte
        nbytes = -(-math.prod(dims) // 2) if nibbles.is_nibble_dtype(resolved) else math.prod(dims) * resolved.itemsize
        start = self._check_range(what, offset, nbytes)
        return resolved, dims, memory, start, nbytes

    def read(self, dtype: npt.DTypeLike, shape: int | Sequence[int], offset: int = 0) -> npt.NDArray[Any]:
        """A new array of ``dtype`` and ``shape`` holding the buffer's bytes from byte ``offset``; a 4-bit
        ``dtype`` reads two elements a byte, as DirectML lays them out."""
        check_process()
        resolved, dims, memory, start, nbytes = self._check_view("read", dtype, shape, offset)
        packed = nibbles.is_nibble_dtype(resolved)
        result: npt.NDArray[Any] = _host_copy(
            lambda: np.empty(nbytes if packed else dims, np.uint8 if packed else resolved)
        )
        if nbytes:
            cl.enqueue_copy(self.device.queue, result, memory, src_offset=start, is_blocking=True)
        return nibbles.unpack(result, math.prod(dims), resolved).reshape(dims) if packed else result

    def as_array(self, dtype: npt.DTypeLike, shape: int | Sequence[int], offset: int = 0) -> cl_array.Array:
        """A ``pyopencl.array.Array`` of ``dtype`` and ``shape`` (C order) on ``device.queue`` that views the
        buffer's memory from byte ``offset``: no copy, so a dispatch's results are visible through it and its
        writes through ``read`` and bindings. Checked like ``read`` (dtype, shape, the range inside the buffer,
        not released); ``offset`` must also be a multiple of the dtype's size, as pyopencl's kernels read whole
        elements. The array holds its own reference to the memory: ``release()`` does not free what it views
        until it is dropped too. Order its kernels with dmlpy's dispatches through ``device.queue`` (in
        order), or wait for the events."""
        check_process()
        resolved, dims, memory, start, _ = self._check_view("as_array", dtype, shape, offset)
        if nibbles.is_nibble_dtype(resolved):
            raise InvalidArgumentError(
                f"Buffer.as_array: {resolved} elements lie two a byte in the buffer, and a pyopencl array holds one a "
                "byte; read them with Buffer.read (which unpacks them), or view the bytes as uint8"
            )
        if start % resolved.itemsize:
            raise InvalidArgumentError(
                f"Buffer.as_array: offset {start} is not a multiple of {resolved}'s {resolved.itemsize}-byte "
                "elements; pyopencl's kernels read whole, aligned elements"
            )
        from pyopencl import array as cl_array  # pyopencl.array loads its kernels' machinery: only when used

        return cl_array.Array(self.device.queue, dims, resolved, data=memory, offset=start)

    def __repr__(self) -> str:
        state = " (released)" if self._memory is None else ""
        return f"<dmlpy.Buffer {self._size} bytes on {self.device.name}{state}>"


_LEFT_TO_THE_PARENT: list[cl.Buffer] = []
"""Memory released in a forked child: kept, never handed to the parent's OpenCL runtime."""


def plain_dtype(where: str, name: str, dtype: object) -> np.dtype[Any]:
    """``dtype`` as a NumPy dtype when it is one of PLAIN_DTYPES (any byte order); else InvalidArgumentError
    naming ``where``'s argument ``name``."""
    if dtype is None:  # np.dtype(None) is float64: never a guess
        raise argument_error(where, name, dtype, PLAIN_DTYPES)
    try:
        resolved: np.dtype[Any] = np.dtype(dtype)  # type: ignore[call-overload]  # junk raises
    except (TypeError, ValueError, SyntaxError):
        raise argument_error(where, name, dtype, PLAIN_DTYPES) from None
    plain = resolved.kind in "biuf" and resolved.fields is None and resolved.subdtype is None
    if not plain and not is_ml_dtype(resolved, *ML_DTYPE_NAMES):
        raise argument_error(where, name, resolved, PLAIN_DTYPES)
    return resolved


def host_array(where: str, name: str, array: object) -> npt.NDArray[Any]:
    """``array`` as a NumPy array (not copied when it is one) of a plain dtype; InvalidArgumentError naming the
    argument for anything else, before any device memory is touched."""
    try:
        data = np.asarray(array)
    except (TypeError, ValueError) as error:
        raise argument_error(where, name, array, f"an array of {PLAIN_DTYPES} ({error})") from None
    except MemoryError as error:
        raise OutOfMemoryError(f"{where}: the host could not hold {name} as an array: {error}") from error
    plain_dtype(where, f"{name}.dtype", data.dtype)
    return data


def device_bytes(data: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``data`` as a device buffer holds it: itself, or a 4-bit array packed two elements a byte."""
    return nibbles.pack(data) if nibbles.is_nibble_dtype(data.dtype) else data


def _host_copy(make: Any, *args: Any) -> Any:
    """``make(*args)``, a host allocation, with NumPy's MemoryError raised as OutOfMemoryError."""
    try:
        return make(*args)
    except MemoryError as error:
        raise OutOfMemoryError(f"the host could not allocate the array: {error}") from error


def _shape(where: str, shape: object) -> tuple[int, ...]:
    expected = "a whole number of elements, or a tuple of them, each at least 0"
    dims = (shape,) if isinstance(shape, int | np.integer) else shape
    if not isinstance(dims, Sequence) or isinstance(dims, str | bytes):
        raise argument_error(where, "shape", shape, expected)
    if not all(_is_byte_count(d) for d in dims):
        raise argument_error(where, "shape", shape, expected)
    return tuple(int(d) for d in dims)


def _is_byte_count(value: object) -> bool:
    # bool is an int in Python but never a byte count; NumPy integers are fine.
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_) and bool(value >= 0)


def host_memory_headroom() -> tuple[int, str] | None:
    """The bytes this process can still allocate on the host and where that number comes from (the smaller of
    /proc/meminfo's MemAvailable and RLIMIT_AS minus the address space in use), or None where unknown."""
    limits: list[tuple[int, str]] = []
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    limits.append((available, f"the host has {available} bytes available (MemAvailable)"))
                    break
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
    except ImportError:  # not a Unix
        return min(limits) if limits else None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        try:
            with open("/proc/self/statm") as statm:
                in_use = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            in_use = None
        if in_use is not None:
            left = max(0, soft - in_use)
            limits.append((left, f"this process may map {left} more bytes (RLIMIT_AS {soft} minus {in_use} in use)"))
    return min(limits) if limits else None


def check_host_memory(device: DeviceBase, size_in_bytes: int) -> None:
    """OutOfMemoryError, naming both numbers, when a CPU device's allocation of ``size_in_bytes`` cannot fit in
    what the host can still give. A CPU driver allocates device memory with the host's malloc, and PoCL writes
    through the pointer it gets without checking it, so an allocation the host refuses would crash the process.
    Other devices have their own memory and report running out as an OpenCL error."""
    if not device.is_cpu:
        return
    headroom = host_memory_headroom()
    if headroom is not None and size_in_bytes + HOST_MEMORY_MARGIN > headroom[0]:
        raise OutOfMemoryError(
            f"a {size_in_bytes}-byte buffer on {device.name} (a CPU device: its memory is host memory) does not "
            f"fit: {headroom[1]}, and dmlpy keeps {HOST_MEMORY_MARGIN} bytes spare for the driver"
        )


WRAPPABLE = (
    "a pyopencl.Buffer, or a pyopencl.array.Array at offset 0 (its base_data is wrapped), of this device's "
    "OpenCL context (device.context)"
)


def wrappable_memory(memory: object, context: cl.Context) -> cl.Buffer:
    """The ``cl.Buffer`` that ``Device.wrap_buffer(memory)`` wraps, once every check has passed; else
    InvalidArgumentError naming the argument (see ``Device.wrap_buffer`` for what is accepted)."""
    where = "wrap_buffer"
    if isinstance(memory, Buffer):
        if memory.released:
            raise InvalidArgumentError(
                f"{where}: memory is a dmlpy Buffer that was released ({memory!r}); it holds no memory to wrap"
            )
        raise argument_error(
            where, "memory", memory, f"{WRAPPABLE}; a dmlpy Buffer is bound as it is (or wrap its .memory)"
        )
    from pyopencl import array as cl_array  # only when used: it loads pyopencl's kernel machinery

    name = "memory"
    if isinstance(memory, cl_array.Array):
        if memory.offset:
            raise InvalidArgumentError(
                f"{where}: memory is a pyopencl.array.Array view starting {memory.offset} bytes into its buffer; "
                "wrap the whole buffer (device.wrap_buffer(array.base_data)) and bind the view's offset with "
                f"dml.BufferBinding(buffer, offset={memory.offset})"
            )
        name, memory = "memory.base_data", memory.base_data
        if memory is None:
            raise InvalidArgumentError(f"{where}: memory is an empty pyopencl.array.Array; it holds no memory")
    if not isinstance(memory, cl.Buffer):
        raise argument_error(where, name, memory, WRAPPABLE)
    if memory.get_info(cl.mem_info.ASSOCIATED_MEMOBJECT) is not None:
        raise InvalidArgumentError(
            f"{where}: {name} is a sub-buffer (get_sub_region); wrap its parent buffer and bind the region with "
            "dml.BufferBinding(buffer, offset=..., size_in_bytes=...), so the binding rules see one buffer"
        )
    if memory.context != context:
        raise InvalidArgumentError(
            f"{where}: {name} belongs to another OpenCL context than the device's; allocate it in "
            "device.context (and run its kernels on device.queue) to share it with dmlpy"
        )
    return memory


def allocate(device: DeviceBase, size_in_bytes: int, *, zero: bool = True) -> Buffer:
    """A new buffer, zero-filled like a committed D3D12 resource; OutOfMemoryError when the device cannot."""
    check_process()
    if not _is_byte_count(size_in_bytes) or size_in_bytes == 0:
        raise argument_error("create_buffer", "size_in_bytes", size_in_bytes, "a whole number of bytes, at least 1")
    size_in_bytes = int(size_in_bytes)
    limit = device.cl_device.max_mem_alloc_size
    if size_in_bytes > limit:
        raise OutOfMemoryError(
            f"a {size_in_bytes}-byte buffer is larger than {device.name} allows for one allocation "
            f"({limit} bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE)"
        )
    check_host_memory(device, size_in_bytes)
    try:
        memory = cl.Buffer(device.context, cl.mem_flags.READ_WRITE, size_in_bytes)
        if zero:
            # Also makes the allocation real now, so running out of memory is reported here, not later.
            cl.enqueue_fill_buffer(device.queue, memory, np.zeros(1, np.uint8), 0, size_in_bytes).wait()
    except cl.Error as error:
        raise OutOfMemoryError(f"{device.name} could not allocate {size_in_bytes} bytes: {error}") from error
    return Buffer(device, memory, size_in_bytes)
