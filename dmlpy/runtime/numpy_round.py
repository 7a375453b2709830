"""``dml.round``: NumPy in, NumPy out, through the same descriptors, validation and kernels as the object
model, with the per-call work cut to a dictionary lookup and a kernel launch.

No hidden copies: on a CPU device the kernel reads and writes the arrays' own memory (host-pointer buffers);
on other devices the input is uploaded once and the output downloaded once. NumPy strides become DirectML
strides, so views, transposes and broadcasts run without a gather copy.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pyopencl as cl

from dmlpy.dtypes import data_type_of
from dmlpy.enums import RoundingMode
from dmlpy.errors import InvalidArgumentError
from dmlpy.ops.element_wise_round import ElementWiseRoundOperatorDesc
from dmlpy.runtime.device import Device, default_device
from dmlpy.runtime.dispatchables import CompiledOperator
from dmlpy.tensor import BufferTensorDesc, packed_strides

MODE_NAMES: dict[str, RoundingMode] = {
    "half_to_even": RoundingMode.HALVES_TO_NEAREST_EVEN,  # ONNX Round, OpenVINO Round-5 default
    "half_away_from_zero": RoundingMode.TOWARD_INFINITY,  # OpenVINO Round-5
    "toward_zero": RoundingMode.TOWARD_ZERO,
}
SUPPORTED_DTYPES = (np.dtype(np.float32), np.dtype(np.float16))
MAX_DIMENSIONS = 8
_CACHE_SIZE = 256


def parse_mode(mode: RoundingMode | str | int) -> RoundingMode:
    """A RoundingMode from its enum, C or short name, number, or the names ONNX and OpenVINO use."""
    if isinstance(mode, str) and mode.lower() in MODE_NAMES:
        return MODE_NAMES[mode.lower()]
    try:
        return RoundingMode.parse(mode)
    except ValueError:
        names = ", ".join([*MODE_NAMES, *(m.name for m in RoundingMode)])
        raise InvalidArgumentError(f"mode {mode!r} is not a rounding mode; use one of {names}") from None


def _element_strides(array: npt.NDArray[Any]) -> tuple[int, ...] | None:
    """The array's strides in elements, or None where DirectML cannot express them (negative, or not a
    multiple of the element size, or a misaligned start)."""
    itemsize = array.itemsize
    if array.ctypes.data % itemsize or any(s < 0 or s % itemsize for s in array.strides):
        return None
    return tuple(s // itemsize for s in array.strides)


def _span(array: npt.NDArray[Any], strides: tuple[int, ...]) -> npt.NDArray[Any]:
    """A contiguous 1-D view of the memory from the array's first element to its last."""
    elements = sum((n - 1) * s for n, s in zip(array.shape, strides, strict=True)) + 1
    return np.lib.stride_tricks.as_strided(array, shape=(elements,), strides=(array.itemsize,))


class _CompiledCache:
    """Compiled, initialized Round operators per (device, dtype, shape, strides, mode), least recent evicted."""

    def __init__(self) -> None:
        self._entries: OrderedDict[tuple[Any, ...], CompiledOperator] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, device: Device, key: tuple[Any, ...], make: Callable[[], CompiledOperator]) -> CompiledOperator:
        full_key = (id(device), *key)
        with self._lock:
            compiled = self._entries.get(full_key)
            if compiled is not None and compiled.device is device:
                self._entries.move_to_end(full_key)
                return compiled
        compiled = make()
        with self._lock:
            self._entries[full_key] = compiled
            while len(self._entries) > _CACHE_SIZE:
                self._entries.popitem(last=False)
        return compiled


_compiled_cache = _CompiledCache()


def _compile(
    device: Device,
    dtype: np.dtype[Any],
    sizes: tuple[int, ...],
    input_strides: tuple[int, ...],
    output_strides: tuple[int, ...],
    mode: RoundingMode,
) -> CompiledOperator:
    data_type = data_type_of(dtype)
    desc = ElementWiseRoundOperatorDesc(
        input_tensor=BufferTensorDesc(data_type=data_type, sizes=sizes, strides=input_strides),
        output_tensor=BufferTensorDesc(data_type=data_type, sizes=sizes, strides=output_strides),
        rounding_mode=mode,
    )
    compiled = device.compile_operator(device.create_operator(desc))
    device.create_operator_initializer([compiled]).initialize()
    return compiled


