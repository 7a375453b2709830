"""The NumPy arrays a graph call (dmlpy/runtime/graph_calls.py) computes its hosted outputs into on a CPU device,
kept for the next calls: a pool per output slot of a compiled graph (one set of shapes).

The rule: an array the call returned is used again only when nothing but the pool references it. A caller's
name for it, a view of it (which references the memory the array lies in: NumPy's views share their owner),
a masked array over it, a memoryview or any other buffer export, each holds a reference, and the pool then
leaves the array alone and computes into another (a new one, pooled in turn, up to POOLED_PER_OUTPUT: the
oldest, still held, is forgotten past that and stays its holder's). So a caller never sees an array it holds
change, and a loop ``y = compiled(x)``, which holds the last result while the next call runs, takes turns
between two arrays and allocates nothing after its first two calls. What the pool saves: the new array's
pages, which the kernel faults in at its first write (16M float32: 14-21 ms), and on Intel's runtime the
creation of a host buffer over them (docs/performance.md)."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from dmlpy.binding import BufferBinding
from dmlpy.runtime.buffer import Buffer
from dmlpy.runtime.device_base import DeviceBase
from dmlpy.runtime.graph_host import HOST_ALIGNMENT, host_buffer, own_binding
from dmlpy.tensor import BufferTensorDesc

POOLED_PER_OUTPUT = 3
"""Arrays kept per output slot: two for a loop that holds the last result, one more for a caller who holds two."""


def _references(array: npt.NDArray[Any]) -> tuple[int, int]:
    """References to the array and to the owner of its memory (``base``, which its views reference instead)."""
    return sys.getrefcount(array), sys.getrefcount(array.base)


@dataclass
class Pooled:
    """A hosted output's array and the binding of the host buffer over its memory."""

    array: npt.NDArray[Any]
    binding: BufferBinding
    unheld: tuple[int, int] = field(default=(0, 0))
    """``_references`` while only the pool holds the array (measured when it is made)."""

    def free(self) -> bool:
        return _references(self.array) == self.unheld


class OutputPool:
    """Per output slot, the arrays calls returned, each reused once nobody but the pool references it."""

    def __init__(self) -> None:
        self._slots: dict[int, list[Pooled]] = {}

    def take(self, device: DeviceBase, index: int, desc: BufferTensorDesc, dtype: np.dtype[Any]) -> Pooled:
        """An array for output ``index`` (``desc``, ``dtype``) that nobody holds: a pooled one, else a new one."""
        pooled = self._slots.setdefault(index, [])
        for entry in pooled:
            if entry.free():
                return entry
        entry = _made(device, desc, dtype)
        pooled.append(entry)
        if len(pooled) > POOLED_PER_OUTPUT:
            del pooled[0]  # held by its caller, who keeps it
        return entry


def _made(device: DeviceBase, desc: BufferTensorDesc, dtype: np.dtype[Any]) -> Pooled:
    array, buffer = _host_array(device, desc, dtype)
    entry = Pooled(array, own_binding(buffer))
    del array
    entry.unheld = _references(entry.array)  # the entry alone holds it now: the maker's names are gone
    return entry


def _host_array(device: DeviceBase, desc: BufferTensorDesc, dtype: np.dtype[Any]) -> tuple[npt.NDArray[Any], Buffer]:
    """A new NumPy array of ``dtype`` and ``desc``'s Sizes to compute a hosted output into, and the buffer over its
    memory (enough bytes for its TotalTensorSizeInBytes), which starts at a multiple of HOST_ALIGNMENT."""
    nbytes = (max(4, desc.total_tensor_size_in_bytes) // dtype.itemsize + 1) * dtype.itemsize
    block = np.empty(nbytes + HOST_ALIGNMENT, np.uint8)
    start = -block.ctypes.data % HOST_ALIGNMENT
    memory = block[start : start + nbytes].view(dtype)
    return memory[: math.prod(desc.sizes)].reshape(desc.sizes), host_buffer(device, memory, written=True)