def _check_arguments(x: npt.NDArray[Any], out: Any) -> None:
    if x.dtype not in SUPPORTED_DTYPES:
        raise InvalidArgumentError(
            f"dml.round takes float32 or float16 arrays (DML_TENSOR_DATA_TYPE_FLOAT32, FLOAT16); got {x.dtype}"
        )
    if x.ndim > MAX_DIMENSIONS:
        raise InvalidArgumentError(f"the array has {x.ndim} dimensions; DirectML tensors have at most {MAX_DIMENSIONS}")
    if out is None:
        return
    if not isinstance(out, np.ndarray):
        raise InvalidArgumentError(f"out must be a NumPy array, not {type(out).__name__}")
    if out.shape != x.shape or out.dtype != x.dtype:
        raise InvalidArgumentError(
            f"out has shape {out.shape} and dtype {out.dtype}; it must match the input's {x.shape} {x.dtype}"
        )
    if not out.flags.writeable:
        raise InvalidArgumentError("out is read-only")


def round(
    x: npt.ArrayLike,
    mode: RoundingMode | str | int = "half_to_even",
    *,
    out: npt.NDArray[Any] | None = None,
    device: Device | None = None,
) -> npt.NDArray[Any]:
    """Round every element of a float32 or float16 array on an OpenCL device; ``out=x`` rounds in place.

    ``mode`` is a RoundingMode, its C or short name or number, or "half_to_even" (ONNX, OpenVINO),
    "half_away_from_zero" (OpenVINO; DirectML's TOWARD_INFINITY) or "toward_zero".
    Returns ``out`` (a new array when None).
    """
    array = np.asarray(x)
    rounding_mode = parse_mode(mode)
    _check_arguments(array, out)
    result = out if out is not None else np.empty(array.shape, array.dtype)
    if array.size == 0:
        return result
    device = device if device is not None else default_device()

    # DirectML has no 0-d tensors: a scalar runs as one element, through views of the same memory.
    array = array.reshape(array.shape or (1,))
    target = result.reshape(array.shape)
    output_strides = _element_strides(target)
    copy_back = output_strides is None
    if output_strides is None:  # e.g. a reversed view: compute into a fresh array, then copy into out
        target = np.empty(array.shape, array.dtype)
        output_strides = packed_strides(array.shape)
    in_place = (
        array.ctypes.data == target.ctypes.data and array.strides == target.strides and array.shape == target.shape
    )
    if not in_place and np.may_share_memory(array, target):
        array = array.copy()  # partial overlap: read from a snapshot, as NumPy ufuncs do
    input_strides = _element_strides(array)
    if input_strides is None:
        array = np.ascontiguousarray(array)
        input_strides = packed_strides(array.shape)

    sizes = array.shape
    key = (array.dtype.char, sizes, input_strides, output_strides, rounding_mode)
    compiled = _compiled_cache.get(
        device,
        key,
        lambda: _compile(device, array.dtype, sizes, input_strides, output_strides, rounding_mode),
    )
    destination = _span(target, output_strides)
    output_has_gaps = destination.size != target.size
    _run(device, compiled, _span(array, input_strides), destination, in_place=in_place, output_has_gaps=output_has_gaps)
    if copy_back:
        result[...] = target.reshape(result.shape)
    return result


def _run(
    device: Device,
    compiled: CompiledOperator,
    source: npt.NDArray[Any],
    destination: npt.NDArray[Any],
    *,
    in_place: bool,
    output_has_gaps: bool,
) -> None:
    context, queue, flags = device.context, device.queue, cl.mem_flags
    if device.is_cpu:
        # The CPU device works on host memory directly: no copy in, no copy out. Mapping the output after
        # the kernel is OpenCL's way to make its writes visible to the host, and costs nothing here.
        output = cl.Buffer(context, flags.READ_WRITE | flags.USE_HOST_PTR, hostbuf=destination)
        source_memory = output if in_place else cl.Buffer(context, flags.READ_ONLY | flags.USE_HOST_PTR, hostbuf=source)
        done = compiled.launchable.launch(queue, [(source_memory, 0), (output, 0)])
        mapped, _ = cl.enqueue_map_buffer(
            queue,
            output,
            cl.map_flags.READ,
            0,
            destination.shape,
            destination.dtype,
            wait_for=[done],
            is_blocking=True,
        )
        mapped.base.release(queue)
        return
    # Other devices: one upload, one download. A strided output is uploaded too, so the bytes between its
    # elements come back unchanged.
    output = (
        cl.Buffer(context, flags.READ_WRITE, destination.nbytes)
        if not output_has_gaps and not in_place
        else cl.Buffer(context, flags.READ_WRITE | flags.COPY_HOST_PTR, hostbuf=destination)
    )
    source_memory = output if in_place else cl.Buffer(context, flags.READ_ONLY | flags.COPY_HOST_PTR, hostbuf=source)
    done = compiled.launchable.launch(queue, [(source_memory, 0), (output, 0)])
    cl.enqueue_copy(queue, destination, output, wait_for=[done], is_blocking=True)
